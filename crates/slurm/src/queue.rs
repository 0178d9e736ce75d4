//! The whole queue with partitions and restart counts (`squeue -O`): what an executor whose
//! jobs share the nodes with other partitions' reads, to tell its jobs from the others and a
//! requeued job (preempted) from one that never ran.

use serde::{Deserialize, Serialize};

use crate::client::{excerpt, parse_error};
use crate::{JobState, Slurm, SlurmError, hostlist};

/// One job as `squeue -O JobID,Partition,State,NodeList,RestartCnt,Name` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedJob {
    /// Its id.
    pub id: String,
    /// Its partition.
    pub partition: String,
    /// Its state.
    pub state: JobState,
    /// The nodes it runs on (empty while pending).
    pub nodes: Vec<String>,
    /// How often Slurm requeued it (a preemption under `PreemptMode=REQUEUE` is one).
    pub restarts: u32,
    /// Its name.
    pub name: String,
}

impl Slurm {
    /// Every job the controller still lists (pending, running, recently ended: for
    /// `MinJobAge` seconds), with its partition and restart count.
    pub fn queue(&self) -> Result<Vec<QueuedJob>, SlurmError> {
        let out = self.run(
            "squeue",
            [
                "-h",
                "-t",
                "all",
                "-O",
                "JobID:|,Partition:|,State:|,NodeList:|,RestartCnt:|,Name:|",
            ],
        )?;
        out.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| parse_queued(line).map_err(|reason| parse_error("squeue", line, reason)))
            .collect()
    }
}

/// `id|partition|state|nodes|restarts|name|`.
fn parse_queued(line: &str) -> Result<QueuedJob, String> {
    let f: Vec<&str> = line.splitn(6, '|').collect();
    let [id, partition, state, nodes, restarts, name] = f[..] else {
        return Err("expected `id|partition|state|nodes|restarts|name`".into());
    };
    let id = id.trim();
    if id.is_empty() {
        return Err("empty job id".into());
    }
    let nodes = match nodes.trim() {
        "" | "(null)" => Vec::new(),
        list => hostlist::expand(list).map_err(|e| e.to_string())?,
    };
    let restarts = restarts
        .trim()
        .parse()
        .map_err(|_| format!("restart count `{}` is not a number", excerpt(restarts, 20)))?;
    Ok(QueuedJob {
        id: id.to_owned(),
        partition: partition.trim().to_owned(),
        state: state.parse().unwrap_or(JobState::Other(String::new())),
        nodes,
        restarts,
        name: name.trim().trim_end_matches('|').trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_rows_with_partitions_and_restarts() {
        let j = parse_queued("5|batch|RUNNING|n[1-2]|0|wrap|").unwrap();
        assert_eq!(j.nodes, ["n1", "n2"]);
        assert_eq!((j.partition.as_str(), j.name.as_str()), ("batch", "wrap"));
        let j = parse_queued("1|scavenger|PENDING||1|cosched-task-7|").unwrap();
        assert!(j.nodes.is_empty() && j.state == JobState::Pending && j.restarts == 1);
        assert_eq!(j.name, "cosched-task-7");
        assert!(parse_queued("1|scavenger|PENDING||one|x|").is_err());
        assert!(parse_queued("1|scavenger").is_err());
        assert!(parse_queued("|scavenger|PENDING||0|x|").is_err());
    }
}
