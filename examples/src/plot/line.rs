//! Line plots: several named series of (x, y) points, with markers and a legend.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use super::style::{self, Marker};
use super::{Figure, PlotError, SIZE, range};

/// A line plot of named series, with one marker per point and a legend.
///
/// Points with a NaN or infinite coordinate are skipped, as are non-positive y values on a log
/// y axis; the lines join the remaining points in the order given.
///
/// ```
/// use cosched_examples::{Figure, LinePlot};
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
    x_label: String,
    y_label: String,
    log_y: bool,
    series: Vec<(String, Vec<(f64, f64)>)>,
}

impl LinePlot {
    /// An empty plot written to `<file>.svg`, headed by `title`.
    pub fn new(file: impl Into<String>, title: impl Into<String>) -> Self {
        LinePlot {
            file: file.into(),
            title: title.into(),
            x_label: String::new(),
            y_label: String::new(),
            log_y: false,
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

    /// Uses a logarithmic y axis.
    pub fn log_y(mut self) -> Self {
        self.log_y = true;
        self
    }

    /// Adds a series named `name` (its legend entry) through `points`.
    pub fn series(
        mut self,
        name: impl Into<String>,
        points: impl IntoIterator<Item = (f64, f64)>,
    ) -> Self {
        self.series
            .push((name.into(), points.into_iter().collect()));
        self
    }

    /// The drawable points of every series.
    fn drawable(&self) -> impl Iterator<Item = (usize, &str, Vec<(f64, f64)>)> {
        self.series.iter().enumerate().map(|(i, (name, points))| {
            let kept = points
                .iter()
                .copied()
                .filter(|&p| range::drawable(p, self.log_y))
                .collect();
            (i, name.as_str(), kept)
        })
    }

    /// Draws the plot on `root` with y coordinates `y`.
    fn draw<Y>(
        &self,
        root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
        y: Y,
    ) -> Result<(), PlotError>
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let xs = self
            .drawable()
            .flat_map(|(_, _, points)| points)
            .map(|(x, _)| x);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(range::linear(xs), y)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .draw()?;
        for (i, name, points) in self.drawable() {
            let color = style::color(i);
            let marker = Marker::of(i);
            let line = LineSeries::new(points.iter().copied(), color.stroke_width(2));
            marker.legend(chart.draw_series(line)?.label(name), color);
            let s = Marker::SIZE;
            let points = points.into_iter();
            match marker {
                Marker::Circle => {
                    chart.draw_series(points.map(|p| Circle::new(p, s, color.filled())))?
                }
                Marker::Triangle => chart
                    .draw_series(points.map(|p| TriangleMarker::new(p, s + 1, color.filled())))?,
                Marker::Cross => {
                    chart.draw_series(points.map(|p| Cross::new(p, s, color.stroke_width(2))))?
                }
                Marker::Square => chart.draw_series(points.map(|p| {
                    EmptyElement::at(p) + Rectangle::new([(-s, -s), (s, s)], color.filled())
                }))?,
            };
        }
        if !self.series.is_empty() {
            style::draw_legend(&mut chart)?;
        }
        Ok(())
    }
}

impl Figure for LinePlot {
    fn file_stem(&self) -> &str {
        &self.file
    }

    fn render_svg(&self) -> Result<String, PlotError> {
        let ys = || {
            self.drawable()
                .flat_map(|(_, _, points)| points)
                .map(|(_, y)| y)
        };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            if self.log_y {
                self.draw(&root, range::log(ys()).log_scale())?;
            } else {
                self.draw(&root, range::linear(ys()))?;
            }
            root.present()?;
        }
        Ok(svg)
    }
}
