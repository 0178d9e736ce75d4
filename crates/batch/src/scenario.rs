//! The built-in batch policies: constructors, and [`BuiltinPolicy`] to choose one by name (the
//! CLI's `--policy`, a configuration file).
//!
//! Every simulator that runs batch passes takes any policy of the batch protocol (see
//! [`crate::pass`]), so a policy of your own runs where these do.
//!
//! # Writing your own batch policy
//!
//! Smallest job first: at each pass, start the waiting jobs in increasing size (then queue
//! order) while they fit. It reads the cluster through a [`Pass`](crate::Pass), which tracks the units the
//! starts already issued take, and returns its starts as commands.
//!
//! ```
//! use cosched_batch::{BatchCluster, BatchCommand, BatchSim, Pass, SchedulingPass, scenario};
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, JobId, RigidJob, Time};
//!
//! #[derive(Default, serde::Serialize, serde::Deserialize)]
//! struct SmallestFirst;
//!
//! impl Policy for SmallestFirst {
//!     type Observation = SchedulingPass;
//!     type Command = BatchCommand;
//!     type View = BatchCluster;
//!     type Error = std::convert::Infallible;
//!
//!     fn observe(
//!         &mut self,
//!         now: Time,
//!         _: &SchedulingPass,
//!         view: &BatchCluster,
//!         out: &mut Vec<BatchCommand>,
//!     ) -> Result<(), Self::Error> {
//!         let mut pass = Pass::new(now, view, out);
//!         let mut waiting = Vec::new();
//!         let mut pos = 0;
//!         while let Some(p) = pass.next_queued(pos) {
//!             waiting.extend(pass.job(p).map(|q| (q.size(), p)));
//!             pos = p + 1;
//!         }
//!         waiting.sort_unstable();
//!         for (size, p) in waiting {
//!             if size > pass.free_units() {
//!                 break;
//!             }
//!             // Checked: queued and fits; an end past the last second is simply not started.
//!             let _ = pass.start(p);
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let job = |id, submit, size, run| {
//!     RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run)).unwrap()
//! };
//! // A 4-unit job runs to 100; a 3-unit job and two 1-unit jobs wait behind it.
//! let jobs = [job(1, 0, 4, 100), job(2, 1, 3, 10), job(3, 2, 1, 10), job(4, 3, 1, 10)];
//! let start = |out: &cosched_batch::SimOutcome, id| {
//!     out.records.iter().find(|r| r.id == JobId(id)).and_then(|r| r.start)
//! };
//! let ours = BatchSim::new(4).unwrap().run(&mut SmallestFirst, &jobs).unwrap();
//! let fcfs = BatchSim::new(4).unwrap().run(&mut scenario::fcfs(), &jobs).unwrap();
//! // FCFS starts job 2 at 100 beside job 3; smallest first starts both small jobs first.
//! assert_eq!([start(&fcfs, 2), start(&fcfs, 4)], [Some(Time(100)), Some(Time(110))]);
//! assert_eq!([start(&ours, 2), start(&ours, 4)], [Some(Time(110)), Some(Time(100))]);
//! assert_eq!(ours.report.completed, fcfs.report.completed);
//! ```

use crate::{BatchPolicy, Bounds, Conservative, Easy, Fcfs};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// First come, first served.
pub fn fcfs() -> Fcfs {
    Fcfs
}

/// EASY backfilling.
pub fn easy() -> Easy {
    Easy::default()
}

/// Conservative backfilling, exact (every queued job that could start now planned).
pub fn conservative() -> Conservative {
    Conservative::default()
}

/// Conservative backfilling bounded as Slurm's backfill is by default
/// ([`Bounds::SLURM`]: 500 jobs reserved at most, none more than a day ahead).
pub fn conservative_bounded() -> Conservative {
    Conservative::bounded(Bounds::SLURM)
}

/// A built-in policy, by name: for choosing one at run time. The simulators take any policy;
/// this only names the built-in ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuiltinPolicy {
    /// [`fcfs`].
    Fcfs,
    /// [`easy`].
    Easy,
    /// [`conservative`].
    Conservative,
    /// [`conservative_bounded`] (`conservative-bounded`; not in [`BuiltinPolicy::ALL`], the
    /// policies the tables compare).
    ConservativeBounded,
}

impl BuiltinPolicy {
    /// Every built-in policy.
    pub const ALL: [BuiltinPolicy; 3] = [
        BuiltinPolicy::Fcfs,
        BuiltinPolicy::Easy,
        BuiltinPolicy::Conservative,
    ];

    /// A fresh policy of this kind.
    pub fn build(self) -> Box<dyn BatchPolicy + Send> {
        match self {
            BuiltinPolicy::Fcfs => Box::new(fcfs()),
            BuiltinPolicy::Easy => Box::new(easy()),
            BuiltinPolicy::Conservative => Box::new(conservative()),
            BuiltinPolicy::ConservativeBounded => Box::new(conservative_bounded()),
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinPolicy::Fcfs => "fcfs",
            BuiltinPolicy::Easy => "easy",
            BuiltinPolicy::Conservative => "conservative",
            BuiltinPolicy::ConservativeBounded => "conservative-bounded",
        }
    }
}

impl fmt::Display for BuiltinPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown policy `{0}` (expected fcfs, easy, conservative or conservative-bounded)")]
pub struct UnknownPolicy(pub String);

impl FromStr for BuiltinPolicy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<BuiltinPolicy, UnknownPolicy> {
        BuiltinPolicy::ALL
            .into_iter()
            .chain([BuiltinPolicy::ConservativeBounded])
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownPolicy(s.to_string()))
    }
}

type MakePolicy = dyn Fn() -> Box<dyn BatchPolicy + Send> + Send + Sync;

/// The batch policy of a simulator with a batch side (the Balancer's, metasched's, hybrid's):
/// a name and how to make a fresh policy for each run. Any policy of the batch protocol that
/// clones ([`BatchScheduler::new`]), its errors converting into [`crate::BatchError`]; a
/// built-in one by name converts ([`From<BuiltinPolicy>`]).
///
/// ```
/// use cosched_batch::scenario::{self, BatchScheduler, BuiltinPolicy};
/// let easy = BatchScheduler::from(BuiltinPolicy::Easy);
/// assert_eq!((easy.name(), easy.builtin()), ("easy", Some(BuiltinPolicy::Easy)));
/// let fcfs = BatchScheduler::new("my-fcfs", scenario::fcfs());
/// assert_eq!((fcfs.name(), fcfs.builtin()), ("my-fcfs", None));
/// let _fresh = fcfs.make();
/// ```
#[derive(Clone)]
pub struct BatchScheduler {
    name: String,
    builtin: Option<BuiltinPolicy>,
    make: std::sync::Arc<MakePolicy>,
}

impl BatchScheduler {
    /// `policy` under `name`: each run starts from a clone of it.
    pub fn new<P>(name: impl Into<String>, policy: P) -> BatchScheduler
    where
        P: cosched_core::Policy<
                Observation = crate::SchedulingPass,
                Command = crate::BatchCommand,
                View = crate::BatchCluster,
            > + Clone
            + Send
            + Sync
            + 'static,
        P::Error: Into<crate::BatchError>,
    {
        BatchScheduler {
            name: name.into(),
            builtin: None,
            make: std::sync::Arc::new(move || Box::new(policy.clone().err_into())),
        }
    }

    /// A fresh policy for one run.
    pub fn make(&self) -> Box<dyn BatchPolicy + Send> {
        (self.make)()
    }

    /// Its name (a built-in policy's is [`BuiltinPolicy::name`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The built-in policy it is, if it is one.
    pub fn builtin(&self) -> Option<BuiltinPolicy> {
        self.builtin
    }
}

impl From<BuiltinPolicy> for BatchScheduler {
    fn from(policy: BuiltinPolicy) -> BatchScheduler {
        BatchScheduler {
            name: policy.name().to_owned(),
            builtin: Some(policy),
            make: std::sync::Arc::new(move || policy.build()),
        }
    }
}

impl Default for BatchScheduler {
    /// EASY backfilling.
    fn default() -> BatchScheduler {
        BuiltinPolicy::Easy.into()
    }
}

impl fmt::Debug for BatchScheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BatchScheduler").field(&self.name).finish()
    }
}

/// Two schedulers are equal when they are the same built-in policy, or custom ones of one name.
impl PartialEq for BatchScheduler {
    fn eq(&self, other: &Self) -> bool {
        (self.builtin, &self.name) == (other.builtin, &other.name)
    }
}

/// Serialised as its name; a name deserialises to the built-in policy it names.
impl Serialize for BatchScheduler {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name)
    }
}

impl<'de> Deserialize<'de> for BatchScheduler {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<BatchScheduler, D::Error> {
        let name = String::deserialize(d)?;
        name.parse::<BuiltinPolicy>()
            .map(BatchScheduler::from)
            .map_err(serde::de::Error::custom)
    }
}
