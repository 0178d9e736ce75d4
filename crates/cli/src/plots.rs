//! SVG plots of runs (plotters): utilisation and queue length over time, the wait-time CDF
//! per policy, a Gantt chart per policy for small traces, and line plots for experiments.

use crate::batch_run::PolicyChoice;
use crate::simulate::PolicyRun;
use crate::timeseries::Series;
use crate::units::{self, Span};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The largest trace drawn as a Gantt chart (more jobs are unreadable).
pub const GANTT_MAX_JOBS: usize = 2_000;

/// Plot size in pixels.
const SIZE: (u32, u32) = (960, 600);

/// One quantity of a time series.
type SeriesValues = fn(&Series) -> &[f64];

/// Colour `i` of plotters' 99 %-accessibility palette, cycled.
fn color(i: usize) -> RGBColor {
    let (r, g, b) = Palette99::COLORS[i % Palette99::COLORS.len()];
    RGBColor(r, g, b)
}

/// A plot that could not be drawn or written.
#[derive(Debug, Error)]
#[error("cannot draw {path}: {message}")]
pub struct PlotError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub message: String,
}

fn plot_error(path: &Path) -> impl Fn(String) -> PlotError + '_ {
    move |message| PlotError {
        path: path.to_path_buf(),
        message,
    }
}

/// One named line.
pub struct Line {
    /// Legend text.
    pub name: String,
    /// Points, x increasing.
    pub points: Vec<(f64, f64)>,
}

/// Axis labels and title of a line plot.
pub struct Axes<'a> {
    /// Title.
    pub title: &'a str,
    /// x axis.
    pub x: &'a str,
    /// y axis.
    pub y: &'a str,
    /// Whether x is on a log scale (values must be > 0).
    pub log_x: bool,
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    }
}

fn draw_lines_on(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    axes: &Axes<'_>,
    lines: &[Line],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (x0, x1) = bounds(lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)));
    let (y0, y1) = bounds(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let y0 = y0.min(0.0);
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(axes.title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70);
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(axes.x)
                .y_desc(axes.y)
                .draw()
                .map_err(e)?;
            for (i, line) in lines.iter().enumerate() {
                let color = color(i);
                chart
                    .draw_series(LineSeries::new(
                        line.points.iter().copied(),
                        color.stroke_width(2),
                    ))
                    .map_err(e)?
                    .label(line.name.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(e)?;
        }};
    }
    if axes.log_x {
        let x0 = x0.max(1e-3);
        finish!(
            builder
                .build_cartesian_2d((x0..x1.max(x0 * 10.0)).log_scale(), y0..y1)
                .map_err(e)?
        );
    } else {
        finish!(builder.build_cartesian_2d(x0..x1, y0..y1).map_err(e)?);
    }
    root.present().map_err(e)
}

/// Draws `lines` as the SVG text of the file `path` (named in errors).
pub fn draw_lines(path: &Path, axes: &Axes<'_>, lines: &[Line]) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw_lines_on(&root, axes, lines).map_err(plot_error(path))?;
    }
    Ok(svg)
}

/// Every file [`draw_runs`] may draw into `dir` for `policies` (Gantt charts included, though
/// a large trace has none).
pub fn run_files(dir: &Path, policies: &[PolicyChoice]) -> Vec<PathBuf> {
    ["utilization.svg", "queue.svg", "wait_cdf.svg"]
        .into_iter()
        .map(String::from)
        .chain(policies.iter().map(gantt_file))
        .map(|name| dir.join(name))
        .collect()
}

fn gantt_file(policy: &PolicyChoice) -> String {
    format!("gantt_{}.svg", policy.file_stem())
}

/// Hours from `origin` to `t` (exact for any two times, whose difference may not fit i64).
fn hours_since(origin: i64, t: i128) -> f64 {
    (t - i128::from(origin)) as f64 / 3600.0
}

/// The plots of one simulation into `dir`, as (file, SVG text): `utilization.svg`,
/// `queue.svg`, `wait_cdf.svg` and, for at most [`GANTT_MAX_JOBS`] jobs, `gantt_P.svg` per
/// policy.
pub fn draw_runs(
    dir: &Path,
    trace: &str,
    runs: &[PolicyRun],
    capacity: u32,
) -> Result<Vec<(PathBuf, String)>, PlotError> {
    let mut files = Vec::new();
    let series: Vec<(&PolicyRun, &Series)> = runs
        .iter()
        .filter_map(|r| r.series.as_ref().map(|s| (r, s)))
        .collect();
    let over_time = |values: SeriesValues| -> Vec<Line> {
        series
            .iter()
            .map(|&(r, s)| Line {
                name: r.policy.name().to_string(),
                points: values(s)
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| {
                        (
                            hours_since(r.outcome.report.first_submit_s, s.bin_start(k)),
                            v,
                        )
                    })
                    .collect(),
            })
            .collect()
    };
    let resolution = series.first().map_or(0, |(_, s)| s.resolution_s);
    let figures: [(&str, &str, &str, SeriesValues); 2] = [
        ("utilization", "utilisation", "busy units / capacity", |s| {
            &s.utilization
        }),
        ("queue", "queue length", "jobs waiting", |s| &s.queue_jobs),
    ];
    for (file, what, y, values) in figures {
        let path = dir.join(format!("{file}.svg"));
        let svg = draw_lines(
            &path,
            &Axes {
                title: &format!("{trace}: {what} (mean per {resolution} s)"),
                x: "hours since the first submission",
                y,
                log_x: false,
            },
            &over_time(values),
        )?;
        files.push((path, svg));
    }
    let cdf: Vec<Line> = runs
        .iter()
        .map(|r| {
            let mut waits: Vec<f64> = r
                .outcome
                .records
                .iter()
                .filter_map(|j| j.wait().map(|w| w.0 as f64 + 1.0))
                .collect();
            waits.sort_by(f64::total_cmp);
            let n = waits.len().max(1) as f64;
            Line {
                name: r.policy.name().to_string(),
                points: waits
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| (w, (i + 1) as f64 / n))
                    .collect(),
            }
        })
        .collect();
    let path = dir.join("wait_cdf.svg");
    let svg = draw_lines(
        &path,
        &Axes {
            title: &format!("{trace}: wait-time CDF"),
            x: "wait + 1 s (log scale)",
            y: "fraction of jobs",
            log_x: true,
        },
        &cdf,
    )?;
    files.push((path, svg));
    for r in runs {
        if r.outcome.records.len() <= GANTT_MAX_JOBS {
            let path = dir.join(gantt_file(&r.policy));
            let svg = gantt(
                &path,
                &format!("{trace}: {} schedule", r.policy.name()),
                r,
                capacity,
            )?;
            files.push((path, svg));
        }
    }
    Ok(files)
}

/// A Gantt chart: each job a rectangle per block of units it held, over its run (the SVG
/// text of the file `path`).
fn gantt(path: &Path, title: &str, run: &PolicyRun, capacity: u32) -> Result<String, PlotError> {
    let records = &run.outcome.records;
    // Job-id order, as the per-job CSV assigns units, so ties between jobs starting at the same
    // instant break the same way and the chart shows `allocated_resources`.
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| records[i].id);
    let spans: Vec<Option<Span>> = order
        .iter()
        .map(|&i| &records[i])
        .map(|r| {
            Some(Span {
                start: r.start?,
                end: r.end?,
                size: r.size,
            })
        })
        .collect();
    let assignment =
        units::assign(capacity, &spans).map_err(|e| plot_error(path)(e.to_string()))?;
    let origin = run.outcome.report.first_submit_s;
    let h = |t: i64| hours_since(origin, i128::from(t));
    let x1 = h(run.outcome.report.last_end_s).max(1e-3);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| plot_error(path)(e.to_string());
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..x1, 0f64..f64::from(capacity))
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("hours since the first submission")
            .y_desc("unit")
            .disable_mesh()
            .draw()
            .map_err(e)?;
        let rects = spans.iter().enumerate().flat_map(|(i, span)| {
            let id = records[order[i]].id.0;
            let color = color((id % Palette99::COLORS.len() as u64) as usize);
            let (x0, x1) = span.map_or((0.0, 0.0), |s| (h(s.start.0), h(s.end.0)));
            assignment.units(i).iter().map(move |u| {
                Rectangle::new(
                    [(x0, f64::from(u.start)), (x1, f64::from(u.end))],
                    ShapeStyle::from(color.mix(0.8)).filled(),
                )
            })
        });
        chart.draw_series(rects).map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(svg)
}
