//! Line plots: named series of (x, y) points, with markers, optional 95 % interval bars and a
//! legend beside the plot.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use crate::frame::{self, Entry, Sample};
use crate::style::{self, identities};
use crate::{Figure, Geometry, PlotError, range};

/// Series with at most this many points get a marker on every point; longer ones about
/// [`MARKERS_PER_LINE`] markers, spread along the line.
const EVERY_POINT_UP_TO: usize = 40;
const MARKERS_PER_LINE: usize = 12;

/// The note a log-scale plot carries when an interval reaching 0 or below is drawn clipped.
const CLIPPED_NOTE: &str = "On the log axis an interval bar ending in an arrowhead reaches \
                                0 or below: it is clipped at the axis.";

/// Pixels between the dodged series of a plot with intervals.
const DODGE: f64 = 6.0;

/// How the y axis is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    Linear,
    Log,
    /// Log when the positive values span two decades or more.
    Auto,
}

/// One point: x, y and the half-width of its 95 % interval, if any.
type Point = (f64, f64, Option<f64>);

/// A line plot of named series, with markers and a legend beside the plot.
///
/// Points with a NaN or infinite coordinate are skipped, as are non-positive values on a log
/// axis; the lines join the remaining points in the order given.
///
/// ```
/// use cosched_plot::{Figure, LinePlot};
/// let plot = LinePlot::new("wait_vs_load", "Mean wait against load")
///     .x_label("offered load")
///     .y_label("mean wait (s)")
///     .log_y()
///     .series("EASY", [(0.5, 10.0), (0.9, 300.0)])
///     .series("FCFS", [(0.5, 40.0), (0.9, 4000.0)]);
/// let svg = plot.render_svg().unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("EASY"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    file: String,
    title: String,
    note: Option<String>,
    x_label: String,
    y_label: String,
    log_x: bool,
    y_scale: Scale,
    y_range: Option<(f64, f64)>,
    /// Each series: the name its look is keyed by, its legend text, its points.
    series: Vec<(String, String, Vec<Point>)>,
}

impl LinePlot {
    /// An empty plot written to `<file>.svg` / `<file>.png`, headed by `title`.
    pub fn new(file: impl Into<String>, title: impl Into<String>) -> Self {
        LinePlot {
            file: file.into(),
            title: title.into(),
            note: None,
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            y_scale: Scale::Linear,
            y_range: None,
            series: Vec::new(),
        }
    }

    /// Labels the x axis.
    pub fn x_label(mut self, label: impl Into<String>) -> Self {
        self.x_label = label.into();
        self
    }

    /// Labels the y axis.
    pub fn y_label(mut self, label: impl Into<String>) -> Self {
        self.y_label = label.into();
        self
    }

    /// A line under the title: what the figure leaves out, or how to read it.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// Uses a logarithmic x axis.
    pub fn log_x(mut self) -> Self {
        self.log_x = true;
        self
    }

    /// Uses a logarithmic y axis.
    pub fn log_y(mut self) -> Self {
        self.y_scale = Scale::Log;
        self
    }

    /// Uses a logarithmic y axis when the positive y values span two decades or more (waits,
    /// slowdowns), a linear one otherwise.
    pub fn auto_log_y(mut self) -> Self {
        self.y_scale = Scale::Auto;
        self
    }

    /// Fixes the y axis to `lo..hi` (a CDF zoomed on its upper part); points outside are left
    /// out.
    pub fn y_range(mut self, lo: f64, hi: f64) -> Self {
        self.y_range = Some((lo, hi));
        self
    }

    /// Adds a series named `name` (its legend entry) through `points`.
    pub fn series(
        mut self,
        name: impl Into<String>,
        points: impl IntoIterator<Item = (f64, f64)>,
    ) -> Self {
        let name = name.into();
        let points = points.into_iter().map(|(x, y)| (x, y, None)).collect();
        self.series.push((name.clone(), name, points));
        self
    }

    /// Adds a series that looks like any series named `key` in any figure (its colour and
    /// marker), with `label` as its legend text (`easy (62 % at once)`).
    pub fn series_as(
        mut self,
        key: impl Into<String>,
        label: impl Into<String>,
        points: impl IntoIterator<Item = (f64, f64)>,
    ) -> Self {
        let points = points.into_iter().map(|(x, y)| (x, y, None)).collect();
        self.series.push((key.into(), label.into(), points));
        self
    }

    /// Adds a series whose points carry the half-width of their 95 % interval (`None`: a
    /// single run, no bar), drawn as a vertical bar with caps. On a log y axis a bar reaching
    /// 0 or below is drawn to the axis and ends in an arrowhead, and the plot's note says so.
    pub fn series_with_intervals(
        mut self,
        name: impl Into<String>,
        points: impl IntoIterator<Item = (f64, f64, Option<f64>)>,
    ) -> Self {
        let name = name.into();
        self.series
            .push((name.clone(), name, points.into_iter().collect()));
        self
    }

    fn log_y_axis(&self) -> bool {
        match self.y_scale {
            Scale::Linear => false,
            Scale::Log => true,
            Scale::Auto => range::spans_decades(self.ys(false), 2.0),
        }
    }

    /// Whether a drawn interval reaches 0 or below on a log y axis (it is drawn clipped).
    fn clips_intervals(&self, log_y: bool) -> bool {
        log_y
            && (0..self.series.len()).any(|i| {
                self.drawable(i, true)
                    .iter()
                    .any(|&(_, y, h)| h.is_some_and(|h| h.is_finite() && h > 0.0 && y - h <= 0.0))
            })
    }

    /// The drawable points of series `i`.
    fn drawable(&self, i: usize, log_y: bool) -> Vec<Point> {
        let ok = |v: f64, log: bool| v.is_finite() && (!log || v > 0.0);
        let in_range = |y: f64| self.y_range.is_none_or(|(lo, hi)| (lo..=hi).contains(&y));
        self.series[i]
            .2
            .iter()
            .copied()
            .filter(|&(x, y, _)| ok(x, self.log_x) && ok(y, log_y) && in_range(y))
            .collect()
    }

    /// Every y value and interval end to cover.
    fn ys(&self, log_y: bool) -> impl Iterator<Item = f64> + '_ {
        (0..self.series.len()).flat_map(move |i| {
            self.drawable(i, log_y)
                .into_iter()
                .flat_map(move |(_, y, h)| {
                    let h = h.filter(|h| h.is_finite()).unwrap_or(0.0);
                    let low = if log_y && y - h <= 0.0 { y } else { y - h };
                    [y, low, y + h]
                })
        })
    }

    fn draw_on<DB, X, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        x: X,
        y: Y,
        y_floor: Option<f64>,
    ) -> Result<Geometry, PlotError>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let looks = identities(self.series.iter().map(|(key, _, _)| key.as_str()));
        let entries: Vec<Entry> = self
            .series
            .iter()
            .zip(&looks)
            .map(|((_, label, _), &identity)| Entry {
                name: label.clone(),
                identity,
                sample: Sample::Line,
            })
            .collect();
        let log_y = y_floor.is_some();
        let note = match (&self.note, self.clips_intervals(log_y)) {
            (Some(n), true) => Some(format!("{n} {CLIPPED_NOTE}")),
            (None, true) => Some(CLIPPED_NOTE.to_owned()),
            (n, false) => n.clone(),
        };
        let layout = frame::lay_out(root, &self.title, note.as_deref(), &entries)?;
        let mut chart = frame::chart(&layout.plot, x, y)?;
        let ticks = |v: &f64| style::tick_label(*v);
        frame::styled(&mut chart.configure_mesh())
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&ticks)
            .y_label_formatter(&ticks)
            .draw()?;
        let plot = frame::plot_rect(&chart);
        let mut points = Vec::new();
        let count = self.series.len();
        // Series with intervals are dodged sideways, a few pixels apart, so that the bars of
        // series at the same x stay apart.
        let dodged = self
            .series
            .iter()
            .any(|(_, _, p)| p.iter().any(|q| q.2.is_some()));
        for (i, look) in looks.iter().enumerate() {
            let color = look.color;
            let shift = if dodged {
                ((i as f64 - (count as f64 - 1.0) / 2.0) * DODGE).round() as i32
            } else {
                0
            };
            let at = |x: f64, y: f64| {
                let (px, py) = chart.backend_coord(&(x, y));
                (px + shift, py)
            };
            let data = self.drawable(i, log_y);
            let pixels: Vec<(i32, i32)> = data.iter().map(|&(x, y, _)| at(x, y)).collect();
            let line = thin(&pixels);
            root.draw(&PathElement::new(line.clone(), color.stroke_width(2)))?;
            points.extend(line);
            for &(x, y, h) in &data {
                let Some(h) = h.filter(|h| h.is_finite() && *h > 0.0) else {
                    continue;
                };
                // On a log axis an interval reaching 0 or below runs to the axis' floor and
                // ends in an arrowhead instead of a cap (the note says so).
                let clipped = y_floor.filter(|_| y - h <= 0.0);
                let (top, bottom) = (at(x, y + h), at(x, clipped.unwrap_or(y - h)));
                let cap = 5;
                let stroke = color.stroke_width(2);
                root.draw(&PathElement::new(vec![top, bottom], stroke))?;
                root.draw(&PathElement::new(
                    vec![(top.0 - cap, top.1), (top.0 + cap, top.1)],
                    stroke,
                ))?;
                let end = if clipped.is_some() {
                    vec![
                        (bottom.0 - cap, bottom.1 - cap),
                        bottom,
                        (bottom.0 + cap, bottom.1 - cap),
                    ]
                } else {
                    vec![(bottom.0 - cap, bottom.1), (bottom.0 + cap, bottom.1)]
                };
                root.draw(&PathElement::new(end, stroke))?;
                points.extend([top, bottom]);
            }
            for at in marker_positions(&pixels, i, count) {
                look.marker.draw(root, at, color)?;
                points.push(at);
            }
        }
        Ok(Geometry {
            plot: Some(plot),
            legend: layout.legend,
            points,
        })
    }
}

/// The vertices of a line through `pixels`, without repeated vertices and without the inner
/// vertices of straight vertical or horizontal runs (so steps stay steps): a CDF of 100,000
/// jobs draws as a few hundred vertices, not 100,000.
fn thin(pixels: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = Vec::with_capacity(pixels.len().min(4096));
    for &p in pixels {
        match out[..] {
            [.., last] if last == p => {}
            [.., a, b] if straight(a, b, p) => {
                if let Some(last) = out.last_mut() {
                    *last = p;
                }
            }
            _ => out.push(p),
        }
    }
    out
}

/// Whether `a → b → c` runs straight on along one axis.
fn straight(a: (i32, i32), b: (i32, i32), c: (i32, i32)) -> bool {
    let along = |a: i32, b: i32, c: i32| (b - a).signum() == (c - b).signum();
    (a.0 == b.0 && b.0 == c.0 && along(a.1, b.1, c.1))
        || (a.1 == b.1 && b.1 == c.1 && along(a.0, b.0, c.0))
}

/// Where series `i` of `count` gets markers: every point of a short series; otherwise about a
/// dozen points, evenly spread and shifted by the series' rank, so that coinciding lines show
/// each one's markers.
fn marker_positions(pixels: &[(i32, i32)], i: usize, count: usize) -> Vec<(i32, i32)> {
    if pixels.len() <= EVERY_POINT_UP_TO {
        return pixels.to_vec();
    }
    let step = pixels.len() / MARKERS_PER_LINE;
    let offset = step * i / count.max(1);
    pixels
        .iter()
        .skip(offset + step / 2)
        .step_by(step.max(1))
        .copied()
        .collect()
}

impl Figure for LinePlot {
    fn file_stem(&self) -> &str {
        &self.file
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<Geometry, PlotError>
    where
        DB::ErrorType: 'static,
    {
        let log_y = self.log_y_axis();
        let xs = (0..self.series.len())
            .flat_map(|i| self.drawable(i, log_y))
            .map(|(x, _, _)| x)
            .collect::<Vec<_>>();
        let y = match self.y_range {
            Some((lo, hi)) if lo < hi => lo..hi,
            _ if log_y => range::log(self.ys(true)),
            _ => range::linear(self.ys(false)),
        };
        let floor = Some(y.start);
        match (self.log_x, log_y) {
            (false, false) => self.draw_on(root, range::linear(xs), y, None),
            (false, true) => self.draw_on(root, range::linear(xs), y.log_scale(), floor),
            (true, false) => self.draw_on(root, range::log(xs).log_scale(), y, None),
            (true, true) => self.draw_on(root, range::log(xs).log_scale(), y.log_scale(), floor),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_shape_and_drops_repeats() {
        let steps = [
            (0, 10),
            (0, 10),
            (0, 9),
            (0, 8),
            (0, 7),
            (1, 7),
            (2, 7),
            (3, 7),
            (3, 6),
        ];
        assert_eq!(thin(&steps), [(0, 10), (0, 7), (3, 7), (3, 6)]);
        let many: Vec<(i32, i32)> = (0..100_000).map(|i| (i / 1000, 500 - i / 400)).collect();
        assert!(thin(&many).len() <= 400, "{}", thin(&many).len());
        assert_eq!(thin(&[]), Vec::<(i32, i32)>::new());
    }

    #[test]
    fn long_series_get_staggered_markers() {
        let pixels: Vec<(i32, i32)> = (0..1200).map(|i| (i, 0)).collect();
        let a = marker_positions(&pixels, 0, 2);
        let b = marker_positions(&pixels, 1, 2);
        assert!((MARKERS_PER_LINE - 1..=MARKERS_PER_LINE + 1).contains(&a.len()));
        assert!(a.iter().all(|p| !b.contains(p)));
        assert_eq!(marker_positions(&pixels[..5], 0, 1).len(), 5);
    }
}
