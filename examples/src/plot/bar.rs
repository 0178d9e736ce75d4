//! Grouped bar charts: several named series over categorical x, e.g. policies by metric.

use plotters::prelude::*;

use super::{Figure, PlotError, SIZE, range, style};

/// Width of a category's slot on the (integer) x axis.
const SLOT: i32 = 1000;

/// Width of a category's group of bars, centred in its slot.
const GROUP: i32 = 800;

/// A grouped bar chart: for each category, one bar per named series, with a legend.
///
/// NaN and infinite values leave their bar out; the value axis always includes zero.
///
/// ```
/// use cosched_examples::{BarChart, Figure};
/// let chart = BarChart::new("waits", "Mean wait by policy", ["small", "large"])
///     .y_label("mean wait (s)")
///     .series("EASY", [12.0, 340.0])
///     .series("FCFS", [40.0, 910.0])
///     .reference("target", 500.0)
///     .legend_above();
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
    legend_above: bool,
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
            legend_above: false,
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

    /// Raises the value axis so that the legend (upper left) sits above the tallest bar
    /// instead of over it.
    pub fn legend_above(mut self) -> Self {
        self.legend_above = true;
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

    fn render_svg(&self) -> Result<String, PlotError> {
        let n = i32::try_from(self.categories.len()).unwrap_or(i32::MAX);
        let values = self
            .series
            .iter()
            .flat_map(|(_, values)| values.iter().copied())
            .chain(self.references.iter().map(|&(_, v)| v));
        let mut y = range::from_zero(values);
        if self.legend_above && y.end > 0.0 {
            // The legend takes about 15 px an entry plus 25 px of frame, of the ~400 px plot
            // height (measured on the rendered SVG).
            let entries = (self.series.len() + self.references.len()) as f64;
            let share = ((15.0 * entries + 25.0) / 400.0).min(0.8);
            y.end /= 1.0 - share;
        }
        // Category `i` spans `i * SLOT..(i + 1) * SLOT`; its tick and label sit at its centre.
        let x = (0..n.max(1) * SLOT).with_key_points((0..n).map(|i| i * SLOT + SLOT / 2).collect());
        let label = |x: &i32| {
            let i = usize::try_from(x / SLOT).unwrap_or(usize::MAX);
            self.categories.get(i).cloned().unwrap_or_default()
        };
        let bar = GROUP / i32::try_from(self.series.len().max(1)).unwrap_or(i32::MAX);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(&self.title, ("sans-serif", 22))
                .margin(15)
                .x_label_area_size(45)
                .y_label_area_size(70)
                .build_cartesian_2d(x, y)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_label_formatter(&label)
                .y_desc(&self.y_label)
                .draw()?;
            for ((name, values), j) in self.series.iter().zip(0..) {
                let color = style::color(j as usize);
                let bars = (0..)
                    .zip(values)
                    .filter(|(_, v)| v.is_finite())
                    .map(|(i, &v)| {
                        let left = i * SLOT + (SLOT - GROUP) / 2 + j * bar;
                        Rectangle::new([(left, 0.0), (left + bar, v)], color.filled())
                    });
                chart.draw_series(bars)?.label(name).legend(move |(x, y)| {
                    Rectangle::new([(x - 6, y - 6), (x + 6, y + 6)], color.filled())
                });
            }
            let n_series = self.series.len();
            for ((name, value), j) in self.references.iter().zip(n_series..) {
                if !value.is_finite() {
                    continue;
                }
                let color = style::color(j);
                let line =
                    LineSeries::new([(0, *value), (n * SLOT, *value)], color.stroke_width(2));
                chart.draw_series(line)?.label(name).legend(move |(x, y)| {
                    PathElement::new([(x - 8, y), (x + 8, y)], color.stroke_width(2))
                });
            }
            if n_series + self.references.len() > 0 {
                style::draw_legend(&mut chart)?;
            }
            root.present()?;
        }
        Ok(svg)
    }
}
