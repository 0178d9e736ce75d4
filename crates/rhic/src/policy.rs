//! The RHIC controller (§4) and the crate's protocol: [`cosched_core::policy::Policy`] with
//! [`Observation`]s in (1 s foreground readings, departures, boots, the profile, each period's
//! measurements, the job's progress) and [`Command`]s out (a node joins the pool with its map
//! slots, changes its slots, or leaves). No clock, RNG or I/O; the state serialises.
//!
//! The executor reports the job's [`Observation::Progress`] at every period end and, between
//! period ends, whenever a volunteer was lost (the report says which: [`ProgressPoint`]); the policy answers with the commands that move the pool it last asked
//! for ([`CommandedPool`]) to its new choice ([`Sizing`]): the difference is the policy's.
//!
//! - After the dedicated-only profiling run ([`ProfileReport`]: disk utilisation, CPU
//!   consumed, memory per map slot, task length) the I/O curve is seeded with the profile's
//!   point, so no pool is ever predicted faster than the dedicated nodes alone (§4.1).
//! - For cost and energy, Algorithm 1 scales the pool one 1-minute period at a time: Eq. 3's
//!   worst case, the midpoint of Eq. 2–3, then the diminishing-returns ceiling (the goal's best
//!   size ignoring I/O, priced) or the saturation point extrapolated from the disk utilisation,
//!   then `+ worst case` per period, until the disks report saturation or the ceiling is
//!   reached. Deadlines skip it (§4.2) and take the curve as linear up to Eq. 3's worst case
//!   (the "near" side of the saturation point, [`Rhic::io_curve`]).
//! - Then every period: the exhaustive search (Eq. 4–5 over the I/O curve) picks a size; the
//!   previous pool is adjusted to it (add the best unused, drop the worst used) and the
//!   threshold replacement swaps the least-available used node for the most-available unused
//!   one while their difference exceeds the threshold (§4.4).
//! - Between period ends it defers (§4.4): departed or failed volunteers are replaced from the
//!   best unused, the size stands.

use crate::completion::{CompletionParams, Progress, check_duration};
use crate::goal::{Goal, Score};
use crate::iocurve::{Cluster, IoCurve, IoSample, MeanShiftParams, age_weight, mean_shift};
use crate::predictor::ForegroundTable;
use crate::saturation::SaturationEstimate;
use crate::search::{
    Candidate, Evaluation, SearchMethod, SearchModel, annealing_search, candidate_order,
    exhaustive_search, screen_and_sort, usable,
};
use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId, ParamError, SeedStreams, Time};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

/// The controller's parameters; checked by [`Rhic::new`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RhicConfig {
    /// `Count_dedicated` (> 0).
    pub dedicated: u32,
    /// `CPU_max`, cores per node (finite, > 0).
    pub cpu_max: f64,
    /// What to optimise (changeable later, [`Rhic::set_goal`]).
    pub goal: Goal,
    /// A volunteer's profiled setup (boot) time, for the transition damping (§4.3).
    pub setup: Duration,
    /// I/O-curve clustering.
    pub mean_shift: MeanShiftParams,
    /// Half-life of an I/O sample's weight (> 0 s): the ageing of §4.2.
    pub sample_half_life: Duration,
    /// I/O samples kept, the newest (> 0).
    pub max_samples: usize,
    /// History of the per-node moving average (> 0 s; §4.4: 10–60 minutes).
    pub predictor_window: Duration,
    /// The evaluation interval (> 0 s; §4.1: one minute).
    pub interval: Duration,
    /// Residual-CPU difference (cores, ≥ 0) above which replacement swaps a used node for an
    /// unused one (§4.4; the paper gives no value).
    pub replacement_threshold: f64,
    /// Disk utilisation (in `(0, 1]`) at which `IOSaturation()` of Algorithm 1 holds.
    pub saturation_util: f64,
    /// How the sizes are searched (§4.1): exhaustively, or by simulated annealing.
    pub search: SearchMethod,
    /// Whether cost and energy goals start with Algorithm 1's scaling periods (the paper's
    /// RHIC: true); false searches right after the profile (an ablation of ours).
    pub initial_scaling: bool,
}

impl RhicConfig {
    /// Defaults around the three required values: 30 s setup, a mean-shift bandwidth of
    /// `cpu_max` and 100 iterations, a 10-minute sample half-life and 256 samples, a 10-minute
    /// predictor, 1-minute intervals, a replacement threshold of `cpu_max / 4` and saturation
    /// at 90 % disk utilisation (the last two ours), the exhaustive search.
    pub fn new(dedicated: u32, cpu_max: f64, goal: Goal) -> Self {
        RhicConfig {
            dedicated,
            cpu_max,
            goal,
            setup: Duration(30),
            mean_shift: MeanShiftParams {
                bandwidth: cpu_max,
                max_iterations: 100,
            },
            sample_half_life: Duration::from_mins(10),
            max_samples: 256,
            predictor_window: Duration::from_mins(10),
            interval: Duration::from_mins(1),
            replacement_threshold: cpu_max / 4.0,
            saturation_util: 0.9,
            search: SearchMethod::Exhaustive,
            initial_scaling: true,
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.dedicated > 0,
            "dedicated",
            self.dedicated,
            "must be > 0",
        )?;
        ParamError::check(
            self.cpu_max.is_finite() && self.cpu_max > 0.0,
            "cpu_max",
            self.cpu_max,
            "must be finite and > 0",
        )?;
        check_duration("setup", self.setup, false)?;
        MeanShiftParams::new(self.mean_shift.bandwidth, self.mean_shift.max_iterations)?;
        check_duration("sample_half_life", self.sample_half_life, true)?;
        ParamError::check(
            self.max_samples > 0,
            "max_samples",
            self.max_samples,
            "must be > 0",
        )?;
        check_duration("predictor_window", self.predictor_window, true)?;
        check_duration("interval", self.interval, true)?;
        ParamError::check(
            self.replacement_threshold.is_finite() && self.replacement_threshold >= 0.0,
            "replacement_threshold",
            self.replacement_threshold,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            self.saturation_util > 0.0 && self.saturation_util <= 1.0,
            "saturation_util",
            self.saturation_util,
            "must be in (0, 1]",
        )?;
        if let SearchMethod::Annealing { steps, .. } = self.search {
            ParamError::check(
                (1..=1_000_000).contains(&steps),
                "steps",
                steps,
                "must be in 1..=1000000",
            )?;
        }
        Ok(())
    }
}

/// What the dedicated-only profiling run measured (§4.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileReport {
    /// Average disk bandwidth utilisation of the dedicated nodes, `BWUtil_avg`, in `(0, 1]`.
    pub bw_util: f64,
    /// CPU the job consumed on the dedicated nodes during the profile, cores.
    pub dedicated_cpu: f64,
    /// Memory one map slot (worker process) needs, MiB (> 0).
    pub slot_memory_mb: u64,
    /// Average task length so far, seconds (≥ 0).
    pub task_s: f64,
}

/// What one evaluation interval measured.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeriodReport {
    /// Length of the interval, seconds.
    pub seconds: f64,
    /// Mean CPU available to the job (dedicated included; the dedicated nodes count as fully
    /// available), cores.
    pub cpu_available: f64,
    /// Mean CPU the job consumed, cores (noisy, as measured).
    pub cpu_consumed: f64,
    /// Mean disk utilisation of the busiest dedicated node (iostat), in `[0, 1]`.
    pub max_disk_util: f64,
    /// Average task length so far, seconds, if tasks finished.
    pub task_s: Option<f64>,
    /// Work reported done during the interval, the job's units.
    pub work: f64,
    /// Money spent during the interval, dollars.
    pub usd: f64,
    /// Energy billed to the job during the interval, joules.
    pub joules: f64,
}

/// An observation the executor (simulator or live system) hands a policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Observation {
    /// One foreground reading of an interactive node (1 s samples, §4.4): its cores, the CPU
    /// its foreground uses and the memory (of the shared 8 GB) free for a volunteer VM.
    Node {
        /// The node.
        node: NodeId,
        /// Its CPU capacity, cores (finite, > 0): nodes may differ (§4.1 notes that the model
        /// adapts to a few hardware types).
        cores: f64,
        /// Foreground CPU, cores.
        foreground_cpu: f64,
        /// Memory a volunteer VM could use, MiB.
        free_memory_mb: u64,
    },
    /// The node's session ended: it is no longer a candidate.
    Left(NodeId),
    /// The volunteer VM the policy asked for is up.
    Joined(NodeId),
    /// The volunteer VM failed to boot: not a volunteer, and not a candidate again.
    BootFailed(NodeId),
    /// The profiling run ended.
    Profile(ProfileReport),
    /// An evaluation interval ended.
    Period(PeriodReport),
    /// The job's progress now, and when it is reported: at a period end (after the period's
    /// measurements) or between period ends because a volunteer left or failed to boot. The
    /// policy answers with its pool commands (a new size at a period end, replacements in
    /// between, §4.4).
    Progress {
        /// The job's progress.
        progress: Progress,
        /// A period end, or between two.
        point: ProgressPoint,
    },
}

/// When an executor reports the job's progress ([`Observation::Progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProgressPoint {
    /// An evaluation interval ended (or the profiling run): the policy may size the pool anew.
    PeriodEnd,
    /// Between period ends, after a volunteer left or failed to boot: the policy may replace
    /// what it lost (deferment, §4.4).
    BetweenPeriods,
}

/// A policy of RHIC's protocol: the core [`Policy`] trait with [`Observation`]s in, pool
/// [`Command`]s out, and no view (the observations say everything). [`Rhic`] and the
/// baselines ([`crate::baseline`]) are ones; so is any caller's type that implements it, and it
/// runs in the simulator (`cosched_rhic::sim`) and any other executor.
pub trait RhicPolicy: Policy<Observation = Observation, Command = Command, View = ()> {}

impl<P> RhicPolicy for P where
    P: Policy<Observation = Observation, Command = Command, View = ()> + ?Sized
{
}

/// What a policy asks of the executor: the pool's changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// Start a volunteer VM on the node running this many map slots (it boots for the setup
    /// time first). For a node still draining after a [`Command::Leave`], keep it instead.
    Join(Assignment),
    /// A volunteer keeps its place with another number of slots (its memory changed, §4.4).
    Resize(Assignment),
    /// The volunteer leaves: it finishes its tasks in flight (drains), then stops.
    Leave(NodeId),
}

/// The pool as the policy last asked the executor for it; [`CommandedPool::move_to`] emits the
/// commands that turn it into another.
///
/// ```
/// use cosched_core::NodeId;
/// use cosched_rhic::policy::{Assignment, Command, CommandedPool};
/// let a = |n, slots| Assignment { node: NodeId(n), slots };
/// let mut pool = CommandedPool::default();
/// let mut out = Vec::new();
/// pool.move_to(&[a(1, 4), a(2, 4)], &mut out);
/// pool.move_to(&[a(2, 2), a(3, 4)], &mut out);
/// assert_eq!(&out[2..], [Command::Leave(NodeId(1)), Command::Resize(a(2, 2)), Command::Join(a(3, 4))]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CommandedPool {
    members: Vec<Assignment>,
}

impl CommandedPool {
    /// The volunteers asked for, in the order they were.
    pub fn members(&self) -> &[Assignment] {
        &self.members
    }

    /// The executor dropped `node` itself (its session ended, its VM failed to boot).
    pub fn forget(&mut self, node: NodeId) {
        self.members.retain(|a| a.node != node);
    }

    /// Forgets the node of a departure or failed boot ([`CommandedPool::forget`]); other
    /// observations leave the pool as it is.
    pub fn observe(&mut self, observation: &Observation) {
        if let Observation::Left(node) | Observation::BootFailed(node) = *observation {
            self.forget(node);
        }
    }

    /// Appends the commands from the current pool to `target`: leaves first, then slot
    /// changes and joins in `target`'s order.
    pub fn move_to(&mut self, target: &[Assignment], out: &mut Vec<Command>) {
        if self.members == target {
            return; // the pool stands: no command
        }
        let next: std::collections::BTreeMap<NodeId, u32> =
            target.iter().map(|a| (a.node, a.slots)).collect();
        let prev: std::collections::BTreeMap<NodeId, u32> =
            self.members.iter().map(|a| (a.node, a.slots)).collect();
        out.extend(
            self.members
                .iter()
                .filter(|a| !next.contains_key(&a.node))
                .map(|a| Command::Leave(a.node)),
        );
        for &a in target {
            match prev.get(&a.node) {
                None => out.push(Command::Join(a)),
                Some(&s) if s != a.slots => out.push(Command::Resize(a)),
                Some(_) => {}
            }
        }
        self.members.clear();
        self.members.extend_from_slice(target);
    }
}

/// One volunteer of a sizing and the map slots it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assignment {
    /// The interactive node.
    pub node: NodeId,
    /// Map slots to run there (fewer than its cores where memory is short, §4.4).
    pub slots: u32,
}

/// How a [`Sizing`] was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SizingKind {
    /// Before the profile: dedicated nodes only.
    Profiling,
    /// Algorithm 1's period `n` (1-based).
    Scaling(u32),
    /// The search at an interval boundary.
    Search,
    /// A baseline's rule at an interval boundary.
    Rule,
    /// Mid-interval: the last decision, unchanged.
    Deferred,
    /// Mid-interval: the last decision with departed or failed volunteers replaced.
    Replaced,
}

/// The volunteers to use from `at` on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sizing {
    /// When it was made.
    pub at: Time,
    /// The volunteers, in the order they joined the pool.
    pub volunteers: Vec<Assignment>,
    /// The search's completion estimate, seconds from `at` (searches only).
    pub estimate_s: Option<f64>,
    /// The search's score (searches only).
    pub score: Option<Score>,
    /// How it was reached.
    pub kind: SizingKind,
}

impl Sizing {
    fn empty(at: Time, kind: SizingKind) -> Self {
        Sizing {
            at,
            volunteers: Vec::new(),
            estimate_s: None,
            score: None,
            kind,
        }
    }

    /// The volunteers' nodes.
    pub fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.volunteers.iter().map(|a| a.node)
    }
}

/// What a policy knows of the interactive nodes: every node's foreground predictor and free
/// memory, and the volunteers that failed to boot (not candidates again). RHIC and the
/// baselines share it, so they rank volunteers by the same mechanism (§5.2–5.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CloudView {
    nodes: ForegroundTable,
    failed: BTreeSet<NodeId>,
}

impl CloudView {
    /// No node known; predictors average the last `window`.
    pub fn new(window: Duration) -> Self {
        CloudView {
            nodes: ForegroundTable::new(window),
            failed: BTreeSet::new(),
        }
    }

    /// Applies a node-level observation (reading, departure, boot); false for the others.
    pub fn observe(&mut self, at: Time, observation: &Observation) -> bool {
        self.apply(at, observation).is_some()
    }

    /// [`CloudView::observe`], saying what changed: `None` for an observation that is not
    /// node-level, `Some(Some(node))` when `node`'s candidate may have changed (its reading
    /// moved its prediction, memory or capacity; it left; its boot failed or it joined after
    /// one), `Some(None)` when nothing did.
    pub fn apply(&mut self, at: Time, observation: &Observation) -> Option<Option<NodeId>> {
        let (node, changed) = match *observation {
            Observation::Node {
                node,
                cores,
                foreground_cpu,
                free_memory_mb,
            } => (
                node,
                self.nodes
                    .observe(at, node, cores, foreground_cpu, free_memory_mb),
            ),
            Observation::Left(node) => (node, self.nodes.remove(node)),
            Observation::Joined(node) => (node, self.failed.remove(&node)),
            Observation::BootFailed(node) => (node, self.failed.insert(node)),
            Observation::Profile(_) | Observation::Period(_) | Observation::Progress { .. } => {
                return None;
            }
        };
        Some(changed.then_some(node))
    }

    /// `node` as a usable candidate ([`CloudView::screen`]'s entry for it), if it is one.
    pub fn candidate(&self, node: NodeId, cpu_max: f64, slot_memory_mb: u64) -> Option<Candidate> {
        if self.failed.contains(&node) {
            return None;
        }
        self.nodes
            .candidate(node, cpu_max, slot_memory_mb)
            .filter(usable)
    }

    /// The CPU capacity a node reported ([`Observation::Node`]'s `cores`), if any.
    pub fn capacity(&self, node: NodeId) -> Option<f64> {
        self.nodes.capacity(node)
    }

    /// The usable candidates (failed boots excluded), screened and sorted into `sorted`
    /// ([`screen_and_sort`]); `all` is scratch.
    pub fn screen(
        &self,
        cpu_max: f64,
        slot_memory_mb: u64,
        all: &mut Vec<Candidate>,
        sorted: &mut Vec<Candidate>,
    ) {
        self.nodes.candidates_into(cpu_max, slot_memory_mb, all);
        all.retain(|c| !self.failed.contains(&c.node));
        screen_and_sort(all, sorted);
    }
}

/// The pool as a policy keeps it between decisions, with the selection rules of §4.4 that RHIC
/// and the baselines share.
///
/// It keeps the candidates it was last given (its listing), the used and the unused apart,
/// each ordered by [`candidate_order`]: the worst used and the best unused are at hand, so
/// resizing by `k` or `k` replacements cost O(k log n), and a listing brought up to date
/// ([`Selection::update`]) costs O(log n) per changed candidate, whatever the number of
/// candidates. [`Selection::refresh`], [`Selection::resize`] and [`Selection::replace`] take
/// the candidates afresh (O(n)); [`Selection::update`], [`Selection::resize_listed`] and
/// [`Selection::replace_listed`] work on the listing. The members are always listed.
///
/// ```
/// use cosched_core::NodeId;
/// use cosched_rhic::{Candidate, Selection};
/// let c = |n, r| Candidate { node: NodeId(n), residual_cpu: r, slots: 4 };
/// let nodes = |s: &Selection| s.members().iter().map(|a| a.node.0).collect::<Vec<_>>();
/// let mut pool = Selection::default();
/// pool.refresh(&[c(0, 3.0), c(1, 2.0), c(2, 1.0)]); // the candidates, best first
/// pool.resize_listed(2);
/// assert_eq!(nodes(&pool), [0, 1]);
/// // Node 2 now beats the worst member by more than the threshold: it takes its place.
/// pool.update([(NodeId(2), Some(c(2, 3.5)))]);
/// assert_eq!(pool.replace_listed(1.0), 1);
/// assert_eq!(nodes(&pool), [0, 2]);
/// ```
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Selection {
    members: Vec<Assignment>,
    /// The candidates last given (empty after deserialisation: the next
    /// [`Selection::refresh`] lists them).
    #[serde(skip)]
    listing: Listing,
}

/// Two selections are equal when their members are (the listing is what they were last told
/// of the candidates, not the pool; serialisation keeps the members only, too).
impl PartialEq for Selection {
    fn eq(&self, other: &Self) -> bool {
        self.members == other.members
    }
}

/// The listed candidates: by node, and the members' and the others' apart, by
/// [`candidate_order`].
#[derive(Clone, Debug, Default)]
struct Listing {
    by_node: HashMap<NodeId, Candidate>,
    used: BTreeSet<Ranked>,
    unused: BTreeSet<Ranked>,
}

/// A candidate ordered by [`candidate_order`] (best first; a total order over nodes).
#[derive(Clone, Copy, Debug)]
struct Ranked(Candidate);

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        candidate_order(&self.0, &other.0)
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl Selection {
    /// The members, in the order they joined.
    pub fn members(&self) -> &[Assignment] {
        &self.members
    }

    /// `node`'s entry among the listed candidates, if it is one.
    pub fn listed(&self, node: NodeId) -> Option<Candidate> {
        self.listing.by_node.get(&node).copied()
    }

    /// Takes `sorted` (as [`screen_and_sort`] leaves it) as the candidates: drops members no
    /// longer among them (gone, failed or without memory) and refreshes the others' slots;
    /// true if one was dropped. O(n).
    pub fn refresh(&mut self, sorted: &[Candidate]) -> bool {
        let by_node: HashMap<NodeId, Candidate> = sorted.iter().map(|c| (c.node, *c)).collect();
        let before = self.members.len();
        self.members.retain_mut(|a| match by_node.get(&a.node) {
            Some(c) => {
                a.slots = c.slots;
                true
            }
            None => false,
        });
        let members: HashSet<NodeId> = self.members.iter().map(|a| a.node).collect();
        let (used, unused): (Vec<Ranked>, Vec<Ranked>) = sorted
            .iter()
            .map(|&c| Ranked(c))
            .partition(|r| members.contains(&r.0.node));
        self.listing = Listing {
            by_node,
            used: used.into_iter().collect(),
            unused: unused.into_iter().collect(),
        };
        self.members.len() != before
    }

    /// Brings the listing up to date: each `(node, candidate)` is `node`'s candidate now
    /// (`None`: no longer one). A member keeps its place with its new slots, or leaves when
    /// it is no candidate; true if one left. O(log n) per change (and O(members) to drop
    /// those that left, or to find a member whose slots changed).
    pub fn update(
        &mut self,
        changes: impl IntoIterator<Item = (NodeId, Option<Candidate>)>,
    ) -> bool {
        let listing = &mut self.listing;
        let mut left = Vec::new();
        for (node, now) in changes {
            let old = match now {
                Some(c) => listing.by_node.insert(node, c),
                None => listing.by_node.remove(&node),
            };
            let member = match old {
                Some(o) => {
                    let o = Ranked(o);
                    listing.used.remove(&o) || {
                        listing.unused.remove(&o);
                        false
                    }
                }
                // A member that left earlier in `changes` and is back stays.
                None => match left.iter().position(|&n| n == node) {
                    Some(i) => {
                        left.swap_remove(i);
                        true
                    }
                    None => false,
                },
            };
            match (now, member) {
                (Some(c), true) => {
                    listing.used.insert(Ranked(c));
                    if old.is_none_or(|o| o.slots != c.slots)
                        && let Some(a) = self.members.iter_mut().find(|a| a.node == node)
                    {
                        a.slots = c.slots;
                    }
                }
                (Some(c), false) => {
                    listing.unused.insert(Ranked(c));
                }
                (None, true) => left.push(node),
                (None, false) => {}
            }
        }
        if left.is_empty() {
            return false;
        }
        left.sort_unstable();
        self.members
            .retain(|a| left.binary_search(&a.node).is_err());
        true
    }

    /// Adjusts the pool to `size` (§4.4): adds the best unused candidates of `sorted` (best
    /// first) or drops the worst used ones; members no longer among `sorted` leave first
    /// ([`Selection::refresh`]).
    pub fn resize(&mut self, size: usize, sorted: &[Candidate]) {
        self.refresh(sorted);
        self.resize_listed(size);
    }

    /// [`Selection::resize`] over the listed candidates. O(k log n) for a change of `k`
    /// members (and O(members) to drop them).
    pub fn resize_listed(&mut self, size: usize) {
        let listing = &mut self.listing;
        let size = size.min(listing.by_node.len());
        if self.members.len() > size {
            // Drop the lowest contributions: the worst used first.
            let mut dropped = Vec::with_capacity(self.members.len() - size);
            while dropped.len() < dropped.capacity() {
                let Some(worst) = listing.used.pop_last() else {
                    break;
                };
                listing.unused.insert(worst);
                dropped.push(worst.0.node);
            }
            dropped.sort_unstable();
            self.members
                .retain(|a| dropped.binary_search(&a.node).is_err());
            return;
        }
        while self.members.len() < size {
            let Some(best) = listing.unused.pop_first() else {
                break;
            };
            listing.used.insert(best);
            self.members.push(Assignment {
                node: best.0.node,
                slots: best.0.slots,
            });
        }
    }

    /// Threshold replacement (§4.4): while the most-available unused candidate beats the
    /// least-available used one by more than `threshold` cores, swap them (the `i`-th best
    /// unused for the `i`-th worst used). Returns the swaps; members no longer among `sorted`
    /// leave first ([`Selection::refresh`]).
    pub fn replace(&mut self, sorted: &[Candidate], threshold: f64) -> usize {
        self.refresh(sorted);
        self.replace_listed(threshold)
    }

    /// [`Selection::replace`] over the listed candidates. O(k log n) for `k` swaps (and
    /// O(members) to find each swapped member's place).
    pub fn replace_listed(&mut self, threshold: f64) -> usize {
        let listing = &mut self.listing;
        let mut swaps = Vec::new();
        for (worst, best) in listing.used.iter().rev().zip(&listing.unused) {
            if best.0.contribution() - worst.0.contribution() <= threshold {
                break;
            }
            swaps.push((*worst, *best));
        }
        for &(worst, best) in &swaps {
            listing.used.remove(&worst);
            listing.unused.remove(&best);
            listing.used.insert(best);
            listing.unused.insert(worst);
            if let Some(slot) = self.members.iter_mut().find(|a| a.node == worst.0.node) {
                *slot = Assignment {
                    node: best.0.node,
                    slots: best.0.slots,
                };
            }
        }
        swaps.len()
    }

    /// Empties the pool; the listing stays.
    pub fn clear(&mut self) {
        let used = std::mem::take(&mut self.listing.used);
        self.listing.unused.extend(used);
        self.members.clear();
    }
}

/// Where Algorithm 1 is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Scaling {
    /// The next period to run (1-based).
    Period(u32),
    /// Finished: searches from now on.
    Done,
}

/// The RHIC controller.
///
/// ```
/// use cosched_core::policy::Policy;
/// use cosched_core::{Duration, NodeId, Time};
/// use cosched_rhic::policy::{Command, Observation, ProfileReport, ProgressPoint};
/// use cosched_rhic::{CostModel, SizingKind, Goal, Progress, Rhic, RhicConfig};
/// // Two dedicated 16-core nodes.
/// let mut rhic = Rhic::new(RhicConfig::new(2, 16.0, Goal::Cost(CostModel::default()))).unwrap();
/// let mut out = Vec::new();
/// for n in 0..8 {
///     let node = Observation::Node {
///         node: NodeId(n), cores: 16.0, foreground_cpu: 2.0, free_memory_mb: 6000,
///     };
///     rhic.observe(Time(59), &node, &(), &mut out).unwrap();
/// }
/// let profile = ProfileReport { bw_util: 0.25, dedicated_cpu: 32.0, slot_memory_mb: 256, task_s: 60.0 };
/// rhic.observe(Time(60), &Observation::Profile(profile), &(), &mut out).unwrap();
/// let progress = Progress::new(1920.0, 100_000.0, Duration(60), 32.0).unwrap();
/// let period_end = Observation::Progress { progress, point: ProgressPoint::PeriodEnd };
/// rhic.observe(Time(60), &period_end, &(), &mut out).unwrap();
/// // Algorithm 1, period 1: Eq. 3's worst case, (1/0.25 − 1) · 16 = 48 cores: 4 volunteers.
/// assert_eq!(rhic.last_sizing().map(|s| s.kind), Some(SizingKind::Scaling(1)));
/// assert_eq!(out.iter().filter(|c| matches!(c, Command::Join(_))).count(), 4);
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rhic {
    config: RhicConfig,
    cloud: CloudView,
    samples: VecDeque<(Time, f64, f64)>,
    /// `(CPU consumed, busiest disk's utilisation)` of the profile and every period, for the
    /// BWUtil extrapolation.
    disk: VecDeque<(f64, f64)>,
    profile: Option<ProfileReport>,
    estimate: Option<SaturationEstimate>,
    completion: CompletionParams,
    scaling: Scaling,
    dmr_ceiling: Option<usize>,
    saturated: bool,
    selection: Selection,
    last: Option<Sizing>,
    commanded: CommandedPool,
    scaling_periods: u32,
    #[serde(skip)]
    sorted: Vec<Candidate>,
    #[serde(skip)]
    scratch: Vec<Candidate>,
    /// What `sorted` was screened with and the nodes changed since (`None`: screen afresh).
    #[serde(skip)]
    screened: Option<Screened>,
    /// A buffer for the changed nodes' candidates.
    #[serde(skip)]
    changes: Vec<(NodeId, Option<Candidate>)>,
    /// The ageing weights of the samples' ages and the samples weighted, kept between
    /// decisions.
    #[serde(skip)]
    weighted: Weighted,
}

/// The ageing weights already computed, by age in seconds (NaN: not yet), a buffer for the
/// weighted samples (the samples' ages recur from decision to decision), and the samples in
/// the order [`mean_shift`] sorts them into.
#[derive(Clone, Debug, Default)]
struct Weighted {
    by_age: Vec<f64>,
    samples: Vec<IoSample>,
    /// The samples by `CPU_available`, `CPU_consumed`, then time (`None`: not known, sort
    /// afresh). Weighed, that is mean-shift's order (an older sample weighs no more), so its
    /// sort finds them sorted.
    order: Option<Vec<(f64, f64, Time)>>,
}

/// [`Weighted::order`]'s order.
fn sample_order(a: &(f64, f64, Time), b: &(f64, f64, Time)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0)
        .then(a.1.total_cmp(&b.1))
        .then(a.2.cmp(&b.2))
}

impl Weighted {
    /// Keeps [`Weighted::order`] in step with a sample added (`true`) or dropped.
    fn changed(&mut self, (at, a, c): (Time, f64, f64), added: bool) {
        let Some(order) = self.order.as_mut() else {
            return;
        };
        let key = (a, c, at);
        match (order.binary_search_by(|x| sample_order(x, &key)), added) {
            (Ok(i) | Err(i), true) => order.insert(i, key),
            (Ok(i), false) => {
                order.remove(i);
            }
            (Err(_), false) => self.order = None,
        }
    }

    /// Ages kept: up to about 18 hours.
    const MAX_AGE_S: usize = 1 << 16;

    /// [`age_weight`] of `age`, computed once for each age up to [`Weighted::MAX_AGE_S`].
    fn weight(&mut self, age: Duration, half_life_s: f64) -> f64 {
        let compute = || age_weight(age.0 as f64, half_life_s);
        let Some(k) = usize::try_from(age.0).ok().filter(|&k| k < Self::MAX_AGE_S) else {
            return compute();
        };
        if self.by_age.len() <= k {
            self.by_age.resize(k + 1, f64::NAN);
        }
        if self.by_age[k].is_nan() {
            self.by_age[k] = compute();
        }
        self.by_age[k]
    }
}

/// The incremental state of [`Rhic`]'s sorted candidates (listed in its selection too): the
/// screen's parameters and the nodes whose candidate may have changed since.
#[derive(Clone, Debug)]
struct Screened {
    cpu_max: f64,
    slot_memory_mb: u64,
    changed: BTreeSet<NodeId>,
}

impl Rhic {
    /// A controller with no observations, or the first parameter out of range.
    pub fn new(config: RhicConfig) -> Result<Self, ParamError> {
        config.validate()?;
        Ok(Rhic {
            config,
            cloud: CloudView::new(config.predictor_window),
            samples: VecDeque::new(),
            disk: VecDeque::new(),
            profile: None,
            estimate: None,
            completion: CompletionParams::new(config.setup, 0.0)?,
            scaling: Scaling::Period(1),
            dmr_ceiling: None,
            saturated: false,
            selection: Selection::default(),
            last: None,
            commanded: CommandedPool::default(),
            scaling_periods: 0,
            sorted: Vec::new(),
            scratch: Vec::new(),
            screened: None,
            changes: Vec::new(),
            weighted: Weighted::default(),
        })
    }

    /// The parameters.
    pub fn config(&self) -> &RhicConfig {
        &self.config
    }

    /// Changes the goal (a new deadline, new prices) from the next decision on.
    pub fn set_goal(&mut self, goal: Goal) {
        self.config.goal = goal;
    }

    /// The last sizing (what the last [`Observation::Progress`] chose), if any.
    pub fn last_sizing(&self) -> Option<&Sizing> {
        self.last.as_ref()
    }

    /// The interval boundaries Algorithm 1 decided (§4.2) so far.
    pub fn scaling_periods(&self) -> u32 {
        self.scaling_periods
    }

    /// Every known, usable volunteer with its predicted residual CPU and slots, best first.
    pub fn candidates(&self) -> Vec<Candidate> {
        let mut all = Vec::new();
        let mut sorted = Vec::new();
        self.screen(&mut all, &mut sorted);
        sorted
    }

    fn slot_memory_mb(&self) -> u64 {
        self.profile.map_or(1, |p| p.slot_memory_mb.max(1))
    }

    fn screen(&self, all: &mut Vec<Candidate>, sorted: &mut Vec<Candidate>) {
        self.cloud
            .screen(self.config.cpu_max, self.slot_memory_mb(), all, sorted);
    }

    /// Brings the sorted candidates and the selection's listing up to date: only the nodes
    /// changed since the last screen move (out of their place, into their new one), unless
    /// the screen's parameters changed or many did (then, and after deserialisation, a full
    /// screen). True if a volunteer of the selection is no candidate any more (it left).
    fn refresh_sorted(&mut self) -> bool {
        let (cpu_max, slot_memory_mb) = (self.config.cpu_max, self.slot_memory_mb());
        if let Some(s) = self.screened.as_mut()
            && s.cpu_max.to_bits() == cpu_max.to_bits()
            && s.slot_memory_mb == slot_memory_mb
            && s.changed.len() <= self.sorted.len() / 8
        {
            let mut changes = std::mem::take(&mut self.changes);
            changes.clear();
            for node in std::mem::take(&mut s.changed) {
                if let Some(old) = self.selection.listed(node)
                    && let Ok(i) = self.sorted.binary_search_by(|c| candidate_order(c, &old))
                {
                    self.sorted.remove(i);
                }
                let now = self.cloud.candidate(node, cpu_max, slot_memory_mb);
                if let Some(c) = now {
                    let i = self
                        .sorted
                        .binary_search_by(|x| candidate_order(x, &c))
                        .unwrap_or_else(|i| i);
                    self.sorted.insert(i, c);
                }
                changes.push((node, now));
            }
            let left = self.selection.update(changes.drain(..));
            self.changes = changes;
            return left;
        }
        let (mut all, mut sorted) = (
            std::mem::take(&mut self.scratch),
            std::mem::take(&mut self.sorted),
        );
        self.screen(&mut all, &mut sorted);
        self.scratch = all;
        self.screened = Some(Screened {
            cpu_max,
            slot_memory_mb,
            changed: BTreeSet::new(),
        });
        let left = self.selection.refresh(&sorted);
        self.sorted = sorted;
        left
    }

    /// Drops the incremental screen and the ageing weights kept: the next decision screens
    /// every candidate and weighs every sample afresh, as after deserialisation (the
    /// decisions are the same either way).
    pub fn forget_screen(&mut self) {
        self.screened = None;
        self.weighted = Weighted::default();
    }

    /// The I/O curve as of `now`: the profile's point (the dedicated CPU, what the job
    /// consumed on it), then the spline through the
    /// mean-shift centres (samples weighted by age) of the pools with volunteers; `None`
    /// before the profile.
    ///
    /// Under a deadline Algorithm 1 does not sample the curve, "because the deadlines must be
    /// achievable on the 'near' side of the I/O saturation point" (§4.2), where the job
    /// consumes the volunteer CPU it is given ("assuming a linear relationship between CPU
    /// contribution and I/O demands", Eq. 1): the curve then runs at slope 1 from the
    /// profile's point up to Eq. 3's worst-case onset, and only pools beyond it come from the
    /// samples. Without this a noisy first period (a pool consuming less than the profile)
    /// leaves a flat curve that predicts no gain from any volunteer, and the pool, never
    /// grown, never corrects it.
    pub fn io_curve(&self, now: Time) -> Option<IoCurve> {
        self.io_curve_with(now, &mut Weighted::default())
    }

    /// [`Rhic::io_curve`], the weights and the samples' buffer kept in `weighted`.
    fn io_curve_with(&self, now: Time, weighted: &mut Weighted) -> Option<IoCurve> {
        let profile = self.profile?;
        let half_life = self.config.sample_half_life.0 as f64;
        let mut samples = std::mem::take(&mut weighted.samples);
        samples.clear();
        let order = weighted.order.take().unwrap_or_else(|| {
            let mut order: Vec<_> = self.samples.iter().map(|&(at, a, c)| (a, c, at)).collect();
            order.sort_unstable_by(sample_order);
            order
        });
        samples.extend(order.iter().map(|&(a, c, at)| IoSample {
            cpu_available: a,
            cpu_consumed: c,
            weight: weighted.weight(now.since(at), half_life),
        }));
        weighted.order = Some(order);
        let seed = Cluster {
            cpu_available: self.dedicated_cpu(),
            cpu_consumed: profile.dedicated_cpu,
            weight: 1.0,
        };
        let mut knots = vec![seed];
        if let (Goal::Deadline(_), Some(e)) = (self.config.goal, self.estimate)
            && e.worst_case_cpu > 0.0
        {
            knots.push(Cluster {
                cpu_available: seed.cpu_available + e.worst_case_cpu,
                cpu_consumed: seed.cpu_consumed + e.worst_case_cpu,
                weight: 1.0,
            });
        }
        let near_side = knots.last().map_or(seed, |k| *k);
        knots.extend(
            mean_shift(&samples, &self.config.mean_shift)
                .into_iter()
                .filter(|c| c.cpu_available > near_side.cpu_available),
        );
        weighted.samples = samples;
        IoCurve::through(&knots)
    }

    /// The CPU (dedicated included) at which the busiest disk saturates, by a least-squares
    /// line of its utilisation against the CPU consumed over the profile and the periods
    /// (through the origin while only the profile is known): Algorithm 1's
    /// `ExtrapolateSaturation()`. Infinite without a rising line.
    pub fn extrapolated_saturation_cpu(&self) -> f64 {
        let pts: Vec<(f64, f64)> = self.disk.iter().copied().collect();
        let slope_intercept = match pts.as_slice() {
            [] => None,
            [(x, y)] => (*x > 0.0).then(|| (y / x, 0.0)),
            _ => least_squares_line(&pts),
        };
        match slope_intercept {
            Some((a, b)) if a > 0.0 && a.is_finite() && b.is_finite() => ((1.0 - b) / a).max(0.0),
            _ => f64::INFINITY,
        }
    }

    /// CPU the dedicated nodes make available, cores (all of it: they are the job's).
    fn dedicated_cpu(&self) -> f64 {
        f64::from(self.config.dedicated) * self.config.cpu_max
    }

    /// The smallest number of the best candidates whose contributions reach `cpu` cores.
    fn size_for_cpu(&self, cpu: f64) -> usize {
        let mut sum = 0.0;
        for (i, c) in self.sorted.iter().enumerate() {
            if sum >= cpu {
                return i;
            }
            sum += c.contribution();
        }
        self.sorted.len()
    }

    fn observe_profile(&mut self, profile: ProfileReport) -> Result<(), ParamError> {
        let estimate =
            SaturationEstimate::new(profile.bw_util, self.config.cpu_max, self.config.dedicated)?;
        ParamError::check(
            profile.dedicated_cpu.is_finite() && profile.dedicated_cpu > 0.0,
            "dedicated_cpu",
            profile.dedicated_cpu,
            "must be finite and > 0",
        )?;
        ParamError::check(
            profile.slot_memory_mb > 0,
            "slot_memory_mb",
            profile.slot_memory_mb,
            "must be > 0",
        )?;
        self.completion = self.completion.with_task_s(profile.task_s);
        self.disk
            .push_back((profile.dedicated_cpu, profile.bw_util));
        self.estimate = Some(estimate);
        self.profile = Some(profile);
        Ok(())
    }

    fn observe_period(&mut self, at: Time, period: &PeriodReport) {
        if self.profile.is_none() {
            return; // the profiling run itself: the profile carries it
        }
        if self.samples.len() == self.config.max_samples
            && let Some(old) = self.samples.pop_front()
        {
            self.weighted.changed(old, false);
        }
        if period.cpu_available.is_finite() && period.cpu_consumed.is_finite() {
            let sample = (at, period.cpu_available, period.cpu_consumed);
            self.samples.push_back(sample);
            self.weighted.changed(sample, true);
            if self.disk.len() == self.config.max_samples {
                self.disk.pop_front();
            }
            self.disk
                .push_back((period.cpu_consumed, period.max_disk_util));
        }
        self.saturated = period.max_disk_util >= self.config.saturation_util;
        if let Some(t) = period.task_s {
            self.completion = self.completion.with_task_s(t);
        }
    }

    fn model<'a>(
        &'a self,
        now: Time,
        curve: Option<&'a IoCurve>,
        ceiling_cpu: f64,
        progress: &'a Progress,
    ) -> SearchModel<'a> {
        SearchModel {
            now,
            dedicated: self.config.dedicated as usize,
            dedicated_cpu: self.dedicated_cpu(),
            cpu_max: self.config.cpu_max,
            curve,
            ceiling_cpu,
            progress,
            completion: &self.completion,
            goal: &self.config.goal,
            current: self.selection.members().len(),
        }
    }

    /// The configured search ([`SearchMethod`]) over the sorted candidates from the current
    /// size.
    fn search(&self, model: &SearchModel<'_>) -> Evaluation {
        match self.config.search {
            SearchMethod::Exhaustive => exhaustive_search(model, &self.sorted),
            SearchMethod::Annealing { steps, seed } => {
                let index = u64::try_from(model.now.0).unwrap_or(0);
                let mut rng = SeedStreams::new(seed).stream("annealing", index);
                annealing_search(model, &self.sorted, model.current, steps, &mut rng)
            }
        }
    }

    /// Algorithm 1's next size, or `None` once it has stopped.
    fn scaling_size(&mut self, progress: &Progress) -> Option<(u32, usize)> {
        let Scaling::Period(period) = self.scaling else {
            return None;
        };
        let estimate = self.estimate?;
        if matches!(self.config.goal, Goal::Deadline(_)) || !self.config.initial_scaling {
            self.scaling = Scaling::Done; // §4.2: unnecessary for deadlines
            return None;
        }
        // Line 6: the ideal ignoring I/O (the goal's best size if the job were CPU-bound).
        let ceiling = match self.dmr_ceiling {
            Some(c) => c,
            None => {
                let model = self.model(Time(0), None, f64::INFINITY, progress);
                let c = if progress.rate().is_some() {
                    self.search(&model).size
                } else {
                    self.sorted.len()
                };
                self.dmr_ceiling = Some(c);
                c
            }
        };
        let current = self.selection.members().len();
        // Line 8: stop on saturation or at the ceiling.
        if period > 1 && (self.saturated || current >= ceiling) {
            self.scaling = Scaling::Done;
            return None;
        }
        let volunteer_cpu = |cpu: f64| cpu.max(0.0);
        let size = match period {
            1 => self.size_for_cpu(estimate.worst_case_cpu),
            2 => self.size_for_cpu(volunteer_cpu(
                (estimate.best_case_cpu + estimate.worst_case_cpu) / 2.0,
            )),
            3 if ceiling < self.size_for_cpu(estimate.best_case_cpu) => ceiling,
            3 => self.size_for_cpu(volunteer_cpu(
                self.extrapolated_saturation_cpu() - self.profile.map_or(0.0, |p| p.dedicated_cpu),
            )),
            _ => {
                let used: f64 = self.sorted[..current.min(self.sorted.len())]
                    .iter()
                    .map(Candidate::contribution)
                    .sum();
                self.size_for_cpu(used + estimate.worst_case_cpu)
            }
        };
        self.scaling = Scaling::Period(period + 1);
        Some((period, size.min(ceiling)))
    }

    fn boundary(&mut self, now: Time, progress: &Progress) -> Sizing {
        if self.profile.is_none() {
            self.selection.clear();
            return Sizing::empty(now, SizingKind::Profiling);
        }
        let (kind, size, estimate_s, score) = match self.scaling_size(progress) {
            Some((period, size)) => (SizingKind::Scaling(period), size, None, None),
            None => {
                let mut weighted = std::mem::take(&mut self.weighted);
                let curve = self.io_curve_with(now, &mut weighted);
                self.weighted = weighted;
                let ceiling = self.extrapolated_saturation_cpu();
                let best = self.search(&self.model(now, curve.as_ref(), ceiling, progress));
                (
                    SizingKind::Search,
                    best.size,
                    Some(best.estimate_s),
                    Some(best.score),
                )
            }
        };
        self.selection.resize_listed(size);
        self.selection
            .replace_listed(self.config.replacement_threshold);
        Sizing {
            at: now,
            volunteers: self.selection.members().to_vec(),
            estimate_s,
            score,
            kind,
        }
    }

    /// The last decision between period ends: volunteers that left (`dropped`) replaced from
    /// the best unused, up to the pool's `size` before they did.
    fn defer(&mut self, last: Sizing, size: usize, dropped: bool) -> Sizing {
        if dropped {
            self.selection.resize_listed(size);
        }
        let mut volunteers = last.volunteers;
        volunteers.clear();
        volunteers.extend_from_slice(self.selection.members());
        Sizing {
            volunteers,
            kind: if dropped {
                SizingKind::Replaced
            } else {
                SizingKind::Deferred
            },
            ..last
        }
    }
}

impl Rhic {
    /// A boundary decision (Algorithm 1's next period, or the search) when `now` is at least
    /// one interval past the last boundary, else the deferred last decision.
    fn decide(&mut self, now: Time, progress: &Progress, point: ProgressPoint) {
        let size = self.selection.members().len();
        let dropped = self.refresh_sorted();
        let sizing = match self.last.take() {
            Some(last) if point == ProgressPoint::BetweenPeriods => self.defer(last, size, dropped),
            _ => self.boundary(now, progress),
        };
        if matches!(sizing.kind, SizingKind::Scaling(_)) {
            self.scaling_periods += 1;
        }
        self.last = Some(sizing);
    }
}

impl Policy for Rhic {
    type Observation = Observation;
    type Command = Command;
    type View = ();
    type Error = ParamError;

    /// Takes one observation; on [`Observation::Progress`], decides and appends the pool's
    /// changes. An error for an invalid profile.
    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        _: &(),
        out: &mut Vec<Command>,
    ) -> Result<(), ParamError> {
        self.commanded.observe(observation);
        if let Some(changed) = self.cloud.apply(now, observation) {
            if let (Some(node), Some(s)) = (changed, self.screened.as_mut()) {
                s.changed.insert(node);
            }
            return Ok(());
        }
        match *observation {
            Observation::Profile(p) => self.observe_profile(p)?,
            Observation::Period(ref p) => self.observe_period(now, p),
            Observation::Progress {
                ref progress,
                point,
            } => {
                self.decide(now, progress, point);
                let target = self.last.as_ref().map_or(&[][..], |s| &s.volunteers[..]);
                self.commanded.move_to(target, out);
            }
            _ => {}
        }
        Ok(())
    }
}

/// Least-squares line `y = a x + b` through `pts` (ndarray normal equations); `None` when the
/// `x` do not vary.
fn least_squares_line(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    use ndarray::{Array1, Array2};
    let n = pts.len();
    let x = Array2::from_shape_fn((n, 2), |(i, j)| if j == 0 { pts[i].0 } else { 1.0 });
    let y = Array1::from_iter(pts.iter().map(|p| p.1));
    let xtx = x.t().dot(&x);
    let xty = x.t().dot(&y);
    let det = xtx[[0, 0]] * xtx[[1, 1]] - xtx[[0, 1]] * xtx[[1, 0]];
    if det.abs() <= f64::EPSILON * xtx[[0, 0]].abs().max(1.0) {
        return None;
    }
    let a = (xtx[[1, 1]] * xty[0] - xtx[[0, 1]] * xty[1]) / det;
    let b = (xtx[[0, 0]] * xty[1] - xtx[[1, 0]] * xty[0]) / det;
    Some((a, b))
}
