mod common;
use pinnbo_core::oracle::{from_problem, minimized};
use pinnbo_core::space::Space;
use pinnbo_core::strategies::physics::{objective_field, residuals};
use pinnbo_core::surrogates::gp::{Hyper, Prior};
use pinnbo_core::surrogates::pde_gp::{PdeGp, PdeHyper, Scaling};
use pinnbo_core::surrogates::GpPosterior;
use pinnbo_ad::OperatorRegistry;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = &args[0];
    let k: usize = args[1].parse().unwrap();
    let r: usize = args[2].parse().unwrap();
    let problem = common::load(file, "physics-gp", &[]);
    let space = Space::of(&problem);
    let mut oracle = from_problem(&problem, false).unwrap();
    let grid: Vec<Vec<f64>> = (0..=2000).map(|i| vec![i as f64 / 2000.0]).collect();
    let truth: Vec<f64> = grid.iter().map(|u| minimized(&problem, oracle.evaluate(&space.to_box(u)).unwrap().objective)).collect();
    let history = common::observe(&problem, oracle.as_mut(), &space, k);
    let x: Vec<Vec<f64>> = history.iter().map(|o| o.unit.clone()).collect();
    let y: Vec<f64> = history.iter().map(|o| o.objective).collect();
    let field = objective_field(&problem, "").unwrap();
    let res = residuals(&problem, field, &OperatorRegistry::new(), r, 3).unwrap();
    for l in [0.002, 0.004, 0.008, 0.016, 0.03] {
        for rel in [1e-10, 1e-6, 1e-3] {
          for s2 in [0.0, 3.0] {
            let h = PdeHyper { gp: Hyper { log_lengthscales: vec![f64::ln(l)], log_signal: s2, log_noise: (1e-4f64).ln() }, log_relative: f64::ln(rel) };
            match PdeGp::with_hyper(Scaling::Point, &x, &y, &res, h) {
                Ok(m) => {
                    let rms = (grid.iter().zip(&truth).map(|(u, t)| (m.predict(u).0 - t).powi(2)).sum::<f64>() / grid.len() as f64).sqrt();
                    println!("l {l} rel {rel} s2 {s2}: nll {:.1} rms {:.4} jitter {:.2e}", m.nll, rms, m.jitter());
                }
                Err(e) => println!("l {l} rel {rel}: {e}"),
            }
          }
        }
    }
    let _ = Prior::None;
}
