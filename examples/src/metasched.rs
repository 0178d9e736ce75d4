//! What the `metasched_*` examples share: the XSEDE scenario (by default the paper's public
//! inputs, vendored in the crate: the site table, the June 2014 day-ahead prices and the
//! 4,100-job grid trace, extended to the paper's 10,000 jobs by jobs generated to §4.3.1's
//! figures; our generators by flag, labelled as ours), one scenario per seed (each seed draws
//! the generated jobs, so runs on a seed are paired replicates), the paper's strategies and
//! predictors, one simulation run with its metrics, and the one-parameter sweeps.
//!
//! The paper measures every one of its 10,000 jobs (§4.3.2 Table 2; §5.3, §5.7.1, §5.8 "10K
//! jobs"); so do the examples by default — the predictors learn from every start, so the
//! first jobs are their training input, not a history left out of the means. `--measured N`
//! measures only the last N (the published code's sample: 100 after 4,000 history jobs run at
//! their submission site).
//!
//! The metascheduler runs as in the paper by default: its predicted waits come from the
//! paper's learned predictor (`ClusteredWaitPredictor`, one per site, trained by every start)
//! and its electricity prices are the published day-ahead prices up to the end of the current
//! day and a seasonal ARIMA forecast beyond. `--waits whatif` asks the sites' EASY state
//! instead (beyond the paper), `--waits zero` predicts none (INST's view), `--price-outlook
//! day-ahead` gives it every hour's true price (perfect foresight).
//!
//! Paper: Murali & Vadhiyar, "Metascheduling of HPC Jobs in Day-Ahead Electricity Markets";
//! the scenario follows its XSEDE experiments (eight systems, June 2014 day-ahead prices, a
//! 10,000-job grid workload). Its defaults are the paper's XSEDE configuration, each a flag:
//! `w_t` 0.25 (§5.7.1 picks it from 20–40 %; §5.8 and the published code's example use 25 %),
//! `MaxQ` 2 (§5.7.3), 60-second cycles triggered as in the published code, compatibility by
//! total cores (§3.3.1), the published predictor's parameters.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, ValueEnum};
use cosched_core::Duration;
use cosched_core::stats::{self, Spread};
use cosched_metasched::metrics::Metrics;
use cosched_metasched::price_forecast::PriceForecastConfig;
use cosched_metasched::sim::{DataSize, SimError, SimOutcome, TransferModel};
use cosched_metasched::site::{CoreLimit, Site};
use cosched_metasched::workload::{
    DiurnalPrices, PAPER_ARRIVALS_PER_SITE_HOUR, PAPER_MEAN_RUNTIME_H, PAPER_TRACE_JOBS,
    PaperExtension, XsedeLikeWorkload, embedded_xsede_sites, paper_grid_trace, paper_prices,
    read_grid_trace, workload_figures,
};
use cosched_metasched::xsede::{XsedeError, load_prices, parse_sites};

pub use cosched_metasched::scenario::{
    DEFAULT_CYCLE_S, DEFAULT_MAX_Q, DEFAULT_W_T, PowerChoice, PriceOutlookModel, RunConfig,
    RunResult, Scenario, Strategy, WaitModel,
};

use crate::{Cell, CommonArgs, LinePlot, OutDir, Seeds, Table};

/// Which core count bounds a job's request at a site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Compat {
    /// The site's total cores (§3.3.1).
    TotalCores,
    /// The site table's `max_req_cores` column.
    MaxRequest,
}

/// The data a migrated job moves (§5.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DataChoice {
    /// No data transfer (the paper's main experiments).
    None,
    /// One of §5.8's twelve sizes (0 B .. 10 TB) per job.
    Paper,
    /// 1 TB per job (Table 8).
    OneTb,
}

/// The scenario flags every `metasched_*` example accepts.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ScenarioArgs {
    /// Grid trace (SWF, field 19 = submission site id 1..N) [default: the paper's 4,100-job
    /// XSEDE trace, vendored].
    #[arg(long, value_name = "FILE", conflicts_with = "generated")]
    pub trace: Option<PathBuf>,
    /// Use our generated Lublin/Tsafrir XSEDE-like workload (ours, at `--load`) instead of the
    /// paper's trace.
    #[arg(long)]
    pub generated: bool,
    /// Extend the paper's trace to N jobs with jobs generated to §4.3.1's stated figures
    /// (ours: 8.8 h mean run time, 3.22 arrivals per site per hour, the sites' sizes): the
    /// paper measures 10,000 jobs (§4.3.2 Table 2, §5.3, §5.8) and its public trace holds
    /// 4,100. N at most the trace's jobs: the trace alone [default: 10,000; quick: 600 after
    /// the trace's first 500, a labelled smaller set; none with --trace].
    #[arg(long, value_name = "N", conflicts_with = "generated")]
    pub extend_to: Option<usize>,
    /// Use our seeded diurnal price model (ours) instead of the paper's June 2014 prices.
    #[arg(long, conflicts_with = "prices")]
    pub diurnal_prices: bool,
    /// Site table (`xsede_sites.csv` columns) [default: the embedded XSEDE table].
    #[arg(long, value_name = "FILE")]
    pub sites: Option<PathBuf>,
    /// Directory of the hourly price files named (by file name) in the site table's
    /// `price_file` column [default: the paper's June 2014 day-ahead prices, vendored].
    #[arg(long, value_name = "DIR")]
    pub prices: Option<PathBuf>,
    /// Measure only the last N jobs (>= 1); the ones before are history, run at their
    /// submission site unmeasured (the published code's sample: 100 after 4,000) [default:
    /// every job measured, as the paper; the predictors learn from every start either way].
    #[arg(long, value_name = "N")]
    pub measured: Option<usize>,
    /// Jobs of the workload: the first N of the paper's trace (before any extension), or N
    /// generated [default: the trace's 4,100 (quick: 500); generated: 10,000 (quick: 600)].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Offered load of the generated workload over the grid's cores.
    #[arg(long, default_value_t = 0.7)]
    pub load: f64,
    /// Scheduling cycle length, seconds: a cycle is due this long after a job enters an empty
    /// holding layer, then every cycle length while jobs wait (the published code: 60).
    #[arg(long, default_value_t = DEFAULT_CYCLE_S)]
    pub cycle_s: i64,
    /// Weight of response time against electricity cost in MCMF, INST and TWOPRICE.
    #[arg(long, default_value_t = DEFAULT_W_T)]
    pub w_t: f64,
    /// Most jobs one site takes per scheduling cycle.
    #[arg(long, default_value_t = DEFAULT_MAX_Q)]
    pub max_q: u32,
    /// Which core count bounds a request at a site.
    #[arg(long, value_enum, default_value_t = Compat::TotalCores)]
    pub compat: Compat,
    /// Data moved by a migrated job (§5.8), overlapped with its queue wait.
    #[arg(long, value_enum, default_value_t = DataChoice::None)]
    pub data: DataChoice,
    /// Latency of a data transfer, seconds (ours: refs. [48, 49] are not in our data).
    #[arg(long, default_value_t = 1)]
    pub transfer_s: i64,
    /// Bandwidth of every grid link, MB/s (ours: 1 Gbit/s GridFTP).
    #[arg(long, default_value_t = 125.0)]
    pub bandwidth_mb_s: f64,
    /// The jobs' power relative to HPL's (Table 8).
    #[arg(long, default_value_t = PowerChoice::Hpl,
          value_parser = PossibleValuesParser::new(PowerChoice::NAMES).try_map(|s| s.parse::<PowerChoice>()))]
    pub power: PowerChoice,
    /// Table 5's perturbation: each predicted wait plus a uniform draw in [−T, T], hours.
    #[arg(long, default_value_t = 0.0)]
    pub wait_perturb_h: f64,
    /// The metascheduler's wait predictions (MCMF and TWOPRICE; INST predicts none).
    #[arg(long, default_value_t = WaitModel::Paper,
          value_parser = PossibleValuesParser::new(WaitModel::NAMES).try_map(|s| s.parse::<WaitModel>()))]
    pub waits: WaitModel,
    /// The metascheduler's knowledge of future prices (MCMF and INST; TWOPRICE has its own).
    #[arg(long, default_value_t = PriceOutlookModel::Forecast,
          value_parser = PossibleValuesParser::new(PriceOutlookModel::NAMES).try_map(|s| s.parse::<PriceOutlookModel>()))]
    pub price_outlook: PriceOutlookModel,
}

/// Jobs the paper measures (§4.3.2 Table 2; §5.3, §5.7.1, §5.8: "10K jobs").
pub const PAPER_JOBS: usize = 10_000;
/// Quick mode's jobs of the paper's trace (its first), before the extension.
pub const QUICK_TRACE_JOBS: usize = 500;
/// Quick mode's set: the trace's first [`QUICK_TRACE_JOBS`] extended to this many.
pub const QUICK_JOBS: usize = 600;

impl ScenarioArgs {
    /// The total the paper's trace is extended to: `--extend-to`, else (without `--trace` or
    /// `--generated`) the paper's 10,000 jobs, [`QUICK_JOBS`] in quick mode.
    pub fn extension(&self, quick: bool) -> Option<usize> {
        match self.extend_to {
            Some(total) => Some(total),
            None if self.trace.is_some() || self.generated => None,
            None if quick => Some(QUICK_JOBS),
            None => Some(PAPER_JOBS),
        }
    }

    /// Whether the seed draws jobs (a generated workload or extension), so that each seed is
    /// a different workload and replicates are paired by it.
    pub fn draws_jobs(&self, quick: bool) -> bool {
        self.generated
            || self
                .extension(quick)
                .is_some_and(|total| total > self.trace_jobs(quick))
    }

    /// The jobs of the paper's trace in use (its first `--jobs`, at most 4,100); those of
    /// `--trace` are not known before it is read (0: any extension draws).
    fn trace_jobs(&self, quick: bool) -> usize {
        match (&self.trace, self.jobs) {
            (Some(_), _) => 0,
            (None, Some(n)) => n.min(PAPER_TRACE_JOBS),
            (None, None) if quick => QUICK_TRACE_JOBS,
            (None, None) => PAPER_TRACE_JOBS,
        }
    }

    /// One scenario per seed of `seeds` ([`ScenarioArgs::scenario`]): each seed draws its
    /// own generated jobs, if any.
    ///
    /// # Errors
    /// As [`ScenarioArgs::scenario`].
    pub fn scenarios(&self, quick: bool, seeds: &Seeds) -> Result<SeedScenarios, Box<dyn Error>> {
        SeedScenarios::build(seeds, |s| self.scenario(quick, s))
    }

    /// Builds the scenario: real files where given, generated stand-ins (seeded) elsewhere.
    ///
    /// # Errors
    /// A file that cannot be read or parsed, or invalid generator parameters.
    pub fn scenario(&self, quick: bool, seed: u64) -> Result<Scenario, Box<dyn Error>> {
        if self.measured == Some(0) {
            return Err("--measured must be >= 1: a table of no measured jobs has no means".into());
        }
        if !(self.w_t.is_finite() && (0.0..=1.0).contains(&self.w_t)) {
            return Err(format!("--w-t {} must be in [0, 1]", self.w_t).into());
        }
        if !(self.wait_perturb_h.is_finite() && (0.0..=1e6).contains(&self.wait_perturb_h)) {
            return Err(format!(
                "--wait-perturb-h {} must be in [0, 1e6]",
                self.wait_perturb_h
            )
            .into());
        }
        let diurnal = DiurnalPrices::month(seed);
        let prices_dir = self.prices.clone();
        let prices = |file: &str| -> Result<Vec<f64>, XsedeError> {
            match &prices_dir {
                Some(dir) => {
                    let name = Path::new(file).file_name().unwrap_or(file.as_ref());
                    load_prices(&dir.join(name))
                }
                None if self.diurnal_prices => Ok(diurnal.series(file)?),
                None => paper_prices(file),
            }
        };
        let sites = match &self.sites {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                parse_sites(path, &text, prices)?
            }
            None => embedded_xsede_sites(prices)?,
        };
        let limit = match self.compat {
            Compat::TotalCores => CoreLimit::TotalCores,
            Compat::MaxRequest => CoreLimit::MaxRequest,
        };
        let sites: Vec<Site> = sites
            .into_iter()
            .map(|s| s.with_core_limit(limit))
            .collect();
        let jobs = match &self.trace {
            Some(path) => read_grid_trace(path, sites.len())?,
            None if self.generated => XsedeLikeWorkload {
                jobs: self
                    .jobs
                    .unwrap_or(if quick { QUICK_JOBS } else { PAPER_JOBS }),
                load: self.load,
                seed,
            }
            .generate(&sites)?,
            None => {
                let mut jobs = paper_grid_trace(sites.len())?;
                jobs.truncate(self.trace_jobs(quick));
                jobs
            }
        };
        let public = jobs.len();
        let jobs = match self.extension(quick) {
            Some(total) => PaperExtension { total, seed }.extend(&sites, &jobs)?,
            None => jobs,
        };
        let extension = if jobs.len() > public {
            let (mean_h, rate) = workload_figures(&jobs[public..], sites.len());
            format!(
                " Extended to {} jobs by {} generated after it (ours, §4.3.1's figures: mean run \
                 time {mean_h:.2} h, paper {PAPER_MEAN_RUNTIME_H}; {rate:.2} arrivals per site per \
                 hour, paper {PAPER_ARRIVALS_PER_SITE_HOUR}; seed {seed}){}",
                jobs.len(),
                jobs.len() - public,
                if quick && self.extend_to.is_none() {
                    ": quick mode's smaller set, not the paper's 10,000"
                } else {
                    ""
                }
            )
        } else {
            String::new()
        };
        let history = self
            .measured
            .map_or(0, |measured| jobs.len().saturating_sub(measured));
        // Out-of-range values are left for the simulator's parameter checks to report.
        let data = match self.data {
            DataChoice::None => None,
            DataChoice::Paper => Some(DataSize::PaperMix),
            DataChoice::OneTb => Some(DataSize::Fixed {
                bytes: 1_000_000_000_000,
            }),
        };
        let transfer = data.map(|data| TransferModel {
            latency: Duration(self.transfer_s),
            bandwidth_bytes_per_s: self.bandwidth_mb_s * 1e6,
            data,
        });
        let sites_from = match &self.sites {
            Some(p) => p.display().to_string(),
            None => "embedded XSEDE table".into(),
        };
        let prices_from = match &self.prices {
            Some(p) => format!("files in {}", p.display()),
            None if self.diurnal_prices => format!("ours: seeded diurnal model (seed {seed})"),
            None => "the paper's June 2014 day-ahead prices (vendored)".into(),
        };
        let jobs_from = match &self.trace {
            Some(p) => p.display().to_string(),
            None if self.generated => format!(
                "ours: generated Lublin/Tsafrir XSEDE-like workload, offered load {}, seed {seed}",
                self.load
            ),
            None => format!(
                "the paper's XSEDE grid trace (vendored), its first {public} of 4,100 jobs.{extension}"
            ),
        };
        let transfer_text = match (self.data, transfer) {
            (DataChoice::None, _) | (_, None) => "none".to_owned(),
            (choice, Some(t)) => format!(
                "{choice:?} data, {} s + size / {} MB/s, overlapped with queueing (Eq. 10)",
                t.latency.secs(),
                self.bandwidth_mb_s
            ),
        };
        let description = format!(
            "Sites: {sites_from} (compatibility by {:?}). Prices: {prices_from}. Jobs: \
             {jobs_from}. Cycle length {} s (due one cycle after a job enters an empty holding \
             layer). Transfer of migrated jobs: {transfer_text}. Power: {}.",
            self.compat,
            self.cycle_s,
            self.power.label(),
        );
        let defaults = RunConfig {
            w_t: self.w_t,
            max_q: self.max_q,
            waits: self.waits,
            price_outlook: self.price_outlook,
            power: self.power,
            wait_perturbation: (self.wait_perturb_h > 0.0)
                .then(|| Duration((self.wait_perturb_h * 3600.0).round() as i64)),
            ..RunConfig::new(Strategy::Mcmf, seed)
        };
        Ok(Scenario {
            sites,
            jobs,
            history,
            cycle: Duration(self.cycle_s),
            transfer,
            forecast: PriceForecastConfig::default(),
            defaults,
            description,
        })
    }
}

/// Minutes in `seconds`.
pub fn minutes(seconds: f64) -> f64 {
    seconds / 60.0
}

/// Mean figures of one configuration over its runs (seeds), with the spread of the two
/// headline figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Averaged {
    /// Mean response time, seconds.
    pub response_s: f64,
    /// Total electricity cost, $.
    pub cost_usd: f64,
    /// Electricity cost per completed job, $.
    pub cost_per_job_usd: f64,
    /// Mean bounded slowdown.
    pub bounded_slowdown: f64,
    /// Fraction of the completed measured jobs that ran away from their submission site.
    pub migrated: f64,
    /// Mean time in the holding layer, seconds.
    pub holding_s: f64,
    /// Mean wait-prediction PPE, percent (runs that have one).
    pub ppe_percent: Option<f64>,
    /// Measured jobs rejected (mean over runs).
    pub rejected: f64,
    /// Spread of the mean response time over the runs, seconds.
    pub response_spread: Option<Spread>,
    /// Spread of the cost per job over the runs, $.
    pub cost_per_job_spread: Option<Spread>,
}

impl Averaged {
    /// The mean over `runs` (zeros for none).
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a Metrics>) -> Averaged {
        let runs: Vec<&Metrics> = runs.into_iter().collect();
        let pick = |f: &dyn Fn(&Metrics) -> f64| runs.iter().map(|m| f(m)).collect::<Vec<f64>>();
        let mean = |f: &dyn Fn(&Metrics) -> f64| stats::mean(&pick(f)).unwrap_or(0.0);
        let ppe: Vec<f64> = runs.iter().filter_map(|m| m.mean_ppe_percent).collect();
        Averaged {
            response_s: mean(&|m| m.mean_response_s),
            cost_usd: mean(&|m| m.total_cost_usd),
            cost_per_job_usd: mean(&|m| m.cost_per_job_usd),
            bounded_slowdown: mean(&|m| m.mean_bounded_slowdown),
            migrated: mean(&|m| m.migrated as f64 / m.completed.max(1) as f64),
            holding_s: mean(&|m| m.mean_holding_s),
            ppe_percent: stats::mean(&ppe),
            rejected: mean(&|m| m.rejected as f64),
            response_spread: Spread::of(&pick(&|m| m.mean_response_s)),
            cost_per_job_spread: Spread::of(&pick(&|m| m.cost_per_job_usd)),
        }
    }
}

/// `mean ± sd` of a spread (`mean` alone for one run), scaled by `scale`.
pub fn spread_text(spread: Option<Spread>, scale: f64, decimals: usize) -> String {
    match spread {
        Some(Spread {
            mean,
            sd: Some(sd),
            n,
            ..
        }) => {
            format!(
                "{:.decimals$} ± {:.decimals$} (n={n})",
                mean * scale,
                sd * scale
            )
        }
        Some(s) => format!("{:.decimals$}", s.mean * scale),
        None => "n/a".into(),
    }
}

/// One scenario per seed, in seed order ([`ScenarioArgs::scenarios`]): each seed draws its own
/// generated jobs, so runs on the same seed are paired replicates.
#[derive(Clone, Debug)]
pub struct SeedScenarios {
    seeds: Seeds,
    scenarios: Vec<Scenario>,
}

impl SeedScenarios {
    /// The scenario `build(seed)` of every seed of `seeds`.
    ///
    /// # Errors
    /// The first error of `build`.
    pub fn build<E>(
        seeds: &Seeds,
        build: impl FnMut(u64) -> Result<Scenario, E>,
    ) -> Result<SeedScenarios, E> {
        Ok(SeedScenarios {
            seeds: *seeds,
            scenarios: seeds.iter().map(build).collect::<Result<_, E>>()?,
        })
    }

    /// The seeds.
    pub fn seeds(&self) -> &Seeds {
        &self.seeds
    }

    /// The first seed's scenario (the one per-site tables and plots show).
    ///
    /// # Errors
    /// None were built.
    pub fn first(&self) -> Result<&Scenario, SimError> {
        self.scenarios.first().ok_or_else(|| {
            SimError::Param(cosched_core::ParamError::new("seeds", 0, "need a scenario"))
        })
    }

    /// The scenario of `seed`.
    ///
    /// # Errors
    /// No scenario was built for `seed`.
    pub fn get(&self, seed: u64) -> Result<&Scenario, SimError> {
        self.seeds
            .iter()
            .position(|s| s == seed)
            .and_then(|k| self.scenarios.get(k))
            .ok_or_else(|| {
                SimError::Param(cosched_core::ParamError::new(
                    "seed",
                    seed,
                    "has no scenario",
                ))
            })
    }

    /// `(seed, scenario)` in seed order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Scenario)> {
        self.seeds.iter().zip(&self.scenarios)
    }

    /// Every seed's scenario changed by `f`.
    #[must_use]
    pub fn map(&self, f: impl Fn(&Scenario) -> Scenario) -> SeedScenarios {
        SeedScenarios {
            seeds: self.seeds,
            scenarios: self.scenarios.iter().map(f).collect(),
        }
    }

    /// Runs every config of `configs` on every seed's scenario (the config's seed replaced by
    /// the scenario's), through the examples' one multi-seed runner labelled `name`: per
    /// config, its runs in seed order (paired replicates).
    ///
    /// # Errors
    /// The first failed simulation.
    pub fn run_all(
        &self,
        name: &str,
        configs: Vec<RunConfig>,
    ) -> Result<Vec<(RunConfig, crate::Replicates<RunResult>)>, SimError> {
        crate::Sweep::new(name, configs).run_replicated(&self.seeds, |config, seed| {
            self.get(seed)?.run(&RunConfig { seed, ..*config })
        })
    }
}

/// A one-parameter sweep's results: the BS baseline and, per x value, the mean over seeds,
/// with every run's metrics in seed order for paired comparisons.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepResult {
    /// The BS baseline's means.
    pub baseline: Averaged,
    /// Per x value in input order, the means.
    pub points: Vec<(f64, Averaged)>,
    /// The BS baseline's runs, in seed order.
    pub baseline_runs: Vec<Metrics>,
    /// Per x value in input order, its runs in seed order.
    pub runs: Vec<Vec<Metrics>>,
}

impl SweepResult {
    /// The runs of point `x`, in seed order.
    pub fn runs_at(&self, x: f64) -> Option<&[Metrics]> {
        self.points
            .iter()
            .position(|(p, _)| *p == x)
            .and_then(|k| self.runs.get(k))
            .map(Vec::as_slice)
    }
}

/// Runs every `(x, config)` point and BS once per seed of `scenarios`, each on its seed's
/// scenario, labelled `name`.
///
/// # Errors
/// The first failed simulation.
pub fn sweep(
    scenarios: &SeedScenarios,
    name: &str,
    points: &[(f64, RunConfig)],
) -> Result<SweepResult, SimError> {
    let bs = scenarios
        .first()?
        .config(Strategy::Bs, scenarios.seeds().first());
    let configs: Vec<RunConfig> = std::iter::once(bs)
        .chain(points.iter().map(|(_, config)| *config))
        .collect();
    let mut runs = scenarios
        .run_all(name, configs)?
        .into_iter()
        .map(|(_, reps)| {
            reps.runs()
                .iter()
                .map(|r| r.metrics.clone())
                .collect::<Vec<_>>()
        });
    let baseline_runs = runs.next().unwrap_or_default();
    let runs: Vec<Vec<Metrics>> = runs.collect();
    Ok(SweepResult {
        baseline: Averaged::of(&baseline_runs),
        points: points
            .iter()
            .map(|(x, _)| *x)
            .zip(runs.iter().map(Averaged::of))
            .collect(),
        baseline_runs,
        runs,
    })
}

/// The command line of the sweep examples.
#[derive(Debug, Clone, PartialEq, Parser)]
pub struct SweepCli {
    /// Output, quick mode and seed.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The scenario.
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Seeds (paired replicates) per point when the runs draw at random (generated jobs,
    /// participation below 1, perturbed waits, power or data models), 1..=1000 [default: the
    /// example's, 3 or 5 (five where the paper averages five runs, §5.6, §5.7.2), named in its
    /// table's notes; quick: 2].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub seeds: Option<u64>,
}

impl SweepCli {
    /// The seeds per point: one when nothing is drawn at random, else `--seeds`, 2 in quick
    /// mode, `full` otherwise.
    pub fn seeds_for(&self, randomised: bool, full: u64) -> u64 {
        match (randomised, self.seeds) {
            (false, _) => 1,
            (true, Some(n)) => n.max(1),
            (true, None) if self.common.quick => 2,
            (true, None) => full.max(1),
        }
    }

    /// One scenario per seed: `seeds_for(anything drawn, full)` seeds from `--seed`, where
    /// `draws` says whether the runs draw at random beyond the jobs.
    ///
    /// # Errors
    /// As [`ScenarioArgs::scenario`], or an invalid seed count.
    pub fn scenarios(&self, draws: bool, full: u64) -> Result<SeedScenarios, Box<dyn Error>> {
        let quick = self.common.quick;
        let n = self.seeds_for(draws || self.scenario.draws_jobs(quick), full);
        self.scenario
            .scenarios(quick, &Seeds::new(self.common.seed, n)?)
    }
}

/// Whether a run draws anything at random beyond the jobs.
pub fn randomised(config: &RunConfig, scenario: &Scenario) -> bool {
    config.participation < 1.0
        || config.wait_perturbation.is_some()
        || config.power != PowerChoice::Hpl
        || scenario
            .transfer
            .is_some_and(|t| matches!(t.data, DataSize::PaperMix))
}

/// A one-parameter sweep of MCMF against BS: the whole body of a sweep example.
#[derive(Clone, Debug)]
pub struct SweepExample<'a> {
    /// Example name: output folder, table, plot and progress label.
    pub name: &'a str,
    /// Table and plot title.
    pub title: &'a str,
    /// Where the paper shows it, for the notes.
    pub paper: &'a str,
    /// The swept parameter's name.
    pub x_label: &'a str,
    /// Decimals of the x column.
    pub x_decimals: usize,
    /// The x values of a full run.
    pub full: &'a [f64],
    /// The x values of a quick run.
    pub quick: &'a [f64],
    /// Seeds per point of a full run when the runs draw at random.
    pub full_seeds: u64,
    /// The MCMF configuration at `x`, from the defaults.
    pub configure: fn(f64, RunConfig) -> RunConfig,
}

/// What a sweep example produced, for the claims its `main` checks.
pub struct SweepRun {
    /// The results.
    pub result: SweepResult,
    /// The output folder.
    pub out: OutDir,
    /// The scenarios, one per seed.
    pub scenarios: SeedScenarios,
}

impl SweepExample<'_> {
    /// The sweep's points on `scenario`'s defaults.
    fn points(&self, quick: bool, scenario: &Scenario, seed: u64) -> Vec<(f64, RunConfig)> {
        let xs = if quick { self.quick } else { self.full };
        xs.iter()
            .map(|&x| {
                (
                    x,
                    (self.configure)(x, scenario.config(Strategy::Mcmf, seed)),
                )
            })
            .collect()
    }

    /// Whether a point of the sweep draws at random beyond the jobs.
    pub fn draws(&self, cli: &SweepCli, scenario: &Scenario) -> bool {
        self.points(cli.common.quick, scenario, cli.common.seed)
            .iter()
            .any(|(_, c)| randomised(c, scenario))
    }

    /// Runs the sweep for `cli`, writes the table (x, response, cost, both relative to BS,
    /// cost per job, bounded slowdown, share of migrated jobs, holding time; BS first) and a
    /// plot of response and cost relative to BS against x.
    ///
    /// # Errors
    /// Reading the scenario, a failed simulation, or writing the outputs.
    pub fn run(&self, cli: &SweepCli) -> Result<SweepRun, Box<dyn Error>> {
        let mut out = cli.common.output(self.name)?;
        let one = cli.scenario.scenario(cli.common.quick, cli.common.seed)?;
        let scenarios = cli.scenarios(self.draws(cli, &one), self.full_seeds)?;
        let result = self.run_into(cli, &scenarios, &mut out)?;
        Ok(SweepRun {
            result,
            out,
            scenarios,
        })
    }

    /// The sweep on `scenarios` (one per seed), its table and plot written into `out`
    /// (several sweeps can share one output folder).
    ///
    /// # Errors
    /// A failed simulation, or writing the outputs.
    pub fn run_into(
        &self,
        cli: &SweepCli,
        scenarios: &SeedScenarios,
        out: &mut OutDir,
    ) -> Result<SweepResult, Box<dyn Error>> {
        let seed = cli.common.seed;
        let scenario = scenarios.first()?;
        let points = self.points(cli.common.quick, scenario, seed);
        let result = sweep(scenarios, self.name, &points)?;
        let defaults = scenario.config(Strategy::Mcmf, seed);
        let notes = format!(
            "Paper: {}. {} Unless swept: w_t {}, MaxQ {}, full participation; MCMF predicts \
             with {}; each point averaged over {} (paired: one scenario per seed; spread: mean \
             ± sample sd).",
            self.paper,
            scenario.summary(),
            defaults.w_t,
            defaults.max_q,
            defaults.predictors(),
            scenarios.seeds(),
        );
        let base = result.baseline;
        let mut table = Table::new(
            self.name,
            self.title,
            [
                self.x_label,
                "response (min)",
                "response / BS",
                "cost ($)",
                "cost / BS",
                "$/job",
                "response spread (min)",
                "bounded slowdown",
                "migrated",
                "holding (min)",
                "rejected",
            ],
        )
        .with_notes(notes);
        let row = |x: Cell, a: &Averaged| {
            [
                x,
                Cell::fixed(minutes(a.response_s), 1),
                Cell::fixed(a.response_s / base.response_s, 3),
                Cell::fixed(a.cost_usd, 2),
                Cell::fixed(a.cost_usd / base.cost_usd, 3),
                Cell::fixed(a.cost_per_job_usd, 3),
                Cell::Text(spread_text(a.response_spread, 1.0 / 60.0, 1)),
                Cell::fixed(a.bounded_slowdown, 2),
                Cell::fixed(a.migrated, 2),
                Cell::fixed(minutes(a.holding_s), 2),
                Cell::fixed(a.rejected, 1),
            ]
        };
        table.row(row(Cell::from("BS"), &base));
        for (x, a) in &result.points {
            table.row(row(Cell::fixed(*x, self.x_decimals), a));
        }
        out.write_table(&table)?;
        let relative = |pick: fn(&Averaged) -> f64| {
            let b = pick(&base);
            result.points.iter().map(move |(x, a)| (*x, pick(a) / b))
        };
        let plot = LinePlot::new(self.name, self.title)
            .x_label(self.x_label)
            .y_label("relative to BS")
            .series("response / BS", relative(|a| a.response_s))
            .series("cost / BS", relative(|a| a.cost_usd));
        out.write_plot(&plot)?;
        Ok(result)
    }
}

/// The bounded slowdown under which we call a baseline's sites idle (ours: 1 means no job
/// waited; 1.5 means the average job waited half its run time or 10 s, whichever is larger).
pub const BARELY_QUEUES_SLOWDOWN: f64 = 1.5;

/// A failure reason about queueing, computed from the baseline's measured bounded slowdown:
/// `consequence` (what idle sites imply for the claim) is given only when the number bears it
/// out; otherwise the reason says that queueing does not explain the result.
pub fn queueing_reason(baseline_slowdown: f64, consequence: &str) -> String {
    if baseline_slowdown < BARELY_QUEUES_SLOWDOWN {
        format!(
            "BS's bounded slowdown is {baseline_slowdown:.2} on this set (< {BARELY_QUEUES_SLOWDOWN}: \
             its sites barely queue), so {consequence}"
        )
    } else {
        format!(
            "BS's bounded slowdown is {baseline_slowdown:.2} on this set (>= {BARELY_QUEUES_SLOWDOWN}: \
             its sites do queue), so idle sites do not explain this; the cause is not identified"
        )
    }
}

/// Where strategy A's mean response time differs from strategy B's over paired runs of the
/// same jobs (`a[i]` and `b[i]` on one seed), computed from the runs: the per-job difference
/// split into holding (submission to dispatch), queue (dispatch to start: the wait at the
/// site, a transfer overlapping it) and run time, and A's queue time by the site where its
/// jobs ran (share of A's jobs, their mean wait, share of A's queue time), the `top` largest
/// first. Means over the jobs that ran in both runs of a pair, averaged over the pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseSplit {
    /// Mean response difference A − B per job, minutes.
    pub response_min: f64,
    /// Its holding part, minutes.
    pub holding_min: f64,
    /// Its queue part, minutes.
    pub queue_min: f64,
    /// Its run-time part, minutes.
    pub run_min: f64,
    /// Per site where A's jobs ran (site order): (share of A's jobs, their mean queue time in
    /// minutes, share of A's total queue time).
    pub sites: Vec<(f64, f64, f64)>,
    /// Pairs the means are over.
    pub pairs: usize,
}

impl ResponseSplit {
    /// The split of `a` against `b` on `sites`; `None` without a pair with common jobs.
    ///
    /// ```
    /// use cosched_examples::metasched::{ResponseSplit, RunResult};
    /// use cosched_metasched::metrics::Metrics;
    /// use cosched_metasched::policy::{Mcmf, PriceModel, SubmissionSite};
    /// use cosched_metasched::sim::{GridSim, SimConfig};
    /// use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
    ///
    /// let prices = |f: &str| Ok(DiurnalPrices::month(1).series(f).unwrap());
    /// let sites = embedded_xsede_sites(prices).unwrap();
    /// let jobs = XsedeLikeWorkload { jobs: 60, load: 0.8, seed: 5 }.generate(&sites).unwrap();
    /// let result = |out| RunResult { metrics: Metrics::of(&out, &sites), outcome: out };
    /// let grid = GridSim::new(sites.clone(), SimConfig::default()).unwrap();
    /// let mut mcmf = Mcmf::new(sites.clone(), 2, 0.25, PriceModel::DayAhead).unwrap();
    /// let a = result(grid.run(&mut mcmf, &jobs).unwrap());
    /// let bs = SimConfig { participation: 0.0, ..SimConfig::default() };
    /// let grid = GridSim::new(sites.clone(), bs).unwrap();
    /// let b = result(grid.run(&mut SubmissionSite::new(sites.clone()), &jobs).unwrap());
    ///
    /// let split = ResponseSplit::of(&[a], &[b], sites.len()).unwrap();
    /// let parts = split.holding_min + split.queue_min + split.run_min;
    /// assert!((split.response_min - parts).abs() < 1e-9 && split.pairs == 1);
    /// let jobs_share: f64 = split.sites.iter().map(|s| s.0).sum();
    /// assert!((jobs_share - 1.0).abs() < 1e-9);
    /// ```
    pub fn of(a: &[RunResult], b: &[RunResult], sites: usize) -> Option<ResponseSplit> {
        let per_pair: Vec<ResponseSplit> = a
            .iter()
            .zip(b)
            .filter_map(|(x, y)| Self::one(&x.outcome, &y.outcome, sites))
            .collect();
        let n = per_pair.len();
        let mean =
            |f: &dyn Fn(&ResponseSplit) -> f64| per_pair.iter().map(f).sum::<f64>() / n as f64;
        (n > 0).then(|| ResponseSplit {
            response_min: mean(&|p| p.response_min),
            holding_min: mean(&|p| p.holding_min),
            queue_min: mean(&|p| p.queue_min),
            run_min: mean(&|p| p.run_min),
            sites: (0..sites)
                .map(|k| {
                    let at = |i: usize| {
                        move |p: &ResponseSplit| p.sites.get(k).map_or(0.0, |s| [s.0, s.1, s.2][i])
                    };
                    (mean(&at(0)), mean(&at(1)), mean(&at(2)))
                })
                .collect(),
            pairs: n,
        })
    }

    fn one(a: &SimOutcome, b: &SimOutcome, sites: usize) -> Option<ResponseSplit> {
        // (holding, queue, run) in minutes and the site of one job's run.
        let parts = |j: &cosched_metasched::sim::JobOutcome| {
            j.run.map(|r| {
                let min = |d: Duration| d.secs() as f64 / 60.0;
                (
                    [
                        min(r.dispatched - j.job.submit),
                        min(r.start - r.dispatched),
                        min(r.end - r.start),
                    ],
                    r.site,
                )
            })
        };
        let both: Vec<_> = a
            .jobs
            .iter()
            .zip(&b.jobs)
            .filter(|(x, y)| x.measured && y.measured && x.job.id == y.job.id)
            .filter_map(|(x, y)| Some((parts(x)?, parts(y)?)))
            .collect();
        let n = both.len() as f64;
        if both.is_empty() {
            return None;
        }
        let diff = |i: usize| both.iter().map(|((x, _), (y, _))| x[i] - y[i]).sum::<f64>() / n;
        let total_queue: f64 = both.iter().map(|((x, _), _)| x[1]).sum();
        let per_site = (0..sites)
            .map(|k| {
                let at: Vec<f64> = both
                    .iter()
                    .filter(|((_, s), _)| *s == k)
                    .map(|((x, _), _)| x[1])
                    .collect();
                let queue: f64 = at.iter().sum();
                (
                    at.len() as f64 / n,
                    stats::mean(&at).unwrap_or(0.0),
                    if total_queue > 0.0 {
                        queue / total_queue
                    } else {
                        0.0
                    },
                )
            })
            .collect();
        let (holding_min, queue_min, run_min) = (diff(0), diff(1), diff(2));
        Some(ResponseSplit {
            response_min: holding_min + queue_min + run_min,
            holding_min,
            queue_min,
            run_min,
            sites: per_site,
            pairs: 1,
        })
    }

    /// E.g. `INST − BS per job: +962 min = queue +1,010, run −55, holding +7; INST's queue time
    /// by site where it ran: Gordon 45 % of jobs, mean wait 2,900 min, 80 % of it; …`.
    pub fn describe(&self, a: &str, b: &str, names: &[&str], top: usize) -> String {
        let mut order: Vec<usize> = (0..self.sites.len()).collect();
        order.sort_by(|&x, &y| self.sites[y].2.total_cmp(&self.sites[x].2));
        let sites = order
            .iter()
            .take(top)
            .filter_map(|&k| {
                let (jobs, wait, queue) = self.sites.get(k)?;
                Some(format!(
                    "{} {:.0} % of jobs, mean wait {:.0} min, {:.0} % of it",
                    names.get(k).copied().unwrap_or("?"),
                    100.0 * jobs,
                    wait,
                    100.0 * queue
                ))
            })
            .collect::<Vec<_>>()
            .join("; ");
        format!(
            "{a} − {b} per job: {:+.0} min = queue {:+.0}, run {:+.0}, holding {:+.0} (mean over \
             {} paired runs); {a}'s queue time by the site where it ran: {sites}",
            self.response_min, self.queue_min, self.run_min, self.holding_min, self.pairs
        )
    }
}

/// Paired comparisons of strategies over the same seeds, under the examples' one rule
/// ([`crate::paired`]), each with the paper's printed precision as its tolerance for runs that
/// do not vary (one seed, or inputs that leave nothing random, such as the paper's trace alone).
pub use crate::paired::{Paired, Significance};

/// `pick` of runs `a` against runs `b`, paired by seed ([`Paired::tolerant`]).
pub fn paired_metric(
    a: &[Metrics],
    b: &[Metrics],
    pick: impl Fn(&Metrics) -> f64,
    tolerance: f64,
) -> Option<Paired> {
    let values = |runs: &[Metrics]| runs.iter().map(&pick).collect::<Vec<f64>>();
    Paired::tolerant(&values(a), &values(b), tolerance)
}

/// The electricity cost of `outcome`'s measured runs as the paper's published simulator prices
/// a run, reimplemented as a diagnostic (not a cost): every hour from the run's start hour to
/// its end hour charged in full at the job's power, plus the run's last partial hour (its
/// duration modulo an hour) at the price of the hour after the end hour *without* the power
/// factor, as if the job drew 1 MW (no such term when that hour is past the published prices).
/// Our alignment of the prices (scenario hour 0 = the series' first hour) is kept. It is the
/// measured explanation of the paper's dollar magnitudes (the review's replay of the public
/// trace: 83 % of BS's cost is that term).
pub fn published_code_cost_usd(outcome: &SimOutcome, sites: &[Site]) -> f64 {
    outcome
        .jobs
        .iter()
        .filter(|j| j.measured)
        .filter_map(|j| {
            let run = j.run?;
            let site = sites.get(run.site)?;
            let prices = &site.spec().prices_usd_per_mwh;
            let (start, end) = (run.start.max(run.data_ready).secs(), run.end.secs());
            let megawatts = site.power_watts(j.job.cores) * j.power_factor / 1e6;
            let (first, last) = (start.div_euclid(3_600), end.div_euclid(3_600));
            let hourly: f64 = (first..=last)
                .filter_map(|h| prices.get(usize::try_from(h).ok()?))
                .map(|p| p * megawatts)
                .sum();
            let after = usize::try_from(last + 1)
                .ok()
                .and_then(|h| prices.get(h))
                .map_or(0.0, |p| {
                    (end - start).rem_euclid(3_600) as f64 / 3_600.0 * p
                });
            Some(hourly + after)
        })
        .fold(0.0, |a, b| a + b)
}
