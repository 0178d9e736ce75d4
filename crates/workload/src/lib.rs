//! # cosched-workload
//!
//! Workload input and generation for the cosched simulators, on `cosched-core`'s vocabulary:
//! the Standard Workload Format, seeded synthetic models, and the one admission of rigid jobs.
//! A crate of its own so that a live service embedding a policy does not compile trace readers
//! and generators (gzip, distributions).
//!
//! - [`admit`]: the one workload admission every simulator shares (sort by submit time and id,
//!   duplicate ids refused with a typed error, invalid jobs counted).
//! - [`lublin`]: the Lublin–Feitelson (2003) model of rigid jobs (sizes, runtimes, arrivals
//!   with a daily cycle).
//! - [`estimates`]: the Tsafrir–Etsion–Feitelson (2005) model of user runtime estimates.
//! - [`load`]: offered load and rescaling arrivals to a target load.
//! - [`swf`]: the Standard Workload Format reader and writer.
//! - [`batsim`]: Batsim's JSON workloads, read as rigid jobs and written from them.
//! - [`output`]: output files staged beside their targets and moved into place on success,
//!   and the path identity that lets a tool refuse an output that is one of its inputs.
//!
//! ```
//! use cosched_workload::{load, LublinModel, TsafrirEstimates};
//! use cosched_core::Duration;
//! let mut jobs = LublinModel::new(1_024).unwrap().generate(2_000, 1);
//! TsafrirEstimates::new(Duration::from_hours(48)).unwrap().assign(&mut jobs, 1);
//! load::scale_to_offered_load(&mut jobs, 1_024, 0.8).unwrap();
//! assert!(jobs.iter().all(|j| j.runtime <= j.estimate));
//! ```

pub mod admit;
pub mod batsim;
pub mod estimates;
pub mod load;
pub mod lublin;
pub mod output;
pub mod swf;

pub use estimates::{TsafrirEstimates, TsafrirParams};
pub use load::{LoadScaling, LoadTally, offered_load, scale_to_offered_load};
pub use lublin::{LublinModel, LublinParams};
