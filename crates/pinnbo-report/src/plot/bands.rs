//! Several methods' mean curves with a shaded band each (mean ± standard error), as the
//! thesis draws its regret plots; on a log10 axis when every mean is positive.

use super::{finite_extremes, font, frame, shown_range, text, PlotError, Scale, SIZE};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Distinct on white and for most colour-blind readers (the "tab10" colours).
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
];

/// One curve: its legend and (x, mean, standard error) points.
pub struct Band<'a> {
    pub label: &'a str,
    pub points: &'a [(f64, f64, f64)],
}

pub struct Bands<'a> {
    pub title: &'a str,
    pub x: Scale<'a>,
    pub y_label: &'a str,
    pub bands: &'a [Band<'a>],
    /// Draw log10 of the values when every mean is positive.
    pub log: bool,
}

/// Whether `plot` is drawn on a log axis: asked for, and every mean positive.
fn uses_log(plot: &Bands) -> bool {
    plot.log
        && plot
            .bands
            .iter()
            .flat_map(|b| b.points)
            .all(|p| p.1 > 0.0 && p.1.is_finite())
}

pub fn bands(path: &Path, plot: &Bands) -> Result<(), PlotError> {
    on_backend!(path, |root| paint(root, plot))
}

fn paint<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &Bands) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(text)?;
    let log = uses_log(plot);
    // A band's lower edge on a log axis stays above a thousandth of its mean.
    let edges = |&(x, m, s): &(f64, f64, f64)| {
        if log {
            (x, m.log10(), (m - s).max(m * 1e-3).log10(), (m + s).log10())
        } else {
            (x, m, m - s, m + s)
        }
    };
    let all: Vec<Vec<(f64, f64, f64, f64)>> = plot
        .bands
        .iter()
        .map(|b| {
            b.points
                .iter()
                .map(edges)
                .filter(|e| e.2.is_finite() && e.3.is_finite())
                .collect()
        })
        .collect();
    let edge_values = all.iter().flatten().flat_map(|e| [e.2, e.3]);
    let (lo, hi) = finite_extremes(edge_values);
    let (y0, y1) = shown_range(lo, hi, 0.05)?;
    let y_label = if log {
        format!("log10 {}", plot.y_label)
    } else {
        plot.y_label.to_string()
    };
    let counts = all.iter().flatten().all(|e| e.0.fract() == 0.0);
    let mut chart = frame(root, plot.title, &plot.x, (y0, y1), &y_label, counts)?;
    for (i, (band, edges)) in plot.bands.iter().zip(&all).enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mut outline: Vec<(f64, f64)> = edges.iter().map(|e| (e.0, e.3)).collect();
        outline.extend(edges.iter().rev().map(|e| (e.0, e.2)));
        chart
            .draw_series(std::iter::once(Polygon::new(
                outline,
                colour.mix(0.18).filled(),
            )))
            .map_err(text)?;
        chart
            .draw_series(LineSeries::new(
                edges.iter().map(|e| (e.0, e.1)),
                colour.stroke_width(2),
            ))
            .map_err(text)?
            .label(band.label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
    }
    // Falling curves (regret) leave the upper right free; rising ones (a share reached) end
    // there, and their middle right is where they spread apart.
    let rising = all
        .iter()
        .filter(|e| e.len() > 1)
        .all(|e| e[e.len() - 1].1 > e[0].1);
    let corner = match rising {
        true => SeriesLabelPosition::MiddleRight,
        false => SeriesLabelPosition::UpperRight,
    };
    chart
        .configure_series_labels()
        .position(corner)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(text)?;
    Ok(())
}
