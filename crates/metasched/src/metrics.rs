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
//! - **Utilisation** of a site: core-seconds of every run there (history included) inside the
//!   measurement window — first measured submission to last measured end — over its cores times
//!   the window.
//! - **Instantaneous load** of a site (§4.6): core-hours of its running and queued jobs over
//!   its cores, hourly ([`crate::sim::LoadSample`]); mean and peak.
//! - **Fairness** of a site (the paper's fairness): the geometric mean, over the measured jobs
//!   submitted there that completed in both runs, of baseline response / metascheduled
//!   response. Above 1: the site's own users gained.

use crate::sim::{JobOutcome, SimOutcome};
use crate::site::Site;
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Time, stats};
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
    /// Core-hours the site delivered to measured jobs (Fig. 6).
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
    /// Total energy of the measured jobs' runs, MWh.
    pub energy_mwh: f64,
    /// Mean bounded slowdown of the completed measured jobs.
    pub mean_bounded_slowdown: f64,
    /// Per site, in site order.
    pub sites: Vec<SiteMetrics>,
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
                let busy: f64 = outcome
                    .jobs
                    .iter()
                    .filter_map(|j| j.run.filter(|r| r.site == k).map(|r| (j, r)))
                    .map(|(j, r)| {
                        let overlap = r.end.min(window_end) - r.start.max(window_start);
                        f64::from(j.job.cores) * overlap.secs().max(0) as f64
                    })
                    .fold(0.0, add);
                let loads = outcome.load.iter().map(|s| s.load[k]);
                let samples = outcome.load.len().max(1) as f64;
                SiteMetrics {
                    name: site.name().to_owned(),
                    submitted: measured().filter(|j| j.job.submission_site == k).count(),
                    ran: done().filter(|(_, r)| r.site == k).count(),
                    utilization: if window > 0.0 {
                        busy / (f64::from(site.spec().cores) * window)
                    } else {
                        0.0
                    },
                    mean_load: loads.clone().fold(0.0, add) / samples,
                    peak_load: loads.fold(0.0, f64::max),
                    core_hours: done()
                        .filter(|(_, r)| r.site == k)
                        .map(|(j, r)| f64::from(j.job.cores) * (r.end - r.start).secs() as f64)
                        .fold(0.0, add)
                        / 3_600.0,
                }
            })
            .collect();
        let total_cost_usd = done().map(|(_, r)| r.cost_usd).fold(0.0, add);
        let ppe: Vec<f64> = done()
            .filter_map(|(j, r)| {
                let predicted = r.predicted_wait?.secs() as f64;
                let actual = j.site_wait()?.secs() as f64;
                Some(100.0 * (predicted - actual).abs() / actual.max(3_600.0))
            })
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
