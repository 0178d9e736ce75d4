//! The parameter-validation error shared by every constructor that checks its inputs.

use thiserror::Error;

/// A parameter outside its documented range, rejected at construction time.
///
/// ```
/// use cosched_core::ParamError;
/// let e = ParamError::new("window", -5, "must be >= 0");
/// assert_eq!(e.to_string(), "invalid parameter `window` = -5: must be >= 0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid parameter `{name}` = {value}: {constraint}")]
pub struct ParamError {
    /// The parameter's name, as in the paper or the API.
    pub name: &'static str,
    /// The rejected value, rendered.
    pub value: String,
    /// The rule it broke.
    pub constraint: &'static str,
}

impl ParamError {
    /// A rejection of `name = value` for breaking `constraint`.
    pub fn new(name: &'static str, value: impl ToString, constraint: &'static str) -> Self {
        ParamError {
            name,
            value: shown(&value.to_string()),
            constraint,
        }
    }

    /// `Ok(())` when `ok` holds, else this error.
    pub fn check(
        ok: bool,
        name: &'static str,
        value: impl ToString,
        constraint: &'static str,
    ) -> Result<(), ParamError> {
        if ok {
            Ok(())
        } else {
            Err(ParamError::new(name, value, constraint))
        }
    }
}

/// A rendered value as an error message should show it: unchanged when short; a long number
/// (`1e300` prints as 301 digits) in scientific notation; other long text as an [`excerpt`].
///
/// ```
/// use cosched_core::shown;
/// assert_eq!(shown("0.5"), "0.5");
/// assert_eq!(shown(&1e300_f64.to_string()), "1e300");
/// assert_eq!(shown(&(-1e-300_f64).to_string()), "-1e-300");
/// assert!(shown(&"x".repeat(1_000)).ends_with("..."));
/// ```
pub fn shown(value: &str) -> String {
    if value.chars().nth(EXCERPT_CHARS).is_none() {
        return value.to_owned();
    }
    match value.parse::<f64>() {
        Ok(x) => format!("{x:e}"),
        Err(_) => excerpt(value),
    }
}

/// The most characters of an offending input an error message echoes ([`excerpt`]).
pub const EXCERPT_CHARS: usize = 80;

/// `text` as an error message should echo it: at most [`EXCERPT_CHARS`] characters, the cut
/// marked by `...`, so a hostile 100 MB field never becomes a 100 MB error line.
///
/// ```
/// use cosched_core::excerpt;
/// assert_eq!(excerpt("short"), "short");
/// let long = "x".repeat(1_000);
/// assert_eq!(excerpt(&long).chars().count(), cosched_core::EXCERPT_CHARS);
/// assert!(excerpt(&long).ends_with("..."));
/// ```
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => text.to_owned(),
        Some(_) => {
            let keep = EXCERPT_CHARS - 3;
            let cut = text
                .char_indices()
                .nth(keep)
                .map_or(text.len(), |(at, _)| at);
            format!("{}...", text.get(..cut).unwrap_or_default())
        }
    }
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for ParamError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
