//! [`MemoryPartitions`]: a batch partition and a preemptible scavenging partition over the same
//! nodes, in memory, behaving as the local Slurm does (`preempt/partition_prio`,
//! `PreemptMode=REQUEUE`, `GraceTime=0`): the test double of [`super::Scavenger`].

use std::collections::BTreeMap;

use cosched_core::{Duration, Time};
use thiserror::Error;

use super::{Holder, PartitionJob, Phase, PoolNode, PoolReport, ScavengeCluster, ScavengedTask};

/// What [`MemoryPartitions`] refuses.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MemoryError {
    /// A node it does not have.
    #[error("no node `{0}`")]
    UnknownNode(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BatchState {
    Pending,
    Running(Time),
    Done,
}

#[derive(Debug, Clone)]
struct BatchJob {
    submit: Time,
    nodes: u32,
    run: Duration,
    state: BatchState,
    held: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScavState {
    Pending,
    Running(Time),
    Completed,
    Ended,
}

#[derive(Debug, Clone)]
struct ScavJob {
    node: usize,
    work: Duration,
    state: ScavState,
    restarts: u32,
    eligible: Time,
}

/// Nodes `n1` … `nN` shared by a batch partition and a scavenging one, on a clock the caller
/// moves ([`MemoryPartitions::advance`]). Batch jobs start first come, first served (the queue
/// head blocks the rest), on the lowest-numbered free nodes, then on nodes running scavenging
/// jobs, which are requeued at once and eligible again [`MemoryPartitions::REQUEUE_DELAY`]
/// later (as Slurm delays a requeued job). A scavenging job runs on its node when neither a
/// batch job nor another scavenging job holds it; a drained node ([`MemoryPartitions::set_out`])
/// keeps what runs and takes nothing new.
#[derive(Debug, Clone)]
pub struct MemoryPartitions {
    now: Time,
    names: Vec<String>,
    out: Vec<bool>,
    batch: BTreeMap<u64, BatchJob>,
    scav: BTreeMap<u64, ScavJob>,
    next_id: u64,
    preemptions: u64,
}

impl MemoryPartitions {
    /// How long a requeued scavenging job waits before it may start again (Slurm 22.05's).
    pub const REQUEUE_DELAY: Duration = Duration(121);

    /// `nodes` idle nodes at time 0.
    pub fn new(nodes: u32) -> MemoryPartitions {
        let n = nodes as usize;
        MemoryPartitions {
            now: Time(0),
            names: (1..=n).map(|k| format!("n{k}")).collect(),
            out: vec![false; n],
            batch: BTreeMap::new(),
            scav: BTreeMap::new(),
            next_id: 1,
            preemptions: 0,
        }
    }

    /// The clock.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Submits a batch job of `nodes` nodes running `run`, at `at` (a time to come is an
    /// arrival the clock reaches); its id.
    pub fn submit_batch(&mut self, at: Time, nodes: u32, run: Duration) -> String {
        let id = self.next_id;
        self.next_id += 1;
        self.batch.insert(
            id,
            BatchJob {
                submit: at,
                nodes,
                run,
                state: BatchState::Pending,
                held: Vec::new(),
            },
        );
        self.settle();
        id.to_string()
    }

    /// Drains node `node` (0-based) or returns it to service.
    pub fn set_out(&mut self, node: usize, out: bool) {
        if let Some(o) = self.out.get_mut(node) {
            *o = out;
        }
        self.settle();
    }

    /// Ends scavenging job `job` as failed (its command exited non-zero).
    pub fn fail(&mut self, job: &str) {
        if let Some(j) = job.parse().ok().and_then(|id: u64| self.scav.get_mut(&id))
            && matches!(j.state, ScavState::Pending | ScavState::Running(_))
        {
            j.state = ScavState::Ended;
        }
        self.settle();
    }

    /// Scavenging jobs requeued by batch jobs so far.
    pub fn preemptions(&self) -> u64 {
        self.preemptions
    }

    /// Scavenging jobs running now, by node.
    pub fn running_scavengers(&self) -> Vec<usize> {
        self.scav
            .values()
            .filter(|j| matches!(j.state, ScavState::Running(_)))
            .map(|j| j.node)
            .collect()
    }

    /// Moves the clock to `to`, every job end, arrival and start on the way at its instant.
    pub fn advance(&mut self, to: Time) {
        self.settle();
        while let Some(t) = self.next_event().filter(|&t| t <= to) {
            self.now = t;
            self.settle();
        }
        self.now = self.now.max(to);
        self.settle();
    }

    /// The first instant after now at which something happens.
    fn next_event(&self) -> Option<Time> {
        let now = self.now;
        let batch = self.batch.values().filter_map(|j| match j.state {
            BatchState::Pending if j.submit > now => Some(j.submit),
            BatchState::Running(s) => Some(s.saturating_add(j.run)),
            _ => None,
        });
        let scav = self.scav.values().filter_map(|j| match j.state {
            ScavState::Pending if j.eligible > now => Some(j.eligible),
            ScavState::Running(s) => Some(s.saturating_add(j.work)),
            _ => None,
        });
        batch.chain(scav).filter(|&t| t > now).min()
    }

    /// At the current instant: ends, then batch starts (preempting), then scavenging starts.
    fn settle(&mut self) {
        let now = self.now;
        for j in self.scav.values_mut() {
            if let ScavState::Running(s) = j.state
                && s.saturating_add(j.work) <= now
            {
                j.state = ScavState::Completed;
            }
        }
        for j in self.batch.values_mut() {
            if let BatchState::Running(s) = j.state
                && s.saturating_add(j.run) <= now
            {
                j.state = BatchState::Done;
                j.held.clear();
            }
        }
        let ids: Vec<u64> = self.batch.keys().copied().collect();
        for id in ids {
            let job = &self.batch[&id];
            if job.state != BatchState::Pending || job.submit > now {
                continue;
            }
            let holder = self.batch_holders();
            let running = self.scav_on_nodes();
            let free = |i: &usize| !self.out[*i] && holder[*i].is_none();
            let mut pick: Vec<usize> = (0..self.names.len())
                .filter(|i| free(i) && running[*i].is_none())
                .collect();
            pick.extend((0..self.names.len()).filter(|i| free(i) && running[*i].is_some()));
            if pick.len() < job.nodes as usize {
                break;
            }
            pick.truncate(job.nodes as usize);
            for &i in &pick {
                if let Some(s) = running[i]
                    && let Some(j) = self.scav.get_mut(&s)
                {
                    j.state = ScavState::Pending;
                    j.restarts += 1;
                    j.eligible = now.saturating_add(Self::REQUEUE_DELAY);
                    self.preemptions += 1;
                }
            }
            if let Some(job) = self.batch.get_mut(&id) {
                job.state = BatchState::Running(now);
                job.held = pick;
            }
        }
        let holder = self.batch_holders();
        let mut running = self.scav_on_nodes();
        for (&id, j) in self.scav.iter_mut() {
            let i = j.node;
            if j.state == ScavState::Pending
                && j.eligible <= now
                && !self.out[i]
                && holder[i].is_none()
                && running[i].is_none()
            {
                j.state = ScavState::Running(now);
                running[i] = Some(id);
            }
        }
    }

    fn batch_holders(&self) -> Vec<Option<u64>> {
        let mut h = vec![None; self.names.len()];
        for (&id, j) in &self.batch {
            for &i in &j.held {
                h[i] = Some(id);
            }
        }
        h
    }

    fn scav_on_nodes(&self) -> Vec<Option<u64>> {
        let mut r = vec![None; self.names.len()];
        for (&id, j) in &self.scav {
            if matches!(j.state, ScavState::Running(_)) {
                r[j.node] = Some(id);
            }
        }
        r
    }
}

impl ScavengeCluster for MemoryPartitions {
    type Error = MemoryError;

    fn report(&mut self) -> Result<PoolReport, MemoryError> {
        let holder = self.batch_holders();
        let nodes = self
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| PoolNode {
                name: name.clone(),
                holder: match holder[i] {
                    _ if self.out[i] => Holder::Out,
                    Some(id) => Holder::Batch(id.to_string()),
                    None => Holder::Free,
                },
            })
            .collect();
        let jobs = self
            .scav
            .iter()
            .map(|(&id, j)| {
                let phase = match j.state {
                    ScavState::Pending => Phase::Pending,
                    ScavState::Running(_) => Phase::Running(self.names[j.node].clone()),
                    ScavState::Completed => Phase::Completed,
                    ScavState::Ended => Phase::Ended,
                };
                let job = PartitionJob {
                    id: id.to_string(),
                    phase,
                    restarts: j.restarts,
                };
                (id.to_string(), job)
            })
            .collect();
        Ok(PoolReport { nodes, jobs })
    }

    fn launch(&mut self, _: u64, task: &ScavengedTask, node: &str) -> Result<String, MemoryError> {
        let i = self
            .names
            .iter()
            .position(|n| n == node)
            .ok_or_else(|| MemoryError::UnknownNode(cosched_core::excerpt(node)))?;
        let id = self.next_id;
        self.next_id += 1;
        self.scav.insert(
            id,
            ScavJob {
                node: i,
                work: task.work,
                state: ScavState::Pending,
                restarts: 0,
                eligible: self.now,
            },
        );
        self.settle();
        Ok(id.to_string())
    }

    fn cancel(&mut self, job: &str) -> Result<(), MemoryError> {
        if let Some(j) = job.parse().ok().and_then(|id: u64| self.scav.get_mut(&id))
            && matches!(j.state, ScavState::Pending | ScavState::Running(_))
        {
            j.state = ScavState::Ended;
        }
        self.settle();
        Ok(())
    }
}
