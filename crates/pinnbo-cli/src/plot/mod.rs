//! Pictures with plotters: line plots and heat maps with a colour bar, as PNG or SVG (chosen
//! by the file extension). Text is drawn with the embedded DejaVu Sans font, so no system
//! fonts or font libraries are needed.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
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
        let drawn = match path.extension().and_then(|e| e.to_str()) {
            Some("svg") => {
                let root = SVGBackend::new(&drawn_at, SIZE).into_drawing_area();
                $body(&root)
                    .map_err(fail)
                    .and_then(|_| root.present().map_err(|e| fail(e.to_string())))
            }
            Some("png") => {
                let root = BitMapBackend::new(&drawn_at, SIZE).into_drawing_area();
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
pub use bands::{bands, Band, Bands};

pub fn line(path: &Path, plot: &Line) -> Result<(), PlotError> {
    on_backend!(path, |root| paint_line(root, plot))
}

pub fn heat_map(path: &Path, plot: &HeatMap) -> Result<(), PlotError> {
    let svg = path.extension().is_some_and(|e| e == "svg");
    let cells = if svg { MAX_CELLS_SVG } else { MAX_CELLS };
    on_backend!(path, |root| paint_heat_map(root, plot, cells))
}

fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A little room above and below a range, and a unit range around a constant.
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let pad = if hi > lo { 0.05 * (hi - lo) } else { 0.5 };
    (lo - pad, hi + pad)
}

/// Circled points with labels beside them; a label goes on the left of a point in the right
/// half, so that it stays inside the picture.
fn draw_samples<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    samples: &[(f64, f64)],
    colour: RGBColor,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    chart
        .draw_series(
            samples
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&p| Circle::new(p, 3, colour.filled())),
        )
        .map_err(text)?;
    Ok(())
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
fn frame<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    title: &str,
    x: &Scale,
    y: (f64, f64),
    y_label: &str,
) -> Result<Chart<'a, DB>, String>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x.lo..x.hi, y.0..y.1)
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc(x.label)
        .y_desc(y_label)
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(text)?;
    Ok(chart)
}

fn paint_line<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &Line) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(text)?;
    let values = plot.points.iter().chain(plot.samples).map(|p| p.1);
    let finite = values.filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let mut chart = frame(root, plot.title, &plot.x, padded(lo, hi), plot.y_label)?;
    chart
        .draw_series(LineSeries::new(
            plot.points.iter().copied(),
            BLUE.stroke_width(2),
        ))
        .map_err(text)?;
    draw_samples(&mut chart, plot.samples, BLACK)?;
    let marks = plot
        .marks
        .iter()
        .map(|&(label, x, y)| ((x, y), format!("{label} {y:.4} at {x:.4}")));
    let middle = 0.5 * (plot.x.lo + plot.x.hi);
    draw_marks(&mut chart, marks, middle, RED, BLACK)?;
    Ok(())
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
    let (main, bar) = root.split_horizontally(SIZE.0 - 130);
    let (nx, ny) = (
        plot.resolution.0.clamp(2, max_cells),
        plot.resolution.1.clamp(2, max_cells),
    );
    let (dx, dy) = (
        (plot.x.hi - plot.x.lo) / nx as f64,
        (plot.y.hi - plot.y.lo) / ny as f64,
    );
    let mut cells = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let (x, y) = (plot.x.lo + i as f64 * dx, plot.y.lo + j as f64 * dy);
            cells.push((x, y, (plot.value)(x + 0.5 * dx, y + 0.5 * dy)));
        }
    }
    let finite = cells.iter().map(|c| c.2).filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, lo + 0.5)
    };
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
        .build_cartesian_2d(plot.x.lo..plot.x.hi, plot.y.lo..plot.y.hi)
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

    // The colour bar: a column of the colour map against the value scale.
    let mut scale = ChartBuilder::on(&bar)
        .margin_top(56)
        .margin_bottom(60)
        .margin_right(16)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..1.0, lo..hi)
        .map_err(text)?;
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc(plot.value_label)
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
