//! What the `metasched_*` examples share: the XSEDE scenario (by default the paper's public
//! inputs, vendored in the crate: the site table, the June 2014 day-ahead prices and the
//! 4,100-job grid trace; our generators by flag, labelled as ours), the paper's strategies and
//! predictors, and one simulation run with its metrics.
//!
//! The metascheduler runs as in the paper by default: its predicted waits come from the
//! paper's learned predictor (`ClusteredWaitPredictor`, one per site, trained by every start
//! from the history on) and its electricity prices are the published day-ahead prices up to
//! the end of the current day and a seasonal ARIMA forecast beyond. `--waits whatif` asks the
//! sites' EASY state instead (beyond the paper), `--waits zero` predicts none (INST's view),
//! `--price-outlook day-ahead` gives it every hour's true price (perfect foresight).
//!
//! Paper: Murali & Vadhiyar, "Metascheduling of HPC Jobs in Day-Ahead Electricity Markets";
//! the scenario follows its XSEDE experiments (eight systems, June 2014 day-ahead prices, a grid
//! trace whose first jobs are history). Its defaults are the paper's XSEDE configuration, each
//! a flag: `w_t` 0.25 (§5.7.1 picks it from 20–40 %; §5.8 and the published code's example use
//! 25 %), `MaxQ` 2 (§5.7.3), 60-second cycles triggered as in the published code,
//! compatibility by total cores (§3.3.1), the published predictor's parameters.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, ValueEnum};
use cosched_core::Duration;
use cosched_core::stats::{self, Spread};
use cosched_metasched::metrics::Metrics;
use cosched_metasched::price_forecast::PriceForecastConfig;
use cosched_metasched::sim::{DataSize, SimError, TransferModel};
use cosched_metasched::site::{CoreLimit, Site};
use cosched_metasched::workload::{
    DiurnalPrices, PAPER_ARRIVALS_PER_SITE_HOUR, PAPER_MEAN_RUNTIME_H, PaperExtension,
    XsedeLikeWorkload, embedded_xsede_sites, paper_grid_trace, paper_prices, read_grid_trace,
    workload_figures,
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
    /// (ours: 8.8 h mean run time, 3.22 arrivals per site per hour, the sites' sizes), as
    /// §5.3 measures 10,000 jobs [default: none; metasched_table4 outside quick mode: 10,000].
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
    /// Jobs measured at the end of the trace (>= 1); the ones before are history [default:
    /// 100, the published code's sample: history 500 per site].
    #[arg(long, default_value_t = 100)]
    pub measured: usize,
    /// Jobs of the workload: the first N of the paper's trace, or N generated [default: 4,100,
    /// the paper's trace; quick: 600].
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

impl ScenarioArgs {
    /// Builds the scenario: real files where given, generated stand-ins (seeded) elsewhere.
    ///
    /// # Errors
    /// A file that cannot be read or parsed, or invalid generator parameters.
    pub fn scenario(&self, quick: bool, seed: u64) -> Result<Scenario, Box<dyn Error>> {
        if self.measured == 0 {
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
        let count = self.jobs.unwrap_or(if quick { 600 } else { 4_100 });
        let jobs = match &self.trace {
            Some(path) => read_grid_trace(path, sites.len())?,
            None if self.generated => XsedeLikeWorkload {
                jobs: count,
                load: self.load,
                seed,
            }
            .generate(&sites)?,
            None => {
                let mut jobs = paper_grid_trace(sites.len())?;
                jobs.truncate(count);
                jobs
            }
        };
        let public = jobs.len();
        let jobs = match self.extend_to {
            Some(total) => PaperExtension { total, seed }.extend(&sites, &jobs)?,
            None => jobs,
        };
        let extension = if jobs.len() > public {
            let (mean_h, rate) = workload_figures(&jobs[public..], sites.len());
            format!(
                " Extended to {} jobs by {} generated after it (ours, §4.3.1's figures: mean run \
                 time {mean_h:.2} h, paper {PAPER_MEAN_RUNTIME_H}; {rate:.2} arrivals per site per \
                 hour, paper {PAPER_ARRIVALS_PER_SITE_HOUR}; seed {seed})",
                jobs.len(),
                jobs.len() - public
            )
        } else {
            String::new()
        };
        let history = jobs.len().saturating_sub(self.measured);
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

/// A one-parameter sweep's results: the BS baseline and, per x value, the mean over seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepResult {
    /// The BS baseline (it draws nothing at random unless the power model does: one run per
    /// seed).
    pub baseline: Averaged,
    /// Per x value in input order.
    pub points: Vec<(f64, Averaged)>,
}

/// Runs, on `scenario`, every `(x, config)` point once per seed of `seeds` (the config's own
/// seed replaced), and BS once per seed, through the examples' one multi-seed averager
/// ([`Sweep::run_replicated`](crate::Sweep::run_replicated)) labelled `name`.
///
/// # Errors
/// The first failed simulation.
pub fn sweep(
    scenario: &Scenario,
    name: &str,
    points: &[(f64, RunConfig)],
    seeds: &Seeds,
) -> Result<SweepResult, SimError> {
    let bs = scenario.config(Strategy::Bs, seeds.first());
    let configs: Vec<RunConfig> = std::iter::once(bs)
        .chain(points.iter().map(|(_, config)| *config))
        .collect();
    let mut averaged = crate::Sweep::new(name, configs)
        .run_replicated(seeds, |config, seed| {
            scenario
                .run(&RunConfig { seed, ..*config })
                .map(|r| r.metrics)
        })?
        .into_iter()
        .map(|(_, runs)| Averaged::of(runs.runs()));
    let baseline = averaged.next().unwrap_or_else(|| Averaged::of([]));
    Ok(SweepResult {
        baseline,
        points: points.iter().map(|(x, _)| *x).zip(averaged).collect(),
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
    /// Seeds averaged per point when the runs draw at random (participation below 1,
    /// perturbed waits, power or data models), 1..=1000 [default: 5 as §5.7.2, quick: 2].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub seeds: Option<u64>,
}

impl SweepCli {
    /// The seeds per point: one when nothing is drawn at random.
    pub fn seeds_for(&self, randomised: bool) -> u64 {
        match (randomised, self.seeds) {
            (false, _) => 1,
            (true, Some(n)) => n.max(1),
            (true, None) if self.common.quick => 2,
            (true, None) => 5,
        }
    }
}

/// Whether a run draws anything at random.
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
    /// The MCMF configuration at `x`, from the defaults.
    pub configure: fn(f64, RunConfig) -> RunConfig,
}

/// What a sweep example produced, for the claims its `main` checks.
pub struct SweepRun {
    /// The results.
    pub result: SweepResult,
    /// The output folder.
    pub out: OutDir,
    /// The scenario.
    pub scenario: Scenario,
    /// Seeds per point.
    pub seeds: u64,
}

impl SweepExample<'_> {
    /// Runs the sweep for `cli`, writes the table (x, response, cost, both relative to BS,
    /// cost per job, bounded slowdown, share of migrated jobs, holding time; BS first) and a
    /// plot of response and cost relative to BS against x.
    ///
    /// # Errors
    /// Reading the scenario, a failed simulation, or writing the outputs.
    pub fn run(&self, cli: &SweepCli) -> Result<SweepRun, Box<dyn Error>> {
        let mut out = cli.common.output(self.name)?;
        let scenario = cli.scenario.scenario(cli.common.quick, cli.common.seed)?;
        let (result, seeds) = self.run_into(cli, &scenario, &mut out)?;
        Ok(SweepRun {
            result,
            out,
            scenario,
            seeds,
        })
    }

    /// The sweep on `scenario`, its table and plot written into `out` (several sweeps can
    /// share one output folder); returns the results and the seeds per point.
    ///
    /// # Errors
    /// A failed simulation, or writing the outputs.
    pub fn run_into(
        &self,
        cli: &SweepCli,
        scenario: &Scenario,
        out: &mut OutDir,
    ) -> Result<(SweepResult, u64), Box<dyn Error>> {
        let seed = cli.common.seed;
        let xs = if cli.common.quick {
            self.quick
        } else {
            self.full
        };
        let points: Vec<(f64, RunConfig)> = xs
            .iter()
            .map(|&x| {
                (
                    x,
                    (self.configure)(x, scenario.config(Strategy::Mcmf, seed)),
                )
            })
            .collect();
        let seeds = cli.seeds_for(points.iter().any(|(_, c)| randomised(c, scenario)));
        let result = sweep(scenario, self.name, &points, &Seeds::new(seed, seeds)?)?;
        let defaults = scenario.config(Strategy::Mcmf, seed);
        let notes = format!(
            "Paper: {}. {} Unless swept: w_t {}, MaxQ {}, full participation; MCMF predicts \
             with {}; each point averaged over {seeds} seed(s) from {seed} (spread: mean ± \
             sample sd).",
            self.paper,
            scenario.summary(),
            defaults.w_t,
            defaults.max_q,
            defaults.predictors(),
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
        Ok((result, seeds))
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
