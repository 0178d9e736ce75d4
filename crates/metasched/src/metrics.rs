//! The paper's evaluation metrics over a simulation's measured jobs: average response time,
//! total electricity cost, bounded slowdown, per-site utilisation and instantaneous load, and
//! per-site fairness against a baseline run.
//!
//! - **Response time**: end of the run minus submission to the grid (metascheduler delay,
//!   transfer, queue wait and run).
//! - **Electricity cost**: the actual cost of every measured run ([`crate::sim::Run::cost_usd`]):
//!   the job's power (cores × watts per core) integrated hour by hour over its run at the
//!   site's hourly price, W × h × $/MWh / 10⁶. We also report the **energy** of those runs
//!   (W × h / 10⁶, in MWh), so that cost / energy is the mean price paid.
//! - **Bounded slowdown**: `max(1, response / max(run, τ))` with the run time at the site where
//!   the job ran and `τ` = 10 s ([`cosched_core::DEFAULT_SLOWDOWN_TAU`]), by
//!   [`cosched_core::JobRecord::bounded_slowdown`] of [`crate::sim::JobOutcome::record`].
//! - **Utilisation** of a site (§4.6: "the sum of the CPU hours of jobs scheduled at the
//!   system" over "the makespan and total processors"): the core-hours of the measured jobs
//!   the run placed there (history jobs, which no strategy placed, are left out) over its
//!   cores times the measurement window — first measured submission to last measured end.
//!   A job's core-hours are its cores times its computation at that site (from the later of
//!   its start and its data's arrival to its end).
//! - **Price prediction error** per job (§5.3, [`price_errors_percent`]): the electricity
//!   cost the metascheduler predicted over the job's predicted run at the site it chose,
//!   against the same run at the true day-ahead prices.
//! - **Instantaneous load** of a site (§4.6): core-hours of its running and queued jobs over
//!   its cores, hourly ([`crate::sim::LoadSample`]); mean and peak.
//! - **Fairness** of a site (the paper's fairness): the geometric mean, over the measured jobs
//!   submitted there that completed in both runs, of baseline response / metascheduled
//!   response. Above 1: the site's own users gained.

use crate::policy::scale_duration;
use crate::price_forecast::PriceOutlook;
use crate::sim::{JobOutcome, SimOutcome};
use crate::site::{Site, try_energy_cost_usd};
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, Time, stats};
use std::collections::HashMap;
use std::fmt;

/// One site's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteMetrics {
    /// The site's name.
    pub name: String,
    /// Measured jobs submitted here.
    pub submitted: usize,
    /// Measured jobs that ran here.
    pub ran: usize,
    /// Utilisation over the measurement window, in `[0, 1]`.
    pub utilization: f64,
    /// Mean instantaneous load over the cycle ticks.
    pub mean_load: f64,
    /// Peak instantaneous load.
    pub peak_load: f64,
    /// Core-hours the site delivered to measured jobs (Fig. 6): cores × computation time.
    pub core_hours: f64,
}

/// The metrics of one simulation's measured jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// Measured jobs.
    pub jobs: usize,
    /// Measured jobs that ran.
    pub completed: usize,
    /// Measured jobs no site could run (hostile-input #9: counted, never dropped silently).
    pub rejected: usize,
    /// Measured jobs that ran away from their submission site.
    pub migrated: usize,
    /// Mean response time of the completed measured jobs, seconds.
    pub mean_response_s: f64,
    /// Mean time the completed measured jobs spent in the metascheduler's holding layer,
    /// seconds (included in the response time; reported apart as the paper's code does).
    pub mean_holding_s: f64,
    /// Total electricity cost of the measured jobs, $.
    pub total_cost_usd: f64,
    /// Electricity cost per completed measured job, $ (runs of different lengths compare).
    pub cost_per_job_usd: f64,
    /// Mean percentage prediction error of the metascheduled jobs' queue waits at the site
    /// where they ran (Table 5's PPE): `100 · |predicted − actual| / max(actual, 1 h)`; the
    /// one-hour floor is ours (the paper does not define PPE for zero waits; one hour is the
    /// price period, §3.3.1). `None` without metascheduled jobs.
    pub mean_ppe_percent: Option<f64>,
    /// What [`Metrics::mean_ppe_percent`] is made of; `None` without metascheduled jobs.
    pub wait_errors: Option<WaitErrors>,
    /// Total energy of the measured jobs' runs, MWh.
    pub energy_mwh: f64,
    /// Mean bounded slowdown of the completed measured jobs.
    pub mean_bounded_slowdown: f64,
    /// Per site, in site order.
    pub sites: Vec<SiteMetrics>,
}

/// The metascheduled jobs' predicted waits against the waits they had at the site where they
/// ran, in the terms Table 5's PPE is built from: what makes a mean PPE large.
///
/// ```
/// use cosched_metasched::metrics::Metrics;
/// use cosched_metasched::policy::{Mcmf, PriceModel, SubmissionSite};
/// use cosched_metasched::sim::{GridSim, SimConfig};
/// use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
///
/// let prices = |f: &str| Ok(DiurnalPrices::month(1).series(f).unwrap());
/// let sites = embedded_xsede_sites(prices).unwrap();
/// let jobs = XsedeLikeWorkload { jobs: 60, load: 0.8, seed: 4 }.generate(&sites).unwrap();
/// let grid = GridSim::new(sites.clone(), SimConfig::default()).unwrap();
/// let mut mcmf = Mcmf::new(sites.clone(), 2, 0.25, PriceModel::DayAhead).unwrap();
/// let w = Metrics::of(&grid.run(&mut mcmf, &jobs).unwrap(), &sites).wait_errors.unwrap();
/// assert!(w.jobs > 0 && w.mean_abs_error_s >= 0.0);
/// assert!((0.0..=1.0).contains(&w.zero_actual_share));
/// assert!((0.0..=1.0).contains(&w.positive_predicted_share));
///
/// // Submission-site placement predicts nothing: no errors to break down.
/// let bs = GridSim::new(sites.clone(), SimConfig { participation: 0.0, ..SimConfig::default() });
/// let out = bs.unwrap().run(&mut SubmissionSite::new(sites.clone()), &jobs).unwrap();
/// assert!(Metrics::of(&out, &sites).wait_errors.is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaitErrors {
    /// Jobs compared.
    pub jobs: usize,
    /// Mean |predicted − actual| wait, seconds.
    pub mean_abs_error_s: f64,
    /// Mean actual wait, seconds.
    pub mean_actual_s: f64,
    /// Share of the jobs that did not wait.
    pub zero_actual_share: f64,
    /// Share of the jobs predicted to wait.
    pub positive_predicted_share: f64,
    /// Mean of `100 · |predicted − actual| / response time` (the error against the whole
    /// response it shifts; another reading of PPE, for comparison).
    pub ppe_over_response_percent: f64,
}

impl WaitErrors {
    /// Over `(predicted, actual, response)` seconds per job; `None` for no jobs.
    fn of(jobs: &[(f64, f64, f64)]) -> Option<WaitErrors> {
        let n = jobs.len() as f64;
        let mean = |f: &dyn Fn(&(f64, f64, f64)) -> f64| jobs.iter().map(f).fold(0.0, add) / n;
        (!jobs.is_empty()).then(|| WaitErrors {
            jobs: jobs.len(),
            mean_abs_error_s: mean(&|j| (j.0 - j.1).abs()),
            mean_actual_s: mean(&|j| j.1),
            zero_actual_share: mean(&|j| f64::from(u8::from(j.1 <= 0.0))),
            positive_predicted_share: mean(&|j| f64::from(u8::from(j.0 > 0.0))),
            ppe_over_response_percent: mean(&|j| 100.0 * (j.0 - j.1).abs() / j.2.max(1.0)),
        })
    }
}

impl Metrics {
    /// The metrics of `outcome`, whose jobs ran on `sites`.
    ///
    /// ```
    /// use cosched_metasched::metrics::Metrics;
    /// use cosched_metasched::policy::SubmissionSite;
    /// use cosched_metasched::sim::{GridSim, SimConfig};
    /// use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
    ///
    /// let prices = |f: &str| Ok(DiurnalPrices::month(1).series(f).unwrap());
    /// let sites = embedded_xsede_sites(prices).unwrap();
    /// let jobs = XsedeLikeWorkload { jobs: 50, load: 0.6, seed: 2 }.generate(&sites).unwrap();
    /// let bs = SimConfig { participation: 0.0, ..SimConfig::default() };
    /// let mut bs_policy = SubmissionSite::new(sites.clone());
    /// let out = GridSim::new(sites.clone(), bs).unwrap().run(&mut bs_policy, &jobs).unwrap();
    /// let m = Metrics::of(&out, &sites);
    /// assert_eq!((m.jobs, m.completed, m.migrated), (jobs.len(), jobs.len(), 0));
    /// assert!(m.mean_bounded_slowdown >= 1.0 && m.total_cost_usd > 0.0);
    /// ```
    pub fn of(outcome: &SimOutcome, sites: &[Site]) -> Metrics {
        let measured = || outcome.jobs.iter().filter(|j| j.measured);
        let done = || measured().filter_map(|j| j.run.map(|r| (j, r)));
        let completed = done().count();
        let mean = |xs: Vec<f64>| stats::mean(&xs).unwrap_or(0.0);
        let window_start = measured().map(|j| j.job.submit).min().unwrap_or(Time::ZERO);
        let window_end = done().map(|(_, r)| r.end).max().unwrap_or(window_start);
        let window = (window_end - window_start).secs().max(0) as f64;
        let site_metrics = sites
            .iter()
            .enumerate()
            .map(|(k, site)| {
                let core_hours = done()
                    .filter(|(_, r)| r.site == k)
                    .map(|(j, r)| {
                        f64::from(j.job.cores) * (r.end - r.start.max(r.data_ready)).secs() as f64
                    })
                    .fold(0.0, add)
                    / 3_600.0;
                let loads = outcome.load.iter().map(|s| s.load[k]);
                let samples = outcome.load.len().max(1) as f64;
                SiteMetrics {
                    name: site.name().to_owned(),
                    submitted: measured().filter(|j| j.job.submission_site == k).count(),
                    ran: done().filter(|(_, r)| r.site == k).count(),
                    utilization: if window > 0.0 {
                        3_600.0 * core_hours / (f64::from(site.spec().cores) * window)
                    } else {
                        0.0
                    },
                    mean_load: loads.clone().fold(0.0, add) / samples,
                    peak_load: loads.fold(0.0, f64::max),
                    core_hours,
                }
            })
            .collect();
        let total_cost_usd = done().map(|(_, r)| r.cost_usd).fold(0.0, add);
        let predictions: Vec<(f64, f64, f64)> = done()
            .filter_map(|(j, r)| {
                Some((
                    r.predicted_wait?.secs() as f64,
                    j.site_wait()?.secs() as f64,
                    j.response()?.secs() as f64,
                ))
            })
            .collect();
        let ppe: Vec<f64> = predictions
            .iter()
            .map(|(predicted, actual, _)| 100.0 * (predicted - actual).abs() / actual.max(3_600.0))
            .collect();
        Metrics {
            jobs: measured().count(),
            completed,
            rejected: measured().filter(|j| j.run.is_none()).count(),
            mean_holding_s: mean(
                done()
                    .map(|(j, r)| (r.dispatched - j.job.submit).secs() as f64)
                    .collect(),
            ),
            cost_per_job_usd: if completed > 0 {
                total_cost_usd / completed as f64
            } else {
                0.0
            },
            mean_ppe_percent: stats::mean(&ppe),
            wait_errors: WaitErrors::of(&predictions),
            migrated: done()
                .filter(|(j, r)| r.site != j.job.submission_site)
                .count(),
            mean_response_s: mean(
                done()
                    .map(|(j, r)| (r.end - j.job.submit).secs() as f64)
                    .collect(),
            ),
            total_cost_usd,
            energy_mwh: done()
                .map(|(j, r)| {
                    let hours = (r.end - r.start.max(r.data_ready)).secs() as f64 / 3_600.0;
                    sites
                        .get(r.site)
                        .map_or(0.0, |s| s.power_watts(j.job.cores))
                        * j.power_factor
                        * hours
                        / 1e6
                })
                .fold(0.0, add),
            mean_bounded_slowdown: mean(
                done()
                    .filter_map(|(j, _)| j.record().bounded_slowdown(DEFAULT_SLOWDOWN_TAU))
                    .collect(),
            ),
            sites: site_metrics,
        }
    }
}

/// `a + b`, for sums that start at +0.0 (`Iterator::sum` of no `f64` is −0.0, which prints as
/// `-0.000`).
fn add(a: f64, b: f64) -> f64 {
    a + b
}

impl fmt::Display for Metrics {
    /// A plain-text report: the totals, then one line per site.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "jobs {} completed {} rejected {} migrated {}",
            self.jobs, self.completed, self.rejected, self.migrated
        )?;
        writeln!(
            f,
            "mean response {:.1} min, cost ${:.2} for {:.3} MWh, mean bounded slowdown {:.3}",
            self.mean_response_s / 60.0,
            self.total_cost_usd,
            self.energy_mwh,
            self.mean_bounded_slowdown
        )?;
        for s in &self.sites {
            writeln!(
                f,
                "{:<12} submitted {:>4} ran {:>4} utilisation {:.3} load mean {:.3} peak {:.3}",
                s.name, s.submitted, s.ran, s.utilization, s.mean_load, s.peak_load
            )?;
        }
        Ok(())
    }
}

/// Per-site fairness of `ours` against `baseline` (same trace): for each of `sites` sites, the
/// geometric mean over its measured submitted jobs that completed in both runs of baseline
/// response / our response; `None` for a site with no such job.
pub fn fairness(baseline: &SimOutcome, ours: &SimOutcome, sites: usize) -> Vec<Option<f64>> {
    fairness_of(baseline, ours, sites, |_| true)
}

/// [`fairness`] over the measured jobs of `ours` that `keep` selects: Fig. 10's Expt 2 splits
/// a run at participation ½ into its grid submissions (`job.via_metascheduler`) and its local
/// ones.
pub fn fairness_of(
    baseline: &SimOutcome,
    ours: &SimOutcome,
    sites: usize,
    keep: impl Fn(&JobOutcome) -> bool,
) -> Vec<Option<f64>> {
    let base: HashMap<_, _> = baseline
        .jobs
        .iter()
        .filter(|j| j.measured)
        .filter_map(|j| Some((j.job.id, j.response()?)))
        .collect();
    let mut log_sum = vec![(0.0, 0usize); sites];
    for job in ours.jobs.iter().filter(|j| j.measured && keep(j)) {
        let (Some(theirs), Some(mine)) = (base.get(&job.job.id), job.response()) else {
            continue;
        };
        if let Some(slot) = log_sum.get_mut(job.job.submission_site) {
            // Responses include a run of at least a second at some site, or are clamped to it.
            let ratio = theirs.secs().max(1) as f64 / mine.secs().max(1) as f64;
            slot.0 += ratio.ln();
            slot.1 += 1;
        }
    }
    log_sum
        .into_iter()
        .map(|(sum, n)| (n > 0).then(|| (sum / n as f64).exp()))
        .collect()
}

/// §5.3's price prediction error of each measured job the metascheduler placed, in percent:
/// `100 · |predicted − actual| / actual`, where *predicted* is the electricity cost of the job's
/// predicted run at the site it was placed on — from its placement plus the predicted wait,
/// for its estimate scaled to that site (§3.1), at the prices `outlooks[site]` gave at the
/// placement (day-ahead where published, the forecast beyond) — and *actual* the same run at
/// the site's true day-ahead prices. Only the prices differ, so the error is the price
/// prediction's, as §5.3 validates it "by comparing with the actual hourly electricity price
/// data". Jobs without a recorded prediction, or whose predicted run leaves the published
/// prices, are skipped (the second value counts them).
///
/// ```
/// use cosched_metasched::metrics::price_errors_percent;
/// use cosched_metasched::policy::{Mcmf, PriceModel};
/// use cosched_metasched::price_forecast::{PriceForecastConfig, outlooks};
/// use cosched_metasched::sim::{GridSim, SimConfig};
/// use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
///
/// let prices = |f: &str| Ok(DiurnalPrices::month(1).series(f).unwrap());
/// let sites = embedded_xsede_sites(prices).unwrap();
/// let jobs = XsedeLikeWorkload { jobs: 40, load: 0.6, seed: 3 }.generate(&sites).unwrap();
/// let config = PriceForecastConfig::default();
/// let model = PriceModel::forecast(&sites, config).unwrap();
/// let mut mcmf = Mcmf::new(sites.clone(), 2, 0.25, model).unwrap();
/// let grid = GridSim::new(sites.clone(), SimConfig::default()).unwrap();
/// let out = grid.run(&mut mcmf, &jobs).unwrap();
/// let (errors, skipped) = price_errors_percent(&out, &sites, &outlooks(&sites, config).unwrap());
/// assert_eq!(errors.len() + skipped, jobs.len());
/// assert!(errors.iter().all(|e| e.is_finite() && *e >= 0.0));
/// ```
pub fn price_errors_percent(
    outcome: &SimOutcome,
    sites: &[Site],
    outlooks: &[PriceOutlook],
) -> (Vec<f64>, usize) {
    let mut skipped = 0;
    let errors = outcome
        .jobs
        .iter()
        .filter(|j| j.measured && j.via_metascheduler)
        .filter_map(|j| {
            let error = (|| {
                let run = j.run?;
                let wait = run.predicted_wait?;
                let (home, site, outlook) = (
                    sites.get(j.job.submission_site)?,
                    sites.get(run.site)?,
                    outlooks.get(run.site)?,
                );
                let estimate = scale_duration(j.job.estimate, home, site);
                let start = run.dispatched.saturating_add(wait.max(Duration::ZERO));
                let power = site.power_watts(j.job.cores) * j.power_factor;
                let predicted = try_energy_cost_usd(power, start, estimate, |h| {
                    outlook.price_usd_per_mwh(run.dispatched, h).ok_or(())
                })
                .ok()?;
                let actual = site.energy_cost_usd(power, start, estimate).ok()?;
                (actual > 0.0).then(|| 100.0 * (predicted - actual).abs() / actual)
            })();
            if error.is_none() {
                skipped += 1;
            }
            error
        })
        .collect();
    (errors, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::price_forecast::PriceForecastConfig;
    use crate::sim::Run;
    use crate::site::SiteSpec;
    use crate::workload::TraceJob;
    use cosched_core::JobId;

    fn site(name: &str, cores: u32, gflops: f64, prices: Vec<f64>) -> Site {
        SiteSpec {
            name: name.into(),
            cores,
            max_job_cores: cores,
            max_walltime: Duration::from_hours(48),
            watts_per_core: 1.0,
            gflops_per_core: gflops,
            prices_usd_per_mwh: prices,
            timezone_lag_hours: 0,
        }
        .build()
        .unwrap()
    }

    /// A job of `cores` cores submitted at `submit` h to site `home`, run at `site` from
    /// `start` h to `end` h (estimate 8 h at home).
    fn job(
        id: u64,
        measured: bool,
        home: usize,
        site: usize,
        cores: u32,
        hours: [i64; 3],
    ) -> JobOutcome {
        let [submit, start, end] = hours.map(|h| Time(h * 3_600));
        JobOutcome {
            job: TraceJob {
                id: JobId(id),
                submit,
                submission_site: home,
                cores,
                runtime: end - start,
                estimate: Duration::from_hours(8),
            },
            measured,
            via_metascheduler: measured,
            power_factor: 1.0,
            data_bytes: 0,
            run: Some(Run {
                site,
                dispatched: submit,
                site_submit: submit,
                data_ready: submit,
                start,
                end,
                cost_usd: 0.0,
                predicted_wait: None,
            }),
        }
    }

    fn outcome(jobs: Vec<JobOutcome>) -> SimOutcome {
        SimOutcome {
            jobs,
            load: Vec::new(),
            cycles: Vec::new(),
            invalid: 0,
        }
    }

    #[test]
    fn utilisation_counts_the_placed_jobs_only() {
        let sites = [
            site("a", 10, 1.0, vec![1.0; 24]),
            site("b", 20, 1.0, vec![1.0; 24]),
        ];
        let out = outcome(vec![
            // History: 10 cores busy at a from 0 to 2 h, overlapping the window; not counted.
            job(1, false, 0, 0, 10, [0, 0, 2]),
            // Measured: 5 cores x 2 h at a, 20 cores x 2 h at b; window 1 h .. 4 h.
            job(2, true, 0, 0, 5, [1, 1, 3]),
            job(3, true, 1, 1, 20, [1, 2, 4]),
        ]);
        let m = Metrics::of(&out, &sites);
        let util: Vec<f64> = m.sites.iter().map(|s| s.utilization).collect();
        // a: 10 core-h / (10 cores x 3 h); b: 40 core-h / (20 cores x 3 h).
        assert!((util[0] - 1.0 / 3.0).abs() < 1e-12, "{util:?}");
        assert!((util[1] - 2.0 / 3.0).abs() < 1e-12, "{util:?}");
        assert_eq!(
            m.sites.iter().map(|s| s.core_hours).collect::<Vec<_>>(),
            [10.0, 40.0]
        );
        // A job whose data arrives an hour after its start computes one hour only.
        let mut staged = job(2, true, 0, 0, 5, [1, 1, 3]);
        if let Some(r) = staged.run.as_mut() {
            r.data_ready = Time(2 * 3_600);
        }
        let m = Metrics::of(&outcome(vec![staged]), &sites);
        assert_eq!(m.sites[0].core_hours, 5.0);
        assert!((m.sites[0].utilization - 0.25).abs() < 1e-12);
    }

    #[test]
    fn price_errors_compare_the_predicted_run_at_forecast_and_true_prices() {
        // Site b: hours 0..24 at $10 except 22 and 23 at $20; day 2 hour 0 at $30, hour 1
        // at $10. Only day 1 is known on day 1, and three days of training are not there, so
        // day 2 is forecast as day 1 repeated ($10, $10).
        let mut prices = vec![10.0; 48];
        prices[22] = 20.0;
        prices[23] = 20.0;
        prices[24] = 30.0;
        let sites = [
            site("a", 10, 1.0, vec![10.0; 48]),
            site("b", 10, 2.0, prices),
        ];
        let config = PriceForecastConfig::default();
        let outlooks = crate::price_forecast::outlooks(&sites, config).unwrap();
        // Placed at b at 20 h with a predicted wait of 2 h: its 8 h estimate at a is 4 h at
        // b (twice as fast), so it is predicted to run 22 h .. 26 h.
        let mut placed = job(1, true, 0, 1, 1, [20, 21, 24]);
        if let Some(r) = placed.run.as_mut() {
            r.predicted_wait = Some(Duration::from_hours(2));
        }
        // Predicted far past the published prices: skipped.
        let mut far = job(2, true, 0, 1, 1, [20, 21, 24]);
        if let Some(r) = far.run.as_mut() {
            r.predicted_wait = Some(Duration::from_hours(100));
        }
        // A local job (not placed by the metascheduler) is not counted at all.
        let mut local = job(3, true, 0, 0, 1, [20, 20, 22]);
        local.via_metascheduler = false;
        let (errors, skipped) =
            price_errors_percent(&outcome(vec![placed, far, local]), &sites, &outlooks);
        // Predicted 20 + 20 + 10 + 10 = 60 $/MW-h, true 20 + 20 + 30 + 10 = 80.
        assert_eq!(errors.len(), 1);
        assert!((errors[0] - 25.0).abs() < 1e-9, "{errors:?}");
        assert_eq!(skipped, 1);
    }
}
