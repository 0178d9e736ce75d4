//! Seasonal ARIMA `(1,0,0)×(1,1,0)ₛ` fitted by exact Gaussian maximum likelihood: the model of
//! the paper's electricity-price prediction (seasonal ARIMA with a 24-hour period, trained on
//! the previous three days), used by [`price_forecast`](crate::price_forecast).
//!
//! ## The model
//! With the seasonal difference `w_t = y_t − y_{t−s}`, the model is the multiplicative
//! autoregression `(1 − φB)(1 − ΦBˢ) w_t = e_t`, `e_t ~ N(0, σ²)`, i.e.
//! `w_t = φ w_{t−1} + Φ w_{t−s} − φΦ w_{t−s−1} + e_t`, stationary for `|φ|, |Φ| < 1`. No
//! constant (after a seasonal difference a constant would be a trend).
//!
//! This order was chosen because its exact likelihood is cheap and unambiguous, so the fit
//! can be checked against statsmodels' `SARIMAX(order=(1,0,0), seasonal_order=(1,1,0,s),
//! trend="n", simple_differencing=True)`, which maximises the same likelihood by a Kalman
//! filter (fixtures in `tests/fixtures/gen_sarima.py`).
//!
//! ## The fit
//! The exact log-likelihood of `w_1..w_m` for the AR polynomial of order `p = s + 1` is the
//! stationary density of the first `p` values (their covariance `σ²G_p` in closed form,
//! factorised by the Durbin–Levinson recursion in `O(p²)`) times the conditional densities of
//! the rest; `σ²` is concentrated out (`σ̂² = (w₁..ₚᵀG_p⁻¹w₁..ₚ + Σ e_t²) / m`). The two
//! coefficients are maximised by Nelder–Mead over unconstrained `x`, mapped into the
//! stationary region by `φ = x / √(1 + x²)` (statsmodels' transform for an AR(1) factor),
//! starting from `φ = Φ = 0`, as statsmodels does with too few observations for its
//! conditional-sum-of-squares start.
//!
//! A series whose seasonal difference is identically zero (a flat tariff, or a day repeated)
//! has no likelihood maximum; it is fitted as `φ = Φ = σ² = 0`, whose forecast repeats the
//! last period (the seasonal naive forecast).
//!
//! ```
//! use cosched_metasched::sarima::Sarima;
//!
//! // Three days of a daily cycle with a little noise.
//! let series: Vec<f64> = (0..72)
//!     .map(|t| 40.0 + 15.0 * (t as f64 * std::f64::consts::PI / 12.0).sin() + ((t * 7) % 5) as f64)
//!     .collect();
//! let fit = Sarima::new(24).unwrap().fit(&series).unwrap();
//! assert!(fit.phi.abs() < 1.0 && fit.seasonal_phi.abs() < 1.0);
//! let next_day = fit.forecast(24);
//! assert_eq!(next_day.len(), 24);
//! ```

use cosched_core::ParamError;
use thiserror::Error;

/// Why a series could not be fitted.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SarimaError {
    /// Too few values: the seasonal difference must leave more than `period + 1` values.
    #[error("a series of {len} values is too short; the model needs at least {needed}")]
    TooShort {
        /// Values given.
        len: usize,
        /// Values needed (`2·period + 2`).
        needed: usize,
    },
    /// A value is NaN or infinite.
    #[error("value {index} of the series is not finite")]
    NotFinite {
        /// Its index, from 0.
        index: usize,
    },
}

/// The seasonal ARIMA `(1,0,0)×(1,1,0)ₛ` model of a given period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sarima {
    period: usize,
}

impl Sarima {
    /// The model with seasonal period `period` (24 for hourly prices).
    ///
    /// # Errors
    /// [`ParamError`] if `period` is 0.
    pub fn new(period: usize) -> Result<Sarima, ParamError> {
        ParamError::check(period >= 1, "period", period, "must be >= 1")?;
        Ok(Sarima { period })
    }

    /// The seasonal period.
    pub fn period(&self) -> usize {
        self.period
    }

    /// The fewest values [`fit`](Self::fit) accepts: `2·period + 2`.
    pub fn min_len(&self) -> usize {
        2 * self.period + 2
    }

    /// Fits the model to `series` by exact maximum likelihood.
    ///
    /// Cost: about 150 likelihood evaluations of `O(s² + m)` each.
    ///
    /// # Errors
    /// [`SarimaError`] for a series shorter than [`min_len`](Self::min_len) or with a
    /// non-finite value.
    pub fn fit(&self, series: &[f64]) -> Result<SarimaFit, SarimaError> {
        if let Some(index) = series.iter().position(|v| !v.is_finite()) {
            return Err(SarimaError::NotFinite { index });
        }
        if series.len() < self.min_len() {
            return Err(SarimaError::TooShort {
                len: series.len(),
                needed: self.min_len(),
            });
        }
        let s = self.period;
        let w: Vec<f64> = (s..series.len())
            .map(|t| series[t] - series[t - s])
            .collect();
        let tail = |v: &[f64], k: usize| v[v.len() - k..].to_vec();
        let mut fit = SarimaFit {
            phi: 0.0,
            seasonal_phi: 0.0,
            sigma2: 0.0,
            log_likelihood: f64::INFINITY,
            period: s,
            w_tail: tail(&w, s + 1),
            y_tail: tail(series, s),
        };
        if w.iter().all(|&v| v == 0.0) {
            return Ok(fit);
        }
        let mut work = Workspace::new(s);
        let objective = |x: [f64; 2]| {
            let (phi, big_phi) = (constrain(x[0]), constrain(x[1]));
            -work.log_likelihood(&w, phi, big_phi).0
        };
        let best = nelder_mead(objective, [0.0, 0.0]);
        fit.phi = constrain(best[0]);
        fit.seasonal_phi = constrain(best[1]);
        (fit.log_likelihood, fit.sigma2) = work.log_likelihood(&w, fit.phi, fit.seasonal_phi);
        Ok(fit)
    }
}

/// statsmodels' map of the real line onto the stationary interval `(−1, 1)` of an AR(1).
fn constrain(x: f64) -> f64 {
    x / (1.0 + x * x).sqrt()
}

/// A fitted model and the end of the series it was fitted to, from which it forecasts.
#[derive(Clone, Debug, PartialEq)]
pub struct SarimaFit {
    /// The non-seasonal AR coefficient `φ`.
    pub phi: f64,
    /// The seasonal AR coefficient `Φ`.
    pub seasonal_phi: f64,
    /// The innovation variance `σ²` (maximum-likelihood estimate).
    pub sigma2: f64,
    /// The exact Gaussian log-likelihood of the seasonally differenced series at the optimum
    /// (`+∞` for an identically zero difference).
    pub log_likelihood: f64,
    period: usize,
    /// The last `period + 1` seasonal differences.
    w_tail: Vec<f64>,
    /// The last `period` values of the series.
    y_tail: Vec<f64>,
}

impl SarimaFit {
    /// The minimum-mean-square-error forecasts of the next `steps` values of the series.
    pub fn forecast(&self, steps: usize) -> Vec<f64> {
        let s = self.period;
        let mut w = self.w_tail.clone();
        let mut y = self.y_tail.clone();
        let mut out = Vec::with_capacity(steps);
        for _ in 0..steps {
            let t = w.len();
            let next_w = self.phi * w[t - 1] + self.seasonal_phi * w[t - s]
                - self.phi * self.seasonal_phi * w[t - s - 1];
            w.push(next_w);
            let next_y = next_w + y[y.len() - s];
            y.push(next_y);
            out.push(next_y);
        }
        out
    }
}

/// Scratch space for likelihood evaluations, sized once per fit.
struct Workspace {
    s: usize,
    /// Autocovariances `γ₀..γ_s` (unit innovation variance).
    gamma: Vec<f64>,
    /// Durbin–Levinson coefficients of the current and the previous order.
    phi: Vec<f64>,
    phi_prev: Vec<f64>,
}

impl Workspace {
    fn new(s: usize) -> Workspace {
        Workspace {
            s,
            gamma: vec![0.0; s + 1],
            phi: vec![0.0; s + 1],
            phi_prev: vec![0.0; s + 1],
        }
    }

    /// The exact log-likelihood of `w` with `σ²` concentrated out, and `σ̂²`; `−∞` outside
    /// the stationary region.
    fn log_likelihood(&mut self, w: &[f64], phi: f64, big_phi: f64) -> (f64, f64) {
        let (s, p, m) = (self.s, self.s + 1, w.len());
        if !self.autocovariances(phi, big_phi) {
            return (f64::NEG_INFINITY, f64::NAN);
        }
        // The first p values: Durbin–Levinson on Toeplitz(γ₀..γ_s) gives each value's
        // one-step prediction from the values before it and its variance v_k, so that
        // w₁..ₚᵀG_p⁻¹w₁..ₚ = Σ (w_k − ŵ_k)² / v_k and log det G_p = Σ log v_k.
        let (gamma, coef, prev) = (&self.gamma, &mut self.phi, &mut self.phi_prev);
        let mut v = gamma[0];
        let mut sum_sq = w[0] * w[0] / v;
        let mut log_det = v.ln();
        for k in 1..p {
            prev[..k].copy_from_slice(&coef[..k]);
            let mut num = gamma[k];
            for j in 1..k {
                num -= prev[j] * gamma[k - j];
            }
            let reflection = num / v;
            coef[k] = reflection;
            for j in 1..k {
                coef[j] = prev[j] - reflection * prev[k - j];
            }
            v *= 1.0 - reflection * reflection;
            let mut predicted = 0.0;
            for j in 1..=k {
                predicted += coef[j] * w[k - j];
            }
            sum_sq += (w[k] - predicted).powi(2) / v;
            log_det += v.ln();
        }
        // The rest: conditional densities of the AR recursion.
        for t in p..m {
            let e = w[t] - phi * w[t - 1] - big_phi * w[t - s] + phi * big_phi * w[t - s - 1];
            sum_sq += e * e;
        }
        let n = m as f64;
        let sigma2 = sum_sq / n;
        let ll = -0.5 * n * ((2.0 * std::f64::consts::PI).ln() + sigma2.ln() + 1.0) - 0.5 * log_det;
        if ll.is_finite() {
            (ll, sigma2)
        } else {
            (f64::NEG_INFINITY, f64::NAN)
        }
    }

    /// Sets `gamma` to `γ₀..γ_s` of `(1 − φB)(1 − ΦBˢ) w = e` with unit innovation variance;
    /// `false` outside the stationary region. Writing `w = Σₖ Φᵏ u_{t−ks}` with the AR(1)
    /// `u` (`γᵤ(h) = φ^|h| / (1 − φ²)`) and summing the two geometric series gives, for
    /// `0 ≤ h ≤ s`, `γ(h) = (φʰ + Φ φ^{s−h}) / ((1 − φ²)(1 − Φ²)(1 − Φφˢ))`.
    fn autocovariances(&mut self, phi: f64, big_phi: f64) -> bool {
        let s = self.s;
        let scale =
            (1.0 - phi * phi) * (1.0 - big_phi * big_phi) * (1.0 - big_phi * phi.powi(s as i32));
        if !(scale.is_finite() && scale > 0.0) {
            return false;
        }
        for h in 0..=s {
            self.gamma[h] = (phi.powi(h as i32) + big_phi * phi.powi((s - h) as i32)) / scale;
        }
        true
    }
}

/// Minimises `f` over the plane by the Nelder–Mead simplex method (reflection 1, expansion 2,
/// contraction ½, shrink ½), from a simplex of side 0.5 at `start`, until the simplex spans less
/// than 1e-10 in both value and position (or after 2,000 iterations).
fn nelder_mead(mut f: impl FnMut([f64; 2]) -> f64, start: [f64; 2]) -> [f64; 2] {
    let mut simplex = [
        start,
        [start[0] + 0.5, start[1]],
        [start[0], start[1] + 0.5],
    ];
    let mut values = simplex.map(&mut f);
    let lerp =
        |a: [f64; 2], b: [f64; 2], t: f64| [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
    for _ in 0..2_000 {
        let mut order = [0, 1, 2];
        order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
        simplex = order.map(|i| simplex[i]);
        values = order.map(|i| values[i]);
        let spread = (values[2] - values[0]).abs();
        let size = simplex[1..]
            .iter()
            .flat_map(|v| [(v[0] - simplex[0][0]).abs(), (v[1] - simplex[0][1]).abs()])
            .fold(0.0_f64, f64::max);
        if spread <= 1e-10 * (1.0 + values[0].abs()) && size <= 1e-10 {
            break;
        }
        let centroid = lerp(simplex[0], simplex[1], 0.5);
        let reflected = lerp(centroid, simplex[2], -1.0);
        let fr = f(reflected);
        if fr < values[0] {
            let expanded = lerp(centroid, simplex[2], -2.0);
            let fe = f(expanded);
            (simplex[2], values[2]) = if fe < fr {
                (expanded, fe)
            } else {
                (reflected, fr)
            };
        } else if fr < values[1] {
            (simplex[2], values[2]) = (reflected, fr);
        } else {
            let (toward, ft) = if fr < values[2] {
                (reflected, fr)
            } else {
                (simplex[2], values[2])
            };
            let contracted = lerp(centroid, toward, 0.5);
            let fc = f(contracted);
            if fc < ft {
                (simplex[2], values[2]) = (contracted, fc);
            } else {
                for k in 1..3 {
                    simplex[k] = lerp(simplex[0], simplex[k], 0.5);
                    values[k] = f(simplex[k]);
                }
            }
        }
    }
    let best = (0..3)
        .min_by(|&i, &j| values[i].total_cmp(&values[j]))
        .unwrap_or(0);
    simplex[best]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_validated() {
        assert_eq!(Sarima::new(0).unwrap_err().name, "period");
        let model = Sarima::new(24).unwrap();
        assert_eq!(
            model.fit(&[1.0; 49]),
            Err(SarimaError::TooShort {
                len: 49,
                needed: 50
            })
        );
        let mut series = vec![1.0; 72];
        series[5] = f64::NAN;
        assert_eq!(model.fit(&series), Err(SarimaError::NotFinite { index: 5 }));
    }

    #[test]
    fn a_repeating_day_is_forecast_as_itself() {
        let day: Vec<f64> = (0..24).map(|h| f64::from(h) * 2.0 + 10.0).collect();
        let series: Vec<f64> = day.iter().cycle().take(72).copied().collect();
        let fit = Sarima::new(24).unwrap().fit(&series).unwrap();
        assert_eq!((fit.phi, fit.seasonal_phi, fit.sigma2), (0.0, 0.0, 0.0));
        assert_eq!(fit.forecast(48), [day.clone(), day].concat());
    }

    #[test]
    fn autocovariances_solve_the_yule_walker_equations() {
        // γ_k − φγ_{k−1} − Φγ_{k−s} + φΦγ_{k−s−1} = [k = 0] for k = 0..=s (γ symmetric).
        let s = 4;
        let (phi, big_phi) = (0.6, -0.45);
        let mut work = Workspace::new(s);
        assert!(work.autocovariances(phi, big_phi));
        let mut g = work.gamma.clone();
        // γ_{s+1} by the recursion itself, needed at lag 0.
        g.push(phi * g[s] + big_phi * g[1] - phi * big_phi * g[0]);
        let at = |k: i64| g[k.unsigned_abs() as usize];
        let s = s as i64;
        let ar = |k: i64| phi * at(k - 1) + big_phi * at(k - s) - phi * big_phi * at(k - s - 1);
        assert!((at(0) - ar(0) - 1.0).abs() < 1e-12);
        for k in 1..=s {
            assert!((at(k) - ar(k)).abs() < 1e-12, "lag {k}");
        }
        assert!(!work.autocovariances(1.0, 0.0));
    }

    #[test]
    fn nelder_mead_finds_a_quadratic_minimum() {
        let best = nelder_mead(
            |x| (x[0] - 1.5).powi(2) + 3.0 * (x[1] + 0.25).powi(2),
            [0.0, 0.0],
        );
        assert!((best[0] - 1.5).abs() < 1e-6 && (best[1] + 0.25).abs() < 1e-6);
    }
}
