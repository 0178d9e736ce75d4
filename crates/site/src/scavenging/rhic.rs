//! [`RhicSizer`]: the scavenging pool sized by any policy of RHIC's protocol (Clay et al.;
//! `cosched_rhic::policy`) on the site's residual capacity.

use std::collections::{BTreeMap, BTreeSet};

use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId, Time};
use cosched_rhic::policy::{
    Command as RCommand, Observation as RObs, PeriodReport, ProfileReport, ProgressPoint,
};
use cosched_rhic::{CostModel, Goal, PowerModel, Progress, Rhic, RhicConfig};
use serde::{Deserialize, Serialize};

use super::{PoolCycle, ScavengingCommand, Sizer};
use crate::{IdleKey, SiteError, SiteState};

/// The parameters under which RHIC sizes the scavenging pool ([`RhicSizer`]).
///
/// RHIC's job runs on `D` dedicated nodes that hold all of its storage, plus volunteers on
/// residual capacity (§3). Here the job is the pool's outstanding work; its `D` dedicated
/// nodes are the pool's base, the first idle nodes it borrows while work is outstanding
/// (ours: the site has no node of the pool's own), and the volunteers are further batch-idle
/// nodes, one slot each (a node is `CPU_max` = 1). The site does not model the storage's
/// disks: their utilisation is Eq. 1's linear assumption, `bw_util` per `D` running tasks, so
/// RHIC's saturation point is `0.9 · D / bw_util` running tasks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RhicSizing {
    /// What RHIC minimises: cost at the paper's prices ($1.00/h per dedicated node,
    /// $0.42/h per volunteer, §5) by default, or energy.
    pub goal: Goal,
    /// `D`, the pool's base nodes (ours: 1).
    pub dedicated: u32,
    /// The profile's `BWUtil_avg` (§4.1): the hosts' disk utilisation with `D` tasks
    /// running (ours: 0.01, saturating near 90 running tasks per host).
    pub bw_util: f64,
    /// The profile's average task length, for the straggler padding (§4.3; ours: the
    /// default bags' median, 30 min).
    pub task: Duration,
    /// RHIC's evaluation interval (§4.1: one minute, the negotiator's default cycle); a
    /// lent node's setup is one interval too (it gets a task at the next negotiation, ours).
    pub interval: Duration,
}

impl Default for RhicSizing {
    fn default() -> Self {
        RhicSizing {
            goal: Goal::Cost(CostModel::default()),
            dedicated: 1,
            bw_util: 0.01,
            task: crate::BagOfTasks::default().median,
            interval: Duration(60),
        }
    }
}

/// The site as an executor of RHIC's protocol (`cosched_rhic::policy`): every negotiation
/// cycle it lends the pool's `D` base nodes while work is outstanding ([`RhicSizing`]), hands
/// the controller the residual capacity the pool can use (batch-idle nodes read as idle
/// interactive nodes, up to a slot per unfinished task; every other node gone: a node is
/// read when it becomes a candidate, its reading unchanged while it stays one, and a cycle
/// looks only at the nodes whose batch-idle state changed since the last,
/// [`SiteState::batch_idle_changes`], and at the volunteers the policy sent away), the period's
/// measurements and the pool's progress (checkpoints and running tasks' work included, as
/// Hadoop counts its tasks'), and applies the pool's changes: a `Join` lends the node, a
/// `Leave` recalls it (its task, if any, is evicted to its last checkpoint: the site's
/// tasks do not drain). The nodes lent are always batch-idle and within RHIC's last decision
/// (`D` + its volunteers). The policy is any of RHIC's protocol, untouched: RHIC's
/// controller by default ([`RhicSizer::new`]), or [`RhicSizer::with_policy`].
///
/// ```
/// use cosched_albatross::policy::NoScaling;
/// use cosched_core::{Duration, Time};
/// use cosched_site::{HtcPool, OnDemandRole, QueueAsBatch, RhicSizer, RhicSizing, Roles, Site,
///                    SiteConfig, SiteError, SiteWorkload, Task};
///
/// // Ten one-hour tasks on an idle 16-node site, the pool sized by RHIC (cost goal).
/// let task = |id| Task { id, bag: 0, submit: Time(0), work: Duration(3_600), ad: 0 };
/// let workload = SiteWorkload { tasks: (0..10).map(task).collect(), ..SiteWorkload::default() };
/// let roles = Roles {
///     batch: Box::new(cosched_batch::scenario::easy()),
///     on_demand: OnDemandRole::site(QueueAsBatch),
///     scavenging: Some(Box::new(HtcPool::new(RhicSizer::new(RhicSizing::default())?, NoScaling))),
/// };
/// let report = Site::new(SiteConfig::new(16, Time(20_000)), roles, workload)?.run()?;
/// assert_eq!(report.scavenged_completed, 10);
/// # Ok::<(), SiteError>(())
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RhicSizer<P = Rhic> {
    policy: P,
    sizing: RhicSizing,
    /// The pool's base nodes, standing for RHIC's dedicated nodes.
    base: BTreeSet<NodeId>,
    /// The nodes RHIC knows as candidates (batch-idle at the last cycle).
    candidates: BTreeSet<NodeId>,
    /// The nodes lent by the policy's commands and not taken back since.
    lent: BTreeSet<NodeId>,
    /// The volunteers the policy asked for (joined and not left), `None` before it first
    /// answered.
    asked: Option<BTreeSet<NodeId>>,
    /// When the pool first had work: RHIC's job started (and its profile was reported).
    started: Option<Time>,
    /// The last cycle: when, nodes lent after it, work done (unfinished tasks' included),
    /// whether work was left.
    last: Option<(Time, usize, f64, bool)>,
    /// Seconds with work outstanding since the start, and the CPU consumed over them.
    busy_s: i64,
    cpu_s: f64,
    /// The last report RHIC took as a period end (one per its interval).
    #[serde(default)]
    period_end: Option<Time>,
    /// The candidates not lent, kept from cycle to cycle (`None`: read afresh next cycle).
    #[serde(skip)]
    read: Option<Read>,
    /// Volunteers the policy sent away since the last cycle (they may stay candidates).
    #[serde(skip)]
    released: Vec<NodeId>,
    #[serde(skip)]
    buf: Vec<RCommand>,
}

/// [`RhicSizer`]'s picture of the residual capacity between cycles: the candidates neither
/// lent nor base, which are exactly the batch-idle nodes neither lent nor base up to `last`
/// in the longest-idle order (a prefix of that order).
#[derive(Clone, Debug, Default)]
struct Read {
    others: BTreeSet<IdleKey>,
    key: BTreeMap<NodeId, IdleKey>,
    /// How far the order has been read.
    last: Option<IdleKey>,
}

impl Read {
    fn insert(&mut self, k: IdleKey, n: NodeId) {
        self.others.insert(k);
        self.key.insert(n, k);
    }

    fn remove(&mut self, n: NodeId) -> bool {
        match self.key.remove(&n) {
            Some(k) => self.others.remove(&k),
            None => false,
        }
    }
}

impl RhicSizer {
    /// RHIC (the paper's controller, Algorithm 1 then the exhaustive search, its defaults of
    /// [`RhicConfig::new`]) under `sizing`.
    ///
    /// # Errors
    /// A parameter out of range ([`Rhic::new`]), or `bw_util` outside `(0, 1]`.
    pub fn new(sizing: RhicSizing) -> Result<RhicSizer, SiteError> {
        let mut config = RhicConfig::new(sizing.dedicated, 1.0, sizing.goal);
        config.interval = sizing.interval;
        config.setup = sizing.interval;
        RhicSizer::with_policy(Rhic::new(config)?, sizing)
    }
}

impl<P> RhicSizer<P>
where
    P: Policy<Observation = RObs, Command = RCommand, View = ()>,
    P::Error: std::fmt::Display,
{
    /// Any policy of RHIC's protocol sizing the pool under `sizing` (its `D`, profile and
    /// prices; a node is one core, `CPU_max` = 1): RHIC's controller ([`RhicSizer::new`]),
    /// its baselines ([`cosched_rhic::baseline::Baseline`]: FUZZY, Threshold, Fixed) or one's
    /// own.
    ///
    /// # Errors
    /// `bw_util` outside `(0, 1]`.
    pub fn with_policy(policy: P, sizing: RhicSizing) -> Result<RhicSizer<P>, SiteError> {
        cosched_core::ParamError::check(
            sizing.bw_util > 0.0 && sizing.bw_util <= 1.0,
            "bw_util",
            sizing.bw_util,
            "must be in (0, 1]",
        )?;
        Ok(RhicSizer {
            policy,
            sizing,
            base: BTreeSet::new(),
            candidates: BTreeSet::new(),
            lent: BTreeSet::new(),
            asked: None,
            started: None,
            last: None,
            busy_s: 0,
            cpu_s: 0.0,
            period_end: None,
            read: None,
            released: Vec::new(),
            buf: Vec::new(),
        })
    }

    /// The policy (RHIC's controller: its last sizing, its periods of Algorithm 1).
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The policy's last decision: the pool's size, its `D` dedicated nodes and the
    /// volunteers it asked for (`None` before its first).
    pub fn decision(&self) -> Option<usize> {
        let d = self.sizing.dedicated as usize;
        self.asked.as_ref().map(|a| d + a.len())
    }

    /// The nodes lent (base and volunteers) and not taken back.
    pub fn lent(&self) -> usize {
        self.base.len() + self.lent.len()
    }

    /// Drops the candidates kept between cycles: the next cycle reads the idle nodes afresh
    /// (the observations are the same either way).
    pub fn read_afresh(&mut self) {
        self.read = None;
    }

    /// The residual capacity the pool can use this cycle (its volunteers, then the `want`
    /// idle nodes neither lent nor base that batch would take last) brought up to date from
    /// the site's changes since the last cycle; the nodes that stopped and started being
    /// candidates. `None` when it must be read afresh.
    fn update(&mut self, view: &SiteState, want: usize) -> Option<(Vec<NodeId>, Vec<NodeId>)> {
        let changes = view.batch_idle_changes()?;
        let read = self.read.as_mut()?;
        let mut gone = Vec::new();
        for &n in changes {
            // Not idle any more, or idle again since (a new place at the end of the order).
            if read
                .key
                .get(&n)
                .is_some_and(|&k| view.batch_idle_key(n) != Some(k))
            {
                read.remove(n);
                gone.push(n);
            }
        }
        for n in self.released.drain(..) {
            if self.lent.contains(&n) || self.base.contains(&n) || !self.candidates.contains(&n) {
                continue;
            }
            match view.batch_idle_key(n) {
                Some(k) if read.last.is_some_and(|last| k <= last) => read.insert(k, n),
                _ => gone.push(n),
            }
        }
        while read.others.len() > want {
            if let Some(k) = read.others.pop_last() {
                read.key.remove(&k.node());
                gone.push(k.node());
            }
            read.last = read.others.last().copied();
        }
        let mut new = Vec::new();
        if read.others.len() < want {
            for (k, n) in view.batch_idle_after(read.last) {
                read.last = Some(k);
                if !self.lent.contains(&n) && !self.base.contains(&n) {
                    read.insert(k, n);
                    if !self.candidates.contains(&n) {
                        new.push(n);
                    }
                    if read.others.len() == want {
                        break;
                    }
                }
            }
        }
        // A node that left and came back within the cycle stays a candidate.
        gone.retain(|n| !read.key.contains_key(n));
        for n in &gone {
            self.candidates.remove(n);
        }
        self.candidates.extend(new.iter().copied());
        gone.sort_unstable();
        gone.dedup();
        new.sort_unstable();
        Some((gone, new))
    }

    /// [`RhicSizer::update`] afresh: the first `want` idle nodes neither lent nor base, in
    /// the longest-idle order, against the candidates of the last cycle.
    fn read_all(&mut self, view: &SiteState, want: usize) -> (Vec<NodeId>, Vec<NodeId>) {
        let mut read = Read::default();
        if want > 0 {
            for (k, n) in view.batch_idle_after(None) {
                read.last = Some(k);
                if !self.lent.contains(&n) && !self.base.contains(&n) {
                    read.insert(k, n);
                    if read.others.len() == want {
                        break;
                    }
                }
            }
        }
        let gone: Vec<NodeId> = self
            .candidates
            .iter()
            .filter(|n| !self.lent.contains(n) && !read.key.contains_key(n))
            .copied()
            .collect();
        let new: Vec<NodeId> = read
            .key
            .keys()
            .filter(|n| !self.candidates.contains(n))
            .copied()
            .collect();
        for n in &gone {
            self.candidates.remove(n);
        }
        self.candidates.extend(new.iter().copied());
        self.released.clear();
        self.read = Some(read);
        (gone, new)
    }

    fn feed(&mut self, now: Time, obs: &RObs) -> Result<(), SiteError> {
        if let (RObs::Left(n), Some(asked)) = (obs, self.asked.as_mut()) {
            asked.remove(n);
        }
        if let RObs::Progress { .. } = obs {
            self.asked.get_or_insert_with(BTreeSet::new);
        }
        self.policy
            .observe(now, obs, &(), &mut self.buf)
            .map_err(|e| SiteError::role("scavenging (RHIC protocol)", e))
    }

    /// The prices the periods are billed at: the goal's, else the paper's.
    fn cost(&self) -> CostModel {
        match self.sizing.goal {
            Goal::Cost(m) => m,
            _ => CostModel::default(),
        }
    }

    /// The power the periods are billed at: the goal's, else the paper's ARC node.
    fn power(&self) -> PowerModel {
        match self.sizing.goal {
            Goal::Energy(p) => p,
            _ => PowerModel::arc(),
        }
    }
}

impl<P> Sizer for RhicSizer<P>
where
    P: Policy<Observation = RObs, Command = RCommand, View = ()>,
    P::Error: std::fmt::Display,
{
    /// One cycle: the policy's observations, then its pool changes as site commands. The
    /// pool borrows only what the policy lent this cycle: returns how many nodes it lent.
    fn size(
        &mut self,
        now: Time,
        cycle: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<u32, SiteError> {
        // The residual capacity: lost volunteers and busy nodes leave, idle nodes read idle.
        for &n in &cycle.revoked {
            self.base.remove(&n);
            self.lent.remove(&n);
            if self.candidates.remove(&n) {
                self.feed(now, &RObs::Left(n))?;
            }
        }
        let work = cycle.work_left_s > 0.0;
        let mut lent_now = 0;
        // The base: the `D` longest-idle nodes while work is outstanding, all given back when
        // none is (they run no task then). Either change reads the idle nodes afresh.
        let missing = (self.sizing.dedicated as usize).saturating_sub(self.base.len());
        if work && missing > 0 {
            let take: Vec<NodeId> = view
                .batch_idle_longest_first()
                .filter(|n| !self.lent.contains(n) && !self.base.contains(n))
                .take(missing)
                .collect();
            if !take.is_empty() {
                self.read = None;
            }
            for n in take {
                self.base.insert(n);
                out.push(ScavengingCommand::LendNode(n));
                lent_now += 1;
            }
        }
        let recalled = if work {
            BTreeSet::new()
        } else {
            out.extend(self.base.iter().map(|&n| ScavengingCommand::RecallNode(n)));
            if !self.base.is_empty() {
                self.read = None;
            }
            std::mem::take(&mut self.base)
        };
        // The residual capacity the pool can use: its volunteers, then the idle nodes batch
        // would take last, up to a slot per unfinished task (the negotiator claims no more).
        // Only the nodes that became or stopped being candidates are read: a batch-idle
        // node's reading (no foreground, its one slot) does not change while it stays one.
        let demand = (cycle.queued + cycle.running).saturating_sub(self.base.len());
        let want = demand.saturating_sub(self.lent.len());
        let (gone, new) = match self.update(view, want) {
            Some(changed) => changed,
            None => {
                // The base just given back is not read this cycle.
                self.base.extend(recalled.iter().copied());
                let changed = self.read_all(view, want);
                self.base.retain(|n| !recalled.contains(n));
                if !recalled.is_empty() {
                    self.read = None;
                }
                changed
            }
        };
        for n in gone {
            self.feed(now, &RObs::Left(n))?;
        }
        for node in new {
            // One slot per node: a whole node, one unit of memory for one unit per slot.
            let reading = RObs::Node {
                node,
                cores: 1.0,
                foreground_cpu: 0.0,
                free_memory_mb: 1,
            };
            self.feed(now, &reading)?;
        }
        let (d, dedicated) = (
            self.sizing.dedicated as usize,
            f64::from(self.sizing.dedicated),
        );
        if self.started.is_none() && work {
            self.started = Some(now);
            let profile = ProfileReport {
                bw_util: self.sizing.bw_util,
                dedicated_cpu: dedicated,
                slot_memory_mb: 1,
                task_s: self.sizing.task.0 as f64,
            };
            self.feed(now, &RObs::Profile(profile))?;
        }
        if self.started.is_some() {
            if let Some((at, lent, done, had_work)) = self.last {
                let dt = now.checked_since(at).unwrap_or(Duration::ZERO).0;
                // The tasks running now are those the last cycle's nodes took (the cycle
                // dispatches before it reports), less the ones that ended since.
                let running = cycle.running;
                let consumed = running as f64;
                if had_work {
                    self.busy_s += dt;
                    self.cpu_s += consumed * dt as f64;
                }
                if dt > 0 {
                    let seconds = dt as f64;
                    let period = PeriodReport {
                        seconds,
                        cpu_available: lent as f64,
                        cpu_consumed: consumed,
                        max_disk_util: (self.sizing.bw_util * consumed / dedicated).min(1.0),
                        task_s: None,
                        work: cycle.work_done_s + cycle.work_partial_s - done,
                        usd: self.cost().usd_per_s(d, lent.saturating_sub(d)) * seconds,
                        joules: self
                            .power()
                            .pool_w(d, (running as f64 - dedicated).max(0.0), 1.0)
                            * seconds,
                    };
                    self.feed(now, &RObs::Period(period))?;
                }
            }
            let cpu = if self.busy_s > 0 {
                self.cpu_s / self.busy_s as f64
            } else {
                0.0
            };
            // Progress counts the unfinished tasks' work, as Hadoop's does its tasks'.
            let progress = Progress::new(
                (cycle.work_done_s + cycle.work_partial_s).max(0.0),
                (cycle.work_left_s - cycle.work_partial_s).max(0.0),
                Duration(self.busy_s),
                cpu,
            )?;
            // A period end once per RHIC's interval; the cycles between report in between.
            let interval = self.sizing.interval;
            let point = if self
                .period_end
                .is_none_or(|t| now >= t.saturating_add(interval))
            {
                self.period_end = Some(now);
                ProgressPoint::PeriodEnd
            } else {
                ProgressPoint::BetweenPeriods
            };
            self.feed(now, &RObs::Progress { progress, point })?;
        }
        for c in self.buf.drain(..) {
            if let Some(asked) = self.asked.as_mut() {
                match c {
                    RCommand::Join(a) => asked.insert(a.node),
                    RCommand::Leave(n) => asked.remove(&n),
                    RCommand::Resize(_) => false,
                };
            }
            match c {
                RCommand::Join(a) if self.candidates.contains(&a.node) => {
                    if self.lent.insert(a.node) {
                        if let Some(read) = self.read.as_mut() {
                            read.remove(a.node);
                        }
                        out.push(ScavengingCommand::LendNode(a.node));
                        lent_now += 1;
                    }
                }
                RCommand::Leave(n) => {
                    if self.lent.remove(&n) {
                        self.released.push(n);
                        out.push(ScavengingCommand::RecallNode(n));
                    }
                }
                // A node is one slot: nothing to resize.
                RCommand::Join(_) | RCommand::Resize(_) => {}
            }
        }
        let done = cycle.work_done_s + cycle.work_partial_s;
        self.last = Some((now, self.lent(), done, work));
        Ok(lent_now)
    }
}
