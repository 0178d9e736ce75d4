//! The cluster live tests run against: the one `cargo xtask slurm up` starts and names in
//! `COSCHED_SLURM`, and [`TestCluster`], a live test's exclusive, clean hold on it.

use std::fs::File;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::{JobDetail, NodeState, Slurm, SlurmError};

/// The variable naming the `slurm.conf` of the cluster live tests use.
pub const TEST_CLUSTER_VAR: &str = "COSCHED_SLURM";

/// Why a live test skips when [`TEST_CLUSTER_VAR`] is unset.
pub const SKIP_REASON: &str =
    "COSCHED_SLURM is not set (run `cargo xtask slurm up` and export what it prints)";

/// The start of every live test's job names (`cosched-test-<test>-…`) and of the reason of
/// every drain a live test sets.
pub const LIVE_TEST_PREFIX: &str = "cosched-test-";

/// How long [`TestCluster::acquire`] waits for a quiet cluster by default: a requeued job
/// pends with a begin time 121 s ahead until cancelled, and a cancelled one's nodes stay
/// `planned` until the next backfill cycle (30 s by default), so 180 s covers both.
pub const DEFAULT_QUIET_LIMIT: Duration = Duration::from_secs(180);

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

/// Why a live test could not take the cluster.
#[derive(Debug, Error)]
pub enum TestClusterError {
    /// A Slurm call failed.
    #[error(transparent)]
    Slurm(#[from] SlurmError),
    /// The lock file beside the configuration could not be opened or locked.
    #[error("cannot lock `{path}`: {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The cluster did not come quiet in time.
    #[error("the cluster is not quiet after {waited:?}: {left}")]
    NotQuiet {
        /// How long it was waited for.
        waited: Duration,
        /// What is left (jobs still listed, nodes not idle).
        left: String,
    },
}

/// One live test's hold on the cluster: exclusive (a file lock beside `slurm.conf`, so live
/// tests of every test binary and thread run one at a time), started on a quiet cluster, and
/// left clean when dropped, even by a failing test.
///
/// [`TestCluster::acquire`] cancels every job a live test left (named
/// [`LIVE_TEST_PREFIX`]`…`: under the lock, no other live test runs), resumes the nodes a live
/// test or a balancer drained (reason starting `cosched`), then waits until Slurm lists no
/// pending, running or completing job — requeued jobs waiting out their begin time included —
/// and every node is idle (not `completing`, `draining` or `drained`) without Slurm's
/// `PLANNED` flag ([`Slurm::planned_nodes`]: a node the backfill scheduler planned for a job
/// since cancelled starts no job pinned to it until its next cycle). Dropping it
/// cancels the jobs named with the test's prefix and resumes those drains.
#[derive(Debug)]
pub struct TestCluster {
    slurm: Slurm,
    prefix: String,
    _lock: File,
    cleaned: Cleaned,
}

/// What [`TestCluster::acquire`] found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Leftover jobs cancelled, by id.
    pub cancelled: Vec<u64>,
    /// Nodes resumed from a leftover drain.
    pub resumed: Vec<String>,
    /// How long the cluster took to come quiet.
    pub waited: Duration,
}

impl TestCluster {
    /// Takes the cluster of [`TEST_CLUSTER_VAR`] for the test `test` (its jobs are to be named
    /// [`TestCluster::prefix`]`…`), waiting at most `limit` for it to come quiet; `Ok(None)`
    /// when the variable is unset.
    pub fn acquire(test: &str, limit: Duration) -> Result<Option<TestCluster>, TestClusterError> {
        let Some(slurm) = test_cluster()? else {
            return Ok(None);
        };
        let path = slurm
            .config()
            .and_then(|c| c.parent())
            .map_or_else(std::env::temp_dir, PathBuf::from)
            .join("live-tests.lock");
        let lock_error = |source| TestClusterError::Lock {
            path: path.clone(),
            source,
        };
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(lock_error)?;
        lock.lock().map_err(lock_error)?;
        let mut held = TestCluster {
            slurm,
            prefix: format!("{LIVE_TEST_PREFIX}{test}-"),
            _lock: lock,
            cleaned: Cleaned::default(),
        };
        held.cleaned = held.clean(LIVE_TEST_PREFIX, limit)?;
        Ok(Some(held))
    }

    /// The cluster.
    pub fn slurm(&self) -> &Slurm {
        &self.slurm
    }

    /// The start of this test's job names: `cosched-test-<test>-`.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// What the start found and did.
    pub fn cleaned(&self) -> &Cleaned {
        &self.cleaned
    }

    /// Cancels the jobs named `prefix…` that have not ended, resumes the `cosched` drains, and
    /// waits (at most `limit`) until the cluster is quiet.
    pub fn clean(&self, prefix: &str, limit: Duration) -> Result<Cleaned, TestClusterError> {
        let start = Instant::now();
        let mut cleaned = Cleaned {
            cancelled: self.cancel_named(prefix)?,
            resumed: self.resume_drains()?,
            waited: Duration::ZERO,
        };
        loop {
            let left = self.not_quiet()?;
            if left.is_empty() {
                cleaned.waited = start.elapsed();
                return Ok(cleaned);
            }
            if start.elapsed() >= limit {
                return Err(TestClusterError::NotQuiet {
                    waited: start.elapsed(),
                    left,
                });
            }
            // A job a test left while this wait runs (none should) is cancelled too.
            cleaned.cancelled.extend(self.cancel_named(prefix)?);
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn cancel_named(&self, prefix: &str) -> Result<Vec<u64>, SlurmError> {
        let left: Vec<u64> = self
            .slurm
            .job_details()?
            .into_iter()
            .filter(|j| j.name.starts_with(prefix) && !j.is_finished())
            .map(|j| j.id)
            .collect();
        for id in &left {
            // A job that ends meanwhile is no error.
            let _ = self.slurm.cancel(&id.to_string());
        }
        Ok(left)
    }

    fn resume_drains(&self) -> Result<Vec<String>, SlurmError> {
        let mut resumed = Vec::new();
        for n in self.slurm.nodes()? {
            let ours = n
                .reason
                .as_deref()
                .is_some_and(|r| r.starts_with("cosched"));
            if ours && n.state.is_reclaimed() {
                self.slurm.resume(&n.name)?;
                resumed.push(n.name);
            }
        }
        Ok(resumed)
    }

    /// What keeps the cluster from being quiet, or an empty string.
    fn not_quiet(&self) -> Result<String, SlurmError> {
        let jobs: Vec<JobDetail> = self
            .slurm
            .job_details()?
            .into_iter()
            .filter(|j| !j.is_finished())
            .collect();
        let planned = self.slurm.planned_nodes()?;
        let nodes: Vec<String> = self
            .slurm
            .nodes()?
            .into_iter()
            .filter(|n| n.state != NodeState::Idle || n.not_responding || planned.contains(&n.name))
            .map(|n| {
                let flag = if planned.contains(&n.name) {
                    "+planned"
                } else {
                    ""
                };
                format!("{} {}{flag}", n.name, n.state)
            })
            .collect();
        let mut left = Vec::new();
        if !jobs.is_empty() {
            let listed: Vec<String> = jobs
                .iter()
                .map(|j| format!("{} `{}` {:?} {}", j.id, j.name, j.state, j.reason))
                .collect();
            left.push(format!("jobs {}", listed.join(", ")));
        }
        if !nodes.is_empty() {
            left.push(format!("nodes {}", nodes.join(", ")));
        }
        Ok(left.join("; "))
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        // Best effort: the next test's start cleans whatever this leaves.
        let _ = self.cancel_named(&self.prefix);
        let _ = self.resume_drains();
    }
}
