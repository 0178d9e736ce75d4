//! [`SlurmPartition`]: the scavenging partition of a real Slurm cluster (`sinfo`, `squeue`,
//! `sbatch`, `scancel` through `cosched-slurm`).

use cosched_slurm::{JobState, NodeState, Slurm, SlurmError};

use super::{Holder, PartitionJob, Phase, PoolNode, PoolReport, ScavengeCluster, ScavengedTask};

/// The scavenging partition `cargo xtask slurm up` configures.
pub const DEFAULT_PARTITION: &str = "scavenger";

/// The start of the executor's job names (`cosched-scavenge-<task>`).
pub const DEFAULT_JOB_PREFIX: &str = "cosched-scavenge";

/// A Slurm cluster with a preemptible scavenging partition over its batch nodes.
///
/// A node is out of batch when drained, draining, down, not responding or in any state but
/// idle, allocated, mixed and completing; it is batch's when a job of another partition runs
/// or completes there. A task runs as `sbatch -p PARTITION -w NODE -N1 --requeue -J
/// PREFIX-<task> -o /dev/null --wrap COMMAND`.
#[derive(Debug, Clone)]
pub struct SlurmPartition {
    slurm: Slurm,
    partition: String,
    prefix: String,
}

impl SlurmPartition {
    /// The partition [`DEFAULT_PARTITION`] of `slurm`.
    pub fn new(slurm: Slurm) -> SlurmPartition {
        SlurmPartition::with_partition(slurm, DEFAULT_PARTITION)
    }

    /// Partition `partition` of `slurm`.
    pub fn with_partition(slurm: Slurm, partition: impl Into<String>) -> SlurmPartition {
        SlurmPartition {
            slurm,
            partition: partition.into(),
            prefix: DEFAULT_JOB_PREFIX.to_owned(),
        }
    }

    /// This partition with its jobs named `PREFIX-<task>` (default [`DEFAULT_JOB_PREFIX`]).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> SlurmPartition {
        self.prefix = prefix.into();
        self
    }

    /// The client.
    pub fn slurm(&self) -> &Slurm {
        &self.slurm
    }

    /// The partition.
    pub fn partition(&self) -> &str {
        &self.partition
    }
}

/// A job's phase from its Slurm state.
fn phase(state: &JobState, nodes: &[String]) -> Phase {
    match state {
        JobState::Completed => Phase::Completed,
        JobState::Running | JobState::Completing => match nodes.first() {
            Some(n) => Phase::Running(n.clone()),
            None => Phase::Pending,
        },
        JobState::Cancelled
        | JobState::Failed
        | JobState::Timeout
        | JobState::NodeFail
        | JobState::Preempted => Phase::Ended,
        JobState::Other(s) if matches!(s.as_str(), "OUT_OF_MEMORY" | "BOOT_FAIL" | "DEADLINE") => {
            Phase::Ended
        }
        // Pending, requeued, configuring, suspended, resizing.
        JobState::Pending | JobState::Other(_) => Phase::Pending,
    }
}

impl ScavengeCluster for SlurmPartition {
    type Error = SlurmError;

    fn report(&mut self) -> Result<PoolReport, SlurmError> {
        let nodes = self.slurm.nodes()?;
        let queue = self.slurm.job_details()?;
        let mut report = PoolReport::default();
        for n in nodes {
            let out = n.not_responding
                || !matches!(
                    n.state,
                    NodeState::Idle
                        | NodeState::Allocated
                        | NodeState::Mixed
                        | NodeState::Completing
                );
            let batch = queue.iter().find(|j| {
                j.partition != self.partition
                    && matches!(j.state, JobState::Running | JobState::Completing)
                    && j.nodes.contains(&n.name)
            });
            let holder = match batch {
                _ if out => Holder::Out,
                Some(j) => Holder::Batch(j.id.to_string()),
                None => Holder::Free,
            };
            report.nodes.push(PoolNode {
                name: n.name,
                holder,
            });
        }
        for j in queue.into_iter().filter(|j| j.partition == self.partition) {
            let job = PartitionJob {
                phase: phase(&j.state, &j.nodes),
                restarts: j.restarts,
                id: j.id.to_string(),
            };
            report.jobs.insert(j.id.to_string(), job);
        }
        Ok(report)
    }

    fn launch(&mut self, id: u64, task: &ScavengedTask, node: &str) -> Result<String, SlurmError> {
        self.slurm.submit([
            "-p",
            &self.partition,
            "-w",
            node,
            "-N1",
            "--requeue",
            "-J",
            &format!("{}-{id}", self.prefix),
            "-o",
            "/dev/null",
            "--wrap",
            &task.script(),
        ])
    }

    /// `scancel`; a job Slurm no longer lists, or lists as ended, is no error.
    fn cancel(&mut self, job: &str) -> Result<(), SlurmError> {
        match self.slurm.cancel(job) {
            Ok(()) => Ok(()),
            Err(e) => {
                let queue = self.slurm.job_details()?;
                match queue.iter().find(|j| j.id.to_string() == job) {
                    Some(j)
                        if matches!(
                            phase(&j.state, &j.nodes),
                            Phase::Pending | Phase::Running(_)
                        ) =>
                    {
                        Err(e)
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_states_as_phases() {
        let on = |n: &str| vec![n.to_owned()];
        assert_eq!(
            phase(&JobState::Running, &on("n1")),
            Phase::Running("n1".into())
        );
        assert_eq!(phase(&JobState::Running, &[]), Phase::Pending);
        assert_eq!(phase(&JobState::Completed, &[]), Phase::Completed);
        assert_eq!(phase(&JobState::NodeFail, &[]), Phase::Ended);
        assert_eq!(
            phase(&JobState::Other("REQUEUED".into()), &[]),
            Phase::Pending
        );
        assert_eq!(
            phase(&JobState::Other("OUT_OF_MEMORY".into()), &[]),
            Phase::Ended
        );
    }
}
