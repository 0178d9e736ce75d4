//! The pool simulator: desktops, their owners, cloud nodes, the negotiator and the
//! [`Albatross`] policy on cosched-core's [`EventQueue`] (the paper's evaluation set-up:
//! a desktop pool receiving a job every five minutes, with and without Albatross).
//!
//! ## What happens, exactly
//! - **Owners** toggle between busy and idle as [`crate::pool`] describes, each desktop from
//!   its own ChaCha8 stream (`seed`, stream = desktop index), so owner behaviour is the same
//!   whatever the jobs or the policy do.
//! - **Negotiation cycles** run every [`SimConfig::negotiation_interval`] from time 0. A cycle
//!   first sets every desktop slot ad's `KeyboardIdle` (seconds since its owner left, 0 while
//!   the owner is active), then walks the queue in (submission, job) order; for each job it
//!   considers every free slot of every machine in the pool (every desktop, every cloud node
//!   that has joined), keeps those whose match is symmetric (both `Requirements` true,
//!   [`match_ads`] — a desktop's `Requirements` include its `START = KeyboardIdle > N`, see
//!   [`crate::pool`]) and picks the highest job rank, then machine rank, then lowest slot.
//!   After the cycle the policy sees an [`Observation`] and its decisions are applied at once.
//! - A job with `w` reference seconds of work left runs `ceil(w / speed)` seconds on a machine
//!   of that speed. An owner's return vacates or suspends it ([`OwnerReturn`]): vacated, it
//!   keeps or loses its progress ([`Eviction`]); suspended, it holds its slot, paused, until
//!   the owner leaves (it then resumes with its progress) or `max_suspension` passes (it is
//!   then vacated). A cloud node's stop — lease end or idle spin-down — checkpoints it.
//!   A vacated job goes back to its place in the queue.
//! - **Cloud nodes** join the pool `spin_up` after the start request and stop at the end of
//!   their lease (from the request) or when the policy stops them. Each is billed per second
//!   from the request to its stop: cost = Σ instance-hours × hourly price.
//! - At equal times: completions, then owner changes, suspension limits and node stops, then
//!   nodes joining, then submissions, then the negotiation cycle, then the progress sample.
//! - The run ends when every job has completed, or at [`SimConfig::until`]; nodes still alive
//!   then are stopped (and billed) at that time.
//!
//! **Completion time** = end − submit of a completed job; [`SimOutcome::completion_stats`]
//! gives its mean and sample standard deviation (the paper's Figures 1–4 metric).

use crate::classad::{ClassAd, match_ads};
use crate::policy::{
    Albatross, AlbatrossConfig, Capital, CloudNodeState, CloudNodeView, Decision, Observation,
};
use crate::pool::{
    DesktopSpec, Eviction, InstanceType, KEYBOARD_IDLE, OwnerActivity, OwnerReturn, PeriodModel,
};
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
    pub owner_return: OwnerReturn,
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
        self.owner_return.validate()?;
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
    /// The desktop's owner returned and the job was vacated at once.
    Evicted,
    /// The job was suspended for `max_suspension` and then vacated ([`OwnerReturn::Suspend`]).
    SuspensionExpired,
    /// The cloud node stopped (lease end or spin-down); the job was checkpointed.
    NodeStopped,
    /// The simulation ended with the job still running.
    Unfinished,
}

/// One stay of a job on one slot, from its dispatch there to its completion or eviction;
/// it runs throughout except while suspended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The job's index in the input.
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
    /// Why it ended.
    pub outcome: RunEnd,
}

impl Placement {
    /// The time the job actually ran in this stay: `end − start − suspended`.
    pub fn running(&self) -> Duration {
        self.end - self.start - self.suspended
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
        ad
    }
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
    /// Evictions by returning owners (at once, or after a too long suspension).
    pub evictions: u32,
    /// Suspensions by returning owners.
    pub suspensions: u32,
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

/// Mean and sample standard deviation (divisor `n − 1`) of `xs`; `None` for fewer than two
/// values.
///
/// ```
/// use cosched_albatross::sim::mean_sd;
/// assert_eq!(mean_sd(&[1.0, 3.0]), Some((2.0, 2f64.sqrt())));
/// assert_eq!(mean_sd(&[1.0]), None);
/// ```
pub fn mean_sd(xs: &[f64]) -> Option<(f64, f64)> {
    let n = xs.len();
    if n < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some((mean, var.sqrt()))
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
        mean_sd(&times)
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
    SuspendLimit { slot: usize, epoch: u64 },
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
            Ev::Owner { .. } | Ev::SuspendLimit { .. } | Ev::LeaseEnd { .. } => 1,
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
    /// The job on the slot, running or suspended.
    running: Option<usize>,
    /// Its dispatch.
    started: Time,
    /// The start of its current stretch of running (its dispatch or last resumption).
    resumed: Time,
    /// Since when it is suspended, if it is.
    suspended_since: Option<Time>,
    suspensions: u32,
    suspended: Duration,
    keyboard_idle: Option<Duration>,
    /// Bumped whenever the slot's pending `Finish` or `SuspendLimit` becomes stale.
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
                        suspensions: 0,
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
                Time::ZERO - config.owners.accept_after - Duration(1)
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
                |name| d.slot_ad(name, config.owners.accept_after),
            );
            sim.at(Time::ZERO.saturating_add(first), Ev::Owner { desktop: i });
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
                resumed: Time::ZERO,
                suspended_since: None,
                suspensions: 0,
                suspended: Duration::ZERO,
                keyboard_idle: None,
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
                Ev::SuspendLimit { slot, epoch } => {
                    let s = &self.slot_states[slot];
                    if s.epoch == epoch && s.suspended_since.is_some() {
                        self.end_run(now, slot, RunEnd::SuspensionExpired);
                    }
                }
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
                    self.at(
                        now.saturating_add(self.config.negotiation_interval),
                        Ev::Negotiate,
                    );
                }
                Ev::Sample => {
                    self.sample(now);
                    self.at(now.saturating_add(self.config.sample_interval), Ev::Sample);
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

    /// Whether the machine is in the pool: a desktop always (its ad says whether it starts
    /// jobs), a cloud node once it has joined and until it stops.
    fn in_pool(&self, machine: usize) -> bool {
        match &self.machines[machine].state {
            MachineState::Desktop { .. } => true,
            MachineState::Cloud { state, .. } => *state == CloudState::Up,
        }
    }

    /// A desktop's `KeyboardIdle` at `now`: 0 while its owner is active, else the time since
    /// the owner left; `None` for a cloud node.
    fn keyboard_idle(&self, machine: usize, now: Time) -> Option<Duration> {
        match &self.machines[machine].state {
            MachineState::Desktop {
                owner_busy: true, ..
            } => Some(Duration::ZERO),
            MachineState::Desktop { since, .. } => Some(now - *since),
            MachineState::Cloud { .. } => None,
        }
    }

    /// Advertises every desktop slot's `KeyboardIdle` as of `now`.
    fn update_desktop_ads(&mut self, now: Time) {
        for (machine, m) in self.machines.iter().enumerate() {
            if let Some(idle) = self.keyboard_idle(machine, now) {
                for slot in m.slots.clone() {
                    self.out.slots[slot]
                        .ad
                        .insert_value(KEYBOARD_IDLE, idle.secs());
                }
            }
        }
    }

    fn negotiate(&mut self, now: Time) {
        self.update_desktop_ads(now);
        let free: Vec<usize> = (0..self.slot_states.len())
            .filter(|&s| {
                self.slot_states[s].running.is_none() && self.in_pool(self.slot_states[s].machine)
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
        self.at(now.saturating_add(t.spin_up), Ev::Ready { machine });
        self.at(now.saturating_add(lease), Ev::LeaseEnd { machine });
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
        self.at(now.saturating_add(next), Ev::Owner { desktop });
        for slot in self.machines[desktop].slots.clone() {
            if self.slot_states[slot].running.is_none() {
                continue;
            }
            match (busy, self.config.owner_return) {
                (true, OwnerReturn::Vacate(_)) => self.end_run(now, slot, RunEnd::Evicted),
                (true, OwnerReturn::Suspend { max_suspension, .. }) => {
                    self.suspend(now, slot, max_suspension)
                }
                (false, _) => self.resume(now, slot),
            }
        }
    }

    /// Pauses the job on `slot`: its progress so far is kept with it, its completion is
    /// cancelled, and it is vacated `max_suspension` from now unless resumed first.
    fn suspend(&mut self, now: Time, slot: usize, max_suspension: Duration) {
        let s = &mut self.slot_states[slot];
        let Some(job) = s.running else { return };
        if s.suspended_since.is_some() {
            return;
        }
        let speed = self.machines[s.machine].speed;
        let remaining = &mut self.remaining_s[job];
        *remaining = (*remaining - (now - s.resumed).secs() as f64 * speed).max(f64::MIN_POSITIVE);
        s.suspended_since = Some(now);
        s.suspensions += 1;
        s.epoch += 1;
        let epoch = s.epoch;
        self.out.jobs[job].suspensions += 1;
        self.at(
            now.saturating_add(max_suspension),
            Ev::SuspendLimit { slot, epoch },
        );
    }

    /// Resumes the suspended job on `slot`, if there is one.
    fn resume(&mut self, now: Time, slot: usize) {
        let s = &mut self.slot_states[slot];
        let (Some(job), Some(since)) = (s.running, s.suspended_since.take()) else {
            return;
        };
        s.suspended += now - since;
        self.run_from(now, job, slot);
    }

    fn start_run(&mut self, now: Time, job: usize, slot: usize) {
        let keyboard_idle = self.keyboard_idle(self.slot_states[slot].machine, now);
        let s = &mut self.slot_states[slot];
        s.keyboard_idle = keyboard_idle;
        s.running = Some(job);
        s.started = now;
        s.suspended_since = None;
        s.suspensions = 0;
        s.suspended = Duration::ZERO;
        let record = &mut self.out.jobs[job];
        if record.first_start.is_none() {
            record.first_start = Some(now);
            self.dispatched += 1;
        }
        self.run_from(now, job, slot);
    }

    /// Lets `job` run on `slot` from `now` until its remaining work is done.
    fn run_from(&mut self, now: Time, job: usize, slot: usize) {
        let s = &mut self.slot_states[slot];
        s.resumed = now;
        s.epoch += 1;
        let epoch = s.epoch;
        let speed = self.machines[s.machine].speed;
        let run = (self.remaining_s[job] / speed).ceil().max(1.0) as i64;
        self.at(
            now.saturating_add(Duration(run)),
            Ev::Finish { slot, epoch },
        );
    }

    fn finish_run(&mut self, now: Time, slot: usize, epoch: u64) {
        let s = &self.slot_states[slot];
        if s.epoch == epoch && s.running.is_some() && s.suspended_since.is_none() {
            self.end_run(now, slot, RunEnd::Completed);
        }
    }

    /// Ends the job's stay on `slot`: completes the job, or requeues it with its progress
    /// (checkpoint) or without (restart after an owner's return).
    fn end_run(&mut self, now: Time, slot: usize, outcome: RunEnd) {
        let s = &mut self.slot_states[slot];
        let Some(job) = s.running.take() else {
            return;
        };
        let machine = s.machine;
        // Progress since the last resumption; a suspended job's was kept when it paused.
        let ran = match s.suspended_since.take() {
            Some(since) => {
                s.suspended += now - since;
                Duration::ZERO
            }
            None => now - s.resumed,
        };
        s.epoch += 1;
        self.out.placements.push(Placement {
            job,
            slot,
            start: s.started,
            end: now,
            keyboard_idle: s.keyboard_idle,
            suspensions: s.suspensions,
            suspended: s.suspended,
            outcome,
        });
        let speed = self.machines[machine].speed;
        let remaining = &mut self.remaining_s[job];
        let record = &mut self.out.jobs[job];
        let keep_progress = match (outcome, self.config.owner_return) {
            (RunEnd::Completed | RunEnd::Unfinished | RunEnd::NodeStopped, _) => true,
            (_, OwnerReturn::Vacate(e) | OwnerReturn::Suspend { then: e, .. }) => {
                e == Eviction::Checkpoint
            }
        };
        *remaining = if keep_progress {
            (*remaining - ran.secs() as f64 * speed).max(f64::MIN_POSITIVE)
        } else {
            self.jobs[job].work_s
        };
        match outcome {
            RunEnd::Completed => {
                *remaining = 0.0;
                record.end = Some(now);
                record.completed_on = Some(self.out.slots[slot].kind);
                self.completed += 1;
            }
            RunEnd::Evicted | RunEnd::SuspensionExpired | RunEnd::NodeStopped => {
                if outcome == RunEnd::NodeStopped {
                    record.node_stops += 1;
                } else {
                    record.evictions += 1;
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
            owner_return: OwnerReturn::Vacate(Eviction::Checkpoint),
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
