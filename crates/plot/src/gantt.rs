//! Gantt charts: one rectangle per (job, block of units) over time, in a chosen window.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::frame;
use crate::style;
use crate::{Figure, Geometry, PlotError};

/// A Gantt chart: rectangles over time (x) and units (y), each coloured by a key (a job id),
/// clipped to the x window; a note under the title says what the window leaves out.
///
/// ```
/// use cosched_plot::{Figure, Gantt};
/// let chart = Gantt::new("gantt_easy", "easy schedule", 0.0..10.0, 0.0..4.0)
///     .x_label("hours")
///     .y_label("unit")
///     .note("2 of 3 jobs: those running in hours 0-10")
///     .block(1, 0.0, 5.0, 0.0, 2.0)
///     .block(2, 4.0, 12.0, 2.0, 4.0);
/// let svg = chart.render_svg().unwrap();
/// assert!(svg.contains("2 of 3 jobs"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Gantt {
    file: String,
    title: String,
    note: Option<String>,
    x_label: String,
    y_label: String,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    blocks: Vec<(u64, [f64; 4])>,
}

impl Gantt {
    /// An empty chart of the window `x` (time) by `y` (units).
    pub fn new(
        file: impl Into<String>,
        title: impl Into<String>,
        x: std::ops::Range<f64>,
        y: std::ops::Range<f64>,
    ) -> Self {
        Gantt {
            file: file.into(),
            title: title.into(),
            note: None,
            x_label: String::new(),
            y_label: String::new(),
            x,
            y,
            blocks: Vec::new(),
        }
    }

    /// Labels the time axis.
    pub fn x_label(mut self, label: impl Into<String>) -> Self {
        self.x_label = label.into();
        self
    }

    /// Labels the unit axis.
    pub fn y_label(mut self, label: impl Into<String>) -> Self {
        self.y_label = label.into();
        self
    }

    /// A line under the title (what the window shows and leaves out).
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// Adds the block of units `u0..u1` that `key` held from `x0` to `x1` (clipped to the
    /// window; a block outside it draws nothing).
    pub fn block(mut self, key: u64, x0: f64, x1: f64, u0: f64, u1: f64) -> Self {
        self.blocks.push((key, [x0, x1, u0, u1]));
        self
    }

    /// Adds many blocks at once, as [`Gantt::block`].
    pub fn blocks(mut self, blocks: impl IntoIterator<Item = (u64, [f64; 4])>) -> Self {
        self.blocks.extend(blocks);
        self
    }
}

impl Figure for Gantt {
    fn file_stem(&self) -> &str {
        &self.file
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<Geometry, PlotError>
    where
        DB::ErrorType: 'static,
    {
        let layout = frame::lay_out(root, &self.title, self.note.as_deref(), &[])?;
        let x = if self.x.start < self.x.end {
            self.x.clone()
        } else {
            self.x.start..self.x.start + 1.0
        };
        let y = if self.y.start < self.y.end {
            self.y.clone()
        } else {
            self.y.start..self.y.start + 1.0
        };
        let mut chart = frame::chart(&layout.plot, x.clone(), y.clone())?;
        let ticks = |v: &f64| style::tick_label(*v);
        frame::styled(&mut chart.configure_mesh())
            .disable_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&ticks)
            .y_label_formatter(&ticks)
            .draw()?;
        let clipped = self.blocks.iter().filter_map(|&(key, [x0, x1, u0, u1])| {
            let (x0, x1) = (x0.max(x.start), x1.min(x.end));
            let (u0, u1) = (u0.max(y.start), u1.min(y.end));
            (x0 < x1 && u0 < u1).then(|| {
                Rectangle::new(
                    [(x0, u0), (x1, u1)],
                    ShapeStyle::from(style::cycled(key).mix(0.8)).filled(),
                )
            })
        });
        chart.draw_series(clipped)?;
        Ok(Geometry {
            plot: Some(frame::plot_rect(&chart)),
            legend: None,
            points: Vec::new(),
        })
    }
}
