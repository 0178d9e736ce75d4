//! # cosched-forecast
//!
//! The time-series and learning methods cosched's schedulers predict with, as plain functions
//! and small validated models over slices and fixed-size feature rows: no clock, RNG, I/O or
//! scheduler types. Most were written for Murali and Vadhiyar's electricity-price-aware
//! metascheduler (`cosched-metasched`), whose policy forecasts prices and learns queue waits,
//! the series predictors for RHIC's comparison of foreground-load predictors
//! (`cosched-rhic`). They live here so that a forecast needs no grid or cloud simulator and
//! the methods can be checked against their references (statsmodels, scikit-learn) on their
//! own.
//!
//! - [`sarima`]: seasonal ARIMA — the `(1,0,1)×(1,0,1)ₛ` order with a mean by conditional sum
//!   of squares (R's `arima` CSS stage), and `(1,0,0)×(1,1,0)ₛ` by exact maximum likelihood
//!   (statsmodels' `SARIMAX`); fit, then minimum-mean-square-error forecasts.
//! - [`dbscan`]: DBSCAN under the Manhattan distance, label for label as scikit-learn's
//!   `DBSCAN(metric="manhattan")`, with the coordinate-sum index ([`dbscan::SumIndex`]) that
//!   prunes its region queries and serves later lookups.
//! - [`ridge`]: ridge regression with an unpenalised intercept in closed form (Cholesky), as
//!   scikit-learn's `Ridge`.
//! - [`correlation`]: feature weights from Spearman rank correlations with a target.
//! - [`series`]: the mean of a utilisation series' next samples — least-squares
//!   autoregression, autocorrelation signatures, and PRESS's FFT signature with a Markov-chain
//!   fallback ([`series::FftMarkov`]).
//!
//! Parameters are validated when a model is built ([`cosched_core::ParamError`] names the
//! parameter and its value); fits fail with their own typed errors ([`sarima::SarimaError`],
//! [`ridge::RidgeError`]), and [`ForecastError`] holds any of them for callers that chain
//! several steps behind one `?`.
//!
//! # Complexity
//!
//! For `n` observations (rows) of `D` features, a seasonal period `s` and `m` values in a
//! series:
//!
//! - [`sarima::Sarima::fit`]: exact ML takes about 150 likelihood evaluations of
//!   `O(s² + m)` each (Durbin–Levinson on the stationary start); CSS a few thousand `O(m)`
//!   sums of squares (five-dimensional Nelder–Mead). Memory `O(s + m)`.
//!   [`sarima::SarimaFit::forecast`] is `O(steps)`.
//! - [`dbscan::Dbscan::fit`]: `O(n log n)` to sort by coordinate sum, then region queries that
//!   scan only the sum window; `O(n²·D)` in the worst case (every point within `eps` of every
//!   other). Memory `O(n)`: neighbourhoods are recomputed, never stored.
//! - [`ridge::Ridge::fit`]: `O(n·D² + D³)` (the Gram matrix on `ndarray`, then Cholesky).
//! - [`correlation::correlation_weights`]: `O(D·n log n)` (one ranking per feature).
//! - [`series`]: `O(n log n)` for an FFT signature, `O(n²)` for autocorrelation signatures
//!   (every lag up to `n/2`), `O(n·p² + p³)` for an order-`p` autoregression (its module docs
//!   give the lookahead's share).
//!
//! ```
//! use cosched_forecast::{ForecastError, dbscan::Dbscan, ridge::Ridge, sarima::Sarima};
//!
//! // Three days of an hourly cycle: the next day follows the cycle.
//! let day = |t: usize| 40.0 + 15.0 * (t as f64 * std::f64::consts::PI / 12.0).sin();
//! let series: Vec<f64> = (0..72).map(day).collect();
//! let next = Sarima::new(24)?.fit(&series)?.forecast(24);
//! assert!(next.iter().enumerate().all(|(h, v)| (v - day(72 + h)).abs() < 1e-6));
//!
//! // Two groups of jobs and a stray one; a regression covers what no group explains.
//! let jobs = [[1.0, 0.0], [1.1, 0.0], [1.0, 0.1], [8.0, 8.0], [8.1, 8.0], [8.0, 8.1], [4.0, 9.0]];
//! let waits = [60.0, 62.0, 61.0, 900.0, 905.0, 910.0, 500.0];
//! let groups = Dbscan::new(0.5, 3)?.fit(&jobs);
//! assert_eq!((groups.cluster_count(), groups.label(6)), (2, None));
//! let fit = Ridge::new(1.0)?.fit(&jobs, &waits)?;
//! assert!(fit.predict(&[8.0, 8.0]) > fit.predict(&[1.0, 0.0]));
//! # Ok::<(), ForecastError>(())
//! ```

pub mod correlation;
pub mod dbscan;
mod error;
pub mod ridge;
pub mod sarima;
pub mod series;

pub use error::ForecastError;
