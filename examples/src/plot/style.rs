//! Colours and markers shared by the plots, cycled per series.

use plotters::chart::SeriesAnno;
use plotters::coord::CoordTranslate;
use plotters::prelude::*;

/// The Tableau 10 palette: distinguishable, and readable on white.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Draws the series legend in the upper-left corner, on a translucent framed box.
pub(crate) fn draw_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
}

/// The colour of series number `series`.
pub(crate) fn color(series: usize) -> RGBColor {
    PALETTE[series % PALETTE.len()]
}

/// A series' marker shape: circle, triangle, cross and square in turn from the first series, so
/// series stay apart in grey-scale too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// A filled circle.
    Circle,
    /// A filled triangle.
    Triangle,
    /// A diagonal cross.
    Cross,
    /// A filled square.
    Square,
}

impl Marker {
    /// Half the marker's size, in pixels.
    pub(crate) const SIZE: i32 = 4;

    /// The marker of series number `series`.
    pub(crate) fn of(series: usize) -> Self {
        [
            Marker::Circle,
            Marker::Triangle,
            Marker::Cross,
            Marker::Square,
        ][series % 4]
    }

    /// Gives the series of `anno` a legend entry in `color`: a short line through this marker.
    pub(crate) fn legend<'a, DB: DrawingBackend + 'a>(
        self,
        anno: &mut SeriesAnno<'a, DB>,
        color: RGBColor,
    ) {
        let s = Marker::SIZE;
        let line = move |at| {
            EmptyElement::at(at) + PathElement::new([(-10, 0), (10, 0)], color.stroke_width(2))
        };
        match self {
            Marker::Circle => {
                anno.legend(move |at| line(at) + Circle::new((0, 0), s, color.filled()))
            }
            Marker::Triangle => {
                anno.legend(move |at| line(at) + TriangleMarker::new((0, 0), s + 1, color.filled()))
            }
            Marker::Cross => {
                anno.legend(move |at| line(at) + Cross::new((0, 0), s, color.stroke_width(2)))
            }
            Marker::Square => {
                anno.legend(move |at| line(at) + Rectangle::new([(-s, -s), (s, s)], color.filled()))
            }
        };
    }
}
