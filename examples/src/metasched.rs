//! What the `metasched_*` examples share: the XSEDE scenario (the paper's real files by flag,
//! a generated XSEDE-like workload by default), the paper's strategies and predictors, and one
//! simulation run with its metrics.
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
//! trace whose first jobs are history and whose last 100 are measured).

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, ValueEnum};
use cosched_core::Duration;
use cosched_metasched::metrics::Metrics;
use cosched_metasched::policy::{GridPolicy, Mcmf, PriceModel, SubmissionSite};
use cosched_metasched::price_forecast::PriceForecastConfig;
use cosched_metasched::sim::{
    SimConfig, SimError, SimOutcome, TransferModel, WaitSource, simulate,
};
use cosched_metasched::site::Site;
use cosched_metasched::wait::ClusteredWaitConfig;
use cosched_metasched::workload::{
    DiurnalPrices, TraceJob, XsedeLikeWorkload, embedded_xsede_sites, read_grid_trace,
};
use cosched_metasched::xsede::{XsedeError, load_prices, parse_sites};

use crate::{Cell, CommonArgs, LinePlot, OutDir, Table};

/// `w_t` of the MCMF runs unless swept (response time and cost weighed equally; our choice).
pub const DEFAULT_W_T: f64 = 0.5;
/// `MaxQ` of the MCMF runs unless swept (our choice).
pub const DEFAULT_MAX_Q: u32 = 10;

/// Where the metascheduler's predicted waits come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WaitModel {
    /// The paper's predictor: DBSCAN clusters of each site's last 2,000 started jobs, else
    /// ridge regression ([`WaitSource::paper`]).
    Paper,
    /// The site's EASY state: when the job would start if submitted now (beyond the paper).
    Whatif,
    /// No wait anywhere (what INST assumes).
    Zero,
}

impl WaitModel {
    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            WaitModel::Paper => "learned waits",
            WaitModel::Whatif => "what-if waits",
            WaitModel::Zero => "zero waits",
        }
    }
}

/// What the metascheduler knows of future electricity prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PriceOutlookModel {
    /// The paper's: published day-ahead prices to the end of the current day, seasonal ARIMA
    /// forecasts (trained on the previous 3 days) beyond ([`PriceModel::Forecast`]).
    Forecast,
    /// Every hour's true price (perfect foresight, [`PriceModel::DayAhead`]).
    DayAhead,
}

impl PriceOutlookModel {
    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            PriceOutlookModel::Forecast => "forecast prices",
            PriceOutlookModel::DayAhead => "true prices",
        }
    }

    /// The policy's price model over `sites`.
    fn model(self, sites: &[Site]) -> Result<PriceModel, SimError> {
        Ok(match self {
            PriceOutlookModel::Forecast => {
                PriceModel::forecast(sites, PriceForecastConfig::default())?
            }
            PriceOutlookModel::DayAhead => PriceModel::DayAhead,
        })
    }
}

/// The scenario flags every `metasched_*` example accepts.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ScenarioArgs {
    /// Grid trace (SWF, field 19 = submission site id 1..N) [default: a generated XSEDE-like
    /// workload].
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Site table (`xsede_sites.csv` columns) [default: the embedded XSEDE table].
    #[arg(long, value_name = "FILE")]
    pub sites: Option<PathBuf>,
    /// Directory of the hourly price files named (by file name) in the site table's
    /// `price_file` column [default: a seeded diurnal price model].
    #[arg(long, value_name = "DIR")]
    pub prices: Option<PathBuf>,
    /// Jobs measured at the end of the trace; the ones before are history [default: 100, as
    /// the paper].
    #[arg(long, default_value_t = 100)]
    pub measured: usize,
    /// Jobs of the generated workload [default: 4,100 as the paper's trace; quick: 600].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Offered load of the generated workload over the grid's cores.
    #[arg(long, default_value_t = 0.7)]
    pub load: f64,
    /// Minutes between scheduling cycles.
    #[arg(long, default_value_t = 5)]
    pub cycle_min: i64,
    /// Data-transfer latency of a job sent away from its submission site, seconds [default:
    /// no transfer time].
    #[arg(long, default_value_t = 0)]
    pub transfer_s: i64,
    /// Extra data-transfer seconds per requested core of a migrated job.
    #[arg(long, default_value_t = 0.0)]
    pub transfer_per_core_s: f64,
    /// The metascheduler's wait predictions (MCMF and TWOPRICE; INST predicts none).
    #[arg(long, value_enum, default_value_t = WaitModel::Paper)]
    pub waits: WaitModel,
    /// The metascheduler's knowledge of future prices (MCMF and INST; TWOPRICE has its own).
    #[arg(long, value_enum, default_value_t = PriceOutlookModel::Forecast)]
    pub price_outlook: PriceOutlookModel,
}

/// Sites, jobs and the history/measured split.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The grid's sites.
    pub sites: Vec<Site>,
    /// The trace.
    pub jobs: Vec<TraceJob>,
    /// Leading history jobs (run at their submission site, unmeasured).
    pub history: usize,
    /// Time between scheduling cycles.
    pub cycle: Duration,
    /// Transfer time of migrated jobs, if any.
    pub transfer: Option<TransferModel>,
    /// The metascheduler's wait predictions unless a run says otherwise.
    pub waits: WaitModel,
    /// The metascheduler's price knowledge unless a run says otherwise.
    pub price_outlook: PriceOutlookModel,
    /// Where sites, prices and jobs come from and the cycle and transfer settings.
    pub description: String,
}

impl Scenario {
    /// The description with the history/measured split, for the tables' notes.
    pub fn summary(&self) -> String {
        if self.history == 0 {
            return format!("{} Every job measured (no history).", self.description);
        }
        format!(
            "{} History: the first {} jobs; measured: the last {}.",
            self.description,
            self.history,
            self.jobs.len() - self.history
        )
    }

    /// `strategy` with the example defaults ([`RunConfig::new`]) and this scenario's wait and
    /// price choices.
    pub fn config(&self, strategy: Strategy, seed: u64) -> RunConfig {
        RunConfig {
            waits: self.waits,
            price_outlook: self.price_outlook,
            ..RunConfig::new(strategy, seed)
        }
    }

    /// The same scenario with every job measured (no history).
    pub fn measuring_all(&self) -> Scenario {
        Scenario {
            history: 0,
            ..self.clone()
        }
    }
}

impl ScenarioArgs {
    /// Builds the scenario: real files where given, generated stand-ins (seeded) elsewhere.
    ///
    /// # Errors
    /// A file that cannot be read or parsed, or invalid generator parameters.
    pub fn scenario(&self, quick: bool, seed: u64) -> Result<Scenario, Box<dyn Error>> {
        let diurnal = DiurnalPrices::month(seed);
        let prices_dir = self.prices.clone();
        let prices = |file: &str| -> Result<Vec<f64>, XsedeError> {
            match &prices_dir {
                Some(dir) => {
                    let name = Path::new(file).file_name().unwrap_or(file.as_ref());
                    load_prices(&dir.join(name))
                }
                None => Ok(diurnal.series(file).expect("the month model is valid")),
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
        let jobs = match &self.trace {
            Some(path) => read_grid_trace(path, sites.len())?,
            None => XsedeLikeWorkload {
                jobs: self.jobs.unwrap_or(if quick { 600 } else { 4_100 }),
                load: self.load,
                seed,
            }
            .generate(&sites)?,
        };
        let history = jobs.len().saturating_sub(self.measured);
        // Out-of-range values are left for the simulator's parameter checks to report.
        let transfer =
            (self.transfer_s != 0 || self.transfer_per_core_s != 0.0).then_some(TransferModel {
                latency: Duration(self.transfer_s),
                per_core_s: self.transfer_per_core_s,
            });
        let sites_from = match &self.sites {
            Some(p) => p.display().to_string(),
            None => "embedded XSEDE table".into(),
        };
        let prices_from = match &self.prices {
            Some(p) => format!("files in {}", p.display()),
            None => format!("seeded diurnal model (seed {seed})"),
        };
        let jobs_from = match &self.trace {
            Some(p) => p.display().to_string(),
            None => format!(
                "generated Lublin/Tsafrir XSEDE-like workload, offered load {}, seed {seed}",
                self.load
            ),
        };
        let transfer_text = match transfer {
            Some(t) => format!("{} s + {} s per core", t.latency.secs(), t.per_core_s),
            None => "none".into(),
        };
        let description = format!(
            "Sites: {sites_from}. Prices: {prices_from}. Jobs: {jobs_from}. Cycles every {} min. \
             Transfer time of migrated jobs: {transfer_text}.",
            self.cycle_min,
        );
        Ok(Scenario {
            sites,
            jobs,
            history,
            cycle: Duration::from_mins(self.cycle_min),
            transfer,
            waits: self.waits,
            price_outlook: self.price_outlook,
            description,
        })
    }
}

/// The paper's strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Every job at its submission site.
    Bs,
    /// MCMF with zero predicted waits.
    Inst,
    /// MCMF with on-/off-peak prices.
    TwoPrice,
    /// The paper's metascheduler.
    Mcmf,
}

impl Strategy {
    /// All four, in the paper's table order.
    pub const ALL: [Strategy; 4] = [
        Strategy::Bs,
        Strategy::Inst,
        Strategy::TwoPrice,
        Strategy::Mcmf,
    ];

    /// The paper's name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Bs => "BS",
            Strategy::Inst => "INST",
            Strategy::TwoPrice => "TWOPRICE",
            Strategy::Mcmf => "MCMF",
        }
    }
}

/// One simulation's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunConfig {
    /// The strategy.
    pub strategy: Strategy,
    /// `w_t`.
    pub w_t: f64,
    /// `MaxQ`.
    pub max_q: u32,
    /// Fraction of measured jobs through the metascheduler (ignored by BS).
    pub participation: f64,
    /// Predicted waits of MCMF and TWOPRICE, unless perturbed.
    pub waits: WaitModel,
    /// Relative wait-prediction error ([`WaitSource::Perturbed`], applied to the what-if
    /// waits); `None`: the waits of `waits`.
    pub wait_error: Option<f64>,
    /// Price knowledge of MCMF and INST.
    pub price_outlook: PriceOutlookModel,
    /// Seed of participation draws and prediction errors.
    pub seed: u64,
}

impl RunConfig {
    /// `strategy` with the defaults: `w_t` 0.5, `MaxQ` 10, full participation, the paper's
    /// learned waits and forecast prices.
    pub fn new(strategy: Strategy, seed: u64) -> RunConfig {
        RunConfig {
            strategy,
            w_t: DEFAULT_W_T,
            max_q: DEFAULT_MAX_Q,
            participation: 1.0,
            waits: WaitModel::Paper,
            wait_error: None,
            price_outlook: PriceOutlookModel::Forecast,
            seed,
        }
    }

    /// The run's predictors in words, for tables' notes and labels.
    pub fn predictors(&self) -> String {
        let waits = match (self.strategy, self.wait_error) {
            (Strategy::Bs, _) => return "none".into(),
            (Strategy::Inst, _) => "zero waits".to_owned(),
            (_, Some(_)) => "what-if waits x (1 + e u), u uniform in [-1, 1]".to_owned(),
            (_, None) => self.waits.label().to_owned(),
        };
        let prices = match self.strategy {
            Strategy::TwoPrice => "on/off-peak prices",
            _ => self.price_outlook.label(),
        };
        format!("{waits}, {prices}")
    }
}

/// A simulation and its metrics.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Everything the simulator recorded.
    pub outcome: SimOutcome,
    /// The measured jobs' metrics.
    pub metrics: Metrics,
}

impl Scenario {
    /// Simulates `config` on this scenario. MCMF and TWOPRICE predict waits by
    /// `config.waits` (or perturb the what-if waits); INST predicts none. MCMF and INST know
    /// prices by `config.price_outlook`.
    ///
    /// # Errors
    /// Invalid parameters.
    pub fn run(&self, config: &RunConfig) -> Result<RunResult, SimError> {
        let sites = self.sites.clone();
        let policy: Box<dyn GridPolicy> = match config.strategy {
            Strategy::Bs => Box::new(SubmissionSite::new(sites)),
            Strategy::Inst | Strategy::Mcmf => {
                let prices = config.price_outlook.model(&sites)?;
                Box::new(Mcmf::new(sites, config.max_q, config.w_t, prices)?)
            }
            Strategy::TwoPrice => Box::new(Mcmf::two_price(sites, config.max_q, config.w_t)?),
        };
        let mut waits = match (config.strategy, config.wait_error) {
            (Strategy::Inst, _) => WaitSource::Zero,
            (_, Some(error)) => WaitSource::Perturbed { error },
            (_, None) => match config.waits {
                WaitModel::Paper => {
                    WaitSource::paper(self.sites.len(), ClusteredWaitConfig::default())?
                }
                WaitModel::Whatif => WaitSource::WhatIf,
                WaitModel::Zero => WaitSource::Zero,
            },
        };
        let sim = SimConfig {
            cycle_interval: self.cycle,
            participation: if config.strategy == Strategy::Bs {
                0.0
            } else {
                config.participation
            },
            history: self.history,
            transfer: self.transfer,
            seed: config.seed,
        };
        let outcome = simulate(policy.as_ref(), &mut waits, &self.jobs, &sim)?;
        let metrics = Metrics::of(&outcome, &self.sites);
        Ok(RunResult { outcome, metrics })
    }
}

/// Minutes in `seconds`.
pub fn minutes(seconds: f64) -> f64 {
    seconds / 60.0
}

/// Mean figures of one configuration over its runs (seeds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Averaged {
    /// Mean response time, seconds.
    pub response_s: f64,
    /// Total electricity cost, $.
    pub cost_usd: f64,
    /// Mean bounded slowdown.
    pub bounded_slowdown: f64,
    /// Fraction of the completed measured jobs that ran away from their submission site.
    pub migrated: f64,
}

impl Averaged {
    /// The mean over `runs` (at least one).
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a Metrics>) -> Averaged {
        let mut sum = [0.0; 4];
        let mut n = 0.0;
        for m in runs {
            let migrated = m.migrated as f64 / m.completed.max(1) as f64;
            for (s, v) in sum.iter_mut().zip([
                m.mean_response_s,
                m.total_cost_usd,
                m.mean_bounded_slowdown,
                migrated,
            ]) {
                *s += v;
            }
            n += 1.0;
        }
        let [response_s, cost_usd, bounded_slowdown, migrated] = sum.map(|s| s / f64::max(n, 1.0));
        Averaged {
            response_s,
            cost_usd,
            bounded_slowdown,
            migrated,
        }
    }
}

/// A one-parameter sweep's results: the BS baseline and, per x value, the mean over seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepResult {
    /// The BS baseline (it draws nothing at random: one run).
    pub baseline: Averaged,
    /// Per x value in input order.
    pub points: Vec<(f64, Averaged)>,
}

impl Scenario {
    /// Runs every `(x, config)` point once per seed `seed..seed + seeds` (the config's own seed
    /// replaced), and BS once, in one parallel [`Sweep`](crate::Sweep) labelled `name`.
    ///
    /// # Errors
    /// The first failed simulation.
    pub fn sweep(
        &self,
        name: &str,
        points: &[(f64, RunConfig)],
        seed: u64,
        seeds: u64,
    ) -> Result<SweepResult, SimError> {
        let mut runs = vec![(usize::MAX, RunConfig::new(Strategy::Bs, seed))];
        for (i, (_, config)) in points.iter().enumerate() {
            runs.extend((seed..seed + seeds.max(1)).map(|s| (i, RunConfig { seed: s, ..*config })));
        }
        let results = crate::Sweep::new(name, runs).run(|(_, c)| self.run(c).map(|r| r.metrics));
        let mut baseline = None;
        let mut per_point: Vec<Vec<Metrics>> = vec![Vec::new(); points.len()];
        for ((i, _), metrics) in results {
            let metrics = metrics?;
            match per_point.get_mut(i) {
                Some(list) => list.push(metrics),
                None => baseline = Some(metrics),
            }
        }
        Ok(SweepResult {
            baseline: Averaged::of(baseline.as_ref()),
            points: points
                .iter()
                .zip(&per_point)
                .map(|((x, _), runs)| (*x, Averaged::of(runs)))
                .collect(),
        })
    }
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
    /// Seeds averaged per point when the runs draw at random (participation below 1, or
    /// prediction errors) [default: 5, quick: 2].
    #[arg(long)]
    pub seeds: Option<u64>,
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

impl SweepExample<'_> {
    /// Runs the sweep for `cli`, writes the table (x, response, cost, both
    /// relative to BS, bounded slowdown, share of migrated jobs; BS first) and a plot of
    /// response and cost relative to BS against x; returns the results and the output folder
    /// for anything more the example draws.
    ///
    /// # Errors
    /// Reading the scenario, a failed simulation, or writing the outputs.
    pub fn run(&self, cli: &SweepCli) -> Result<(SweepResult, OutDir), Box<dyn Error>> {
        let seed = cli.common.seed;
        let mut out = cli.common.output(self.name)?;
        let scenario = cli.scenario.scenario(cli.common.quick, seed)?;
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
        let randomised = points
            .iter()
            .any(|(_, c)| c.participation < 1.0 || c.wait_error.is_some_and(|e| e > 0.0));
        // Runs that draw nothing at random are the same for every seed: one suffices.
        let seeds = match (randomised, cli.seeds) {
            (false, _) => 1,
            (true, Some(n)) => n.max(1),
            (true, None) if cli.common.quick => 2,
            (true, None) => 5,
        };
        let result = scenario.sweep(self.name, &points, seed, seeds)?;
        let defaults = scenario.config(Strategy::Mcmf, seed);
        let notes = format!(
            "Paper: {} (the brief transcribes no numbers). {} Unless swept: w_t {}, MaxQ {}, \
             full participation; MCMF predicts with {}; each point averaged over {seeds} \
             seed(s) from {seed}.",
            self.paper,
            scenario.summary(),
            defaults.w_t,
            defaults.max_q,
            (self.configure)(xs[0], defaults).predictors(),
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
                "bounded slowdown",
                "migrated",
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
                Cell::fixed(a.bounded_slowdown, 2),
                Cell::fixed(a.migrated, 2),
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
        Ok((result, out))
    }
}
