//! Recording what a policy read of the platform, so that a recorded run replays without the
//! platform: a hybrid policy's commands depend on the [`PlatformView`] as well as on the
//! observation, so a recording ([`cosched_core::policy::Recorder`]) keeps, with each call, the
//! view's answers to the queries the policy made ([`Transcript`]); [`ReplayedView`] answers
//! them again. An executor that can transcribe its view answers [`PlatformView::transcript`]
//! (the simulator does, with [`crate::HybridSim::transcribe_views`]).
//!
//! ```
//! use cosched_core::policy::{Recorder, replay};
//! use cosched_hybrid::record::{ReplayedView, snapshot};
//! use cosched_hybrid::workload::{TraceParams, TypeParams, hybrid_workload};
//! use cosched_hybrid::{Composite, HybridConfig, HybridPolicy, HybridSim};
//! let jobs = hybrid_workload(&TraceParams::theta(100), &TypeParams::default(), 1).unwrap();
//! let sim = HybridSim::new(HybridConfig::new(4_392).unwrap()).unwrap().transcribe_views(true);
//! let cup_spaa = HybridPolicy::new(Composite::ALL[5]);
//! let mut recorder = Recorder::with_view_snapshot(cup_spaa.clone(), Vec::new(), snapshot);
//! sim.run(&mut recorder, &jobs).unwrap();
//! let (_, lines) = recorder.into_parts();
//! let mut fresh = cup_spaa;
//! let replayed = replay(&mut fresh, lines.as_slice(), ReplayedView::from_snapshot).unwrap();
//! assert!(replayed.commands > 0);
//! ```

use crate::notice::PlannedJob;
use crate::policy::{PlatformView, RunInfo};
use cosched_batch::Shadow;
use cosched_core::{JobId, NodeId, Time};
use serde::{Deserialize, Serialize};

/// A question a policy asked its [`PlatformView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Query {
    /// [`PlatformView::idle_nodes`].
    IdleNodes(usize),
    /// [`PlatformView::idle_count`].
    IdleCount,
    /// [`PlatformView::reserved_for`].
    ReservedFor(NodeId),
    /// [`PlatformView::reserved_idle`] for the job's reservation.
    ReservedIdle(JobId),
    /// [`PlatformView::running`].
    Running(Time),
    /// [`PlatformView::run`].
    Run(JobId),
    /// [`PlatformView::is_queued`].
    IsQueued(JobId),
    /// [`PlatformView::held`].
    Held(JobId),
    /// [`PlatformView::queue_len`].
    QueueLen,
    /// [`PlatformView::queue_epoch`].
    QueueEpoch,
    /// [`PlatformView::reserved_version`].
    ReservedVersion,
    /// [`PlatformView::head_shadow`].
    HeadShadow(Time),
    /// [`PlatformView::guest_could_start`]: at, budget, arrival.
    GuestCouldStart(Time, u32, Time),
}

/// The view's answer to a [`Query`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Nodes.
    Nodes(Vec<NodeId>),
    /// A count.
    Count(u64),
    /// A job, if any.
    Job(Option<JobId>),
    /// The running jobs.
    Running(Vec<PlannedJob>),
    /// A run, if any.
    Run(Option<RunInfo>),
    /// Yes or no.
    Flag(bool),
    /// EASY's shadow (time, extra nodes), if any.
    Shadow(Option<(Time, u32)>),
}

/// The queries of one call and their answers, in the order asked.
pub type Transcript = Vec<(Query, Answer)>;

/// The view snapshot to record with [`cosched_core::policy::Recorder::with_view_snapshot`]:
/// the view's transcript of the call, where the policy asked it anything (none for a call
/// that asked nothing, or a view that keeps no transcript).
pub fn snapshot(
    _call: cosched_core::policy::Call<&crate::Observation>,
    view: &dyn PlatformView,
) -> Option<serde_json::Value> {
    let transcript = view.transcript().filter(|t| !t.is_empty())?;
    serde_json::to_value(transcript).ok()
}

/// A view that answers from a recorded [`Transcript`]; a query the recording does not hold
/// gets an empty answer (no node, no job, zero), so a policy that asks otherwise than the
/// recorded one diverges visibly in its commands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayedView {
    answers: Transcript,
}

/// Why a recorded snapshot is not a transcript.
#[derive(Debug, thiserror::Error)]
#[error("the recorded view is not a transcript: {0}")]
pub struct SnapshotError(#[from] serde_json::Error);

impl ReplayedView {
    /// The view of a recorded step ([`cosched_core::policy::replay`]'s view builder).
    pub fn from_snapshot(
        snapshot: Option<&serde_json::Value>,
    ) -> Result<ReplayedView, SnapshotError> {
        let answers = match snapshot {
            Some(value) => Option::<Transcript>::deserialize(value)?.unwrap_or_default(),
            None => Transcript::new(),
        };
        Ok(ReplayedView { answers })
    }

    fn answer(&self, query: &Query) -> Option<&Answer> {
        self.answers
            .iter()
            .find(|(q, _)| q == query)
            .map(|(_, a)| a)
    }

    fn count(&self, query: &Query) -> u64 {
        match self.answer(query) {
            Some(Answer::Count(n)) => *n,
            _ => 0,
        }
    }
}

impl std::borrow::Borrow<dyn PlatformView> for ReplayedView {
    fn borrow(&self) -> &(dyn PlatformView + 'static) {
        self
    }
}

impl PlatformView for ReplayedView {
    fn idle_nodes(&self, n: usize) -> Vec<NodeId> {
        match self.answer(&Query::IdleNodes(n)) {
            Some(Answer::Nodes(nodes)) => nodes.clone(),
            _ => Vec::new(),
        }
    }

    fn idle_count(&self) -> u32 {
        u32::try_from(self.count(&Query::IdleCount)).unwrap_or(u32::MAX)
    }

    fn reserved_for(&self, node: NodeId) -> Option<JobId> {
        match self.answer(&Query::ReservedFor(node)) {
            Some(Answer::Job(job)) => *job,
            _ => None,
        }
    }

    fn reserved_idle(&self, job: JobId, _nodes: &[NodeId]) -> usize {
        usize::try_from(self.count(&Query::ReservedIdle(job))).unwrap_or(usize::MAX)
    }

    fn running(&self, now: Time) -> Vec<PlannedJob> {
        match self.answer(&Query::Running(now)) {
            Some(Answer::Running(running)) => running.clone(),
            _ => Vec::new(),
        }
    }

    fn run(&self, job: JobId) -> Option<RunInfo> {
        match self.answer(&Query::Run(job)) {
            Some(Answer::Run(run)) => *run,
            _ => None,
        }
    }

    fn is_queued(&self, job: JobId) -> bool {
        matches!(self.answer(&Query::IsQueued(job)), Some(Answer::Flag(true)))
    }

    fn held(&self, job: JobId) -> u32 {
        u32::try_from(self.count(&Query::Held(job))).unwrap_or(u32::MAX)
    }

    fn queue_len(&self) -> usize {
        usize::try_from(self.count(&Query::QueueLen)).unwrap_or(usize::MAX)
    }

    fn queue_epoch(&self) -> u64 {
        self.count(&Query::QueueEpoch)
    }

    fn reserved_version(&self) -> Option<u64> {
        match self.answer(&Query::ReservedVersion) {
            Some(Answer::Count(n)) => Some(*n),
            _ => None,
        }
    }

    fn head_shadow(&self, now: Time) -> Option<Shadow> {
        match self.answer(&Query::HeadShadow(now)) {
            Some(Answer::Shadow(shadow)) => shadow.map(|(time, extra)| Shadow { time, extra }),
            _ => None,
        }
    }

    fn guest_could_start(&self, now: Time, budget: u32, arrival: Time) -> bool {
        // Unrecorded: the default's answer (the pass is asked for).
        !matches!(
            self.answer(&Query::GuestCouldStart(now, budget, arrival)),
            Some(Answer::Flag(false))
        )
    }
}
