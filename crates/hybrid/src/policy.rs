//! The hybrid scheduling policy (Fan et al., IPDPS 2022, §III-B) on the workspace's protocol:
//! observations in, [`Command`]s out. [`HybridPolicy`] owns every decision of the paper's six
//! mechanisms — the notice strategy's reservations ([`NoticeBoard`]), the on-arrival mechanism
//! ([`Mechanism`]), the guests of reserved idle nodes, the on-demand jobs waiting at the front
//! of the queue, CUP's planned preemptions, the lenders getting their nodes back, and the
//! malleable start / expand rules — and the baseline ("FCFS/EASY backfilling without special
//! treatments", Table III) is the same type built with [`HybridPolicy::baseline`].
//!
//! It holds no clock, RNG or I/O and never touches the platform: each call takes the time, an
//! observation and a read-only [`PlatformView`], and returns commands for an executor to carry
//! out. The simulator ([`crate::sim`]) is one executor; a resource manager is another.
//!
//! ## The protocol
//! [`HybridPolicy`] implements [`cosched_core::policy::Policy`] with [`Observation`] in,
//! [`Command`]s out, `&dyn` [`PlatformView`] as the view and [`HybridError`]. Observations, in
//! the order an executor sees them at one instant:
//! - [`Observation::Completed`] / [`Observation::Interrupted`]: a batch job ended, or a node
//!   failure stopped it (§V-C);
//! - [`Observation::NodeLost`]: a node the policy had reserved failed;
//! - timers are pulled: [`Policy::next_wake`] is the earliest reservation expiry (§III-B3) or
//!   planned CUP preemption, and each [`Policy::wake`] call handles the earliest one due (an
//!   executor calls it while [`Policy::next_wake`] is at or before its clock), so a policy
//!   restored from its serialised state keeps every timer;
//! - [`Observation::Notice`]: an advance notice (§III-B1);
//! - [`Observation::Arrival`]: an on-demand job arrived (§III-B2);
//! - [`Observation::OnDemandEnded`] / [`Observation::OnDemandFailed`]: an on-demand job
//!   completed (§III-B4), or a failure killed it (it is handled as a new arrival, and has lost
//!   its instant start, Obs. 14);
//! - [`Observation::Withdrawn`]: an on-demand job that had not started gave up (an executor
//!   whose on-demand requests wait only so long, as the composed site's leases do; the
//!   paper's jobs wait at the front until they start, and its simulator never sends it);
//! - [`Observation::Started`]: the executor started a batch job in a pass the policy asked
//!   for;
//! - [`Observation::Settle`], delivered round after round until it returns no command: once
//!   the instant's events are in, the policy serves the on-demand jobs waiting at the front, gives lenders their
//!   nodes back, lets reservations collect idle nodes, lends reserved idle nodes to guests,
//!   runs the batch pass and expands malleable jobs. Each call sees the platform after the
//!   previous call's commands.
//!
//! ## Commands, and how a resource manager applies them
//! The simulator applies each command to a [`cosched_batch::BatchCluster`]. `cosched-live`'s
//! `HybridExecutor` runs the simulator's environment as its record of a live cluster whose
//! jobs all wait held, so the reservations and assignments are that record's alone, and
//! applies the preemptions (`scontrol requeuehold`), shrinks (`NumNodes=`) and starts
//! (`ReqNodeList=` + `release`). A resource manager that schedules on its own would map them
//! so:
//!
//! | command | Slurm |
//! |---|---|
//! | [`Command::Preempt`] | `scontrol requeue <job>` (a malleable job gets `GraceTime` = the two-minute warning to save its state, §III-A); it keeps its submit time |
//! | [`Command::Resize`] | `scontrol update JobId=<job> NumNodes=<to>` |
//! | [`Command::Reserve`] | `scontrol create reservation` (or `update ReservationName=od-<job> Nodes+=…`) on the named idle nodes |
//! | [`Command::Release`] | `scontrol update ReservationName=od-<job> Nodes-=…`, or `delete` once empty |
//! | [`Command::Assign`], [`Command::AssignIdle`] | move the reserved / idle nodes into the on-demand job's allocation |
//! | [`Command::StartOnDemand`] | start the on-demand job in its reservation (`sbatch --reservation=od-<job>`) |
//! | [`Command::Unassign`] | give the nodes gathered for an on-demand job that must wait back to the partition |
//! | [`Command::Submit`] | the baseline: `sbatch` the on-demand job like any batch job |
//! | [`Command::Schedule`] | [`BatchPass::Site`]: Slurm's own scheduler and backfill; [`BatchPass::Listed`]: raise the listed jobs to the top priority; [`BatchPass::Guests`]: let the chosen queued jobs run in the reservation (`scontrol update JobId=… ReservationName=od-<job>`) |
//!
//! The batch passes go through the batch protocol ([`cosched_batch::BatchPolicy`], planned
//! with a [`Pass`]) with the policy's batch policies: the site's policy, [`StartListed`] and
//! [`GuestPicker`] (and, for a policy that asks for them, [`MalleableHeads`] and
//! [`MalleableBackfill`] around the site's).
//!
//! ## Decisions, by the paper's sections
//! - **Notice (§III-B1).** N ignores it. CUA and CUP reserve the idle nodes named by the view,
//!   then collect nodes as they free (earliest notice first). CUP plans preemptions before the
//!   estimated arrival ([`NoticeBoard::notice`]); each waits for its time ([`Policy::wake`]) and is
//!   **cancelled** when its on-demand job arrives (early), when its reservation expires (the
//!   job is late or never comes), when the reservation is already complete, or when the target
//!   no longer runs the run it was planned on. A second notice for the same job **re-plans**:
//!   the old plans are cancelled and the reservation follows the new estimate and size
//!   ([`NoticeBoard::renotice`]).
//! - **Guests.** A reservation's idle nodes run queued jobs expected to end before the arrival,
//!   then malleable jobs ([`crate::notice::guests`]); they are preempted at the arrival, and
//!   the nodes of a guest that ends go back to the reservation.
//! - **Arrival (§III-B2).** The job takes its reserved nodes, then idle nodes (those gathered
//!   by on-demand jobs waiting at the front among them: a queued job holds no node), then
//!   what PAA / SPAA free ([`Mechanism::decide`]); if no choice frees enough it gives back
//!   what it gathered and waits at the front of the queue, first come first served among
//!   such jobs. Guests of other reservations and other reservations' idle nodes are left to
//!   them (ours: §III-B2 names only the job's own reserved nodes, and preempting a guest
//!   gives its nodes back to its reservation).
//! - **Estimated arrival (§III-B3).** A reservation is released 10 minutes after its estimate.
//! - **Completion (§III-B4).** Lenders get their nodes back: a shrunk job still running expands
//!   by what it lent to *this* job, back to its original size and never beyond (what the idle
//!   nodes do not cover then, it takes as they free), a preempted job still queued starts if
//!   it fits.
//! - **Malleable jobs.** The site's FCFS + EASY starts them at their requested size (the
//!   largest, §IV-B), as in the baseline; only the mechanisms resize them: SPAA shrinks them at
//!   an arrival and the completion gives the nodes back. (§III-A lets a policy size them
//!   before execution; the paper's mechanisms do not, and the baseline runs them "without
//!   special treatments", Table III, so a start below the requested size would give the
//!   mechanisms an advantage the paper does not describe. [`BatchPass::Site`]'s
//!   `resize_malleable` offers it to policies of one's own.)

use crate::HybridError;
use crate::mechanism::{ArrivalAction, Mechanism, MechanismKind, RunningView};
use crate::notice::{Notice, NoticeBoard, NoticeStrategy, PlannedJob, PlannedPreemption};
use cosched_batch::{Pass, Shadow, pass_policy};
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, NodeId, Time};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt;

/// A mechanism: a notice strategy composed with an on-arrival mechanism (the paper's six).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Composite {
    /// On notice.
    pub notice: NoticeStrategy,
    /// On arrival.
    pub arrival: MechanismKind,
}

impl Composite {
    /// The six compositions in the paper's order: N, CUA, CUP × PAA, SPAA.
    pub const ALL: [Composite; 6] = [
        Composite::new(NoticeStrategy::N, MechanismKind::Paa),
        Composite::new(NoticeStrategy::N, MechanismKind::Spaa),
        Composite::new(NoticeStrategy::Cua, MechanismKind::Paa),
        Composite::new(NoticeStrategy::Cua, MechanismKind::Spaa),
        Composite::new(NoticeStrategy::Cup, MechanismKind::Paa),
        Composite::new(NoticeStrategy::Cup, MechanismKind::Spaa),
    ];

    /// `notice` × `arrival`.
    pub const fn new(notice: NoticeStrategy, arrival: MechanismKind) -> Composite {
        Composite { notice, arrival }
    }
}

impl fmt::Display for Composite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arrival = match self.arrival {
            MechanismKind::Paa => "PAA",
            MechanismKind::Spaa => "SPAA",
        };
        write!(f, "{}&{arrival}", self.notice)
    }
}

/// The name of a configuration in reports: `baseline` without a mechanism, else e.g.
/// `CUP&SPAA`.
///
/// ```
/// use cosched_hybrid::{Composite, mechanism_name};
/// assert_eq!(mechanism_name(None), "baseline");
/// assert_eq!(mechanism_name(Some(Composite::ALL[5])), "CUP&SPAA");
/// ```
pub fn mechanism_name(mechanism: Option<Composite>) -> String {
    mechanism.map_or_else(|| "baseline".to_string(), |m| m.to_string())
}

/// A running batch job's current run, as the platform reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Nodes it holds.
    pub size: u32,
    /// When the scheduler expects it to end.
    pub predicted_end: Time,
    /// When the run started (a resize keeps the run; a preemption ends it): a plan made for
    /// one run does not apply to the next.
    pub started: Time,
}

/// What the platform shows the policy (read-only). The executor implements it over its
/// state; a resource-manager adapter over `squeue` / `sinfo` / `scontrol show`.
pub trait PlatformView {
    /// Up to `n` idle nodes of the batch pool, in the order the platform hands them out.
    fn idle_nodes(&self, n: usize) -> Vec<NodeId>;
    /// Idle nodes in the batch pool.
    fn idle_count(&self) -> u32;
    /// The on-demand job a node is reserved for and idle on (not lent to a guest), if any.
    fn reserved_for(&self, node: NodeId) -> Option<JobId>;
    /// How many of `nodes`, the nodes of on-demand `job`'s reservation, are reserved for it
    /// and idle: by default [`PlatformView::reserved_for`] asked of each; an executor that
    /// counts each reservation's idle nodes answers in O(1).
    fn reserved_idle(&self, job: JobId, nodes: &[NodeId]) -> usize {
        nodes
            .iter()
            .filter(|&&node| self.reserved_for(node) == Some(job))
            .count()
    }
    /// The running batch jobs (on-demand jobs under a mechanism excluded), in the workload's
    /// (submit, id) order, with what the mechanisms need of them.
    fn running(&self, now: Time) -> Vec<PlannedJob>;
    /// A running batch job's current run, `None` if it is not running.
    fn run(&self, job: JobId) -> Option<RunInfo>;
    /// Whether a batch job waits in the queue.
    fn is_queued(&self, job: JobId) -> bool;
    /// Nodes an on-demand job holds (gathered while it waits, or running).
    fn held(&self, job: JobId) -> u32;
    /// Jobs in the batch queue.
    fn queue_len(&self) -> usize;
    /// Counts the jobs entering the batch queue (submissions and requeues): equal values mean
    /// no job was added in between.
    fn queue_epoch(&self) -> u64;
    /// A count that moves whenever some reservation's idle nodes
    /// ([`PlatformView::reserved_idle`]) may have changed: equal values mean every count is
    /// the same. `None` (the default) for a view that keeps no such count.
    fn reserved_version(&self) -> Option<u64> {
        None
    }
    /// EASY's shadow for the queue head at `now`, `None` with an empty queue.
    fn head_shadow(&self, now: Time) -> Option<Shadow>;
    /// Whether some queued job could start as a guest on `budget` reserved nodes at `now` for
    /// an arrival estimated at `arrival`, by [`GuestPicker`]'s rule; by default true (an
    /// executor that cannot tell lets the policy ask for the pass, which then starts nothing).
    fn guest_could_start(&self, now: Time, budget: u32, arrival: Time) -> bool {
        let _ = (now, budget, arrival);
        true
    }
    /// The queries answered during the current policy call, for a recording
    /// ([`crate::record`]); `None` (the default) for a view that keeps no transcript.
    fn transcript(&self) -> Option<crate::record::Transcript> {
        None
    }
}

/// A batch scheduling pass the policy asks the executor to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BatchPass {
    /// The site's scheduler (FCFS + EASY); with `resize_malleable`, between
    /// [`MalleableHeads`] and [`MalleableBackfill`] (malleable jobs start at the size that
    /// fits).
    Site {
        /// Start and backfill malleable jobs below their largest size.
        resize_malleable: bool,
    },
    /// Start these queued jobs if they fit, in queue order ([`StartListed`]): lenders resuming
    /// on the nodes their on-demand job gave back.
    Listed(Vec<JobId>),
    /// Put a reservation's idle `nodes` back in the batch pool, start guests on them
    /// ([`GuestPicker`]) and take the unused ones back for the reservation.
    Guests {
        /// The on-demand job the reservation is for.
        for_job: JobId,
        /// Its idle reserved nodes.
        nodes: Vec<NodeId>,
        /// Its estimated arrival.
        arrival: Time,
    },
}

/// What the policy asks the executor to do; see the [module docs](self) for how Slurm would
/// carry out each.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// Stop a running batch job and requeue it under its original submit time (a rigid job
    /// resumes from its last checkpoint, a malleable job where it stopped).
    Preempt {
        /// The job.
        job: JobId,
    },
    /// Shrink or expand a running malleable job (its remaining work spreads over the new size).
    Resize {
        /// The job.
        job: JobId,
        /// Its new size.
        to: u32,
    },
    /// Take these nodes, those of them idle in the batch pool, out of it for `job`'s
    /// reservation.
    Reserve {
        /// The on-demand job.
        job: JobId,
        /// The nodes.
        nodes: Vec<NodeId>,
    },
    /// Give these nodes, those of them still idle in `job`'s reservation, back to the batch
    /// pool.
    Release {
        /// The on-demand job.
        job: JobId,
        /// The nodes.
        nodes: Vec<NodeId>,
    },
    /// Hand nodes of `job`'s reservation to the job.
    Assign {
        /// The on-demand job.
        job: JobId,
        /// The nodes.
        nodes: Vec<NodeId>,
    },
    /// Hand up to `count` idle nodes of the batch pool to on-demand `job`.
    AssignIdle {
        /// The on-demand job.
        job: JobId,
        /// How many.
        count: u32,
    },
    /// Give every node handed to on-demand `job` back to the batch pool (it waits).
    Unassign {
        /// The on-demand job.
        job: JobId,
    },
    /// Start on-demand `job` on the nodes handed to it (exactly its size).
    StartOnDemand {
        /// The on-demand job.
        job: JobId,
    },
    /// Queue on-demand `job` as a batch job (the baseline).
    Submit {
        /// The on-demand job.
        job: JobId,
    },
    /// Run a batch scheduling pass.
    Schedule(BatchPass),
}

/// A batch job started by a pass, as [`Observation::Started`] tells of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartInfo {
    /// The job.
    pub job: JobId,
    /// Its submit time (with the id, the order malleable jobs expand in).
    pub submit: Time,
    /// Nodes it started on.
    pub size: u32,
    /// Its largest size if malleable.
    pub max_size: Option<u32>,
    /// The reservation it runs on as a guest, if started by [`BatchPass::Guests`].
    pub guest_of: Option<JobId>,
}

/// What the executor tells the policy, each with the time of the call; see the
/// [module docs](self) for the order within one instant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Observation {
    /// A batch job started in a pass the policy asked for.
    Started(StartInfo),
    /// A batch job completed.
    Completed {
        /// The job.
        job: JobId,
    },
    /// A node failure stopped a running batch job; the executor requeued it (§V-C).
    Interrupted {
        /// The job.
        job: JobId,
    },
    /// A node reserved (and idle) for an on-demand job failed.
    NodeLost {
        /// The node.
        node: NodeId,
    },
    /// An advance notice (§III-B1).
    Notice(Notice),
    /// An on-demand job arrived (§III-B2); the executor has rejected it already if it is
    /// larger than the system.
    Arrival {
        /// The job.
        job: JobId,
        /// Its nodes.
        size: u32,
    },
    /// A running on-demand job completed (§III-B4).
    OnDemandEnded {
        /// The job.
        job: JobId,
    },
    /// A node failure killed running on-demand job `job`; the executor gave back its other
    /// nodes (§V-C, Obs. 14).
    OnDemandFailed {
        /// The job.
        job: JobId,
        /// Its nodes.
        size: u32,
    },
    /// On-demand job `job`, not started, gave up waiting (its requester withdrew it): it
    /// leaves the front of the queue and what was gathered for it goes back.
    Withdrawn {
        /// The job.
        job: JobId,
    },
    /// The instant's events are in: delivered round after round, `round` 0, 1, …, until the
    /// policy returns no command. An executor bounds the rounds (the simulator stops a run
    /// whose policy still returns commands after its round limit with a typed error).
    Settle {
        /// The round at this instant, from 0.
        round: u32,
    },
}

/// A policy of the hybrid protocol: the core [`Policy`] trait with [`Observation`]s in,
/// [`Command`]s out, and the platform lent as a [`PlatformView`]. [`HybridPolicy`] (the
/// paper's mechanisms and the baseline) is one; so is any caller's type that implements it,
/// and it runs in the simulator (`cosched_hybrid::HybridSim`) or any other executor.
pub trait HybridWorkloadPolicy:
    Policy<Observation = Observation, Command = Command, View = dyn PlatformView>
{
}

impl<P> HybridWorkloadPolicy for P where
    P: Policy<Observation = Observation, Command = Command, View = dyn PlatformView> + ?Sized
{
}

/// A job that lent nodes to an on-demand job (§III-B4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lender {
    /// Preempted for it.
    Preempted(JobId),
    /// Shrunk for it by `lent` nodes.
    Shrunk {
        /// The job.
        job: JobId,
        /// The nodes it lent to this on-demand job.
        lent: u32,
    },
}

/// The steps of a settle ([`Observation::Settle`]), in order.
const SETTLE_STEPS: u8 = 5;

/// The paper's six mechanisms, or the baseline, on the protocol; see the [module docs](self).
///
/// ```
/// use cosched_core::policy::Policy;
/// use cosched_core::{JobId, Time};
/// use cosched_hybrid::policy::{Command, HybridPolicy, Observation};
/// use cosched_hybrid::{Composite, notice::Notice};
/// // The baseline queues an on-demand job like any batch job.
/// let mut baseline = HybridPolicy::baseline();
/// # use cosched_hybrid::policy::{PlatformView, RunInfo};
/// # use cosched_hybrid::notice::PlannedJob;
/// # use cosched_batch::Shadow;
/// # use cosched_core::NodeId;
/// # struct Empty;
/// # impl PlatformView for Empty {
/// #     fn idle_nodes(&self, _: usize) -> Vec<NodeId> { Vec::new() }
/// #     fn idle_count(&self) -> u32 { 0 }
/// #     fn reserved_for(&self, _: NodeId) -> Option<JobId> { None }
/// #     fn running(&self, _: Time) -> Vec<PlannedJob> { Vec::new() }
/// #     fn run(&self, _: JobId) -> Option<RunInfo> { None }
/// #     fn is_queued(&self, _: JobId) -> bool { false }
/// #     fn held(&self, _: JobId) -> u32 { 0 }
/// #     fn queue_len(&self) -> usize { 0 }
/// #     fn queue_epoch(&self) -> u64 { 0 }
/// #     fn head_shadow(&self, _: Time) -> Option<Shadow> { None }
/// # }
/// let arrival = Observation::Arrival { job: JobId(1), size: 4 };
/// let mut cmds = Vec::new();
/// baseline.observe(Time(0), &arrival, &Empty, &mut cmds).unwrap();
/// assert_eq!(cmds, vec![Command::Submit { job: JobId(1) }]);
/// // CUA&PAA on a machine with no idle node and nothing to preempt: the job cannot start
/// // and waits at the front.
/// let mut policy = HybridPolicy::new(Composite::ALL[2]);
/// cmds.clear();
/// policy.observe(Time(0), &arrival, &Empty, &mut cmds).unwrap();
/// assert_eq!(cmds.last(), Some(&Command::Unassign { job: JobId(1) }));
/// assert_eq!(policy.waiting().collect::<Vec<_>>(), vec![JobId(1)]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HybridPolicy {
    composite: Option<Composite>,
    board: NoticeBoard,
    /// Each on-demand job's lenders, until it ends.
    lenders: FxHashMap<JobId, Vec<Lender>>,
    /// Lenders whose on-demand job ended: served at the next settle.
    returns: Vec<Lender>,
    /// Running guests, with the reservation they run on and their submit time (guests are
    /// preempted in (submit, id) order).
    guests: FxHashMap<JobId, (JobId, Time)>,
    /// On-demand jobs waiting at the front of the queue (with their sizes), first come first
    /// served.
    waiting: VecDeque<(JobId, u32)>,
    /// Running malleable jobs shrunk below the size they ran at before (§III-B4's "original
    /// size"), with that size: what they expand back to as their lenders are repaid.
    shrunk: FxHashMap<JobId, u32>,
    /// CUP's plans still standing, with the start of the run they were made on.
    plans: Vec<(PlannedPreemption, Time)>,
    /// Reservations for which no guest started, with the queue epoch, idle-node count and
    /// arrival they were asked with: while those hold the answer is still none.
    no_guests: FxHashMap<JobId, (u64, usize, Time)>,
    /// The queue epoch and the view's [`PlatformView::reserved_version`] after a guest lending
    /// that asked for no pass, while the reservations and `no_guests` have not changed since:
    /// while both hold, every reservation's answer is still none, so the next lending skips
    /// them all at once.
    #[serde(default)]
    lent_none_at: Option<(u64, u64)>,
    /// The next step of a settle.
    step: u8,
    /// [`Policy::next_wake`]'s answer, kept from the last call that could move it (a notice,
    /// an arrival, a wake), since the executor asks after every event.
    #[serde(skip)]
    wake_at: WakeAt,
}

/// The earliest of the plans' and reservations' timers while known (not after a restore):
/// derived from the policy's state, so it takes no part in comparisons.
#[derive(Clone, Copy, Debug, Default)]
struct WakeAt(Option<Option<Time>>);

impl PartialEq for WakeAt {
    fn eq(&self, _: &WakeAt) -> bool {
        true
    }
}

impl Eq for WakeAt {}

impl HybridPolicy {
    /// `mechanism`'s policy with the two-minute warning.
    pub fn new(mechanism: Composite) -> HybridPolicy {
        HybridPolicy::build(Some(mechanism), NoticeBoard::new(mechanism.notice))
    }

    /// The baseline: on-demand jobs queue as batch jobs, malleable jobs run at their requested
    /// size, notices are ignored (Table III).
    pub fn baseline() -> HybridPolicy {
        HybridPolicy::build(None, NoticeBoard::new(NoticeStrategy::N))
    }

    /// `mechanism`'s policy, or the baseline for `None`, warning malleable jobs `warning`
    /// before CUP's planned preemptions (>= 0).
    pub fn with_warning(
        mechanism: Option<Composite>,
        warning: Duration,
    ) -> Result<HybridPolicy, HybridError> {
        let strategy = mechanism.map_or(NoticeStrategy::N, |m| m.notice);
        let board = NoticeBoard::new(strategy).with_warning(warning)?;
        Ok(HybridPolicy::build(mechanism, board))
    }

    fn build(composite: Option<Composite>, board: NoticeBoard) -> HybridPolicy {
        HybridPolicy {
            composite,
            board,
            lenders: FxHashMap::default(),
            returns: Vec::new(),
            guests: FxHashMap::default(),
            waiting: VecDeque::new(),
            shrunk: FxHashMap::default(),
            plans: Vec::new(),
            no_guests: FxHashMap::default(),
            lent_none_at: None,
            step: 0,
            wake_at: WakeAt::default(),
        }
    }

    /// The mechanism, `None` for the baseline.
    pub fn mechanism(&self) -> Option<Composite> {
        self.composite
    }

    /// Whether the executor should deliver advance notices: the baseline and N ignore them
    /// (§III-B1), so a run without them is the same run.
    pub fn listens_to_notices(&self) -> bool {
        self.composite
            .is_some_and(|c| c.notice != NoticeStrategy::N)
    }

    /// The reservations.
    pub fn board(&self) -> &NoticeBoard {
        &self.board
    }

    /// The reservation a running guest runs on.
    pub fn guest_host(&self, job: JobId) -> Option<JobId> {
        self.guests.get(&job).map(|&(od, _)| od)
    }

    /// Whether a running malleable job runs below its original size (it lent nodes to an
    /// on-demand job and expands back as they return, §III-B4).
    pub fn is_expandable(&self, job: JobId) -> bool {
        self.shrunk.contains_key(&job)
    }

    /// The on-demand jobs waiting at the front of the queue, first first.
    pub fn waiting(&self) -> impl Iterator<Item = JobId> + '_ {
        self.waiting.iter().map(|&(job, _)| job)
    }

    /// The jobs that lent nodes to on-demand `job` and have not had them back.
    pub fn lenders(&self, job: JobId) -> &[Lender] {
        self.lenders.get(&job).map_or(&[], Vec::as_slice)
    }

    /// CUP's planned preemptions still standing.
    pub fn plans(&self) -> impl Iterator<Item = &PlannedPreemption> + '_ {
        self.plans.iter().map(|(p, _)| p)
    }

    /// A batch job started (in a pass the policy asked for).
    fn on_start(&mut self, start: StartInfo) {
        if let Some(od) = start.guest_of {
            self.guests.insert(start.job, (od, start.submit));
            self.no_guests.remove(&od);
            self.lent_none_at = None;
        }
    }

    /// Batch job `job` no longer runs: bookkeeping, and a guest's reservation reclaims its
    /// idle nodes.
    fn stopped(&mut self, job: JobId, out: &mut Vec<Command>) {
        if !self.shrunk.is_empty() {
            self.shrunk.remove(&job);
        }
        if let Some((od, _)) = self.guests.remove(&job) {
            self.reclaim(od, out);
        }
    }

    /// The idle nodes of `od`'s reservation (its guests' nodes, now free) go back to it.
    fn reclaim(&self, od: JobId, out: &mut Vec<Command>) {
        if let Some(r) = self.board.reservations().find(|r| r.job == od) {
            out.push(Command::Reserve {
                job: od,
                nodes: r.nodes.to_vec(),
            });
        }
    }

    /// An advance notice (§III-B1). N ignores it; CUA and CUP reserve the idle nodes; CUP
    /// plans preemptions, each woken at its time. A notice for a job that already holds a
    /// reservation is an update: its plans are cancelled and made again.
    fn on_notice(
        &mut self,
        now: Time,
        notice: Notice,
        view: &dyn PlatformView,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        if self.composite.is_none() || self.board.strategy() == NoticeStrategy::N {
            return Ok(());
        }
        self.lent_none_at = None;
        let renotice = self.board.reservations().any(|r| r.job == notice.job);
        let free = view.idle_nodes(notice.size as usize);
        // CUP plans only for what the idle nodes do not cover.
        let short = free.len() < notice.size as usize;
        let running = if self.board.strategy() == NoticeStrategy::Cup && (short || renotice) {
            self.candidates(now, view)
        } else {
            Vec::new()
        };
        let plan = if renotice {
            self.plans.retain(|(p, _)| p.for_job != notice.job);
            let (plan, released) = self.board.renotice(notice, &free, &running)?;
            if !released.is_empty() {
                out.push(Command::Release {
                    job: notice.job,
                    nodes: released,
                });
            }
            plan
        } else {
            self.board.notice(notice, &free, &running)?
        };
        if !plan.claimed.is_empty() {
            out.push(Command::Reserve {
                job: notice.job,
                nodes: plan.claimed,
            });
        }
        for p in plan.preemptions {
            if let Some(run) = view.run(p.job) {
                self.plans.push((p, run.started));
            }
        }
        Ok(())
    }

    /// The running jobs the mechanisms may touch: guests are left out (they are preempted at
    /// their reservation's arrival anyway).
    fn candidates(&self, now: Time, view: &dyn PlatformView) -> Vec<PlannedJob> {
        let mut running = view.running(now);
        if !self.guests.is_empty() {
            running.retain(|p| self.is_candidate(p.view.id));
        }
        running
    }

    /// Whether running `job` is one the mechanisms may touch (not a guest).
    fn is_candidate(&self, job: JobId) -> bool {
        self.guests.is_empty() || !self.guests.contains_key(&job)
    }

    /// The earliest planned preemption due at `now`, by (time, order planned).
    fn due_plan(&self, now: Time) -> Option<usize> {
        self.plans
            .iter()
            .enumerate()
            .filter(|(_, (p, _))| p.at <= now)
            .min_by_key(|&(k, (p, _))| (p.at, k))
            .map(|(k, _)| k)
    }

    /// Preempts `job` for on-demand `od`, which owes it its nodes back.
    fn preempt(&mut self, job: JobId, od: JobId, out: &mut Vec<Command>) {
        out.push(Command::Preempt { job });
        self.stopped(job, out);
        self.lenders
            .entry(od)
            .or_default()
            .push(Lender::Preempted(job));
    }

    /// An on-demand job of `size` nodes arrived (§III-B2). The baseline queues it. Under a
    /// mechanism its guests are preempted, it takes its reserved nodes, idle nodes, then what
    /// PAA / SPAA free, and starts; if the mechanism cannot free enough it gives everything
    /// back and waits at the front of the queue.
    fn on_arrival(
        &mut self,
        now: Time,
        job: JobId,
        size: u32,
        view: &dyn PlatformView,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        let Some(composite) = self.composite else {
            out.push(Command::Submit { job });
            return Ok(());
        };
        let mut guests: Vec<(Time, JobId)> = self
            .guests
            .iter()
            .filter(|&(_, &(od, _))| od == job)
            .map(|(&g, &(_, submit))| (submit, g))
            .collect();
        guests.sort_unstable();
        for &(_, g) in &guests {
            out.push(Command::Preempt { job: g });
            self.stopped(g, out);
        }
        self.plans.retain(|(p, _)| p.for_job != job);
        self.no_guests.remove(&job);
        self.lent_none_at = None;
        let reserved = self.board.arrive(job);
        let mut need = size.saturating_sub(reserved.len() as u32);
        if !reserved.is_empty() {
            out.push(Command::Assign {
                job,
                nodes: reserved,
            });
        }
        // Guests ran on the reservation's nodes, which went back to it: the idle count holds.
        let idle = need.min(view.idle_count());
        if need > 0 {
            out.push(Command::AssignIdle { job, count: need });
        }
        need -= idle;
        if need > 0 {
            need -= self.take_gathered(job, need, view, out);
        }
        if need > 0 {
            // The view still shows the guests just preempted (no longer in `self.guests`).
            let running: Vec<RunningView> = view
                .running(now)
                .into_iter()
                .filter(|p| self.is_candidate(p.view.id))
                .filter(|p| guests.iter().all(|&(_, g)| g != p.view.id))
                .map(|p| p.view)
                .collect();
            let mechanism = Mechanism {
                kind: composite.arrival,
            };
            for action in mechanism.decide(need, 0, &running)? {
                match action {
                    ArrivalAction::WaitAtFront => {
                        // Only the queue's front collects nodes: a job behind it holding
                        // some could starve it for good.
                        out.push(Command::Unassign { job });
                        self.waiting.push_back((job, size));
                        return Ok(());
                    }
                    ArrivalAction::Preempt { job: victim } => self.preempt(victim, job, out),
                    ArrivalAction::Shrink { job: victim, to } => {
                        let Some(view) = running.iter().find(|v| v.id == victim) else {
                            return Err(HybridError::UnknownJob(victim));
                        };
                        // The size it ran at before its first loan (only the policy resizes).
                        let original = self.shrunk.get(&victim).copied().unwrap_or(view.size);
                        out.push(Command::Resize { job: victim, to });
                        self.resized(victim, to, original);
                        self.lenders.entry(job).or_default().push(Lender::Shrunk {
                            job: victim,
                            lent: view.size.saturating_sub(to),
                        });
                    }
                }
            }
            out.push(Command::AssignIdle { job, count: need });
        }
        out.push(Command::StartOnDemand { job });
        Ok(())
    }

    /// Arriving on-demand `job`, still `need` nodes short after its reserved and the idle
    /// nodes, takes the nodes gathered by the on-demand jobs waiting at the front, the last
    /// first: to the paper's scheduler those are idle nodes (a queued job holds none), and an
    /// arrival "first checks if there are sufficient available nodes" before PAA or SPAA
    /// (§III-B2; Obs. 9: only running on-demand jobs keep one from starting). The jobs robbed
    /// keep their place and gather again at the next settle. Returns the nodes taken.
    fn take_gathered(
        &self,
        job: JobId,
        need: u32,
        view: &dyn PlatformView,
        out: &mut Vec<Command>,
    ) -> u32 {
        let mut freed = 0u32;
        for &(w, _) in self.waiting.iter().rev() {
            if freed >= need {
                break;
            }
            let held = view.held(w);
            if held > 0 {
                out.push(Command::Unassign { job: w });
                freed = freed.saturating_add(held);
            }
        }
        if freed == 0 {
            return 0;
        }
        out.push(Command::AssignIdle { job, count: need });
        need.min(freed)
    }

    /// On-demand `job` gave up before it started: it no longer waits at the front, and the
    /// nodes gathered for it go back.
    fn on_withdrawn(&mut self, job: JobId, out: &mut Vec<Command>) {
        if let Some(k) = self.waiting.iter().position(|&(j, _)| j == job) {
            self.waiting.remove(k);
            out.push(Command::Unassign { job });
        }
    }

    /// Running malleable `job` is resized to `to` nodes; `original` is the size it ran at
    /// before it lent any.
    fn resized(&mut self, job: JobId, to: u32, original: u32) {
        if to < original {
            self.shrunk.insert(job, original);
        } else {
            self.shrunk.remove(&job);
        }
    }

    /// On-demand `job` completed (§III-B4): its lenders are owed their nodes (at the next
    /// settle).
    fn on_on_demand_end(&mut self, job: JobId) {
        let lenders = self.lenders.remove(&job).unwrap_or_default();
        self.returns.extend(lenders);
    }

    /// Once an instant's events are in: the next step with something to do, as commands; no
    /// command once every step is done (the next call starts over). Steps: on-demand jobs
    /// waiting at the front take idle nodes; lenders get their nodes back; reservations
    /// collect idle nodes (earliest notice first); reserved idle nodes run guests; the batch
    /// pass; malleable jobs expand into what is left.
    fn settle(&mut self, now: Time, view: &dyn PlatformView, out: &mut Vec<Command>) {
        let from = out.len();
        while out.len() == from && self.step < SETTLE_STEPS {
            let step = self.step;
            self.step += 1;
            match step {
                0 => self.serve_waiting(view, out),
                1 => self.return_lenders(view, out),
                2 => self.collect(view, out),
                3 => self.lend_to_guests(now, view, out),
                _ => out.push(Command::Schedule(BatchPass::Site {
                    resize_malleable: false,
                })),
            }
        }
        if out.len() == from {
            self.step = 0;
        }
    }

    /// On-demand jobs waiting at the front take idle nodes, the first first; each starts once
    /// it holds its size.
    fn serve_waiting(&mut self, view: &dyn PlatformView, out: &mut Vec<Command>) {
        let mut free = view.idle_count();
        while let Some(&(job, size)) = self.waiting.front() {
            let need = size.saturating_sub(view.held(job));
            let take = need.min(free);
            if take > 0 {
                out.push(Command::AssignIdle { job, count: take });
                free -= take;
            }
            if take < need {
                break;
            }
            self.waiting.pop_front();
            out.push(Command::StartOnDemand { job });
        }
    }

    /// Lenders of the on-demand jobs that ended get their nodes back (§III-B4): a shrunk job
    /// still running expands by what it lent, back toward its original size (never beyond),
    /// as far as idle nodes allow — what they do not cover it is still owed, and takes at the
    /// next settle; a preempted job still queued starts if it fits.
    fn return_lenders(&mut self, view: &dyn PlatformView, out: &mut Vec<Command>) {
        if self.returns.is_empty() {
            return;
        }
        let mut free = view.idle_count();
        let mut preempted = Vec::new();
        let mut owed = Vec::new();
        // Sizes set by this call (a job may have lent to several on-demand jobs).
        let mut sizes: FxHashMap<JobId, u32> = FxHashMap::default();
        for lender in std::mem::take(&mut self.returns) {
            match lender {
                Lender::Shrunk { job, lent } => {
                    let Some(&original) = self.shrunk.get(&job) else {
                        continue;
                    };
                    let Some(size) = sizes.get(&job).copied().or(view.run(job).map(|r| r.size))
                    else {
                        continue;
                    };
                    let due = lent.min(original.saturating_sub(size));
                    let grow = due.min(free);
                    if grow > 0 {
                        out.push(Command::Resize {
                            job,
                            to: size + grow,
                        });
                        self.resized(job, size + grow, original);
                        sizes.insert(job, size + grow);
                        free -= grow;
                    }
                    if grow < due {
                        owed.push(Lender::Shrunk {
                            job,
                            lent: due - grow,
                        });
                    }
                }
                Lender::Preempted(job) => {
                    if view.is_queued(job) {
                        preempted.push(job);
                    }
                }
            }
        }
        self.returns = owed;
        if !preempted.is_empty() {
            out.push(Command::Schedule(BatchPass::Listed(preempted)));
        }
    }

    /// Reservations still short collect idle nodes, earliest notice first.
    fn collect(&mut self, view: &dyn PlatformView, out: &mut Vec<Command>) {
        let shortfall = self.board.shortfall() as usize;
        if shortfall == 0 || view.idle_count() == 0 {
            return;
        }
        self.lent_none_at = None;
        // One command per run of nodes claimed for the same job.
        for (job, node) in self.board.offer(&view.idle_nodes(shortfall)) {
            match out.last_mut() {
                Some(Command::Reserve { job: last, nodes }) if *last == job => nodes.push(node),
                _ => out.push(Command::Reserve {
                    job,
                    nodes: vec![node],
                }),
            }
        }
    }

    /// Each reservation's idle nodes run guests until its job arrives, unless nothing has
    /// changed since no guest could start on them.
    fn lend_to_guests(&mut self, now: Time, view: &dyn PlatformView, out: &mut Vec<Command>) {
        if self.board.strategy() == NoticeStrategy::N || view.queue_len() == 0 {
            return;
        }
        let epoch = view.queue_epoch();
        let version = view.reserved_version();
        if version.is_some_and(|v| self.lent_none_at == Some((epoch, v))) {
            return;
        }
        let mut asked_for_pass = false;
        for r in self.board.reservations() {
            // Counted first: most settles find the answer unchanged and allocate nothing.
            let count = view.reserved_idle(r.job, r.nodes);
            let asked = (epoch, count, r.estimated_arrival);
            if count == 0 || self.no_guests.get(&r.job) == Some(&asked) {
                continue;
            }
            let budget = u32::try_from(count).unwrap_or(u32::MAX);
            if !view.guest_could_start(now, budget, r.estimated_arrival) {
                self.no_guests.insert(r.job, asked);
                continue;
            }
            let nodes: Vec<NodeId> = r
                .nodes
                .iter()
                .filter(|&&n| view.reserved_for(n) == Some(r.job))
                .copied()
                .collect();
            // Forgotten as soon as a guest starts ([`Observation::Started`]).
            self.no_guests.insert(r.job, asked);
            out.push(Command::Schedule(BatchPass::Guests {
                for_job: r.job,
                nodes,
                arrival: r.estimated_arrival,
            }));
            asked_for_pass = true;
        }
        self.lent_none_at = version.filter(|_| !asked_for_pass).map(|v| (epoch, v));
    }
}

impl Policy for HybridPolicy {
    type Observation = Observation;
    type Command = Command;
    type View = dyn PlatformView;
    type Error = HybridError;

    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        view: &dyn PlatformView,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        // Only notices and arrivals (and wakes) change the plans or the reservations' expiries.
        let moves_timers = matches!(
            observation,
            Observation::Notice(_)
                | Observation::Arrival { .. }
                | Observation::OnDemandFailed { .. }
        );
        if moves_timers {
            self.wake_at = WakeAt(None);
        }
        match *observation {
            Observation::Started(start) => self.on_start(start),
            Observation::Completed { job } | Observation::Interrupted { job } => {
                self.stopped(job, out);
            }
            Observation::NodeLost { node } => {
                self.board.drop_node(node);
                self.lent_none_at = None;
            }
            Observation::Notice(notice) => self.on_notice(now, notice, view, out)?,
            Observation::Arrival { job, size } => self.on_arrival(now, job, size, view, out)?,
            Observation::OnDemandEnded { job } => self.on_on_demand_end(job),
            Observation::OnDemandFailed { job, size } => {
                self.on_on_demand_end(job);
                self.on_arrival(now, job, size, view, out)?;
            }
            Observation::Withdrawn { job } => self.on_withdrawn(job, out),
            Observation::Settle { .. } => self.settle(now, view, out),
        }
        if moves_timers {
            self.wake_at = WakeAt(Some(self.earliest_timer()));
        }
        Ok(())
    }

    /// The earliest timer due: the reservations whose grace after the estimated arrival has
    /// passed are released (their nodes go back, their guests become ordinary jobs, their
    /// lenders are returned, their plans cancelled); else the earliest planned preemption is
    /// carried out if its target still runs the run it was planned on (resized or not) and
    /// the reservation is still short.
    fn wake(
        &mut self,
        now: Time,
        view: &dyn PlatformView,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        self.lent_none_at = None;
        self.wake_at = WakeAt(None);
        if self.board.next_expiry().is_some_and(|t| t <= now) {
            for (job, nodes) in self.board.expire(now) {
                out.push(Command::Release { job, nodes });
                self.guests.retain(|_, (od, _)| *od != job);
                self.plans.retain(|(p, _)| p.for_job != job);
                self.no_guests.remove(&job);
                let lenders = self.lenders.remove(&job).unwrap_or_default();
                self.returns.extend(lenders);
            }
        } else if let Some(k) = self.due_plan(now) {
            let (plan, run_started) = self.plans.remove(k);
            let current = view.run(plan.job).is_some_and(|r| r.started == run_started);
            if current && self.board.is_short(plan.for_job) {
                self.preempt(plan.job, plan.for_job, out);
            }
        }
        self.wake_at = WakeAt(Some(self.earliest_timer()));
        Ok(())
    }

    /// The earliest reservation expiry or planned preemption.
    fn next_wake(&self) -> Option<Time> {
        debug_assert!(
            self.wake_at.0.is_none_or(|at| at == self.earliest_timer()),
            "the kept wake time is stale"
        );
        self.wake_at.0.unwrap_or_else(|| self.earliest_timer())
    }
}

impl HybridPolicy {
    /// The earliest reservation expiry or planned preemption, from the plans and the board.
    fn earliest_timer(&self) -> Option<Time> {
        let plan = self.plans.iter().map(|(p, _)| p.at).min();
        match (self.board.next_expiry(), plan) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Starts the given queued jobs if they fit (lenders getting their nodes back), in queue
/// order; the scan stops once every listed job has been seen.
pub struct StartListed<'a>(pub &'a [JobId]);

pass_policy!(StartListed<'_>);

impl StartListed<'_> {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        // The listed jobs' queue positions by id (no walk along the queue), in queue order.
        let mut positions: Vec<usize> = self
            .0
            .iter()
            .filter_map(|&id| pass.position_of(id))
            .collect();
        positions.sort_unstable();
        positions.dedup();
        for p in positions {
            if pass.job(p).is_some_and(|q| q.size() <= pass.free_units()) {
                // Checked: queued and fits.
                let _ = pass.start(p);
            }
        }
    }
}

/// Queue positions open to malleable guests of a reservation (ours: bounds the search of a
/// deep queue; the jobs that end by the arrival are found through the queue's index,
/// unbounded).
pub const GUEST_SCAN: usize = 1_000;

/// Starts guests on a reservation's `budget` idle nodes by the rule of
/// [`crate::notice::guests`]: first the queued jobs expected to end by the arrival (found
/// through the queue's backfilling index), then malleable jobs among the first [`GUEST_SCAN`]
/// queued (found through the queue's index of malleable jobs, which skips the rigid ones and
/// those too large), each in queue order while they fit. The reservation's nodes must be the
/// first the pass hands out.
pub struct GuestPicker {
    /// Idle reserved nodes.
    pub budget: u32,
    /// The on-demand job's estimated arrival.
    pub arrival: Time,
}

pass_policy!(GuestPicker);

impl GuestPicker {
    /// Whether the picker's plan on `pass`, with the reservation's nodes back in the pool,
    /// would find a job to start: a queued job that fits the budget and ends by the arrival,
    /// or a malleable one that fits among the first [`GUEST_SCAN`] queued. `pass` is taken
    /// with the reserved nodes still held (only the budget counts).
    pub fn finds_candidate(&self, pass: &Pass<'_>) -> bool {
        let window = Duration(self.arrival.0.saturating_sub(pass.now().0).max(0));
        let left = self.budget;
        left > 0
            && (pass.next_candidate(0, left, 0, window).is_some()
                || pass
                    .next_resizable(0, left, u32::MAX)
                    .is_some_and(|p| pass.nth_queued(GUEST_SCAN).is_none_or(|limit| p < limit)))
    }

    fn plan(&mut self, pass: &mut Pass<'_>) {
        let window = Duration(self.arrival.0.saturating_sub(pass.now().0).max(0));
        let mut left = self.budget.min(pass.free_units());
        let mut from = 0;
        while left > 0
            && let Some(p) = pass.next_candidate(from, left, 0, window)
        {
            from = p + 1;
            let size = pass.job(p).map_or(0, |q| q.size());
            if pass.start(p).is_ok() {
                left -= size;
            }
        }
        // The position of the first queued job past the scan, found once a candidate is
        // (before any start, which would move the ranks).
        let mut limit = None;
        let mut from = 0;
        while left > 0
            && let Some(p) = pass.next_resizable(from, left, u32::MAX)
        {
            let limit = *limit.get_or_insert_with(|| pass.nth_queued(GUEST_SCAN));
            if limit.is_some_and(|limit| p >= limit) {
                break;
            }
            from = p + 1;
            let size = pass.job(p).map_or(0, |q| q.size());
            if pass.start(p).is_ok() {
                left -= size;
            }
        }
    }
}

/// The site's policy with malleable jobs started on fewer nodes rather than left to wait
/// (§II-A, §III-A: "the size of malleable jobs can be adjusted before or during execution")
/// is three passes: [`MalleableHeads`], the site's policy, then [`MalleableBackfill`].
///
/// This first pass: while the queue head fits, it starts; a malleable head that does not fit
/// at its requested size starts on the idle nodes if they reach its smallest size.
pub struct MalleableHeads;

pass_policy!(MalleableHeads);

impl MalleableHeads {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        let mut pos = 0;
        while let Some(head) = pass.next_queued(pos) {
            let Some(q) = pass.job(head) else { break };
            let (size, range, free) = (q.size(), q.job.resizable, pass.free_units());
            let started = if size <= free {
                pass.start(head).is_ok()
            } else {
                range.is_some_and(|r| r.min <= free && pass.start_resized(head, free).is_ok())
            };
            if !started {
                break;
            }
            pos = head + 1;
        }
    }
}

/// The last of the three passes of [`MalleableHeads`]: the nodes the site's policy left idle
/// are backfilled with queued malleable jobs at the size that fits, under EASY's rule: a job
/// that ends by the head's shadow time at that size may take any idle nodes, a longer one
/// only the shadow's extra nodes. (The backfill visits only the malleable jobs whose smallest
/// size fits, through the queue's index.)
pub struct MalleableBackfill;

pass_policy!(MalleableBackfill);

impl MalleableBackfill {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        let Some(head) = pass.next_queued(0) else {
            return;
        };
        let Some(head_size) = pass.job(head).map(|q| q.size()) else {
            return;
        };
        // The shadow only once some malleable job behind the head could start.
        if pass
            .next_resizable(head + 1, u32::MAX, pass.free_units())
            .is_none()
        {
            return;
        }
        let shadow = pass.shadow(head_size);
        let mut extra = shadow.extra;
        let now = pass.now();
        let mut pos = head + 1;
        while pass.free_units() > 0
            && let Some(p) = pass.next_resizable(pos, u32::MAX, pass.free_units())
        {
            pos = p + 1;
            let Some(q) = pass.job(p) else { break };
            let Some(range) = q.job.resizable else {
                continue;
            };
            let free = pass.free_units();
            let units = i64::from(q.size()) * q.estimate().0;
            let ends_at =
                |n: u32| now.saturating_add(Duration((units + i64::from(n) - 1) / i64::from(n)));
            let fits = free.min(range.max);
            let size = if ends_at(fits) <= shadow.time {
                fits
            } else {
                fits.min(extra)
            };
            if size >= range.min
                && pass.start_resized(p, size).is_ok()
                && ends_at(size) > shadow.time
            {
                extra -= size;
            }
        }
    }
}

/// A running malleable job that may expand ([`plan_expansion`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpansionCandidate {
    /// The job.
    pub job: JobId,
    /// Its current size.
    pub size: u32,
    /// Its largest size.
    pub max: u32,
    /// Its predicted end at its current size.
    pub predicted_end: Time,
}

/// Opportunistic malleable expansion under EASY (§II-A: malleable jobs "expand up to the
/// maximum sizes based on resource availability"; the composed site's rule — hybrid's
/// mechanisms expand a job only back to its original size, when its on-demand job ends): the
/// candidates, in (submit, id) order, grow into the `free` idle nodes toward `max`, as far as
/// EASY's reservation for the queue head (`shadow`) allows: a job whose new predicted end (its
/// estimate left spread over the new size) passes the shadow time may take only the shadow's
/// extra nodes. Returns `(job, new size, max)` per job that grows.
pub fn plan_expansion(
    now: Time,
    mut free: u32,
    shadow: Option<Shadow>,
    candidates: impl IntoIterator<Item = ExpansionCandidate>,
) -> Vec<(JobId, u32, u32)> {
    let (shadow_time, mut extra) = match shadow {
        Some(shadow) => (shadow.time, shadow.extra),
        None => (Time::MAX, free),
    };
    let mut out = Vec::new();
    for c in candidates {
        if free == 0 {
            break;
        }
        let room = c.max.saturating_sub(c.size).min(free);
        let left = (c.predicted_end - now).0.max(0) * i64::from(c.size);
        let size = i64::from(c.size + room);
        let ends_by_shadow = now.saturating_add(Duration((left + size - 1) / size)) <= shadow_time;
        let grow = if ends_by_shadow {
            room
        } else {
            room.min(extra)
        };
        if grow == 0 {
            continue;
        }
        if !ends_by_shadow {
            extra -= grow;
        }
        out.push((c.job, c.size + grow, c.max));
        free -= grow;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_batch::{BatchCluster, BatchJob, SizeRange};
    use cosched_core::JobClass;

    /// A 4-node cluster whose queue holds `rigid` one-node jobs too long to end before the
    /// arrival, then a malleable job of 2 nodes (down to 1): the jobs GuestPicker starts on
    /// the 4 idle nodes reserved for an arrival in an hour.
    fn guests_behind(rigid: u64) -> Vec<JobId> {
        let mut cluster = BatchCluster::counted(4).unwrap();
        let job = |id: u64, size: u32, resizable: Option<SizeRange>| BatchJob {
            id: JobId(id),
            submit: Time(id as i64),
            size,
            runtime: Duration(86_400),
            estimate: Duration(86_400),
            class: if resizable.is_some() {
                JobClass::Malleable
            } else {
                JobClass::Rigid
            },
            resizable,
        };
        for id in 0..rigid {
            cluster.submit(job(id, 1, None)).unwrap();
        }
        let flexible = Some(SizeRange {
            min: 1,
            max: 2,
            setup: Duration::ZERO,
        });
        cluster.submit(job(rigid, 2, flexible)).unwrap();
        let mut picker = GuestPicker {
            budget: 4,
            arrival: Time(100_000 + 3_600),
        };
        // The probe the view answers with agrees with the pass.
        let mut none = Vec::new();
        let probe = picker.finds_candidate(&Pass::new(Time(100_000), &cluster, &mut none));
        let mut started = Vec::new();
        cluster.schedule(Time(100_000), &mut picker, &mut started);
        assert_eq!(probe, !started.is_empty());
        started.iter().map(|s| s.token.job).collect()
    }

    /// Malleable guests come from the first GUEST_SCAN queued jobs, however many rigid jobs
    /// stand before them there, and from no further back.
    #[test]
    fn malleable_guests_come_from_the_first_guest_scan_queued_jobs() {
        assert_eq!(guests_behind(0), vec![JobId(0)]);
        let last_scanned = GUEST_SCAN as u64 - 1;
        assert_eq!(guests_behind(last_scanned), vec![JobId(last_scanned)]);
        assert_eq!(guests_behind(last_scanned + 1), vec![]);
    }
}
