//! Pictures with plotters: line plots and heat maps with a colour bar, as PNG or SVG (chosen
//! by the file extension). Text is drawn with the embedded DejaVu Sans font, so no system
//! fonts or font libraries are needed.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use std::sync::Once;

const SIZE: (u32, u32) = (900, 640);
/// Heat maps are drawn from at most this many cells per axis (the field is sampled at cell
/// centres), which keeps SVG files small and is finer than the picture's pixels anyway.
const MAX_CELLS: usize = 240;
/// SVG draws each cell as an element: fewer of them keep the file near a megabyte.
const MAX_CELLS_SVG: usize = 120;

#[derive(Debug, thiserror::Error)]
#[error("cannot draw {path}: {message}")]
pub struct PlotError {
    path: String,
    message: String,
}

fn font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The font is valid by construction; a failure here would only lose the labels.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// An axis of a picture: its label and range.
pub struct Scale<'a> {
    pub label: &'a str,
    pub lo: f64,
    pub hi: f64,
}

/// A curve `y(x)` with highlighted points (label, x, y).
pub struct Line<'a> {
    pub title: &'a str,
    pub x: Scale<'a>,
    pub y_label: &'a str,
    pub points: &'a [(f64, f64)],
    pub marks: &'a [(&'a str, f64, f64)],
    /// Unlabelled sample points (an optimizer's evaluations), drawn as dots.
    pub samples: &'a [(f64, f64)],
    /// A shaded band `(x, lower, upper)` behind the curve (a model's uncertainty); may be
    /// empty.
    pub band: &'a [(f64, f64, f64)],
    /// A labelled horizontal level (a known optimum), drawn dashed across the picture and
    /// always inside its range.
    pub level: Option<(&'a str, f64)>,
}

/// A scalar function of two coordinates, shown in colour with a colour bar.
pub struct HeatMap<'a> {
    pub title: &'a str,
    pub x: Scale<'a>,
    pub y: Scale<'a>,
    pub value_label: &'a str,
    pub value: &'a dyn Fn(f64, f64) -> f64,
    /// Nodes along each axis of the underlying grid (cells are never finer than these).
    pub resolution: (usize, usize),
    pub marks: &'a [(&'a str, f64, f64)],
    /// Unlabelled sample points (an optimizer's evaluations), drawn as dots.
    pub samples: &'a [(f64, f64)],
}

/// Draws with `$body` to `$path`, PNG or SVG by its extension: under a temporary name, then
/// renamed, so that a failed drawing (a full disk) leaves no partial picture.
macro_rules! on_backend {
    ($path:expr, $body:expr) => {{
        font();
        let path: &Path = $path;
        let fail = |message: String| PlotError {
            path: path.display().to_string(),
            message,
        };
        let drawn_at = pinnbo_core::run::atomic::temporary(path);
        // The backends open the file themselves: claimed first, it is a fresh regular file,
        // not a link planted there.
        if let Err(e) = pinnbo_core::run::atomic::claim(&drawn_at) {
            return Err(fail(e.to_string()));
        }
        let drawn = match path.extension().and_then(|e| e.to_str()) {
            Some("svg") => {
                let root = SVGBackend::new(&drawn_at, SIZE).into_drawing_area();
                $body(&root)
                    .map_err(fail)
                    .and_then(|_| root.present().map_err(|e| fail(e.to_string())))
            }
            Some("png") => {
                let root = crate::plot::typeset::Typeset::new(BitMapBackend::new(&drawn_at, SIZE))
                    .into_drawing_area();
                $body(&root)
                    .map_err(fail)
                    .and_then(|_| root.present().map_err(|e| fail(e.to_string())))
            }
            _ => return Err(fail("the picture's name must end in .png or .svg".into())),
        };
        match drawn {
            Ok(()) => std::fs::rename(&drawn_at, path).map_err(|e| fail(e.to_string())),
            Err(e) => {
                let _ = std::fs::remove_file(&drawn_at);
                Err(e)
            }
        }
    }};
}

mod bands;
mod typeset;
pub use bands::{bands, Band, Bands};

pub fn line(path: &Path, plot: &Line) -> Result<(), PlotError> {
    on_backend!(path, |root| paint_line(root, plot))
}

pub fn heat_map(path: &Path, plot: &HeatMap) -> Result<(), PlotError> {
    let svg = path.extension().is_some_and(|e| e == "svg");
    let cells = if svg { MAX_CELLS_SVG } else { MAX_CELLS };
    on_backend!(path, |root| paint_heat_map(root, plot, cells))
}

/// A colour bar's tick: four significant digits, in exponent form beyond 1e4 or below 1e-3.
fn tick(v: f64) -> String {
    let magnitude = v.abs();
    if magnitude == 0.0 {
        "0".into()
    } else if !(1e-3..1e4).contains(&magnitude) {
        format!("{v:.2e}")
    } else {
        let decimals = (3 - magnitude.log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.decimals$}")
    }
}

fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The range shown for data whose finite values lie in `lo..=hi`: widened by `pad` of its
/// width on each side, by 0.5 around a constant, and `0..1` when there are none. Refused when
/// it is not a drawable axis.
fn shown_range(lo: f64, hi: f64, pad: f64) -> Result<(f64, f64), String> {
    if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
        return Ok((0.0, 1.0));
    }
    if !(hi - lo).is_finite() {
        return Err(format!(
            "values from {lo:e} to {hi:e} span too wide a range to draw"
        ));
    }
    let scale = lo.abs().max(hi.abs());
    let room = if hi - lo > 1e-9 * scale {
        pad * (hi - lo)
    } else {
        0.5f64.max(1e-6 * scale)
    };
    axis(lo - room, hi + room)
}

/// `lo..hi` if plotters can draw it as an axis: its search for tick marks never ends on a
/// non-finite or vanishing width, so those are refused here.
fn axis(lo: f64, hi: f64) -> Result<(f64, f64), String> {
    let width = hi - lo;
    if lo.is_finite()
        && hi.is_finite()
        && width.is_finite()
        && width > 1e-9 * lo.abs().max(hi.abs())
    {
        Ok((lo, hi))
    } else {
        Err(format!("an axis from {lo:e} to {hi:e} cannot be drawn"))
    }
}

/// The extremes of the finite values (infinite, reversed, when there are none).
fn finite_extremes(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        })
}

/// The measured points as dots, named in the legend when there are any.
fn draw_samples<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    samples: &[(f64, f64)],
    colour: RGBColor,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let shown: Vec<(f64, f64)> = (samples.iter())
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .copied()
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    // On a light background the legend shows the dot in black, as the line plots draw it.
    let key = if colour == WHITE { BLACK } else { colour };
    chart
        .draw_series(
            shown
                .into_iter()
                .map(|p| Circle::new(p, 3, colour.filled())),
        )
        .map_err(text)?
        .label("measured points")
        .legend(move |(x, y)| Circle::new((x + 10, y), 3, key.filled()));
    Ok(())
}

/// The legend of the series drawn with labels, in a box at `position`.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    position: SeriesLabelPosition,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.5))
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(text)
}

fn draw_marks<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    marks: impl Iterator<Item = ((f64, f64), String)>,
    middle: f64,
    colour: RGBColor,
    text_colour: RGBColor,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    chart
        .draw_series(marks.map(|(at, label)| {
            let offset = if at.0 > middle {
                -12 - 8 * label.len() as i32
            } else {
                10
            };
            EmptyElement::at(at)
                + Circle::new((0, 0), 6, colour.stroke_width(2))
                + Text::new(
                    label,
                    (offset, -8),
                    ("sans-serif", 15).into_font().color(&text_colour),
                )
        }))
        .map_err(text)?;
    Ok(())
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A titled chart with a labelled mesh over `x` and the value range `y`.
/// With `counts`, the x axis counts things (evaluations): its ticks are whole numbers, and a
/// tick between two is left unlabelled.
fn frame<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    title: &str,
    x: &Scale,
    y: (f64, f64),
    y_label: &str,
    counts: bool,
) -> Result<Chart<'a, DB>, String>
where
    DB::ErrorType: 'static,
{
    let (x_lo, x_hi) = axis(x.lo, x.hi)?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x_lo..x_hi, y.0..y.1)
        .map_err(text)?;
    let whole = |v: &f64| match v.fract() == 0.0 {
        true => format!("{v:.0}"),
        false => String::new(),
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(x.label)
        .y_desc(y_label)
        .label_style(("sans-serif", 15));
    if counts {
        mesh.x_label_formatter(&whole);
    }
    mesh.draw().map_err(text)?;
    Ok(chart)
}

fn paint_line<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &Line) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(text)?;
    let band_edges = plot.band.iter().flat_map(|b| [b.1, b.2]);
    let level = plot.level.iter().map(|l| l.1);
    let (lo, hi) = finite_extremes(
        (plot.points.iter().chain(plot.samples).map(|p| p.1))
            .chain(band_edges)
            .chain(level),
    );
    let y = shown_range(lo, hi, 0.05)?;
    let integral = |x: f64| x.fract() == 0.0;
    let counts = !plot.points.is_empty()
        && (plot.points.iter().chain(plot.samples)).all(|p| integral(p.0))
        && integral(plot.x.lo)
        && integral(plot.x.hi);
    let mut chart = frame(root, plot.title, &plot.x, y, plot.y_label, counts)?;
    let finite: Vec<&(f64, f64, f64)> = (plot.band.iter())
        .filter(|b| b.0.is_finite() && b.1.is_finite() && b.2.is_finite())
        .collect();
    if finite.len() > 1 {
        let outline: Vec<(f64, f64)> = (finite.iter().map(|b| (b.0, b.2)))
            .chain(finite.iter().rev().map(|b| (b.0, b.1)))
            .collect();
        let band = BLUE.mix(0.25).filled();
        chart
            .draw_series(std::iter::once(Polygon::new(outline, band)))
            .map_err(text)?
            .label("mean ± 2σ (about 95%)")
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 20, y + 6)], band));
    }
    chart
        .draw_series(LineSeries::new(
            plot.points
                .iter()
                .copied()
                .filter(|p| p.0.is_finite() && p.1.is_finite()),
            BLUE.stroke_width(2),
        ))
        .map_err(text)?
        .label(match plot.band.is_empty() {
            true => plot.y_label,
            false => "mean",
        })
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    if let Some((label, y)) = plot.level.filter(|l| l.1.is_finite()) {
        let (x_lo, x_hi) = axis(plot.x.lo, plot.x.hi)?;
        chart
            .draw_series(DashedLineSeries::new(
                [(x_lo, y), (x_hi, y)],
                8,
                5,
                RED.stroke_width(2),
            ))
            .map_err(text)?
            .label(label)
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED.stroke_width(2)));
        let at = (x_lo + 0.02 * (x_hi - x_lo), y);
        let style = ("sans-serif", 15)
            .into_font()
            .color(&RED)
            .pos(Pos::new(HPos::Left, VPos::Bottom));
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{label} {y:.4}"),
                at,
                style,
            )))
            .map_err(text)?;
    }
    draw_samples(&mut chart, plot.samples, BLACK)?;
    let marks = plot
        .marks
        .iter()
        .map(|&(label, x, y)| ((x, y), format!("{label} {y:.4} at {x:.4}")));
    let middle = 0.5 * (plot.x.lo + plot.x.hi);
    draw_marks(&mut chart, marks, middle, RED, BLACK)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

fn paint_heat_map<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &HeatMap,
    max_cells: usize,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(text)?;
    let (main, bar) = root.split_horizontally(SIZE.0 - 170);
    let (nx, ny) = (
        plot.resolution.0.clamp(2, max_cells),
        plot.resolution.1.clamp(2, max_cells),
    );
    let (x_lo, x_hi) = axis(plot.x.lo, plot.x.hi)?;
    let (y_lo, y_hi) = axis(plot.y.lo, plot.y.hi)?;
    let (dx, dy) = ((x_hi - x_lo) / nx as f64, (y_hi - y_lo) / ny as f64);
    let mut cells = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let (x, y) = (x_lo + i as f64 * dx, y_lo + j as f64 * dy);
            cells.push((x, y, (plot.value)(x + 0.5 * dx, y + 0.5 * dy)));
        }
    }
    let (lo, hi) = finite_extremes(cells.iter().map(|c| c.2));
    let (lo, hi) = shown_range(lo, hi, 0.0)?;
    let colour = |v: f64| {
        if v.is_finite() {
            ViridisRGB::get_color_normalized(v, lo, hi)
        } else {
            RGBColor(200, 200, 200)
        }
    };

    let mut chart = ChartBuilder::on(&main)
        .caption(plot.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
        .map_err(text)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(plot.x.label)
        .y_desc(plot.y.label)
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(text)?;
    chart
        .draw_series(
            cells
                .iter()
                .map(|&(x, y, v)| Rectangle::new([(x, y), (x + dx, y + dy)], colour(v).filled())),
        )
        .map_err(text)?;
    draw_samples(&mut chart, plot.samples, WHITE)?;
    let marks = plot
        .marks
        .iter()
        .map(|&(label, x, y)| ((x, y), label.to_string()));
    let middle = 0.5 * (plot.x.lo + plot.x.hi);
    draw_marks(&mut chart, marks, middle, WHITE, WHITE)?;
    if !plot.samples.is_empty() {
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    }

    // The colour bar: a column of the colour map against the value scale.
    let mut scale = ChartBuilder::on(&bar)
        .margin_top(56)
        .margin_bottom(60)
        .margin_right(16)
        .y_label_area_size(110)
        .build_cartesian_2d(0.0..1.0, lo..hi)
        .map_err(text)?;
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc(plot.value_label)
        .y_label_formatter(&|v| tick(*v))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(text)?;
    let steps = 200;
    let step = (hi - lo) / steps as f64;
    scale
        .draw_series((0..steps).map(|k| {
            let v = lo + k as f64 * step;
            Rectangle::new([(0.0, v), (1.0, v + step)], colour(v + 0.5 * step).filled())
        }))
        .map_err(text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Draws in a thread and fails, rather than hangs, if drawing does not end.
    fn drawn_in_time(
        draw: impl FnOnce() -> Result<(), PlotError> + Send + 'static,
    ) -> Result<(), String> {
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(draw().map_err(|e| e.to_string()));
        });
        receive
            .recv_timeout(Duration::from_secs(120))
            .expect("drawing ended")
    }

    /// A file `name` in a folder of its own, removed when the test ends (the guard).
    fn scratch(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        (dir, path)
    }

    fn line_of(name: &str, x: (f64, f64), points: Vec<(f64, f64)>) -> Result<(), String> {
        let (_dir, path) = scratch(name);
        drawn_in_time(move || {
            line(
                &path,
                &Line {
                    title: "t",
                    x: Scale {
                        label: "x",
                        lo: x.0,
                        hi: x.1,
                    },
                    y_label: "y",
                    points: &points,
                    marks: &[("best", points[0].0, points[0].1)],
                    samples: &points,
                    band: &[],
                    level: None,
                },
            )
        })
    }

    #[test]
    fn non_finite_or_degenerate_data_is_drawn_or_refused_never_looped_on() {
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        // Data plotters cannot place is left out; the rest is drawn.
        assert_eq!(
            line_of("nan.svg", (0.0, 1.0), vec![(nan, nan), (0.5, nan)]),
            Ok(())
        );
        assert_eq!(
            line_of(
                "inf.svg",
                (0.0, 1.0),
                vec![(0.2, inf), (0.5, -inf), (0.7, 1.0)]
            ),
            Ok(())
        );
        assert_eq!(
            line_of("flat.svg", (0.0, 1.0), vec![(0.2, 1e300), (0.5, 1e300)]),
            Ok(())
        );
        assert_eq!(
            line_of("thin.svg", (0.0, 1.0), vec![(0.2, 1.0), (0.5, 1.0 + 1e-15)]),
            Ok(())
        );
        // Axes that cannot be drawn are refused by name.
        let wide = line_of("wide.svg", (0.0, 1.0), vec![(0.2, -1e308), (0.5, 1e308)]);
        assert!(wide
            .unwrap_err()
            .ends_with("values from -1e308 to 1e308 span too wide a range to draw"));
        let x = line_of("x.svg", (-1e308, 1e308), vec![(0.0, 1.0)]);
        assert!(x
            .unwrap_err()
            .ends_with("an axis from -1e308 to 1e308 cannot be drawn"));
        let point = line_of("point.svg", (1.0, 1.0), vec![(1.0, 1.0)]);
        assert!(point
            .unwrap_err()
            .ends_with("an axis from 1e0 to 1e0 cannot be drawn"));

        let (_dir, path) = scratch("map.png");
        let map = drawn_in_time(move || {
            heat_map(
                &path,
                &HeatMap {
                    title: "t",
                    x: Scale {
                        label: "x",
                        lo: 0.0,
                        hi: 1.0,
                    },
                    y: Scale {
                        label: "y",
                        lo: 0.0,
                        hi: 1.0,
                    },
                    value_label: "v",
                    value: &|x, _| if x < 0.5 { f64::NAN } else { f64::INFINITY },
                    resolution: (10, 10),
                    marks: &[("m", f64::NAN, 0.5)],
                    samples: &[(0.5, f64::INFINITY)],
                },
            )
        });
        assert_eq!(map, Ok(()));
    }
}
