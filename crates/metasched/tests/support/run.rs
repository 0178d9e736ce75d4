//! The grid simulator in one call, as the tests run it.

use cosched_metasched::sim::{GridPolicy, GridSim, SimConfig, SimError, SimOutcome};
use cosched_metasched::site::Site;
use cosched_metasched::workload::TraceJob;

/// The grid simulator on `sites` under `config`, run with `policy` on `jobs`.
pub fn simulate<P: GridPolicy + ?Sized>(
    sites: &[Site],
    policy: &mut P,
    jobs: &[TraceJob],
    config: &SimConfig,
) -> Result<SimOutcome, SimError<P::Error>> {
    GridSim::new(sites.to_vec(), *config)?.run(policy, jobs)
}
