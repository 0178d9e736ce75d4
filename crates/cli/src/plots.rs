//! The figures of a simulation (`--plots DIR`), each as SVG and PNG in the workspace's one
//! style (`cosched-plot`: one colour and marker per policy in every figure, legends beside the
//! data): utilisation and queue length over time, the wait-time CDF per policy, and a Gantt
//! chart per policy of a window of the schedule.

use crate::batch_run::PolicyChoice;
use crate::simulate::PolicyRun;
use crate::timeseries::Series;
use crate::units::{self, Span};
use cosched_plot::{Figure, Gantt, LinePlot};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use thiserror::Error;

/// Jobs a Gantt chart shows when no window is given: the whole schedule up to this many, else
/// the window in which the first this-many jobs start.
pub const GANTT_DEFAULT_JOBS: usize = 2_000;

/// The most jobs one Gantt chart draws (beyond, rectangles are thinner than a pixel and the
/// SVG grows by megabytes): a busier window shows its first jobs by start and says so.
pub const GANTT_MAX_JOBS: usize = 5_000;

/// The most points over time one figure draws, shared by its lines (each at least
/// [`MIN_LINE_BINS`]): the lines of several policies over one trace follow the same arrivals,
/// and at full resolution each hides the others' wiggles; coarser bins keep them apart.
const PLOT_BINS: usize = 400;

/// The fewest points a line over time has, however many lines share its figure.
const MIN_LINE_BINS: usize = 60;

/// A figure that could not be drawn or written.
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

/// The files of `figure` in `dir`, as (file, bytes): `dir/STEM.svg` and `dir/STEM.png`, for
/// the caller to write through its staged outputs.
pub fn render(dir: &Path, figure: &impl Figure) -> Result<Vec<(PathBuf, Vec<u8>)>, PlotError> {
    let [svg_path, png_path] = figure_files(dir, figure.file_stem());
    let svg = figure
        .render_svg()
        .map_err(|e| plot_error(&svg_path)(e.to_string()))?;
    let png = figure
        .render_png()
        .map_err(|e| plot_error(&png_path)(e.to_string()))?;
    Ok(vec![(svg_path, svg.into_bytes()), (png_path, png)])
}

/// `dir/STEM.svg` and `dir/STEM.png`.
pub fn figure_files(dir: &Path, stem: &str) -> [PathBuf; 2] {
    ["svg", "png"].map(|ext| dir.join(format!("{stem}.{ext}")))
}

/// Every file [`draw_runs`] draws into `dir` for `policies`.
pub fn run_files(dir: &Path, policies: &[PolicyChoice]) -> Vec<PathBuf> {
    ["utilization", "queue", "wait_cdf"]
        .into_iter()
        .map(String::from)
        .chain(policies.iter().map(gantt_stem))
        .flat_map(|stem| figure_files(dir, &stem))
        .collect()
}

fn gantt_stem(policy: &PolicyChoice) -> String {
    format!("gantt_{}", policy.file_stem())
}

/// Hours from `origin` to `t` (exact for any two times, whose difference may not fit i64).
fn hours_since(origin: i64, t: i128) -> f64 {
    (t - i128::from(origin)) as f64 / 3600.0
}

/// A time window of the schedule, in seconds since the first submission: `START:END`, each a
/// number of seconds or a number with a unit `s`, `m`, `h` or `d` (`0:2d`, `36h:48h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// First second shown.
    pub start_s: i64,
    /// Last second shown.
    pub end_s: i64,
}

impl FromStr for Window {
    type Err = String;

    fn from_str(s: &str) -> Result<Window, String> {
        let (a, b) = s.split_once(':').ok_or_else(|| {
            format!(
                "`{s}`: expected START:END (seconds since the first submission; units s, m, h, d)"
            )
        })?;
        let (start_s, end_s) = (seconds(a)?, seconds(b)?);
        if start_s >= end_s {
            return Err(format!("`{s}`: the window must end after it starts"));
        }
        Ok(Window { start_s, end_s })
    }
}

/// `N`, `Ns`, `Nm`, `Nh` or `Nd` as seconds.
fn seconds(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&s[..i], c),
        _ => (s, 's'),
    };
    let scale = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        other => return Err(format!("`{s}`: unknown unit `{other}` (s, m, h or d)")),
    };
    digits
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0)
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{s}`: not a number of seconds (≥ 0)"))
}

/// The figures of one simulation into `dir`, as (file, bytes; each `.svg` and `.png`):
/// `utilization`, `queue`, `wait_cdf` and, per policy P, `gantt_P` of `window` (by default the
/// whole schedule up to [`GANTT_DEFAULT_JOBS`] jobs, else the window in which the first of
/// them start).
pub fn draw_runs(
    dir: &Path,
    trace: &str,
    runs: &[PolicyRun],
    capacity: u32,
    window: Option<Window>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, PlotError> {
    let mut files = Vec::new();
    // PLOT_BINS points shared by the lines: wider bins (means of consecutive ones) read better.
    let lines = runs.iter().filter(|r| r.series.is_some()).count().max(1);
    let bins = (PLOT_BINS / lines).max(MIN_LINE_BINS);
    let over_time = |file: &str, what: &str, y: &str, values: fn(&Series) -> &[f64]| {
        let resolution = runs
            .iter()
            .find_map(|r| r.series.as_ref())
            .map_or(0, |s| s.resolution_s);
        let width = runs
            .iter()
            .filter_map(|r| r.series.as_ref())
            .map(|s| values(s).len().div_ceil(bins).max(1))
            .max()
            .unwrap_or(1);
        let plot = LinePlot::new(file, format!("{trace}: {what}"))
            .note(format!("mean over bins of {} s", resolution * width as i64))
            .x_label("hours since the first submission")
            .y_label(y);
        runs.iter().fold(plot, |plot, r| match &r.series {
            Some(s) => plot.series(
                r.policy.name(),
                values(s).chunks(width).enumerate().map(|(k, bin)| {
                    let t = s.bin_start(k * width);
                    let mean = bin.iter().sum::<f64>() / bin.len() as f64;
                    (hours_since(r.outcome.report.first_submit_s, t), mean)
                }),
            ),
            None => plot,
        })
    };
    files.extend(render(
        dir,
        &over_time("utilization", "utilisation", "busy units / capacity", |s| {
            &s.utilization
        }),
    )?);
    files.extend(render(
        dir,
        &over_time("queue", "queue length", "jobs waiting", |s| &s.queue_jobs),
    )?);
    files.extend(render(dir, &wait_cdf(trace, runs))?);
    for r in runs {
        let chart = gantt(trace, r, capacity, window).map_err(plot_error(dir))?;
        files.extend(render(dir, &chart)?);
    }
    Ok(files)
}

/// The wait-time CDF of each policy on a log wait axis. Jobs that started at once (wait 0)
/// cannot sit on a log axis: each curve starts at its share of them at the left edge, the
/// legend gives that share, and the y axis starts just below the smallest one, so the curves
/// use the figure's height for the jobs that waited.
fn wait_cdf(trace: &str, runs: &[PolicyRun]) -> LinePlot {
    let mut lowest: f64 = 1.0;
    let mut curves = Vec::new();
    for r in runs {
        let mut waits: Vec<i64> = r
            .outcome
            .records
            .iter()
            .filter_map(|j| j.wait().map(|w| w.0))
            .collect();
        waits.sort_unstable();
        let n = waits.len().max(1) as f64;
        let at_once = waits.iter().take_while(|&&w| w <= 0).count();
        let share = at_once as f64 / n;
        lowest = lowest.min(share);
        let mut points = vec![(1.0, share)];
        points.extend(
            waits
                .iter()
                .enumerate()
                .skip(at_once)
                .map(|(i, &w)| (w as f64, (i + 1) as f64 / n)),
        );
        curves.push((
            r.policy.name(),
            format!("{} ({:.0} % at once)", r.policy.name(), 100.0 * share),
            points,
        ));
    }
    let floor = (lowest * 20.0).floor() / 20.0;
    let floor = floor.min(0.9);
    let mut plot = LinePlot::new("wait_cdf", format!("{trace}: wait-time CDF"))
        .x_label("wait (s, log scale)")
        .y_label("fraction of jobs waiting at most x")
        .log_x()
        .y_range(floor, 1.0 + (1.0 - floor) * 0.02);
    if floor > 0.0 {
        plot = plot.note(format!(
            "y from {floor:.2}: below it, the jobs that started at once (share in the legend)"
        ));
    }
    curves.into_iter().fold(plot, |plot, (key, label, points)| {
        plot.series_as(key, label, points)
    })
}

/// The Gantt chart of one run over `window` (see [`draw_runs`]): every job running in it, one
/// rectangle per block of units it held.
fn gantt(
    trace: &str,
    run: &PolicyRun,
    capacity: u32,
    window: Option<Window>,
) -> Result<Gantt, String> {
    let records = &run.outcome.records;
    let origin = run.outcome.report.first_submit_s;
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
    let assignment = units::assign(capacity, &spans).map_err(|e| e.to_string())?;
    // Seconds since the first submission (saturating: hostile times may differ by more than i64).
    let since = |t: i64| t.saturating_sub(origin);
    let mut starts: Vec<i64> = spans.iter().flatten().map(|s| since(s.start.0)).collect();
    starts.sort_unstable();
    let span_end = since(run.outcome.report.last_end_s);
    let (window, chosen) = match window {
        Some(w) => (w, true),
        None => {
            let end = match starts.get(GANTT_DEFAULT_JOBS) {
                Some(&first_left_out) => first_left_out,
                None => span_end.max(1),
            };
            (
                Window {
                    start_s: 0,
                    end_s: end.max(1),
                },
                false,
            )
        }
    };
    // The jobs that run in the window, by start, at most GANTT_MAX_JOBS of them.
    let mut shown: Vec<usize> = (0..spans.len())
        .filter(|&i| {
            spans[i]
                .is_some_and(|s| since(s.start.0) < window.end_s && since(s.end.0) > window.start_s)
        })
        .collect();
    shown.sort_by_key(|&i| spans[i].map(|s| s.start));
    let in_window = shown.len();
    shown.truncate(GANTT_MAX_JOBS);
    let h = |t: i64| t as f64 / 3600.0;
    let blocks = shown.iter().flat_map(|&i| {
        let id = records[order[i]].id.0;
        let (x0, x1) = spans[i].map_or((0.0, 0.0), |s| (h(since(s.start.0)), h(since(s.end.0))));
        assignment
            .units(i)
            .iter()
            .map(move |u| (id, [x0, x1, f64::from(u.start), f64::from(u.end)]))
    });
    let total = records.len();
    let window_text = format!(
        "hours {}-{}",
        cosched_plot::tick_label(h(window.start_s)),
        cosched_plot::tick_label(h(window.end_s))
    );
    let mut note = if in_window == total {
        format!("all {total} jobs ({window_text})")
    } else {
        format!(
            "{in_window} of {total} jobs: those running in {window_text}{}",
            if chosen {
                String::new()
            } else {
                " (choose another window with --gantt-window START:END)".into()
            }
        )
    };
    if in_window > GANTT_MAX_JOBS {
        note = format!("{note}; the first {GANTT_MAX_JOBS} by start drawn");
    }
    Ok(Gantt::new(
        format!("gantt_{}", run.policy.file_stem()),
        format!("{trace}: {} schedule", run.policy.name()),
        h(window.start_s)..h(window.end_s),
        0.0..f64::from(capacity),
    )
    .note(note)
    .x_label("hours since the first submission")
    .y_label("unit")
    .blocks(blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_with_units_and_refuse_nonsense() {
        assert_eq!(
            "0:2d".parse::<Window>(),
            Ok(Window {
                start_s: 0,
                end_s: 172_800
            })
        );
        assert_eq!(
            "36h:3000m".parse::<Window>(),
            Ok(Window {
                start_s: 129_600,
                end_s: 180_000
            })
        );
        assert_eq!(
            "10:20".parse::<Window>().map(|w| w.end_s - w.start_s),
            Ok(10)
        );
        for bad in [
            "",
            "5",
            "5:5",
            "9:3",
            "-1:5",
            "1:2w",
            "a:b",
            "0:99999999999999999d",
        ] {
            assert!(bad.parse::<Window>().is_err(), "{bad}");
        }
    }
}
