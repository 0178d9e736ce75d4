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
//! Conventions follow [`site`](crate::site): scenario hour `h` pays `prices[h mod len]`, so the
//! training window of the first days wraps around to the end of the series, as a [`Site`]'s
//! prices do; the release hour is a scenario hour of day. Forecasts are made lazily, once per
//! issue day, and cached (the outlook is `Sync`; the cache is a `OnceLock` per distinct issue
//! day of the periodic series). Hours more than `horizon_hours` past the issue repeat the last
//! forecast period.
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
//! assert_eq!(outlook.price_usd_per_mwh(noon_day_3, 80), 38.0);
//! assert!((outlook.price_usd_per_mwh(noon_day_3, 100) - 34.0).abs() < 1e-9);
//! ```

use crate::sarima::Sarima;
use crate::site::Site;
use cosched_core::{ParamError, Time};
use std::sync::OnceLock;

const HOURS_PER_DAY: i64 = 24;

/// How prices are forecast and when day-ahead prices become known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PriceForecastConfig {
    /// The seasonal period, in hours (the paper: 24).
    pub period_hours: usize,
    /// Hours of history the model is trained on (the paper: the previous three days, 72).
    pub training_hours: usize,
    /// Hours forecast per issue; later hours repeat the last period of the forecast.
    pub horizon_hours: usize,
    /// Scenario hour of day (0..=24) from which the next day's prices are known; 24 means
    /// only the current day's prices are ever known.
    pub release_hour: u32,
}

impl Default for PriceForecastConfig {
    /// Period 24, three days of training, a week of forecast, only the current day known.
    fn default() -> Self {
        PriceForecastConfig {
            period_hours: 24,
            training_hours: 72,
            horizon_hours: 168,
            release_hour: 24,
        }
    }
}

impl PriceForecastConfig {
    fn model(&self) -> Result<Sarima, ParamError> {
        let model = Sarima::new(self.period_hours)?;
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
/// a function of those and does not take part.
#[derive(Clone, Debug)]
pub struct PriceOutlook {
    prices: Vec<f64>,
    config: PriceForecastConfig,
    model: Sarima,
    /// One slot per distinct issue day of the periodic series.
    forecasts: Vec<OnceLock<Vec<f64>>>,
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
        // Issue hours are multiples of 24; prices repeat every `len` hours; so issue days
        // repeat every len / gcd(len, 24) days.
        let days = prices.len() / gcd(prices.len(), HOURS_PER_DAY as usize);
        Ok(PriceOutlook {
            prices,
            config,
            model,
            forecasts: (0..days).map(|_| OnceLock::new()).collect(),
        })
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

    /// The true price of scenario hour `hour`, in $/MWh.
    pub fn actual_usd_per_mwh(&self, hour: i64) -> f64 {
        self.prices[hour.rem_euclid(self.prices.len() as i64) as usize]
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
    /// published, else the forecast issued at [`known_until_hour`](Self::known_until_hour).
    pub fn price_usd_per_mwh(&self, now: Time, hour: i64) -> f64 {
        let issue = self.known_until_hour(now);
        if hour < issue {
            return self.actual_usd_per_mwh(hour);
        }
        let forecast = self.forecast_from(issue);
        let (ahead, horizon, period) = (
            (hour - issue) as usize,
            self.config.horizon_hours,
            self.config.period_hours,
        );
        if ahead < horizon {
            forecast[ahead]
        } else {
            forecast[horizon - period + (ahead - horizon) % period]
        }
    }

    /// The (cached) forecast of hours `issue..issue + horizon_hours`; `issue` is a day start.
    fn forecast_from(&self, issue: i64) -> &[f64] {
        let slot = issue
            .div_euclid(HOURS_PER_DAY)
            .rem_euclid(self.forecasts.len() as i64) as usize;
        self.forecasts[slot].get_or_init(|| {
            let start = issue - self.config.training_hours as i64;
            let training: Vec<f64> = (start..issue).map(|h| self.actual_usd_per_mwh(h)).collect();
            self.model
                .fit(&training)
                .expect("the training window is long enough and finite by construction")
                .forecast(self.config.horizon_hours)
        })
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

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
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
}

/// The price predictor's mean absolute percentage error (the paper's measure): for every day `d` of `prices` whose preceding
/// `training_hours` are in the series (no wrap-around), fit on those hours, forecast the 24
/// hours of day `d`, and average `|forecast − actual| / |actual|` over all forecast hours, in
/// percent.
///
/// # Errors
/// [`ParamError`] for an invalid `config`, a non-finite price, or a series too short to
/// forecast one whole day.
pub fn forecast_mape(
    prices: &[f64],
    config: &PriceForecastConfig,
) -> Result<ForecastAccuracy, ParamError> {
    let model = config.model()?;
    if let Some(bad) = prices.iter().find(|p| !p.is_finite()) {
        return Err(ParamError::new("prices", bad, "every price must be finite"));
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
    };
    let mut sum = 0.0;
    for d in first..last {
        let issue = d * day;
        let fit = model
            .fit(&prices[issue - config.training_hours..issue])
            .expect("the training window is long enough and finite");
        for (f, &actual) in fit.forecast(day).iter().zip(&prices[issue..issue + day]) {
            if actual == 0.0 {
                accuracy.skipped_zero_prices += 1;
            } else {
                sum += (f - actual).abs() / actual.abs();
                accuracy.hours += 1;
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
        assert_eq!(forecast_mape(&cycle(95), &ok).unwrap_err().name, "prices");
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
    fn far_hours_repeat_the_last_forecast_period_and_wrap_like_a_site() {
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
        // The series repeats every 96 hours, and so do its issue days and forecasts.
        assert_eq!(outlook.forecasts.len(), 4);
        assert_eq!(
            outlook.price_usd_per_mwh(now, 30),
            outlook.price_usd_per_mwh(Time(96 * 3_600), 96 + 30)
        );
        assert_eq!(outlook.actual_usd_per_mwh(-1), 99.0);
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
