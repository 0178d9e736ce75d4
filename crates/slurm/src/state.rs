//! Node and job states as Slurm prints them (`sinfo %T`, `squeue %T`).

use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

/// A node's base state (`sinfo -o %T`), without its flag suffixes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NodeState {
    /// Up, running nothing.
    Idle,
    /// Running jobs on all its CPUs.
    Allocated,
    /// Running jobs on some of its CPUs.
    Mixed,
    /// Jobs finishing (epilogs running).
    Completing,
    /// Marked to drain, still running jobs: takes no new job, keeps the running ones.
    Draining,
    /// Drained: runs nothing and takes nothing.
    Drained,
    /// Down (failed or set down by an administrator).
    Down,
    /// Reserved in an advanced reservation.
    Reserved,
    /// Not yet responding since the controller started.
    Unknown,
    /// Any other state Slurm prints (`maint`, `future`, `planned`, power states, ...).
    Other(String),
}

impl NodeState {
    /// Whether the node takes no new batch job because it has been drained (or is draining):
    /// the state a reclaim puts it in.
    pub fn is_reclaimed(&self) -> bool {
        matches!(self, NodeState::Draining | NodeState::Drained)
    }

    /// Whether batch jobs run on the node now.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            NodeState::Allocated | NodeState::Mixed | NodeState::Completing | NodeState::Draining
        )
    }
}

impl FromStr for NodeState {
    type Err = Infallible;

    /// Parses a state with or without Slurm's flag suffixes (`idle*`, `drained~`, `mix-`).
    fn from_str(s: &str) -> Result<Self, Infallible> {
        let base = s
            .trim()
            .trim_end_matches(|c: char| !c.is_ascii_alphabetic());
        Ok(match base.to_ascii_lowercase().as_str() {
            "idle" => NodeState::Idle,
            "allocated" | "alloc" => NodeState::Allocated,
            "mixed" | "mix" => NodeState::Mixed,
            "completing" | "comp" => NodeState::Completing,
            "draining" | "drng" => NodeState::Draining,
            "drained" | "drain" => NodeState::Drained,
            "down" => NodeState::Down,
            "reserved" | "resv" => NodeState::Reserved,
            "unknown" | "unk" => NodeState::Unknown,
            other => NodeState::Other(other.to_owned()),
        })
    }
}

impl fmt::Display for NodeState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            NodeState::Idle => "idle",
            NodeState::Allocated => "allocated",
            NodeState::Mixed => "mixed",
            NodeState::Completing => "completing",
            NodeState::Draining => "draining",
            NodeState::Drained => "drained",
            NodeState::Down => "down",
            NodeState::Reserved => "reserved",
            NodeState::Unknown => "unknown",
            NodeState::Other(s) => s,
        };
        f.write_str(s)
    }
}

/// A job's state (`squeue -o %T`, or a job completion record's `JobState=`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JobState {
    /// Waiting for resources.
    Pending,
    /// Running.
    Running,
    /// Finishing (epilogs).
    Completing,
    /// Ended normally.
    Completed,
    /// Cancelled by a user or an administrator.
    Cancelled,
    /// Ended with a non-zero exit code.
    Failed,
    /// Killed at its time limit.
    Timeout,
    /// Killed because a node failed.
    NodeFail,
    /// Preempted.
    Preempted,
    /// Any other state.
    Other(String),
}

impl JobState {
    /// Whether the job was ended by the system rather than by finishing its work: what a
    /// balancer must never cause to a batch job.
    pub fn is_killed(&self) -> bool {
        matches!(
            self,
            JobState::Cancelled | JobState::NodeFail | JobState::Preempted
        )
    }
}

impl FromStr for JobState {
    type Err = Infallible;

    fn from_str(s: &str) -> Result<Self, Infallible> {
        // `CANCELLED by 0` is how completion records name who cancelled.
        let word = s.split_whitespace().next().unwrap_or("");
        Ok(match word.to_ascii_uppercase().as_str() {
            "PENDING" | "PD" => JobState::Pending,
            "RUNNING" | "R" => JobState::Running,
            "COMPLETING" | "CG" => JobState::Completing,
            "COMPLETED" | "CD" => JobState::Completed,
            "CANCELLED" | "CA" => JobState::Cancelled,
            "FAILED" | "F" => JobState::Failed,
            "TIMEOUT" | "TO" => JobState::Timeout,
            "NODE_FAIL" | "NF" => JobState::NodeFail,
            "PREEMPTED" | "PR" => JobState::Preempted,
            other => JobState::Other(other.to_owned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_states_with_flags() {
        let p = |s: &str| s.parse::<NodeState>().unwrap();
        assert_eq!(p("idle*"), NodeState::Idle);
        assert_eq!(p("drained~"), NodeState::Drained);
        assert_eq!(p("mix-"), NodeState::Mixed);
        assert_eq!(p("DRAINING"), NodeState::Draining);
        assert_eq!(p("planned"), NodeState::Other("planned".into()));
        assert!(p("draining").is_busy() && p("draining").is_reclaimed());
        assert!(!p("idle").is_reclaimed());
    }

    #[test]
    fn job_states() {
        let p = |s: &str| s.parse::<JobState>().unwrap();
        assert_eq!(p("CANCELLED by 0"), JobState::Cancelled);
        assert!(p("NODE_FAIL").is_killed());
        assert!(!p("COMPLETED").is_killed());
        assert_eq!(p("R"), JobState::Running);
    }
}
