//! Seasonal ARIMA models of Murali and Vadhiyar's electricity-price prediction (§3.2: a
//! seasonal ARIMA with a 24-hour period, trained on the previous three days), used by
//! `cosched-metasched`'s `price_forecast`, in two orders ([`SarimaOrder`]):
//!
//! - [`SarimaOrder::Published`], `(1,0,1)×(1,0,1)ₛ` with a mean: §3.2's "unit order terms for
//!   the autoregressive and moving average seasonal and non-seasonal components", the order the
//!   paper's published code fits (R's `arima(order = c(1,0,1), seasonal = list(order =
//!   c(1,0,1), period = 24))`). Fitted here by **conditional sum of squares** (CSS), the first
//!   stage of R's default `CSS-ML` (see [below](#the-published-order-by-conditional-sum-of-squares)).
//! - [`SarimaOrder::SeasonalDifference`], `(1,0,0)×(1,1,0)ₛ` by exact maximum likelihood: the
//!   crate's earlier order, kept beside it for comparison.
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
//! ## The published order by conditional sum of squares
//! With `z_t = y_t − μ`, `(1 − φB)(1 − ΦBˢ) z_t = (1 + θB)(1 + ΘBˢ) e_t`, i.e.
//! `z_t = φz_{t−1} + Φz_{t−s} − φΦz_{t−s−1} + e_t + θe_{t−1} + Θe_{t−s} + θΘe_{t−s−1}`.
//! CSS conditions on the first `s + 1` values (R's `ncond = p + P·s`), sets earlier
//! innovations to zero, and minimises `Σ e_t²` over `(μ, φ, Φ, θ, Θ)`; the four coefficients
//! are kept stationary and invertible by the same map onto `(−1, 1)` as above, and `μ` moves in
//! units of the series' standard deviation from its mean. The minimiser is the same
//! Nelder–Mead as above, in five dimensions. CSS is what R's `arima` uses to start its exact
//! likelihood; we stop there (no Kalman filter), so on three days of data the coefficients can
//! differ from R's ML ones, while both estimators are consistent (the test recovers known
//! coefficients from a simulated series). `σ̂²` is the mean squared innovation and
//! `log_likelihood` the conditional Gaussian log-likelihood at it.
//!
//! A series whose seasonal difference is identically zero (a flat tariff, or a day repeated)
//! has no likelihood maximum; it is fitted as `φ = Φ = σ² = 0` (the published order: `Φ = 1`,
//! the boundary its CSS tends to), whose forecast repeats the last period (the seasonal naive
//! forecast).
//!
//! ```
//! use cosched_forecast::sarima::Sarima;
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

/// The orders of seasonal ARIMA this module fits (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SarimaOrder {
    /// `(1,0,1)×(1,0,1)ₛ` with a mean, by conditional sum of squares: the paper's order (§3.2)
    /// and its published code's.
    #[default]
    Published,
    /// `(1,0,0)×(1,1,0)ₛ`, by exact maximum likelihood (the crate's earlier order).
    SeasonalDifference,
}

impl SarimaOrder {
    /// The order in `(p,d,q)(P,D,Q)ₛ` notation.
    pub fn label(self) -> &'static str {
        match self {
            SarimaOrder::Published => "(1,0,1)(1,0,1)24 CSS",
            SarimaOrder::SeasonalDifference => "(1,0,0)(1,1,0)24 ML",
        }
    }
}

/// A seasonal ARIMA model of a given period and order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sarima {
    period: usize,
    order: SarimaOrder,
}

impl Sarima {
    /// The `(1,0,0)×(1,1,0)ₛ` model with seasonal period `period` (24 for hourly prices).
    ///
    /// # Errors
    /// [`ParamError`] if `period` is 0.
    pub fn new(period: usize) -> Result<Sarima, ParamError> {
        Sarima::with_order(period, SarimaOrder::SeasonalDifference)
    }

    /// The model of `order` with seasonal period `period`.
    ///
    /// # Errors
    /// [`ParamError`] if `period` is 0.
    pub fn with_order(period: usize, order: SarimaOrder) -> Result<Sarima, ParamError> {
        ParamError::check(period >= 1, "period", period, "must be >= 1")?;
        Ok(Sarima { period, order })
    }

    /// The seasonal period.
    pub fn period(&self) -> usize {
        self.period
    }

    /// The order.
    pub fn order(&self) -> SarimaOrder {
        self.order
    }

    /// The fewest values [`fit`](Self::fit) accepts: `2·period + 2` (saturating, so a period
    /// too large for any series makes every fit [`SarimaError::TooShort`]).
    pub fn min_len(&self) -> usize {
        self.period.saturating_mul(2).saturating_add(2)
    }

    /// Fits the model to `series`: exact maximum likelihood for
    /// [`SarimaOrder::SeasonalDifference`], conditional sum of squares for
    /// [`SarimaOrder::Published`].
    ///
    /// Cost: about 150 likelihood evaluations of `O(s² + m)` each (a few thousand `O(m)` sums
    /// of squares for the published order).
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
        if self.order == SarimaOrder::Published {
            return Ok(fit_published(series, self.period));
        }
        let s = self.period;
        let w: Vec<f64> = (s..series.len())
            .map(|t| series[t] - series[t - s])
            .collect();
        let tail = |v: &[f64], k: usize| v[v.len() - k..].to_vec();
        let mut fit = SarimaFit {
            w_tail: tail(&w, s + 1),
            y_tail: tail(series, s),
            ..SarimaFit::zero(s, SarimaOrder::SeasonalDifference)
        };
        if w.iter().all(|&v| v == 0.0) {
            return Ok(fit);
        }
        let mut work = Workspace::new(s);
        let objective = |x: [f64; 2]| {
            let (phi, big_phi) = (constrain(x[0]), constrain(x[1]));
            -work.log_likelihood(&w, phi, big_phi).0
        };
        let best = nelder_mead(objective, [0.0; 2]);
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

/// The published order fitted by conditional sum of squares (see the module docs); `series`
/// is finite and holds at least `2·s + 2` values.
fn fit_published(series: &[f64], s: usize) -> SarimaFit {
    let tail = |v: &[f64]| v[v.len() - (s + 1)..].to_vec();
    if (s..series.len()).all(|t| series[t] == series[t - s]) {
        // A repeated period: the seasonal naive forecast (Φ = 1, the boundary CSS tends to).
        return SarimaFit {
            seasonal_phi: 1.0,
            y_tail: tail(series),
            e_tail: vec![0.0; s + 1],
            ..SarimaFit::zero(s, SarimaOrder::Published)
        };
    }
    let n = series.len() as f64;
    let mean = series.iter().sum::<f64>() / n;
    let sd = (series.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / n).sqrt();
    let unit = if sd > 0.0 { sd } else { 1.0 };
    let mut e = vec![0.0; series.len()];
    let params = |x: [f64; 5]| {
        [
            mean + unit * x[0],
            constrain(x[1]),
            constrain(x[2]),
            constrain(x[3]),
            constrain(x[4]),
        ]
    };
    let best = params(nelder_mead(|x| css(series, s, params(x), &mut e), [0.0; 5]));
    let sum_sq = css(series, s, best, &mut e);
    let conditioned = (series.len() - (s + 1)) as f64;
    let sigma2 = sum_sq / conditioned;
    let log_likelihood = if sigma2 > 0.0 {
        -0.5 * conditioned * ((2.0 * std::f64::consts::PI).ln() + sigma2.ln() + 1.0)
    } else {
        f64::INFINITY
    };
    let [mean, phi, seasonal_phi, theta, seasonal_theta] = best;
    SarimaFit {
        phi,
        seasonal_phi,
        theta,
        seasonal_theta,
        mean,
        sigma2,
        log_likelihood,
        period: s,
        order: SarimaOrder::Published,
        w_tail: Vec::new(),
        y_tail: tail(series),
        e_tail: tail(&e),
    }
}

/// The conditional sum of squares of `(1,0,1)×(1,0,1)ₛ` with parameters `[μ, φ, Φ, θ, Θ]`;
/// fills `e` with the innovations (zero for the `s + 1` conditioning values).
fn css(y: &[f64], s: usize, [mean, phi, sphi, theta, stheta]: [f64; 5], e: &mut [f64]) -> f64 {
    let mut sum_sq = 0.0;
    for t in 0..y.len() {
        if t <= s {
            e[t] = 0.0;
            continue;
        }
        let z = |k: usize| y[t - k] - mean;
        let ar = phi * z(1) + sphi * z(s) - phi * sphi * z(s + 1);
        let ma = theta * e[t - 1] + stheta * e[t - s] + theta * stheta * e[t - s - 1];
        e[t] = (y[t] - mean) - ar - ma;
        sum_sq += e[t] * e[t];
    }
    sum_sq
}

/// A fitted model and the end of the series it was fitted to, from which it forecasts.
#[derive(Clone, Debug, PartialEq)]
pub struct SarimaFit {
    /// The non-seasonal AR coefficient `φ`.
    pub phi: f64,
    /// The seasonal AR coefficient `Φ`.
    pub seasonal_phi: f64,
    /// The non-seasonal MA coefficient `θ` (0 for the seasonal-difference order).
    pub theta: f64,
    /// The seasonal MA coefficient `Θ` (0 for the seasonal-difference order).
    pub seasonal_theta: f64,
    /// The mean `μ` (0 for the seasonal-difference order, which has none).
    pub mean: f64,
    /// The innovation variance `σ²` (maximum-likelihood or CSS estimate).
    pub sigma2: f64,
    /// The Gaussian log-likelihood at the optimum: exact (of the seasonally differenced
    /// series) for the seasonal-difference order, conditional for the published one; `+∞`
    /// for a perfect fit.
    pub log_likelihood: f64,
    period: usize,
    order: SarimaOrder,
    /// The last `period + 1` seasonal differences (seasonal-difference order).
    w_tail: Vec<f64>,
    /// The last `period` (seasonal-difference) or `period + 1` (published) values.
    y_tail: Vec<f64>,
    /// The last `period + 1` innovations (published order).
    e_tail: Vec<f64>,
}

impl SarimaFit {
    /// A fit of `order` with period `s`, every coefficient, the mean and the variance zero,
    /// no tails yet, and an infinite log-likelihood: the start the fitters fill in (and the
    /// fit of a constant series).
    fn zero(s: usize, order: SarimaOrder) -> SarimaFit {
        SarimaFit {
            phi: 0.0,
            seasonal_phi: 0.0,
            theta: 0.0,
            seasonal_theta: 0.0,
            mean: 0.0,
            sigma2: 0.0,
            log_likelihood: f64::INFINITY,
            period: s,
            order,
            w_tail: Vec::new(),
            y_tail: Vec::new(),
            e_tail: Vec::new(),
        }
    }

    /// The order fitted.
    pub fn order(&self) -> SarimaOrder {
        self.order
    }

    /// The minimum-mean-square-error forecasts of the next `steps` values of the series
    /// (future innovations zero). Cost `O(steps)` time and memory: bound `steps` where it
    /// comes from user input.
    pub fn forecast(&self, steps: usize) -> Vec<f64> {
        if self.order == SarimaOrder::Published {
            return self.forecast_published(steps);
        }
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

    fn forecast_published(&self, steps: usize) -> Vec<f64> {
        let s = self.period;
        let mut z: Vec<f64> = self.y_tail.iter().map(|y| y - self.mean).collect();
        let mut e = self.e_tail.clone();
        let (phi, sphi, theta, stheta) =
            (self.phi, self.seasonal_phi, self.theta, self.seasonal_theta);
        let mut out = Vec::with_capacity(steps);
        for _ in 0..steps {
            let t = z.len();
            let next = phi * z[t - 1] + sphi * z[t - s] - phi * sphi * z[t - s - 1]
                + theta * e[t - 1]
                + stheta * e[t - s]
                + theta * stheta * e[t - s - 1];
            z.push(next);
            e.push(0.0);
            out.push(next + self.mean);
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

/// Minimises `f` over `ℝᴺ` by the Nelder–Mead simplex method (reflection 1, expansion 2,
/// contraction ½, shrink ½), from a simplex of side 0.5 at `start`, until the simplex spans less
/// than 1e-10 in both value and position (or after `1000·N` iterations).
fn nelder_mead<const N: usize>(mut f: impl FnMut([f64; N]) -> f64, start: [f64; N]) -> [f64; N] {
    let mut simplex: Vec<[f64; N]> = (0..=N)
        .map(|k| {
            let mut v = start;
            if k > 0 {
                v[k - 1] += 0.5;
            }
            v
        })
        .collect();
    let mut values: Vec<f64> = simplex.iter().map(|&v| f(v)).collect();
    let lerp = |a: [f64; N], b: [f64; N], t: f64| -> [f64; N] {
        std::array::from_fn(|i| a[i] + t * (b[i] - a[i]))
    };
    let mut order: Vec<usize> = (0..=N).collect();
    for _ in 0..1_000 * N {
        order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
        simplex = order.iter().map(|&i| simplex[i]).collect();
        values = order.iter().map(|&i| values[i]).collect();
        order.sort_unstable();
        let (best, worst) = (simplex[0], simplex[N]);
        let spread = (values[N] - values[0]).abs();
        let size = simplex[1..]
            .iter()
            .flat_map(|v| v.iter().zip(&best).map(|(a, b)| (a - b).abs()))
            .fold(0.0_f64, f64::max);
        if spread <= 1e-10 * (1.0 + values[0].abs()) && size <= 1e-10 {
            break;
        }
        let centroid: [f64; N] =
            std::array::from_fn(|i| simplex[..N].iter().map(|v| v[i]).sum::<f64>() / N as f64);
        let reflected = lerp(centroid, worst, -1.0);
        let fr = f(reflected);
        if fr < values[0] {
            let expanded = lerp(centroid, worst, -2.0);
            let fe = f(expanded);
            (simplex[N], values[N]) = if fe < fr {
                (expanded, fe)
            } else {
                (reflected, fr)
            };
        } else if fr < values[N - 1] {
            (simplex[N], values[N]) = (reflected, fr);
        } else {
            let (toward, ft) = if fr < values[N] {
                (reflected, fr)
            } else {
                (worst, values[N])
            };
            let contracted = lerp(centroid, toward, 0.5);
            let fc = f(contracted);
            if fc < ft {
                (simplex[N], values[N]) = (contracted, fc);
            } else {
                for k in 1..=N {
                    simplex[k] = lerp(best, simplex[k], 0.5);
                    values[k] = f(simplex[k]);
                }
            }
        }
    }
    let best = (0..=N)
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
        // A period no series can cover: every fit is too short, the bound does not overflow.
        let huge = Sarima::new(usize::MAX).unwrap();
        assert_eq!(huge.min_len(), usize::MAX);
        assert_eq!(
            huge.fit(&[1.0; 72]),
            Err(SarimaError::TooShort {
                len: 72,
                needed: usize::MAX
            })
        );
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

    /// `n` values of `(1,0,1)×(1,0,1)ₛ` with the given `[μ, φ, Φ, θ, Θ]` and unit Gaussian
    /// innovations (Box–Muller on a seeded ChaCha stream), after a burn-in of 50 periods.
    fn simulate_published(
        n: usize,
        s: usize,
        [mean, phi, sphi, theta, stheta]: [f64; 5],
    ) -> Vec<f64> {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20_140_601);
        let burn = 50 * s;
        let (mut z, mut e) = (vec![0.0; s + 1], vec![0.0; s + 1]);
        for _ in 0..burn + n {
            let (u1, u2): (f64, f64) = (rng.random(), rng.random());
            let innovation = (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            let t = z.len();
            let next = phi * z[t - 1] + sphi * z[t - s] - phi * sphi * z[t - s - 1]
                + innovation
                + theta * e[t - 1]
                + stheta * e[t - s]
                + theta * stheta * e[t - s - 1];
            z.push(next);
            e.push(innovation);
        }
        z[z.len() - n..].iter().map(|v| v + mean).collect()
    }

    #[test]
    fn the_published_order_recovers_known_coefficients() {
        let truth = [40.0, 0.5, 0.6, 0.3, -0.4];
        let series = simulate_published(24 * 150, 24, truth);
        let model = Sarima::with_order(24, SarimaOrder::Published).unwrap();
        let fit = model.fit(&series).unwrap();
        let got = [
            fit.mean,
            fit.phi,
            fit.seasonal_phi,
            fit.theta,
            fit.seasonal_theta,
        ];
        for (k, (g, t)) in got.iter().zip(truth).enumerate() {
            let tolerance = if k == 0 { 0.5 } else { 0.06 };
            assert!(
                (g - t).abs() < tolerance,
                "parameter {k}: {g} vs {t} ({got:?})"
            );
        }
        assert!((fit.sigma2 - 1.0).abs() < 0.1, "{}", fit.sigma2);
        assert_eq!(fit.order(), SarimaOrder::Published);
    }

    #[test]
    fn the_published_order_forecasts_by_its_recursion() {
        // Pure seasonal AR with mean: z_t = 0.8 z_{t-s}; the forecast is 0.8 × last period.
        let s = 4;
        let fit = SarimaFit {
            phi: 0.0,
            seasonal_phi: 0.8,
            theta: 0.0,
            seasonal_theta: 0.0,
            mean: 10.0,
            sigma2: 1.0,
            log_likelihood: 0.0,
            period: s,
            order: SarimaOrder::Published,
            w_tail: Vec::new(),
            y_tail: vec![10.0, 11.0, 12.0, 13.0, 14.0],
            e_tail: vec![0.0; s + 1],
        };
        let f = fit.forecast(5);
        let expected = [10.8, 11.6, 12.4, 13.2, 10.64];
        for (a, b) in f.iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{f:?}");
        }
    }

    #[test]
    fn nelder_mead_minimises_in_five_dimensions() {
        let target = [1.0, -2.0, 0.5, 3.0, -0.25];
        let best = nelder_mead(
            |x: [f64; 5]| {
                x.iter()
                    .zip(target)
                    .map(|(a, b)| (k_weight(b) * (a - b)).powi(2))
                    .sum()
            },
            [0.0; 5],
        );
        for (a, b) in best.iter().zip(target) {
            assert!((a - b).abs() < 1e-5, "{best:?}");
        }
    }

    fn k_weight(b: f64) -> f64 {
        1.0 + b.abs()
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
