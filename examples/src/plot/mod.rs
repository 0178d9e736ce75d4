//! SVG plots drawn with plotters: line plots and grouped bar charts.
//!
//! SVG needs no font files (text stays text), so plots render the same on every machine.
//! Axis ranges come from the data with margins; NaN and infinite values are skipped, and empty,
//! single-point or constant data still give a valid (if empty) plot.

mod bar;
mod line;
mod range;
mod style;

pub use bar::BarChart;
pub use line::LinePlot;

use plotters::drawing::DrawingAreaErrorKind;
use thiserror::Error;

/// Width and height of every plot, in pixels.
const SIZE: (u32, u32) = (800, 500);

/// A plot that renders to SVG, written by [`crate::OutDir::write_plot`].
pub trait Figure {
    /// The output file's name without the `.svg` extension.
    fn file_stem(&self) -> &str;

    /// The plot as an SVG document.
    ///
    /// # Errors
    /// When the plotting library fails to draw.
    fn render_svg(&self) -> Result<String, PlotError>;
}

/// A drawing failure reported by the plotting library.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct PlotError(String);

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError(e.to_string())
    }
}
