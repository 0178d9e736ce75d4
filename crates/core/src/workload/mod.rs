//! Workload input and generation: the Standard Workload Format and seeded synthetic models.
//!
//! - [`lublin`]: the Lublin–Feitelson (2003) model of rigid jobs (sizes, runtimes, arrivals
//!   with a daily cycle).
//! - [`estimates`]: the Tsafrir–Etsion–Feitelson (2005) model of user runtime estimates.
//! - [`load`]: offered load and rescaling arrivals to a target load.
//! - [`swf`]: the Standard Workload Format reader and writer.
//!
//! ```
//! use cosched_core::workload::{load, LublinModel, TsafrirEstimates};
//! use cosched_core::Duration;
//! let mut jobs = LublinModel::new(1_024).unwrap().generate(2_000, 1);
//! TsafrirEstimates::new(Duration::from_hours(48)).unwrap().assign(&mut jobs, 1);
//! load::scale_to_offered_load(&mut jobs, 1_024, 0.8).unwrap();
//! assert!(jobs.iter().all(|j| j.runtime <= j.estimate));
//! ```

pub mod admit;
pub mod estimates;
pub mod load;
pub mod lublin;
pub mod swf;

pub use estimates::{TsafrirEstimates, TsafrirParams};
pub use load::{offered_load, scale_to_offered_load};
pub use lublin::{LublinModel, LublinParams};
