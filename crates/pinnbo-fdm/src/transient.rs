//! Transient heat `u_t = alpha lap(u) + f` in 1-D or 2-D with Dirichlet data on the boundary,
//! by the theta-scheme: Crank–Nicolson (theta = 1/2, second order in time; the default) or
//! backward Euler (theta = 1, first order, damps stiff modes). The implicit matrix is factored
//! once and reused for every step.

use crate::grid::{check_memory, finite, multi_index, Axis, DEFAULT_MEMORY_LIMIT};
use crate::sparse::Assembly;
use crate::FdmError;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheme {
    #[default]
    CrankNicolson,
    BackwardEuler,
}

impl Scheme {
    fn theta(self) -> f64 {
        match self {
            Scheme::CrankNicolson => 0.5,
            Scheme::BackwardEuler => 1.0,
        }
    }
}

/// (column, weight) pairs of a discrete Laplacian row.
type Stencil = Vec<(usize, f64)>;

/// A point of the grid: its coordinates (one or two).
pub type Point<'p> = &'p [f64];

pub struct Heat<'a> {
    /// One axis (1-D) or two (2-D).
    pub axes: Vec<Axis>,
    pub diffusivity: f64,
    pub source: &'a dyn Fn(Point<'_>, f64) -> f64,
    pub initial: &'a dyn Fn(Point<'_>) -> f64,
    /// The value on the boundary at a time.
    pub boundary: &'a dyn Fn(Point<'_>, f64) -> f64,
    pub scheme: Scheme,
    pub steps: usize,
    pub final_time: f64,
}

/// The field at each requested time, nodes ordered with the first axis fastest.
#[derive(Clone, Debug)]
pub struct Snapshots {
    pub axes: Vec<Axis>,
    pub times: Vec<f64>,
    pub values: Vec<Vec<f64>>,
}

impl Heat<'_> {
    fn nodes(&self) -> usize {
        self.axes.iter().map(|a| a.n).product()
    }

    fn index(&self, k: usize) -> Vec<usize> {
        multi_index(&self.axes, k)
    }

    fn point(&self, idx: &[usize]) -> Vec<f64> {
        idx.iter().zip(&self.axes).map(|(&i, a)| a.x(i)).collect()
    }

    fn on_boundary(&self, idx: &[usize]) -> bool {
        idx.iter()
            .zip(&self.axes)
            .any(|(&i, a)| i == 0 || i + 1 == a.n)
    }

    /// Neighbours of an interior node and the Laplacian's weights: (column, weight), centre last.
    fn stencil(&self, k: usize, idx: &[usize]) -> Vec<(usize, f64)> {
        let mut out = Vec::with_capacity(2 * self.axes.len() + 1);
        let (mut stride, mut centre) = (1, 0.0);
        for (d, a) in self.axes.iter().enumerate() {
            let w = 1.0 / (a.h() * a.h());
            debug_assert!(idx[d] > 0 && idx[d] + 1 < a.n);
            out.push((k - stride, w));
            out.push((k + stride, w));
            centre -= 2.0 * w;
            stride *= a.n;
        }
        out.push((k, centre));
        out
    }

    /// Solves to `final_time`, returning the field at each of `times` (each a multiple of the
    /// time step, including 0 for the initial condition).
    pub fn solve(&self, times: &[f64]) -> Result<Snapshots, FdmError> {
        if self.axes.is_empty() || self.axes.len() > 2 {
            return Err(FdmError::IllPosed(format!(
                "transient heat is 1-D or 2-D, not {}-D",
                self.axes.len()
            )));
        }
        if self.steps == 0 || self.final_time.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        {
            return Err(FdmError::IllPosed(
                "the final time must be positive and the number of steps at least 1".into(),
            ));
        }
        let dt = self.final_time / self.steps as f64;
        let mut wanted: Vec<(usize, f64)> = Vec::with_capacity(times.len());
        for &t in times {
            let step = (t / dt).round();
            if !(0.0..=self.steps as f64).contains(&step)
                || (step * dt - t).abs() > 1e-9 * self.final_time
            {
                return Err(FdmError::IllPosed(format!(
                    "output time {t} is not a multiple of the time step {dt} within [0, {}]",
                    self.final_time
                )));
            }
            wanted.push((step as usize, t));
        }
        let n = self.nodes();
        check_memory(n, self.axes.len(), DEFAULT_MEMORY_LIMIT)?;
        let (theta, alpha) = (self.scheme.theta(), self.diffusivity);
        // Each node's coordinates and, for interior nodes, its Laplacian stencil.
        let kinds: Vec<(Vec<f64>, Option<Stencil>)> = (0..n)
            .map(|k| {
                let idx = self.index(k);
                let stencil = (!self.on_boundary(&idx)).then(|| self.stencil(k, &idx));
                (self.point(&idx), stencil)
            })
            .collect();
        let mut a = Assembly::new(n, (2 * self.axes.len() + 1) * n);
        for (k, (_, stencil)) in kinds.iter().enumerate() {
            match stencil {
                None => a.add(k, k, 1.0),
                Some(s) => {
                    a.add(k, k, 1.0);
                    for &(col, w) in s {
                        a.add(k, col, -theta * dt * alpha * w);
                    }
                }
            }
        }
        let lhs = a.factor()?;
        fn at(p: &[f64], t: f64) -> impl FnOnce() -> String + '_ {
            move || format!("{p:?} at t = {t}")
        }
        let mut u = kinds
            .iter()
            .map(|(p, _)| finite("the initial condition", at(p, 0.0), (self.initial)(p)))
            .collect::<Result<Vec<f64>, _>>()?;
        let mut out = Snapshots {
            axes: self.axes.clone(),
            times: Vec::new(),
            values: Vec::new(),
        };
        let record = |out: &mut Snapshots, step: usize, u: &[f64]| {
            for &(_, t) in wanted.iter().filter(|(s, _)| *s == step) {
                out.times.push(t);
                out.values.push(u.to_vec());
            }
        };
        record(&mut out, 0, &u);
        let mut rhs = vec![0.0; n];
        for step in 1..=self.steps {
            let (t0, t1) = ((step - 1) as f64 * dt, step as f64 * dt);
            for (k, (p, stencil)) in kinds.iter().enumerate() {
                rhs[k] = match stencil {
                    None => finite("the boundary data", at(p, t1), (self.boundary)(p, t1))?,
                    Some(s) => {
                        let lap: f64 = s.iter().map(|&(col, w)| w * u[col]).sum();
                        let f0 = finite("the source", at(p, t0), (self.source)(p, t0))?;
                        let f1 = finite("the source", at(p, t1), (self.source)(p, t1))?;
                        u[k] + (1.0 - theta) * dt * alpha * lap
                            + dt * (theta * f1 + (1.0 - theta) * f0)
                    }
                };
            }
            u = lhs.solve(&rhs)?;
            record(&mut out, step, &u);
        }
        Ok(out)
    }
}
