//! # cosched-htcondor
//!
//! Any policy of the Albatross protocol (Mathur & Aleksonis; [`AlbatrossPolicy`]: the
//! [`Albatross`] policy, the no-scaling baseline, or a caller's own) run against a live
//! HTCondor pool, one negotiation cycle per call, from what HTCondor's tools print
//! (`condor_status -long` and `condor_q -allusers -long`, or their `-json` forms). It is the
//! driver behind `cosched albatross decide`, which an operator runs from cron after each
//! negotiation cycle; starting and stopping instances is left to the operator's script (e.g.
//! `condor_annex`), which must make the nodes' startds advertise `AnnexName` (as
//! `condor_annex` does) or `IsCloud = true`.
//!
//! What the policy observes ([`Observation`]), and where it comes from:
//! - **waiting jobs** (the call's view): the idle jobs (`JobStatus == 1`) of the queue, in its
//!   order;
//! - **dispatched**: jobs whose `JobCurrentStartDate` is later than the previous call (every
//!   start, claim reuse included, sets it), plus jobs that were idle at the previous call and
//!   have left the queue since (they ran and finished in between). The negotiator's
//!   `LastNegotiationCycleMatches` would miss starts on reused claims;
//! - **cloud nodes**: machines with a slot advertising `AnnexName` or `IsCloud = true`; a
//!   node is busy if any of its slots is `Claimed`, else idle; nodes the policy asked for
//!   that have not joined yet are booting (until [`DriverConfig::boot_timeout`]);
//! - **free desktop slots**: the other slots that are `Unclaimed`.
//!
//! The driver's own memory between calls (the previous call's time and idle jobs, the cloud
//! machines' node ids, the nodes still booting) is a [`PoolState`]; [`decide`] never changes
//! it but returns the next one in its [`Decision`], to be kept only once the decision has been
//! delivered ([`Saved`] writes it atomically, beside whatever the caller keeps of its
//! policy). The policy is started ([`Policy::start`]) at the first call, when the state has
//! no previous call, and observes one cycle at every call, through core's [`Driver`].
//!
//! ```
//! use cosched_albatross::policy::{Albatross, AlbatrossConfig, Capital};
//! use cosched_classad::read::parse_ads;
//! use cosched_core::{Duration, Time};
//! use cosched_htcondor::{Action, DriverConfig, PoolState, Snapshot, decide};
//!
//! // A desktop slot running a job, and a job waiting (HTCondor's `-long` output).
//! let slots = parse_ads("Machine = \"desk01\"\nState = \"Claimed\"\n")?;
//! let jobs = parse_ads(concat!(
//!     "ClusterId = 7\nProcId = 0\nJobStatus = 2\nJobCurrentStartDate = 100\n\n",
//!     "ClusterId = 8\nProcId = 0\nJobStatus = 1\n",
//! ))?;
//! let pool = Snapshot::new(slots, jobs);
//! // A 300 s stall threshold (the library's default, from the paper's Fig. 1, is 4,500 s).
//! let albatross = AlbatrossConfig {
//!     stall_threshold: Duration::from_secs(300),
//!     ..AlbatrossConfig::paper(Capital::new(0.5)?)
//! };
//! let config = DriverConfig::new(albatross.instance_types.clone(), Duration::from_mins(15))?;
//! let mut policy = Albatross::new(albatross, Time(1_000))?;
//!
//! // The first call starts the policy: nothing has stalled yet.
//! let first = decide(&mut policy, &PoolState::default(), &pool, &config, Time(1_000))?;
//! assert!(first.actions.is_empty());
//! // Five minutes later job 8 still waits and nothing was dispatched: a stall, so one node of
//! // the capital's instance type (t2.small at c = 0.5, §IV-F) starts, and boots.
//! let second = decide(&mut policy, &first.state, &pool, &config, Time(1_300))?;
//! assert!(matches!(
//!     &second.actions[..],
//!     [Action::Start { instance_type, count: 1, .. }] if instance_type == "t2.small"
//! ));
//! assert_eq!(second.state.booting(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Albatross`]: cosched_albatross::policy::Albatross
//! [`Policy::start`]: cosched_core::policy::Policy::start

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error as StdError;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cosched_albatross::policy::{
    AlbatrossPolicy, CloudNodeState, CloudNodeView, Command, Observation, WaitingJobs,
};
use cosched_albatross::pool::InstanceType;
use cosched_classad::read::{self, ReadError};
use cosched_classad::{ClassAd, Value};
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::{Duration, NodeId, Time};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Times accepted from callers, ads and state files: within ±10^11 s of the epoch (about
/// ±3000 years), so that no difference of two of them overflows.
pub const TIME_LIMIT: i64 = 100_000_000_000;

/// Node ids from here to `u32::MAX` name the nodes requested and not yet seen (counted down
/// from `u32::MAX`, at most [`MAX_BOOTING`] of them); machines get ids below it.
const BOOTING_IDS_FROM: u32 = u32::MAX - MAX_BOOTING as u32 + 1;

/// The most requested-but-unseen nodes the policy is shown (more have timed out in practice).
const MAX_BOOTING: usize = 1 << 16;

/// What can go wrong driving a policy on a pool.
#[derive(Debug, Error)]
pub enum HtcondorError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// condor_status / condor_q output that does not parse.
    #[error("{path}: {source}")]
    Ads {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: Box<ReadError>,
    },
    /// A state file that is not a saved [`Saved`] state.
    #[error("{path}: not an albatross state file: {message}")]
    State {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A time or duration outside what the driver accepts.
    #[error("{what} {value} is out of range ({range})")]
    OutOfRange {
        /// What it is.
        what: &'static str,
        /// Its value, seconds.
        value: i64,
        /// What is accepted.
        range: &'static str,
    },
    /// A call earlier than the previous one.
    #[error("now {now} is before the previous call at {last}")]
    BeforePreviousCall {
        /// This call's time.
        now: Time,
        /// The previous call's.
        last: Time,
    },
    /// Every node id has been given: ids never wrap, so two machines never share one.
    #[error(
        "every cloud node id up to {last} has been given; remove old nodes from the state file"
    )]
    IdsExhausted {
        /// The last id.
        last: u32,
    },
    /// The policy refused the call (a [`CallError`] naming the call and its time, with the
    /// policy's own error: boxed, downcast to read it).
    #[error("policy: {0}")]
    Policy(#[source] Box<dyn StdError + Send + Sync>),
    /// The policy asked for an instance type the configuration does not offer.
    #[error("the policy asked for instance type {0}, which the pool does not offer")]
    PolicyInstance(usize),
}

impl<E: StdError + Send + Sync + 'static> From<CallError<E>> for HtcondorError {
    fn from(e: CallError<E>) -> HtcondorError {
        HtcondorError::Policy(Box::new(e))
    }
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for HtcondorError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}

/// Checks a time within [`TIME_LIMIT`] of the epoch.
pub fn check_time(what: &'static str, t: Time) -> Result<Time, HtcondorError> {
    if t.secs().unsigned_abs() > TIME_LIMIT.unsigned_abs() {
        return Err(HtcondorError::OutOfRange {
            what,
            value: t.secs(),
            range: "|t| <= 10^11 s",
        });
    }
    Ok(t)
}

/// Checks a positive duration of at most [`TIME_LIMIT`] seconds.
pub fn check_duration(what: &'static str, d: Duration) -> Result<Duration, HtcondorError> {
    if !(1..=TIME_LIMIT).contains(&d.secs()) {
        return Err(HtcondorError::OutOfRange {
            what,
            value: d.secs(),
            range: "1..=10^11 s",
        });
    }
    Ok(d)
}

/// One look at the pool: its slots' ads and its queue's job ads.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    slots: Vec<ClassAd>,
    jobs: Vec<ClassAd>,
}

impl Snapshot {
    /// The slots (`condor_status`) and jobs (`condor_q`), in the tools' order.
    pub fn new(slots: Vec<ClassAd>, jobs: Vec<ClassAd>) -> Snapshot {
        Snapshot { slots, jobs }
    }

    /// Reads `condor_status -long` (or `-json`) output from `status` and `condor_q -long`
    /// (or `-json`) output from `queue`.
    pub fn read(status: &Path, queue: &Path) -> Result<Snapshot, HtcondorError> {
        Ok(Snapshot::new(read_ads(status)?, read_ads(queue)?))
    }

    /// The slots' ads.
    pub fn slots(&self) -> &[ClassAd] {
        &self.slots
    }

    /// The jobs' ads.
    pub fn jobs(&self) -> &[ClassAd] {
        &self.jobs
    }
}

fn read_ads(path: &Path) -> Result<Vec<ClassAd>, HtcondorError> {
    let io = |source| HtcondorError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    read::read_ads(std::io::BufReader::new(file)).map_err(|source| HtcondorError::Ads {
        path: path.to_owned(),
        source: Box::new(source),
    })
}

/// How the driver reads the pool.
#[derive(Debug, Clone, PartialEq)]
pub struct DriverConfig {
    instance_types: Vec<InstanceType>,
    boot_timeout: Duration,
}

impl DriverConfig {
    /// The instance types the operator's cloud offers (a [`Command::Start`]'s `instance`
    /// indexes them; a node joins as the oldest type requested), and how long a requested
    /// node may take to join the pool before it is forgotten (1 s to 10^11 s).
    pub fn new(
        instance_types: Vec<InstanceType>,
        boot_timeout: Duration,
    ) -> Result<DriverConfig, HtcondorError> {
        Ok(DriverConfig {
            instance_types,
            boot_timeout: check_duration("boot timeout", boot_timeout)?,
        })
    }

    /// The instance types offered.
    pub fn instance_types(&self) -> &[InstanceType] {
        &self.instance_types
    }

    /// How long a requested node may take to join.
    pub fn boot_timeout(&self) -> Duration {
        self.boot_timeout
    }

    fn type_index(&self, name: &str) -> usize {
        self.instance_types
            .iter()
            .position(|t| t.name == name)
            .unwrap_or(0)
    }
}

/// A cloud machine the driver has seen.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct NodeRecord {
    /// Its node id for the policy.
    id: u32,
    /// The instance type it was requested as (empty if it joined without a request).
    instance: String,
}

/// The driver's memory between two calls (JSON; missing fields take their defaults).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct PoolState {
    /// When the previous call ran.
    last_call: Option<Time>,
    /// Jobs (`cluster.proc`) idle at the previous call.
    idle_jobs: BTreeSet<String>,
    /// The cloud machines seen, by `Machine` name.
    nodes: BTreeMap<String, NodeRecord>,
    /// Nodes requested and not yet seen: (instance type name, request time).
    booting: Vec<(String, Time)>,
    /// The next node id to give.
    next_node: u32,
}

impl PoolState {
    /// When the previous call ran (`None` before the first).
    pub fn last_call(&self) -> Option<Time> {
        self.last_call
    }

    /// Nodes requested and not yet in the pool.
    pub fn booting(&self) -> usize {
        self.booting.len()
    }

    /// The cloud machines in the pool at the previous call, by `Machine` name.
    pub fn machines(&self) -> impl Iterator<Item = &str> {
        self.nodes.keys().map(String::as_str)
    }

    /// Checks the times it holds (each within [`TIME_LIMIT`]).
    pub fn validate(&self) -> Result<(), HtcondorError> {
        let booting = self.booting.iter().map(|(_, t)| t);
        for &t in self.last_call.iter().chain(booting) {
            check_time("time", t)?;
        }
        Ok(())
    }
}

/// A state file: the driver's [`PoolState`] and, beside it in the same JSON object, what the
/// caller keeps of its policy (`S`'s fields; `()` for nothing).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Saved<S> {
    /// The driver's state.
    #[serde(flatten)]
    pub pool: PoolState,
    /// The caller's.
    #[serde(flatten)]
    pub policy: S,
}

impl<S: DeserializeOwned + Default> Saved<S> {
    /// Reads the state file at `path`; a missing file is the default state (a first call).
    pub fn read(path: &Path) -> Result<Saved<S>, HtcondorError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Saved::default()),
            Err(source) => {
                return Err(HtcondorError::Io {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        let state = |message: String| HtcondorError::State {
            path: path.to_owned(),
            message,
        };
        let saved: Saved<S> = serde_json::from_str(&text).map_err(|e| state(e.to_string()))?;
        saved.pool.validate().map_err(|e| state(e.to_string()))?;
        Ok(saved)
    }
}

impl<S: Serialize> Saved<S> {
    /// Writes the state to `path` through a temporary file beside it, so that a crash never
    /// leaves half a file.
    pub fn write(&self, path: &Path) -> Result<(), HtcondorError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| HtcondorError::State {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let tmp = path.with_extension("json.tmp");
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| HtcondorError::Io { path, source }
        };
        std::fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io(path))
    }
}

/// What the operator's script is to do, from one of the policy's commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Start `count` nodes of `instance_type`, each to stay `lifetime` after joining.
    Start {
        /// The instance type's name.
        instance_type: String,
        /// Nodes to start.
        count: u32,
        /// How long each stays after joining the pool.
        lifetime: Duration,
    },
    /// Stop this idle cloud machine.
    Stop {
        /// Its `Machine` name.
        machine: String,
    },
    /// A stop of a node that has not joined the pool yet: nothing to stop, skipped.
    SkippedStop {
        /// The node, as the policy named it.
        node: NodeId,
    },
}

/// One line per action: `start TYPE count=N lifetime=Ss`, `stop MACHINE`, or a `#` comment
/// for a skipped stop.
impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Start {
                instance_type,
                count,
                lifetime,
            } => write!(
                f,
                "start {instance_type} count={count} lifetime={}s",
                lifetime.secs()
            ),
            Action::Stop { machine } => write!(f, "stop {machine}"),
            Action::SkippedStop { .. } => {
                write!(f, "# (a stop of a node not yet in the pool was skipped)")
            }
        }
    }
}

/// One call's outcome: what the driver saw, what the policy decided, and the state to keep
/// once the decision is delivered.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Slots in the pool.
    pub slots: usize,
    /// Jobs in the queue.
    pub jobs: usize,
    /// Of them, idle (waiting).
    pub waiting: usize,
    /// Jobs dispatched since the previous call.
    pub dispatched: usize,
    /// Cloud machines in the pool.
    pub cloud_up: usize,
    /// Cloud nodes requested and not yet in the pool (before this call's starts).
    pub booting: usize,
    /// Desktop slots unclaimed.
    pub free_desktop_slots: usize,
    /// The policy's commands, as actions, in its order.
    pub actions: Vec<Action>,
    /// The state for the next call.
    pub state: PoolState,
}

/// Runs one negotiation cycle of `policy` on `pool` at `now`, the previous calls' memory being
/// `state` (the default for a first call, which starts the policy); see the crate docs.
///
/// `state` is left as it was and the next one returned; `policy` changes as it is called.
/// Keep both only once the decision has been delivered (a caller that persists its policy
/// saves it beside the returned state; `cosched albatross decide` rebuilds Albatross from
/// its saved stall timer at every call).
pub fn decide<P>(
    policy: &mut P,
    state: &PoolState,
    pool: &Snapshot,
    config: &DriverConfig,
    now: Time,
) -> Result<Decision, HtcondorError>
where
    P: AlbatrossPolicy,
    P::Error: StdError + Send + Sync + 'static,
{
    let now = check_time("now", now)?;
    if let Some(last) = state.last_call.filter(|&last| last > now) {
        return Err(HtcondorError::BeforePreviousCall { now, last });
    }
    let mut next = state.clone();
    let (slots, jobs) = (pool.slots(), pool.jobs());

    // Jobs: the waiting ones, and the dispatches since the previous call.
    let waiting: Vec<Arc<ClassAd>> = jobs
        .iter()
        .filter(|j| int_attr(j, "JobStatus") == Some(1))
        .map(|j| Arc::new(j.clone()))
        .collect();
    let in_queue: BTreeSet<String> = jobs.iter().map(job_id).collect();
    let started = jobs
        .iter()
        .filter(
            |job| match (state.last_call, int_attr(job, "JobCurrentStartDate")) {
                (Some(last), Some(start)) => start > last.secs(),
                _ => false,
            },
        )
        .count();
    let finished_unseen = state
        .idle_jobs
        .iter()
        .filter(|id| !in_queue.contains(*id))
        .count();
    let dispatched = started + finished_unseen;

    // Cloud nodes: the machines of cloud slots, and the requested nodes not yet seen.
    let mut machines: BTreeMap<String, Vec<&ClassAd>> = BTreeMap::new();
    for slot in slots.iter().filter(|s| is_cloud_slot(s)) {
        let machine = str_attr(slot, "Machine")
            .or_else(|| str_attr(slot, "Name"))
            .unwrap_or_default();
        machines.entry(machine).or_default().push(slot);
    }
    let mut views = Vec::new();
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    for (machine, machine_slots) in &machines {
        let record = match next.nodes.get(machine) {
            Some(record) => record.clone(),
            None => {
                // A new machine: the oldest of the nodes requested earlier, if any.
                let instance = if next.booting.is_empty() {
                    String::new()
                } else {
                    next.booting.remove(0).0
                };
                let id = next.next_node;
                // The ids counted down from u32::MAX name booting nodes (below).
                if id >= BOOTING_IDS_FROM {
                    return Err(HtcondorError::IdsExhausted {
                        last: BOOTING_IDS_FROM - 1,
                    });
                }
                let record = NodeRecord { id, instance };
                next.next_node = id + 1;
                next.nodes.insert(machine.clone(), record.clone());
                record
            }
        };
        names.insert(record.id, machine.clone());
        let claimed = machine_slots
            .iter()
            .filter(|s| str_attr(s, "State").as_deref() == Some("Claimed"))
            .count();
        views.push(CloudNodeView {
            node: NodeId(record.id),
            instance: config.type_index(&record.instance),
            state: if claimed > 0 {
                CloudNodeState::Busy {
                    jobs: u32::try_from(claimed).unwrap_or(u32::MAX),
                }
            } else {
                CloudNodeState::Idle
            },
        });
    }
    next.nodes.retain(|m, _| machines.contains_key(m));
    next.booting.retain(|(_, requested)| {
        now.checked_since(*requested)
            .is_some_and(|waited| waited < config.boot_timeout)
    });
    for (k, (name, _)) in next.booting.iter().enumerate().take(MAX_BOOTING) {
        views.push(CloudNodeView {
            node: NodeId(u32::MAX - k as u32),
            instance: config.type_index(name),
            state: CloudNodeState::Booting,
        });
    }
    let free_desktop_slots = slots
        .iter()
        .filter(|s| !is_cloud_slot(s) && str_attr(s, "State").as_deref() == Some("Unclaimed"))
        .count();

    let booting = next.booting.len();
    let observation = Observation {
        dispatched,
        cloud_nodes: views,
        free_desktop_slots,
        instance_types: config.instance_types.clone(),
    };
    let mut cycle = Cycle {
        waiting,
        config,
        names: &names,
        booting: &mut next.booting,
        actions: Vec::new(),
    };
    let mut driver = Driver::new(&mut *policy);
    if state.last_call.is_none() {
        driver.start(now, &mut cycle, &mut ())?;
    }
    driver.observe(now, &observation, &mut cycle, &mut ())?;
    let actions = cycle.actions;
    next.idle_jobs = cycle.waiting.iter().map(|j| job_id(j)).collect();
    next.last_call = Some(now);
    Ok(Decision {
        slots: slots.len(),
        jobs: jobs.len(),
        waiting: cycle.waiting.len(),
        dispatched,
        cloud_up: machines.len(),
        booting,
        free_desktop_slots,
        actions,
        state: next,
    })
}

/// One call's executor: lends the waiting jobs, turns commands into actions.
struct Cycle<'a> {
    waiting: Vec<Arc<ClassAd>>,
    config: &'a DriverConfig,
    names: &'a BTreeMap<u32, String>,
    booting: &'a mut Vec<(String, Time)>,
    actions: Vec<Action>,
}

impl<P> Executor<P> for Cycle<'_>
where
    P: AlbatrossPolicy,
    P::Error: StdError + Send + Sync + 'static,
{
    type Context = ();
    type Error = HtcondorError;

    fn view(&mut self, _now: Time) -> &WaitingJobs {
        &self.waiting
    }

    fn apply(
        &mut self,
        _: &mut Driver<P>,
        _: &mut (),
        now: Time,
        commands: &[Command],
    ) -> Result<(), HtcondorError> {
        for c in commands {
            if let Command::Start { instance, .. } = *c
                && instance >= self.config.instance_types.len()
            {
                return Err(HtcondorError::PolicyInstance(instance));
            }
        }
        for c in commands {
            let action = match *c {
                Command::Start {
                    instance,
                    count,
                    lifetime,
                } => {
                    let name = &self.config.instance_types[instance].name;
                    for _ in 0..count {
                        self.booting.push((name.clone(), now));
                    }
                    Action::Start {
                        instance_type: name.clone(),
                        count,
                        lifetime,
                    }
                }
                Command::Stop { node } => match self.names.get(&node.0) {
                    Some(machine) => Action::Stop {
                        machine: machine.clone(),
                    },
                    None => Action::SkippedStop { node },
                },
            };
            self.actions.push(action);
        }
        Ok(())
    }
}

fn int_attr(ad: &ClassAd, name: &str) -> Option<i64> {
    ad.eval_attr(name, None).as_int()
}

fn str_attr(ad: &ClassAd, name: &str) -> Option<String> {
    ad.eval_attr(name, None).as_str().map(str::to_owned)
}

/// A job's `cluster.proc`.
fn job_id(job: &ClassAd) -> String {
    let part = |name| int_attr(job, name).map_or_else(|| "?".to_owned(), |i| i.to_string());
    format!("{}.{}", part("ClusterId"), part("ProcId"))
}

/// Whether a slot belongs to a cloud node the policy manages.
fn is_cloud_slot(slot: &ClassAd) -> bool {
    !matches!(slot.eval_attr("AnnexName", None), Value::Undefined)
        || slot.eval_attr("IsCloud", None) == Value::Bool(true)
}
