//! # cosched-albatross
//!
//! *Albatross: Dynamic Scaling for Heterogeneous Cycle Scavenging HTCondor Clusters* (Mathur,
//! Aleksonis): an HTCondor pool of scavenged desktops that scales out to cloud nodes when the
//! matchmaker starves. Jobs and machines describe themselves and their constraints as
//! ClassAds, and the negotiator pairs them; a scaling policy watches which jobs go unmatched.
//!
//! - [`classad`]: HTCondor's ClassAd language, re-exported from the `cosched-classad` crate
//!   (the engine is reusable on its own: values with `undefined` and `error`, three-valued
//!   logic, `MY.`/`TARGET.` scoping, lists, the built-in functions, the negotiator's symmetric
//!   match and ranks, pinned to HTCondor's own library by a committed fixture table);
//! - [`pool`]: desktops with owners who come and go, cloud instance types, their slot ads;
//! - [`workload`]: the paper's job stream (one job every five minutes) with job ads;
//! - [`policy`]: the Albatross protocol (an [`Observation`] after each negotiation cycle and
//!   the queued jobs' ads in, cloud [`Command`]s out, on [`cosched_core::policy::Policy`]),
//!   the Albatross policy — the stall detector, the capital table (t2 ladder and node
//!   lifetimes) and the spin-down rules — as a plain struct with no clock, RNG or I/O whose
//!   state serialises, and the no-Albatross baseline [`policy::NoScaling`]; commands go to a
//!   [`CloudBackend`] (the simulator's cloud, or a real one);
//! - [`scenario`] (feature `sim`): the built-in policies as constructors, the paper's figures
//!   and one §V run summarised; how to write your own policy and run it in the simulator;
//! - [`report`]: what a run produced — per-job records, stays, cloud nodes, progress, the
//!   slot-seconds ledger — and the paper's figures of a run ([`report::SimReport`], serde);
//! - [`sim`] (feature `sim`, on by default; without it the crate is the policy alone): the
//!   pool simulator (the environment only) on cosched-core's kernel — owners from
//!   named random streams, negotiation cycles, the simulator's cloud (node lifetimes, billing),
//!   per-job records, the paper's progress ratio over time and its job run-time metric.
//!
//! ```
//! # #[cfg(feature = "sim")] {
//! use cosched_albatross::policy::Capital;
//! use cosched_albatross::scenario::{albatross, no_albatross};
//! use cosched_albatross::sim::{PoolSim, SimConfig};
//! use cosched_albatross::workload::WorkloadModel;
//! use cosched_core::{Duration, SeedStreams, Time};
//! let jobs = WorkloadModel::paper().generate(Duration(20_000), SeedStreams::new(1), 1000)?;
//! let mut config = SimConfig::paper();
//! config.horizon = Time(20_000);
//! let pool = PoolSim::new(config)?;
//! let without = pool.run(&mut no_albatross(), &jobs)?;
//! let with = pool.run(&mut albatross(Capital::new(0.75)?)?, &jobs)?;
//! // The starved pool completes a few jobs; Albatross's cloud nodes complete more.
//! assert!(with.final_progress() > without.final_progress());
//! assert_eq!(without.cloud_cost, 0.0);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A job that holds a large input may forbid cloud execution through its own ad:
//!
//! ```
//! use cosched_albatross::classad::{ClassAd, match_ads};
//! let job: ClassAd = "[ Requirements = TARGET.Memory >= 1024 && (TARGET.IsCloud =!= true) ]".parse()?;
//! let desktop: ClassAd = "[ Requirements = true; Memory = 2048 ]".parse()?;
//! let cloud: ClassAd = "[ Requirements = true; Memory = 16384; IsCloud = true ]".parse()?;
//! assert!(match_ads(&job, &desktop).matched);
//! assert!(!match_ads(&job, &cloud).matched);
//! # Ok::<(), cosched_albatross::classad::ParseError>(())
//! ```

//! ## Where each part of the paper lives
//! The paper is cited by its parts' names (section numbers are not relied on):
//! - the **system model** (a cycle-scavenging HTCondor pool of desktops whose owners come and
//!   go, extended by cloud instances): [`pool`], with [`pool::OwnerReturn`] for what a
//!   returning owner does to a job, and [`classad`] for the matchmaking it relies on;
//! - the **Albatross design** (the stall detector in the matchmaker, the capital parameter and
//!   what it buys, leases): [`policy`]; the fit-to-jobs sizing there is our extension, marked
//!   as such;
//! - the **evaluation** (one job every five minutes, 10 desktops, 100,000 s, capital 0 / 0.25 /
//!   0.5 / 0.75; progress over time in **Figures 1–4**, mean and standard deviation of the job
//!   run time): [`workload`] and [`sim`], reproduced by the `albatross_capital` example. The
//!   environment (owners' absences, job lengths) is calibrated on the no-Albatross baseline
//!   only (Fig. 1) by the `albatross_calibrate` example; Figs. 2–4 are predictions.

// Without `sim` the crate docs still name the simulator's modules.
#![cfg_attr(not(feature = "sim"), allow(rustdoc::broken_intra_doc_links))]

pub use cosched_classad as classad;
pub mod policy;
pub mod pool;
#[cfg(feature = "sim")]
pub mod report;
#[cfg(feature = "sim")]
pub mod scenario;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "sim")]
pub mod workload;

pub use policy::{
    Albatross, AlbatrossConfig, AlbatrossPolicy, AlbatrossState, Capital, CloudBackend, Command,
    NoScaling, Observation, WaitingJobs,
};
#[cfg(feature = "sim")]
pub use report::SimOutcome;
#[cfg(feature = "sim")]
pub use sim::{PoolSim, SimConfig, SimError};
#[cfg(feature = "sim")]
pub use workload::{Job, WorkloadModel};
