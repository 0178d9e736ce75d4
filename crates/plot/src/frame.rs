//! The frame every figure shares: title (and an optional note) on top, the chart on the left
//! with its axes, ticks and grid in one style, the legend in its own column on the right,
//! never over the data.

use crate::style::{self, AXIS, Identity, LEGEND, MARKER_SIZE, NOTE, TICK, TITLE};
use crate::{PlotError, Rect};
use plotters::chart::{ChartContext, MeshStyle};
use plotters::coord::Shift;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A chart over the coordinates `x` by `y` give.
pub(crate) type Chart<'a, DB, X, Y> = ChartContext<
    'a,
    DB,
    Cartesian2d<<X as AsRangedCoord>::CoordDescType, <Y as AsRangedCoord>::CoordDescType>,
>;

/// The chart of `x` by `y` in `area`, with room for the tick labels and axis descriptions.
pub(crate) fn chart<'a, DB, X, Y>(
    area: &'a DrawingArea<DB, Shift>,
    x: X,
    y: Y,
) -> Result<Chart<'a, DB, X, Y>, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord,
    Y: AsRangedCoord,
{
    Ok(ChartBuilder::on(area)
        .margin_left(10)
        .margin_right(24)
        .margin_top(6)
        .margin_bottom(6)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)?)
}

/// The shared look of axes: tick and description fonts, a light grid without minor lines.
pub(crate) fn styled<'a, 'b, X, Y, DB>(
    mesh: &'b mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'b mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged,
    Y: Ranged,
    DB: DrawingBackend,
{
    mesh.label_style(style::text(TICK))
        .axis_desc_style(style::text(AXIS))
        .bold_line_style(RGBColor(225, 225, 225))
        .max_light_lines(0)
}

/// The plotting area of `chart`, in canvas pixels.
pub(crate) fn plot_rect<DB: DrawingBackend, X: Ranged, Y: Ranged>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
) -> Rect {
    let (px, py) = chart.plotting_area().get_pixel_range();
    Rect {
        left: px.start,
        top: py.start,
        right: px.end - 1,
        bottom: py.end - 1,
    }
}

/// What a legend entry shows beside its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sample {
    /// A short line through the series' marker.
    Line,
    /// A line alone (a reference value).
    Rule,
    /// A filled square (a bar series).
    Swatch,
}

/// One legend entry.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) identity: Identity,
    pub(crate) sample: Sample,
}

/// The regions of a laid-out canvas.
pub(crate) struct Layout<DB: DrawingBackend> {
    /// Where the chart (axes and data) goes.
    pub(crate) plot: DrawingArea<DB, Shift>,
    /// The legend's frame, drawn.
    pub(crate) legend: Option<Rect>,
}

/// Pixels of the sample before an entry's name, and of padding around the legend.
const SAMPLE: i32 = 28;
const PAD: i32 = 8;
/// The widest legend column, as a share of the canvas width.
const MAX_SHARE: f64 = 0.34;

/// Clears `root`, draws the title, the note and the legend of `entries`, and returns the area
/// left for the chart.
pub(crate) fn lay_out<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    note: Option<&str>,
    entries: &[Entry],
) -> Result<Layout<DB>, PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (width, _) = root.dim_in_pixel();
    let width = i32::try_from(width).unwrap_or(i32::MAX);
    let centre = Pos::new(HPos::Center, VPos::Top);
    let mut top = 8;
    root.draw(&Text::new(
        fit(root, title, &style::text(TITLE), width - 2 * PAD)?,
        (width / 2, top),
        style::text(TITLE).pos(centre),
    ))?;
    top += i32::try_from(TITLE).unwrap_or(24) + 4;
    if let Some(note) = note {
        root.draw(&Text::new(
            fit(root, note, &style::text(NOTE), width - 2 * PAD)?,
            (width / 2, top),
            style::text(NOTE).pos(centre).color(&RGBColor(60, 60, 60)),
        ))?;
        top += i32::try_from(NOTE).unwrap_or(17) + 4;
    }
    let below = root.margin(top, 0, 0, 0);
    if entries.is_empty() {
        return Ok(Layout {
            plot: below,
            legend: None,
        });
    }
    let font = style::text(LEGEND);
    let widest = entries
        .iter()
        .map(|e| root.estimate_text_size(&e.name, &font).map(|(w, _)| w))
        .collect::<Result<Vec<u32>, _>>()?
        .into_iter()
        .max()
        .unwrap_or(0);
    let widest = i32::try_from(widest).unwrap_or(i32::MAX);
    let column = (widest + SAMPLE + 4 * PAD).min((f64::from(width) * MAX_SHARE) as i32);
    let (plot, legend_area) = below.split_horizontally(width - column);
    let legend = draw(&legend_area, entries)?;
    Ok(Layout {
        plot,
        legend: Some(legend),
    })
}

/// `text` shortened with `…` to fit `room` pixels.
pub(crate) fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    font: &TextStyle<'_>,
    room: i32,
) -> Result<String, PlotError>
where
    DB::ErrorType: 'static,
{
    let room = u32::try_from(room.max(0)).unwrap_or(0);
    if area.estimate_text_size(text, font)?.0 <= room {
        return Ok(text.to_string());
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0, chars.len());
    // The longest prefix that fits with the ellipsis, by bisection.
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let candidate: String = chars[..mid].iter().chain(['…'].iter()).collect();
        if area.estimate_text_size(&candidate, font)?.0 <= room {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(chars[..lo].iter().chain(['…'].iter()).collect())
}

/// Draws the legend at the top of `area`; returns its frame in canvas pixels.
fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> Result<Rect, PlotError>
where
    DB::ErrorType: 'static,
{
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (
        i32::try_from(w).unwrap_or(i32::MAX),
        i32::try_from(h).unwrap_or(i32::MAX),
    );
    let (base_x, base_y) = area.get_base_pixel();
    // Entries 24 px apart, closer when many, and the rest summed up in a last line.
    let room = (h - 4 * PAD).max(20);
    let n = i32::try_from(entries.len()).unwrap_or(i32::MAX);
    let step = (room / n.max(1)).clamp(16, 24);
    let fits = usize::try_from(room / step).unwrap_or(0).max(1);
    let (shown, more) = if entries.len() > fits {
        (fits - 1, entries.len() - (fits - 1))
    } else {
        (entries.len(), 0)
    };
    let lines = i32::try_from(shown + usize::from(more > 0)).unwrap_or(i32::MAX);
    let frame = (PAD, PAD * 2, w - PAD, PAD * 2 + lines * step + PAD);
    area.draw(&Rectangle::new(
        [(frame.0, frame.1), (frame.2, frame.3)],
        RGBColor(120, 120, 120).stroke_width(1),
    ))?;
    let font = style::text(LEGEND).pos(Pos::new(HPos::Left, VPos::Center));
    let text_room = frame.2 - frame.0 - SAMPLE - 2 * PAD;
    for (k, entry) in (0..).zip(&entries[..shown]) {
        let y = frame.1 + PAD / 2 + step * k + step / 2;
        let (x0, x1) = (frame.0 + PAD, frame.0 + PAD + SAMPLE - 6);
        let color = entry.identity.color;
        match entry.sample {
            Sample::Line => {
                area.draw(&PathElement::new(
                    vec![(x0, y), (x1, y)],
                    color.stroke_width(2),
                ))?;
                entry
                    .identity
                    .marker
                    .draw(area, ((x0 + x1) / 2, y), color)?;
            }
            Sample::Rule => {
                area.draw(&PathElement::new(
                    vec![(x0, y), (x1, y)],
                    color.stroke_width(3),
                ))?;
            }
            Sample::Swatch => {
                let s = MARKER_SIZE + 2;
                let c = (x0 + x1) / 2;
                area.draw(&Rectangle::new(
                    [(c - s, y - s), (c + s, y + s)],
                    color.filled(),
                ))?;
            }
        }
        let name = fit(area, &entry.name, &font, text_room)?;
        area.draw(&Text::new(name, (frame.0 + PAD + SAMPLE, y), font.clone()))?;
    }
    if more > 0 {
        let y = frame.1 + PAD / 2 + step * lines - step / 2;
        area.draw(&Text::new(
            format!("… {more} more series"),
            (frame.0 + PAD, y),
            font.clone(),
        ))?;
    }
    Ok(Rect {
        left: base_x + frame.0,
        top: base_y + frame.1,
        right: base_x + frame.2,
        bottom: base_y + frame.3,
    })
}
