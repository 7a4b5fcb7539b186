//! Where one step's search looks: the unit cube, a trust region in it or its faces, over
//! continuous and discrete coordinates.

use crate::acquisition::trust_region::TrustRegion;
use crate::diagnostics::Diagnostics;
use crate::space::{Kind, Space, FEASIBLE_SEARCH};
use pinnbo_ad::sampling::{in_box, Sampling};

/// Where one step's search looks: `[0, 1]^d`, or a trust region in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Domain {
    pub d: usize,
    pub region: Option<TrustRegion>,
    /// Only the cube's faces, where a maximum principle puts the optimum
    /// (`strategies::pde::optimum_on_faces`); ignored inside a trust region.
    pub faces: bool,
    /// Each coordinate's kind; empty when all are continuous. A discrete coordinate's
    /// candidates sit at its values' centres, refinement holds it, and [`Domain::neighbours`]
    /// moves it.
    pub kinds: Vec<Kind>,
    /// The space whose known constraints every point must hold; None when it has none.
    pub known: Option<Space>,
}

impl Domain {
    /// The whole unit cube.
    pub fn cube(d: usize) -> Domain {
        Domain {
            d,
            region: None,
            faces: false,
            kinds: Vec::new(),
            known: None,
        }
    }

    /// The same domain, kept to the points where `space`'s known constraints hold.
    pub fn within(self, space: &Space) -> Domain {
        let known = (!space.known.is_empty()).then(|| space.clone());
        Domain { known, ..self }
    }

    /// Whether the point holds every known constraint.
    pub fn admits(&self, p: &[f64]) -> bool {
        self.known.as_ref().is_none_or(|s| s.admits(p))
    }

    /// `scores` of the points of `flat` with those that break a known constraint at −∞, the
    /// worst: no search moves there.
    pub fn mask(&self, flat: &[f64], mut scores: Vec<f64>) -> Vec<f64> {
        if self.known.is_some() {
            for (p, s) in flat.chunks(self.d).zip(&mut scores) {
                if !self.admits(p) {
                    *s = f64::NEG_INFINITY;
                }
            }
        }
        scores
    }

    /// The same domain over coordinates of these kinds.
    pub fn with_kinds(self, kinds: Vec<Kind>) -> Domain {
        let kinds = match kinds.iter().all(|k| *k == Kind::Continuous) {
            true => Vec::new(),
            false => kinds,
        };
        Domain { kinds, ..self }
    }

    /// Whether some coordinate is discrete.
    pub fn is_mixed(&self) -> bool {
        !self.kinds.is_empty()
    }

    /// `p` with each discrete coordinate at the centre of its value's share.
    pub fn snap(&self, p: &mut [f64]) {
        for (v, kind) in p.iter_mut().zip(&self.kinds) {
            *v = kind.snap(*v);
        }
    }

    /// The lattice points next to `p` (its discrete coordinates at their values' centres),
    /// one coordinate changed: an integer by one either way, a categorical variable to each
    /// of its other levels (no level is nearer than another).
    pub fn neighbours(&self, p: &[f64]) -> Vec<Vec<f64>> {
        let mut out = Vec::new();
        for (i, kind) in self.kinds.iter().enumerate() {
            let Some(n) = kind.count() else { continue };
            let here = (p[i] * n as f64).floor() as i64;
            let values: Vec<i64> = match kind {
                Kind::Integers(_) => vec![here - 1, here + 1],
                _ => (0..n as i64).filter(|&k| k != here).collect(),
            };
            for k in values.into_iter().filter(|&k| 0 <= k && k < n as i64) {
                let mut q = p.to_vec();
                q[i] = (k as f64 + 0.5) / n as f64;
                out.push(q);
            }
        }
        out
    }

    /// The same domain, searched on the cube's faces only when `faces` (a maximum principle
    /// puts the optimum there).
    pub fn on_faces_if(self, faces: bool) -> Domain {
        Domain { faces, ..self }
    }

    fn on_faces(&self) -> bool {
        self.faces && self.region.is_none()
    }

    /// The intervals a search from `p` may move in: [`Domain::bounds`], with the discrete
    /// coordinates held at `p`'s values, and the coordinate that puts `p` on a face held
    /// there when the domain is the faces.
    pub fn bounds_at(&self, p: &[f64]) -> Vec<(f64, f64)> {
        let mut bounds = self.bounds();
        for (i, kind) in self.kinds.iter().enumerate() {
            if kind.count().is_some() {
                bounds[i] = (p[i], p[i]);
            }
        }
        if self.on_faces() {
            if let Some(k) = p.iter().position(|v| *v == 0.0 || *v == 1.0) {
                bounds[k] = (p[k], p[k]);
            }
        }
        bounds
    }

    /// Per coordinate, the interval a point may take.
    pub fn bounds(&self) -> Vec<(f64, f64)> {
        self.region
            .as_ref()
            .map_or_else(|| vec![(0.0, 1.0); self.d], TrustRegion::bounds)
    }

    /// `n` Sobol candidates (flat `[n, d]`) scrambled by `seed`, in the domain (discrete
    /// coordinates at their values' centres), less those that break a known constraint.
    /// Where that leaves none (a trust region outside the feasible set), the whole cube's
    /// [`FEASIBLE_SEARCH`] Sobol points are taken, less those.
    pub fn candidates(&self, n: usize, seed: u64) -> Vec<f64> {
        let flat = self.unconstrained_candidates(n, seed);
        if self.known.is_none() {
            return flat;
        }
        let kept = self.admitted(&flat);
        if !kept.is_empty() {
            return kept;
        }
        let cube = Domain {
            region: None,
            ..self.clone()
        };
        cube.admitted(&cube.unconstrained_candidates(FEASIBLE_SEARCH.max(n), seed))
    }

    fn admitted(&self, flat: &[f64]) -> Vec<f64> {
        (flat.chunks(self.d))
            .filter(|p| self.admits(p))
            .flatten()
            .copied()
            .collect()
    }

    fn unconstrained_candidates(&self, n: usize, seed: u64) -> Vec<f64> {
        let mut flat = in_box(&vec![(0.0, 1.0); self.d], n, Sampling::Sobol, seed);
        if let Some(r) = &self.region {
            r.place(&mut flat, seed);
        }
        if self.on_faces() {
            // Each point moves to its nearest face: every face gets points, in proportion.
            for p in flat.chunks_mut(self.d) {
                let nearest = (0..self.d).min_by(|&a, &b| {
                    let gap = |i: usize| p[i].min(1.0 - p[i]);
                    gap(a).total_cmp(&gap(b))
                });
                if let Some(k) = nearest {
                    p[k] = p[k].round();
                }
            }
        }
        if self.is_mixed() {
            flat.chunks_mut(self.d).for_each(|p| self.snap(p));
        }
        flat
    }

    /// A step's diagnostics with the region's side added when there is one, and
    /// `search: "faces"` when only the faces were searched.
    pub fn annotate(&self, diagnostics: Diagnostics) -> Diagnostics {
        let diagnostics = Diagnostics {
            region_side: self.region.as_ref().map(|r| r.side),
            ..diagnostics
        };
        match self.on_faces() {
            true => diagnostics.with("search", "faces"),
            false => diagnostics,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An integer's neighbours are one either way (none past an end); a categorical
    /// variable's are all its other levels; candidates sit at the values' centres and
    /// refinement holds the discrete coordinates.
    #[test]
    fn a_mixed_domain_snaps_holds_and_steps_its_discrete_coordinates() {
        let kinds = vec![Kind::Continuous, Kind::Integers(4), Kind::Levels(3)];
        let domain = Domain::cube(3).with_kinds(kinds);
        let p = [0.3, 0.125, 0.5];
        let shown: Vec<Vec<f64>> = domain.neighbours(&p);
        assert_eq!(
            shown,
            vec![
                vec![0.3, 0.375, 0.5],
                vec![0.3, 0.125, 1.0 / 6.0],
                vec![0.3, 0.125, 2.5 / 3.0],
            ]
        );
        for c in domain.candidates(64, 3).chunks(3) {
            assert!([0.125, 0.375, 0.625, 0.875].contains(&c[1]), "{c:?}");
            assert!([0.5 / 3.0, 0.5, 2.5 / 3.0].contains(&c[2]), "{c:?}");
        }
        assert_eq!(
            domain.bounds_at(&p),
            vec![(0.0, 1.0), (0.125, 0.125), (0.5, 0.5)]
        );
        assert!(!Domain::cube(2)
            .with_kinds(vec![Kind::Continuous; 2])
            .is_mixed());
    }
}
