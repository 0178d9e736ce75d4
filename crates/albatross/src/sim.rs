//! The pool simulator: desktops, their owners, cloud nodes, the negotiator and the
//! [`Albatross`] policy on cosched-core's [`EventQueue`] (the paper's evaluation set-up:
//! a desktop pool receiving a job every five minutes, with and without Albatross).
//!
//! ## What happens, exactly
//! - **Owners** toggle between busy and idle as [`crate::pool`] describes, each desktop from
//!   its own ChaCha8 stream (`seed`, stream = desktop index), so owner behaviour is the same
//!   whatever the jobs or the policy do.
//! - **Negotiation cycles** run every [`SimConfig::negotiation_interval`] from time 0. A cycle
//!   walks the queue in (submission, job) order; for each job it considers every free slot of
//!   every available machine (a desktop whose owner has been idle for at least
//!   `accept_after`, a cloud node that has joined the pool), keeps those whose match is
//!   symmetric (both `Requirements` true, [`match_ads`]) and picks the highest job rank, then
//!   machine rank, then lowest slot. After the cycle the policy sees an [`Observation`] and
//!   its decisions are applied at once.
//! - A job with `w` reference seconds of work left runs `ceil(w / speed)` seconds on a machine
//!   of that speed. An owner's return evicts it (checkpoint or restart, [`Eviction`]); a
//!   cloud node's stop — lease end or idle spin-down — checkpoints it; either way it goes back
//!   to its place in the queue.
//! - **Cloud nodes** join the pool `spin_up` after the start request and stop at the end of
//!   their lease (from the request) or when the policy stops them. Each is billed per second
//!   from the request to its stop: cost = Σ instance-hours × hourly price.
//! - At equal times: completions, then owner changes and node stops, then nodes joining, then
//!   submissions, then the negotiation cycle, then the progress sample.
//! - The run ends when every job has completed, or at [`SimConfig::until`]; nodes still alive
//!   then are stopped (and billed) at that time.
//!
//! **Completion time** = end − submit of a completed job; [`SimOutcome::completion_stats`]
//! gives its mean and sample standard deviation (the paper's Figures 1–4 metric).

use crate::classad::{ClassAd, match_ads};
use crate::policy::{
    Albatross, AlbatrossConfig, Capital, CloudNodeState, CloudNodeView, Decision, Observation,
};
use crate::pool::{DesktopSpec, Eviction, InstanceType, OwnerActivity, PeriodModel};
use crate::workload::Job;
use cosched_core::{Duration, Event, EventQueue, JobId, NodeId, ParamError, Time};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

/// The simulated pool and run.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The desktops (node ids `0..desktops.len()`; cloud nodes are numbered after them).
    pub desktops: Vec<DesktopSpec>,
    /// Their owners.
    pub owners: OwnerActivity,
    /// What an owner's return does to a running job.
    pub eviction: Eviction,
    /// The scaling policy (capital 0: no cloud).
    pub policy: AlbatrossConfig,
    /// Time between negotiation cycles, > 0.
    pub negotiation_interval: Duration,
    /// Time between progress samples, > 0.
    pub sample_interval: Duration,
    /// The run stops here even if jobs are left.
    pub until: Time,
    /// Seed of the owners' activity.
    pub seed: u64,
}

impl SimConfig {
    /// Checks the machines, the owners, the intervals and the policy.
    pub fn validate(&self) -> Result<(), ParamError> {
        for d in &self.desktops {
            d.validate()?;
        }
        self.owners.validate()?;
        ParamError::check(
            self.negotiation_interval.secs() > 0,
            "negotiation_interval",
            self.negotiation_interval,
            "must be > 0 s",
        )?;
        ParamError::check(
            self.sample_interval.secs() > 0,
            "sample_interval",
            self.sample_interval,
            "must be > 0 s",
        )?;
        Albatross::new(self.policy.clone(), Time::ZERO).map(|_| ())
    }

    /// This configuration with capital `c` (the rest of the policy unchanged).
    pub fn with_capital(mut self, c: Capital) -> SimConfig {
        self.policy.capital = c;
        self
    }
}

/// Where a job ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MachineKind {
    /// A scavenged desktop.
    Desktop,
    /// A cloud node of this instance type (index).
    Cloud(usize),
}

/// Why a run of a job on a slot ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// The job completed.
    Completed,
    /// The desktop's owner returned.
    Evicted,
    /// The cloud node stopped (lease end or spin-down); the job was checkpointed.
    NodeStopped,
    /// The simulation ended with the job still running.
    Unfinished,
}

/// One uninterrupted run of a job on one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The job's index in the input.
    pub job: usize,
    /// The slot's index in [`SimOutcome::slots`].
    pub slot: usize,
    /// Start of the run.
    pub start: Time,
    /// End of the run.
    pub end: Time,
    /// Why it ended.
    pub outcome: RunEnd,
}

/// One slot of the pool, as advertised.
#[derive(Debug, Clone)]
pub struct Slot {
    /// Its machine.
    pub node: NodeId,
    /// What kind of machine that is.
    pub kind: MachineKind,
    /// Its slot ad.
    pub ad: ClassAd,
}

/// What happened to one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobOutcome {
    /// The job.
    pub id: JobId,
    /// Submission.
    pub submit: Time,
    /// First dispatch.
    pub first_start: Option<Time>,
    /// Completion.
    pub end: Option<Time>,
    /// Where it completed.
    pub completed_on: Option<MachineKind>,
    /// Evictions by returning owners.
    pub evictions: u32,
    /// Requeues because a cloud node stopped under it.
    pub node_stops: u32,
}

impl JobOutcome {
    /// end − submit, if it completed.
    pub fn completion_time(&self) -> Option<Duration> {
        self.end.map(|e| e - self.submit)
    }
}

/// One cloud node's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloudNodeRecord {
    /// The node.
    pub node: NodeId,
    /// Its instance type (index).
    pub instance: usize,
    /// The start request (billing starts).
    pub requested: Time,
    /// When it joined the pool, if it did.
    pub ready: Option<Time>,
    /// When it stopped (billing ends).
    pub stopped: Time,
}

/// Cumulative counts at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgressSample {
    /// The instant.
    pub time: Time,
    /// Jobs submitted so far.
    pub submitted: usize,
    /// Jobs dispatched at least once so far.
    pub dispatched: usize,
    /// Jobs completed so far.
    pub completed: usize,
}

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct SimOutcome {
    /// One per input job, in input order.
    pub jobs: Vec<JobOutcome>,
    /// Every run of every job.
    pub placements: Vec<Placement>,
    /// Every slot that existed.
    pub slots: Vec<Slot>,
    /// Every cloud node started.
    pub cloud_nodes: Vec<CloudNodeRecord>,
    /// The instance types, as configured.
    pub instance_types: Vec<InstanceType>,
    /// Progress every sample interval from time 0, and at the end.
    pub progress: Vec<ProgressSample>,
    /// Σ instance-hours × hourly price.
    pub cloud_cost: f64,
    /// When the run ended.
    pub end: Time,
}

impl SimOutcome {
    /// Mean and sample standard deviation of the completion time (end − submit) of the
    /// completed jobs, in seconds; `None` if fewer than two completed.
    pub fn completion_stats(&self) -> Option<(f64, f64)> {
        let times: Vec<f64> = self
            .jobs
            .iter()
            .filter_map(|j| j.completion_time())
            .map(|d| d.secs() as f64)
            .collect();
        let n = times.len();
        if n < 2 {
            return None;
        }
        let mean = times.iter().sum::<f64>() / n as f64;
        let var = times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        Some((mean, var.sqrt()))
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

/// Runs `jobs` through the pool of `config` (see the module docs).
pub fn simulate(config: &SimConfig, jobs: &[Job]) -> Result<SimOutcome, ParamError> {
    config.validate()?;
    for job in jobs {
        ParamError::check(
            job.work_s.is_finite() && job.work_s > 0.0,
            "work_s",
            job.work_s,
            "every job needs finite work > 0",
        )?;
        ParamError::check(
            job.submit >= Time::ZERO,
            "submit",
            job.submit,
            "must be >= 0",
        )?;
    }
    let policy = Albatross::new(config.policy.clone(), Time::ZERO)?;
    let mut sim = Sim::new(config, jobs, policy);
    sim.run();
    Ok(sim.finish())
}

#[derive(Debug)]
enum Ev {
    Finish { slot: usize, epoch: u64 },
    Owner { desktop: usize },
    LeaseEnd { machine: usize },
    Ready { machine: usize },
    Submit { job: usize },
    Negotiate,
    Sample,
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::Finish { .. } => 0,
            Ev::Owner { .. } | Ev::LeaseEnd { .. } => 1,
            Ev::Ready { .. } => 2,
            Ev::Submit { .. } => 3,
            Ev::Negotiate => 4,
            Ev::Sample => 5,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CloudState {
    Booting,
    Up,
    Stopped,
}

enum MachineState {
    Desktop {
        owner_busy: bool,
        since: Time,
        rng: Box<ChaCha8Rng>,
    },
    Cloud {
        record: usize,
        state: CloudState,
        idle_since: Time,
    },
}

struct Machine {
    speed: f64,
    slots: std::ops::Range<usize>,
    state: MachineState,
}

struct SlotState {
    machine: usize,
    running: Option<usize>,
    started: Time,
    epoch: u64,
}

struct Sim<'a> {
    config: &'a SimConfig,
    jobs: &'a [Job],
    policy: Albatross,
    q: EventQueue<Ev>,
    machines: Vec<Machine>,
    slot_states: Vec<SlotState>,
    /// Work left per job, reference seconds.
    remaining_s: Vec<f64>,
    queue: BTreeSet<(Time, usize)>,
    submitted: usize,
    dispatched: usize,
    completed: usize,
    out: SimOutcome,
}

impl<'a> Sim<'a> {
    fn new(config: &'a SimConfig, jobs: &'a [Job], policy: Albatross) -> Sim<'a> {
        let mut sim = Sim {
            config,
            jobs,
            policy,
            q: EventQueue::new(Time::ZERO),
            machines: Vec::new(),
            slot_states: Vec::new(),
            remaining_s: jobs.iter().map(|j| j.work_s).collect(),
            queue: BTreeSet::new(),
            submitted: 0,
            dispatched: 0,
            completed: 0,
            out: SimOutcome {
                jobs: jobs
                    .iter()
                    .map(|j| JobOutcome {
                        id: j.id,
                        submit: j.submit,
                        first_start: None,
                        end: None,
                        completed_on: None,
                        evictions: 0,
                        node_stops: 0,
                    })
                    .collect(),
                placements: Vec::new(),
                slots: Vec::new(),
                cloud_nodes: Vec::new(),
                instance_types: config.policy.instance_types.clone(),
                progress: Vec::new(),
                cloud_cost: 0.0,
                end: Time::ZERO,
            },
        };
        for (i, d) in config.desktops.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
            rng.set_stream(i as u64);
            let owner_busy = config.owners.starts_busy(&mut rng);
            let period = if owner_busy {
                config.owners.busy
            } else {
                config.owners.idle
            };
            let first = period.sample(&mut rng);
            // An owner found idle at time 0 has been idle long enough to accept jobs.
            let since = if owner_busy {
                Time::ZERO
            } else {
                Time::ZERO - config.owners.accept_after
            };
            sim.add_machine(
                d.speed,
                MachineState::Desktop {
                    owner_busy,
                    since,
                    rng: Box::new(rng),
                },
                MachineKind::Desktop,
                d.slots,
                |name| d.slot_ad(name),
            );
            sim.at(Time::ZERO + first, Ev::Owner { desktop: i });
        }
        for (job, j) in jobs.iter().enumerate() {
            sim.at(j.submit, Ev::Submit { job });
        }
        sim.at(Time::ZERO, Ev::Negotiate);
        sim.at(Time::ZERO, Ev::Sample);
        sim
    }

    fn at(&mut self, time: Time, ev: Ev) {
        self.q
            .schedule(time, ev)
            .expect("the simulator schedules only at or after now");
    }

    fn add_machine(
        &mut self,
        speed: f64,
        state: MachineState,
        kind: MachineKind,
        slots: u32,
        ad: impl Fn(&str) -> ClassAd,
    ) -> usize {
        let machine = self.machines.len();
        let first = self.slot_states.len();
        for s in 0..slots {
            let name = match kind {
                MachineKind::Desktop => format!("slot{}@desktop{machine}", s + 1),
                MachineKind::Cloud(i) => {
                    format!(
                        "slot{}@{}-{machine}",
                        s + 1,
                        self.out.instance_types[i].name
                    )
                }
            };
            self.out.slots.push(Slot {
                node: NodeId(machine as u32),
                kind,
                ad: ad(&name),
            });
            self.slot_states.push(SlotState {
                machine,
                running: None,
                started: Time::ZERO,
                epoch: 0,
            });
        }
        self.machines.push(Machine {
            speed,
            slots: first..self.slot_states.len(),
            state,
        });
        machine
    }

    fn run(&mut self) {
        while let Some((now, ev)) = self.q.pop() {
            if now > self.config.until {
                break;
            }
            match ev {
                Ev::Finish { slot, epoch } => self.finish_run(now, slot, epoch),
                Ev::Owner { desktop } => self.owner_change(now, desktop),
                Ev::LeaseEnd { machine } => self.stop_node(now, machine),
                Ev::Ready { machine } => {
                    if let MachineState::Cloud {
                        record,
                        state,
                        idle_since,
                    } = &mut self.machines[machine].state
                        && *state == CloudState::Booting
                    {
                        *state = CloudState::Up;
                        *idle_since = now;
                        self.out.cloud_nodes[*record].ready = Some(now);
                    }
                }
                Ev::Submit { job } => {
                    self.submitted += 1;
                    self.queue.insert((self.jobs[job].submit, job));
                }
                Ev::Negotiate => {
                    self.negotiate(now);
                    self.at(now + self.config.negotiation_interval, Ev::Negotiate);
                }
                Ev::Sample => {
                    self.sample(now);
                    self.at(now + self.config.sample_interval, Ev::Sample);
                }
            }
            if self.completed == self.jobs.len() {
                break;
            }
        }
        let end = self.q.now().min(self.config.until);
        self.out.end = end;
        if self.out.progress.last().is_none_or(|p| p.time < end) {
            self.sample(end);
        }
        for slot in 0..self.slot_states.len() {
            self.end_run(end, slot, RunEnd::Unfinished);
        }
        for machine in 0..self.machines.len() {
            self.stop_node(end, machine);
        }
    }

    fn finish(mut self) -> SimOutcome {
        let types = &self.out.instance_types;
        self.out.cloud_cost = self.out.cloud_nodes.iter().fold(0.0, |sum, n| {
            sum + types[n.instance].cost(n.stopped - n.requested)
        });
        self.out
    }

    fn sample(&mut self, now: Time) {
        self.out.progress.push(ProgressSample {
            time: now,
            submitted: self.submitted,
            dispatched: self.dispatched,
            completed: self.completed,
        });
    }

    fn available(&self, machine: usize, now: Time) -> bool {
        match &self.machines[machine].state {
            MachineState::Desktop {
                owner_busy, since, ..
            } => !owner_busy && now - *since >= self.config.owners.accept_after,
            MachineState::Cloud { state, .. } => *state == CloudState::Up,
        }
    }

    fn negotiate(&mut self, now: Time) {
        let free: Vec<usize> = (0..self.slot_states.len())
            .filter(|&s| {
                self.slot_states[s].running.is_none()
                    && self.available(self.slot_states[s].machine, now)
            })
            .collect();
        let mut taken = vec![false; free.len()];
        let mut dispatched = 0;
        let queued: Vec<(Time, usize)> = self.queue.iter().copied().collect();
        for key in queued {
            let job = key.1;
            let mut best: Option<(f64, f64, usize)> = None;
            for (k, &slot) in free.iter().enumerate() {
                if taken[k] {
                    continue;
                }
                let m = match_ads(&self.jobs[job].ad, &self.out.slots[slot].ad);
                if m.matched
                    && best.is_none_or(|(jr, mr, _)| (m.job_rank, m.machine_rank) > (jr, mr))
                {
                    best = Some((m.job_rank, m.machine_rank, k));
                }
            }
            if let Some((_, _, k)) = best {
                taken[k] = true;
                self.queue.remove(&key);
                self.start_run(now, job, free[k]);
                dispatched += 1;
            }
        }
        self.consult_policy(now, dispatched);
    }

    fn consult_policy(&mut self, now: Time, dispatched: usize) {
        let waiting: Vec<&ClassAd> = self.queue.iter().map(|&(_, j)| &self.jobs[j].ad).collect();
        let nodes: Vec<CloudNodeView> = self
            .machines
            .iter()
            .enumerate()
            .filter_map(|(i, m)| match &m.state {
                MachineState::Cloud {
                    record,
                    state,
                    idle_since,
                } => {
                    let busy = m
                        .slots
                        .clone()
                        .any(|s| self.slot_states[s].running.is_some());
                    let state = match state {
                        CloudState::Stopped => return None,
                        CloudState::Booting => CloudNodeState::Booting,
                        CloudState::Up if busy => CloudNodeState::Busy,
                        CloudState::Up => CloudNodeState::Idle { since: *idle_since },
                    };
                    Some(CloudNodeView {
                        node: NodeId(i as u32),
                        instance: self.out.cloud_nodes[*record].instance,
                        state,
                    })
                }
                MachineState::Desktop { .. } => None,
            })
            .collect();
        let decisions = self.policy.after_cycle(
            now,
            &Observation {
                dispatched,
                waiting: &waiting,
                cloud_nodes: &nodes,
            },
        );
        for d in decisions {
            match d {
                Decision::Stop { node } => self.stop_node(now, node.index()),
                Decision::Start {
                    instance,
                    count,
                    lease,
                } => {
                    for _ in 0..count {
                        self.start_node(now, instance, lease);
                    }
                }
            }
        }
    }

    fn start_node(&mut self, now: Time, instance: usize, lease: Duration) {
        let t = self.out.instance_types[instance].clone();
        let record = self.out.cloud_nodes.len();
        let machine = self.add_machine(
            t.speed,
            MachineState::Cloud {
                record,
                state: CloudState::Booting,
                idle_since: now,
            },
            MachineKind::Cloud(instance),
            t.slots,
            |name| t.slot_ad(name),
        );
        self.out.cloud_nodes.push(CloudNodeRecord {
            node: NodeId(machine as u32),
            instance,
            requested: now,
            ready: None,
            stopped: Time::MAX,
        });
        self.at(now + t.spin_up, Ev::Ready { machine });
        self.at(now + lease, Ev::LeaseEnd { machine });
    }

    fn stop_node(&mut self, now: Time, machine: usize) {
        let MachineState::Cloud { record, state, .. } = &mut self.machines[machine].state else {
            return;
        };
        if *state == CloudState::Stopped {
            return;
        }
        *state = CloudState::Stopped;
        self.out.cloud_nodes[*record].stopped = now;
        for slot in self.machines[machine].slots.clone() {
            if self.slot_states[slot].running.is_some() {
                self.end_run(now, slot, RunEnd::NodeStopped);
            }
        }
    }

    fn owner_change(&mut self, now: Time, desktop: usize) {
        let owners = self.config.owners;
        let MachineState::Desktop {
            owner_busy,
            since,
            rng,
        } = &mut self.machines[desktop].state
        else {
            return;
        };
        *owner_busy = !*owner_busy;
        *since = now;
        let busy = *owner_busy;
        let next = if busy { owners.busy } else { owners.idle }.sample(rng);
        self.at(now + next, Ev::Owner { desktop });
        if busy {
            for slot in self.machines[desktop].slots.clone() {
                if self.slot_states[slot].running.is_some() {
                    self.end_run(now, slot, RunEnd::Evicted);
                }
            }
        }
    }

    fn start_run(&mut self, now: Time, job: usize, slot: usize) {
        let s = &mut self.slot_states[slot];
        s.running = Some(job);
        s.started = now;
        s.epoch += 1;
        let epoch = s.epoch;
        let speed = self.machines[s.machine].speed;
        let run = (self.remaining_s[job] / speed).ceil().max(1.0) as i64;
        let record = &mut self.out.jobs[job];
        if record.first_start.is_none() {
            record.first_start = Some(now);
            self.dispatched += 1;
        }
        self.at(now + Duration(run), Ev::Finish { slot, epoch });
    }

    fn finish_run(&mut self, now: Time, slot: usize, epoch: u64) {
        let s = &self.slot_states[slot];
        if s.epoch == epoch && s.running.is_some() {
            self.end_run(now, slot, RunEnd::Completed);
        }
    }

    /// Ends the run on `slot`: completes the job, or requeues it with its progress
    /// (checkpoint) or without (restart after an owner's return).
    fn end_run(&mut self, now: Time, slot: usize, outcome: RunEnd) {
        let s = &mut self.slot_states[slot];
        let Some(job) = s.running.take() else {
            return;
        };
        let machine = s.machine;
        let started = s.started;
        self.out.placements.push(Placement {
            job,
            slot,
            start: started,
            end: now,
            outcome,
        });
        let speed = self.machines[machine].speed;
        let remaining = &mut self.remaining_s[job];
        let record = &mut self.out.jobs[job];
        match outcome {
            RunEnd::Completed => {
                *remaining = 0.0;
                record.end = Some(now);
                record.completed_on = Some(self.out.slots[slot].kind);
                self.completed += 1;
            }
            RunEnd::Evicted | RunEnd::NodeStopped => {
                if outcome == RunEnd::Evicted {
                    record.evictions += 1;
                } else {
                    record.node_stops += 1;
                }
                let checkpoint =
                    outcome == RunEnd::NodeStopped || self.config.eviction == Eviction::Checkpoint;
                if checkpoint {
                    let done = (now - started).secs() as f64 * speed;
                    *remaining = (*remaining - done).max(f64::MIN_POSITIVE);
                } else {
                    *remaining = self.jobs[job].work_s;
                }
                self.queue.insert((self.jobs[job].submit, job));
            }
            RunEnd::Unfinished => {}
        }
        let idle = self.machines[machine]
            .slots
            .clone()
            .all(|s| self.slot_states[s].running.is_none());
        if let MachineState::Cloud { idle_since, .. } = &mut self.machines[machine].state
            && idle
        {
            *idle_since = now;
        }
    }
}

impl SimConfig {
    /// The calibrated pool of the paper's experiments with capital `c`: ten single-slot
    /// reference desktops (4 and 8 GB), owners busy and idle for log-normal periods
    /// ([`PAPER_OWNERS`]), checkpointing evictions, a negotiation cycle every 20 s, the
    /// default capital table ([`AlbatrossConfig::paper`]), progress sampled every 1000 s,
    /// and a run that may go one day past the paper's 100,000 s.
    pub fn paper(c: Capital) -> SimConfig {
        SimConfig {
            desktops: (0..10)
                .map(|i| DesktopSpec {
                    slots: 1,
                    memory_mb: if i % 2 == 0 { 4096 } else { 8192 },
                    speed: 1.0,
                })
                .collect(),
            owners: PAPER_OWNERS,
            eviction: Eviction::Checkpoint,
            policy: AlbatrossConfig::paper(c),
            negotiation_interval: Duration::from_secs(20),
            sample_interval: Duration::from_secs(1000),
            until: Time(100_000) + Duration::from_hours(24),
            seed: 0,
        }
    }
}

/// The owners of [`SimConfig::paper`]: busy for 60 minutes and away for 20 on average
/// (log-normal, cv 0.5), desktops accepting jobs after 10 idle minutes.
pub const PAPER_OWNERS: OwnerActivity = OwnerActivity {
    busy: PeriodModel::LogNormal {
        mean: Duration::from_mins(60),
        cv: 0.5,
    },
    idle: PeriodModel::LogNormal {
        mean: Duration::from_mins(20),
        cv: 0.5,
    },
    accept_after: Duration::from_mins(10),
};
