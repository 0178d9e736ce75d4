//! The paper's experiments as a library scenario: a grid (sites, trace, history split, cycle,
//! transfer model) and the four strategies of §5 — BS, INST, TWOPRICE and MCMF — wired to
//! their policies, wait predictors and price knowledge, so that a reproduction, a study or a
//! test runs one strategy with one call ([`Scenario::run`]) and every caller wires them alike.
//!
//! - **BS**: every job at its submission site ([`SubmissionSite`]).
//! - **INST**: MCMF fed zero waits (§5: "implemented by feeding the waiting times as zeros to
//!   our MCMF strategy").
//! - **TWOPRICE**: MCMF on on-/off-peak prices ([`Mcmf::two_price`]).
//! - **MCMF**: the paper's metascheduler with the paper's learned wait predictor
//!   ([`PredictedWaits::paper`]) and day-ahead prices plus a seasonal ARIMA forecast
//!   ([`PriceModel::forecast`]).
//!
//! [`Scenario::policy`] constructs the built-in policy of a strategy; [`Scenario::run_policy`]
//! runs any policy of the grid protocol (a caller's own included) on the same scenario and
//! measures it with the same metrics.
//!
//! The defaults are the paper's XSEDE configuration ([`RunConfig::new`]): `w_t` 0.25 (§5.7.1
//! picks XSEDE's from 20–40 %; §5.8 and the published code's example use 25 %), `MaxQ` 2
//! (§5.7.3), the published predictor's parameters, HPL power (§4.5.1).
//!
//! ```
//! use cosched_core::Duration;
//! use cosched_metasched::scenario::{RunConfig, Scenario, Strategy};
//! use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
//!
//! let prices = DiurnalPrices::month(7);
//! let sites = embedded_xsede_sites(|file| Ok(prices.series(file)?)).unwrap();
//! let jobs = XsedeLikeWorkload { jobs: 120, load: 0.7, seed: 7 }.generate(&sites).unwrap();
//! let scenario = Scenario::new(sites, jobs, 100, Duration(60));
//! let bs = scenario.run(&scenario.config(Strategy::Bs, 1)).unwrap();
//! let mcmf = scenario.run(&scenario.config(Strategy::Mcmf, 1)).unwrap();
//! assert_eq!(bs.metrics.completed + bs.metrics.rejected, 20);
//! assert_eq!(mcmf.metrics.completed + mcmf.metrics.rejected, 20);
//! ```
//!
//! # Writing your own grid policy
//! A policy is any [`cosched_core::policy::Policy`] over [`GridObservation`] and
//! [`GridCommand`] reading a [`GridView`]; [`Scenario::run_policy`] runs it in the same
//! environment as the built-in ones. This one sends each job to the compatible site with the
//! lowest price at the cycle's hour, ignoring queues:
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, Time};
//! use cosched_metasched::policy::{GridCommand, GridObservation, GridView, scaled_estimate};
//! use cosched_metasched::scenario::{Scenario, Strategy};
//! use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
//!
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct CheapestNow;
//!
//! impl Policy for CheapestNow {
//!     type Observation = GridObservation;
//!     type Command = GridCommand;
//!     type View = dyn GridView;
//!     type Error = std::convert::Infallible;
//!
//!     fn observe(&mut self, now: Time, obs: &GridObservation, view: &Self::View,
//!                out: &mut Vec<GridCommand>) -> Result<(), Self::Error> {
//!         let GridObservation::Cycle { jobs } = obs else { return Ok(()) };
//!         let (hour, sites) = (now.secs().div_euclid(3_600), view.sites());
//!         for job in jobs {
//!             let best = (0..sites.len())
//!                 .filter(|&k| scaled_estimate(sites, job, k)
//!                     .is_some_and(|e| sites[k].accepts(job.cores, e)))
//!                 .min_by(|&a, &b| {
//!                     let price = |k: usize| sites[k].price_usd_per_mwh(hour).unwrap_or(f64::MAX);
//!                     price(a).total_cmp(&price(b))
//!                 });
//!             out.push(match best {
//!                 Some(site) => GridCommand::Place { job: job.id, site, predicted_wait: None },
//!                 None => GridCommand::Unassignable { job: job.id },
//!             });
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let prices = DiurnalPrices::month(7);
//! let sites = embedded_xsede_sites(|file| Ok(prices.series(file)?)).unwrap();
//! let jobs = XsedeLikeWorkload { jobs: 120, load: 0.7, seed: 7 }.generate(&sites).unwrap();
//! let scenario = Scenario::new(sites, jobs, 100, Duration(60));
//! // The environment of an MCMF run (every measured job through the metascheduler).
//! let config = scenario.config(Strategy::Mcmf, 1);
//! let ours = scenario.run_policy(&config, &mut CheapestNow).unwrap();
//! let bs = scenario.run(&scenario.config(Strategy::Bs, 1)).unwrap();
//! println!("cheapest-now: {:.1} min, ${:.2}", ours.metrics.mean_response_s / 60.0, ours.metrics.total_cost_usd);
//! println!("BS:           {:.1} min, ${:.2}", bs.metrics.mean_response_s / 60.0, bs.metrics.total_cost_usd);
//! assert_eq!(ours.metrics.completed + ours.metrics.rejected, 20);
//! ```

use crate::metrics::Metrics;
use crate::policy::{
    GridCommand, GridObservation, GridView, Mcmf, PolicyError, PredictedWaits, PriceModel,
    SubmissionSite,
};
use crate::price_forecast::PriceForecastConfig;
use crate::sim::{GridPolicy, GridSim, PowerModel, SimConfig, SimError, SimOutcome, TransferModel};
use crate::site::Site;
use crate::workload::TraceJob;
use cosched_core::Duration;
use cosched_core::policy::Policy;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A built-in policy, boxed so that the strategy is chosen at run time.
pub type BuiltinPolicy = Box<
    dyn Policy<
            Observation = GridObservation,
            Command = GridCommand,
            View = dyn GridView,
            Error = PolicyError,
        > + Send,
>;

/// `w_t` of the MCMF runs unless set: §5.7.1 picks XSEDE's from 20–40 % (both metrics beat
/// BS there); §5.8 and the published code's example use 25 %.
pub const DEFAULT_W_T: f64 = 0.25;
/// `MaxQ` of the MCMF runs unless set: 2 for XSEDE (§5.7.3).
pub const DEFAULT_MAX_Q: u32 = 2;
/// The scheduling cycle length of the published code (`SchedulingCycleLength = 60`), seconds.
pub const DEFAULT_CYCLE_S: i64 = 60;

/// A name that is not one of a choice's values.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown {what} `{given}`; expected one of: {expected}")]
pub struct UnknownChoice {
    /// What was being chosen.
    pub what: &'static str,
    /// The name given (at most 80 characters of it).
    pub given: String,
    /// The valid names, comma-separated.
    pub expected: String,
}

/// `FromStr`/`Display` over a fixed list of kebab-case names, so a command line can take the
/// choice by name.
macro_rules! named_choice {
    ($ty:ident, $what:literal, [$(($variant:ident, $name:literal)),+ $(,)?]) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// Every value's name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// Its name on a command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $ty {
            type Err = UnknownChoice;

            fn from_str(s: &str) -> Result<Self, UnknownChoice> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(UnknownChoice {
                        what: $what,
                        given: cosched_core::excerpt(s).to_string(),
                        expected: $ty::NAMES.join(", "),
                    }),
                }
            }
        }
    };
}

/// The jobs' power relative to HPL's (§5.8, Table 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PowerChoice {
    /// HPL's power (§4.5.1).
    Hpl,
    /// Uniform in −40 %..0.
    Lower,
    /// Uniform in −40 %..+40 %.
    Average,
    /// Uniform in 0..+40 %.
    Higher,
}

named_choice!(
    PowerChoice,
    "power model",
    [
        (Hpl, "hpl"),
        (Lower, "lower"),
        (Average, "average"),
        (Higher, "higher")
    ]
);

impl PowerChoice {
    /// The simulator's model.
    pub fn model(self) -> PowerModel {
        match self {
            PowerChoice::Hpl => PowerModel::Hpl,
            PowerChoice::Lower => PowerModel::LOWER,
            PowerChoice::Average => PowerModel::AVERAGE,
            PowerChoice::Higher => PowerModel::HIGHER,
        }
    }

    /// Table 8's row name.
    pub fn label(self) -> &'static str {
        match self {
            PowerChoice::Hpl => "HPL power",
            PowerChoice::Lower => "lower-than-HPL-power",
            PowerChoice::Average => "average-HPL-power",
            PowerChoice::Higher => "higher-than-HPL-power",
        }
    }
}

/// Where the metascheduler's predicted waits come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WaitModel {
    /// The paper's predictor: DBSCAN clusters of each site's last 2,000 started jobs, else
    /// ridge regression ([`PredictedWaits::paper`]).
    Paper,
    /// The site's EASY state: when the job would start if submitted now (beyond the paper).
    Whatif,
    /// No wait anywhere (what INST assumes).
    Zero,
}

named_choice!(
    WaitModel,
    "wait model",
    [(Paper, "paper"), (Whatif, "whatif"), (Zero, "zero")]
);

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PriceOutlookModel {
    /// The paper's: published day-ahead prices to the end of the current day, seasonal ARIMA
    /// forecasts (trained on the previous 3 days) beyond ([`PriceModel::Forecast`]).
    Forecast,
    /// Every hour's true price (perfect foresight, [`PriceModel::DayAhead`]).
    DayAhead,
}

named_choice!(
    PriceOutlookModel,
    "price outlook",
    [(Forecast, "forecast"), (DayAhead, "day-ahead")]
);

impl PriceOutlookModel {
    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            PriceOutlookModel::Forecast => "forecast prices",
            PriceOutlookModel::DayAhead => "true prices",
        }
    }

    /// The policy's price model over `sites`, forecasting by `forecast` where it forecasts.
    ///
    /// # Errors
    /// An invalid forecast configuration or price series.
    pub fn model(
        self,
        sites: &[Site],
        forecast: PriceForecastConfig,
    ) -> Result<PriceModel, SimError> {
        Ok(match self {
            PriceOutlookModel::Forecast => PriceModel::forecast(sites, forecast)?,
            PriceOutlookModel::DayAhead => PriceModel::DayAhead,
        })
    }
}

/// The paper's strategies (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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
    /// Table 5's perturbation threshold `T` (each predicted wait plus uniform `[−T, T]`).
    pub wait_perturbation: Option<Duration>,
    /// The jobs' power model.
    pub power: PowerChoice,
    /// Price knowledge of MCMF and INST.
    pub price_outlook: PriceOutlookModel,
    /// Seed of participation draws and prediction errors.
    pub seed: u64,
}

impl RunConfig {
    /// `strategy` with the paper's XSEDE defaults: `w_t` 0.25, `MaxQ` 2, full participation,
    /// the paper's learned waits and forecast prices, HPL power, no perturbation.
    pub fn new(strategy: Strategy, seed: u64) -> RunConfig {
        RunConfig {
            strategy,
            w_t: DEFAULT_W_T,
            max_q: DEFAULT_MAX_Q,
            participation: 1.0,
            waits: WaitModel::Paper,
            wait_perturbation: None,
            price_outlook: PriceOutlookModel::Forecast,
            power: PowerChoice::Hpl,
            seed,
        }
    }

    /// The run's predictors in words, for tables' notes and labels.
    pub fn predictors(&self) -> String {
        let waits = match (self.strategy, self.wait_perturbation) {
            (Strategy::Bs, _) => return "none".into(),
            (Strategy::Inst, _) => "zero waits".to_owned(),
            (_, Some(t)) => format!("{} + U[-{t}, {t}]", self.waits.label()),
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

/// A grid, its trace and the settings every strategy shares; [`run`](Scenario::run) simulates
/// one strategy on it.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The grid's sites.
    pub sites: Vec<Site>,
    /// The trace.
    pub jobs: Vec<TraceJob>,
    /// Leading history jobs (run at their submission site, unmeasured).
    pub history: usize,
    /// The scheduling cycle length.
    pub cycle: Duration,
    /// Transfer time of migrated jobs, if any.
    pub transfer: Option<TransferModel>,
    /// How prices beyond the published day-ahead prices are forecast.
    pub forecast: PriceForecastConfig,
    /// The defaults of every run (strategy and seed aside).
    pub defaults: RunConfig,
    /// Where sites, prices and jobs come from and the cycle and transfer settings, for notes.
    pub description: String,
}

impl Scenario {
    /// `sites` and `jobs` with the first `history` jobs as history, cycles of `cycle`, no
    /// transfers, the default forecast and the paper's defaults ([`RunConfig::new`]).
    pub fn new(sites: Vec<Site>, jobs: Vec<TraceJob>, history: usize, cycle: Duration) -> Self {
        Scenario {
            sites,
            jobs,
            history,
            cycle,
            transfer: None,
            forecast: PriceForecastConfig::default(),
            defaults: RunConfig::new(Strategy::Mcmf, 0),
            description: String::new(),
        }
    }

    /// The description with the history/measured split, for the tables' notes.
    pub fn summary(&self) -> String {
        if self.history == 0 {
            return format!("{} Every job measured (no history).", self.description);
        }
        format!(
            "{} History: the first {} jobs; measured: the last {}.",
            self.description,
            self.history,
            self.jobs.len().saturating_sub(self.history)
        )
    }

    /// `strategy` with this scenario's defaults.
    pub fn config(&self, strategy: Strategy, seed: u64) -> RunConfig {
        RunConfig {
            strategy,
            seed,
            ..self.defaults
        }
    }

    /// The same scenario with every job measured (no history).
    pub fn measuring_all(&self) -> Scenario {
        Scenario {
            history: 0,
            ..self.clone()
        }
    }

    /// The built-in policy of `config`: BS at the submission site (no predictor); MCMF and
    /// TWOPRICE predicting waits by `config.waits`; INST predicting none; MCMF and INST
    /// knowing prices by `config.price_outlook`.
    ///
    /// # Errors
    /// Invalid parameters (`w_t`, `MaxQ`, the forecast or the predictor).
    pub fn policy(&self, config: &RunConfig) -> Result<BuiltinPolicy, SimError> {
        let sites = self.sites.clone();
        let waits = match (config.strategy, config.waits) {
            // BS asks for no prediction: training predictors for it would be wasted work.
            (Strategy::Bs | Strategy::Inst, _) | (_, WaitModel::Zero) => PredictedWaits::Zero,
            (_, WaitModel::Paper) => PredictedWaits::paper(sites.len())?,
            (_, WaitModel::Whatif) => PredictedWaits::WhatIf,
        };
        Ok(match config.strategy {
            Strategy::Bs => Box::new(SubmissionSite::new(sites)),
            Strategy::Inst | Strategy::Mcmf => {
                let prices = config.price_outlook.model(&sites, self.forecast)?;
                Box::new(Mcmf::new(sites, config.max_q, config.w_t, prices)?.with_waits(waits)?)
            }
            Strategy::TwoPrice => {
                Box::new(Mcmf::two_price(sites, config.max_q, config.w_t)?.with_waits(waits)?)
            }
        })
    }

    /// The simulator's settings for `config`: BS sends nothing through the metascheduler;
    /// only MCMF and TWOPRICE perturb their predicted waits.
    pub fn sim_config(&self, config: &RunConfig) -> SimConfig {
        SimConfig {
            cycle_interval: self.cycle,
            participation: if config.strategy == Strategy::Bs {
                0.0
            } else {
                config.participation
            },
            history: self.history,
            transfer: self.transfer,
            wait_perturbation: match config.strategy {
                Strategy::Bs | Strategy::Inst => None,
                _ => config.wait_perturbation,
            },
            power: config.power.model(),
            seed: config.seed,
        }
    }

    /// Simulates `config` on this scenario and measures it.
    ///
    /// # Errors
    /// Invalid parameters, or a trace the simulator refuses.
    pub fn run(&self, config: &RunConfig) -> Result<RunResult, SimError> {
        self.run_policy(config, &mut self.policy(config)?)
    }

    /// Simulates `policy` (any policy of the grid protocol) in the environment of `config`
    /// (its participation, perturbation, power model and seed; the strategy only decides
    /// whether jobs go through the metascheduler, BS sending none) and measures it.
    ///
    /// # Errors
    /// Invalid parameters, a trace the simulator refuses, or the policy's error.
    pub fn run_policy<P>(
        &self,
        config: &RunConfig,
        policy: &mut P,
    ) -> Result<RunResult, SimError<P::Error>>
    where
        P: GridPolicy + ?Sized,
    {
        let outcome =
            GridSim::new(self.sites.clone(), self.sim_config(config))?.run(policy, &self.jobs)?;
        let metrics = Metrics::of(&outcome, &self.sites);
        Ok(RunResult { outcome, metrics })
    }
}

/// The paper's XSEDE setting (§4.3.1) from the vendored inputs, as the `metasched_*` examples
/// build it by default: the eight-system table with the June 2014 day-ahead prices, the
/// public grid trace's first `trace_jobs` jobs extended to `total` by
/// [`PaperExtension`](crate::workload::PaperExtension) (generated from `seed`; the paper
/// measures 10,000), every job measured, cycles of [`DEFAULT_CYCLE_S`], no transfers, the
/// paper's defaults ([`RunConfig::new`] with `seed`).
///
/// # Errors
/// A parameter out of range (`total` above the generator's bound).
pub fn paper_xsede(
    trace_jobs: usize,
    total: usize,
    seed: u64,
) -> Result<Scenario, Box<dyn std::error::Error + Send + Sync>> {
    let sites = crate::workload::paper_xsede_sites()?;
    let mut jobs = crate::workload::paper_grid_trace(sites.len())?;
    jobs.truncate(trace_jobs);
    let jobs = crate::workload::PaperExtension { total, seed }.extend(&sites, &jobs)?;
    Ok(Scenario {
        defaults: RunConfig::new(Strategy::Mcmf, seed),
        description: format!(
            "The paper's XSEDE setting: the embedded eight-system table, the June 2014 day-ahead \
             prices, the public trace's first {trace_jobs} jobs extended to {} (seed {seed}).",
            jobs.len()
        ),
        ..Scenario::new(sites, jobs, 0, Duration(DEFAULT_CYCLE_S))
    })
}

/// The paper's XSEDE rows of Table 4: (row, average response time in minutes, total cost in
/// $ over its 10,000 jobs).
const PAPER: [(Table4Row, f64, f64); 5] = [
    (Table4Row::Bs, 633.7, 230_985.6),
    (Table4Row::Inst, 3460.8, 205_876.5),
    (Table4Row::TwoPrice, 473.3, 232_557.3),
    (Table4Row::Mcmf, 477.5, 224_021.6),
    (Table4Row::McmfCostOnly, 1095.4, 187_298.9),
];

/// Table 4's XSEDE rows (§5.2): the four strategies, and MCMF with `w_t` = 0 (cost only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table4Row {
    /// BS: every job at its submission site.
    Bs,
    /// INST: MCMF with zero predicted waits.
    Inst,
    /// TWOPRICE: MCMF with on-/off-peak prices.
    TwoPrice,
    /// MCMF, the paper's metascheduler.
    Mcmf,
    /// MCMF weighing cost alone (`w_t` = 0).
    McmfCostOnly,
}

impl Table4Row {
    /// The rows in the paper's order.
    pub const ALL: [Table4Row; 5] = [
        Table4Row::Bs,
        Table4Row::Inst,
        Table4Row::TwoPrice,
        Table4Row::Mcmf,
        Table4Row::McmfCostOnly,
    ];

    /// The row's run: `defaults` with its strategy (and `w_t` = 0 for the cost-only row).
    pub fn config(self, defaults: RunConfig) -> RunConfig {
        let strategy = match self {
            Table4Row::Bs => Strategy::Bs,
            Table4Row::Inst => Strategy::Inst,
            Table4Row::TwoPrice => Strategy::TwoPrice,
            Table4Row::Mcmf | Table4Row::McmfCostOnly => Strategy::Mcmf,
        };
        RunConfig {
            strategy,
            w_t: if self == Table4Row::McmfCostOnly {
                0.0
            } else {
                defaults.w_t
            },
            ..defaults
        }
    }

    /// The paper's name of the row.
    pub fn name(self) -> &'static str {
        match self {
            Table4Row::McmfCostOnly => "MCMF (w_t = 0)",
            Table4Row::Bs => "BS",
            Table4Row::Inst => "INST",
            Table4Row::TwoPrice => "TWOPRICE",
            Table4Row::Mcmf => "MCMF",
        }
    }

    /// The paper's average response time (minutes) and total cost ($ over its 10,000 jobs).
    pub fn paper(self) -> (f64, f64) {
        PAPER
            .iter()
            .find(|(r, ..)| *r == self)
            .map_or((f64::NAN, f64::NAN), |&(_, rt, cost)| (rt, cost))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_their_names_and_reject_others() {
        for &w in WaitModel::ALL {
            assert_eq!(w.name().parse::<WaitModel>(), Ok(w));
        }
        for &p in PowerChoice::ALL {
            assert_eq!(p.to_string().parse::<PowerChoice>(), Ok(p));
        }
        assert_eq!(
            "day-ahead".parse::<PriceOutlookModel>(),
            Ok(PriceOutlookModel::DayAhead)
        );
        let err = "x".repeat(500).parse::<WaitModel>().unwrap_err();
        assert!(err.given.len() < 100, "{}", err.given.len());
        assert_eq!(err.expected, "paper, whatif, zero");
    }

    #[test]
    fn bs_sends_nothing_through_the_metascheduler_and_inst_is_never_perturbed() {
        let scenario = Scenario::new(Vec::new(), Vec::new(), 0, Duration(60));
        let perturbed = RunConfig {
            wait_perturbation: Some(Duration(3_600)),
            participation: 0.5,
            ..scenario.config(Strategy::Bs, 3)
        };
        let bs = scenario.sim_config(&perturbed);
        assert_eq!((bs.participation, bs.wait_perturbation), (0.0, None));
        let inst = scenario.sim_config(&RunConfig {
            strategy: Strategy::Inst,
            ..perturbed
        });
        assert_eq!((inst.participation, inst.wait_perturbation), (0.5, None));
        let mcmf = scenario.sim_config(&RunConfig {
            strategy: Strategy::Mcmf,
            ..perturbed
        });
        assert_eq!(mcmf.wait_perturbation, Some(Duration(3_600)));
    }
}
