//! The hybrid-workload simulator (Fan et al., IPDPS 2022, §IV): the environment — one system
//! of identical nodes, the jobs' runs, checkpoints' and setups' physical cost, node failures and
//! the ledger — and the executor of any policy of the hybrid protocol ([`HybridProtocol`]:
//! [`crate::HybridPolicy`] or one's own). It holds no scheduling decision: it turns its events
//! into the policy's [`Observation`]s (notices, arrivals, completions, failures, a settle once
//! each instant's events are in), wakes the policy when its [`Policy::next_wake`] is due, and
//! applies the [`Command`]s it gets back to a [`BatchCluster`]; the batch passes run the
//! policy's schedulers around the site's FCFS + EASY. A command the platform cannot carry out
//! (a job not running, a node not reserved) is a typed error, and
//! [`HybridSim::check_invariants`] also records any command naming a finished job. The
//! built-in policies (the baseline and the six mechanisms) are in [`crate::scenario`].
//!
//! It runs on core's kernel ([`cosched_core::engine::run`]); its random draws (failures) come
//! from named streams ([`SeedStreams`]) and depend on time only, so every mechanism meets the
//! same environment; node-seconds go to a [`UsageLedger`].
//!
//! A whole run — 200 jobs of a generated Theta-like trace under CUP&SPAA:
//!
//! ```
//! use cosched_hybrid::workload::{TraceParams, TypeParams, hybrid_workload};
//! use cosched_hybrid::{Composite, HybridConfig, HybridSim, scenario};
//! let jobs = hybrid_workload(&TraceParams::theta(200), &TypeParams::default(), 1).unwrap();
//! let config = HybridConfig::new(4_392).unwrap();
//! let policy = scenario::mechanism(Composite::ALL[5]);
//! let out = HybridSim::new(config).unwrap().run("CUP&SPAA", policy, &jobs).unwrap();
//! assert_eq!(out.report.completed, 200);
//! assert!(out.report.instant_start_ratio > 0.5);
//! ```
//!
//! ## Model
//! The physics below is the environment's; which job starts, shrinks, expands, is preempted or
//! gets which nodes is the policy's ([`crate::policy`]), summarised here as the model runs it.
//! - **Rigid** jobs pay their setup on every (re)start and checkpoint at the configured
//!   interval, each checkpoint costing δ ([`crate::checkpoint`]); a preempted or failed rigid
//!   job keeps the work saved by its last completed checkpoint and is requeued with the rest
//!   (plus setup and checkpoints) under its original submit time.
//! - **Malleable** jobs run `work / n + setup` on `n` nodes. Under a mechanism they start at
//!   any size in `[n_min, n_max]` that fits — a queue head that does not fit at `n_max`
//!   starts on the idle nodes rather than wait (§II-A, §III-A: "the size of malleable jobs can
//!   be adjusted before or during execution") — and expand into nodes left idle after the
//!   EASY pass, as far as EASY's reservation for the queue head allows (the extra nodes, or
//!   any when the expanded job still ends by the head's shadow time). A shrink or expansion
//!   spreads the remaining node-seconds over the new size
//!   ([`cosched_batch::BatchCluster::resize`]). A preempted or failed malleable job saves
//!   where it stopped (the two-minute warning; tasks are small) and resumes with its
//!   remaining work plus setup.
//! - **On-demand** jobs bypass the batch queue: at arrival they take their reserved nodes, then
//!   idle nodes, then what the on-arrival mechanism frees. If it cannot free enough they wait
//!   at the front of the queue (first come, first served among them), the first collecting
//!   nodes as they free; the others hold none, so none can starve the first. They hold their
//!   nodes outside the batch scheduler (offline in its cluster). A failure restarts them at
//!   once, and such a job does not count as started instantly (Obs. 14).
//! - Under CUA and CUP, a reservation's idle nodes run *guests* while it waits
//!   ([`crate::notice::guests`]); guests still running at the arrival are preempted, and the
//!   nodes of a guest that ends go back to the reservation.
//! - On an on-demand job's completion its nodes go back to the lenders first: a shrunk job
//!   still running expands back by what it lent to *this* job (a job shrunk by two on-demand
//!   jobs gets back from each only its own loan), a preempted job still waiting starts on them
//!   if it fits; the rest go to reservations, then to the batch scheduler (§III-B4).
//! - **Failures** (optional, §V-C): node failures arrive as a Poisson process at the system
//!   MTBF on a uniformly drawn node; repairs take an exponential time
//!   ([`Failures::mean_repair`], 6 h: [`DEFAULT_REPAIR`]). The process is drawn per week of
//!   simulated time from the stream `("failures", week)`, so the failure times are the same
//!   under every mechanism; it pauses while the machine holds no job (a failure then harms no
//!   job, and a trace with a gap of 10^18 s is not walked through failure by failure) and
//!   resumes, at the same draws, with the next submission. A failure interrupts the job on the
//!   node like a preemption and counts in the preemption ratios (Obs. 14).
//!
//! At each instant: completions, failures and repairs, the policy's timers (expiries, then
//! planned preemptions), notices, on-demand arrivals, batch submissions (each in job order);
//! then the policy settles ([`Observation::Settle`]): the idle nodes go to waiting on-demand
//! jobs, lenders, reservations, guests of the reservations, one EASY pass runs, and malleable
//! jobs expand into what is left.
//!
//! ## Metrics (§IV-D)
//! Turnaround is submission to completion over *all* jobs, on-demand jobs included. System
//! utilisation is useful node-hours over elapsed node-hours, preemption waste excluded: the
//! ledger holds every run segment as busy and the work lost to preemptions and failures (time
//! since the last checkpoint, repeated setups) as wasted. Checkpoint writes are part of a
//! job's execution, as its setup is, and count as busy. [`HybridReport::utilization`] divides
//! by the makespan; [`HybridReport::window_utilization`] reads the ledger between the first
//! and the last submission, the period a long trace is judged over, without the drain.
//!
//! Every job's delivered node-seconds minus its wasted node-seconds equals its required
//! node-seconds — exactly for rigid and on-demand jobs, and up to the rounding of the resizes
//! for malleable jobs ([`JobAccount`]).

use crate::HybridError;
use crate::checkpoint::{CheckpointPolicy, Checkpointing, preemption_cost};
use crate::error::SimError;
use crate::mechanism::{RunningKind, RunningView};
use crate::notice::{Notice, PlannedJob};
use crate::policy::{
    BatchPass, Command, GuestPicker, MalleableFirst, Observation, PlatformView, RunInfo, StartInfo,
    StartListed,
};
pub use crate::policy::{Composite, mechanism_name};
use crate::record::{Answer, Query, Transcript};
use crate::report::{Counts, report};
pub use crate::report::{HybridOutcome, HybridReport, JobAccount};
pub use crate::workload::HybridJob;
use cosched_batch::{
    BatchCluster, BatchJob, BatchScheduler, Policy as SiteScheduler, Resume, RunToken, Shadow,
    Started, Submitted,
};
use cosched_core::engine::{self, Event, EventQueue, Simulation};
use cosched_core::policy::Policy;
use cosched_core::{
    Duration, JobClass, JobId, JobRecord, NodeId, NodeState, ParamError, Pool, SeedStreams,
    StreamRng, Time, UsageKind, UsageLedger,
};
use cosched_workload::admit::admit;
use rand::RngExt;
use rand_distr::{Distribution, Exp};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most nodes a simulated system may have: 2^20 (ours; the largest machines have about
/// 160,000 nodes). The simulator keeps a few words per node, so this bounds what a node count
/// from user input can make it allocate (about 50 MB).
pub const MAX_NODES: u32 = 1 << 20;

/// Mean repair time of a failed node: 6 hours.
pub const DEFAULT_REPAIR: Duration = Duration::from_hours(6);

/// Node failures: a Poisson process at the system MTBF, exponential repairs (§V-C).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failures {
    /// System mean time between failures.
    pub mtbf: Duration,
    /// Mean repair time.
    pub mean_repair: Duration,
}

/// The environment to simulate: the system, its site scheduler and the job models'
/// parameters (the policy is passed to [`HybridSim::run`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HybridConfig {
    /// Nodes in the system.
    pub nodes: u32,
    /// The site's batch scheduler (FCFS + EASY in the paper).
    #[serde(with = "site_name")]
    pub site: SiteScheduler,
    /// Rigid jobs' checkpointing.
    pub checkpoint: CheckpointPolicy,
    /// Node failures, if injected.
    pub failures: Option<Failures>,
    /// Root seed of the environment's random streams (the failure process, `"failures"`).
    pub seed: u64,
}

impl HybridConfig {
    /// `nodes` nodes, EASY, checkpoints for a 24-hour MTBF (the paper runs without failures
    /// and does not say which MTBF its default Daly interval assumes: 24 h is ours), no
    /// failures.
    pub fn new(nodes: u32) -> Result<HybridConfig, ParamError> {
        Self::check_nodes(nodes)?;
        Ok(HybridConfig {
            nodes,
            site: SiteScheduler::Easy,
            checkpoint: CheckpointPolicy::new(Duration::from_hours(24))?,
            failures: None,
            seed: 0,
        })
    }

    fn check_nodes(nodes: u32) -> Result<(), ParamError> {
        ParamError::check(
            (1..=MAX_NODES).contains(&nodes),
            "nodes",
            nodes,
            "must lie in 1..=1048576 (MAX_NODES)",
        )
    }

    fn validate(&self) -> Result<(), ParamError> {
        Self::check_nodes(self.nodes)?;
        if let Some(f) = self.failures {
            ParamError::check(f.mtbf.0 > 0, "mtbf", f.mtbf.0, "must be > 0")?;
            ParamError::check(
                f.mean_repair.0 > 0,
                "mean_repair",
                f.mean_repair.0,
                "must be > 0",
            )?;
        }
        Ok(())
    }
}

/// (De)serialises a [`SiteScheduler`] by its name.
mod site_name {
    use cosched_batch::Policy as SiteScheduler;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(site: &SiteScheduler, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(site.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SiteScheduler, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Work the simulator may have to do, bounded: the last submission plus twice every job's
/// longest run must fit in `i64` seconds, so no start or end computed later overflows.
fn check_horizon(jobs: &[HybridJob]) -> Result<(), HybridError> {
    let last = jobs
        .iter()
        .map(HybridJob::submit)
        .max()
        .unwrap_or(Time::ZERO);
    let mut total = Duration::ZERO;
    for job in jobs {
        let longest = match *job {
            HybridJob::Rigid { job, .. } => job.estimate.max(job.runtime),
            HybridJob::Malleable { job, estimate } => {
                estimate.max(job.runtime_on(job.min_size).unwrap_or(Duration(i64::MAX)))
            }
            HybridJob::OnDemand(job) => job.estimate.max(job.runtime),
        };
        let twice = longest.checked_mul(2).unwrap_or(Duration(i64::MAX));
        total = total.checked_add(twice).unwrap_or(Duration(i64::MAX));
    }
    last.try_add(total)?;
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    BatchEnd(RunToken),
    OdEnd(usize, u32),
    Failure(NodeId, Duration),
    Repair(NodeId),
    Wake,
    Notice(usize),
    Arrive(usize),
    Submit(usize),
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::BatchEnd(_) | Ev::OdEnd(..) => 0,
            Ev::Failure(..) | Ev::Repair(_) => 1,
            Ev::Wake => 2,
            Ev::Notice(_) => 4,
            // In workload order, so that the batch queue (on-demand jobs in it, under the
            // baseline) grows by appends.
            Ev::Arrive(_) | Ev::Submit(_) => 5,
        }
    }
}

/// Who holds a node the batch cluster does not schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hold {
    Cluster,
    Reserved(JobId),
    OnDemand(usize),
    Failed,
}

/// Why a running job stops before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Interruption {
    Preemption,
    Failure,
}

#[derive(Clone, Copy, Debug)]
struct Run {
    start: Time,
    anchor: Time,
    size: u32,
    end: Time,
    predicted_end: Time,
    token: RunToken,
}

#[derive(Clone, Debug)]
struct JobState {
    spec: HybridJob,
    /// Rigid and baseline on-demand jobs: work (setup and checkpoints excluded) its current or
    /// next run does.
    work_left: Duration,
    setup: Duration,
    checkpoints: Option<Checkpointing>,
    run: Option<Run>,
    account: JobAccount,
    record: JobRecord,
    /// On-demand jobs under a mechanism: nodes held and run epoch.
    od_nodes: Vec<NodeId>,
    od_epoch: u32,
}

/// What the mechanisms see of running batch job `st` (none for an on-demand job queued as a
/// batch job, or one not running); a rigid job's elapsed time is left at zero, for the
/// caller to fill in at the time it asks. Its work, setup and checkpoints change only
/// between runs, its size and predicted end on a resize, which stores it again.
fn planned(st: &JobState) -> Option<PlannedJob> {
    let run = st.run?;
    let kind = match st.spec {
        HybridJob::OnDemand(_) => return None,
        HybridJob::Malleable { job, .. } => RunningKind::Malleable {
            min_size: job.min_size,
            max_size: job.max_size,
        },
        HybridJob::Rigid { .. } => RunningKind::Rigid {
            work: st.work_left,
            elapsed: Duration::ZERO,
            checkpoints: st.checkpoints,
        },
    };
    Some(PlannedJob {
        view: RunningView {
            id: st.spec.id(),
            size: run.size,
            setup: st.setup,
            kind,
        },
        run_start: run.start,
        predicted_end: run.predicted_end,
    })
}

/// Workload positions by job id: an offset when the admitted jobs' ids are consecutive in
/// workload order (as the generators and most logs number them), which costs no memory and
/// no hashing on the hot paths, else a hash map.
enum JobIndex {
    Consecutive { first: u64, len: usize },
    Map(FxHashMap<JobId, usize>),
}

impl JobIndex {
    fn new(specs: &[HybridJob]) -> JobIndex {
        let first = specs.first().map_or(0, |s| s.id().0);
        let consecutive = specs
            .iter()
            .enumerate()
            .all(|(i, s)| first.checked_add(i as u64) == Some(s.id().0));
        if consecutive {
            JobIndex::Consecutive {
                first,
                len: specs.len(),
            }
        } else {
            JobIndex::Map(specs.iter().enumerate().map(|(i, s)| (s.id(), i)).collect())
        }
    }

    /// The workload position of `job`, if the workload has it.
    #[inline]
    fn get(&self, job: JobId) -> Option<usize> {
        match self {
            JobIndex::Consecutive { first, len } => {
                let i = usize::try_from(job.0.checked_sub(*first)?).ok()?;
                (i < *len).then_some(i)
            }
            JobIndex::Map(map) => map.get(&job).copied(),
        }
    }
}

/// The batch cluster's idle nodes in the order of its free stack, mirrored from the operations
/// the simulator performs, so that it takes nodes from the top, where
/// [`BatchCluster::set_offline`] finds them at once (the mirror's order only matters for speed;
/// its content is checked by [`HybridSim::check_invariants`]).
struct IdleStack {
    stack: Vec<NodeId>,
    /// Each node's position in `stack`, `usize::MAX` when not idle.
    pos: Vec<usize>,
}

impl IdleStack {
    /// All nodes idle, in the cluster's initial order (node 0 on top).
    fn new(nodes: u32) -> IdleStack {
        let stack: Vec<NodeId> = (0..nodes).rev().map(NodeId).collect();
        let mut pos = vec![0; nodes as usize];
        for (k, node) in stack.iter().enumerate() {
            pos[node.index()] = k;
        }
        IdleStack { stack, pos }
    }

    fn contains(&self, node: NodeId) -> bool {
        self.pos[node.index()] != usize::MAX
    }

    fn push(&mut self, node: NodeId) {
        debug_assert!(!self.contains(node), "{node} pushed twice");
        self.pos[node.index()] = self.stack.len();
        self.stack.push(node);
    }

    /// Removes `node`: O(1) from the top, else it shifts the nodes above it.
    fn remove(&mut self, node: NodeId) {
        let k = self.pos[node.index()];
        if k == usize::MAX {
            return;
        }
        self.stack.remove(k);
        self.pos[node.index()] = usize::MAX;
        for j in k..self.stack.len() {
            self.pos[self.stack[j].index()] = j;
        }
    }

    /// Orders idle `nodes` from the top of the stack down.
    fn sort_top_first(&self, nodes: &mut [NodeId]) {
        nodes.sort_unstable_by_key(|n| std::cmp::Reverse(self.pos[n.index()]));
    }

    /// Up to `n` nodes from the top down.
    fn top(&self, n: usize) -> Vec<NodeId> {
        self.stack.iter().rev().take(n).copied().collect()
    }
}

/// The length of one block of the failure process, drawn from its own stream: a week.
pub const FAILURE_BLOCK: Duration = Duration::from_hours(24 * 7);

/// Node failures as a function of time only: block `k` (`[k·FAILURE_BLOCK, (k+1)·FAILURE_BLOCK)`)
/// draws its Poisson arrivals, failed nodes and repair times from the stream
/// `("failures", k)`, so the failures after any instant are the same whatever happened
/// before it (and under every mechanism), and the process can jump over an idle gap of any
/// length in O(1).
struct FailureProcess {
    streams: SeedStreams,
    nodes: u32,
    gap: Exp<f64>,
    repair: Exp<f64>,
    block: i64,
    rng: StreamRng,
    cursor: Time,
}

impl FailureProcess {
    fn new(streams: SeedStreams, failures: Failures, nodes: u32) -> Result<Self, ParamError> {
        let exp = |mean: Duration, name: &'static str| {
            Exp::new(1.0 / mean.0 as f64).map_err(|_| ParamError::new(name, mean.0, "must be > 0"))
        };
        Ok(FailureProcess {
            streams,
            nodes,
            gap: exp(failures.mtbf, "mtbf")?,
            repair: exp(failures.mean_repair, "mean_repair")?,
            block: i64::MIN,
            rng: streams.stream("failures", 0),
            cursor: Time(i64::MIN),
        })
    }

    fn enter(&mut self, block: i64) {
        self.block = block;
        self.rng = self.streams.stream("failures", block as u64);
        self.cursor = Time(block.saturating_mul(FAILURE_BLOCK.0));
    }

    fn draw(&mut self, mean: &Exp<f64>) -> Duration {
        Duration((mean.sample(&mut self.rng).round() as i64).max(1))
    }

    /// The first failure at or after `t`: when, which node, how long its repair takes.
    /// `None` past the last representable block.
    fn next_at_or_after(&mut self, t: Time) -> Option<(Time, NodeId, Duration)> {
        let block = t.0.div_euclid(FAILURE_BLOCK.0);
        if block > self.block || t < self.cursor {
            self.enter(block);
        }
        loop {
            let gap = self.draw(&self.gap.clone());
            let node = NodeId(self.rng.random_range(0..self.nodes));
            let repair = self.draw(&self.repair.clone());
            let at = self.cursor.checked_add(gap)?;
            let block_end = self.block.checked_add(1)?.checked_mul(FAILURE_BLOCK.0)?;
            if at.0 >= block_end {
                let next = self.block.checked_add(1)?;
                self.enter(next);
                continue;
            }
            self.cursor = at;
            if at >= t {
                return Some((at, node, repair));
            }
        }
    }
}

/// The simulator; see the [module docs](self).
pub struct HybridSim {
    config: HybridConfig,
    check: bool,
    notices: bool,
    transcribe: bool,
}

/// What [`HybridSim::run`] asks of a policy: the hybrid protocol, with an error the
/// simulator can carry.
pub trait HybridProtocol:
    Policy<Observation = Observation, Command = Command, View = dyn PlatformView>
{
}

impl<P> HybridProtocol for P where
    P: Policy<Observation = Observation, Command = Command, View = dyn PlatformView> + ?Sized
{
}

impl HybridSim {
    /// A simulator for `config` (validated), delivering advance notices.
    pub fn new(config: HybridConfig) -> Result<HybridSim, HybridError> {
        config.validate()?;
        Ok(HybridSim {
            config,
            check: false,
            notices: true,
            transcribe: false,
        })
    }

    /// Checks node accounting after every instant (O(nodes + jobs) each; for tests), recording
    /// violations in [`HybridOutcome::violations`].
    pub fn check_invariants(mut self) -> HybridSim {
        self.check = true;
        self
    }

    /// Whether the view keeps a transcript of each policy call's queries
    /// ([`PlatformView::transcript`]), for recordings that replay without the simulator
    /// ([`crate::record`]).
    pub fn transcribe_views(mut self, transcribe: bool) -> HybridSim {
        self.transcribe = transcribe;
        self
    }

    /// Whether advance notices are delivered (a policy that ignores them runs the same
    /// without, and faster).
    pub fn with_notices(mut self, notices: bool) -> HybridSim {
        self.notices = notices;
        self
    }

    /// Runs `jobs` to the end under `policy`, reported under the name `label`: admitted by
    /// [`cosched_workload::admit`] (repeated ids are an error, invalid jobs are counted and
    /// left out), on core's kernel.
    pub fn run<P>(
        &self,
        label: &str,
        policy: P,
        jobs: &[HybridJob],
    ) -> Result<HybridOutcome, SimError<P::Error>>
    where
        P: HybridProtocol,
    {
        let admitted = admit(jobs).map_err(|d| HybridError::DuplicateJob(d.0))?;
        check_horizon(&admitted.jobs)?;
        let mut queue = EventQueue::new(Time(i64::MIN));
        let mut env = Env::new(&self.config, &admitted.jobs, self.check, self.notices)?;
        env.invalid = admitted.invalid;
        env.transcript = self.transcribe.then(Default::default);
        let mut sim = Sim {
            env,
            policy,
            out: Vec::new(),
            wakes: std::collections::BTreeSet::new(),
        };
        let first = admitted.jobs.first().map_or(Time::ZERO, HybridJob::submit);
        sim.env.begin_call();
        sim.policy
            .start(first, &sim.env, &mut sim.out)
            .map_err(SimError::Policy)?;
        let commands = std::mem::take(&mut sim.out);
        sim.apply(first, &commands)?;
        sim.arm_wake(first);
        sim.env.flush(&mut queue)?;
        engine::run(&mut sim, &mut queue)?;
        Ok(sim.env.finish(label))
    }
}

/// The event by which job `i` enters: an on-demand job arrives (the policy decides), a batch
/// job is submitted.
fn entry(spec: &HybridJob, i: usize) -> Ev {
    match spec {
        HybridJob::OnDemand(_) => Ev::Arrive(i),
        _ => Ev::Submit(i),
    }
}

/// The environment: the batch cluster, the nodes the policy holds out of it, the jobs' runs,
/// the failure process and the ledger.
struct Env {
    config: HybridConfig,
    cluster: BatchCluster,
    /// The site's batch scheduler (FCFS + EASY in the paper).
    site: Box<dyn BatchScheduler + Send>,
    /// Events decided while handling one, put on the kernel's queue after it.
    pending: Vec<(Time, Ev)>,
    jobs: Vec<JobState>,
    index: JobIndex,
    hold: Vec<Hold>,
    /// Nodes held [`Hold::Reserved`] per on-demand job (the idle nodes of its reservation).
    reserved: FxHashMap<JobId, u32>,
    idle: IdleStack,
    /// Running batch jobs by workload position, with what the mechanisms see of each (none
    /// for an on-demand job queued as a batch job), kept compact for CUP's notices and the
    /// arrivals that must free nodes; a rigid job's elapsed time is filled in when asked.
    running: BTreeMap<usize, Option<PlannedJob>>,
    od_running: usize,
    /// On-demand jobs arrived under a mechanism and not started yet.
    od_pending: usize,
    outstanding: usize,
    invalid: usize,
    rejected: usize,
    node_failures: usize,
    guest_starts: usize,
    failures: Option<FailureProcess>,
    failure_armed: bool,
    /// Bumped whenever a job enters the batch queue (a submission or a preemption).
    queue_epoch: u64,
    started: Vec<Started>,
    usage: UsageLedger,
    check: bool,
    violations: Vec<String>,
    /// What the policy asked of the view in the current call, when transcribed.
    transcript: Option<std::cell::RefCell<Transcript>>,
}

impl Env {
    fn new(
        config: &HybridConfig,
        specs: &[HybridJob],
        check: bool,
        notices: bool,
    ) -> Result<Self, HybridError> {
        let index = JobIndex::new(specs);
        let mut jobs = Vec::with_capacity(specs.len());
        let mut pending = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let (work_left, setup, checkpoints, required) = match *spec {
                HybridJob::Rigid { job, setup } => {
                    let runtime = job.simulated_runtime();
                    let work = config.checkpoint.work(job.size, runtime - setup);
                    let wall = config
                        .checkpoint
                        .run_time(job.size, work)
                        .and_then(|w| w.checked_add(setup))
                        .ok_or(ParamError::new(
                            "runtime",
                            runtime.0,
                            "overflows with checkpoints",
                        ))?;
                    let required = i64::from(job.size).saturating_mul(wall.0);
                    (
                        work,
                        setup,
                        config.checkpoint.checkpointing(job.size, work),
                        required,
                    )
                }
                HybridJob::Malleable { job, estimate } => {
                    let runtime = job.runtime_on(job.max_size)?;
                    let required = i64::from(job.max_size).saturating_mul(runtime.min(estimate).0);
                    (Duration::ZERO, job.setup, None, required)
                }
                HybridJob::OnDemand(job) => {
                    let required = i64::from(job.size).saturating_mul(job.runtime.0);
                    (job.runtime, Duration::ZERO, None, required)
                }
            };
            let id = spec.id();
            jobs.push(JobState {
                spec: *spec,
                work_left,
                setup,
                checkpoints,
                run: None,
                account: JobAccount {
                    id,
                    class: spec.class(),
                    required,
                    delivered: 0,
                    wasted: 0,
                    completions: 0,
                    preemptions: 0,
                    shrinks: 0,
                    expansions: 0,
                    failures: 0,
                    rounding_slack: 0,
                },
                record: JobRecord {
                    id,
                    class: spec.class(),
                    submit: spec.submit(),
                    start: None,
                    end: None,
                    size: spec.size(),
                    runtime: Duration(required / i64::from(spec.size().max(1))),
                },
                od_nodes: Vec::new(),
                od_epoch: 0,
            });
            if let HybridJob::OnDemand(job) = spec
                && let (true, Some(at), Some(_)) = (notices, job.notice, job.estimated_arrival)
            {
                pending.push((at, Ev::Notice(i)));
            }
        }
        // Arrivals are put on the queue one at a time, each by the one before it (a heap of
        // every future submission would make every pop slower).
        pending.extend(specs.first().map(|spec| (spec.submit(), entry(spec, 0))));
        let failures = config
            .failures
            .map(|f| FailureProcess::new(SeedStreams::new(config.seed), f, config.nodes))
            .transpose()?;
        Ok(Env {
            config: *config,
            cluster: BatchCluster::new(config.nodes)?,
            site: config.site.scheduler(),
            pending,
            outstanding: jobs.len(),
            jobs,
            index,
            hold: vec![Hold::Cluster; config.nodes as usize],
            reserved: FxHashMap::default(),
            idle: IdleStack::new(config.nodes),
            running: BTreeMap::new(),
            od_running: 0,
            od_pending: 0,
            invalid: 0,
            rejected: 0,
            node_failures: 0,
            guest_starts: 0,
            failures,
            failure_armed: false,
            queue_epoch: 0,
            started: Vec::new(),
            usage: UsageLedger::with_windows(),
            check,
            violations: Vec::new(),
            transcript: None,
        })
    }

    /// The workload position of `job`, or the typed error for a command naming a job the
    /// workload does not have.
    fn find(&self, job: JobId) -> Result<usize, HybridError> {
        self.index.get(job).ok_or(HybridError::UnknownJob(job))
    }

    fn schedule(&mut self, at: Time, ev: Ev) {
        self.pending.push((at, ev));
    }

    /// Puts the events decided since the last flush on the kernel's queue.
    fn flush(&mut self, queue: &mut EventQueue<Ev>) -> Result<(), HybridError> {
        for (at, ev) in self.pending.drain(..) {
            queue.schedule(at, ev).map_err(engine::EngineError::from)?;
        }
        Ok(())
    }

    fn busy(&mut self, from: Time, to: Time, units: u32) {
        // Run segments never end before they start.
        let _ = self
            .usage
            .record(Pool::Batch, UsageKind::Busy, from, to, u64::from(units));
    }

    fn wasted(&mut self, from: Time, to: Time, units: u32) {
        let _ = self
            .usage
            .record(Pool::Batch, UsageKind::Wasted, from, to, u64::from(units));
    }

    /// Whether no job runs, waits or is queued: failures then harm nothing.
    fn machine_empty(&self) -> bool {
        self.running.is_empty()
            && self.od_running == 0
            && self.od_pending == 0
            && self.cluster.queue_len() == 0
    }

    /// Schedules the first failure at or after `now` if the process is paused.
    fn arm_failures(&mut self, now: Time) {
        if self.failure_armed || self.outstanding == 0 {
            return;
        }
        let Some(process) = self.failures.as_mut() else {
            return;
        };
        if let Some((at, node, repair)) = process.next_at_or_after(now) {
            self.failure_armed = true;
            self.schedule(at, Ev::Failure(node, repair));
        }
    }

    /// Schedules the entry of the job after job `i` (the jobs enter in workload order).
    fn next_entry(&mut self, i: usize) {
        if let Some(spec) = self.jobs.get(i + 1).map(|st| st.spec) {
            self.schedule(spec.submit(), entry(&spec, i + 1));
        }
    }

    /// Job `i`'s advance notice, if it has one.
    fn notice(&self, i: usize) -> Option<Notice> {
        let HybridJob::OnDemand(job) = self.jobs.get(i)?.spec else {
            return None;
        };
        Some(Notice {
            job: job.id,
            size: job.size,
            at: job.notice?,
            estimated_arrival: job.estimated_arrival?,
        })
    }

    fn submit(&mut self, i: usize) -> Result<(), HybridError> {
        let st = &self.jobs[i];
        let job = match st.spec {
            HybridJob::Rigid { job, .. } => {
                let runtime = self.rigid_runtime(i)?;
                BatchJob {
                    runtime,
                    estimate: job.estimate.max(runtime),
                    ..BatchJob::rigid(&job)
                }
            }
            HybridJob::Malleable { job, estimate } => {
                BatchJob::malleable(&job, job.max_size, estimate)?
            }
            HybridJob::OnDemand(job) => BatchJob {
                id: job.id,
                submit: job.arrival,
                size: job.size,
                runtime: job.runtime,
                estimate: job.estimate.max(job.runtime),
                class: JobClass::OnDemand,
                resizable: None,
            },
        };
        self.queue_epoch += 1;
        if self.cluster.submit(job)? == Submitted::Rejected {
            self.rejected += 1;
            self.outstanding -= 1;
        }
        Ok(())
    }

    /// The run time of rigid job `i`'s next run: setup, its work left, its checkpoints.
    fn rigid_runtime(&self, i: usize) -> Result<Duration, HybridError> {
        let st = &self.jobs[i];
        let wall = match st.checkpoints {
            Some(ck) => ck.wall_time(st.work_left),
            None => Some(st.work_left),
        };
        wall.and_then(|w| w.checked_add(st.setup))
            .ok_or_else(|| ParamError::new("runtime", st.work_left.0, "overflows").into())
    }

    /// A batch run's end: the job that completed, if `token` was its current run.
    fn batch_end(&mut self, now: Time, token: RunToken) -> Result<Option<JobId>, HybridError> {
        let i = self.find(token.job)?;
        let Some(run) = self.jobs[i].run.filter(|r| r.token == token) else {
            return Ok(None);
        };
        for &node in self.cluster.job_nodes(token.job)? {
            self.idle.push(node);
        }
        self.running.remove(&i);
        let Some(record) = self.cluster.complete(now, token) else {
            return Ok(None);
        };
        let st = &mut self.jobs[i];
        st.account.delivered += i64::from(run.size) * (now - run.anchor).0;
        st.account.completions += 1;
        st.run = None;
        st.record = JobRecord {
            runtime: st.record.runtime,
            ..record
        };
        self.busy(run.anchor, now, run.size);
        self.outstanding -= 1;
        Ok(Some(token.job))
    }

    /// Stops running batch job `i` (a preemption or a node failure) and requeues it.
    fn interrupt(&mut self, now: Time, i: usize, why: Interruption) -> Result<(), HybridError> {
        let id = self.jobs[i].spec.id();
        for &node in self.cluster.job_nodes(id)? {
            self.idle.push(node);
        }
        self.running.remove(&i);
        let Some(run) = self.jobs[i].run.take() else {
            return Ok(());
        };
        let segment = i64::from(run.size) * (now - run.anchor).0;
        self.jobs[i].account.delivered += segment;
        self.busy(run.anchor, now, run.size);
        let size = self.jobs[i].spec.size();
        let resume = match self.jobs[i].spec {
            HybridJob::Malleable { .. } => {
                let st = &mut self.jobs[i];
                let left = i64::from(run.size) * (run.end - now).0.max(0);
                let n = i64::from(size);
                st.account.wasted += n * st.setup.0;
                st.account.rounding_slack += n;
                // The setup it pays again on resuming, placed right after the interruption.
                let setup = st.setup;
                self.wasted(now, now.saturating_add(setup), size);
                Resume::WithRuntime(Duration((left + n - 1) / n) + setup)
            }
            _ => {
                let st = &mut self.jobs[i];
                let elapsed = now - run.start;
                let (lost, saved) =
                    preemption_cost(elapsed, st.setup, st.work_left, st.checkpoints);
                st.work_left -= saved;
                st.account.wasted += i64::from(size) * lost.0;
                // The run's setup and what followed its last checkpoint are lost; with
                // nothing saved, the whole run.
                let setup = st.setup;
                if saved > Duration::ZERO {
                    self.wasted(run.start, run.start + setup, size);
                    self.wasted(now - (lost - setup), now, size);
                } else {
                    self.wasted(run.start, now, size);
                }
                Resume::WithRuntime(self.rigid_runtime(i)?)
            }
        };
        let st = &mut self.jobs[i];
        match why {
            Interruption::Preemption => st.account.preemptions += 1,
            Interruption::Failure => st.account.failures += 1,
        }
        self.cluster.preempt(now, id, resume)?;
        self.queue_epoch += 1;
        Ok(())
    }

    /// Resizes running malleable job `i` to `to` nodes (a shrink's nodes go idle).
    fn resize(&mut self, now: Time, i: usize, to: u32) -> Result<(), HybridError> {
        let id = self.jobs[i].spec.id();
        let before = self.cluster.job_nodes(id)?;
        let old = before.len();
        for &node in before.get(to as usize..).unwrap_or_default() {
            self.idle.push(node);
        }
        let started = self.cluster.resize(now, id, to)?;
        // An expansion pops idle nodes off the top, in the order the job lists them.
        for &node in self.cluster.job_nodes(id)?.get(old..).unwrap_or_default() {
            self.idle.remove(node);
        }
        let Some(run) = self.jobs[i].run else {
            return Ok(());
        };
        self.busy(run.anchor, now, run.size);
        let st = &mut self.jobs[i];
        st.account.delivered += i64::from(run.size) * (now - run.anchor).0;
        st.account.rounding_slack += i64::from(to);
        if to > run.size {
            st.account.expansions += 1;
        } else if to < run.size {
            st.account.shrinks += 1;
        }
        st.run = Some(Run {
            anchor: now,
            size: to,
            end: started.end,
            predicted_end: started.predicted_end,
            token: started.token,
            ..run
        });
        let view = planned(st);
        self.running.insert(i, view);
        self.schedule(started.end, Ev::BatchEnd(started.token));
        Ok(())
    }

    /// Books the runs the last pass started; what the policy hears of them.
    fn register_starts(&mut self, now: Time, guest_of: Option<JobId>) -> Vec<StartInfo> {
        let mut starts = Vec::with_capacity(self.started.len());
        for started in std::mem::take(&mut self.started) {
            let Some(i) = self.index.get(started.token.job) else {
                continue;
            };
            // A start takes the top of the idle stack: remove from the top down.
            if let Ok(nodes) = self.cluster.job_nodes(started.token.job) {
                for &node in nodes.iter().rev() {
                    self.idle.remove(node);
                }
            }
            let st = &mut self.jobs[i];
            st.run = Some(Run {
                start: now,
                anchor: now,
                size: started.size,
                end: started.end,
                predicted_end: started.predicted_end,
                token: started.token,
            });
            self.running.insert(i, planned(st));
            let st = &mut self.jobs[i];
            if st.record.start.is_none() {
                st.record.start = Some(now);
            }
            let max_size = match st.spec {
                HybridJob::Malleable { job, .. } => Some(job.max_size),
                _ => None,
            };
            if started.size < st.spec.size() {
                // Started below its largest size: the spread work rounds up per node.
                st.account.rounding_slack += i64::from(started.size);
            }
            starts.push(StartInfo {
                job: started.token.job,
                submit: st.spec.submit(),
                size: started.size,
                max_size,
                guest_of,
            });
            self.pending
                .push((started.end, Ev::BatchEnd(started.token)));
        }
        if guest_of.is_some() {
            self.guest_starts += starts.len();
        }
        starts
    }

    /// Gives a held node back to the batch cluster.
    fn set_online(&mut self, node: NodeId) -> Result<(), HybridError> {
        self.cluster.set_online(node)?;
        self.set_hold(node, Hold::Cluster);
        self.idle.push(node);
        Ok(())
    }

    /// Takes idle `nodes` from the batch cluster for `hold`.
    fn take(&mut self, nodes: &[NodeId], hold: Hold) -> Result<(), HybridError> {
        // From the top of the free stack down, where removals are cheapest.
        let mut nodes = nodes.to_vec();
        self.idle.sort_top_first(&mut nodes);
        for node in nodes {
            self.cluster.set_offline(node)?;
            self.idle.remove(node);
            self.set_hold(node, hold);
        }
        Ok(())
    }

    /// Sets who holds `node`, keeping the count of each reservation's idle nodes.
    fn set_hold(&mut self, node: NodeId, hold: Hold) {
        let Some(slot) = self.hold.get_mut(node.index()) else {
            return;
        };
        if let Hold::Reserved(job) = std::mem::replace(slot, hold)
            && let Some(count) = self.reserved.get_mut(&job)
        {
            *count -= 1;
            if *count == 0 {
                self.reserved.remove(&job);
            }
        }
        if let Hold::Reserved(job) = hold {
            *self.reserved.entry(job).or_default() += 1;
        }
    }

    /// Whether `node` is idle in the batch cluster and held by no one.
    fn idle_in_cluster(&self, node: NodeId) -> bool {
        self.hold.get(node.index()) == Some(&Hold::Cluster)
            && self.cluster.node_state(node) == Ok(NodeState::Idle)
    }

    fn start_od(&mut self, now: Time, i: usize) -> Result<(), HybridError> {
        let st = &mut self.jobs[i];
        st.od_epoch += 1;
        let end = now.try_add(st.work_left)?;
        st.run = Some(Run {
            start: now,
            anchor: now,
            size: st.spec.size(),
            end,
            predicted_end: end,
            token: RunToken {
                job: st.spec.id(),
                epoch: st.od_epoch,
            },
        });
        if st.record.start.is_none() {
            st.record.start = Some(now);
        }
        let epoch = st.od_epoch;
        self.od_running += 1;
        self.od_pending -= 1;
        self.schedule(end, Ev::OdEnd(i, epoch));
        Ok(())
    }

    /// Gives on-demand job `i`'s nodes (but the failed ones) back.
    fn release_od(&mut self, i: usize) -> Result<(), HybridError> {
        for node in std::mem::take(&mut self.jobs[i].od_nodes) {
            if self.hold[node.index()] == Hold::Failed {
                continue;
            }
            self.set_online(node)?;
        }
        Ok(())
    }

    /// On-demand job `i` completed: its nodes go back.
    fn od_end(&mut self, now: Time, i: usize) -> Result<JobId, HybridError> {
        if let Some(run) = self.jobs[i].run.take() {
            let st = &mut self.jobs[i];
            st.account.delivered += i64::from(run.size) * (now - run.anchor).0;
            st.account.completions += 1;
            st.record.end = Some(now);
            self.busy(run.anchor, now, run.size);
            self.od_running -= 1;
            self.outstanding -= 1;
        }
        self.release_od(i)?;
        Ok(self.jobs[i].spec.id())
    }

    /// A failure killed running on-demand job `i`: its run is wasted and its other nodes go
    /// back; it is pending again.
    fn od_killed(&mut self, now: Time, i: usize, run: Run) -> Result<(), HybridError> {
        let lost = i64::from(run.size) * (now - run.anchor).0;
        let st = &mut self.jobs[i];
        st.account.delivered += lost;
        st.account.wasted += lost;
        st.account.failures += 1;
        self.busy(run.anchor, now, run.size);
        self.wasted(run.anchor, now, run.size);
        self.od_running -= 1;
        self.od_pending += 1;
        self.release_od(i)
    }

    /// The running batch jobs as the mechanisms see them (on-demand jobs left out), in
    /// workload order (the mechanisms break ties by job id).
    fn running_views(&self, now: Time) -> Vec<PlannedJob> {
        self.running
            .values()
            .flatten()
            .map(|&planned| {
                let mut planned = planned;
                if let RunningKind::Rigid { elapsed, .. } = &mut planned.view.kind {
                    *elapsed = now - planned.run_start;
                }
                planned
            })
            .collect()
    }

    fn finish(self, label: &str) -> HybridOutcome {
        let records: Vec<JobRecord> = self.jobs.iter().map(|s| s.record).collect();
        let accounts: Vec<JobAccount> = self.jobs.iter().map(|s| s.account).collect();
        let counts = Counts {
            invalid: self.invalid,
            rejected: self.rejected,
            node_failures: self.node_failures,
            guest_starts: self.guest_starts,
        };
        let report = report(
            &self.config,
            label,
            &records,
            &accounts,
            &self.usage,
            counts,
        );
        HybridOutcome {
            report,
            records,
            accounts,
            usage: self.usage,
            violations: self.violations,
        }
    }
}

impl Env {
    /// Keeps `answer` to `query` in the transcript, if one is kept.
    fn noted<T>(
        &self,
        query: impl FnOnce() -> Query,
        answer: T,
        as_answer: impl FnOnce(&T) -> Answer,
    ) -> T {
        if let Some(transcript) = &self.transcript {
            transcript.borrow_mut().push((query(), as_answer(&answer)));
        }
        answer
    }

    /// A policy call begins: the transcript starts afresh.
    fn begin_call(&self) {
        if let Some(transcript) = &self.transcript {
            transcript.borrow_mut().clear();
        }
    }
}

impl PlatformView for Env {
    fn idle_nodes(&self, n: usize) -> Vec<NodeId> {
        self.noted(
            || Query::IdleNodes(n),
            self.idle.top(n),
            |a| Answer::Nodes(a.clone()),
        )
    }

    fn idle_count(&self) -> u32 {
        let count = self.cluster.free_units();
        self.noted(|| Query::IdleCount, count, |&a| Answer::Count(u64::from(a)))
    }

    fn reserved_for(&self, node: NodeId) -> Option<JobId> {
        let job = match self.hold.get(node.index()) {
            Some(&Hold::Reserved(job)) => Some(job),
            _ => None,
        };
        self.noted(|| Query::ReservedFor(node), job, |&a| Answer::Job(a))
    }

    fn reserved_idle(&self, job: JobId, _nodes: &[NodeId]) -> usize {
        let count = self.reserved.get(&job).map_or(0, |&count| count as usize);
        self.noted(
            || Query::ReservedIdle(job),
            count,
            |&a| Answer::Count(a as u64),
        )
    }

    fn running(&self, now: Time) -> Vec<PlannedJob> {
        self.noted(
            || Query::Running(now),
            self.running_views(now),
            |a| Answer::Running(a.clone()),
        )
    }

    fn run(&self, job: JobId) -> Option<RunInfo> {
        let info = self
            .index
            .get(job)
            .and_then(|i| self.jobs.get(i))
            .and_then(|st| st.run)
            .map(|run| RunInfo {
                size: run.size,
                predicted_end: run.predicted_end,
                started: run.start,
            });
        self.noted(|| Query::Run(job), info, |&a| Answer::Run(a))
    }

    fn is_queued(&self, job: JobId) -> bool {
        let queued = self
            .index
            .get(job)
            .and_then(|i| self.jobs.get(i))
            .is_some_and(|st| st.run.is_none() && st.account.completions == 0);
        self.noted(|| Query::IsQueued(job), queued, |&a| Answer::Flag(a))
    }

    fn held(&self, job: JobId) -> u32 {
        let held = self
            .index
            .get(job)
            .and_then(|i| self.jobs.get(i))
            .map_or(0, |st| st.od_nodes.len() as u32);
        self.noted(|| Query::Held(job), held, |&a| Answer::Count(u64::from(a)))
    }

    fn queue_len(&self) -> usize {
        let len = self.cluster.queue_len();
        self.noted(|| Query::QueueLen, len, |&a| Answer::Count(a as u64))
    }

    fn queue_epoch(&self) -> u64 {
        self.noted(
            || Query::QueueEpoch,
            self.queue_epoch,
            |&a| Answer::Count(a),
        )
    }

    fn head_shadow(&self, now: Time) -> Option<Shadow> {
        let shadow = self
            .cluster
            .queue()
            .next()
            .map(|head| self.cluster.shadow(now, head.size()));
        self.noted(
            || Query::HeadShadow(now),
            shadow,
            |a| Answer::Shadow(a.map(|s| (s.time, s.extra))),
        )
    }

    fn transcript(&self) -> Option<Transcript> {
        self.transcript.as_ref().map(|t| t.borrow().clone())
    }
}

/// The executor: the environment driven by a policy of the hybrid protocol. It turns the
/// environment's events into the policy's observations and applies the policy's commands.
struct Sim<P> {
    env: Env,
    policy: P,
    /// The command buffer lent to the policy (kept warm between calls).
    out: Vec<Command>,
    /// Times of the wake events on the kernel's queue.
    wakes: std::collections::BTreeSet<Time>,
}

type Failed<P> = SimError<<P as Policy>::Error>;

impl<P> Sim<P>
where
    P: HybridProtocol,
{
    /// Delivers `observation` at `now` and applies the commands it returns.
    fn observe(&mut self, now: Time, observation: &Observation) -> Result<(), Failed<P>> {
        let mut out = std::mem::take(&mut self.out);
        out.clear();
        self.env.begin_call();
        self.policy
            .observe(now, observation, &self.env, &mut out)
            .map_err(SimError::Policy)?;
        let result = self.apply(now, &out);
        out.clear();
        self.out = out;
        result
    }

    /// Wakes the policy while its next wake is due, applying each call's commands.
    fn wake(&mut self, now: Time) -> Result<(), Failed<P>> {
        while self.policy.next_wake().is_some_and(|t| t <= now) {
            let mut out = std::mem::take(&mut self.out);
            out.clear();
            self.env.begin_call();
            self.policy
                .wake(now, &self.env, &mut out)
                .map_err(SimError::Policy)?;
            let result = self.apply(now, &out);
            out.clear();
            self.out = out;
            result?;
        }
        Ok(())
    }

    /// Puts a wake event on the queue for the policy's next wake unless an earlier one is
    /// there (it asks again when that fires).
    fn arm_wake(&mut self, now: Time) {
        let Some(at) = self.policy.next_wake() else {
            return;
        };
        let at = at.max(now);
        if self.wakes.first().is_none_or(|&first| at < first) {
            self.wakes.insert(at);
            self.env.schedule(at, Ev::Wake);
        }
    }

    fn dispatch(&mut self, now: Time, ev: Ev) -> Result<(), Failed<P>> {
        match ev {
            Ev::BatchEnd(token) => {
                if let Some(job) = self.env.batch_end(now, token)? {
                    self.observe(now, &Observation::Completed { job })?;
                }
            }
            Ev::OdEnd(i, epoch) => {
                let current = self.env.jobs[i].od_epoch == epoch && self.env.jobs[i].run.is_some();
                if current {
                    let job = self.env.od_end(now, i)?;
                    self.observe(now, &Observation::OnDemandEnded { job })?;
                }
            }
            Ev::Failure(node, repair) => {
                self.env.failure_armed = false;
                self.failure(now, node, repair)?;
                if !self.env.machine_empty() {
                    // Strictly after `now`: the next draw of the process.
                    self.env
                        .arm_failures(now.try_add(Duration(1)).map_err(HybridError::from)?);
                }
            }
            Ev::Repair(node) => self.env.set_online(node)?,
            Ev::Wake => {
                self.wakes.remove(&now);
                self.wake(now)?;
            }
            Ev::Notice(i) => {
                if let Some(notice) = self.env.notice(i) {
                    self.observe(now, &Observation::Notice(notice))?;
                }
            }
            Ev::Arrive(i) => {
                self.env.next_entry(i);
                self.env.arm_failures(now);
                self.arrive(now, i)?;
            }
            Ev::Submit(i) => {
                self.env.next_entry(i);
                self.env.arm_failures(now);
                self.env.submit(i)?;
            }
        }
        Ok(())
    }

    /// An on-demand job arrives: rejected if larger than the system, else the policy decides.
    fn arrive(&mut self, now: Time, i: usize) -> Result<(), Failed<P>> {
        let (job, size) = (self.env.jobs[i].spec.id(), self.env.jobs[i].spec.size());
        if size > self.env.config.nodes {
            self.env.rejected += 1;
            self.env.outstanding -= 1;
            return Ok(());
        }
        self.env.od_pending += 1;
        self.observe(now, &Observation::Arrival { job, size })
    }

    fn failure(&mut self, now: Time, node: NodeId, repair: Duration) -> Result<(), Failed<P>> {
        match self.env.hold[node.index()] {
            Hold::Failed => return Ok(()),
            Hold::Cluster => {
                if let NodeState::Busy(job) = self
                    .env
                    .cluster
                    .node_state(node)
                    .map_err(HybridError::from)?
                {
                    let j = self.env.find(job)?;
                    self.env.interrupt(now, j, Interruption::Failure)?;
                    self.observe(now, &Observation::Interrupted { job })?;
                }
                if let Hold::Reserved(_) = self.env.hold[node.index()] {
                    // A guest's node, back with its reservation: it leaves it.
                    self.observe(now, &Observation::NodeLost { node })?;
                } else {
                    self.env
                        .cluster
                        .set_offline(node)
                        .map_err(HybridError::from)?;
                    self.env.idle.remove(node);
                }
            }
            Hold::Reserved(_) => self.observe(now, &Observation::NodeLost { node })?,
            Hold::OnDemand(i) => {
                self.env.set_hold(node, Hold::Failed);
                if let Some(run) = self.env.jobs[i].run.take() {
                    // The running job restarts at once from scratch on fresh nodes.
                    self.env.od_killed(now, i, run)?;
                    let (job, size) = (self.env.jobs[i].spec.id(), self.env.jobs[i].spec.size());
                    self.observe(now, &Observation::OnDemandFailed { job, size })?;
                } else {
                    self.env.jobs[i].od_nodes.retain(|&n| n != node);
                }
            }
        }
        self.env.set_hold(node, Hold::Failed);
        self.env.node_failures += 1;
        let back = now.try_add(repair).map_err(HybridError::from)?;
        self.env.schedule(back, Ev::Repair(node));
        Ok(())
    }

    /// Carries out the policy's commands, in order; the starts of the passes go back to it.
    fn apply(&mut self, now: Time, commands: &[Command]) -> Result<(), Failed<P>> {
        for command in commands {
            if self.env.check {
                self.env.audit(now, command);
            }
            match command {
                &Command::Preempt { job } => {
                    let i = self.env.find(job)?;
                    if self.env.jobs[i].run.is_none() {
                        return Err(HybridError::NotRunning(job).into());
                    }
                    self.env.interrupt(now, i, Interruption::Preemption)?;
                }
                &Command::Resize { job, to } => {
                    let i = self.env.find(job)?;
                    if self.env.jobs[i].run.is_none() {
                        return Err(HybridError::NotRunning(job).into());
                    }
                    self.env.resize(now, i, to)?;
                }
                Command::Reserve { job, nodes } => {
                    let idle: Vec<NodeId> = nodes
                        .iter()
                        .copied()
                        .filter(|&n| self.env.idle_in_cluster(n))
                        .collect();
                    self.env.take(&idle, Hold::Reserved(*job))?;
                }
                Command::Release { job, nodes } => {
                    for &node in nodes {
                        if self.env.hold.get(node.index()) == Some(&Hold::Reserved(*job)) {
                            self.env.set_online(node)?;
                        }
                    }
                }
                Command::Assign { job, nodes } => {
                    let job = *job;
                    let i = self.env.find(job)?;
                    for &node in nodes {
                        if self.env.hold.get(node.index()) != Some(&Hold::Reserved(job)) {
                            return Err(HybridError::NotReserved { job, node }.into());
                        }
                        self.env.set_hold(node, Hold::OnDemand(i));
                    }
                    self.env.jobs[i].od_nodes.extend_from_slice(nodes);
                }
                &Command::AssignIdle { job, count } => {
                    let i = self.env.find(job)?;
                    let idle = self.env.idle.top(count as usize);
                    self.env.take(&idle, Hold::OnDemand(i))?;
                    self.env.jobs[i].od_nodes.extend(idle);
                }
                &Command::Unassign { job } => {
                    let i = self.env.find(job)?;
                    for node in std::mem::take(&mut self.env.jobs[i].od_nodes) {
                        self.env.set_online(node)?;
                    }
                }
                &Command::StartOnDemand { job } => {
                    let i = self.env.find(job)?;
                    let (held, size) = (
                        self.env.jobs[i].od_nodes.len(),
                        self.env.jobs[i].spec.size(),
                    );
                    if held != size as usize || self.env.jobs[i].run.is_some() {
                        return Err(HybridError::CannotStart { job, held, size }.into());
                    }
                    self.env.start_od(now, i)?;
                }
                &Command::Submit { job } => {
                    let i = self.env.find(job)?;
                    self.env.od_pending -= 1;
                    self.env.submit(i)?;
                }
                Command::Schedule(pass) => self.run_pass(now, pass)?,
            }
        }
        Ok(())
    }

    /// Runs a batch pass the policy asked for and tells it what started.
    fn run_pass(&mut self, now: Time, pass: &BatchPass) -> Result<(), Failed<P>> {
        let env = &mut self.env;
        let guest_of = match pass {
            &BatchPass::Site { resize_malleable } => {
                if resize_malleable {
                    let mut first = MalleableFirst {
                        base: env.site.as_mut(),
                    };
                    env.cluster.schedule(now, &mut first, &mut env.started);
                } else {
                    env.cluster.schedule(now, &mut env.site, &mut env.started);
                }
                None
            }
            BatchPass::Listed(jobs) => {
                env.cluster
                    .schedule(now, &mut StartListed(jobs), &mut env.started);
                None
            }
            BatchPass::Guests {
                for_job,
                nodes,
                arrival,
            } => {
                let for_job = *for_job;
                for &node in nodes {
                    if env.hold.get(node.index()) != Some(&Hold::Reserved(for_job)) {
                        return Err(HybridError::NotReserved { job: for_job, node }.into());
                    }
                    env.set_online(node)?;
                }
                let mut picker = GuestPicker {
                    budget: nodes.len() as u32,
                    arrival: *arrival,
                };
                env.cluster.schedule(now, &mut picker, &mut env.started);
                let starts = env.register_starts(now, Some(for_job));
                for start in starts {
                    self.observe(now, &Observation::Started(start))?;
                }
                let unused: Vec<NodeId> = nodes
                    .iter()
                    .copied()
                    .filter(|&n| self.env.cluster.node_state(n) == Ok(NodeState::Idle))
                    .collect();
                self.env.take(&unused, Hold::Reserved(for_job))?;
                return Ok(());
            }
        };
        for start in self.env.register_starts(now, guest_of) {
            self.observe(now, &Observation::Started(start))?;
        }
        Ok(())
    }
}

impl Env {
    /// Records a violation if `command` names a job that has finished (checked with
    /// [`HybridSim::check_invariants`]).
    fn audit(&mut self, now: Time, command: &Command) {
        let named: &[JobId] = match command {
            Command::Preempt { job }
            | Command::Resize { job, .. }
            | Command::Reserve { job, .. }
            | Command::Release { job, .. }
            | Command::Assign { job, .. }
            | Command::AssignIdle { job, .. }
            | Command::Unassign { job }
            | Command::StartOnDemand { job }
            | Command::Submit { job }
            | Command::Schedule(BatchPass::Guests { for_job: job, .. }) => {
                std::slice::from_ref(job)
            }
            Command::Schedule(BatchPass::Listed(jobs)) => jobs,
            Command::Schedule(BatchPass::Site { .. }) => &[],
        };
        for job in named {
            let finished = self
                .index
                .get(*job)
                .is_none_or(|i| self.jobs[i].account.completions > 0);
            if finished {
                self.violations.push(format!(
                    "t={now}: {command:?} names {job}, finished or unknown"
                ));
            }
        }
    }

    fn check_nodes(&mut self, now: Time) {
        let env = self;
        let mut held = 0u32;
        for (k, hold) in env.hold.iter().enumerate() {
            let node = NodeId(k as u32);
            let Ok(state) = env.cluster.node_state(node) else {
                env.violations
                    .push(format!("t={now}: {node} unknown to the cluster"));
                continue;
            };
            let ok = match hold {
                Hold::Cluster => !matches!(state, NodeState::Offline | NodeState::Draining(_)),
                _ => state == NodeState::Offline,
            };
            if !ok {
                env.violations.push(format!(
                    "t={now}: {node} held {hold:?} but {state:?} in the cluster"
                ));
            }
            held += u32::from(*hold != Hold::Cluster);
            if env.idle.contains(node) != (state == NodeState::Idle) {
                env.violations.push(format!(
                    "t={now}: {node} is {state:?} but the idle mirror disagrees"
                ));
            }
        }
        if held != env.cluster.offline_units() {
            env.violations.push(format!(
                "t={now}: {held} nodes held but {} offline",
                env.cluster.offline_units()
            ));
        }
        for (&job, &count) in &env.reserved {
            let idle = env
                .hold
                .iter()
                .filter(|&&h| h == Hold::Reserved(job))
                .count();
            if idle != count as usize {
                env.violations.push(format!(
                    "t={now}: {job} has {idle} idle reserved nodes, counted {count}"
                ));
            }
        }
        for (i, st) in env.jobs.iter().enumerate() {
            for &node in &st.od_nodes {
                if env.hold[node.index()] != Hold::OnDemand(i) {
                    env.violations.push(format!(
                        "t={now}: {node} of {} held otherwise",
                        st.spec.id()
                    ));
                }
            }
            if let (Some(run), HybridJob::Malleable { job, .. }) = (st.run, st.spec)
                && !(job.min_size..=job.max_size).contains(&run.size)
            {
                env.violations
                    .push(format!("t={now}: {} runs on {} nodes", job.id, run.size));
            }
        }
        // On-demand jobs run in the batch cluster only when queued there (the baseline).
        let busy: u32 = env
            .jobs
            .iter()
            .filter(|st| st.spec.class() != JobClass::OnDemand || st.od_nodes.is_empty())
            .filter_map(|st| st.run.map(|r| r.size))
            .sum();
        if busy != env.cluster.busy_units() {
            env.violations.push(format!(
                "t={now}: batch jobs hold {busy} nodes, the cluster says {}",
                env.cluster.busy_units()
            ));
        }
    }
}

impl<P> Simulation for Sim<P>
where
    P: HybridProtocol,
{
    type Event = Ev;
    type Error = Failed<P>;

    fn handle(
        &mut self,
        now: Time,
        event: Ev,
        queue: &mut EventQueue<Ev>,
    ) -> Result<(), Failed<P>> {
        self.dispatch(now, event)?;
        self.arm_wake(now);
        self.env.flush(queue).map_err(SimError::from)
    }

    fn settle(&mut self, now: Time, queue: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        loop {
            let mut out = std::mem::take(&mut self.out);
            out.clear();
            self.env.begin_call();
            self.policy
                .observe(now, &Observation::Settle, &self.env, &mut out)
                .map_err(SimError::Policy)?;
            if out.is_empty() {
                self.out = out;
                break;
            }
            let result = self.apply(now, &out);
            out.clear();
            self.out = out;
            result?;
        }
        if self.env.check {
            self.env.check_nodes(now);
        }
        self.arm_wake(now);
        self.env.flush(queue).map_err(SimError::from)
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::RigidJob;

    fn rigid(ids: &[u64]) -> Vec<HybridJob> {
        ids.iter()
            .map(|&id| HybridJob::Rigid {
                job: RigidJob::new(JobId(id), Time(0), 1, Duration(60), Duration(60)).unwrap(),
                setup: Duration::ZERO,
            })
            .collect()
    }

    /// The index finds every job and nothing else, by offset for consecutive ids (up to the
    /// last representable id) and by hash otherwise.
    #[test]
    fn job_index_finds_exactly_the_workload() {
        for ids in [
            vec![5, 6, 7, 8],
            vec![u64::MAX - 2, u64::MAX - 1, u64::MAX],
            vec![1, 3, 2, 10],
            vec![],
        ] {
            let specs = rigid(&ids);
            let index = JobIndex::new(&specs);
            let consecutive = ids.windows(2).all(|w| w[1] == w[0] + 1);
            assert_eq!(matches!(index, JobIndex::Consecutive { .. }), consecutive);
            for (i, &id) in ids.iter().enumerate() {
                assert_eq!(index.get(JobId(id)), Some(i), "{ids:?}");
            }
            for id in [0, 4, 9, 11, u64::MAX - 3] {
                if !ids.contains(&id) {
                    assert_eq!(index.get(JobId(id)), None, "{id} in {ids:?}");
                }
            }
        }
    }

    #[test]
    fn failures_are_a_function_of_time_only() {
        let failures = Failures {
            mtbf: Duration::from_hours(5),
            mean_repair: DEFAULT_REPAIR,
        };
        let mut a = FailureProcess::new(SeedStreams::new(9), failures, 100).unwrap();
        let mut b = FailureProcess::new(SeedStreams::new(9), failures, 100).unwrap();
        // One process walks every failure from 0; the other jumps to day 10 after an idle
        // gap: from there on they agree.
        let mut t = Time(0);
        let mut walked = Vec::new();
        while let Some((at, node, repair)) = a.next_at_or_after(t) {
            if at >= Time(864_000) {
                walked.push((at, node, repair));
            }
            if walked.len() == 20 {
                break;
            }
            t = Time(at.0 + 1);
        }
        let mut t = Time(864_000);
        for &expected in &walked {
            let got = b.next_at_or_after(t).unwrap();
            assert_eq!(got, expected);
            t = Time(got.0.0 + 1);
        }
        // A gap of 10^18 s is jumped over at once.
        let far = b.next_at_or_after(Time(1_000_000_000_000_000_000)).unwrap();
        assert!(far.0 >= Time(1_000_000_000_000_000_000));
    }
}
