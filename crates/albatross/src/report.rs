//! What a run of the pool simulator produced ([`crate::sim::PoolSim::run`]): per-job records, every
//! stay of a job on a slot, the cloud nodes, the progress over time, the environment the run
//! saw, the slot-seconds ledger, and [`SimReport`], the paper's figures of a run (§V).

use crate::classad::ClassAd;
use crate::pool::{InstanceType, KEYBOARD_IDLE};
use cosched_core::usage::{UsageKind, UsageLedger};
use cosched_core::{Duration, JobId, NodeId, Pool, Time, stats};
use serde::{Deserialize, Serialize};

/// Where a job ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MachineKind {
    /// A scavenged desktop.
    Desktop,
    /// A cloud node of this instance type (index).
    Cloud(usize),
}

/// Why a stay of a job on a slot ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// The job completed.
    Completed,
    /// The desktop's owner returned and the job was vacated at once.
    Evicted,
    /// The job was suspended for `max_suspension` and then vacated ([`crate::pool::OwnerReturn::Suspend`]).
    SuspensionExpired,
    /// The cloud node stopped (lifetime end or spin-down); the job was checkpointed.
    NodeStopped,
    /// The horizon came with the job still on the slot.
    Unfinished,
}

/// One stay of a job on one slot, from its dispatch there to its completion or eviction;
/// it runs throughout except while suspended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The job's index in [`SimOutcome::jobs`].
    pub job: usize,
    /// The slot's index in [`SimOutcome::slots`].
    pub slot: usize,
    /// The dispatch.
    pub start: Time,
    /// When it left the slot.
    pub end: Time,
    /// The slot ad's `KeyboardIdle` in the negotiation cycle that dispatched the job (`None`
    /// on a cloud slot): with it, the slot's ad as matched is [`Slot::ad_at_dispatch`].
    pub keyboard_idle: Option<Duration>,
    /// How often the job was suspended in this stay.
    pub suspensions: u32,
    /// The total time it spent suspended in this stay.
    pub suspended: Duration,
    /// Data transfer paid at the start of this stay (cloud slots).
    pub transfer: Duration,
    /// The `Cpus` and `Memory` of the dynamic slot carved for this stay, on a partitionable
    /// machine.
    pub dynamic_slot: Option<(i64, i64)>,
    /// Why it ended.
    pub outcome: RunEnd,
}

impl Placement {
    /// The time the job actually computed in this stay: `end − start − suspended − transfer`
    /// (0 if cut during the transfer).
    pub fn running(&self) -> Duration {
        Duration(
            (self.end - self.start - self.suspended - self.transfer)
                .secs()
                .max(0),
        )
    }
}

/// One slot of the pool, as advertised.
#[derive(Debug, Clone)]
pub struct Slot {
    /// Its machine.
    pub node: NodeId,
    /// What kind of machine that is.
    pub kind: MachineKind,
    /// Its slot ad, as advertised in the last negotiation cycle (a desktop's `KeyboardIdle`
    /// changes from cycle to cycle).
    pub ad: ClassAd,
}

impl Slot {
    /// The ad this slot advertised when `placement` was dispatched to it.
    pub fn ad_at_dispatch(&self, placement: &Placement) -> ClassAd {
        let mut ad = self.ad.clone();
        if let Some(idle) = placement.keyboard_idle {
            ad.insert_value(KEYBOARD_IDLE, idle.secs());
        }
        if let Some((cpus, memory_mb)) = placement.dynamic_slot {
            ad.insert_value("Cpus", cpus);
            ad.insert_value("Memory", memory_mb);
        }
        ad
    }
}

/// What happened to one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobOutcome {
    /// The job.
    pub id: JobId,
    /// Submission (the paper's "dispatched to the system").
    pub submit: Time,
    /// First dispatch to a slot.
    pub first_start: Option<Time>,
    /// Dispatch of the latest stay (HTCondor's `JobCurrentStartDate`).
    pub last_start: Option<Time>,
    /// Completion, if within the horizon.
    pub end: Option<Time>,
    /// Where it completed.
    pub completed_on: Option<MachineKind>,
    /// Evictions by returning owners (at once, or after a too long suspension).
    pub evictions: u32,
    /// Suspensions by returning owners.
    pub suspensions: u32,
    /// Requeues because a cloud node stopped under it.
    pub node_stops: u32,
}

impl JobOutcome {
    /// The paper's job metric (module docs): completion − start of the completing stay.
    pub fn runtime(&self) -> Option<Duration> {
        self.end.zip(self.last_start).map(|(e, s)| e - s)
    }
}

/// One cloud node's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloudNodeRecord {
    /// The node.
    pub node: NodeId,
    /// Its instance type, by index in [`SimOutcome::instance_types`].
    pub instance: usize,
    /// The start request (billing starts).
    pub requested: Time,
    /// When it joined the pool, if it did.
    pub ready: Option<Time>,
    /// When it stopped (billing ends).
    pub stopped: Time,
}

/// Cumulative counts at one instant (a submission or a completion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgressPoint {
    /// The instant.
    pub time: Time,
    /// Jobs dispatched to the system (submitted) so far.
    pub dispatched: usize,
    /// Jobs completed so far.
    pub completed: usize,
}

impl ProgressPoint {
    /// completed / dispatched (§V); `None` before the first submission.
    pub fn progress(&self) -> Option<f64> {
        (self.dispatched > 0).then(|| self.completed as f64 / self.dispatched as f64)
    }
}

/// An owner arriving at (`busy`) or leaving a desktop: the environment a run saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnerChange {
    /// When.
    pub time: Time,
    /// The desktop (its index).
    pub desktop: usize,
    /// Whether the owner is now at the desk.
    pub busy: bool,
}

/// Mean and sample standard deviation of the job metric.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RuntimeStats {
    /// Jobs measured.
    pub n: usize,
    /// Mean, seconds.
    pub mean_s: f64,
    /// Sample standard deviation, seconds (`None` below two jobs).
    pub sd_s: Option<f64>,
}

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct SimOutcome {
    /// One per admitted job, in (submit, id) order.
    pub jobs: Vec<JobOutcome>,
    /// Jobs left out as invalid (non-finite or non-positive work, negative submit).
    pub invalid_jobs: usize,
    /// Every stay of every job.
    pub placements: Vec<Placement>,
    /// Every slot that existed.
    pub slots: Vec<Slot>,
    /// Every cloud node started.
    pub cloud_nodes: Vec<CloudNodeRecord>,
    /// The instance types, as configured.
    pub instance_types: Vec<InstanceType>,
    /// Progress at time 0, every submission and completion, and the horizon.
    pub progress: Vec<ProgressPoint>,
    /// Every owner arrival and departure (the environment; identical for every policy).
    pub owner_changes: Vec<OwnerChange>,
    /// Σ instance-hours × hourly price.
    pub cloud_cost: f64,
    /// Slot-seconds per pool ([`Pool::Volunteer`] for desktops, [`Pool::Cloud`]): held (a
    /// desktop slot while its `START` holds, a cloud slot from request to stop), busy (a job
    /// on it, suspensions excluded) and wasted (work lost to a restart; recorded from the
    /// stay's start for its computing time).
    pub usage: UsageLedger,
    /// When the run ended (the horizon).
    pub end: Time,
}

/// A run's figures, as the paper reports them (§V) plus the cloud's: what a report or a CSV
/// row needs, serialisable.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    /// Jobs dispatched to the system (submitted) by the horizon.
    pub jobs_dispatched: usize,
    /// Jobs completed by the horizon.
    pub jobs_completed: usize,
    /// completed / dispatched at the horizon.
    pub progress_at_end: f64,
    /// The job run time of the completed jobs.
    pub runtime: Option<RuntimeStats>,
    /// Jobs completed on cloud nodes.
    pub completed_on_cloud: usize,
    /// Cloud nodes started.
    pub cloud_nodes: usize,
    /// Hours cloud nodes spent in the pool (joined to stopped).
    pub cloud_up_hours: f64,
    /// Cloud nodes whose CPU credits would have run out ([`SimOutcome::nodes_out_of_credit`]).
    pub nodes_out_of_credit: usize,
    /// Busy over held cloud slot-seconds ([`SimOutcome::usage`]); `None` without cloud.
    pub cloud_busy_fraction: Option<f64>,
    /// The cloud bill, $.
    pub cost_usd: f64,
}

impl SimOutcome {
    /// The run's figures ([`SimReport`]).
    pub fn report(&self) -> SimReport {
        let last = self.progress.last().copied();
        SimReport {
            jobs_dispatched: last.map_or(0, |p| p.dispatched),
            jobs_completed: last.map_or(0, |p| p.completed),
            progress_at_end: self.final_progress(),
            runtime: self.runtime_stats(),
            completed_on_cloud: self
                .jobs
                .iter()
                .filter(|j| matches!(j.completed_on, Some(MachineKind::Cloud(_))))
                .count(),
            cloud_nodes: self.cloud_nodes.len(),
            cloud_up_hours: self
                .cloud_nodes
                .iter()
                .filter_map(|n| n.ready.map(|r| (n.stopped - r).as_hours_f64()))
                .sum(),
            nodes_out_of_credit: self.nodes_out_of_credit(),
            cloud_busy_fraction: {
                let held = self.usage.total(Pool::Cloud, UsageKind::Held);
                let busy = self.usage.total(Pool::Cloud, UsageKind::Busy);
                (held > 0).then(|| busy as f64 / held as f64)
            },
            cost_usd: self.cloud_cost,
        }
    }

    /// Mean and sample sd of the job run time (module docs) over jobs completed within the
    /// horizon; `None` if none completed.
    pub fn runtime_stats(&self) -> Option<RuntimeStats> {
        let xs: Vec<f64> = self
            .jobs
            .iter()
            .filter_map(|j| j.runtime())
            .map(|d| d.secs() as f64)
            .collect();
        Some(RuntimeStats {
            n: xs.len(),
            mean_s: stats::mean(&xs)?,
            sd_s: stats::sample_sd(&xs),
        })
    }

    /// Progress at the horizon: completed / dispatched (0 without jobs).
    pub fn final_progress(&self) -> f64 {
        self.progress
            .last()
            .and_then(ProgressPoint::progress)
            .unwrap_or(0.0)
    }

    /// Cloud nodes of a burstable type ([`crate::pool::BurstCredits`]) whose CPU credits ran
    /// out during the run: credits at launch plus those earned since the node joined, less
    /// one per busy vCPU-minute at full speed (every stay counts as busy from dispatch,
    /// transfer included), dropped below zero at some instant; the simulator ran those at
    /// their baseline from then on.
    pub fn nodes_out_of_credit(&self) -> usize {
        self.cloud_nodes
            .iter()
            .filter(|n| {
                let Some(credits) = self.instance_types[n.instance].credits else {
                    return false;
                };
                let Some(ready) = n.ready else { return false };
                // +1 at every dispatch, −1 at every departure, on this node's slots.
                let mut steps: Vec<(Time, i64)> = self
                    .placements
                    .iter()
                    .filter(|p| self.slots[p.slot].node == n.node)
                    .flat_map(|p| [(p.start, 1), (p.end, -1)])
                    .collect();
                steps.sort_unstable();
                let (mut balance, mut busy, mut at) = (credits.launch, 0i64, ready);
                for (t, step) in steps {
                    let secs = (t - at).secs() as f64;
                    balance += secs * (credits.earned_per_hour / 3600.0 - busy as f64 / 60.0);
                    if balance < 0.0 {
                        return true;
                    }
                    busy += step;
                    at = t;
                }
                false
            })
            .count()
    }

    /// Instance-hours used per instance type.
    pub fn instance_hours(&self) -> Vec<f64> {
        let mut hours = vec![0.0; self.instance_types.len()];
        for n in &self.cloud_nodes {
            hours[n.instance] += (n.stopped - n.requested).as_hours_f64();
        }
        hours
    }
}
