//! # cosched-plot
//!
//! The figures of the workspace (`cosched simulate --plots`, `cosched experiment` and every
//! reproduced table's example), drawn with plotters in one style fit for a paper:
//!
//! - **one look per series name**: a colour of the Okabe–Ito palette (colour-blind safe; its
//!   low-contrast yellow left out) and a marker shape, chosen from the name ([`identities`]), so a
//!   policy looks the same in every figure; `fcfs`, `easy`, `conservative` and
//!   `conservative-bounded` have fixed ones;
//! - **legends outside the data**, in a column right of the plot, so no legend hides a point
//!   ([`Geometry`] records where each went, and the tests check it);
//! - **ticks** printed as integers when they are integers (`2000`, not `2000.0`), and nothing cut
//!   at an edge;
//! - **log axes** where values span decades ([`LinePlot::auto_log_y`]), markers and 95 %
//!   interval bars on experiment plots ([`LinePlot::series_with_intervals`]); lines with
//!   thousands of points are thinned to one vertex per pixel (the SVG stays small) and carry
//!   about a dozen markers, staggered per series so that coinciding lines stay apart;
//! - **SVG and PNG** of the same drawing ([`Figure::render_svg`], [`Figure::render_png`]); the
//!   text of both is set in an embedded DejaVu Sans subset (see `fonts/PROVENANCE.md`), so
//!   every machine renders the same figure.
//!
//! Figures: [`LinePlot`] (named series of points), [`BarChart`] (grouped bars over
//! categories), [`Gantt`] (rectangles over time and units). Axis ranges come from the data
//! with margins; NaN and infinite values are skipped, and empty, single-point or constant data
//! still give a valid (if empty) figure.
//!
//! ```
//! use cosched_plot::{Figure, LinePlot};
//! let plot = LinePlot::new("wait_vs_load", "Mean wait against offered load")
//!     .x_label("offered load")
//!     .y_label("mean wait (s)")
//!     .series_with_intervals("easy", [(0.6, 120.0, Some(15.0)), (0.9, 4000.0, Some(900.0))])
//!     .series_with_intervals("fcfs", [(0.6, 300.0, Some(40.0)), (0.9, 90000.0, None)])
//!     .auto_log_y();
//! let svg = plot.render_svg().unwrap();
//! assert!(svg.starts_with("<svg") && svg.contains("easy"));
//! let png = plot.render_png().unwrap();
//! assert_eq!(&png[1..4], b"PNG");
//! ```

mod bar;
mod font;
mod frame;
mod gantt;
mod line;
mod range;
mod raster;
mod style;

pub use bar::BarChart;
pub use gantt::Gantt;
pub use line::LinePlot;
pub use style::{Identity, Marker, identities, tick_label};

use plotters::coord::Shift;
use plotters::prelude::*;
use thiserror::Error;

/// Width and height of every figure, in pixels.
pub const SIZE: (u32, u32) = (960, 600);

/// A drawing failure reported by the plotting library, or a PNG that could not be encoded.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct PlotError(String);

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError(e.to_string())
    }
}

/// A rectangle in pixels, corners included: `(left, top)` to `(right, bottom)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Left edge.
    pub left: i32,
    /// Top edge.
    pub top: i32,
    /// Right edge.
    pub right: i32,
    /// Bottom edge.
    pub bottom: i32,
}

impl Rect {
    /// Whether `(x, y)` lies inside (edges included).
    pub fn contains(&self, (x, y): (i32, i32)) -> bool {
        (self.left..=self.right).contains(&x) && (self.top..=self.bottom).contains(&y)
    }

    /// Whether the two rectangles share a pixel.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.left <= other.right
            && other.left <= self.right
            && self.top <= other.bottom
            && other.top <= self.bottom
    }
}

/// Where a drawn figure put things, in pixels: what a layout test checks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Geometry {
    /// The plotting area (inside the axes).
    pub plot: Option<Rect>,
    /// The legend's frame, if the figure has one.
    pub legend: Option<Rect>,
    /// Every data point drawn: line vertices, markers, interval ends, bar tops.
    pub points: Vec<(i32, i32)>,
}

/// A figure: drawn on any plotters backend, rendered as SVG or PNG.
pub trait Figure {
    /// The output file's name without its extension.
    fn file_stem(&self) -> &str;

    /// Draws the figure on `root` (the whole canvas) and says where things went.
    ///
    /// # Errors
    /// When the plotting library fails to draw.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<Geometry, PlotError>
    where
        DB::ErrorType: 'static;

    /// Where the figure puts its plot, legend and points (drawn on an SVG canvas of [`SIZE`]).
    ///
    /// # Errors
    /// When the plotting library fails to draw.
    fn geometry(&self) -> Result<Geometry, PlotError> {
        font::register()?;
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        self.draw(&root)
    }

    /// The figure as an SVG document.
    ///
    /// # Errors
    /// When the plotting library fails to draw.
    fn render_svg(&self) -> Result<String, PlotError> {
        font::register()?;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            self.draw(&root)?;
            root.present()?;
        }
        Ok(svg)
    }

    /// The figure as a PNG image (8-bit RGB, [`SIZE`]).
    ///
    /// # Errors
    /// When the plotting library fails to draw or the image cannot be encoded.
    fn render_png(&self) -> Result<Vec<u8>, PlotError> {
        font::register()?;
        let (w, h) = SIZE;
        let mut pixels = vec![0u8; w as usize * h as usize * 3];
        {
            let root = raster::RoundJoins(BitMapBackend::with_buffer(&mut pixels, SIZE))
                .into_drawing_area();
            self.draw(&root)?;
            root.present()?;
        }
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .and_then(|mut writer| {
                writer.write_image_data(&pixels)?;
                writer.finish()
            })
            .map_err(|e| PlotError(format!("PNG encoding: {e}")))?;
        Ok(bytes)
    }
}
