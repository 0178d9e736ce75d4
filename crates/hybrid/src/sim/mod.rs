//! The hybrid-workload simulator (Fan et al., IPDPS 2022, §IV): the environment — one system
//! of identical nodes, the jobs' runs, checkpoints' and setups' physical cost, node failures and
//! the ledger — and the executor of any policy of the hybrid protocol
//! ([`HybridWorkloadPolicy`]: [`crate::HybridPolicy`] or one's own). It holds no scheduling
//! decision: it turns its events into the policy's [`Observation`]s (notices, arrivals,
//! completions, failures, settle rounds once each instant's events are in), wakes the policy
//! when its [`Policy::next_wake`] is due, and applies the [`Command`]s it gets back to a
//! [`BatchCluster`]; the batch passes run the policy's schedulers around the site's scheduler
//! (FCFS + EASY in the paper; any batch policy, [`HybridConfig::site`]). Both policies are
//! driven by core's [`Driver`]. A command the platform cannot carry out
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
//! let mut policy = scenario::mechanism(Composite::ALL[5]);
//! let sim = HybridSim::new(config).unwrap().with_label("CUP&SPAA");
//! let out = sim.run(&mut policy, &jobs).unwrap();
//! assert_eq!(out.report.completed, 200);
//! assert!(out.report.instant_start_ratio > 0.5);
//! ```
//!
//! ## Model
//! The physics of the environment; which job starts, shrinks, expands, is preempted, waits or
//! gets which nodes is the policy's, documented in [`crate::policy`] ("Decisions, by the
//! paper's sections").
//! - **Rigid** jobs pay their setup on every (re)start and checkpoint at the configured
//!   interval, each checkpoint costing δ ([`crate::checkpoint`]); a preempted or failed rigid
//!   job keeps the work saved by its last completed checkpoint and needs the rest (plus setup
//!   and checkpoints) when it runs again; it keeps its original submit time.
//! - **Malleable** jobs run `work / n + setup` on `n` nodes, for any `n` in `[n_min, n_max]`
//!   the policy starts or resizes them at (§III-A: `t = t_single / n + t_setup`). The setup
//!   does not scale: a shrink or expansion keeps what is left of the setup and spreads the
//!   remaining work's node-seconds over the new size ([`cosched_batch::BatchCluster::resize`]).
//!   A preempted or failed malleable job saves where it stopped (the two-minute warning; tasks
//!   are small) and resumes with its remaining work plus setup. The node-seconds held during a
//!   first setup are overhead, during a repeated one waste.
//! - **On-demand** jobs hold the nodes the policy assigns them outside the batch scheduler
//!   (offline in its cluster) for their run time. A failure kills such a run; the job is
//!   handed back to the policy and does not count as started instantly (Obs. 14).
//! - **Guests** run on reserved idle nodes like any batch job; the policy preempts them at
//!   their reservation's arrival, which is counted apart from the mechanisms' preemptions
//!   ([`JobAccount::evictions`]).
//! - **Failures** (optional, §V-C): node failures arrive as a Poisson process at the system
//!   MTBF on a uniformly drawn node; repairs take an exponential time
//!   ([`Failures::mean_repair`], 6 h: [`DEFAULT_REPAIR`]). The process is drawn per week of
//!   simulated time from the stream `("failures", week)`, so the failure times are the same
//!   under every mechanism; it pauses while the machine holds no job (a failure then harms no
//!   job, and a trace with a gap of 10^18 s is not walked through failure by failure) and
//!   resumes, at the same draws, with the next submission. A failure interrupts the job on the
//!   node like a preemption and counts in the preemption ratios (Obs. 14). A job on n of the
//!   N nodes is thus struck at the rate n / (N · MTBF), the MTBF its Daly interval is computed
//!   for ([`crate::checkpoint`]).
//!
//! At each instant the environment delivers, in this order: completions, failures and
//! repairs, the policy's due timers, the site scheduler's, notices, on-demand arrivals, batch
//! submissions (each in job order); then [`Observation::Settle`] round after round (the round
//! in the observation) until the policy returns no command, at most
//! [`HybridSim::with_round_limit`] rounds (a policy that never quiets stops the run with a
//! typed error, [`cosched_core::driver::CallError::Rounds`], instead of hanging it). It runs
//! the batch passes the policy asks for ([`Command::Schedule`]) through the batch protocol.
//!
//! ## Metrics (§IV-D)
//! Turnaround is submission to completion over *all* jobs, on-demand jobs included. System
//! utilisation is "the ratio of node-hours used for useful job execution to the total elapsed
//! node-hours", excluding "wasted computation due to preemption": the ledger holds every run
//! segment as busy, and as wasted the work lost to preemptions, evictions and failures (time
//! since the last checkpoint, repeated setups, killed on-demand runs). A job's first setup and
//! its checkpoint writes are part of its execution — the trace's run times contain them
//! (§IV-B sets the setup as a share of the run time) and §IV-D names only the waste of
//! preemptions — so they count as used; they are kept apart ([`HybridOutcome::overhead`],
//! [`JobAccount::overhead`]) for the stricter reading that excludes them too
//! ([`HybridReport::window_work_utilization`](crate::HybridReport::window_work_utilization), ours).
//! [`HybridReport::utilization`](crate::HybridReport::utilization) divides by the makespan;
//! [`HybridReport::window_utilization`](crate::HybridReport::window_utilization) reads the ledger between the first and the last
//! submission, the period a long trace is judged over, without the drain.
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
    BatchPass, Command, GuestPicker, HybridWorkloadPolicy, MalleableBackfill, MalleableHeads,
    Observation, PlatformView, RunInfo, StartInfo, StartListed,
};
use crate::record::{Answer, Query, Transcript};
use crate::report::{Counts, report};
use crate::report::{HybridOutcome, JobAccount};
use crate::workload::HybridJob;
use cosched_batch::scenario::{BatchScheduler, BuiltinPolicy};
use cosched_batch::{
    BatchCluster, BatchJob, BatchPolicy, Resume, RunToken, Shadow, Started, Submitted,
};
use cosched_core::driver::{DEFAULT_ROUND_LIMIT, Driver};
use cosched_core::engine::{self, Event, EventQueue, Simulation};
use cosched_core::policy::Policy;
use cosched_core::{
    Duration, JobClass, JobId, JobRecord, NodeId, NodeState, OnDemandJob, ParamError, Pool,
    SeedStreams, StreamRng, Time, UsageKind, UsageLedger,
};
use cosched_workload::admit::admit;
use rand::RngExt;
use rand_distr::{Distribution, Exp};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod env;
mod executor;
mod failures;
mod index;
mod stepped;

use executor::Sim;
pub use failures::FAILURE_BLOCK;
use failures::FailureProcess;
use index::{IdleStack, JobIndex};
pub use stepped::{Action, OnDemandStatus, Stepped};

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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HybridConfig {
    /// Nodes in the system.
    pub nodes: u32,
    /// The site's batch scheduler (FCFS + EASY in the paper): any batch policy, a fresh one
    /// each run; serialised by name.
    pub site: BatchScheduler,
    /// Rigid jobs' checkpointing.
    pub checkpoint: CheckpointPolicy,
    /// Node failures, if injected.
    pub failures: Option<Failures>,
    /// Root seed of the environment's random streams (the failure process, `"failures"`).
    pub seed: u64,
}

impl HybridConfig {
    /// `nodes` nodes, EASY, checkpoints for a 24-hour system MTBF (the paper runs without
    /// failures and does not say which MTBF its default Daly interval assumes: 24 h is ours,
    /// inside §V-C's 5–50 h), no failures.
    pub fn new(nodes: u32) -> Result<HybridConfig, ParamError> {
        Self::check_nodes(nodes)?;
        Ok(HybridConfig {
            nodes,
            site: BuiltinPolicy::Easy.into(),
            checkpoint: CheckpointPolicy::new(Duration::from_hours(24), nodes)?,
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
        ParamError::check(
            self.checkpoint.nodes() == self.nodes,
            "checkpoint nodes",
            self.checkpoint.nodes(),
            "must be the system's nodes (a job's MTBF is the system's times nodes / its nodes)",
        )?;
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
    /// The site scheduler's wake time.
    SiteWake,
    Notice(usize),
    Arrive(usize),
    Submit(usize),
    /// A notice given while the run is stepped ([`Stepped::notice`]).
    LateNotice(Notice),
    /// The arrival of an on-demand job admitted while the run is stepped
    /// ([`Stepped::arrive`]): after the workload's entries of its instant.
    Late(usize),
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::BatchEnd(_) | Ev::OdEnd(..) => 0,
            Ev::Failure(..) | Ev::Repair(_) => 1,
            Ev::Wake => 2,
            Ev::SiteWake => 3,
            Ev::Notice(_) | Ev::LateNotice(_) => 4,
            // In workload order, so that the batch queue (on-demand jobs in it, under the
            // baseline) grows by appends.
            Ev::Arrive(_) | Ev::Submit(_) => 5,
            Ev::Late(_) => 6,
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
    predicted_end: Time,
    token: RunToken,
    /// The reservation it runs on as a guest, if started as one.
    guest_of: Option<JobId>,
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
    /// On-demand jobs under a mechanism: nodes held and run epoch.
    od_nodes: Vec<NodeId>,
    od_epoch: u32,
    /// On-demand jobs: nodes held [`Hold::Reserved`] for it (its reservation's idle nodes),
    /// read at every settle by the policy's guest lending.
    reserved_idle: u32,
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

/// The simulator; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct HybridSim {
    config: HybridConfig,
    check: bool,
    notices: bool,
    transcribe: bool,
    label: String,
    round_limit: u32,
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
            label: "policy".to_owned(),
            round_limit: DEFAULT_ROUND_LIMIT,
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

    /// Reports the runs under the name `label` ([`crate::HybridReport::mechanism`]; the
    /// default: `policy`).
    pub fn with_label(mut self, label: impl Into<String>) -> HybridSim {
        self.label = label.into();
        self
    }

    /// Delivers at most `rounds` settle rounds at one instant (and wakes in a row), instead
    /// of [`DEFAULT_ROUND_LIMIT`]; a policy still asking after them stops the run with
    /// [`cosched_core::driver::CallError::Rounds`].
    pub fn with_round_limit(mut self, rounds: u32) -> HybridSim {
        self.round_limit = rounds;
        self
    }

    /// Runs `jobs` to the end under `policy`: admitted by [`cosched_workload::admit`]
    /// (repeated ids are an error, invalid jobs are counted and left out), on core's kernel.
    pub fn run<P>(
        &self,
        policy: &mut P,
        jobs: &[HybridJob],
    ) -> Result<HybridOutcome, SimError<P::Error>>
    where
        P: HybridWorkloadPolicy + ?Sized,
    {
        let (mut sim, mut queue) = self.prepare(policy, jobs, None)?;
        engine::run(&mut sim, &mut queue)?;
        Ok(sim.env.finish(&self.label))
    }
}

/// A started run: its environment and its event queue.
type Prepared<'p, P> = (Sim<'p, P>, EventQueue<Ev>);

impl HybridSim {
    /// The environment of a run of `jobs` under `policy`, started (the policy's and the site
    /// scheduler's start calls made) and its first events queued; `external` for a stepped
    /// run.
    fn prepare<'p, P>(
        &self,
        policy: &'p mut P,
        jobs: &[HybridJob],
        external: Option<External>,
    ) -> Result<Prepared<'p, P>, SimError<P::Error>>
    where
        P: HybridWorkloadPolicy + ?Sized,
    {
        let admitted = admit(jobs).map_err(|d| HybridError::DuplicateJob(d.0))?;
        check_horizon(&admitted.jobs)?;
        let mut queue = EventQueue::new(Time(i64::MIN));
        let mut env = Env::new(&self.config, &admitted.jobs, self.check, self.notices)?;
        env.invalid = admitted.invalid;
        env.transcript = self.transcribe.then(Default::default);
        env.external = external;
        let mut sim = Sim {
            env,
            driver: Driver::new(policy).with_round_limit(self.round_limit),
        };
        let first = admitted.jobs.first().map_or(Time::ZERO, HybridJob::submit);
        let mut site = cosched_batch::ClusterPass {
            cluster: &mut sim.env.cluster,
            started: &mut sim.env.started,
        };
        sim.env
            .site
            .start(first, &mut site, &mut ())
            .map_err(|e| HybridError::Batch(e.into()))?;
        sim.driver.start(first, &mut sim.env, &mut ())?;
        sim.flush(first, &mut queue)?;
        Ok((sim, queue))
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
    site: Driver<Box<dyn BatchPolicy + Send>>,
    /// Whether the site's scheduler may skip a pass that can start nothing (FCFS, EASY: their
    /// schedule is the one a full pass gives; conservative's plans age with the passes).
    site_skips_idle: bool,
    /// Events decided while handling one, put on the kernel's queue after it.
    pending: Vec<(Time, Ev)>,
    /// The advance notices to deliver, in (time, workload position) order, and how many of
    /// them have been put on the queue.
    notice_order: Vec<(Time, usize)>,
    notices_queued: usize,
    /// The workload's jobs (the first in `jobs`; those after were admitted while stepped).
    workload_len: usize,
    jobs: Vec<JobState>,
    /// Each job's account and record, by workload position (apart from [`JobState`], so that
    /// the outcome takes them whole).
    accounts: Vec<JobAccount>,
    records: Vec<JobRecord>,
    index: JobIndex,
    hold: Vec<Hold>,
    /// Nodes held [`Hold::Reserved`] for jobs the workload does not have (a policy may reserve
    /// for any id; the workload's jobs count theirs in [`JobState`]).
    reserved_unknown: FxHashMap<JobId, u32>,
    /// Moves whenever a count of reserved idle nodes does ([`PlatformView::reserved_version`]).
    reserved_version: u64,
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
    /// Setup and checkpoint-write node-seconds that were not lost (part of the jobs'
    /// execution; §IV-D's utilisation counts them, the stricter reading does not).
    overhead: UsageLedger,
    /// The on-demand job whose arrival the policy is handling: its guests' preemptions are
    /// evictions (§III-B1), counted apart from the mechanisms' preemptions.
    arriving: Option<JobId>,
    check: bool,
    violations: Vec<String>,
    /// What the policy asked of the view in the current call, when transcribed.
    transcript: Option<std::cell::RefCell<Transcript>>,
    /// Stepped from outside ([`Stepped`]): the runs' ends, by job, until the platform reports
    /// them, and the actions the platform is to carry out.
    external: Option<External>,
}

/// What a [`Stepped`] environment keeps for its platform.
#[derive(Default)]
struct External {
    /// Each running job's end, with its place in the order the simulator would queue it.
    ends: FxHashMap<JobId, (u64, Ev)>,
    queued: u64,
    actions: Vec<(Time, Action)>,
}
