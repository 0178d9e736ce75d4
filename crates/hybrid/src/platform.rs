//! A reference executor for embedding [`HybridPolicy`](crate::HybridPolicy) outside the
//! simulator: [`MemoryPlatform`], a plain in-memory platform that implements
//! [`PlatformView`] and applies the policy's [`Command`]s to itself, leaving to its owner only
//! what a resource manager does on its own — running the batch passes
//! ([`Command::Schedule`], returned by [`MemoryPlatform::apply`]), reporting job starts and
//! ends, and EASY's shadow. An adapter to a real system mirrors its state into one (from
//! `squeue` / `sinfo`), lends it to the policy, and carries out the same commands.
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::{JobId, NodeId, Time};
//! use cosched_hybrid::platform::MemoryPlatform;
//! use cosched_hybrid::policy::{Command, Observation};
//! use cosched_hybrid::{Composite, HybridPolicy};
//! // Four idle nodes; CUA&PAA; an on-demand job of 3 nodes arrives and starts at once.
//! let mut platform = MemoryPlatform::with_idle_nodes(4);
//! let mut policy = HybridPolicy::new(Composite::ALL[2]);
//! let mut out = Vec::new();
//! let arrival = Observation::Arrival { job: JobId(7), size: 3 };
//! policy.observe(Time(0), &arrival, &platform, &mut out).unwrap();
//! let passes = platform.apply(&out).unwrap();
//! assert!(passes.is_empty());
//! assert_eq!(platform.on_demand_running(), vec![JobId(7)]);
//! assert_eq!(platform.idle.len(), 1);
//! ```

use crate::HybridError;
use crate::notice::PlannedJob;
use crate::policy::{BatchPass, Command, PlatformView, RunInfo};
use cosched_batch::Shadow;
use cosched_core::{JobId, NodeId, Time};
use std::collections::{BTreeMap, BTreeSet};

/// A platform held in memory; see the [module docs](self). Its fields are the state an
/// adapter mirrors from its resource manager.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryPlatform {
    /// Idle nodes of the batch pool, in the order they are handed out.
    pub idle: Vec<NodeId>,
    /// Idle nodes reserved for an on-demand job.
    pub reserved: BTreeMap<NodeId, JobId>,
    /// Running batch jobs with their nodes (a shrink frees the last ones).
    pub running: Vec<(PlannedJob, Vec<NodeId>)>,
    /// Queued batch jobs.
    pub queued: BTreeSet<JobId>,
    /// Nodes handed to on-demand jobs, and whether each runs.
    pub on_demand: BTreeMap<JobId, (Vec<NodeId>, bool)>,
    /// Jobs that entered the queue so far.
    pub queue_epoch: u64,
    /// EASY's shadow for the queue head, as the resource manager computes it.
    pub shadow: Option<Shadow>,
}

impl MemoryPlatform {
    /// Nodes `0..n`, all idle.
    pub fn with_idle_nodes(n: u32) -> MemoryPlatform {
        MemoryPlatform {
            idle: (0..n).map(NodeId).collect(),
            ..MemoryPlatform::default()
        }
    }

    /// The on-demand jobs running.
    pub fn on_demand_running(&self) -> Vec<JobId> {
        self.on_demand
            .iter()
            .filter(|(_, (_, runs))| *runs)
            .map(|(&job, _)| job)
            .collect()
    }

    /// A batch job the resource manager started on `nodes` (taken from the idle ones).
    pub fn started(&mut self, job: PlannedJob, nodes: Vec<NodeId>) {
        self.idle.retain(|n| !nodes.contains(n));
        self.queued.remove(&job.view.id);
        self.running.push((job, nodes));
    }

    /// A batch job ended: its nodes go idle.
    pub fn ended(&mut self, job: JobId) {
        if let Some(k) = self.running.iter().position(|(p, _)| p.view.id == job) {
            let (_, nodes) = self.running.remove(k);
            self.idle.extend(nodes);
        }
    }

    /// An on-demand job ended: its nodes go idle.
    pub fn on_demand_ended(&mut self, job: JobId) {
        if let Some((nodes, _)) = self.on_demand.remove(&job) {
            self.idle.extend(nodes);
        }
    }

    fn take_idle(&mut self, node: NodeId) -> bool {
        let found = self.idle.iter().position(|&n| n == node);
        found.map(|k| self.idle.remove(k)).is_some()
    }

    /// Applies `commands` in order; returns the batch passes asked for, for the resource
    /// manager to run (its starts then come back through [`MemoryPlatform::started`] and
    /// [`crate::policy::Observation::Started`]). A command naming a job that does not run or
    /// a node not reserved for the job is a typed error.
    pub fn apply(&mut self, commands: &[Command]) -> Result<Vec<BatchPass>, HybridError> {
        let mut passes = Vec::new();
        for command in commands {
            match command {
                &Command::Preempt { job } => {
                    let k = self
                        .running
                        .iter()
                        .position(|(p, _)| p.view.id == job)
                        .ok_or(HybridError::NotRunning(job))?;
                    let (_, nodes) = self.running.remove(k);
                    self.idle.extend(nodes);
                    self.queued.insert(job);
                    self.queue_epoch += 1;
                }
                &Command::Resize { job, to } => {
                    let (planned, nodes) = self
                        .running
                        .iter_mut()
                        .find(|(p, _)| p.view.id == job)
                        .ok_or(HybridError::NotRunning(job))?;
                    let to_len = to as usize;
                    if to_len < nodes.len() {
                        self.idle.extend(nodes.drain(to_len..));
                    } else {
                        let more = (to_len - nodes.len()).min(self.idle.len());
                        nodes.extend(self.idle.drain(..more));
                    }
                    planned.view.size = nodes.len() as u32;
                }
                Command::Reserve { job, nodes } => {
                    for &node in nodes {
                        if self.take_idle(node) {
                            self.reserved.insert(node, *job);
                        }
                    }
                }
                Command::Release { job, nodes } => {
                    for node in nodes {
                        if self.reserved.get(node) == Some(job) {
                            self.reserved.remove(node);
                            self.idle.push(*node);
                        }
                    }
                }
                Command::Assign { job, nodes } => {
                    for &node in nodes {
                        if self.reserved.get(&node) != Some(job) {
                            return Err(HybridError::NotReserved { job: *job, node });
                        }
                        self.reserved.remove(&node);
                    }
                    let held = self.on_demand.entry(*job).or_default();
                    held.0.extend_from_slice(nodes);
                }
                &Command::AssignIdle { job, count } => {
                    let take = (count as usize).min(self.idle.len());
                    let nodes: Vec<NodeId> = self.idle.drain(..take).collect();
                    self.on_demand.entry(job).or_default().0.extend(nodes);
                }
                &Command::Unassign { job } => {
                    if let Some((nodes, _)) = self.on_demand.remove(&job) {
                        self.idle.extend(nodes);
                    }
                }
                &Command::StartOnDemand { job } => {
                    let held = self.on_demand.entry(job).or_default();
                    held.1 = true;
                }
                &Command::Submit { job } => {
                    self.queued.insert(job);
                    self.queue_epoch += 1;
                }
                Command::Schedule(pass) => passes.push(pass.clone()),
            }
        }
        Ok(passes)
    }
}

impl PlatformView for MemoryPlatform {
    fn idle_nodes(&self, n: usize) -> Vec<NodeId> {
        self.idle.iter().take(n).copied().collect()
    }

    fn idle_count(&self) -> u32 {
        self.idle.len() as u32
    }

    fn reserved_for(&self, node: NodeId) -> Option<JobId> {
        self.reserved.get(&node).copied()
    }

    fn running(&self, now: Time) -> Vec<PlannedJob> {
        self.running
            .iter()
            .map(|(p, _)| {
                let mut p = *p;
                if let crate::RunningKind::Rigid { elapsed, .. } = &mut p.view.kind {
                    *elapsed = now - p.run_start;
                }
                p
            })
            .collect()
    }

    fn run(&self, job: JobId) -> Option<RunInfo> {
        self.running
            .iter()
            .find(|(p, _)| p.view.id == job)
            .map(|(p, _)| RunInfo {
                size: p.view.size,
                predicted_end: p.predicted_end,
                started: p.run_start,
            })
    }

    fn is_queued(&self, job: JobId) -> bool {
        self.queued.contains(&job)
    }

    fn held(&self, job: JobId) -> u32 {
        self.on_demand
            .get(&job)
            .map_or(0, |(nodes, _)| nodes.len() as u32)
    }

    fn queue_len(&self) -> usize {
        self.queued.len()
    }

    fn queue_epoch(&self) -> u64 {
        self.queue_epoch
    }

    fn head_shadow(&self, now: Time) -> Option<Shadow> {
        if self.queued.is_empty() {
            return None;
        }
        Some(self.shadow.unwrap_or(Shadow {
            time: now,
            extra: 0,
        }))
    }
}
