//! PNG rendering: plotters' bitmap backend, with wide lines drawn segment by segment.
//!
//! The bitmap backend turns a wide polyline into one polygon, which at the sharp turns of a
//! noisy series grows miter spikes across the figure and leaves holes where the polygon
//! crosses itself. [`RoundJoins`] draws each segment as its own rectangle and rounds the
//! joins with a dot, as SVG renderers draw the same polyline.

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// A backend that forwards everything to `B` except wide paths, drawn with round joins.
pub(crate) struct RoundJoins<B>(pub(crate) B);

type Result<E> = std::result::Result<(), DrawingErrorKind<E>>;

impl<B: DrawingBackend> DrawingBackend for RoundJoins<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<B::ErrorType> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<B::ErrorType> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<B::ErrorType> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<B::ErrorType> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<B::ErrorType> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<B::ErrorType> {
        let width = style.stroke_width();
        if width <= 1 {
            return self.0.draw_path(path, style);
        }
        let color = style.color();
        let half = f64::from(width) / 2.0;
        let points: Vec<BackendCoord> = path.into_iter().collect();
        for pair in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            let (dx, dy) = (f64::from(x1 - x0), f64::from(y1 - y0));
            let length = dx.hypot(dy);
            if length == 0.0 {
                continue;
            }
            // The segment's rectangle: its ends moved by half the width along the normal.
            let (nx, ny) = (-dy / length * half, dx / length * half);
            let corner = |x: i32, y: i32, s: f64| {
                (
                    (f64::from(x) + s * nx).round() as i32,
                    (f64::from(y) + s * ny).round() as i32,
                )
            };
            self.0.fill_polygon(
                [
                    corner(x0, y0, 1.0),
                    corner(x1, y1, 1.0),
                    corner(x1, y1, -1.0),
                    corner(x0, y0, -1.0),
                ],
                &color,
            )?;
        }
        let radius = width / 2;
        for &p in points.iter().skip(1).take(points.len().saturating_sub(2)) {
            self.0.draw_circle(p, radius, &color, true)?;
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<B::ErrorType> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<B::ErrorType> {
        self.0.fill_polygon(vert, style)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<B::ErrorType> {
        self.0.draw_text(text, style, pos)
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> std::result::Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        self.0.estimate_text_size(text, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<B::ErrorType> {
        self.0.blit_bitmap(pos, size, src)
    }
}
