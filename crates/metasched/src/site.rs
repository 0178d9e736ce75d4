//! The grid's sites (the paper's "systems"): size, walltime limit, power draw,
//! per-core performance and the hourly day-ahead electricity price they pay.
//!
//! ## Time and price conventions
//!
//! Scenario time is [`Time`] in seconds; scenario hour `h` is `[3600·h, 3600·(h+1))`. A site's
//! price series is indexed by scenario hour — index 0 is hour 0 of the scenario — and is treated
//! as **periodic**: hour `h` pays `prices[h mod len]` (also for negative `h`), so a job that runs
//! past the end of a 720-hour month pays the month's first hours again.
//!
//! The timezone lag does not move the price series; it gives the site's **local clock**: the
//! local hour of day at scenario hour `h` is `(h + timezone_lag_hours) mod 24`. Only price
//! models that depend on the hour of day (the TWOPRICE baseline's on-peak window, see
//! [`PriceModel::TwoPrice`](crate::policy::PriceModel::TwoPrice)) use it.

use cosched_core::{Duration, ParamError, Time};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Seconds per hour.
const HOUR_S: i64 = 3600;

/// The largest price magnitude a site accepts, $/MWh: a hundred times the highest offer cap of
/// a US market (ERCOT's $9,000/MWh), so that costs stay finite for any job (hostile-input #13:
/// prices of ±1e308 summed to ±inf and NaN).
pub const MAX_PRICE_USD_PER_MWH: f64 = 1e6;

/// The most power one core may draw, in watts: a hundred times the highest of the paper's
/// sites (Blacklight's 87.89 W, §4.5.1), so that a job's power and cost stay finite for any
/// core count (`power_per_core_watts = 1e308` made costs infinite and a mean
/// price NaN).
pub const MAX_WATTS_PER_CORE: f64 = 10_000.0;

/// The range of a core's performance, GFLOPS: estimates scale by the ratio of two sites'
/// values (§4.5.2), so the range bounds that ratio to 10⁹ and a scaled estimate of the
/// longest walltime to about 3·10¹⁶ s, far inside a `Duration`. The paper's sites span
/// 7.43–21.10.
pub const GFLOPS_PER_CORE_RANGE: std::ops::RangeInclusive<f64> = 1e-3..=1e6;

/// The description of a site, validated into a [`Site`] by [`SiteSpec::build`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteSpec {
    /// The site's name (XSEDE: `Blacklight`, `Gordon`, …).
    pub name: String,
    /// Total cores of the site.
    pub cores: u32,
    /// The most cores one job may request (XSEDE's `max_req_cores`); at most `cores`.
    pub max_job_cores: u32,
    /// The longest runtime estimate the site accepts (XSEDE's `max_ert_s`).
    pub max_walltime: Duration,
    /// Power drawn by one busy core, in watts.
    pub watts_per_core: f64,
    /// Performance of one core, in GFLOPS; runtime estimates scale by its ratio between sites.
    pub gflops_per_core: f64,
    /// Hourly day-ahead electricity prices in $/MWh, index 0 = scenario hour 0 (see the module
    /// docs for the periodic extension).
    pub prices_usd_per_mwh: Vec<f64>,
    /// Local hour of day minus scenario hour of day, in hours.
    pub timezone_lag_hours: i32,
}

/// The longest walltime a site may accept: 366 days. Costs are integrated hour by hour over a
/// job's (predicted) run, so an unbounded walltime from a site table would let one job cost
/// work without bound; the paper's sites accept days (§4.3.1 caps Mason and Steele at three).
pub const MAX_WALLTIME: Duration = Duration(366 * 86_400);

impl SiteSpec {
    /// Checks every field and returns the site.
    ///
    /// # Errors
    /// [`ParamError`] naming the first field out of range: `cores` < 1, `max_job_cores` not in
    /// `1..=cores`, `max_walltime` ≤ 0 or above [`MAX_WALLTIME`], `watts_per_core` outside
    /// `0..=`[`MAX_WATTS_PER_CORE`],
    /// `gflops_per_core` outside [`GFLOPS_PER_CORE_RANGE`], an empty price series or a non-finite price, or
    /// `timezone_lag_hours` outside −23..=23.
    pub fn build(self) -> Result<Site, ParamError> {
        ParamError::check(self.cores >= 1, "cores", self.cores, "must be >= 1")?;
        ParamError::check(
            (1..=self.cores).contains(&self.max_job_cores),
            "max_job_cores",
            self.max_job_cores,
            "must be in 1..=cores",
        )?;
        ParamError::check(
            self.max_walltime.secs() > 0 && self.max_walltime <= MAX_WALLTIME,
            "max_walltime",
            self.max_walltime.secs(),
            "must be in 1 s..=366 days",
        )?;
        ParamError::check(
            (0.0..=MAX_WATTS_PER_CORE).contains(&self.watts_per_core),
            "watts_per_core",
            self.watts_per_core,
            "must be in 0..=10000 W",
        )?;
        ParamError::check(
            GFLOPS_PER_CORE_RANGE.contains(&self.gflops_per_core),
            "gflops_per_core",
            self.gflops_per_core,
            "must be in 0.001..=1e6",
        )?;
        ParamError::check(
            !self.prices_usd_per_mwh.is_empty(),
            "prices_usd_per_mwh",
            "[]",
            "must hold at least one hour",
        )?;
        check_prices(&self.prices_usd_per_mwh)?;
        ParamError::check(
            (-23..=23).contains(&self.timezone_lag_hours),
            "timezone_lag_hours",
            self.timezone_lag_hours,
            "must be in -23..=23",
        )?;
        Ok(Site {
            spec: self,
            core_limit: CoreLimit::TotalCores,
            anchor: None,
        })
    }
}

/// Which core count bounds a job's request at a site (the compatibility test of §3.3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CoreLimit {
    /// The paper's test (§3.3.1): "the total cores in the system is more than the request size
    /// of the job".
    #[default]
    TotalCores,
    /// The site table's `max_req_cores` column: the largest request the site's queues take
    /// (stricter; 523 of the XSEDE trace's 4,100 jobs lose candidate sites under it).
    MaxRequest,
}

/// Every price finite and within ±[`MAX_PRICE_USD_PER_MWH`].
fn check_prices(prices: &[f64]) -> Result<(), ParamError> {
    match prices
        .iter()
        .find(|p| !(p.is_finite() && p.abs() <= MAX_PRICE_USD_PER_MWH))
    {
        Some(bad) => Err(ParamError::new(
            "prices_usd_per_mwh",
            bad,
            "every price must be finite and within ±1e6 $/MWh",
        )),
        None => Ok(()),
    }
}

/// A price asked for an hour the series does not hold.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "site {site}: no day-ahead price for scenario hour {hour} (known: hours 0..{known_hours}); \
     append the published prices or use a forecast"
)]
pub struct PriceBeyondSeries {
    /// The site.
    pub site: String,
    /// The hour asked.
    pub hour: i64,
    /// Hours the series holds.
    pub known_hours: usize,
}

/// Where scenario time 0 (and price hour 0) lies on the calendar: a civil date at local
/// midnight and the UTC offset of that local time. A live metascheduler converts wall-clock
/// instants to scenario time with it, so appended day-ahead prices land on the right hours.
///
/// ```
/// use cosched_core::Time;
/// use cosched_metasched::site::PriceAnchor;
///
/// // The XSEDE data: June 2014, hour 0 at midnight US Eastern daylight time (UTC−4).
/// let anchor = PriceAnchor::XSEDE_JUNE_2014;
/// assert_eq!(anchor.epoch_unix_s(), 1_401_595_200); // 2014-06-01T04:00:00Z
/// assert_eq!(anchor.scenario_time(1_401_595_200 + 7_200), Time(7_200));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PriceAnchor {
    /// Year of the series' first day.
    pub year: i32,
    /// Month, 1..=12.
    pub month: u32,
    /// Day of the month, 1..=31.
    pub day: u32,
    /// Local time minus UTC, hours.
    pub utc_offset_hours: i32,
}

impl PriceAnchor {
    /// The shared data's series (../shared/README.md): June 2014, hour 0 at midnight US
    /// Eastern daylight time (the sites' `timezone_lag_hours` are relative to it).
    pub const XSEDE_JUNE_2014: PriceAnchor = PriceAnchor {
        year: 2014,
        month: 6,
        day: 1,
        utc_offset_hours: -4,
    };

    /// Unix time (s) of scenario time 0.
    pub fn epoch_unix_s(&self) -> i64 {
        // Days from 1970-01-01 to the civil date (H. Hinnant's days_from_civil).
        let (m, d) = (i64::from(self.month), i64::from(self.day));
        let y = i64::from(self.year) - i64::from(m <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        days * 86_400 - i64::from(self.utc_offset_hours) * HOUR_S
    }

    /// The scenario time of unix instant `unix_s`.
    pub fn scenario_time(&self, unix_s: i64) -> Time {
        Time(unix_s.saturating_sub(self.epoch_unix_s()))
    }
}

/// A validated site; read its fields through [`Site::spec`].
///
/// ```
/// use cosched_core::{Duration, Time};
/// use cosched_metasched::site::SiteSpec;
///
/// let site = SiteSpec {
///     name: "Gordon".into(),
///     cores: 16_160,
///     max_job_cores: 1_024,
///     max_walltime: Duration::from_hours(48),
///     watts_per_core: 25.0,
///     gflops_per_core: 21.1,
///     prices_usd_per_mwh: vec![40.0, 80.0],
///     timezone_lag_hours: -3,
/// }
/// .build()
/// .unwrap();
/// // Scenario hour 0 is 21:00 local time; hour 2 is not published yet.
/// assert_eq!(site.local_hour(0), 21);
/// assert_eq!(site.price_usd_per_mwh(1), Ok(80.0));
/// assert!(site.price_usd_per_mwh(2).is_err());
/// ```
///
/// It serialises as its description, core limit and anchor; deserialising validates the
/// description again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SiteState", into = "SiteState")]
pub struct Site {
    spec: SiteSpec,
    core_limit: CoreLimit,
    anchor: Option<PriceAnchor>,
}

/// The serialised form of [`Site`].
#[derive(Serialize, Deserialize)]
struct SiteState {
    spec: SiteSpec,
    core_limit: CoreLimit,
    anchor: Option<PriceAnchor>,
}

impl From<Site> for SiteState {
    fn from(s: Site) -> SiteState {
        SiteState {
            spec: s.spec,
            core_limit: s.core_limit,
            anchor: s.anchor,
        }
    }
}

impl TryFrom<SiteState> for Site {
    type Error = ParamError;

    fn try_from(s: SiteState) -> Result<Site, ParamError> {
        let site = s.spec.build()?.with_core_limit(s.core_limit);
        Ok(match s.anchor {
            Some(anchor) => site.with_price_anchor(anchor),
            None => site,
        })
    }
}

impl Site {
    /// The validated description.
    pub fn spec(&self) -> &SiteSpec {
        &self.spec
    }

    /// The site's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The day-ahead price of scenario hour `hour`, in $/MWh.
    ///
    /// # Errors
    /// [`PriceBeyondSeries`] for an hour before the series or past its end: no price is ever
    /// made up by wrapping around (append the next day's prices with
    /// [`append_day_ahead`](Self::append_day_ahead), or ask a forecast).
    pub fn price_usd_per_mwh(&self, hour: i64) -> Result<f64, PriceBeyondSeries> {
        usize::try_from(hour)
            .ok()
            .and_then(|h| self.spec.prices_usd_per_mwh.get(h).copied())
            .ok_or_else(|| PriceBeyondSeries {
                site: self.spec.name.clone(),
                hour,
                known_hours: self.spec.prices_usd_per_mwh.len(),
            })
    }

    /// Hours of published prices: scenario hours `0..known_hours()`.
    pub fn known_hours(&self) -> usize {
        self.spec.prices_usd_per_mwh.len()
    }

    /// Appends newly published day-ahead prices ($/MWh) after the last known hour — what a
    /// live metascheduler does each day when the market clears.
    ///
    /// # Errors
    /// [`ParamError`] if a price is not finite or beyond ±[`MAX_PRICE_USD_PER_MWH`]; nothing
    /// is appended then.
    pub fn append_day_ahead(&mut self, prices: &[f64]) -> Result<(), ParamError> {
        check_prices(prices)?;
        self.spec.prices_usd_per_mwh.extend_from_slice(prices);
        Ok(())
    }

    /// The electricity cost in $ of drawing `power_watts` over `[start, start + duration)` at
    /// this site's day-ahead prices ([`energy_cost_usd`]).
    ///
    /// # Errors
    /// [`PriceBeyondSeries`] if the interval leaves the published prices.
    pub fn energy_cost_usd(
        &self,
        power_watts: f64,
        start: Time,
        duration: Duration,
    ) -> Result<f64, PriceBeyondSeries> {
        let mut missing = None;
        let cost = energy_cost_usd(power_watts, start, duration, |h| {
            self.price_usd_per_mwh(h).unwrap_or_else(|e| {
                missing.get_or_insert(e);
                0.0
            })
        });
        missing.map_or(Ok(cost), Err)
    }

    /// The local hour of day (0..24) at scenario hour `hour`.
    pub fn local_hour(&self, hour: i64) -> u32 {
        (hour + i64::from(self.spec.timezone_lag_hours)).rem_euclid(24) as u32
    }

    /// The same site with its requests bounded by `limit` (default: [`CoreLimit::TotalCores`],
    /// the paper's).
    #[must_use]
    pub fn with_core_limit(mut self, limit: CoreLimit) -> Site {
        self.core_limit = limit;
        self
    }

    /// The same site with its price hour 0 anchored on the calendar.
    #[must_use]
    pub fn with_price_anchor(mut self, anchor: PriceAnchor) -> Site {
        self.anchor = Some(anchor);
        self
    }

    /// Where price hour 0 lies on the calendar, if known.
    pub fn price_anchor(&self) -> Option<PriceAnchor> {
        self.anchor
    }

    /// Which core count bounds a request here.
    pub fn core_limit(&self) -> CoreLimit {
        self.core_limit
    }

    /// Whether a job of `cores` cores whose runtime estimate *at this site* is `estimate`
    /// may run here (§3.3.1): `cores` within the [`CoreLimit`] (total cores by default) and
    /// `estimate <= max_walltime`.
    pub fn accepts(&self, cores: u32, estimate: Duration) -> bool {
        let limit = match self.core_limit {
            CoreLimit::TotalCores => self.spec.cores,
            CoreLimit::MaxRequest => self.spec.max_job_cores,
        };
        cores <= limit && estimate <= self.spec.max_walltime
    }

    /// Power drawn by `cores` busy cores, in watts.
    pub fn power_watts(&self, cores: u32) -> f64 {
        f64::from(cores) * self.spec.watts_per_core
    }
}

/// The electricity cost in $ of drawing `power_watts` over `[start, start + duration)`,
/// integrated hour by hour with `price(hour)` in $/MWh; partial hours count pro rata:
/// `$ = W × h × $/MWh / 10⁶`. A non-positive duration costs nothing.
///
/// ```
/// use cosched_core::{Duration, Time};
/// use cosched_metasched::site::energy_cost_usd;
///
/// // 1 MW from 00:30 to 01:30: half an hour at $10/MWh, half an hour at $30/MWh.
/// let cost = energy_cost_usd(1e6, Time(1800), Duration(3600), |h| [10.0, 30.0][h as usize]);
/// assert!((cost - 20.0).abs() < 1e-9);
/// ```
pub fn energy_cost_usd(
    power_watts: f64,
    start: Time,
    duration: Duration,
    mut price: impl FnMut(i64) -> f64,
) -> f64 {
    let never = |h| Ok::<f64, std::convert::Infallible>(price(h));
    match try_energy_cost_usd(power_watts, start, duration, never) {
        Ok(usd) => usd,
        Err(never) => match never {},
    }
}

/// [`energy_cost_usd`] with prices that may be missing: stops at the first hour whose price
/// is an error and returns it, so a long run past the known prices costs one hour's work, not
/// one per hour of the run.
///
/// # Errors
/// The first error of `price`, in hour order.
pub fn try_energy_cost_usd<E>(
    power_watts: f64,
    start: Time,
    duration: Duration,
    mut price: impl FnMut(i64) -> Result<f64, E>,
) -> Result<f64, E> {
    let end = start.secs().saturating_add(duration.secs().max(0));
    let mut t = start.secs();
    let mut usd_per_watt = 0.0;
    while t < end {
        let hour = t.div_euclid(HOUR_S);
        let next = (hour + 1).saturating_mul(HOUR_S).min(end);
        usd_per_watt += (next - t) as f64 / HOUR_S as f64 * price(hour)?;
        t = next;
    }
    Ok(power_watts * usd_per_watt / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SiteSpec {
        SiteSpec {
            name: "s".into(),
            cores: 4,
            max_job_cores: 4,
            max_walltime: Duration(60),
            watts_per_core: 1.0,
            gflops_per_core: 1.0,
            prices_usd_per_mwh: vec![1.0, 2.0, 3.0],
            timezone_lag_hours: 0,
        }
    }

    #[test]
    fn validation_names_the_field() {
        let cases: [(SiteSpec, &str); 7] = [
            (SiteSpec { cores: 0, ..spec() }, "cores"),
            (
                SiteSpec {
                    max_job_cores: 5,
                    ..spec()
                },
                "max_job_cores",
            ),
            (
                SiteSpec {
                    max_walltime: Duration(0),
                    ..spec()
                },
                "max_walltime",
            ),
            (
                SiteSpec {
                    watts_per_core: -1.0,
                    ..spec()
                },
                "watts_per_core",
            ),
            (
                SiteSpec {
                    gflops_per_core: 0.0,
                    ..spec()
                },
                "gflops_per_core",
            ),
            (
                SiteSpec {
                    prices_usd_per_mwh: vec![f64::NAN],
                    ..spec()
                },
                "prices_usd_per_mwh",
            ),
            (
                SiteSpec {
                    timezone_lag_hours: 24,
                    ..spec()
                },
                "timezone_lag_hours",
            ),
        ];
        for (bad, name) in cases {
            assert_eq!(bad.build().unwrap_err().name, name);
        }
        assert!(
            SiteSpec {
                prices_usd_per_mwh: vec![],
                ..spec()
            }
            .build()
            .is_err()
        );
    }

    #[test]
    fn prices_never_wrap_and_can_be_appended_and_local_hours_wrap() {
        let mut site = SiteSpec {
            timezone_lag_hours: -3,
            ..spec()
        }
        .build()
        .unwrap();
        let known = site.known_hours() as i64;
        assert!(site.price_usd_per_mwh(known).is_err());
        assert!(site.price_usd_per_mwh(-1).is_err());
        assert!(
            site.energy_cost_usd(1e6, Time(0), Duration(3600 * known + 1))
                .is_err()
        );
        site.append_day_ahead(&[7.0]).unwrap();
        assert_eq!(site.price_usd_per_mwh(known), Ok(7.0));
        assert!(site.append_day_ahead(&[f64::NAN]).is_err());
        assert_eq!(site.known_hours() as i64, known + 1);
        assert_eq!(site.local_hour(1), 22);
        assert_eq!(site.local_hour(27), 0);
    }

    #[test]
    fn energy_cost_integrates_partial_hours() {
        // 2 kW for 2.5 h starting at 00:00 over prices 10, 20, 30: (10 + 20 + 15) × 2e3 / 1e6.
        let cost = energy_cost_usd(2000.0, Time(0), Duration(9000), |h| {
            [10.0, 20.0, 30.0][h as usize]
        });
        assert!((cost - 0.09).abs() < 1e-12);
        assert_eq!(energy_cost_usd(1.0, Time(5), Duration(0), |_| 1.0), 0.0);
        // Negative times use the hour they fall in.
        let cost = energy_cost_usd(1e6, Time(-1800), Duration(3600), |h| {
            if h < 0 { 4.0 } else { 2.0 }
        });
        assert!((cost - 3.0).abs() < 1e-12);
    }
}
