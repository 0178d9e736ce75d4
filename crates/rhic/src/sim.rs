//! The simulator: one background job ([`BackgroundJob`], the workload) on `D` dedicated nodes
//! plus volunteers on a churning interactive cloud ([`SimConfig`]), an executor of the policy
//! protocol ([`crate::policy`]: any [`RhicPolicy`], driven by core's [`Driver`]) running on
//! core's kernel ([`cosched_core::engine`]): `RhicSim::new(config)?.run(&mut policy, &job)`.
//!
//! Events: a session ends or begins on an interactive node; a volunteer VM finishes booting;
//! one **second** of the world (1 s monitoring, §4.1): foreground CPU steps, the job computes
//! on the dedicated nodes and the ready volunteers, the dedicated disks slow both as they
//! saturate ([`env::io_second`]); and every **period** (1-minute evaluation interval, §4.1)
//! after the 1-minute dedicated-only profiling run: the measurements go to the policy and it
//! decides. The policy sees every node's noisy foreground reading (with the node's cores) each
//! second, and decides again between periods only when a volunteer leaves or fails to boot
//! (deferment, §4.4); each [`Observation::Progress`] says which it is ([`ProgressPoint`]).
//!
//! Every random draw comes from a named stream ([`SeedStreams`]): `slot` *i* (sessions and
//! foreground of interactive node slot *i*), `reading` *i* (its reading noise), `io` (the
//! dedicated nodes' load imbalance), `measure` (profile, disk, CPU and progress noise), `boot`
//! *i* (boot failures). None depends on the policy's choices, except the boot draws, which
//! have their own stream: every strategy meets the same cloud for the same seed.
//!
//! Volunteers compute at `min(residual CPU, map slots)` on their hosts, scaled by the disks'
//! service; a wave of their tasks (one per slot, the job's task length of work each at full
//! speed) commits when done, so a volunteer whose host session ends loses the work in flight,
//! and a starved or busy volunteer straggles: once no work is left to hand out, the job ends
//! with its last wave, or with backup copies on the dedicated nodes if those finish first
//! (`backup_tasks`, Hadoop's speculative execution; the tail model is ours); a volunteer the policy drops finishes its tasks first (drains, at most
//! `max_drain`, charged meanwhile); a volunteer added boots for `setup` (charged, not
//! computing). Money: dedicated nodes for the whole run, volunteers for their seconds in the
//! pool ([`CostModel::bill`]). Energy: dedicated nodes in full (idle plus the CPU they
//! consume), volunteers only for their increment (§4.3). Each period reports the average
//! length of the tasks finished so far, start to finish (a volunteer's wave, a dedicated
//! core's task at the disks' pace), which the controller's straggler padding reads (§4.3).

use crate::completion::{Progress, check_duration};
use crate::env::{self, EnvConfig, ForegroundProcess, JobProfile, gap_s};
use crate::goal::{Bill, CostModel, Goal, PowerModel};
pub use crate::policy::RhicPolicy;
use crate::policy::{Command, Observation, PeriodReport, ProfileReport, ProgressPoint};
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
use cosched_core::policy::Policy;
use cosched_core::seed::{SeedStreams, StreamRng};
use cosched_core::{Duration, NodeId, ParamError, Time};
use rand::RngExt;
use rand_distr::{Distribution, Normal};
use std::collections::BTreeMap;

/// The workload of a run: one background job and its dedicated nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackgroundJob {
    /// What the job is (its I/O, tasks and memory).
    pub profile: JobProfile,
    /// `Count_dedicated` (1..=10,000).
    pub dedicated: u32,
    /// The job's work, core-seconds (finite, > 0).
    pub work: f64,
}

impl BackgroundJob {
    /// `profile`'s job as the paper runs it: its work ([`JobProfile::work_core_s`]) on its
    /// dedicated nodes ([`JobProfile::dedicated`]).
    pub fn new(profile: JobProfile) -> Self {
        BackgroundJob {
            profile,
            dedicated: profile.dedicated(),
            work: profile.work_core_s(),
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.dedicated > 0 && self.dedicated <= 10_000,
            "dedicated",
            self.dedicated,
            "must be in 1..=10000",
        )?;
        ParamError::check(
            self.work.is_finite() && self.work > 0.0,
            "work",
            self.work,
            "must be finite and > 0",
        )
    }
}

/// The testbed and the run's settings (the job is the workload, [`BackgroundJob`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// The interactive cloud.
    pub env: EnvConfig,
    /// The run's goal: what the built-in policies optimise or measure
    /// ([`crate::scenario`]); a deadline is also reported as met or missed.
    pub goal: Goal,
    /// Prices.
    pub cost: CostModel,
    /// Node power.
    pub power: PowerModel,
    /// The evaluation interval (> 0 s; §4.1: one minute).
    pub interval: Duration,
    /// The dedicated-only profiling run (> 0 s; §4.1: one minute).
    pub profiling: Duration,
    /// The run gives up (unfinished) here.
    pub max_time: Duration,
    /// Root of every random stream of the run.
    pub seed: u64,
}

impl SimConfig {
    /// A run under `goal` with [`EnvConfig::default`], the paper's prices ($1.00/h, $0.42/h),
    /// the ARC power model ([`PowerModel::arc`]), 1-minute intervals and profiling, at most
    /// 24 hours.
    pub fn new(goal: Goal) -> Self {
        SimConfig {
            env: EnvConfig::default(),
            goal,
            cost: CostModel::default(),
            power: PowerModel::arc(),
            interval: Duration::from_mins(1),
            profiling: Duration::from_mins(1),
            max_time: Duration::from_hours(24),
            seed: 1,
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        self.env.validate()?;
        check_duration("interval", self.interval, true)?;
        check_duration("profiling", self.profiling, true)?;
        ParamError::check(
            self.max_time.0 > self.profiling.0 && self.max_time.0 <= 30 * 86_400,
            "max_time",
            self.max_time.0,
            "must exceed profiling and be at most 30 days",
        )?;
        Ok(())
    }
}

/// One sample of a run, at every period boundary and at the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolSample {
    /// When.
    pub at: Time,
    /// Volunteers in the pool (booting, computing or draining).
    pub in_pool: usize,
    /// Interactive nodes present (hosting a session).
    pub available: usize,
    /// The job's completed work, core-seconds (true, not the noisy report).
    pub completed: f64,
    /// Foreground CPU of the whole cloud over the period, core-seconds: the environment,
    /// whatever the policy.
    pub foreground_core_s: f64,
    /// Mean utilisation of the busiest dedicated disk over the period, in `[0, 1]` (true, not
    /// the noisy reading the policy gets).
    pub disk_util: f64,
    /// Pool commands the policy returned at this boundary (0 for the final sample).
    pub commands: usize,
}

/// What a run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Time from the start (profiling included) to completion, or to `max_time`.
    pub completion: Duration,
    /// The job finished within `max_time`.
    pub finished: bool,
    /// The money spent, node by node.
    pub bill: Bill,
    /// Seconds each volunteer host spent in the pool, in node order.
    pub volunteer_s: Vec<(NodeId, u64)>,
    /// Energy of the dedicated nodes, joules.
    pub dedicated_j: f64,
    /// Incremental energy of each volunteer host, joules, in node order.
    pub volunteer_j: Vec<(NodeId, f64)>,
    /// `dedicated_j` plus every volunteer's, joules.
    pub energy_j: f64,
    /// For a deadline goal: whether the job finished by it.
    pub deadline_met: Option<bool>,
    /// Volunteer-seconds in the pool over the run's seconds.
    pub mean_volunteers: f64,
    /// Volunteers that joined the pool (each boot counts: the transitions paid).
    pub joins: u64,
    /// One sample per period.
    pub trace: Vec<PoolSample>,
}

impl Outcome {
    /// The same run billed at other prices (a fixed-size run does not depend on them).
    pub fn bill_at(&self, cost: &CostModel) -> Bill {
        let dedicated = self.bill.dedicated.len() as u32;
        cost.bill(dedicated, self.completion.0 as u64, &self.volunteer_s)
    }
}

/// The simulator's events, in their order at one instant.
enum Ev {
    /// A session ends on slot `i` (class 0).
    SessionEnd(usize),
    /// A session begins on slot `i` (class 1).
    SessionStart(usize),
    /// A volunteer's VM has booted (class 2).
    Ready(NodeId),
    /// A period ends: report, then decide (class 3).
    Period,
    /// One second of the world from now (class 4).
    Second,
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::SessionEnd(_) => 0,
            Ev::SessionStart(_) => 1,
            Ev::Ready(_) => 2,
            Ev::Period => 3,
            Ev::Second => 4,
        }
    }
}

/// A session on a slot.
#[derive(Clone, Copy, Debug)]
struct Session {
    node: NodeId,
    process: ForegroundProcess,
    free_memory_mb: u64,
    fg_cores: f64,
}

/// An interactive node slot, its cores and its streams.
struct Slot {
    cores: f64,
    session: Option<Session>,
    rng: StreamRng,
    reading: StreamRng,
}

/// A volunteer in the pool: booting until `ready`, then computing; draining once `drain_by`.
#[derive(Clone, Copy, Debug)]
struct Volunteer {
    slot: usize,
    slots: u32,
    ready: bool,
    drain_by: Option<i64>,
    uncommitted: f64,
    /// When its current wave of tasks started (its first work since the last commit).
    wave_from: Option<i64>,
}

/// The tasks finished so far and their summed lengths (wall seconds, start to finish): what
/// the controller's straggler padding reads, "the average length of background tasks
/// experienced thus far" (§4.3).
#[derive(Clone, Copy, Debug, Default)]
struct TaskLengths {
    tasks: f64,
    seconds: f64,
}

impl TaskLengths {
    /// The average length, or `None` before a task has finished.
    fn mean(&self) -> Option<f64> {
        (self.tasks > 0.0).then(|| self.seconds / self.tasks)
    }
}

/// Sums over one period.
#[derive(Clone, Copy, Debug, Default)]
struct Meter {
    seconds: f64,
    available: f64,
    consumed: f64,
    max_disk: f64,
    mean_disk: f64,
    usd: f64,
    joules: f64,
    foreground: f64,
    reported_at_start: f64,
}

/// The environment of one run.
struct World<'a> {
    config: &'a SimConfig,
    job: &'a BackgroundJob,
    cores: f64,
    shares: Vec<f64>,
    slots: Vec<Slot>,
    slot_of: BTreeMap<NodeId, usize>,
    next_node: u32,
    streams: SeedStreams,
    measure: StreamRng,
    pool: BTreeMap<NodeId, Volunteer>,
    charged_s: BTreeMap<NodeId, u64>,
    joules: BTreeMap<NodeId, f64>,
    volunteer_seconds: u64,
    joins: u64,
    dedicated_j: f64,
    completed: f64,
    meter: Meter,
    consumed_reported_sum: f64,
    profiled: bool,
    redecide: bool,
    finished_at: Option<i64>,
    /// When the last work was handed out (the straggler tail began).
    tail_since: Option<i64>,
    /// Every task finished so far, dedicated and volunteer.
    task_lengths: TaskLengths,
    trace: Vec<PoolSample>,
}

/// A run: the environment and the driver of its policy.
struct Sim<'a, P: RhicPolicy + ?Sized> {
    world: World<'a>,
    driver: Driver<&'a mut P>,
}

type Failed<P> = SimError<<P as Policy>::Error>;

impl<P: RhicPolicy + ?Sized> Sim<'_, P> {
    /// Hands the policy one observation and applies the commands it returns (after every
    /// progress report, even none: the pool's drained volunteers go then); returns how many.
    fn tell(
        &mut self,
        at: Time,
        o: &Observation,
        q: &mut EventQueue<Ev>,
    ) -> Result<usize, Failed<P>> {
        let n = self.driver.observe(at, o, &mut self.world, q)?;
        if n == 0 && matches!(o, Observation::Progress { .. }) {
            self.world.retain_pool();
        }
        Ok(n)
    }

    fn start_session(
        &mut self,
        i: usize,
        under_way: bool,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), Failed<P>> {
        let env = &self.world.config.env;
        let Some(slot) = self.world.slots.get_mut(i) else {
            return Ok(());
        };
        let w = env.workloads[slot.rng.random_range(0..env.workloads.len())];
        let stats = w.stats();
        let length = if under_way {
            stats.residual_session_s(env.churn, &mut slot.rng)
        } else {
            stats.session_s(env.churn, &mut slot.rng)
        };
        let memory = stats.memory_mb(&mut slot.rng);
        // Validated with the configuration.
        let Ok(model) = env::BurstModel::of(&stats) else {
            return Ok(());
        };
        let process = model.start(&mut slot.rng);
        let node = NodeId(self.world.next_node);
        self.world.next_node = self.world.next_node.saturating_add(1);
        slot.session = Some(Session {
            node,
            process,
            free_memory_mb: env.shared_memory_mb.saturating_sub(memory),
            fg_cores: 0.0,
        });
        self.world.slot_of.insert(node, i);
        q.schedule_in(Duration(length.clamp(1.0, 1e15) as i64), Ev::SessionEnd(i))?;
        Ok(())
    }

    fn end_session(&mut self, i: usize, q: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        let Some(s) = self.world.slots[i].session.take() else {
            return Ok(());
        };
        self.world.slot_of.remove(&s.node);
        if self.world.pool.remove(&s.node).is_some() {
            self.world.redecide = true; // its work in flight is lost
        }
        self.tell(q.now(), &Observation::Left(s.node), q)?;
        let env = &self.world.config.env;
        let gap = gap_s(
            env.session_gap_mean_s / env.churn,
            &mut self.world.slots[i].rng,
        );
        q.schedule_in(Duration(gap.clamp(1.0, 1e15) as i64), Ev::SessionStart(i))?;
        Ok(())
    }

    /// A period (or the profiling run) ends at `now`.
    fn period(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        let config = self.world.config;
        let job = self.world.job;
        let env = &config.env;
        let m = self.world.meter;
        let secs = m.seconds.max(1.0);
        let rel =
            |sd: f64, rng: &mut StreamRng| Normal::new(0.0, sd).map_or(0.0, |d| d.sample(rng));
        let consumed =
            (m.consumed / secs * (1.0 + rel(env.consumed_noise, &mut self.world.measure))).max(0.0);
        self.world.consumed_reported_sum += consumed * secs;
        let max_disk =
            (m.max_disk / secs + rel(env.disk_noise, &mut self.world.measure)).clamp(0.0, 1.0);
        let mean_disk =
            (m.mean_disk / secs + rel(env.disk_noise, &mut self.world.measure)).clamp(0.01, 1.0);
        let progress = self.world.progress(now.0)?;
        let report = PeriodReport {
            seconds: secs,
            cpu_available: m.available / secs,
            cpu_consumed: consumed,
            max_disk_util: max_disk,
            task_s: self.world.task_lengths.mean(),
            work: progress.completed() - m.reported_at_start,
            usd: m.usd,
            joules: m.joules,
        };
        self.tell(now, &Observation::Period(report), q)?;
        if !self.world.profiled {
            self.world.profiled = true;
            let profile = ProfileReport {
                bw_util: mean_disk,
                dedicated_cpu: consumed.max(1e-9),
                slot_memory_mb: job.profile.slot_memory_mb(),
                task_s: self
                    .world
                    .task_lengths
                    .mean()
                    .unwrap_or(job.profile.task_s()),
            };
            self.tell(now, &Observation::Profile(profile), q)?;
        }
        self.world.trace.push(PoolSample {
            at: now,
            in_pool: self.world.pool.len(),
            available: self.world.slot_of.len(),
            completed: self.world.completed,
            foreground_core_s: m.foreground,
            disk_util: m.max_disk / secs,
            commands: 0,
        });
        self.world.meter = Meter {
            reported_at_start: progress.completed(),
            ..Meter::default()
        };
        let commands = self.tell(
            now,
            &Observation::Progress {
                progress,
                point: ProgressPoint::PeriodEnd,
            },
            q,
        )?;
        if let Some(sample) = self.world.trace.last_mut() {
            sample.commands = commands;
        }
        q.schedule_in(config.interval, Ev::Period)?;
        Ok(())
    }
}

impl World<'_> {
    /// One second `[t, t + 1)`.
    fn second(&mut self, t: i64) {
        let config = self.config;
        let env = &config.env;
        let cores = self.cores;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if let Some(s) = &mut slot.session {
                let pct = match env.cpu_traces.as_slice() {
                    [] => s.process.step(&mut slot.rng),
                    traces => traces[i % traces.len()].pct_at(t),
                };
                s.fg_cores = pct / 100.0 * slot.cores;
                self.meter.foreground += s.fg_cores;
            }
        }
        // In the tail (no work left to hand out) only volunteers with a task in flight compute.
        let tail = self.tail_since.is_some();
        let residual = |slots: &[Slot], v: &Volunteer| {
            if tail && v.uncommitted <= 0.0 {
                return 0.0;
            }
            slots.get(v.slot).map_or(0.0, |slot| {
                slot.session.map_or(0.0, |s| {
                    (slot.cores - s.fg_cores).max(0.0).min(f64::from(v.slots))
                })
            })
        };
        let demand: f64 = self
            .pool
            .values()
            .filter(|v| v.ready)
            .map(|v| residual(&self.slots, v))
            .sum();
        let io = env::io_second(self.job.profile.bw_util(), cores, &self.shares, demand);
        let dedicated_cpu = f64::from(self.job.dedicated) * cores;
        let task_s = self.job.profile.task_s();
        if !tail {
            // In the tail the dedicated nodes run backups and the reduce (their power is still
            // billed), no new map work.
            // Capped like the volunteers' waves, so reported progress never runs back.
            self.completed = (self.completed + io.dedicated_cpu).min(self.job.work);
            // One task per core at the disks' pace: `io.dedicated_cpu / task_s` tasks a
            // second, each lasting `task_s / pace`, so `dedicated_cpu` task-seconds.
            if io.dedicated_cpu > 0.0 {
                self.task_lengths.tasks += io.dedicated_cpu / task_s;
                self.task_lengths.seconds += dedicated_cpu;
            }
        }
        let power = &config.power;
        let ded_w = f64::from(self.job.dedicated) * power.idle_w()
            + power.dynamic_w(io.dedicated_cpu, cores);
        self.dedicated_j += ded_w;
        let slot_cores =
            |slots: &[Slot], v: &Volunteer| slots.get(v.slot).map_or(cores, |s| s.cores);
        let mut volunteers_w = 0.0;
        let mut consumed = io.dedicated_cpu;
        let mut leaving = Vec::new();
        self.volunteer_seconds += self.pool.len() as u64;
        for (&node, v) in self.pool.iter_mut() {
            *self.charged_s.entry(node).or_insert(0) += 1;
            let mut used = 0.0;
            if v.ready {
                used = residual(&self.slots, v) * io.volunteer_fraction;
                if used > 0.0 && v.wave_from.is_none() {
                    v.wave_from = Some(t);
                }
                v.uncommitted += used;
                // A wave of tasks is `task_s` seconds of work on each slot at full speed: a
                // volunteer short of CPU (a busy foreground, a smaller node) or starved by
                // the disks takes longer over it (a straggler).
                if v.uncommitted >= task_s * f64::from(v.slots.max(1)) {
                    // In the tail a wave may hold more than the work left: the job's total caps.
                    self.completed = (self.completed + v.uncommitted).min(self.job.work);
                    v.uncommitted = 0.0;
                    // A wave is one task per slot, all as long as the wave.
                    let tasks = f64::from(v.slots.max(1));
                    self.task_lengths.tasks += tasks;
                    self.task_lengths.seconds +=
                        tasks * (t + 1 - v.wave_from.take().unwrap_or(t)) as f64;
                    if v.drain_by.is_some() {
                        leaving.push(node);
                    }
                }
            }
            if v.drain_by.is_some_and(|by| by <= t + 1) {
                leaving.push(node);
            }
            consumed += used;
            let w = power.dynamic_w(used + env.vm_overhead_cpu, slot_cores(&self.slots, v));
            volunteers_w += w;
            *self.joules.entry(node).or_insert(0.0) += w;
        }
        for node in leaving {
            self.pool.remove(&node);
        }
        let in_flight: f64 = self.pool.values().map(|v| v.uncommitted).sum();
        let m = &mut self.meter;
        m.seconds += 1.0;
        m.available += dedicated_cpu + demand;
        m.consumed += consumed;
        m.max_disk += io.max_disk_util;
        m.mean_disk += io.mean_disk_util;
        m.usd += config
            .cost
            .usd_per_s(self.job.dedicated as usize, self.pool.len());
        m.joules += ded_w + volunteers_w;
        if self.tail_since.is_none() && self.completed + in_flight >= self.job.work {
            self.tail_since = Some(t + 1);
        } else if tail && !env.backup_tasks && self.completed + in_flight < self.job.work {
            self.tail_since = None; // a departed volunteer's task goes back to the pool
        }
        // The job ends when its last task does: every volunteer's wave committed, or, with
        // backup tasks, a backup copy (started on a dedicated slot at the tail's start, at the
        // disks' pace) done first.
        if let Some(since) = self.tail_since {
            let pace = io.dedicated_cpu / dedicated_cpu.max(1e-9);
            let backups_done = env.backup_tasks && (t + 1 - since) as f64 * pace >= task_s;
            if in_flight <= 0.0 || backups_done {
                self.completed = self.job.work;
                self.finished_at = Some(t + 1);
            }
        }
    }

    /// Drained volunteers leave the pool once their tasks in flight are committed.
    fn retain_pool(&mut self) {
        self.pool
            .retain(|_, v| v.drain_by.is_none() || (v.ready && v.uncommitted > 0.0));
    }

    fn progress(&mut self, now: i64) -> Result<Progress, ParamError> {
        let env = &self.config.env;
        let noise = Normal::new(0.0, env.progress_noise)
            .map_err(|_| ParamError::new("progress_noise", env.progress_noise, "must be finite"))?;
        let work = self.job.work;
        let reported = (self.completed * (1.0 + noise.sample(&mut self.measure))).clamp(0.0, work);
        let elapsed = now.max(1);
        Progress::new(
            reported,
            work - reported,
            Duration(elapsed),
            self.consumed_reported_sum / elapsed as f64,
        )
    }
}

/// The testbed as the executor of RHIC's protocol: newcomers boot, the dropped drain (at most
/// `max_drain`), re-chosen drainers stay; commands for nodes gone are ignored.
impl<'p, P: RhicPolicy + ?Sized> Executor<&'p mut P> for World<'_> {
    type Context = EventQueue<Ev>;
    type Error = Failed<P>;

    fn view(&mut self, _now: Time) -> &() {
        &()
    }

    fn apply(
        &mut self,
        _: &mut Driver<&'p mut P>,
        q: &mut EventQueue<Ev>,
        now: Time,
        commands: &[Command],
    ) -> Result<(), Failed<P>> {
        if commands.is_empty() {
            return Ok(());
        }
        let env = &self.config.env;
        for &command in commands {
            match command {
                Command::Leave(node) => {
                    if let Some(v) = self.pool.get_mut(&node) {
                        v.drain_by
                            .get_or_insert(now.0.saturating_add(env.max_drain.0));
                    }
                }
                Command::Join(a) | Command::Resize(a) => {
                    let Some(&slot) = self.slot_of.get(&a.node) else {
                        continue;
                    };
                    if let Some(v) = self.pool.get_mut(&a.node) {
                        v.drain_by = None;
                        v.slots = a.slots;
                        continue;
                    }
                    if matches!(command, Command::Resize(_)) {
                        continue; // not in the pool: nothing to resize
                    }
                    self.pool.insert(
                        a.node,
                        Volunteer {
                            slot,
                            slots: a.slots,
                            ready: false,
                            drain_by: None,
                            uncommitted: 0.0,
                            wave_from: None,
                        },
                    );
                    self.joins += 1;
                    q.schedule_in(env.setup, Ev::Ready(a.node))?;
                }
            }
        }
        self.retain_pool();
        Ok(())
    }
}

/// Why a run could not be simulated; `E` is the policy's error.
#[derive(Debug, thiserror::Error)]
pub enum SimError<E = ParamError> {
    /// A parameter of the configuration or the job is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The simulated clock would overflow.
    #[error("simulation clock: {0}")]
    Engine(#[from] EngineError),
    /// The policy failed (the call, its time and its error).
    #[error(transparent)]
    Policy(#[from] CallError<E>),
}

impl<P: RhicPolicy + ?Sized> Simulation for Sim<'_, P> {
    type Event = Ev;
    type Error = Failed<P>;

    fn handle(&mut self, now: Time, event: Ev, q: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        if self.world.finished_at.is_some() {
            return Ok(());
        }
        match event {
            Ev::SessionEnd(i) => self.end_session(i, q)?,
            Ev::SessionStart(i) => self.start_session(i, false, q)?,
            Ev::Ready(node) => {
                let failed = {
                    let p = self.world.config.env.boot_failure;
                    p > 0.0 && {
                        let slot = self.world.slot_of.get(&node).copied().unwrap_or(0) as u64;
                        let mut rng = self
                            .world
                            .streams
                            .stream("boot", slot ^ (u64::from(node.0) << 32));
                        rng.random::<f64>() < p
                    }
                };
                if let Some(v) = self.world.pool.get_mut(&node) {
                    if failed {
                        self.world.pool.remove(&node);
                        self.tell(now, &Observation::BootFailed(node), q)?;
                        self.world.redecide = true;
                    } else {
                        v.ready = true;
                        self.tell(now, &Observation::Joined(node), q)?;
                    }
                }
            }
            Ev::Period => self.period(now, q)?,
            Ev::Second => {
                let t = now.0;
                self.world.second(t);
                if self.world.finished_at.is_none() && t + 1 < self.world.config.max_time.0 {
                    q.schedule_in(Duration(1), Ev::Second)?;
                }
            }
        }
        Ok(())
    }

    /// The 1 s foreground readings, and a deferred decision when a volunteer left or failed.
    fn settle(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        if self.world.finished_at.is_some() {
            return Ok(());
        }
        let sd = self.world.config.env.cpu_noise;
        let noise = Normal::new(0.0, sd).ok();
        let mut readings = Vec::with_capacity(self.world.slots.len());
        for slot in &mut self.world.slots {
            if let Some(s) = &slot.session {
                let e = noise.map_or(0.0, |n| n.sample(&mut slot.reading));
                readings.push(Observation::Node {
                    node: s.node,
                    cores: slot.cores,
                    foreground_cpu: (s.fg_cores + e).clamp(0.0, slot.cores),
                    free_memory_mb: s.free_memory_mb,
                });
            }
        }
        for r in &readings {
            self.tell(now, r, q)?;
        }
        if self.world.redecide && self.world.profiled {
            self.world.redecide = false;
            let progress = self.world.progress(now.0)?;
            let between = Observation::Progress {
                progress,
                point: ProgressPoint::BetweenPeriods,
            };
            self.tell(now, &between, q)?;
        }
        Ok(())
    }
}

/// The simulator of one testbed ([`SimConfig`]): [`RhicSim::run`] runs a job on it under a
/// policy.
#[derive(Clone, Debug, PartialEq)]
pub struct RhicSim {
    config: SimConfig,
}

impl RhicSim {
    /// The testbed of `config`.
    ///
    /// # Errors
    /// A parameter out of range.
    pub fn new(config: SimConfig) -> Result<RhicSim, ParamError> {
        config.validate()?;
        Ok(RhicSim { config })
    }

    /// The testbed and settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Runs `job` to completion (or `max_time`) under `policy` (started at time 0, before the
    /// first session); deterministic for the seed: every policy meets the same cloud.
    ///
    /// ```
    /// use cosched_rhic::env::JobProfile;
    /// use cosched_rhic::sim::{BackgroundJob, RhicSim, SimConfig};
    /// use cosched_rhic::{CostModel, Goal, scenario};
    /// let mut c = SimConfig::new(Goal::Cost(CostModel::default()));
    /// c.env.interactive_nodes = 8;
    /// let mut job = BackgroundJob::new(JobProfile::Pi);
    /// job.work /= 20.0;
    /// let sim = RhicSim::new(c.clone())?;
    /// let some = sim.run(&mut scenario::fixed(8, &c)?, &job)?;
    /// let alone = sim.run(&mut scenario::fixed(0, &c)?, &job)?;
    /// assert!(some.finished && some.completion < alone.completion); // volunteers help Pi
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`SimError::Param`] for a job out of range, [`SimError::Policy`] when the policy fails,
    /// [`SimError::Engine`] when the clock would overflow.
    pub fn run<P>(&self, policy: &mut P, job: &BackgroundJob) -> Result<Outcome, SimError<P::Error>>
    where
        P: RhicPolicy + ?Sized,
    {
        job.validate()?;
        let config = &self.config;
        let env = &config.env;
        let streams = SeedStreams::new(config.seed);
        let cores = f64::from(env.cores);
        let mut io_rng = streams.stream("io", 0);
        let shares = env::io_shares(job.dedicated, env.imbalance, &mut io_rng);
        let slots = (0..env.interactive_nodes)
            .map(|i| Slot {
                cores: match env.interactive_cores.as_slice() {
                    [] => cores,
                    list => list.get(i % list.len()).map_or(cores, |&c| f64::from(c)),
                },
                session: None,
                rng: streams.stream("slot", i as u64),
                reading: streams.stream("reading", i as u64),
            })
            .collect();
        let world = World {
            config,
            job,
            cores,
            shares,
            slots,
            slot_of: BTreeMap::new(),
            next_node: 0,
            streams,
            measure: streams.stream("measure", 0),
            pool: BTreeMap::new(),
            charged_s: BTreeMap::new(),
            joules: BTreeMap::new(),
            volunteer_seconds: 0,
            joins: 0,
            dedicated_j: 0.0,
            completed: 0.0,
            meter: Meter::default(),
            consumed_reported_sum: 0.0,
            profiled: false,
            redecide: false,
            finished_at: None,
            tail_since: None,
            task_lengths: TaskLengths::default(),
            trace: Vec::new(),
        };
        let mut sim = Sim {
            world,
            driver: Driver::new(policy),
        };
        let mut q = EventQueue::new(Time::ZERO);
        sim.driver.start(Time::ZERO, &mut sim.world, &mut q)?;
        // §5.4: every experiment begins with every interactive node busy.
        for i in 0..env.interactive_nodes {
            sim.start_session(i, true, &mut q)?;
        }
        q.schedule(Time::ZERO, Ev::Second)
            .map_err(EngineError::from)?;
        q.schedule_in(config.profiling, Ev::Period)?;
        engine::run_until(&mut sim, &mut q, Time(config.max_time.0))?;
        let mut world = sim.world;

        let end = world.finished_at.unwrap_or(config.max_time.0);
        let finished = world.finished_at.is_some();
        world.trace.push(PoolSample {
            at: Time(end),
            in_pool: world.pool.len(),
            available: world.slot_of.len(),
            completed: world.completed,
            foreground_core_s: world.meter.foreground,
            disk_util: world.meter.max_disk / world.meter.seconds.max(1.0),
            commands: 0,
        });
        let volunteer_s: Vec<(NodeId, u64)> = world.charged_s.into_iter().collect();
        let bill = config.cost.bill(job.dedicated, end as u64, &volunteer_s);
        let volunteer_j: Vec<(NodeId, f64)> = world.joules.into_iter().collect();
        let energy_j = world.dedicated_j + volunteer_j.iter().map(|(_, j)| j).sum::<f64>();
        let deadline_met = match config.goal {
            Goal::Deadline(deadline) => Some(finished && end <= deadline.0),
            _ => None,
        };
        Ok(Outcome {
            completion: Duration(end),
            finished,
            bill,
            volunteer_s,
            dedicated_j: world.dedicated_j,
            volunteer_j,
            energy_j,
            deadline_met,
            mean_volunteers: world.volunteer_seconds as f64 / end.max(1) as f64,
            joins: world.joins,
            trace: world.trace,
        })
    }
}
