//! # cosched-metasched
//!
//! Electricity-price-aware metascheduling of HPC jobs over a grid of sites, after Murali and
//! Vadhiyar, "Metascheduling of HPC Jobs in Day-Ahead Electricity Markets" (IEEE TPDS 2018).
//! Each scheduling interval, their metascheduler assigns queued jobs to compatible systems by a
//! **minimum-cost flow** on a bipartite network — source → job (capacity 1), job → each system
//! that can run it (capacity 1, cost from the predicted price and delay), system → sink
//! (capacity `MaxQ`, the jobs a system may take) — so a flow solver (`cosched-flow`) is its
//! core. The crate holds the metascheduler policy on it with the paper's baselines, the paper's two
//! predictors — queue waits learned per site (DBSCAN clusters, else ridge regression) and
//! electricity prices beyond the published day-ahead prices (seasonal ARIMA) — and the grid
//! simulator that drives the policy over EASY-backfilling sites, with the paper's metrics.
//!
//! - [`policy`]: the metascheduler ([`policy::Mcmf`]: costs from predicted response time and
//!   electricity cost, weighted by `w_t`, at most `MaxQ` jobs per site per cycle; prices
//!   known a day ahead and forecast beyond by [`policy::PriceModel::Forecast`]; its own wait
//!   model, taught by every job start) and the paper's BS, INST and TWOPRICE baselines, all
//!   implementing core's one protocol ([`cosched_core::policy::Policy`]) as serialisable
//!   structs with no clock, RNG or I/O.
//! - [`site`]: the grid's sites and the hour-by-hour electricity cost of a run.
//! - [`wait`]: the wait-prediction feature space, the per-site predictor interface and the
//!   paper's predictor (DBSCAN clusters of the last 2,000 jobs, else ridge regression).
//! - [`price_forecast`]: prices beyond the published day-ahead prices, forecast by the paper's
//!   seasonal ARIMA (period 24, trained on the previous three days), and the forecasts' mean
//!   absolute percentage error.
//! - [`xsede`]: the loader for the paper's XSEDE setting (`xsede_sites.csv` and price files).
//! - [`sim`] (this and the next two need the default feature `sim`): the grid simulator — every site a `cosched-batch` EASY cluster, grid jobs pending
//!   at the metascheduler until a scheduling cycle places them, history jobs, partial grid
//!   participation, optional transfer times and Table 5's injected wait errors; it runs any
//!   policy of the grid protocol, a caller's own included.
//! - [`scenario`]: the paper's experiments as a library — a grid and its trace, the four
//!   strategies (BS, INST, TWOPRICE, MCMF) as constructors of built-in policies, and how to
//!   write and run your own.
//! - [`accuracy`]: the wait predictor's errors on one machine's trace (Fig. 2's method).
//! - [`metrics`]: average response time, total electricity cost, bounded slowdown, per-site
//!   utilisation, instantaneous load and fairness against a baseline.
//! - [`workload`]: the grid SWF trace (submission site in field 19), the embedded XSEDE site
//!   table, a seeded diurnal price model and a generated XSEDE-like workload.
//!
//! A run: the grid (its sites and settings), then any policy of the protocol on a trace.
//!
//! ```
//! use cosched_metasched::metrics::Metrics;
//! use cosched_metasched::policy::{Mcmf, PredictedWaits, PriceModel, SubmissionSite};
//! use cosched_metasched::sim::{GridSim, SimConfig};
//! use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
//!
//! let prices = DiurnalPrices::month(3);
//! let sites = embedded_xsede_sites(|file| Ok(prices.series(file)?))?;
//! let jobs = XsedeLikeWorkload { jobs: 100, load: 0.7, seed: 3 }.generate(&sites)?;
//! // MCMF with the sites' what-if waits and the true prices: every job through the
//! // metascheduler, placed each 60-second cycle.
//! let grid = GridSim::new(sites.clone(), SimConfig::default())?;
//! let mut mcmf = Mcmf::new(sites.clone(), 2, 0.25, PriceModel::DayAhead)?
//!     .with_waits(PredictedWaits::WhatIf)?;
//! let ours = Metrics::of(&grid.run(&mut mcmf, &jobs)?, &sites);
//! // BS: every job at its submission site (no job through the metascheduler).
//! let home = SimConfig { participation: 0.0, ..SimConfig::default() };
//! let mut bs = SubmissionSite::new(sites.clone());
//! let base = Metrics::of(&GridSim::new(sites.clone(), home)?.run(&mut bs, &jobs)?, &sites);
//! assert_eq!((ours.completed, base.completed), (jobs.len(), jobs.len()));
//! assert!(ours.migrated > 0 && base.migrated == 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The min-cost-flow solver the policy runs on is `cosched-flow`
//! ([`cosched_flow::min_cost_max_flow`]), a crate of its own so that a flow needs no grid
//! simulator. Likewise the predictors' models — seasonal ARIMA ([`cosched_forecast::sarima`]),
//! DBSCAN, ridge regression and the rank-correlation weights — are `cosched-forecast`.

pub mod policy;
pub mod price_forecast;
pub mod site;
pub mod wait;
pub mod xsede;

// The grid simulator, its inputs and its metrics (default feature `sim`).
#[cfg(feature = "sim")]
pub mod accuracy;
#[cfg(feature = "sim")]
pub mod metrics;
#[cfg(feature = "sim")]
pub mod scenario;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "sim")]
pub mod workload;
