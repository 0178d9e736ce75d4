//! The embedded font: DejaVu Sans, cut down to the characters figures use (`fonts/`).
//!
//! plotters' `ab_glyph` text renderer draws only fonts registered with it, and measures SVG text
//! with them too; every figure's text is `sans-serif`, registered here once per process.

use crate::PlotError;
use plotters::style::{FontStyle, register_font};
use std::sync::OnceLock;

/// The font file (30 KB; provenance and licence beside it).
static DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans-subset.ttf");

/// The family every text style of the crate names.
pub(crate) const FAMILY: &str = "sans-serif";

/// Registers the font under [`FAMILY`] (once; later calls return the first outcome).
pub(crate) fn register() -> Result<(), PlotError> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PlotError("the embedded font cannot be read".into()))
    }
}
