//! The look shared by every figure: palette, markers, a series' identity from its name, fonts
//! and tick labels.

use crate::font::FAMILY;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008) without its
/// yellow, too pale on white: blue, vermillion, bluish green, reddish purple, orange, sky blue,
/// black.
pub(crate) const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// The marker shapes, in the order identities take them.
const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Diamond,
    Marker::Cross,
];

/// Distinct (colour, marker) pairs: 7 colours × 5 shapes, walked diagonally.
const SLOTS: usize = PALETTE.len() * MARKERS.len();

/// Names with a fixed slot: the classic batch policies look alike in every figure.
const FIXED: [(&str, usize); 4] = [
    ("fcfs", 0),
    ("easy", 1),
    ("conservative", 2),
    ("conservative-bounded", 3),
];

/// A series' marker shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled triangle, point up.
    Triangle,
    /// A filled square.
    Square,
    /// A filled diamond.
    Diamond,
    /// A diagonal cross.
    Cross,
}

/// Half a marker's size, in pixels.
pub(crate) const MARKER_SIZE: i32 = 4;

impl Marker {
    /// Draws the marker centred at `at` (pixels of `area`).
    pub(crate) fn draw<DB: DrawingBackend>(
        self,
        area: &DrawingArea<DB, Shift>,
        at: (i32, i32),
        color: RGBColor,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let s = MARKER_SIZE;
        let (x, y) = at;
        match self {
            Marker::Circle => area.draw(&Circle::new(at, s, color.filled())),
            Marker::Triangle => area.draw(&TriangleMarker::new(at, s + 1, color.filled())),
            Marker::Square => area.draw(&Rectangle::new(
                [(x - s, y - s), (x + s, y + s)],
                color.filled(),
            )),
            Marker::Diamond => area.draw(&Polygon::new(
                vec![
                    (x, y - s - 1),
                    (x + s + 1, y),
                    (x, y + s + 1),
                    (x - s - 1, y),
                ],
                color.filled(),
            )),
            Marker::Cross => area.draw(&Cross::new(at, s, color.stroke_width(2))),
        }
    }
}

/// How a series looks: its colour and marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// Line, marker and bar colour.
    pub color: RGBColor,
    /// Marker shape.
    pub marker: Marker,
}

impl Identity {
    fn of_slot(slot: usize) -> Identity {
        Identity {
            color: PALETTE[slot % PALETTE.len()],
            marker: MARKERS[slot % MARKERS.len()],
        }
    }
}

/// The identity of each of `names`, in order: the name's own slot (fixed for the classic
/// policies, else an FNV-1a hash of the name), moved on to the next slot of a colour no other
/// name of the figure has (of a look no other has, beyond seven names) when another name holds
/// it. Names are placed in sorted order, so a set of names gets the same identities in every
/// figure whatever their order; a name keeps its own look in every figure where no other name
/// wants it; a repeated name gets one identity.
///
/// ```
/// use cosched_plot::identities;
/// let a = identities(["easy", "fcfs", "sjf+easy"]);
/// let b = identities(["sjf+easy", "easy"]);
/// assert_eq!(a[0], b[1]);
/// assert_ne!(a[0].color, a[1].color);
/// assert_ne!(a[1].color, a[2].color);
/// ```
pub fn identities<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Identity> {
    let names: Vec<&str> = names.into_iter().collect();
    let sorted: BTreeSet<&str> = names.iter().copied().collect();
    let mut taken = [false; SLOTS];
    let mut colours = [false; PALETTE.len()];
    let mut slot_of: BTreeMap<&str, usize> = BTreeMap::new();
    // The fixed names first, so that a hashed name never takes their looks.
    let (fixed, hashed): (Vec<&str>, Vec<&str>) = sorted
        .into_iter()
        .partition(|n| FIXED.iter().any(|(f, _)| f == n));
    for name in fixed.into_iter().chain(hashed) {
        let start = preferred_slot(name);
        let free = |slot: &usize| !taken[*slot];
        let fresh_colour = |slot: &usize| free(slot) && !colours[slot % PALETTE.len()];
        let walk = (0..SLOTS).map(|k| (start + k) % SLOTS);
        // A colour of its own while there are colours left, else a look of its own, else
        // (beyond every look) its own slot again.
        let slot = walk
            .clone()
            .find(fresh_colour)
            .or_else(|| walk.clone().find(free))
            .unwrap_or(start);
        taken[slot] = true;
        colours[slot % PALETTE.len()] = true;
        slot_of.insert(name, slot);
    }
    names
        .iter()
        .map(|n| Identity::of_slot(slot_of.get(n).copied().unwrap_or(0)))
        .collect()
}

fn preferred_slot(name: &str) -> usize {
    if let Some(&(_, slot)) = FIXED.iter().find(|(n, _)| *n == name) {
        return slot;
    }
    // FNV-1a, 64 bits: stable across platforms and releases, unlike std's hasher.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (hash % SLOTS as u64) as usize
}

/// The colour of the `key`-th thing of a many-coloured figure (a Gantt chart's jobs): the
/// palette without its black, which would read as a hole in the schedule.
pub(crate) fn cycled(key: u64) -> RGBColor {
    let colours = &PALETTE[..PALETTE.len() - 1];
    colours[(key % colours.len() as u64) as usize]
}

/// Text of `size` pixels in the embedded font.
pub(crate) fn text(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

/// Title, axis-label, tick and legend sizes.
pub(crate) const TITLE: u32 = 24;
pub(crate) const NOTE: u32 = 17;
pub(crate) const AXIS: u32 = 19;
pub(crate) const TICK: u32 = 17;
pub(crate) const LEGEND: u32 = 17;

/// A tick label: an integer without decimals (`2000`, not `2000.0`), anything else with three
/// significant digits and no trailing zeros (`0.25`, `0.000125`).
///
/// ```
/// use cosched_plot::tick_label;
/// assert_eq!(tick_label(2000.0), "2000");
/// assert_eq!(tick_label(0.25), "0.25");
/// assert_eq!(tick_label(1.0e-4), "0.0001");
/// assert_eq!(tick_label(-0.0), "0");
/// ```
pub fn tick_label(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let rounded = v.round();
    if (v - rounded).abs() <= 1e-9 * v.abs().max(1.0) && rounded.abs() < 1e15 {
        return format!("{}", rounded as i64);
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = usize::try_from((2 - magnitude).clamp(0, 8)).unwrap_or(0);
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    if s == "-0" { "0".into() } else { s.into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_classic_policies_have_fixed_looks_and_none_is_yellow() {
        let ids = identities(["conservative", "easy", "fcfs"]);
        assert_eq!(ids[2], Identity::of_slot(0));
        assert_eq!(ids[1], Identity::of_slot(1));
        assert_eq!(ids[0], Identity::of_slot(2));
        // Okabe–Ito's yellow (240, 228, 66) is not in the palette; every colour has some depth.
        for c in PALETTE {
            assert_ne!((c.0, c.1, c.2), (240, 228, 66));
            let luma = 0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2);
            assert!(luma < 175.0, "{c:?} is too pale on white");
        }
    }

    #[test]
    fn ticks_read_as_numbers() {
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(150000.0), "150000");
        assert_eq!(tick_label(0.9500000001), "0.95");
        assert_eq!(tick_label(12.5), "12.5");
        assert_eq!(tick_label(f64::NAN), "");
    }

    proptest! {
        /// Up to seven names get distinct colours.
        #[test]
        fn up_to_seven_names_get_distinct_colours(
            names in prop::collection::btree_set("[a-z+]{1,12}", 1..=7),
        ) {
            let ids = identities(names.iter().map(String::as_str));
            let colours: BTreeSet<(u8, u8, u8)> =
                ids.iter().map(|i| (i.color.0, i.color.1, i.color.2)).collect();
            prop_assert_eq!(colours.len(), names.len());
        }

        /// Up to 35 names get distinct looks, the same whatever their order.
        #[test]
        fn distinct_names_get_distinct_looks(
            names in prop::collection::btree_set("[a-z+]{1,12}", 1..35), rotate in 0usize..35,
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let ids = identities(names.iter().copied());
            let looks: BTreeSet<(u8, u8, u8, usize)> = ids
                .iter()
                .map(|i| (i.color.0, i.color.1, i.color.2, MARKERS.iter().position(|m| *m == i.marker).unwrap()))
                .collect();
            prop_assert_eq!(looks.len(), names.len());
            let mut turned = names.clone();
            turned.rotate_left(rotate % names.len());
            let again = identities(turned.iter().copied());
            for (name, id) in turned.iter().zip(again) {
                let k = names.iter().position(|n| n == name).unwrap();
                prop_assert_eq!(ids[k], id);
            }
        }
    }
}
