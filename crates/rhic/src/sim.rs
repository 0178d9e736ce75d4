//! The simulator: one background job on `D` dedicated nodes plus volunteers on a churning
//! interactive cloud, an executor of the policy protocol ([`PoolPolicy`]) running on core's
//! kernel ([`cosched_core::engine`]).
//!
//! Events: a session ends or begins on an interactive node; a volunteer VM finishes booting;
//! one **second** of the world (1 s monitoring, §4.1): foreground CPU steps, the job computes
//! on the dedicated nodes and the ready volunteers, the dedicated disks slow both as they
//! saturate ([`env::io_second`]); and every **period** (1-minute evaluation interval, §4.1)
//! after the 1-minute dedicated-only profiling run: the measurements go to the policy and it
//! decides. The policy sees every node's noisy foreground reading each second, and decides
//! again mid-period only when a volunteer leaves or fails to boot (deferment, §4.4).
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
//! consume), volunteers only for their increment (§4.3).

use crate::baseline::{Baseline, Fuzzy, Rule};
use crate::completion::Progress;
use crate::env::{self, ForegroundProcess, JobProfile, Workload, gap_s};
use crate::goal::{Bill, CostModel, Goal, PowerModel};
use crate::policy::{
    Assignment, DecisionKind, Observation, PeriodReport, PoolPolicy, ProfileReport, Rhic,
    RhicConfig,
};
use crate::search::SearchMethod;
use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
use cosched_core::seed::{SeedStreams, StreamRng};
use cosched_core::{Duration, NodeId, ParamError, Time};
use rand::RngExt;
use rand_distr::{Distribution, Normal};
use std::collections::BTreeMap;

/// The interactive cloud and its noise.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvConfig {
    /// `CPU_max`: cores per node, dedicated and (unless `interactive_cores` says otherwise)
    /// interactive (> 0; §5.1: 16).
    pub cores: u32,
    /// Cores of interactive node slot `i`, cycling through the list (each in 1..=1024); empty
    /// (the default, the paper's homogeneous ARC testbed): every slot has `cores`. The policy
    /// is told each node's capacity ([`Observation::Capacity`]); §4.1 notes the model extends
    /// to a few hardware types, Fig. 7 that Hadoop tolerates uneven per-node CPU.
    pub interactive_cores: Vec<u32>,
    /// Memory the foreground and volunteer VMs of a node share, MiB (§5.1: 8 GB).
    pub shared_memory_mb: u64,
    /// Interactive nodes (host slots), each hosting one session at a time.
    pub interactive_nodes: usize,
    /// The session types, drawn in equal proportion (§5.2: 25 % each).
    pub workloads: Vec<Workload>,
    /// Churn factor (≥ 1): sessions and the gaps between them are this many times shorter.
    pub churn: f64,
    /// Mean gap before a node hosts its next session, seconds (> 0; ours), divided by `churn`.
    pub session_gap_mean_s: f64,
    /// Load imbalance of the volunteers' I/O across dedicated nodes, in `[0, 1)`
    /// ([`env::io_shares`]; ours).
    pub imbalance: f64,
    /// Standard deviation of a 1 s foreground-CPU reading, cores (≥ 0; ours).
    pub cpu_noise: f64,
    /// Relative standard deviation of the reported completed work (≥ 0; ours).
    pub progress_noise: f64,
    /// Relative standard deviation of a period's CPU-consumed reading (≥ 0; ours: §5.3 calls
    /// these readings noisy).
    pub consumed_noise: f64,
    /// Standard deviation of a disk-utilisation reading (≥ 0; ours).
    pub disk_noise: f64,
    /// Boot time of a volunteer VM (≥ 0; ours).
    pub setup: Duration,
    /// Longest a removed volunteer drains its tasks in flight (≥ 0; ours).
    pub max_drain: Duration,
    /// Probability that a volunteer VM fails to boot, in `[0, 1]` (ours: 0).
    pub boot_failure: f64,
    /// Backup (speculative) copies of straggling tasks at the job's end (Hadoop's default, the
    /// LATE scheduler the paper cites \[22\]): once no work is left to hand out, every task still
    /// running on a volunteer also starts on a free dedicated slot, and whichever copy
    /// finishes first counts. Without them the job waits for its slowest volunteer.
    pub backup_tasks: bool,
    /// CPU a volunteer VM burns besides the job's (cores, ≥ 0; ours), for energy.
    pub vm_overhead_cpu: f64,
}

impl Default for EnvConfig {
    /// The paper's testbed (§5.1): 36 interactive 16-core nodes sharing 8 GB between the
    /// foreground and volunteer VMs, the four workloads in equal proportion, natural churn;
    /// ours: sessions 5 minutes apart on average, 30 % I/O imbalance, 1-core reading noise,
    /// 3 % progress noise, 5 % CPU-consumed noise, 2 % disk noise, 30 s VM setup, drains of at
    /// most 5 minutes, no boot failures, 0.1-core VM overhead.
    fn default() -> Self {
        EnvConfig {
            cores: env::CORES,
            interactive_cores: Vec::new(),
            shared_memory_mb: env::SHARED_VM_MEMORY_MB,
            interactive_nodes: 36,
            workloads: Workload::ALL.to_vec(),
            churn: 1.0,
            session_gap_mean_s: 300.0,
            imbalance: 0.3,
            cpu_noise: 1.0,
            progress_noise: 0.03,
            consumed_noise: 0.05,
            disk_noise: 0.02,
            setup: Duration(30),
            max_drain: Duration::from_mins(5),
            boot_failure: 0.0,
            backup_tasks: true,
            vm_overhead_cpu: 0.1,
        }
    }
}

/// How the pool is sized: RHIC or one of the baselines ([`crate::baseline`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strategy {
    /// The RHIC controller with the run's goal.
    Rhic,
    /// A fixed number of volunteers (the exhaustive survey's targeted runs, §5.2).
    Fixed(usize),
    /// FUZZY with step `p`, starting at `start_fraction` of the interactive nodes (§5.3).
    Fuzzy {
        /// Step `p`.
        step: usize,
        /// `S` as a fraction of the interactive nodes, in `[0, 1]`.
        start_fraction: f64,
    },
    /// Every node whose predicted residual exceeds `theta · CPU_max` (§5.3).
    Threshold(f64),
}

/// One run.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// The interactive cloud.
    pub env: EnvConfig,
    /// The background job.
    pub profile: JobProfile,
    /// `Count_dedicated` (> 0).
    pub dedicated: u32,
    /// The job's work, core-seconds (> 0).
    pub work: f64,
    /// What RHIC optimises and FUZZY measures; a deadline is also reported as met or missed.
    pub goal: Goal,
    /// The sizing strategy.
    pub strategy: Strategy,
    /// Prices.
    pub cost: CostModel,
    /// Node power.
    pub power: PowerModel,
    /// The evaluation interval (> 0 s; §4.1: one minute).
    pub interval: Duration,
    /// The dedicated-only profiling run (> 0 s; §4.1: one minute).
    pub profiling: Duration,
    /// FUZZY's dead-band, relative (≥ 0; ours: 2 %).
    pub fuzzy_deadband: f64,
    /// How RHIC searches the sizes (§4.1: exhaustive, or simulated annealing).
    pub rhic_search: SearchMethod,
    /// Whether RHIC starts cost and energy runs with Algorithm 1 (the paper: true).
    pub rhic_initial_scaling: bool,
    /// The run gives up (unfinished) here.
    pub max_time: Duration,
    /// Root of every random stream of the run.
    pub seed: u64,
}

impl SimConfig {
    /// A run of `profile`'s work ([`JobProfile::work_core_s`]) on its dedicated nodes
    /// ([`JobProfile::dedicated`]) under `strategy` and `goal`, with [`EnvConfig::default`],
    /// the paper's prices ($1.00/h, $0.42/h), the ARC power model ([`PowerModel::arc`]),
    /// 1-minute intervals and profiling, a 2 % FUZZY dead-band, RHIC's Algorithm 1 and exhaustive
    /// search, at most 24 hours.
    pub fn new(profile: JobProfile, goal: Goal, strategy: Strategy) -> Self {
        SimConfig {
            env: EnvConfig::default(),
            profile,
            dedicated: profile.dedicated(),
            work: profile.work_core_s(),
            goal,
            strategy,
            cost: CostModel::default(),
            power: PowerModel::arc(),
            interval: Duration::from_mins(1),
            profiling: Duration::from_mins(1),
            fuzzy_deadband: 0.02,
            rhic_search: SearchMethod::Exhaustive,
            rhic_initial_scaling: true,
            max_time: Duration::from_hours(24),
            seed: 1,
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        let e = &self.env;
        ParamError::check(e.cores > 0, "cores", e.cores, "must be > 0")?;
        ParamError::check(
            e.interactive_cores.len() <= 100_000,
            "interactive_cores",
            e.interactive_cores.len(),
            "must list at most 100000 entries",
        )?;
        for &c in &e.interactive_cores {
            ParamError::check(
                (1..=1024).contains(&c),
                "interactive_cores",
                c,
                "each must be in 1..=1024",
            )?;
        }
        ParamError::check(
            !e.workloads.is_empty(),
            "workloads",
            "[]",
            "must not be empty",
        )?;
        for w in &e.workloads {
            env::BurstModel::of(&w.stats())?;
        }
        ParamError::check(
            e.churn.is_finite() && e.churn >= 1.0,
            "churn",
            e.churn,
            "must be >= 1",
        )?;
        ParamError::check(
            e.session_gap_mean_s.is_finite() && e.session_gap_mean_s > 0.0,
            "session_gap_mean_s",
            e.session_gap_mean_s,
            "must be > 0",
        )?;
        ParamError::check(
            (0.0..1.0).contains(&e.imbalance),
            "imbalance",
            e.imbalance,
            "must be in [0, 1)",
        )?;
        ParamError::check(
            (0.0..=1.0).contains(&e.boot_failure),
            "boot_failure",
            e.boot_failure,
            "must be in [0, 1]",
        )?;
        for (name, v) in [
            ("cpu_noise", e.cpu_noise),
            ("progress_noise", e.progress_noise),
            ("consumed_noise", e.consumed_noise),
            ("disk_noise", e.disk_noise),
            ("vm_overhead_cpu", e.vm_overhead_cpu),
            ("fuzzy_deadband", self.fuzzy_deadband),
        ] {
            ParamError::check(
                v.is_finite() && v >= 0.0,
                name,
                v,
                "must be finite and >= 0",
            )?;
        }
        ParamError::check(e.setup.0 >= 0, "setup", e.setup.0, "must be >= 0 s")?;
        ParamError::check(
            e.max_drain.0 >= 0,
            "max_drain",
            e.max_drain.0,
            "must be >= 0 s",
        )?;
        ParamError::check(
            self.dedicated > 0 && self.dedicated <= 10_000,
            "dedicated",
            self.dedicated,
            "must be in 1..=10000",
        )?;
        ParamError::check(
            e.interactive_nodes <= 100_000,
            "interactive_nodes",
            e.interactive_nodes,
            "must be <= 100000",
        )?;
        ParamError::check(
            self.work.is_finite() && self.work > 0.0,
            "work",
            self.work,
            "must be finite and > 0",
        )?;
        ParamError::check(
            self.interval.0 > 0,
            "interval",
            self.interval.0,
            "must be > 0 s",
        )?;
        ParamError::check(
            self.profiling.0 > 0,
            "profiling",
            self.profiling.0,
            "must be > 0 s",
        )?;
        ParamError::check(
            self.max_time.0 > self.profiling.0 && self.max_time.0 <= 30 * 86_400,
            "max_time",
            self.max_time.0,
            "must exceed profiling and be at most 30 days",
        )?;
        match self.strategy {
            Strategy::Fuzzy {
                step,
                start_fraction,
            } => {
                ParamError::check(step > 0, "step", step, "must be > 0")?;
                ParamError::check(
                    (0.0..=1.0).contains(&start_fraction),
                    "start_fraction",
                    start_fraction,
                    "must be in [0, 1]",
                )
            }
            Strategy::Threshold(theta) => ParamError::check(
                theta.is_finite() && theta >= 0.0,
                "theta",
                theta,
                "must be finite and >= 0",
            ),
            Strategy::Rhic | Strategy::Fixed(_) => Ok(()),
        }
    }

    /// The policy of `strategy`.
    fn policy(&self) -> Result<Box<dyn PoolPolicy>, ParamError> {
        let cores = f64::from(self.env.cores);
        let baseline = |rule| Box::new(Baseline::new(rule, cores, self.goal, self.interval));
        Ok(match self.strategy {
            Strategy::Rhic => {
                let mut rc = RhicConfig::new(self.dedicated, cores, self.goal);
                rc.interval = self.interval;
                rc.setup = self.env.setup;
                rc.search = self.rhic_search;
                rc.initial_scaling = self.rhic_initial_scaling;
                Box::new(Rhic::new(rc)?)
            }
            Strategy::Fixed(k) => baseline(Rule::Fixed(k)),
            Strategy::Fuzzy {
                step,
                start_fraction,
            } => {
                let start = (start_fraction * self.env.interactive_nodes as f64).round() as usize;
                baseline(Rule::Fuzzy(Fuzzy::new(step, start, self.fuzzy_deadband)?))
            }
            Strategy::Threshold(theta) => baseline(Rule::Threshold(theta)),
        })
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
    /// How the policy's decision at this boundary was reached (`None` for the final sample).
    pub decision: Option<DecisionKind>,
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

struct World<'a> {
    config: &'a SimConfig,
    cores: f64,
    shares: Vec<f64>,
    slots: Vec<Slot>,
    slot_of: BTreeMap<NodeId, usize>,
    next_node: u32,
    streams: SeedStreams,
    measure: StreamRng,
    policy: Box<dyn PoolPolicy>,
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
    trace: Vec<PoolSample>,
    error: Option<ParamError>,
}

impl World<'_> {
    fn t(&self, now: Time) -> i64 {
        now.0
    }

    fn start_session(
        &mut self,
        i: usize,
        under_way: bool,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let env = &self.config.env;
        let Some(slot) = self.slots.get_mut(i) else {
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
        let cpu_max = slot.cores;
        let node = NodeId(self.next_node);
        self.next_node = self.next_node.saturating_add(1);
        slot.session = Some(Session {
            node,
            process,
            free_memory_mb: env.shared_memory_mb.saturating_sub(memory),
            fg_cores: 0.0,
        });
        self.slot_of.insert(node, i);
        self.tell(q.now(), &Observation::Capacity { node, cpu_max });
        q.schedule_in(Duration(length.clamp(1.0, 1e15) as i64), Ev::SessionEnd(i))?;
        Ok(())
    }

    fn end_session(&mut self, i: usize, q: &mut EventQueue<Ev>) -> Result<(), EngineError> {
        let Some(s) = self.slots[i].session.take() else {
            return Ok(());
        };
        self.slot_of.remove(&s.node);
        if self.pool.remove(&s.node).is_some() {
            self.redecide = true; // its work in flight is lost
        }
        self.tell(q.now(), &Observation::Left(s.node));
        let env = &self.config.env;
        let gap = gap_s(env.session_gap_mean_s / env.churn, &mut self.slots[i].rng);
        q.schedule_in(Duration(gap.clamp(1.0, 1e15) as i64), Ev::SessionStart(i))?;
        Ok(())
    }

    fn tell(&mut self, at: Time, o: &Observation) {
        if let Err(e) = self.policy.observe(at, o) {
            self.error.get_or_insert(e);
        }
    }

    /// One second `[t, t + 1)`.
    fn second(&mut self, t: i64) {
        let config = self.config;
        let env = &config.env;
        let cores = self.cores;
        for slot in &mut self.slots {
            if let Some(s) = &mut slot.session {
                s.fg_cores = s.process.step(&mut slot.rng) / 100.0 * slot.cores;
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
        let io = env::io_second(config.profile.bw_util(), cores, &self.shares, demand);
        let dedicated_cpu = f64::from(config.dedicated) * cores;
        if !tail {
            // In the tail the dedicated nodes run backups and the reduce (their power is still
            // billed), no new map work.
            // Capped like the volunteers' waves, so reported progress never runs back.
            self.completed = (self.completed + io.dedicated_cpu).min(config.work);
        }
        let power = &config.power;
        let ded_w =
            f64::from(config.dedicated) * power.idle_w() + power.dynamic_w(io.dedicated_cpu, cores);
        self.dedicated_j += ded_w;
        let task_s = config.profile.task_s();
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
                v.uncommitted += used;
                // A wave of tasks is `task_s` seconds of work on each slot at full speed: a
                // volunteer short of CPU (a busy foreground, a smaller node) or starved by
                // the disks takes longer over it (a straggler).
                if v.uncommitted >= task_s * f64::from(v.slots.max(1)) {
                    // In the tail a wave may hold more than the work left: the job's total caps.
                    self.completed = (self.completed + v.uncommitted).min(config.work);
                    v.uncommitted = 0.0;
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
            .usd_per_s(config.dedicated as usize, self.pool.len());
        m.joules += ded_w + volunteers_w;
        if self.tail_since.is_none() && self.completed + in_flight >= config.work {
            self.tail_since = Some(t + 1);
        } else if tail && !env.backup_tasks && self.completed + in_flight < config.work {
            self.tail_since = None; // a departed volunteer's task goes back to the pool
        }
        // The job ends when its last task does: every volunteer's wave committed, or, with
        // backup tasks, a backup copy (started on a dedicated slot at the tail's start, at the
        // disks' pace) done first.
        if let Some(since) = self.tail_since {
            let pace = io.dedicated_cpu / dedicated_cpu.max(1e-9);
            let backups_done = env.backup_tasks && (t + 1 - since) as f64 * pace >= task_s;
            if in_flight <= 0.0 || backups_done {
                self.completed = config.work;
                self.finished_at = Some(t + 1);
            }
        }
    }

    /// Applies a decision at `now`: newcomers boot, the dropped drain, re-chosen drainers stay.
    fn apply(
        &mut self,
        target: &[Assignment],
        now: i64,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), EngineError> {
        let env = &self.config.env;
        for v in self.pool.values_mut() {
            v.drain_by
                .get_or_insert(now.saturating_add(env.max_drain.0));
        }
        for a in target {
            let Some(&slot) = self.slot_of.get(&a.node) else {
                continue;
            };
            if let Some(v) = self.pool.get_mut(&a.node) {
                v.drain_by = None;
                v.slots = a.slots;
                continue;
            }
            self.pool.insert(
                a.node,
                Volunteer {
                    slot,
                    slots: a.slots,
                    ready: false,
                    drain_by: None,
                    uncommitted: 0.0,
                },
            );
            self.joins += 1;
            q.schedule_in(env.setup, Ev::Ready(a.node))?;
        }
        self.pool
            .retain(|_, v| v.drain_by.is_none() || (v.ready && v.uncommitted > 0.0));
        Ok(())
    }

    fn progress(&mut self, now: i64) -> Result<Progress, ParamError> {
        let env = &self.config.env;
        let noise = Normal::new(0.0, env.progress_noise)
            .map_err(|_| ParamError::new("progress_noise", env.progress_noise, "must be finite"))?;
        let work = self.config.work;
        let reported = (self.completed * (1.0 + noise.sample(&mut self.measure))).clamp(0.0, work);
        let elapsed = now.max(1);
        Progress::new(
            reported,
            work - reported,
            Duration(elapsed),
            self.consumed_reported_sum / elapsed as f64,
        )
    }

    /// A period (or the profiling run) ends at `now`.
    fn period(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        let config = self.config;
        let env = &config.env;
        let m = self.meter;
        let secs = m.seconds.max(1.0);
        let rel =
            |sd: f64, rng: &mut StreamRng| Normal::new(0.0, sd).map_or(0.0, |d| d.sample(rng));
        let consumed =
            (m.consumed / secs * (1.0 + rel(env.consumed_noise, &mut self.measure))).max(0.0);
        self.consumed_reported_sum += consumed * secs;
        let max_disk = (m.max_disk / secs + rel(env.disk_noise, &mut self.measure)).clamp(0.0, 1.0);
        let mean_disk =
            (m.mean_disk / secs + rel(env.disk_noise, &mut self.measure)).clamp(0.01, 1.0);
        let progress = self.progress(now.0)?;
        let report = PeriodReport {
            seconds: secs,
            cpu_available: m.available / secs,
            cpu_consumed: consumed,
            max_disk_util: max_disk,
            task_s: Some(config.profile.task_s()),
            work: progress.completed() - m.reported_at_start,
            usd: m.usd,
            joules: m.joules,
        };
        self.tell(now, &Observation::Period(report));
        if !self.profiled {
            self.profiled = true;
            let profile = ProfileReport {
                bw_util: mean_disk,
                dedicated_cpu: consumed.max(1e-9),
                slot_memory_mb: config.profile.slot_memory_mb(),
                task_s: config.profile.task_s(),
            };
            self.tell(now, &Observation::Profile(profile));
        }
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        self.trace.push(PoolSample {
            at: now,
            in_pool: self.pool.len(),
            available: self.slot_of.len(),
            completed: self.completed,
            foreground_core_s: m.foreground,
            decision: None,
        });
        self.meter = Meter {
            reported_at_start: progress.completed(),
            ..Meter::default()
        };
        let decision = self.policy.decide(now, &progress);
        let (target, kind) = (decision.volunteers.clone(), decision.kind);
        if let Some(sample) = self.trace.last_mut() {
            sample.decision = Some(kind);
        }
        self.apply(&target, now.0, q)?;
        q.schedule_in(config.interval, Ev::Period)?;
        Ok(())
    }
}

/// Why a run could not be simulated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A parameter of the configuration or a policy's input is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The simulated clock would overflow.
    #[error("simulation clock: {0}")]
    Engine(#[from] EngineError),
}

impl Simulation for World<'_> {
    type Event = Ev;
    type Error = SimError;

    fn handle(&mut self, now: Time, event: Ev, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        if self.finished_at.is_some() {
            return Ok(());
        }
        match event {
            Ev::SessionEnd(i) => self.end_session(i, q)?,
            Ev::SessionStart(i) => self.start_session(i, false, q)?,
            Ev::Ready(node) => {
                let failed = {
                    let p = self.config.env.boot_failure;
                    p > 0.0 && {
                        let slot = self.slot_of.get(&node).copied().unwrap_or(0) as u64;
                        let mut rng = self
                            .streams
                            .stream("boot", slot ^ (u64::from(node.0) << 32));
                        rng.random::<f64>() < p
                    }
                };
                if let Some(v) = self.pool.get_mut(&node) {
                    if failed {
                        self.pool.remove(&node);
                        self.tell(now, &Observation::BootFailed(node));
                        self.redecide = true;
                    } else {
                        v.ready = true;
                        self.tell(now, &Observation::Joined(node));
                    }
                }
            }
            Ev::Period => self.period(now, q)?,
            Ev::Second => {
                let t = self.t(now);
                self.second(t);
                if self.finished_at.is_none() && t + 1 < self.config.max_time.0 {
                    q.schedule_in(Duration(1), Ev::Second)?;
                }
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        Ok(())
    }

    /// The 1 s foreground readings, and a deferred decision when a volunteer left or failed.
    fn settle(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        if self.finished_at.is_some() {
            return Ok(());
        }
        let sd = self.config.env.cpu_noise;
        let noise = Normal::new(0.0, sd).ok();
        let mut readings = Vec::with_capacity(self.slots.len());
        for slot in &mut self.slots {
            if let Some(s) = &slot.session {
                let e = noise.map_or(0.0, |n| n.sample(&mut slot.reading));
                readings.push(Observation::Node {
                    node: s.node,
                    foreground_cpu: (s.fg_cores + e).clamp(0.0, slot.cores),
                    free_memory_mb: s.free_memory_mb,
                });
            }
        }
        for r in &readings {
            self.tell(now, r);
        }
        if self.redecide && self.profiled {
            self.redecide = false;
            let progress = self.progress(now.0)?;
            let target = self.policy.decide(now, &progress).volunteers.clone();
            self.apply(&target, now.0, q)?;
        }
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        Ok(())
    }
}

/// Runs one job to completion (or `max_time`); deterministic for `config.seed`.
///
/// ```
/// use cosched_rhic::env::JobProfile;
/// use cosched_rhic::sim::{SimConfig, Strategy, simulate};
/// use cosched_rhic::{CostModel, Goal};
/// let mut c = SimConfig::new(JobProfile::Pi, Goal::Cost(CostModel::default()), Strategy::Fixed(8));
/// c.env.interactive_nodes = 8;
/// c.work /= 20.0;
/// let some = simulate(&c).unwrap();
/// c.strategy = Strategy::Fixed(0);
/// let alone = simulate(&c).unwrap();
/// assert!(some.finished && some.completion < alone.completion); // volunteers help Pi
/// ```
pub fn simulate(config: &SimConfig) -> Result<Outcome, SimError> {
    config.validate()?;
    let env = &config.env;
    let streams = SeedStreams::new(config.seed);
    let cores = f64::from(env.cores);
    let mut io_rng = streams.stream("io", 0);
    let shares = env::io_shares(config.dedicated, env.imbalance, &mut io_rng);
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
    let mut world = World {
        config,
        cores,
        shares,
        slots,
        slot_of: BTreeMap::new(),
        next_node: 0,
        streams,
        measure: streams.stream("measure", 0),
        policy: config.policy()?,
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
        trace: Vec::new(),
        error: None,
    };
    let mut q = EventQueue::new(Time::ZERO);
    // §5.4: every experiment begins with every interactive node busy.
    for i in 0..env.interactive_nodes {
        world.start_session(i, true, &mut q)?;
    }
    q.schedule(Time::ZERO, Ev::Second)
        .map_err(EngineError::from)?;
    q.schedule_in(config.profiling, Ev::Period)?;
    engine::run_until(&mut world, &mut q, Time(config.max_time.0))?;

    let end = world.finished_at.unwrap_or(config.max_time.0);
    let finished = world.finished_at.is_some();
    world.trace.push(PoolSample {
        at: Time(end),
        in_pool: world.pool.len(),
        available: world.slot_of.len(),
        completed: world.completed,
        foreground_core_s: world.meter.foreground,
        decision: None,
    });
    let volunteer_s: Vec<(NodeId, u64)> = world.charged_s.into_iter().collect();
    let bill = config.cost.bill(config.dedicated, end as u64, &volunteer_s);
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
