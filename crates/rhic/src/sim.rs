//! The simulator: one background job on `D` dedicated nodes plus volunteers on a churning
//! interactive cloud, second by second, driven by RHIC or a baseline through their public
//! APIs. The controllers own no clock and no RNG: every observation comes from here.
//!
//! The run follows the paper's flow (its design section): a one-minute dedicated-only
//! profiling run measures `BWUtil_avg` (noisy) for Algorithm 1; then every `sample` seconds
//! each present interactive node reports its (noisy) mean foreground CPU and free memory, and
//! the controller decides; RHIC searches at interval boundaries (Eq. 4–5 over the I/O curve,
//! fed one `{CPU_available, CPU_consumed}` sample per interval) and defers or replaces in
//! between.
//!
//! The environment ([`crate::env`]): the job's dedicated nodes compute at full `CPU_max` and
//! its volunteers at their hosts' residual CPU, scaled down together when their demand
//! exceeds what the dedicated nodes' bandwidth can feed ([`env::supportable_volunteer_cpu`]);
//! volunteer work counts in tasks of `task_work` core-seconds, so a volunteer whose host
//! session ends loses its task in flight; a volunteer the controller drops finishes its task
//! first (drains, at most `max_drain`, charged meanwhile); a volunteer added boots for `setup`
//! (charged, not computing). Money: dedicated nodes for the whole run, volunteers for their
//! seconds in the pool ([`CostModel::bill`]). Energy: dedicated nodes in full at full load,
//! volunteers only for their increment, the dynamic power of their CPU plus the VM's
//! overhead.

use crate::baseline::{Fuzzy, threshold_size};
use crate::completion::{CompletionParams, Progress};
use crate::env::{self, ForegroundProcess, JobProfile, Workload, gap_s};
use crate::goal::{Bill, CostModel, Goal, PowerModel};
use crate::policy::{Rhic, RhicConfig};
use crate::predictor::ForegroundTable;
use crate::search::{Candidate, screen_and_sort};
use cosched_core::{Duration, NodeId, ParamError, Time};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use std::collections::{BTreeMap, BTreeSet};

/// The interactive cloud and its noise.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvConfig {
    /// `CPU_max`: cores per node, interactive and dedicated alike (> 0).
    pub cores: u32,
    /// Memory of an interactive node, MiB.
    pub node_memory_mb: u64,
    /// Interactive nodes (host slots), each hosting one session at a time.
    pub interactive_nodes: usize,
    /// The session types drawn, uniformly, for each new session (non-empty).
    pub workloads: Vec<Workload>,
    /// Churn factor (≥ 1): session length mean and stdev are divided by it.
    pub churn: f64,
    /// Mean gap before a slot hosts its next session, seconds (> 0).
    pub session_gap_mean_s: f64,
    /// Load imbalance of the volunteers' I/O across dedicated nodes, in `[0, 1)`
    /// ([`env::io_shares`]).
    pub imbalance: f64,
    /// Standard deviation of a foreground-CPU reading, cores (≥ 0).
    pub cpu_noise: f64,
    /// Relative standard deviation of the reported completed work (≥ 0).
    pub progress_noise: f64,
    /// Standard deviation of the profiled bandwidth utilisation (≥ 0).
    pub bw_noise: f64,
    /// Boot time of a volunteer VM.
    pub setup: Duration,
    /// Longest a removed volunteer drains its task in flight.
    pub max_drain: Duration,
    /// Work of one volunteer task, core-seconds (> 0).
    pub task_work: f64,
    /// CPU a volunteer VM burns besides the job's (cores, ≥ 0), for energy.
    pub vm_overhead_cpu: f64,
}

impl Default for EnvConfig {
    /// Our testbed (assumptions, documented in the examples): 36 interactive 4-core, 8 GiB
    /// nodes running the four workloads, sessions 1 min to hours apart by 5 minutes on
    /// average, 30 % I/O imbalance, 0.2-core CPU noise, 3 % progress noise, 2 % bandwidth
    /// noise, 30 s VM setup, 60 s at most to drain, 60 core-second tasks, 0.1-core VM overhead.
    fn default() -> Self {
        EnvConfig {
            cores: 4,
            node_memory_mb: 8192,
            interactive_nodes: 36,
            workloads: Workload::ALL.to_vec(),
            churn: 1.0,
            session_gap_mean_s: 300.0,
            imbalance: 0.3,
            cpu_noise: 0.2,
            progress_noise: 0.03,
            bw_noise: 0.02,
            setup: Duration(30),
            max_drain: Duration(60),
            task_work: 60.0,
            vm_overhead_cpu: 0.1,
        }
    }
}

/// How the pool is sized.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strategy {
    /// The RHIC controller with the run's goal.
    Rhic,
    /// A fixed number of volunteers (the exhaustive "targeted" runs), the best by the same
    /// greedy order, reselected every interval.
    Fixed(usize),
    /// FUZZY hill climbing with step `p`, starting at `start_fraction` of the interactive
    /// nodes.
    Fuzzy {
        /// Step `p`.
        step: usize,
        /// `S` as a fraction of the interactive nodes, in `[0, 1]`.
        start_fraction: f64,
    },
    /// Every node whose predicted residual exceeds `theta · CPU_max`.
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
    /// How often nodes report and the controller decides (> 0 s).
    pub sample: Duration,
    /// The evaluation interval (a positive multiple of `sample`).
    pub interval: Duration,
    /// The dedicated-only profiling run (> 0 s, a multiple of `sample`).
    pub profiling: Duration,
    /// Memory a volunteer VM needs, MiB.
    pub vm_memory_mb: u64,
    /// RHIC's straggler padding (≥ 0).
    pub straggler_padding: f64,
    /// The run gives up (unfinished) here.
    pub max_time: Duration,
    /// Seed of every random stream of the run.
    pub seed: u64,
}

impl SimConfig {
    /// A run of `work` core-seconds of `profile` on `dedicated` nodes under `strategy`, with
    /// [`EnvConfig::default`], the paper's prices ($1.00/h, $0.42/h), a 100/200 W node, 10 s
    /// samples, 5-minute intervals, one minute of profiling, 1 GiB VMs, 5 % padding, and at
    /// most 24 hours.
    pub fn new(
        profile: JobProfile,
        dedicated: u32,
        work: f64,
        goal: Goal,
        strategy: Strategy,
    ) -> Self {
        SimConfig {
            env: EnvConfig::default(),
            profile,
            dedicated,
            work,
            goal,
            strategy,
            cost: CostModel::default(),
            power: PowerModel::new(100.0, 200.0).expect("100 <= 200"),
            sample: Duration(10),
            interval: Duration::from_mins(5),
            profiling: Duration::from_mins(1),
            vm_memory_mb: 1024,
            straggler_padding: 0.05,
            max_time: Duration::from_hours(24),
            seed: 1,
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        let e = &self.env;
        ParamError::check(e.cores > 0, "cores", e.cores, "must be > 0")?;
        ParamError::check(
            !e.workloads.is_empty(),
            "workloads",
            "[]",
            "must not be empty",
        )?;
        for w in &e.workloads {
            w.stats().levels()?;
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
        for (name, v) in [
            ("cpu_noise", e.cpu_noise),
            ("progress_noise", e.progress_noise),
            ("bw_noise", e.bw_noise),
            ("vm_overhead_cpu", e.vm_overhead_cpu),
            ("straggler_padding", self.straggler_padding),
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
            e.task_work.is_finite() && e.task_work > 0.0,
            "task_work",
            e.task_work,
            "must be > 0",
        )?;
        ParamError::check(
            self.dedicated > 0,
            "dedicated",
            self.dedicated,
            "must be > 0",
        )?;
        ParamError::check(
            self.work.is_finite() && self.work > 0.0,
            "work",
            self.work,
            "must be finite and > 0",
        )?;
        ParamError::check(self.sample.0 > 0, "sample", self.sample.0, "must be > 0 s")?;
        ParamError::check(
            self.interval.0 > 0 && self.interval.0 % self.sample.0 == 0,
            "interval",
            self.interval.0,
            "must be a positive multiple of sample",
        )?;
        ParamError::check(
            self.profiling.0 > 0 && self.profiling.0 % self.sample.0 == 0,
            "profiling",
            self.profiling.0,
            "must be a positive multiple of sample",
        )?;
        ParamError::check(
            self.max_time.0 > self.profiling.0,
            "max_time",
            self.max_time.0,
            "must exceed profiling",
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
}

/// One observation point of a run (every `sample` seconds).
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
    /// One sample per `sample` seconds.
    pub trace: Vec<PoolSample>,
}

impl Outcome {
    /// The same run billed at other prices (a fixed-size run does not depend on them).
    pub fn bill_at(&self, cost: &CostModel) -> Bill {
        let dedicated = self.bill.dedicated.len() as u32;
        cost.bill(dedicated, self.completion.0 as u64, &self.volunteer_s)
    }
}

/// A live volunteer: booting until `ready_at`, then computing; draining until `drain_by`.
#[derive(Clone, Copy, Debug)]
struct Volunteer {
    slot: usize,
    ready_at: i64,
    drain_by: Option<i64>,
    partial: f64,
}

/// A session on a slot.
#[derive(Clone, Copy, Debug)]
struct Session {
    node: NodeId,
    process: ForegroundProcess,
    ends_at: i64,
    free_memory_mb: u64,
    fg_pct_sum: f64,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    session: Option<Session>,
    next_arrival: i64,
    fg_cores: f64,
}

/// The interactive cloud: host slots, the session each holds, and this second's foreground
/// CPU.
struct Cloud<'a> {
    env: &'a EnvConfig,
    cores: f64,
    slots: Vec<Slot>,
    slot_of: BTreeMap<NodeId, usize>,
    next_node: u32,
}

impl<'a> Cloud<'a> {
    /// Every slot busy with a session under way (its remaining life drawn).
    fn new(env: &'a EnvConfig, rng: &mut ChaCha8Rng) -> Self {
        let mut cloud = Cloud {
            env,
            cores: f64::from(env.cores),
            slots: Vec::with_capacity(env.interactive_nodes),
            slot_of: BTreeMap::new(),
            next_node: 0,
        };
        for i in 0..env.interactive_nodes {
            let s = cloud.new_session(rng, 0, true);
            cloud.slot_of.insert(s.node, i);
            cloud.slots.push(Slot {
                session: Some(s),
                next_arrival: i64::MAX,
                fg_cores: 0.0,
            });
        }
        cloud
    }

    /// A session of a uniformly drawn workload type on a new node.
    fn new_session(&mut self, rng: &mut ChaCha8Rng, now: i64, under_way: bool) -> Session {
        let env = self.env;
        let w = env.workloads[rng.random_range(0..env.workloads.len())];
        let stats = w.stats();
        let mut length = stats.session_s(env.churn, rng);
        if under_way {
            length *= rng.random::<f64>(); // the residual life of a session under way
        }
        let mem = (stats.memory_mb as f64 * (0.5 + rng.random::<f64>())) as u64;
        let node = NodeId(self.next_node);
        self.next_node += 1;
        Session {
            node,
            process: ForegroundProcess::new(&stats, rng).expect("validated tables"),
            ends_at: now.saturating_add(length.max(1.0) as i64),
            free_memory_mb: env.node_memory_mb.saturating_sub(mem),
            fg_pct_sum: 0.0,
        }
    }

    /// Second `t`: sessions end (their nodes go to `departed`) and begin, and every session
    /// steps its foreground CPU.
    fn step(&mut self, t: i64, rng: &mut ChaCha8Rng, departed: &mut Vec<NodeId>) {
        for i in 0..self.slots.len() {
            if let Some(s) = self.slots[i].session
                && s.ends_at <= t
            {
                self.slots[i].session = None;
                self.slot_of.remove(&s.node);
                departed.push(s.node);
                self.slots[i].next_arrival =
                    t.saturating_add(gap_s(self.env.session_gap_mean_s, rng) as i64);
            }
            if self.slots[i].session.is_none() && self.slots[i].next_arrival <= t {
                let s = self.new_session(rng, t, false);
                self.slot_of.insert(s.node, i);
                self.slots[i].session = Some(s);
            }
            let cores = self.cores;
            let slot = &mut self.slots[i];
            slot.fg_cores = match &mut slot.session {
                Some(s) => {
                    let pct = s.process.step(rng);
                    s.fg_pct_sum += pct;
                    pct / 100.0 * cores
                }
                None => 0.0,
            };
        }
    }

    /// This second's residual CPU of a slot's host, cores.
    fn residual(&self, slot: usize) -> f64 {
        (self.cores - self.slots[slot].fg_cores).max(0.0)
    }

    /// Each present node's reading over the last `seconds`: mean foreground CPU plus noise
    /// (clamped to `[0, CPU_max]`), and free memory.
    fn read(
        &mut self,
        seconds: f64,
        noise: &Normal<f64>,
        rng: &mut ChaCha8Rng,
        mut report: impl FnMut(NodeId, f64, u64),
    ) {
        for slot in &mut self.slots {
            if let Some(s) = &mut slot.session {
                let mean = s.fg_pct_sum / seconds / 100.0 * self.cores;
                let reading = (mean + noise.sample(rng)).clamp(0.0, self.cores);
                s.fg_pct_sum = 0.0;
                report(s.node, reading, s.free_memory_mb);
            }
        }
    }
}

/// The job's volunteers and their charges.
#[derive(Default)]
struct Pool {
    live: BTreeMap<NodeId, Volunteer>,
    charged_s: BTreeMap<NodeId, u64>,
    joules: BTreeMap<NodeId, f64>,
    volunteer_seconds: u64,
}

/// What the volunteers did in one second.
struct VolunteerSecond {
    /// Residual CPU of the computing volunteers, cores.
    available: f64,
    /// CPU they consumed, cores.
    consumed: f64,
    /// Volunteers in the pool (charged) this second.
    in_pool: usize,
}

impl Pool {
    /// Second `t`: every computing volunteer runs at its host's residual CPU, all scaled
    /// down together past `supportable`; finished tasks add to `completed`; drained
    /// volunteers leave. Every volunteer in the pool is charged the second.
    fn second(
        &mut self,
        t: i64,
        cloud: &Cloud<'_>,
        supportable: f64,
        power: &PowerModel,
        completed: &mut f64,
    ) -> VolunteerSecond {
        let env = cloud.env;
        let available: f64 = self
            .live
            .values()
            .filter(|v| v.ready_at <= t)
            .map(|v| cloud.residual(v.slot))
            .sum();
        let scale = if available > supportable {
            supportable / available
        } else {
            1.0
        };
        let in_pool = self.live.len();
        self.volunteer_seconds += in_pool as u64;
        let mut consumed = 0.0;
        let mut leaving = Vec::new();
        for (&node, v) in self.live.iter_mut() {
            *self.charged_s.entry(node).or_insert(0) += 1;
            let mut used = 0.0;
            if v.ready_at <= t {
                used = cloud.residual(v.slot) * scale;
                v.partial += used;
                if v.partial >= env.task_work {
                    *completed += env.task_work;
                    v.partial -= env.task_work;
                    if v.drain_by.is_some() {
                        leaving.push(node);
                    }
                }
            }
            if v.drain_by.is_some_and(|by| by <= t + 1) {
                leaving.push(node);
            }
            consumed += used;
            *self.joules.entry(node).or_insert(0.0) +=
                power.dynamic_w(used + env.vm_overhead_cpu, cloud.cores);
        }
        for node in leaving {
            self.live.remove(&node);
        }
        VolunteerSecond {
            available,
            consumed,
            in_pool,
        }
    }

    /// The controller chose `target` at `now`: newcomers boot, the dropped drain (booting
    /// ones leave at once, as do those with no task in flight), re-chosen drainers stay.
    fn apply(&mut self, target: &[NodeId], cloud: &Cloud<'_>, now: i64) {
        let env = cloud.env;
        for v in self.live.values_mut() {
            v.drain_by
                .get_or_insert(now.saturating_add(env.max_drain.0));
        }
        for node in target {
            let Some(&slot) = cloud.slot_of.get(node) else {
                continue;
            };
            self.live
                .entry(*node)
                .and_modify(|v| v.drain_by = None)
                .or_insert(Volunteer {
                    slot,
                    ready_at: now.saturating_add(env.setup.0),
                    drain_by: None,
                    partial: 0.0,
                });
        }
        self.live
            .retain(|_, v| v.drain_by.is_none() || (v.ready_at <= now && v.partial > 0.0));
    }
}

/// Sums over the current evaluation interval.
#[derive(Clone, Copy, Debug, Default)]
struct Meter {
    available: f64,
    consumed: f64,
    dollars: f64,
    joules: f64,
    reported_at_start: f64,
}

/// The baselines' shared driver: a size rule, the greedy order, and the interval discipline
/// (the size is decided at interval boundaries; in between, departed or memory-short nodes
/// are replaced from the order).
#[derive(Clone, Debug)]
struct Sized {
    table: ForegroundTable,
    rule: SizeRule,
    size: usize,
    selected: Vec<NodeId>,
}

#[derive(Clone, Debug)]
enum SizeRule {
    Fixed,
    Fuzzy(Fuzzy),
    Threshold(f64),
}

#[derive(Clone, Debug)]
enum Driver {
    Rhic(Box<Rhic>),
    Sized(Sized),
}

impl Driver {
    /// The controller of `config.strategy`; the baselines rank volunteers with RHIC's own
    /// predictor window.
    fn new(config: &SimConfig) -> Result<Self, ParamError> {
        let (d, env) = (config.dedicated, &config.env);
        let cores = f64::from(env.cores);
        let mut rc = RhicConfig::new(d, cores, config.goal);
        let sized = |rule, size| {
            Driver::Sized(Sized {
                table: ForegroundTable::new(rc.predictor_window),
                rule,
                size,
                selected: Vec::new(),
            })
        };
        Ok(match config.strategy {
            Strategy::Rhic => {
                rc.interval = config.interval;
                rc.vm_memory_mb = config.vm_memory_mb;
                let drain = Duration(env.max_drain.0 / 2);
                rc.completion = CompletionParams::new(config.straggler_padding, env.setup, drain)?;
                Driver::Rhic(Box::new(Rhic::new(rc)?))
            }
            Strategy::Fixed(k) => sized(SizeRule::Fixed, k),
            Strategy::Fuzzy {
                step,
                start_fraction,
            } => {
                let start = (start_fraction * env.interactive_nodes as f64).round() as usize;
                sized(SizeRule::Fuzzy(Fuzzy::new(step, start)?), start)
            }
            Strategy::Threshold(theta) => sized(SizeRule::Threshold(theta), 0),
        })
    }

    fn observe(&mut self, node: NodeId, fg: f64, mem: u64) {
        match self {
            Driver::Rhic(r) => r.observe_node(node, fg, mem),
            Driver::Sized(s) => s.table.observe(node, fg, mem),
        }
    }

    fn remove(&mut self, node: NodeId) {
        match self {
            Driver::Rhic(r) => r.remove_node(node),
            Driver::Sized(s) => s.table.remove(node),
        }
    }
}

impl Sized {
    fn select(
        &mut self,
        first: bool,
        boundary: bool,
        measure: f64,
        cpu_max: f64,
        vm_mb: u64,
        sorted: &mut Vec<Candidate>,
    ) -> &[NodeId] {
        screen_and_sort(&self.table.candidates(cpu_max), vm_mb, sorted);
        if boundary {
            self.size = match &mut self.rule {
                SizeRule::Fixed => self.size,
                SizeRule::Fuzzy(f) if first => f.size(),
                SizeRule::Fuzzy(f) => f.next(measure, sorted.len()),
                SizeRule::Threshold(theta) => {
                    let residuals: Vec<f64> = sorted.iter().map(|c| c.residual_cpu).collect();
                    threshold_size(&residuals, *theta, cpu_max)
                }
            };
            self.selected = sorted.iter().take(self.size).map(|c| c.node).collect();
        } else {
            let present: BTreeSet<NodeId> = sorted.iter().map(|c| c.node).collect();
            self.selected.retain(|n| present.contains(n));
            let mut chosen: BTreeSet<NodeId> = self.selected.iter().copied().collect();
            for c in sorted.iter() {
                if self.selected.len() >= self.size {
                    break;
                }
                if chosen.insert(c.node) {
                    self.selected.push(c.node);
                }
            }
        }
        &self.selected
    }
}

/// Runs one job to completion (or `max_time`); deterministic for `config.seed`.
///
/// ```
/// use cosched_rhic::env::JobProfile;
/// use cosched_rhic::sim::{SimConfig, Strategy, simulate};
/// use cosched_rhic::{CostModel, Goal};
/// let mut c = SimConfig::new(JobProfile::Pi, 2, 40_000.0, Goal::Cost(CostModel::default()),
///     Strategy::Rhic);
/// c.env.interactive_nodes = 6;
/// let rhic = simulate(&c).unwrap();
/// c.strategy = Strategy::Fixed(0);
/// let alone = simulate(&c).unwrap();
/// assert!(rhic.finished && rhic.completion < alone.completion); // volunteers help Pi
/// ```
pub fn simulate(config: &SimConfig) -> Result<Outcome, ParamError> {
    config.validate()?;
    let env = &config.env;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let cores = f64::from(env.cores);
    let d = config.dedicated;
    let dedicated_cpu = f64::from(d) * cores;
    let shares = env::io_shares(d, env.imbalance, &mut rng);
    let supportable = env::supportable_volunteer_cpu(config.profile.bw_util(), cores, &shares);
    let cpu_noise = Normal::new(0.0, env.cpu_noise).expect("validated sd");
    let progress_noise = Normal::new(0.0, env.progress_noise).expect("validated sd");
    let bw_noise = Normal::new(0.0, env.bw_noise).expect("validated sd");
    let mut driver = Driver::new(config)?;
    let mut cloud = Cloud::new(env, &mut rng);
    let mut pool = Pool::default();
    let mut meter = Meter::default();
    let dedicated_w = f64::from(d) * (config.power.idle_w() + config.power.dynamic_w(cores, cores));
    let (mut dedicated_j, mut completed, mut consumed_total) = (0.0, 0.0, 0.0);
    let (mut trace, mut sorted, mut departed) = (Vec::new(), Vec::new(), Vec::new());
    let mut end = config.max_time.0;
    let mut finished = false;

    for t in 0..config.max_time.0 {
        cloud.step(t, &mut rng, &mut departed);
        for node in departed.drain(..) {
            pool.live.remove(&node); // its task in flight is lost
            driver.remove(node);
        }
        let v = pool.second(t, &cloud, supportable, &config.power, &mut completed);
        completed += dedicated_cpu;
        consumed_total += dedicated_cpu + v.consumed;
        dedicated_j += dedicated_w;
        meter.available += dedicated_cpu + v.available;
        meter.consumed += dedicated_cpu + v.consumed;
        meter.dollars += config.cost.usd_per_s(d as usize, v.in_pool);
        meter.joules += dedicated_w
            + config
                .power
                .dynamic_w(v.consumed + v.in_pool as f64 * env.vm_overhead_cpu, cores);
        if completed >= config.work {
            completed = config.work;
            end = t + 1;
            finished = true;
        }

        let now = t + 1;
        if now % config.sample.0 == 0 || finished {
            trace.push(PoolSample {
                at: Time(now),
                in_pool: pool.live.len(),
                available: cloud.slot_of.len(),
                completed,
            });
        }
        if finished {
            break;
        }
        if now % config.sample.0 != 0 {
            continue;
        }
        cloud.read(
            config.sample.0 as f64,
            &cpu_noise,
            &mut rng,
            |n, fg, mem| driver.observe(n, fg, mem),
        );
        if now < config.profiling.0 {
            continue;
        }
        let reported = (completed * (1.0 + progress_noise.sample(&mut rng)))
            .clamp(f64::MIN_POSITIVE, config.work);
        let since_start = now - config.profiling.0;
        let boundary = since_start % config.interval.0 == 0;
        let target = match &mut driver {
            Driver::Rhic(r) if since_start == 0 => {
                let bw = (config.profile.bw_util() + bw_noise.sample(&mut rng)).clamp(0.01, 1.0);
                r.initial(Time(now), bw)?.volunteers.clone()
            }
            Driver::Rhic(r) => {
                if boundary {
                    let secs = config.interval.0 as f64;
                    r.observe_io(Time(now), meter.available / secs, meter.consumed / secs);
                }
                let progress = Progress::new(
                    reported,
                    config.work - reported,
                    Duration(now),
                    consumed_total / now as f64,
                )?;
                r.decide(Time(now), &progress).volunteers.clone()
            }
            Driver::Sized(s) => {
                let measure = interval_measure(config, now, reported, &meter);
                let (first, vm_mb) = (since_start == 0, config.vm_memory_mb);
                s.select(first, boundary, measure, cores, vm_mb, &mut sorted)
                    .to_vec()
            }
        };
        if boundary {
            meter = Meter {
                reported_at_start: reported,
                ..Meter::default()
            };
        }
        pool.apply(&target, &cloud, now);
    }

    let volunteer_s: Vec<(NodeId, u64)> = pool.charged_s.into_iter().collect();
    let bill = config.cost.bill(d, end as u64, &volunteer_s);
    let volunteer_j: Vec<(NodeId, f64)> = pool.joules.into_iter().collect();
    let energy_j = dedicated_j + volunteer_j.iter().map(|(_, j)| j).sum::<f64>();
    let deadline_met = match config.goal {
        Goal::Deadline(deadline) => Some(finished && end <= deadline.0),
        _ => None,
    };
    Ok(Outcome {
        completion: Duration(end),
        finished,
        bill,
        volunteer_s,
        dedicated_j,
        volunteer_j,
        energy_j,
        deadline_met,
        mean_volunteers: pool.volunteer_seconds as f64 / end as f64,
        trace,
    })
}

/// FUZZY's measure of the interval ending at `now`, lower is better: dollars or joules per
/// unit of (reported) work, or the distance of the finish projected at the interval's rate
/// from the deadline; `+∞` when the interval shows no progress.
fn interval_measure(config: &SimConfig, now: i64, reported: f64, meter: &Meter) -> f64 {
    let work = reported - meter.reported_at_start;
    if work <= 0.0 {
        return f64::INFINITY;
    }
    match config.goal {
        Goal::Cost(_) => meter.dollars / work,
        Goal::Energy(_) => meter.joules / work,
        Goal::Deadline(deadline) => {
            let rate = work / config.interval.0 as f64;
            (now as f64 + (config.work - reported) / rate - deadline.0 as f64).abs()
        }
    }
}
