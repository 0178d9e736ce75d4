//! The pool simulator: desktops, their owners, cloud nodes and the negotiator — the
//! environment only — on cosched-core's kernel ([`cosched_core::engine::run_until`]), driven by
//! any policy of the Albatross protocol ([`AlbatrossPolicy`]: the built-in
//! [`crate::policy::Albatross`] and [`crate::policy::NoScaling`], built by [`crate::scenario`],
//! or a caller's own) through core's [`Driver`], whose commands go to the simulator's cloud
//! through [`CloudBackend`] (§V: ten desktops receiving a job every five minutes for 100,000 s,
//! with and without Albatross): `PoolSim::new(config)?.run(&mut policy, &jobs)`.
//!
//! ## What happens, exactly
//! - **Owners** toggle between busy and idle as [`crate::pool`] describes, each desktop from its
//!   own named random stream (`owners`, desktop index), so owner behaviour is the same whatever
//!   the jobs or the policy do ([`SimOutcome::owner_changes`] records it). Every owner is at the
//!   desk at time 0 (§V, Fig. 1).
//! - **Negotiation cycles** run every [`SimConfig::negotiation_interval`] from time 0. A cycle
//!   first sets every desktop slot ad's `KeyboardIdle`, then walks the queue in (submission,
//!   job) order; for each job it considers every free slot whose `START` holds (every desktop
//!   whose owner has been away long enough, every cloud node that has joined), keeps those
//!   whose match is symmetric ([`match_ads`]) and picks the highest job rank, then machine
//!   rank, then lowest slot. After the cycle the policy sees an [`Observation`] (with the
//!   instance types the cloud offers, which its start commands index) with the queued jobs'
//!   ads as its view, and its commands go to the simulator's cloud at once
//!   ([`crate::policy::apply`]). The policy's `start` runs once at time 0, before any cycle.
//! - **Slots**: static by default (a machine of `n` slots splits its memory evenly, HTCondor's
//!   default); with [`SimConfig::partitionable`] each machine advertises one partitionable
//!   slot (`PartitionableSlot = true`, its unclaimed `Cpus` and `Memory`), a matching job whose
//!   `RequestCpus` and `RequestMemory` fit gets a dynamic slot of that size (memory rounded up
//!   to 128 MB as HTCondor's default `MODIFY_REQUEST_EXPR_REQUESTMEMORY` does; the split is
//!   [`cosched_classad::slots::split`]), and the partitionable slot shrinks until the job
//!   leaves (HTCondor manual, "Dynamic Provisioning: Partitionable and Dynamic Slots"); one
//!   partitionable slot may take several jobs per cycle.
//! - A job with `w` full-core seconds of work left runs `ceil(w / speed)` seconds on a desktop
//!   ([`crate::pool::DESKTOP_SPEED`]); on a burstable cloud node its vCPU runs at a full core
//!   while the node holds CPU credits and at the node's baseline, shared by its busy vCPUs,
//!   once they are spent (EC2's t2 credits, [`crate::pool::default_instance_types`]); on a cloud
//!   slot each stay first pays [`SimConfig::cloud_transfer`] (§V: "transferring data to and
//!   from the AWS nodes"). An owner's return vacates or suspends it ([`OwnerReturn`]);
//!   suspended, it resumes once the owner has been away [`crate::pool::OwnerActivity::
//!   continue_after`], or is vacated after `max_suspension`. A cloud node's stop (lifetime end
//!   or spin-down) checkpoints its jobs. A vacated job goes back to its place in the queue.
//! - **Cloud nodes** join the pool `spin_up` after the start request and stop `lifetime` after
//!   joining, or when the policy stops them. Each is billed per second from the request to its
//!   stop: cost = Σ instance-hours × hourly price.
//! - At equal times: completions, then owner changes, resumptions, suspension limits and node
//!   stops, then nodes joining, then submissions, then the negotiation cycle.
//! - The run ends **at the horizon** (§V: 100,000 s; no grace period): jobs still running are
//!   cut, nodes still alive are stopped and billed then. (Negotiation cycles stop early once
//!   every job has completed and no cloud node is alive: nothing is left for them to do.)
//!
//! ## The paper's metrics
//! - **Progress** = completed / dispatched, where the paper's "dispatched to the system" is
//!   submitted (§V); [`SimOutcome::progress`] has a point at every submission and completion,
//!   so the saw-tooth shows.
//! - **Job run time** = completion − start of the stay that completed it (HTCondor's
//!   `CompletionDate − JobCurrentStartDate`), for jobs completed within the horizon. §V calls
//!   the metric "time to complete a job" and "job runtime"; it cannot be end − submit: with a
//!   FIFO queue and 1/8 of the jobs completing, completed jobs would have waited hours, not
//!   261 s. [`SimOutcome::runtime_stats`] gives its mean and sample standard deviation.

use crate::classad::{ClassAd, Value, match_ads, slots};
use crate::policy::{
    AlbatrossPolicy, CloudBackend, CloudNodeState, CloudNodeView, Command, Observation, apply,
};
use crate::pool::{
    BurstCredits, DESKTOP_SPEED, DesktopSpec, Eviction, InstanceType, KEYBOARD_IDLE, OwnerActivity,
    OwnerReturn, PeriodModel, default_instance_types, htcondor_desktop,
};
use crate::report::{
    CloudNodeRecord, JobOutcome, MachineKind, OwnerChange, Placement, ProgressPoint, RunEnd,
    SimOutcome, Slot,
};
use crate::workload::Job;
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
use cosched_core::policy::Policy;
use cosched_core::usage::{UsageKind, UsageLedger};
use cosched_core::{Duration, NodeId, ParamError, Pool, SeedStreams, StreamRng, Time};
use cosched_workload::admit::{DuplicateJobId, admit};
use std::collections::BTreeSet;
use std::sync::Arc;
use thiserror::Error;

/// The simulated pool and run.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The desktops (node ids `0..desktops.len()`; cloud nodes are numbered after them).
    pub desktops: Vec<DesktopSpec>,
    /// Their owners.
    pub owners: OwnerActivity,
    /// What an owner's return does to a running job.
    pub owner_return: OwnerReturn,
    /// The cloud's instance types, offered to the policy in every [`Observation`]
    /// ([`Observation::instance_types`]): a `Start { instance, .. }` indexes them.
    pub instance_types: Vec<InstanceType>,
    /// Most cloud nodes alive (booting or up) at once, whatever the policy asks; a start
    /// beyond it is a [`SimError::Command`] (it bounds what a policy can make the simulator
    /// allocate).
    pub max_cloud_nodes: u32,
    /// Time between negotiation cycles, > 0.
    pub negotiation_interval: Duration,
    /// Data transfer to and from a cloud node, paid at the start of every stay there, >= 0.
    pub cloud_transfer: Duration,
    /// The run stops here, jobs left or not.
    pub horizon: Time,
    /// Machines advertise one partitionable slot (a job takes a dynamic slot of its
    /// `RequestCpus` and `RequestMemory`) instead of static slots splitting them evenly.
    pub partitionable: bool,
    /// Root seed of the owners' streams.
    pub seed: u64,
}

/// Why a run could not be simulated; `E` is the policy's error.
#[derive(Debug, Error)]
pub enum SimError<E = std::convert::Infallible> {
    /// A configuration value is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Two jobs share an id.
    #[error(transparent)]
    DuplicateJob(#[from] DuplicateJobId),
    /// The event engine refused an event.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The policy failed (the call, its time and its error).
    #[error(transparent)]
    Policy(#[from] CallError<E>),
    /// The policy commanded what the pool cannot do.
    #[error("at {at}: the policy's command {command:?} cannot be applied: {reason}")]
    Command {
        /// When.
        at: Time,
        /// The command.
        command: Command,
        /// Why.
        reason: String,
    },
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
            self.cloud_transfer >= Duration::ZERO,
            "cloud_transfer",
            self.cloud_transfer,
            "must be >= 0 s",
        )?;
        ParamError::check(
            self.horizon >= Time::ZERO,
            "horizon",
            self.horizon,
            "must be >= 0",
        )?;
        for t in &self.instance_types {
            t.validate()?;
        }
        Ok(())
    }

    /// The paper's pool (§V): ten single-slot desktop VMs (4 GB, ours) running jobs at a
    /// loaded t2 VM's baseline ([`DESKTOP_SPEED`]), owners
    /// [`PAPER_OWNERS`], HTCondor's desktop policy for returning owners
    /// ([`htcondor_desktop::OWNER_RETURN`]), a negotiation cycle every 60 s (HTCondor's
    /// `NEGOTIATOR_INTERVAL` default), the t2 instance types
    /// ([`default_instance_types`]), at most [`MAX_CLOUD_NODES`] cloud nodes at once, 10 s of
    /// data transfer per cloud stay (ours: "a minor cost in time"), 100,000 s, static slots
    /// (HTCondor's default). The policy is the caller's ([`crate::scenario`]).
    pub fn paper() -> SimConfig {
        SimConfig {
            desktops: vec![
                DesktopSpec {
                    slots: 1,
                    memory_mb: 4096,
                    speed: DESKTOP_SPEED,
                };
                10
            ],
            owners: PAPER_OWNERS,
            owner_return: htcondor_desktop::OWNER_RETURN,
            instance_types: default_instance_types(),
            max_cloud_nodes: MAX_CLOUD_NODES,
            negotiation_interval: Duration::from_secs(60),
            cloud_transfer: Duration::from_secs(10),
            horizon: PAPER_HORIZON,
            partitionable: false,
            seed: 0,
        }
    }
}

/// The default bound on cloud nodes alive at once (ours: far above what any capital row of
/// the paper's table reaches, low enough that no policy makes the simulator allocate without
/// bound).
pub const MAX_CLOUD_NODES: u32 = 10_000;

/// The paper's horizon: 100,000 s (§V).
pub const PAPER_HORIZON: Time = Time(100_000);

/// The owners of [`SimConfig::paper`]. HTCondor's desktop policy sets when a desktop starts
/// and resumes jobs ([`htcondor_desktop`]); the periods are exponential (memoryless; ours),
/// busy for [`OWNER_BUSY_MEAN`] on average (ours: an hour at the desk between breaks) and away
/// for [`CALIBRATED_OWNER_IDLE_MEAN`], **calibrated on the no-Albatross baseline** (Fig. 1:
/// progress ≈ 1/8 at 100,000 s) by the `albatross_calibrate` example.
pub const PAPER_OWNERS: OwnerActivity = OwnerActivity {
    busy: PeriodModel::Exponential {
        mean: OWNER_BUSY_MEAN,
    },
    idle: PeriodModel::Exponential {
        mean: CALIBRATED_OWNER_IDLE_MEAN,
    },
    accept_after: htcondor_desktop::START_IDLE,
    continue_after: htcondor_desktop::CONTINUE_IDLE,
};

/// Mean time an owner uses a desktop between breaks (ours).
pub const OWNER_BUSY_MEAN: Duration = Duration::from_mins(60);
/// Mean time an owner stays away, calibrated on Fig. 1's progress.
pub const CALIBRATED_OWNER_IDLE_MEAN: Duration = Duration::from_secs(450);

/// The pool simulator: the pool and the run's settings, then [`PoolSim::run`] with a policy
/// and the jobs (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct PoolSim {
    config: SimConfig,
}

impl PoolSim {
    /// The pool of `config`.
    ///
    /// # Errors
    /// A configuration value out of range ([`SimConfig::validate`]).
    pub fn new(config: SimConfig) -> Result<PoolSim, ParamError> {
        config.validate()?;
        Ok(PoolSim { config })
    }

    /// The pool and settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Runs `jobs` (admitted through [`cosched_workload::admit`]) through the pool until its
    /// horizon with `policy` scaling it.
    ///
    /// # Errors
    /// Two jobs with one id, a command the pool cannot carry out, the policy's failure, or a
    /// time the clock cannot hold.
    pub fn run<P>(&self, policy: &mut P, jobs: &[Job]) -> Result<SimOutcome, SimError<P::Error>>
    where
        P: AlbatrossPolicy + ?Sized,
    {
        let config = &self.config;
        let admitted = admit(jobs)?;
        let mut queue = EventQueue::new(Time::ZERO);
        let mut sim = Sim {
            pool: World::new(config, admitted.jobs, &mut queue)?,
            driver: Driver::new(policy),
        };
        sim.pool.out.invalid_jobs = admitted.invalid;
        sim.driver.start(Time::ZERO, &mut sim.pool, &mut queue)?;
        engine::run_until(&mut sim, &mut queue, config.horizon)?;
        Ok(sim.pool.finish(config.horizon))
    }
}

#[derive(Debug)]
enum Ev {
    Finish { slot: usize, epoch: u64 },
    Owner { desktop: usize },
    Continue { desktop: usize, epoch: u64 },
    SuspendLimit { slot: usize, epoch: u64 },
    LifetimeEnd { machine: usize },
    Ready { machine: usize },
    Submit { job: usize },
    Negotiate,
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::Finish { .. } => 0,
            Ev::Owner { .. }
            | Ev::Continue { .. }
            | Ev::SuspendLimit { .. }
            | Ev::LifetimeEnd { .. } => 1,
            Ev::Ready { .. } => 2,
            Ev::Submit { .. } => 3,
            Ev::Negotiate => 4,
        }
    }
}

/// `secs` rounded up to whole seconds, at least 1; a span longer than i64 seconds is
/// `i64::MAX`, which ends after any horizon and is simply not scheduled.
fn whole_seconds(secs: f64) -> Duration {
    let s = secs.ceil().max(1.0);
    if s < i64::MAX as f64 {
        Duration(s as i64)
    } else {
        Duration(i64::MAX)
    }
}

/// Schedules `ev` `delay` after `now` if that is within `horizon` (later events could never
/// run); checked, so no user-given span can overflow the clock.
fn schedule_within(
    q: &mut EventQueue<Ev>,
    now: Time,
    delay: Duration,
    horizon: Time,
    ev: Ev,
) -> Result<(), EngineError> {
    match now.checked_add(delay) {
        Some(at) if at <= horizon => Ok(q.schedule(at, ev)?),
        _ => Ok(()),
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
        /// Bumped at every owner change: a pending `Continue` of an earlier absence is stale.
        epoch: u64,
        rng: Box<StreamRng>,
    },
    Cloud {
        record: usize,
        state: CloudState,
        lifetime: Duration,
    },
}

struct Machine {
    speed: f64,
    /// A burstable cloud node's CPU credits, from when it joins the pool.
    burst: Option<Burst>,
    slots: std::ops::Range<usize>,
    state: MachineState,
    /// The partitionable slot, if the machine has one (its `slots` are then its dynamic-slot
    /// capacity, one per CPU).
    pslot: Option<PartitionableSlot>,
}

/// A burstable (EC2 t2) node's CPU credits, as a fluid (Amazon EC2 User Guide, "Key concepts
/// and definitions for burstable performance instances"): one credit is one vCPU at 100 % for
/// one minute; the node earns `earned_per_hour` (its baseline: 10 % of a vCPU for a t2.micro,
/// 20 % for a small, 2 × 20 % for a medium, 2 × 30 % for a large) and holds at most 24 hours of
/// earnings. While it holds credits its busy vCPUs run at a full core; once they are spent the
/// node runs at its baseline, shared by its busy vCPUs (each at most a full core), earning
/// what it spends. A vCPU is busy from a job's dispatch to its departure (its transfer
/// included).
#[derive(Clone, Copy)]
struct Burst {
    /// Credits at `at`.
    balance: f64,
    /// Full-core seconds each busy vCPU has delivered since the node joined, at `at`.
    work: f64,
    at: Time,
    /// Credits earned per second.
    earn: f64,
    /// Most credits held.
    cap: f64,
    /// Busy vCPUs since `at`.
    busy: u32,
}

impl Burst {
    fn new(credits: BurstCredits, at: Time) -> Burst {
        Burst {
            balance: credits.launch,
            work: 0.0,
            at,
            earn: credits.earned_per_hour / 3600.0,
            cap: credits.earned_per_hour * 24.0,
            busy: 0,
        }
    }

    /// Credits spent per second beyond those earned while the busy vCPUs run at a full core.
    fn drain(&self) -> f64 {
        f64::from(self.busy) / 60.0 - self.earn
    }

    /// A busy vCPU's speed once the credits are spent, in full cores.
    fn throttled(&self) -> f64 {
        (self.earn * 60.0 / f64::from(self.busy.max(1))).min(1.0)
    }

    /// Seconds from `at` until the credits run out at the current load (infinite if never).
    fn until_empty(&self) -> f64 {
        let drain = self.drain();
        if drain > 0.0 {
            self.balance / drain
        } else {
            f64::INFINITY
        }
    }

    /// Moves the state to `t` (>= `at`) at the current load.
    fn advance(&mut self, t: Time) {
        let dt = (t - self.at).secs().max(0) as f64;
        let full = self.until_empty().min(dt);
        self.work += full + (dt - full) * self.throttled();
        self.balance = if full < dt {
            0.0
        } else {
            (self.balance - self.drain() * dt).min(self.cap)
        };
        self.at = t;
    }

    /// Seconds from `at` until a busy vCPU has delivered `work` more full-core seconds at the
    /// current load.
    fn time_for(&self, work: f64) -> f64 {
        let full = self.until_empty();
        if work <= full {
            work
        } else {
            full + (work - full) / self.throttled()
        }
    }
}

/// A machine's partitionable slot: its ad and unclaimed resources.
struct PartitionableSlot {
    ad: ClassAd,
    cpus: i64,
    memory_mb: i64,
}

/// A slot the negotiator may give a job this cycle.
#[derive(Clone, Copy)]
enum Candidate {
    /// A free static slot.
    Static(usize),
    /// A machine's partitionable slot.
    Partitionable(usize),
}

struct SlotState {
    machine: usize,
    /// The job on the slot, running or suspended.
    running: Option<usize>,
    /// Its dispatch.
    started: Time,
    /// The start of its current stretch (its dispatch or last resumption).
    resumed: Time,
    /// Transfer paid at the start of the current stretch.
    transfer: Duration,
    /// On a burstable node, [`Burst::work`] when the stretch's transfer ended (`None` until
    /// the node's state has passed that instant).
    work_from: Option<f64>,
    /// Since when it is suspended, if it is.
    suspended_since: Option<Time>,
    suspensions: u32,
    suspended: Duration,
    keyboard_idle: Option<Duration>,
    /// CPUs and memory a dynamic slot took from its partitionable slot.
    claimed: (i64, i64),
    /// Bumped whenever the slot's pending `Finish` or `SuspendLimit` becomes stale.
    epoch: u64,
}

/// The environment of one run.
struct World<'a> {
    config: &'a SimConfig,
    jobs: Vec<Job>,
    /// The jobs' ads, shared with the policy's view.
    ads: Vec<Arc<ClassAd>>,
    /// The view, reused every cycle.
    waiting: Vec<Arc<ClassAd>>,
    machines: Vec<Machine>,
    slot_states: Vec<SlotState>,
    /// Work left per job, reference seconds.
    remaining_s: Vec<f64>,
    queue: BTreeSet<(Time, usize)>,
    submitted: usize,
    completed: usize,
    out: SimOutcome,
}

/// A run: the pool and the driver of its policy.
struct Sim<'a, P: AlbatrossPolicy + ?Sized> {
    pool: World<'a>,
    driver: Driver<&'a mut P>,
}

type Failed<P> = SimError<<P as Policy>::Error>;

impl<P: AlbatrossPolicy + ?Sized> Simulation for Sim<'_, P> {
    type Event = Ev;
    type Error = Failed<P>;

    fn handle(&mut self, now: Time, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        if let Ev::Negotiate = ev {
            let pool = &mut self.pool;
            let (dispatched, free_desktop_slots) =
                pool.negotiate(now, q).map_err(SimError::widen)?;
            let observation = pool.cycle_observation(dispatched, free_desktop_slots);
            self.driver.observe(now, &observation, pool, q)?;
            // Once every job has completed and no cloud node is alive, no cycle can
            // change anything: the owners alone carry the run to the horizon.
            if pool.completed < pool.jobs.len() || pool.cloud_alive() > 0 {
                let (interval, horizon) = (pool.config.negotiation_interval, pool.config.horizon);
                schedule_within(q, now, interval, horizon, Ev::Negotiate)?;
            }
            return Ok(());
        }
        self.pool.handle(now, ev, q).map_err(SimError::widen)
    }

    fn settle(&mut self, _now: Time, _q: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        Ok(())
    }
}

/// The pool as the executor of the Albatross protocol: the commands go to its cloud.
impl<'p, P: AlbatrossPolicy + ?Sized> Executor<&'p mut P> for World<'_> {
    type Context = EventQueue<Ev>;
    type Error = Failed<P>;

    fn view(&mut self, _now: Time) -> &[Arc<ClassAd>] {
        &self.waiting
    }

    fn apply(
        &mut self,
        _: &mut Driver<&'p mut P>,
        q: &mut EventQueue<Ev>,
        now: Time,
        commands: &[Command],
    ) -> Result<(), Failed<P>> {
        apply(now, commands, &mut SimCloud { pool: self, q }).map_err(SimError::widen)
    }
}

impl SimError {
    /// The same error under any policy error type (the environment's errors name none).
    fn widen<E>(self) -> SimError<E> {
        match self {
            SimError::Param(e) => SimError::Param(e),
            SimError::DuplicateJob(e) => SimError::DuplicateJob(e),
            SimError::Engine(e) => SimError::Engine(e),
            SimError::Policy(e) => SimError::Policy(e.map(|never| match never {})),
            SimError::Command {
                at,
                command,
                reason,
            } => SimError::Command {
                at,
                command,
                reason,
            },
        }
    }
}

impl World<'_> {
    fn handle(&mut self, now: Time, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        match ev {
            Ev::Finish { slot, epoch } => {
                let s = &self.slot_states[slot];
                if s.epoch == epoch && s.running.is_some() && s.suspended_since.is_none() {
                    let machine = s.machine;
                    self.end_run(now, slot, RunEnd::Completed);
                    self.reschedule(now, machine, q)?;
                }
            }
            Ev::Owner { desktop } => self.owner_change(now, desktop, q)?,
            Ev::Continue { desktop, epoch } => self.continue_jobs(now, desktop, epoch, q)?,
            Ev::SuspendLimit { slot, epoch } => {
                let s = &self.slot_states[slot];
                if s.epoch == epoch && s.suspended_since.is_some() {
                    self.end_run(now, slot, RunEnd::SuspensionExpired);
                }
            }
            Ev::LifetimeEnd { machine } => self.stop_node(now, machine),
            Ev::Ready { machine } => {
                if let MachineState::Cloud {
                    record,
                    state: state @ CloudState::Booting,
                    lifetime,
                } = &mut self.machines[machine].state
                {
                    *state = CloudState::Up;
                    let (record, lifetime) = (*record, *lifetime);
                    self.out.cloud_nodes[record].ready = Some(now);
                    let instance = self.out.cloud_nodes[record].instance;
                    self.machines[machine].burst = self.out.instance_types[instance]
                        .credits
                        .map(|c| Burst::new(c, now));
                    let horizon = self.config.horizon;
                    schedule_within(q, now, lifetime, horizon, Ev::LifetimeEnd { machine })?;
                }
            }
            Ev::Submit { job } => {
                self.submitted += 1;
                self.queue.insert((self.jobs[job].submit, job));
                self.record_progress(now);
            }
            // A cycle calls the policy: the run's (`Sim::handle`).
            Ev::Negotiate => {}
        }
        Ok(())
    }
}

/// The simulator's cloud: the [`CloudBackend`] the policy's commands are applied to.
struct SimCloud<'s, 'a> {
    pool: &'s mut World<'a>,
    q: &'s mut EventQueue<Ev>,
}

impl CloudBackend for SimCloud<'_, '_> {
    type Error = SimError;

    fn start(
        &mut self,
        now: Time,
        instance: usize,
        count: u32,
        lifetime: Duration,
    ) -> Result<(), SimError> {
        let command = Command::Start {
            instance,
            count,
            lifetime,
        };
        let refuse = |reason: String| SimError::Command {
            at: now,
            command,
            reason,
        };
        let Some(t) = self.pool.out.instance_types.get(instance).cloned() else {
            let known = self.pool.out.instance_types.len();
            return Err(refuse(format!(
                "no instance type {instance} ({known} are configured)"
            )));
        };
        if lifetime <= Duration::ZERO {
            return Err(refuse("the lifetime must be > 0 s".into()));
        }
        let alive = self.pool.cloud_alive() as u64;
        let max = self.pool.config.max_cloud_nodes;
        if alive + u64::from(count) > u64::from(max) {
            return Err(refuse(format!(
                "{alive} cloud nodes are alive and at most {max} may be (SimConfig::max_cloud_nodes)"
            )));
        }
        for _ in 0..count {
            self.pool.start_node(now, instance, &t, lifetime, self.q)?;
        }
        Ok(())
    }

    fn stop(&mut self, now: Time, node: NodeId) -> Result<(), SimError> {
        self.pool.stop_node(now, node.index());
        Ok(())
    }
}

impl<'a> World<'a> {
    fn new<E>(
        config: &'a SimConfig,
        jobs: Vec<Job>,
        q: &mut EventQueue<Ev>,
    ) -> Result<World<'a>, SimError<E>> {
        let streams = SeedStreams::new(config.seed);
        let mut sim = World {
            config,
            remaining_s: jobs.iter().map(|j| j.work_s).collect(),
            ads: jobs.iter().map(|j| Arc::new(j.ad.clone())).collect(),
            waiting: Vec::new(),
            machines: Vec::new(),
            slot_states: Vec::new(),
            queue: BTreeSet::new(),
            submitted: 0,
            completed: 0,
            out: SimOutcome {
                jobs: jobs
                    .iter()
                    .map(|j| JobOutcome {
                        id: j.id,
                        submit: j.submit,
                        first_start: None,
                        last_start: None,
                        end: None,
                        completed_on: None,
                        evictions: 0,
                        suspensions: 0,
                        node_stops: 0,
                    })
                    .collect(),
                invalid_jobs: 0,
                placements: Vec::new(),
                slots: Vec::new(),
                cloud_nodes: Vec::new(),
                instance_types: config.instance_types.clone(),
                progress: Vec::new(),
                owner_changes: Vec::new(),
                cloud_cost: 0.0,
                usage: UsageLedger::with_windows(),
                end: config.horizon,
            },
            jobs,
        };
        let horizon = config.horizon;
        for (i, d) in config.desktops.iter().enumerate() {
            let mut rng = streams.stream("owners", i as u64);
            let first = config.owners.busy.sample(&mut rng);
            sim.add_machine(
                d.speed,
                MachineState::Desktop {
                    owner_busy: true,
                    since: Time::ZERO,
                    epoch: 0,
                    rng: Box::new(rng),
                },
                MachineKind::Desktop,
                (d.slots, d.memory_mb),
                |name| d.slot_ad(name, config.owners.accept_after),
            );
            schedule_within(q, Time::ZERO, first, horizon, Ev::Owner { desktop: i })?;
        }
        for (job, j) in sim.jobs.iter().enumerate() {
            if j.submit <= horizon {
                q.schedule(j.submit, Ev::Submit { job })
                    .map_err(EngineError::from)?;
            }
        }
        q.schedule(Time::ZERO, Ev::Negotiate)
            .map_err(EngineError::from)?;
        sim.record_progress(Time::ZERO);
        Ok(sim)
    }

    /// Adds a machine of `slots` slots (static) or CPUs (partitionable) and `memory_mb`.
    fn add_machine(
        &mut self,
        speed: f64,
        state: MachineState,
        kind: MachineKind,
        (slots, memory_mb): (u32, u32),
        ad: impl Fn(&str) -> ClassAd,
    ) -> usize {
        let machine = self.machines.len();
        let first = self.slot_states.len();
        let host = match kind {
            MachineKind::Desktop => format!("desktop{machine}"),
            MachineKind::Cloud(i) => format!("{}-{machine}", self.out.instance_types[i].name),
        };
        for s in 0..slots {
            let name = if self.config.partitionable {
                format!("slot1_{}@{host}", s + 1)
            } else {
                format!("slot{}@{host}", s + 1)
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
                transfer: Duration::ZERO,
                work_from: None,
                suspended_since: None,
                suspensions: 0,
                suspended: Duration::ZERO,
                keyboard_idle: None,
                claimed: (0, 0),
                epoch: 0,
            });
        }
        let pslot = self.config.partitionable.then(|| {
            let mut ad = ad(&format!("slot1@{host}"));
            ad.insert_value("Cpus", i64::from(slots));
            ad.insert_value("Memory", i64::from(memory_mb));
            ad.insert_value("PartitionableSlot", true);
            PartitionableSlot {
                ad,
                cpus: i64::from(slots),
                memory_mb: i64::from(memory_mb),
            }
        });
        self.machines.push(Machine {
            speed,
            burst: None,
            slots: first..self.slot_states.len(),
            state,
            pslot,
        });
        machine
    }

    /// Ends the run at the horizon: cuts running jobs, stops live nodes, bills them.
    fn finish(mut self, end: Time) -> SimOutcome {
        for slot in 0..self.slot_states.len() {
            self.end_run(end, slot, RunEnd::Unfinished);
        }
        for machine in 0..self.machines.len() {
            self.stop_node(end, machine);
            if let MachineState::Desktop {
                owner_busy: false,
                since,
                ..
            } = self.machines[machine].state
            {
                self.record_desktop_held(machine, since, end);
            }
        }
        if self.out.progress.last().is_none_or(|p| p.time < end) {
            self.record_progress(end);
        }
        let types = &self.out.instance_types;
        self.out.cloud_cost = self.out.cloud_nodes.iter().fold(0.0, |sum, n| {
            sum + types[n.instance].cost(n.stopped - n.requested)
        });
        self.out
    }

    /// Records `units` slots of `machine` doing `kind` over `from..to` (empty spans ignored).
    fn record_usage(&mut self, machine: usize, kind: UsageKind, from: Time, to: Time, units: u32) {
        let pool = match self.machines[machine].state {
            MachineState::Desktop { .. } => Pool::Volunteer,
            MachineState::Cloud { .. } => Pool::Cloud,
        };
        if from < to {
            // from < to, so the ledger cannot refuse the interval.
            let _ = self
                .out
                .usage
                .record(pool, kind, from, to, u64::from(units));
        }
    }

    /// Records a desktop's time willing to run jobs (`START` true) in an absence that began
    /// at `left` and ends at `now`.
    fn record_desktop_held(&mut self, machine: usize, left: Time, now: Time) {
        if let Some(from) = left.checked_add(self.config.owners.accept_after) {
            let units = self.machines[machine].slots.len() as u32;
            self.record_usage(machine, UsageKind::Held, from, now, units);
        }
    }

    fn record_progress(&mut self, now: Time) {
        self.out.progress.push(ProgressPoint {
            time: now,
            dispatched: self.submitted,
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
        for machine in 0..self.machines.len() {
            if let Some(idle) = self.keyboard_idle(machine, now) {
                for slot in self.machines[machine].slots.clone() {
                    self.out.slots[slot]
                        .ad
                        .insert_value(KEYBOARD_IDLE, idle.secs());
                }
                if let Some(p) = &mut self.machines[machine].pslot {
                    p.ad.insert_value(KEYBOARD_IDLE, idle.secs());
                }
            }
        }
    }

    /// The slots the negotiator may hand out this cycle: free static slots and partitionable
    /// slots with a CPU and a dynamic slot left, in the pool and with their own `START` true
    /// (no job can match the others).
    fn candidates(&self) -> Vec<Candidate> {
        let starts = |ad: &ClassAd| ad.eval_attr("Start", None) == Value::Bool(true);
        let mut out = Vec::new();
        for (machine, m) in self.machines.iter().enumerate() {
            if !self.in_pool(machine) {
                continue;
            }
            let free = |s: &usize| self.slot_states[*s].running.is_none();
            match &m.pslot {
                Some(p) => {
                    if p.cpus > 0 && m.slots.clone().any(|s| free(&s)) && starts(&p.ad) {
                        out.push(Candidate::Partitionable(machine));
                    }
                }
                None => out.extend(
                    m.slots
                        .clone()
                        .filter(|s| free(s) && starts(&self.out.slots[*s].ad))
                        .map(Candidate::Static),
                ),
            }
        }
        out
    }

    /// Whether `job` matches `candidate` (for a partitionable slot: and its request fits what
    /// is left), with the job's and the machine's ranks.
    fn try_match(&self, job: usize, candidate: Candidate) -> Option<(f64, f64)> {
        let ad = match candidate {
            Candidate::Static(slot) => &self.out.slots[slot].ad,
            Candidate::Partitionable(machine) => {
                let m = &self.machines[machine];
                let p = m.pslot.as_ref()?;
                let room = m
                    .slots
                    .clone()
                    .any(|s| self.slot_states[s].running.is_none());
                if !room || !slots::fits(&slots::request(&self.jobs[job].ad, &p.ad), &p.ad) {
                    return None;
                }
                &p.ad
            }
        };
        let m = match_ads(&self.jobs[job].ad, ad);
        m.matched.then_some((m.job_rank, m.machine_rank))
    }

    /// Claims `candidate` for `job`: a static slot as it is, or a dynamic slot carved out of
    /// the partitionable slot (its ad the partitionable one's with the job's `Cpus` and
    /// `Memory`); returns the slot the job runs on.
    fn claim(&mut self, job: usize, candidate: Candidate) -> Option<usize> {
        let machine = match candidate {
            Candidate::Static(slot) => return Some(slot),
            Candidate::Partitionable(machine) => machine,
        };
        let slots = self.machines[machine].slots.clone();
        let slot = slots
            .into_iter()
            .find(|&s| self.slot_states[s].running.is_none())?;
        let p = self.machines[machine].pslot.as_mut()?;
        let job_ad = &self.jobs[job].ad;
        let request = slots::request(job_ad, &p.ad);
        // The dynamic slot keeps the name this simulator gave the slot it occupies.
        let (mut dynamic, rest) = slots::split(&p.ad, job_ad, 1)?;
        p.ad = rest;
        p.cpus -= request.cpus;
        p.memory_mb -= request.memory_mb;
        let name = self.out.slots[slot].ad.eval_attr("Name", None);
        dynamic.insert_value("Name", name);
        self.out.slots[slot].ad = dynamic;
        self.slot_states[slot].claimed = (request.cpus, request.memory_mb);
        Some(slot)
    }

    /// One negotiation cycle at `now`; returns the jobs dispatched and the desktop slots left
    /// free and willing.
    fn negotiate(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(usize, usize), SimError> {
        self.update_desktop_ads(now);
        let free = self.candidates();
        let mut taken = vec![false; free.len()];
        let mut dispatched = 0;
        let queued: Vec<(Time, usize)> = self.queue.iter().copied().collect();
        for key in queued {
            if taken.iter().all(|&t| t) {
                break;
            }
            let job = key.1;
            let mut best: Option<(f64, f64, usize)> = None;
            for (k, &candidate) in free.iter().enumerate() {
                if taken[k] {
                    continue;
                }
                if let Some(ranks) = self.try_match(job, candidate)
                    && best.is_none_or(|(jr, mr, _)| ranks > (jr, mr))
                {
                    best = Some((ranks.0, ranks.1, k));
                }
            }
            let Some((_, _, k)) = best else { continue };
            let Some(slot) = self.claim(job, free[k]) else {
                continue;
            };
            // A static slot is gone; a partitionable slot stays on offer (try_match checks
            // what is left of it).
            taken[k] = matches!(free[k], Candidate::Static(_));
            self.queue.remove(&key);
            self.start_run(now, job, slot, q)?;
            dispatched += 1;
        }
        let free_desktop_slots = free
            .iter()
            .zip(&taken)
            .filter(|&(_, &t)| !t)
            .map(|(&c, _)| self.free_desktop_capacity(c))
            .sum();
        Ok((dispatched, free_desktop_slots))
    }

    /// How many more jobs a candidate on a desktop could take (0 on a cloud node).
    fn free_desktop_capacity(&self, candidate: Candidate) -> usize {
        match candidate {
            Candidate::Static(s) => usize::from(self.out.slots[s].kind == MachineKind::Desktop),
            Candidate::Partitionable(machine) => {
                let m = &self.machines[machine];
                match (&m.state, &m.pslot) {
                    (MachineState::Desktop { .. }, Some(p)) => {
                        let free = m.slots.clone();
                        let free = free.filter(|&s| self.slot_states[s].running.is_none());
                        free.count().min(p.cpus.max(0) as usize)
                    }
                    _ => 0,
                }
            }
        }
    }

    /// What the policy is told after a cycle; the view (the queued jobs' ads) is brought up
    /// to date with it.
    fn cycle_observation(&mut self, dispatched: usize, free_desktop_slots: usize) -> Observation {
        self.waiting.clear();
        let ads = &self.ads;
        self.waiting
            .extend(self.queue.iter().map(|&(_, j)| Arc::clone(&ads[j])));
        let cloud_nodes: Vec<CloudNodeView> = self
            .machines
            .iter()
            .enumerate()
            .filter_map(|(i, m)| match &m.state {
                MachineState::Cloud { record, state, .. } => {
                    let jobs = m
                        .slots
                        .clone()
                        .filter(|&s| self.slot_states[s].running.is_some())
                        .count() as u32;
                    let state = match state {
                        CloudState::Stopped => return None,
                        CloudState::Booting => CloudNodeState::Booting,
                        CloudState::Up if jobs > 0 => CloudNodeState::Busy { jobs },
                        CloudState::Up => CloudNodeState::Idle,
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
        Observation {
            dispatched,
            cloud_nodes,
            free_desktop_slots,
            instance_types: self.config.instance_types.clone(),
        }
    }

    /// Cloud nodes booting or up.
    fn cloud_alive(&self) -> usize {
        self.machines
            .iter()
            .filter(|m| {
                matches!(m.state, MachineState::Cloud { state, .. } if state != CloudState::Stopped)
            })
            .count()
    }

    fn start_node(
        &mut self,
        now: Time,
        instance: usize,
        t: &InstanceType,
        lifetime: Duration,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let record = self.out.cloud_nodes.len();
        let machine = self.add_machine(
            t.speed,
            MachineState::Cloud {
                record,
                state: CloudState::Booting,
                lifetime,
            },
            MachineKind::Cloud(instance),
            (t.slots, t.memory_mb),
            |name| t.slot_ad(name),
        );
        self.out.cloud_nodes.push(CloudNodeRecord {
            node: NodeId(machine as u32),
            instance,
            requested: now,
            ready: None,
            stopped: Time::MAX,
        });
        schedule_within(
            q,
            now,
            t.spin_up,
            self.config.horizon,
            Ev::Ready { machine },
        )
    }

    fn stop_node(&mut self, now: Time, machine: usize) {
        let Some(MachineState::Cloud { record, state, .. }) =
            self.machines.get_mut(machine).map(|m| &mut m.state)
        else {
            return;
        };
        if *state == CloudState::Stopped {
            return;
        }
        *state = CloudState::Stopped;
        let record = *record;
        self.out.cloud_nodes[record].stopped = now;
        let (requested, units) = (
            self.out.cloud_nodes[record].requested,
            self.machines[machine].slots.len() as u32,
        );
        self.record_usage(machine, UsageKind::Held, requested, now, units);
        for slot in self.machines[machine].slots.clone() {
            if self.slot_states[slot].running.is_some() {
                self.end_run(now, slot, RunEnd::NodeStopped);
            }
        }
    }

    fn owner_change(
        &mut self,
        now: Time,
        desktop: usize,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let owners = self.config.owners;
        let horizon = self.config.horizon;
        let MachineState::Desktop {
            owner_busy,
            since,
            epoch,
            rng,
        } = &mut self.machines[desktop].state
        else {
            return Ok(());
        };
        *owner_busy = !*owner_busy;
        let left = std::mem::replace(since, now);
        *epoch += 1;
        let (busy, epoch) = (*owner_busy, *epoch);
        let next = if busy { owners.busy } else { owners.idle }.sample(rng.as_mut());
        if busy {
            self.record_desktop_held(desktop, left, now);
        }
        self.out.owner_changes.push(OwnerChange {
            time: now,
            desktop,
            busy,
        });
        schedule_within(q, now, next, horizon, Ev::Owner { desktop })?;
        if !busy {
            let ev = Ev::Continue { desktop, epoch };
            return schedule_within(q, now, owners.continue_after, horizon, ev);
        }
        for slot in self.machines[desktop].slots.clone() {
            if self.slot_states[slot].running.is_none() {
                continue;
            }
            match self.config.owner_return {
                OwnerReturn::Vacate(_) => self.end_run(now, slot, RunEnd::Evicted),
                OwnerReturn::Suspend { max_suspension, .. } => {
                    self.suspend(now, slot, max_suspension, q)?
                }
            }
        }
        Ok(())
    }

    /// Resumes the desktop's suspended jobs if its owner is still away since the departure
    /// that scheduled this (HTCondor's `CONTINUE`).
    fn continue_jobs(
        &mut self,
        now: Time,
        desktop: usize,
        epoch: u64,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let m = &self.machines[desktop];
        if !matches!(m.state, MachineState::Desktop { epoch: e, owner_busy: false, .. } if e == epoch)
        {
            return Ok(());
        }
        for slot in m.slots.clone() {
            let s = &mut self.slot_states[slot];
            let (Some(job), Some(since)) = (s.running, s.suspended_since.take()) else {
                continue;
            };
            s.suspended += now - since;
            self.run_from(now, job, slot, Duration::ZERO, q)?;
        }
        Ok(())
    }

    /// The work done since the current stretch began, full-core seconds (a burstable node's
    /// credits settled to `now` first, [`World::settle`]).
    fn stretch_work(&self, now: Time, slot: usize) -> f64 {
        let s = &self.slot_states[slot];
        let m = &self.machines[s.machine];
        if let Some(b) = &m.burst {
            return s.work_from.map_or(0.0, |w| (b.work - w) * m.speed);
        }
        let ran = (now - s.resumed - s.transfer).secs().max(0);
        ran as f64 * m.speed
    }

    /// When the current stretch's transfer on `slot` ends.
    fn work_start(&self, slot: usize) -> Time {
        let s = &self.slot_states[slot];
        s.resumed.checked_add(s.transfer).unwrap_or(Time::MAX)
    }

    /// Brings a burstable node's credits to `now`, noting its work clock where a stretch's
    /// transfer ended in between.
    fn settle(&mut self, now: Time, machine: usize) {
        let Some(mut b) = self.machines[machine].burst else {
            return;
        };
        let mut pending: Vec<(Time, usize)> = self.machines[machine]
            .slots
            .clone()
            .filter(|&s| {
                let st = &self.slot_states[s];
                st.running.is_some() && st.work_from.is_none()
            })
            .map(|s| (self.work_start(s), s))
            .filter(|&(t, _)| t <= now)
            .collect();
        pending.sort_unstable();
        for (t, slot) in pending {
            b.advance(t.max(b.at));
            self.slot_states[slot].work_from = Some(b.work);
        }
        b.advance(now);
        self.machines[machine].burst = Some(b);
    }

    /// Schedules the completion of every job on a burstable node (settled to `now`) at the
    /// node's current load; their earlier completions become stale.
    fn reschedule(
        &mut self,
        now: Time,
        machine: usize,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let Some(b) = self.machines[machine].burst else {
            return Ok(());
        };
        let speed = self.machines[machine].speed;
        for slot in self.machines[machine].slots.clone() {
            let Some(job) = self.slot_states[slot].running else {
                continue;
            };
            let need = self.remaining_s[job] / speed;
            let offset = match self.slot_states[slot].work_from {
                Some(w) => b.time_for((need - (b.work - w)).max(0.0)),
                None => {
                    let start = self.work_start(slot);
                    let mut then = b;
                    then.advance(start);
                    (start - now).secs() as f64 + then.time_for(need)
                }
            };
            let delay = whole_seconds(offset);
            let s = &mut self.slot_states[slot];
            s.epoch += 1;
            let ev = Ev::Finish {
                slot,
                epoch: s.epoch,
            };
            schedule_within(q, now, delay, self.config.horizon, ev)?;
        }
        Ok(())
    }

    /// Pauses the job on `slot`: its progress so far is kept with it, its completion is
    /// cancelled, and it is vacated `max_suspension` from now unless resumed first.
    fn suspend(
        &mut self,
        now: Time,
        slot: usize,
        max_suspension: Duration,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let Some(job) = self.slot_states[slot].running else {
            return Ok(());
        };
        if self.slot_states[slot].suspended_since.is_some() {
            return Ok(());
        }
        let done = self.stretch_work(now, slot);
        let remaining = &mut self.remaining_s[job];
        *remaining = (*remaining - done).max(f64::MIN_POSITIVE);
        let (machine, resumed) = (
            self.slot_states[slot].machine,
            self.slot_states[slot].resumed,
        );
        self.record_usage(machine, UsageKind::Busy, resumed, now, 1);
        let s = &mut self.slot_states[slot];
        s.suspended_since = Some(now);
        s.suspensions += 1;
        s.epoch += 1;
        let epoch = s.epoch;
        self.out.jobs[job].suspensions += 1;
        let ev = Ev::SuspendLimit { slot, epoch };
        schedule_within(q, now, max_suspension, self.config.horizon, ev)
    }

    fn start_run(
        &mut self,
        now: Time,
        job: usize,
        slot: usize,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let keyboard_idle = self.keyboard_idle(self.slot_states[slot].machine, now);
        let transfer = match keyboard_idle {
            None => self.config.cloud_transfer,
            Some(_) => Duration::ZERO,
        };
        let s = &mut self.slot_states[slot];
        s.keyboard_idle = keyboard_idle;
        s.running = Some(job);
        s.started = now;
        s.suspended_since = None;
        s.suspensions = 0;
        s.suspended = Duration::ZERO;
        let record = &mut self.out.jobs[job];
        record.first_start.get_or_insert(now);
        record.last_start = Some(now);
        self.run_from(now, job, slot, transfer, q)
    }

    /// Lets `job` run on `slot` from `now`, after `transfer`, until its remaining work is done.
    fn run_from(
        &mut self,
        now: Time,
        job: usize,
        slot: usize,
        transfer: Duration,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let machine = self.slot_states[slot].machine;
        if self.machines[machine].burst.is_some() {
            self.settle(now, machine);
            let work = self.machines[machine].burst.map(|b| b.work);
            let s = &mut self.slot_states[slot];
            s.resumed = now;
            s.transfer = transfer;
            s.work_from = if transfer == Duration::ZERO {
                work
            } else {
                None
            };
            if let Some(b) = &mut self.machines[machine].burst {
                b.busy += 1;
            }
            return self.reschedule(now, machine, q);
        }
        let s = &mut self.slot_states[slot];
        s.resumed = now;
        s.transfer = transfer;
        s.epoch += 1;
        let epoch = s.epoch;
        let speed = self.machines[s.machine].speed;
        // Work is finite and > 0 (admission) and speed >= its validated minimum.
        let run = whole_seconds(self.remaining_s[job] / speed);
        let total = transfer.checked_add(run).unwrap_or(Duration(i64::MAX));
        schedule_within(
            q,
            now,
            total,
            self.config.horizon,
            Ev::Finish { slot, epoch },
        )
    }

    /// Ends the job's stay on `slot`: completes the job, or requeues it with its progress
    /// (checkpoint) or without (restart after an owner's return).
    fn end_run(&mut self, now: Time, slot: usize, outcome: RunEnd) {
        let Some(job) = self.slot_states[slot].running else {
            return;
        };
        let machine = self.slot_states[slot].machine;
        self.settle(now, machine);
        // Progress since the last resumption; a suspended job's was kept when it paused.
        let done = match self.slot_states[slot].suspended_since {
            Some(_) => 0.0,
            None => {
                let (machine, resumed) = (
                    self.slot_states[slot].machine,
                    self.slot_states[slot].resumed,
                );
                self.record_usage(machine, UsageKind::Busy, resumed, now, 1);
                self.stretch_work(now, slot)
            }
        };
        if let Some(b) = &mut self.machines[machine].burst {
            b.busy = b.busy.saturating_sub(1);
        }
        let s = &mut self.slot_states[slot];
        s.running = None;
        s.work_from = None;
        let (cpus, memory_mb) = std::mem::take(&mut s.claimed);
        let partitionable = self.machines[s.machine].pslot.is_some();
        if let Some(p) = &mut self.machines[s.machine].pslot {
            p.cpus += cpus;
            p.memory_mb += memory_mb;
            p.ad.insert_value("Cpus", p.cpus);
            p.ad.insert_value("Memory", p.memory_mb);
        }
        if let Some(since) = s.suspended_since.take() {
            s.suspended += now - since;
        }
        s.epoch += 1;
        self.out.placements.push(Placement {
            job,
            slot,
            start: s.started,
            end: now,
            keyboard_idle: s.keyboard_idle,
            suspensions: s.suspensions,
            suspended: s.suspended,
            transfer: s.transfer.min(now - s.started),
            dynamic_slot: partitionable.then_some((cpus, memory_mb)),
            outcome,
        });
        let keep_progress = match (outcome, self.config.owner_return) {
            (RunEnd::Completed | RunEnd::Unfinished | RunEnd::NodeStopped, _) => true,
            (_, OwnerReturn::Vacate(e) | OwnerReturn::Suspend { then: e, .. }) => {
                e == Eviction::Checkpoint
            }
        };
        if !keep_progress && let Some(stay) = self.out.placements.last().copied() {
            let machine = self.slot_states[slot].machine;
            let lost = stay.start.checked_add(stay.running()).unwrap_or(stay.end);
            self.record_usage(machine, UsageKind::Wasted, stay.start, lost, 1);
        }
        let remaining = &mut self.remaining_s[job];
        let record = &mut self.out.jobs[job];
        *remaining = if keep_progress {
            (*remaining - done).max(f64::MIN_POSITIVE)
        } else {
            self.jobs[job].work_s
        };
        match outcome {
            RunEnd::Completed => {
                *remaining = 0.0;
                record.end = Some(now);
                record.completed_on = Some(self.out.slots[slot].kind);
                self.completed += 1;
                self.record_progress(now);
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
    }
}
