//! The cluster live tests run against: the one `cargo xtask slurm up` starts and names in
//! `COSCHED_SLURM`.

use std::path::PathBuf;

use crate::{Slurm, SlurmError};

/// The variable naming the `slurm.conf` of the cluster live tests use.
pub const TEST_CLUSTER_VAR: &str = "COSCHED_SLURM";

/// Why a live test skips when [`TEST_CLUSTER_VAR`] is unset.
pub const SKIP_REASON: &str =
    "COSCHED_SLURM is not set (run `cargo xtask slurm up` and export what it prints)";

/// The cluster [`TEST_CLUSTER_VAR`] names, once it answers `scontrol ping`: `Ok(None)` when the
/// variable is unset (a live test then skips, printing [`SKIP_REASON`]), the ping's error when
/// the cluster does not answer.
pub fn test_cluster() -> Result<Option<Slurm>, SlurmError> {
    let Some(conf) = std::env::var_os(TEST_CLUSTER_VAR) else {
        return Ok(None);
    };
    let slurm = Slurm::with_config(PathBuf::from(conf));
    slurm.ping()?;
    Ok(Some(slurm))
}

/// The job-end log the epilog of a cluster started by `cargo xtask slurm up` appends to:
/// `log/job-ends.log` beside the configuration's `etc/`.
pub fn xtask_job_end_log(slurm: &Slurm) -> Option<PathBuf> {
    let base = slurm.config()?.parent()?.parent()?;
    Some(base.join("log").join("job-ends.log"))
}
