//! The crate's one error type over its models' own.

use crate::ridge::RidgeError;
use crate::sarima::SarimaError;
use cosched_core::ParamError;
use thiserror::Error;

/// Any failure of this crate: an invalid model parameter or a failed fit, each with the
/// context its own type carries (the parameter's name and value, the series' length and the
/// length needed, the index of a non-finite value, the offending row).
///
/// ```
/// use cosched_forecast::{ForecastError, sarima::{Sarima, SarimaError}};
///
/// fn next_day(prices: &[f64]) -> Result<Vec<f64>, ForecastError> {
///     Ok(Sarima::new(24)?.fit(prices)?.forecast(24))
/// }
/// let e = next_day(&[40.0; 30]).unwrap_err();
/// assert_eq!(e, ForecastError::Sarima(SarimaError::TooShort { len: 30, needed: 50 }));
/// assert_eq!(e.to_string(), "a series of 30 values is too short; the model needs at least 50");
/// ```
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ForecastError {
    /// A model parameter is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A seasonal ARIMA fit failed.
    #[error(transparent)]
    Sarima(#[from] SarimaError),
    /// A ridge regression fit failed.
    #[error(transparent)]
    Ridge(#[from] RidgeError),
}
