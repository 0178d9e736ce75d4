//! The pool simulator in one call, as the tests run it.

use cosched_albatross::policy::AlbatrossPolicy;
use cosched_albatross::report::SimOutcome;
use cosched_albatross::sim::{PoolSim, SimConfig, SimError};
use cosched_albatross::workload::Job;

/// The pool of `config` run with `policy` on `jobs`.
pub fn simulate<P: AlbatrossPolicy>(
    config: &SimConfig,
    jobs: &[Job],
    mut policy: P,
) -> Result<SimOutcome, SimError<P::Error>> {
    PoolSim::new(config.clone())?.run(&mut policy, jobs)
}
