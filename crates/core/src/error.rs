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
            value: value.to_string(),
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
