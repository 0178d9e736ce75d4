//! Grouped bar charts: several named series over categorical x, e.g. policies by metric.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::frame::{self, Entry, Sample};
use crate::style::{self, TICK, identities};
use crate::{Figure, Geometry, PlotError, range};

/// Width of a category's slot on the (integer) x axis.
const SLOT: i32 = 1000;

/// Width of a category's group of bars, centred in its slot.
const GROUP: i32 = 800;

/// The smallest font category labels shrink to before they are cut.
const MIN_TICK: u32 = 11;

/// A grouped bar chart: for each category, one bar per named series, with a legend beside the
/// chart.
///
/// NaN and infinite values leave their bar out; the value axis always includes zero.
///
/// ```
/// use cosched_plot::{BarChart, Figure};
/// let chart = BarChart::new("waits", "Mean wait by policy", ["small", "large"])
///     .y_label("mean wait (s)")
///     .series("EASY", [12.0, 340.0])
///     .series("FCFS", [40.0, 910.0])
///     .reference("target", 500.0);
/// let svg = chart.render_svg().unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("FCFS") && svg.contains("large"));
/// assert!(svg.contains("target"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    file: String,
    title: String,
    y_label: String,
    categories: Vec<String>,
    series: Vec<(String, Vec<f64>)>,
    references: Vec<(String, f64)>,
}

impl BarChart {
    /// An empty chart over `categories` (the x axis, in order) written to `<file>.svg`.
    pub fn new(
        file: impl Into<String>,
        title: impl Into<String>,
        categories: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        BarChart {
            file: file.into(),
            title: title.into(),
            y_label: String::new(),
            categories: categories.into_iter().map(Into::into).collect(),
            series: Vec::new(),
            references: Vec::new(),
        }
    }

    /// Labels the value axis.
    pub fn y_label(mut self, label: impl Into<String>) -> Self {
        self.y_label = label.into();
        self
    }

    /// Adds a horizontal reference line at `value` across every category, named `name` in the
    /// legend (e.g. a paper's figure to read the bars against); a non-finite value draws none.
    pub fn reference(mut self, name: impl Into<String>, value: f64) -> Self {
        self.references.push((name.into(), value));
        self
    }

    /// Adds a series named `name` (its legend entry) with one value per category, in order.
    ///
    /// # Panics
    /// If the number of values differs from the number of categories.
    pub fn series(
        mut self,
        name: impl Into<String>,
        values: impl IntoIterator<Item = f64>,
    ) -> Self {
        let name = name.into();
        let values: Vec<f64> = values.into_iter().collect();
        assert_eq!(
            values.len(),
            self.categories.len(),
            "bar chart `{}`: series `{name}` has {} values for {} categories",
            self.file,
            values.len(),
            self.categories.len()
        );
        self.series.push((name, values));
        self
    }
}

impl Figure for BarChart {
    fn file_stem(&self) -> &str {
        &self.file
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<Geometry, PlotError>
    where
        DB::ErrorType: 'static,
    {
        let n = i32::try_from(self.categories.len()).unwrap_or(i32::MAX);
        let values = self
            .series
            .iter()
            .flat_map(|(_, values)| values.iter().copied())
            .chain(self.references.iter().map(|&(_, v)| v));
        let y = range::from_zero(values);
        let names: Vec<&str> = self
            .series
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(self.references.iter().map(|(n, _)| n.as_str()))
            .collect();
        let looks = identities(names.iter().copied());
        let entries: Vec<Entry> = names
            .iter()
            .zip(&looks)
            .enumerate()
            .map(|(k, (name, &identity))| Entry {
                name: (*name).to_string(),
                identity,
                sample: if k < self.series.len() {
                    Sample::Swatch
                } else {
                    Sample::Rule
                },
            })
            .collect();
        let layout = frame::lay_out(root, &self.title, None, &entries)?;
        // Category `i` spans `i * SLOT..(i + 1) * SLOT`; its tick and label sit at its centre.
        let x = (0..n.max(1) * SLOT).with_key_points((0..n).map(|i| i * SLOT + SLOT / 2).collect());
        // Category labels at the tick size when they fit their slot, else smaller, else cut.
        let (width, _) = layout.plot.dim_in_pixel();
        let slot_px = (i32::try_from(width).unwrap_or(i32::MAX) - 110) / n.max(1) - 6;
        let widest = |size: u32| -> Result<u32, PlotError> {
            let mut widest = 0;
            for c in &self.categories {
                widest = widest.max(layout.plot.estimate_text_size(c, &style::text(size))?.0);
            }
            Ok(widest)
        };
        let mut size = TICK;
        while size > MIN_TICK && i64::from(widest(size)?) > i64::from(slot_px) {
            size -= 1;
        }
        let font = style::text(size);
        let labels = self
            .categories
            .iter()
            .map(|c| frame::fit(&layout.plot, c, &font, slot_px))
            .collect::<Result<Vec<String>, PlotError>>()?;
        let label = |x: &i32| {
            let i = usize::try_from(x / SLOT).unwrap_or(usize::MAX);
            labels.get(i).cloned().unwrap_or_default()
        };
        let ticks = |v: &f64| style::tick_label(*v);
        let bar = GROUP / i32::try_from(self.series.len().max(1)).unwrap_or(i32::MAX);
        let mut chart = frame::chart(&layout.plot, x, y)?;
        frame::styled(&mut chart.configure_mesh())
            .disable_x_mesh()
            .x_label_formatter(&label)
            .x_label_style(font.clone())
            .y_label_formatter(&ticks)
            .y_desc(&self.y_label)
            .draw()?;
        let plot = frame::plot_rect(&chart);
        let mut points = Vec::new();
        for ((_, values), (j, look)) in self.series.iter().zip((0..).zip(&looks)) {
            let color = look.color;
            for (i, &v) in (0..).zip(values).filter(|(_, v)| v.is_finite()) {
                let left = i * SLOT + (SLOT - GROUP) / 2 + j * bar;
                chart.draw_series([Rectangle::new(
                    [(left, 0.0), (left + bar, v)],
                    color.filled(),
                )])?;
                points.push(chart.backend_coord(&(left + bar / 2, v)));
            }
        }
        for ((_, value), look) in self.references.iter().zip(&looks[self.series.len()..]) {
            if !value.is_finite() {
                continue;
            }
            let line = [(0, *value), (n * SLOT, *value)];
            chart.draw_series(LineSeries::new(line, look.color.stroke_width(3)))?;
            points.extend(line.iter().map(|p| chart.backend_coord(p)));
        }
        Ok(Geometry {
            plot: Some(plot),
            legend: layout.legend,
            points,
        })
    }
}
