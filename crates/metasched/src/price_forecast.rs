//! Electricity prices beyond the known day-ahead prices: the paper's price prediction
//! (a seasonal ARIMA with a 24-hour period trained on the previous three days, used only for
//! the hours whose day-ahead price is not published yet).
//!
//! In a day-ahead market the prices of a day are fixed before it starts, so during scenario
//! day `d` the prices up to the end of day `d` are known — and, from the market's release hour
//! on, those of day `d + 1` as well. A job predicted to run past that point pays forecast
//! prices: [`PriceOutlook`] answers "the price of hour `h`, as seen at time `now`" with the
//! true price when it is known and otherwise with the [`Sarima`] forecast issued at the first
//! unknown hour, trained on the `training_hours` (72) hours before it.
//!
//! Conventions follow [`site`](crate::site): scenario hour `h` pays `prices[h]`; nothing wraps
//! around. The training window never reads a price at or after the issue hour (so never a
//! future price): it is the `training_hours` before the issue, cut at hour 0 — when fewer than
//! the model needs remain (the first days) or the fit fails, the forecast is the last
//! published day repeated (a seasonal naive forecast, our fallback). Past the end of the
//! published series the forecast is issued at the series' end, so a job predicted
//! to run after it still gets prices (the forecast, issued at the series' end), never a
//! wrapped-around price. New
//! day-ahead prices are appended with [`PriceOutlook::append_day_ahead`]. The release hour is
//! a scenario hour of day. Forecasts are made lazily, once per issue day, and cached (the
//! outlook is `Sync`; one `OnceLock` per issue day; appending never invalidates one, as a
//! forecast reads only hours before its issue). Hours more than `horizon_hours` past the
//! issue repeat the last forecast period.
//!
//! The seasonal order is the paper's (1,0,1)(1,0,1)₂₄ by default (§3.2: "unit order terms for
//! the autoregressive and moving average" parts, as its published code), fitted by
//! conditional sum of squares; the crate's earlier (1,0,0)(1,1,0)₂₄ stays available as
//! [`PriceForecastConfig::order`] = [`SarimaOrder::SeasonalDifference`].
//!
//! [`forecast_mape`] measures the forecasts by the error the paper reports, the mean absolute
//! percentage error — here of each day's 24 hourly prices forecast from the 72 hours before
//! it, every day of a series (the protocol is ours: the forecast a cycle makes at any time of
//! day `d − 1` for day `d` when only day `d − 1` is published).
//!
//! ```
//! use cosched_core::Time;
//! use cosched_metasched::price_forecast::{PriceForecastConfig, PriceOutlook};
//!
//! // Four days of a daily price cycle.
//! let prices: Vec<f64> = (0..96).map(|h| 30.0 + f64::from(h % 24)).collect();
//! let outlook = PriceOutlook::new(prices, PriceForecastConfig::default()).unwrap();
//! let noon_day_3 = Time(3 * 86_400 + 12 * 3_600);
//! // Day 3's prices are known; day 4 (hour 96 onwards) is forecast — here exactly, the cycle
//! // repeats.
//! assert_eq!(outlook.known_until_hour(noon_day_3), 96);
//! assert_eq!(outlook.price_usd_per_mwh(noon_day_3, 80), Some(38.0));
//! assert!((outlook.price_usd_per_mwh(noon_day_3, 100).unwrap() - 34.0).abs() < 1e-9);
//! // No price before the series; past its end, the forecast (never a wrapped-around price).
//! assert_eq!(outlook.price_usd_per_mwh(noon_day_3, -1), None);
//! assert!(outlook.price_usd_per_mwh(noon_day_3, 2_000).is_some());
//! ```

use crate::site::Site;
use cosched_core::{ParamError, Time};
use cosched_forecast::ForecastError;
use cosched_forecast::sarima::{Sarima, SarimaOrder};
use std::sync::OnceLock;
use thiserror::Error;

const HOURS_PER_DAY: i64 = 24;

/// The longest forecast per issue, in hours: a leap year (ours; the paper forecasts a day).
const MAX_HORIZON_HOURS: usize = 366 * 24;

/// How prices are forecast and when day-ahead prices become known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PriceForecastConfig {
    /// The seasonal period, in hours (the paper: 24).
    pub period_hours: usize,
    /// Hours of history the model is trained on (the paper: the previous three days, 72).
    pub training_hours: usize,
    /// Hours forecast per issue (`period_hours..=8784`); later hours repeat the last period of
    /// the forecast.
    pub horizon_hours: usize,
    /// Scenario hour of day (0..=24) from which the next day's prices are known; 24 means
    /// only the current day's prices are ever known.
    pub release_hour: u32,
    /// The seasonal ARIMA order (the paper's: [`SarimaOrder::Published`]).
    pub order: SarimaOrder,
}

impl Default for PriceForecastConfig {
    /// Period 24, three days of training, a week of forecast, only the current day known,
    /// the paper's order (1,0,1)(1,0,1)₂₄.
    fn default() -> Self {
        PriceForecastConfig {
            period_hours: 24,
            training_hours: 72,
            horizon_hours: 168,
            release_hour: 24,
            order: SarimaOrder::default(),
        }
    }
}

impl PriceForecastConfig {
    fn model(&self) -> Result<Sarima, ParamError> {
        let model = Sarima::with_order(self.period_hours, self.order)?;
        ParamError::check(
            self.training_hours >= model.min_len(),
            "training_hours",
            self.training_hours,
            "must be >= 2 * period_hours + 2",
        )?;
        ParamError::check(
            self.horizon_hours >= self.period_hours,
            "horizon_hours",
            self.horizon_hours,
            "must be >= period_hours",
        )?;
        // Each issue day caches a forecast of this many hours.
        ParamError::check(
            self.horizon_hours <= MAX_HORIZON_HOURS,
            "horizon_hours",
            self.horizon_hours,
            "must be at most 8,784 (a leap year of hours)",
        )?;
        ParamError::check(
            self.release_hour <= 24,
            "release_hour",
            self.release_hour,
            "must be in 0..=24",
        )?;
        Ok(model)
    }
}

/// One site's hourly prices as the metascheduler can know them at a given time: day-ahead
/// prices where published, seasonal ARIMA forecasts beyond (see the module docs).
///
/// Two outlooks are equal when their prices and configuration are: the forecast cache is
/// a function of those and does not take part (nor is it serialised: a restored outlook
/// forecasts again, identically).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "OutlookState", into = "OutlookState")]
pub struct PriceOutlook {
    prices: Vec<f64>,
    config: PriceForecastConfig,
    model: Sarima,
    /// One slot per issue day `0..=len / 24`.
    forecasts: Vec<OnceLock<Vec<f64>>>,
    /// The forecast issued at the series' end when that is not a day start (reset on append).
    tail: OnceLock<Vec<f64>>,
}

/// The serialised form of [`PriceOutlook`].
#[derive(serde::Serialize, serde::Deserialize)]
struct OutlookState {
    prices: Vec<f64>,
    config: PriceForecastConfig,
}

impl From<PriceOutlook> for OutlookState {
    fn from(o: PriceOutlook) -> OutlookState {
        OutlookState {
            prices: o.prices,
            config: o.config,
        }
    }
}

impl TryFrom<OutlookState> for PriceOutlook {
    type Error = ParamError;

    fn try_from(s: OutlookState) -> Result<PriceOutlook, ParamError> {
        PriceOutlook::new(s.prices, s.config)
    }
}

impl PriceOutlook {
    /// The outlook over `prices` ($/MWh, index 0 = scenario hour 0, periodic).
    ///
    /// # Errors
    /// [`ParamError`] for an empty series, a non-finite price or an invalid `config`.
    pub fn new(prices: Vec<f64>, config: PriceForecastConfig) -> Result<PriceOutlook, ParamError> {
        let model = config.model()?;
        ParamError::check(
            !prices.is_empty(),
            "prices",
            "[]",
            "must hold at least one hour",
        )?;
        if let Some(bad) = prices.iter().find(|p| !p.is_finite()) {
            return Err(ParamError::new("prices", bad, "every price must be finite"));
        }
        if let Some(bad) = prices
            .iter()
            .find(|p| p.abs() > crate::site::MAX_PRICE_USD_PER_MWH)
        {
            return Err(ParamError::new("prices", bad, "must be within ±1e6 $/MWh"));
        }
        let days = prices.len() / HOURS_PER_DAY as usize + 1;
        Ok(PriceOutlook {
            prices,
            config,
            model,
            forecasts: (0..days).map(|_| OnceLock::new()).collect(),
            tail: OnceLock::new(),
        })
    }

    /// Appends newly published day-ahead prices after the last known hour.
    ///
    /// # Errors
    /// [`ParamError`] for a non-finite price or one beyond ±1e6 $/MWh; nothing is appended.
    pub fn append_day_ahead(&mut self, prices: &[f64]) -> Result<(), ParamError> {
        if let Some(bad) = prices
            .iter()
            .find(|p| !(p.is_finite() && p.abs() <= crate::site::MAX_PRICE_USD_PER_MWH))
        {
            return Err(ParamError::new(
                "prices",
                bad,
                "must be finite and within ±1e6 $/MWh",
            ));
        }
        self.prices.extend_from_slice(prices);
        let days = self.prices.len() / HOURS_PER_DAY as usize + 1;
        self.forecasts.resize_with(days, OnceLock::new);
        self.tail = OnceLock::new();
        Ok(())
    }

    /// The outlook of `site`'s price series.
    ///
    /// # Errors
    /// [`ParamError`] for an invalid `config` (a site's prices are valid already).
    pub fn for_site(site: &Site, config: PriceForecastConfig) -> Result<PriceOutlook, ParamError> {
        PriceOutlook::new(site.spec().prices_usd_per_mwh.clone(), config)
    }

    /// The configuration.
    pub fn config(&self) -> &PriceForecastConfig {
        &self.config
    }

    /// The true price of scenario hour `hour`, in $/MWh; `None` outside the series.
    pub fn actual_usd_per_mwh(&self, hour: i64) -> Option<f64> {
        usize::try_from(hour)
            .ok()
            .and_then(|h| self.prices.get(h).copied())
    }

    /// The first scenario hour whose price is not known at `now`: the end of the current day,
    /// or of the next one from the release hour on.
    pub fn known_until_hour(&self, now: Time) -> i64 {
        let hour = now.secs().div_euclid(3_600);
        let day = hour.div_euclid(HOURS_PER_DAY);
        let released = hour.rem_euclid(HOURS_PER_DAY) >= i64::from(self.config.release_hour);
        (day + 1 + i64::from(released)) * HOURS_PER_DAY
    }

    /// The price of scenario hour `hour` as known at `now`, in $/MWh: the day-ahead price if
    /// published, else the forecast issued at [`known_until_hour`](Self::known_until_hour)
    /// (or at the series' end, past it); `None` for an hour before the series.
    pub fn price_usd_per_mwh(&self, now: Time, hour: i64) -> Option<f64> {
        let issue = self.known_until_hour(now).min(self.prices.len() as i64);
        if hour < issue {
            return self.actual_usd_per_mwh(hour);
        }
        let forecast = self.forecast_from(issue)?;
        let (ahead, horizon, period) = (
            usize::try_from(hour - issue).ok()?,
            forecast.len(),
            self.config.period_hours.min(forecast.len()),
        );
        if ahead < horizon {
            forecast.get(ahead).copied()
        } else {
            forecast
                .get(horizon - period + (ahead - horizon) % period)
                .copied()
        }
    }

    /// The (cached) forecast of hours `issue..issue + horizon_hours`; `issue` is a day start
    /// or the series' end. Trained on the hours before `issue` only.
    fn forecast_from(&self, issue: i64) -> Option<&[f64]> {
        let slot = if issue % HOURS_PER_DAY == 0 {
            self.forecasts
                .get(usize::try_from(issue / HOURS_PER_DAY).ok()?)?
        } else {
            &self.tail
        };
        let forecast = slot.get_or_init(|| {
            let end = usize::try_from(issue).unwrap_or(0).min(self.prices.len());
            let start = end.saturating_sub(self.config.training_hours);
            let training = &self.prices[start..end];
            match self.model.fit(training) {
                Ok(fit) if training.len() >= self.model.min_len() => {
                    fit.forecast(self.config.horizon_hours)
                }
                // Too little history (or no fit): the last published day, repeated.
                _ => {
                    let day = &training[training.len().saturating_sub(HOURS_PER_DAY as usize)..];
                    if day.is_empty() {
                        Vec::new()
                    } else {
                        (0..self.config.horizon_hours)
                            .map(|i| day[i % day.len()])
                            .collect()
                    }
                }
            }
        });
        (!forecast.is_empty()).then_some(forecast.as_slice())
    }
}

/// One outlook per site, in site order — what a forecasting price model of the metascheduler
/// holds.
///
/// # Errors
/// [`ParamError`] for an invalid `config`.
pub fn outlooks(
    sites: &[Site],
    config: PriceForecastConfig,
) -> Result<Vec<PriceOutlook>, ParamError> {
    sites
        .iter()
        .map(|site| PriceOutlook::for_site(site, config))
        .collect()
}

impl PartialEq for PriceOutlook {
    fn eq(&self, other: &Self) -> bool {
        self.prices == other.prices && self.config == other.config
    }
}

/// Accuracy of next-day forecasts over a price series ([`forecast_mape`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForecastAccuracy {
    /// Mean absolute percentage error, in percent.
    pub mape_percent: f64,
    /// Hours compared.
    pub hours: usize,
    /// Hours left out because their true price is exactly 0 (no percentage error exists).
    pub skipped_zero_prices: usize,
    /// Days forecast.
    pub days: usize,
    /// Hours whose absolute percentage error is under 15 % (§5.3: "75 % … less than 15 %").
    pub under_15_percent: usize,
    /// Hours whose absolute percentage error is under 20 % (§5.3: "about all … less than
    /// 20 %").
    pub under_20_percent: usize,
}

/// Why [`forecast_mape`] could not measure the forecasts.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ForecastMapeError {
    /// The configuration or a price is invalid, or the series is too short to forecast one
    /// whole day.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The model could not be fitted to a day's training window (the model's own error says
    /// why; not expected once the prices and the configuration are valid).
    #[error("the prices before day {day} cannot be fitted")]
    Fit {
        /// The day forecast, from 0.
        day: usize,
        /// The fit's failure.
        #[source]
        source: ForecastError,
    },
}

/// The price predictor's mean absolute percentage error (the paper's measure): for every day `d` of `prices` whose preceding
/// `training_hours` are in the series (no wrap-around), fit on those hours, forecast the 24
/// hours of day `d`, and average `|forecast − actual| / |actual|` over all forecast hours, in
/// percent.
///
/// # Errors
/// [`ForecastMapeError::Param`] for an invalid `config`, a non-finite price, or a series too
/// short to forecast one whole day; [`ForecastMapeError::Fit`] if a fit fails.
pub fn forecast_mape(
    prices: &[f64],
    config: &PriceForecastConfig,
) -> Result<ForecastAccuracy, ForecastMapeError> {
    let model = config.model()?;
    if let Some(bad) = prices.iter().find(|p| !p.is_finite()) {
        return Err(ParamError::new("prices", bad, "every price must be finite").into());
    }
    let day = HOURS_PER_DAY as usize;
    let first = config.training_hours.div_ceil(day);
    let last = prices.len() / day;
    ParamError::check(
        last > first,
        "prices",
        prices.len(),
        "must cover training_hours and one more whole day",
    )?;
    let mut accuracy = ForecastAccuracy {
        mape_percent: 0.0,
        hours: 0,
        skipped_zero_prices: 0,
        days: last - first,
        under_15_percent: 0,
        under_20_percent: 0,
    };
    let mut sum = 0.0;
    for d in first..last {
        let issue = d * day;
        let fit = model
            .fit(&prices[issue - config.training_hours..issue])
            .map_err(|e| ForecastMapeError::Fit {
                day: d,
                source: e.into(),
            })?;
        for (f, &actual) in fit.forecast(day).iter().zip(&prices[issue..issue + day]) {
            if actual == 0.0 {
                accuracy.skipped_zero_prices += 1;
            } else {
                let error = (f - actual).abs() / actual.abs();
                sum += error;
                accuracy.hours += 1;
                accuracy.under_15_percent += usize::from(error < 0.15);
                accuracy.under_20_percent += usize::from(error < 0.20);
            }
        }
    }
    accuracy.mape_percent = if accuracy.hours > 0 {
        100.0 * sum / accuracy.hours as f64
    } else {
        0.0
    };
    Ok(accuracy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle(len: usize) -> Vec<f64> {
        (0..len).map(|h| 20.0 + (h % 24) as f64).collect()
    }

    #[test]
    fn the_configuration_is_validated() {
        let ok = PriceForecastConfig::default();
        let bad = |c: PriceForecastConfig| PriceOutlook::new(cycle(96), c).unwrap_err().name;
        assert_eq!(
            bad(PriceForecastConfig {
                period_hours: 0,
                ..ok
            }),
            "period"
        );
        assert_eq!(
            bad(PriceForecastConfig {
                training_hours: 49,
                ..ok
            }),
            "training_hours"
        );
        assert_eq!(
            bad(PriceForecastConfig {
                horizon_hours: 23,
                ..ok
            }),
            "horizon_hours"
        );
        assert_eq!(
            bad(PriceForecastConfig {
                horizon_hours: usize::MAX,
                ..ok
            }),
            "horizon_hours"
        );
        assert_eq!(
            bad(PriceForecastConfig {
                period_hours: usize::MAX,
                ..ok
            }),
            "training_hours"
        );
        assert_eq!(
            bad(PriceForecastConfig {
                release_hour: 25,
                ..ok
            }),
            "release_hour"
        );
        assert_eq!(PriceOutlook::new(vec![], ok).unwrap_err().name, "prices");
        assert_eq!(
            PriceOutlook::new(vec![f64::NAN], ok).unwrap_err().name,
            "prices"
        );
        assert!(matches!(
            forecast_mape(&cycle(95), &ok),
            Err(ForecastMapeError::Param(ParamError { name: "prices", .. }))
        ));
    }

    #[test]
    fn outlooks_can_be_shared_across_threads() {
        fn assert_sync<T: Sync + Send>() {}
        assert_sync::<PriceOutlook>();
    }

    #[test]
    fn the_release_hour_publishes_the_next_day() {
        let config = PriceForecastConfig {
            release_hour: 13,
            ..Default::default()
        };
        let outlook = PriceOutlook::new(cycle(96), config).unwrap();
        assert_eq!(outlook.known_until_hour(Time(12 * 3_600)), 24);
        assert_eq!(outlook.known_until_hour(Time(13 * 3_600)), 48);
        assert_eq!(outlook.known_until_hour(Time(-1)), 24); // 23:00 of day −1
    }

    #[test]
    fn far_hours_repeat_the_last_forecast_period_and_nothing_wraps() {
        let mut prices = cycle(96);
        prices[95] = 99.0; // breaks the cycle, so the forecast is not the series itself
        let outlook = PriceOutlook::new(prices, PriceForecastConfig::default()).unwrap();
        let now = Time(0);
        let horizon = 168;
        for k in 0..48 {
            assert_eq!(
                outlook.price_usd_per_mwh(now, 24 + horizon + k),
                outlook.price_usd_per_mwh(now, 24 + horizon - 24 + k % 24)
            );
        }
        // Nothing wraps: before the series there is no price; past its end, the forecast
        // issued at its last whole day, trained on hours before it only.
        assert_eq!(outlook.actual_usd_per_mwh(-1), None);
        assert_eq!(outlook.actual_usd_per_mwh(96), None);
        let late = outlook.price_usd_per_mwh(Time(200 * 3_600), 300);
        assert!(late.is_some_and(f64::is_finite));
        // Day 0 has no history: its forecast is day 0 repeated, never the series' end.
        assert_eq!(outlook.price_usd_per_mwh(now, 30), Some(20.0 + 6.0));
        // Equality ignores what has been cached.
        let fresh = PriceOutlook::new(outlook.prices.clone(), outlook.config).unwrap();
        assert_eq!(fresh, outlook);
    }

    #[test]
    fn mape_is_zero_on_a_repeating_day_and_skips_zero_prices() {
        let mut prices = cycle(120);
        let acc = forecast_mape(&prices, &PriceForecastConfig::default()).unwrap();
        assert_eq!((acc.mape_percent, acc.hours, acc.days), (0.0, 48, 2));
        // A zero in day 3 is skipped there and breaks the cycle day 4 is trained on.
        prices[90] = 0.0;
        let acc = forecast_mape(&prices, &PriceForecastConfig::default()).unwrap();
        assert_eq!((acc.skipped_zero_prices, acc.hours), (1, 47));
        assert!(acc.mape_percent > 0.0);
    }
}
