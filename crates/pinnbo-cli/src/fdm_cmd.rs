//! `pinnbo fdm`: solve a problem's `oracle fdm` block alone, report the field's extremes, and
//! write the field as CSV and a picture.

use crate::exit::Exit;
use pinnbo_dsl::ir::Problem;
use pinnbo_dsl::Style;
use pinnbo_fdm::problem::{self, Solved};
use pinnbo_fdm::Extremum;
use pinnbo_report::plot::{self, HeatMap, Line, Scale};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A bitmap.
    Png,
    /// A vector drawing.
    Svg,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pinnbo fdm problems/heat1.pde --out heat1 --format svg\n  \
                        pinnbo fdm problems/beam.pde --json"
)]
pub struct Options {
    /// The problem file.
    pub file: PathBuf,
    /// Where to write `<field>.csv` and the picture [default: ./<problem>-fdm].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The picture's format.
    #[arg(long, value_enum, default_value = "png")]
    pub format: Format,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// For a design problem (`coord`): the design to simulate, `q=5,T0=0.9` [default: the
    /// centre of the design box].
    #[arg(long)]
    pub at: Option<String>,
}

pub fn run(options: &Options, style: Style) -> Exit {
    let file: &Path = &options.file;
    let Some(checked) = crate::load_or_report(file, style) else {
        return Exit::Invalid;
    };
    let p = &checked.problem;
    let design = match design(p, options.at.as_deref(), style) {
        Ok(design) => design,
        Err(exit) => return exit,
    };
    let solved = match &design {
        Some(point) => problem::solve_design(p, point),
        None => problem::solve(p),
    };
    let solved = match solved {
        Ok(s) => s,
        Err(e) => {
            eprint!("{}", e.render(p, style));
            return Exit::Invalid;
        }
    };
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}-fdm", p.name)));
    let written = match write_outputs(p, &solved, &out, options.format) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let mut report = Report::new(p, &solved, &written);
    if let Some(point) = &design {
        report.design = (p.coords.iter().zip(point))
            .map(|(c, v)| (c.name.clone(), (*v).into()))
            .collect();
    }
    if options.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("plain data")
        );
    } else {
        report.print();
    }
    Exit::Success
}

/// The design a design problem is simulated at (`--at`, or the box's centre, said on
/// stderr); None for a problem without field coordinates (where `--at` is refused).
fn design(p: &Problem, at: Option<&str>, style: Style) -> Result<Option<Vec<f64>>, Exit> {
    if p.field_coords.is_empty() {
        if at.is_some() {
            eprintln!(
                "error: --at chooses a design of a design problem (`coord`); {} has none: its \
                 field spans the design variables and is solved once",
                p.name
            );
            return Err(Exit::Usage);
        }
        return Ok(None);
    }
    let Some(at) = at else {
        let centre: Vec<f64> = (p.lower().iter().zip(p.upper()))
            .map(|(lo, hi)| 0.5 * (lo + hi))
            .collect();
        eprintln!("note: simulating the design box's centre (choose a design with --at)");
        return Ok(Some(centre));
    };
    let assignments = crate::formats::point(at).map_err(|e| {
        eprint!("{}", e.render(style));
        Exit::Usage
    })?;
    let point = crate::eval_cmd::assemble_point(p, &assignments).map_err(|msg| {
        eprintln!("error: {msg}");
        Exit::Usage
    })?;
    if let Some((c, v)) = (p.coords.iter().zip(&point)).find(|(_, v)| !v.is_finite()) {
        eprintln!("error: `{}` = {v} is not a finite number", c.name);
        return Err(Exit::Usage);
    }
    Ok(Some(point))
}

#[derive(serde::Serialize)]
struct Point {
    value: f64,
    /// Coordinate name -> value.
    at: serde_json::Map<String, serde_json::Value>,
}

#[derive(serde::Serialize)]
struct Report {
    problem: String,
    /// A design problem's simulated design (variable name -> value).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    design: serde_json::Map<String, serde_json::Value>,
    field: String,
    model: problem::Model,
    grid: Vec<usize>,
    method: &'static str,
    seconds: f64,
    min: Point,
    max: Point,
    files: Vec<String>,
}

impl Report {
    fn new(p: &Problem, s: &Solved, files: &[PathBuf]) -> Report {
        let point = |e: Extremum| Point {
            value: e.value,
            at: s
                .args
                .iter()
                .zip(e.point)
                .map(|(&c, v)| (p.coordinate(c).name.clone(), v.into()))
                .collect(),
        };
        Report {
            problem: p.name.clone(),
            design: Default::default(),
            field: p.fields[s.field_id].name.clone(),
            model: s.model,
            grid: s.field.axes.iter().map(|a| a.n).collect(),
            method: s.method,
            seconds: s.elapsed.as_secs_f64(),
            min: point(s.field.min()),
            max: point(s.field.max()),
            files: files.iter().map(|f| f.display().to_string()).collect(),
        }
    }

    fn print(&self) {
        let grid: Vec<String> = self.grid.iter().map(usize::to_string).collect();
        println!(
            "{}: {:?} on a {} grid, {}, solved in {:.3} s",
            self.problem,
            self.model,
            grid.join(" x "),
            self.method,
            self.seconds
        );
        if !self.design.is_empty() {
            let at: Vec<String> = (self.design.iter())
                .map(|(n, v)| format!("{n} = {v}"))
                .collect();
            println!("  at the design {}", at.join(", "));
        }
        for (what, e) in [("min", &self.min), ("max", &self.max)] {
            let at: Vec<String> = e.at.iter().map(|(n, v)| format!("{n} = {v:.6}")).collect();
            println!(
                "  {what} {} = {:.8} at {}",
                self.field,
                e.value,
                at.join(", ")
            );
        }
        for f in &self.files {
            println!("  wrote {f}");
        }
    }
}

/// Writes `<field>.csv` (one row per grid node) and the pictures; returns the files written.
fn write_outputs(
    p: &Problem,
    s: &Solved,
    dir: &Path,
    format: Format,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let name = p.fields[s.field_id].name.as_str();
    let csv = dir.join(format!("{name}.csv"));
    write_csv(p, s, &csv).map_err(|e| format!("cannot write {}: {e}", csv.display()))?;
    let mut files = vec![csv];
    let ext = match format {
        Format::Png => "png",
        Format::Svg => "svg",
    };
    let coord = |d: usize| p.coordinate(s.args[d]);
    let scale = |d: usize| Scale {
        label: &coord(d).name,
        lo: s.field.axes[d].lo,
        hi: s.field.axes[d].hi,
    };
    let (min, max) = (s.field.min(), s.field.max());
    let title = format!("{}: {name}", p.name);
    match s.field.axes.len() {
        1 => {
            let axis = s.field.axes[0];
            // A few thousand points draw any curve this picture can show.
            let stride = axis.n.div_ceil(4000);
            let points: Vec<(f64, f64)> = (0..axis.n)
                .step_by(stride)
                .chain(std::iter::once(axis.n - 1))
                .map(|i| (axis.x(i), s.field.values[i]))
                .collect();
            let path = dir.join(format!("{name}.{ext}"));
            plot::line(
                &path,
                &Line {
                    title: &title,
                    x: scale(0),
                    y_label: name,
                    points: &points,
                    marks: &[
                        ("min", min.point[0], min.value),
                        ("max", max.point[0], max.value),
                    ],
                    samples: &[],
                    band: &[],
                    level: None,
                },
            )
            .map_err(|e| e.to_string())?;
            files.push(path);
        }
        2 => {
            let path = dir.join(format!("{name}.{ext}"));
            let value = |x: f64, y: f64| s.field.at(&[x, y]);
            plot::heat_map(
                &path,
                &HeatMap {
                    title: &title,
                    x: scale(0),
                    y: scale(1),
                    value_label: name,
                    value: &value,
                    resolution: (s.field.axes[0].n, s.field.axes[1].n),
                    marks: &[
                        ("min", min.point[0], min.point[1]),
                        ("max", max.point[0], max.point[1]),
                    ],
                    samples: &[],
                },
            )
            .map_err(|e| e.to_string())?;
            files.push(path);
        }
        _ => {
            // u(x, y, t): one picture per requested time (the final time by default).
            let time = s.field.axes[2];
            let settings = match &p.oracle {
                pinnbo_dsl::ir::Oracle::Fdm(o) => &o.settings,
                _ => unreachable!("solved from an fdm oracle"),
            };
            let times = settings
                .list("times")
                .map_or(vec![time.hi], <[f64]>::to_vec);
            for t in times {
                let path = dir.join(format!("{name}-t{t}.{ext}"));
                let value = |x: f64, y: f64| s.field.at(&[x, y, t]);
                plot::heat_map(
                    &path,
                    &HeatMap {
                        title: &format!("{title} at {} = {t}", coord(2).name),
                        x: scale(0),
                        y: scale(1),
                        value_label: name,
                        value: &value,
                        resolution: (s.field.axes[0].n, s.field.axes[1].n),
                        marks: &[],
                        samples: &[],
                    },
                )
                .map_err(|e| e.to_string())?;
                files.push(path);
            }
        }
    }
    Ok(files)
}

/// The field's nodes and values, replaced whole (never through a link: `atomic::write`).
fn write_csv(p: &Problem, s: &Solved, path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<&str> = (s.args.iter())
        .map(|&c| p.coordinate(c).name.as_str())
        .collect();
    header.push(&p.fields[s.field_id].name);
    w.write_record(&header)?;
    for (k, v) in s.field.values.iter().enumerate() {
        let node = s.field.node(&s.field.index(k));
        w.write_record(node.iter().chain([v]).map(f64::to_string))?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    pinnbo_core::run::atomic::write(path, &bytes)?;
    Ok(())
}
