//! The scavenging role: its protocol, and the built-in high-throughput pool policy.
//!
//! Idle batch nodes are **lent on availability** to a high-throughput pool: a lent node
//! stays idle in the batch cluster, so batch (and on-demand, and malleable expansion) take it
//! back whenever they want it, and the scavenged task on it is evicted, losing its work since
//! its last checkpoint. Scavenged tasks are matched to slots by ClassAds (`cosched-classad`,
//! HTCondor's symmetric match: both `Requirements` true) by the site's negotiator, every
//! negotiation cycle; after each cycle the role's policy is told what happened
//! ([`PoolCycle`]) and answers with [`ScavengingCommand`]s: lend or recall nodes, start or
//! stop cloud instances.
//!
//! [`HtcPool`] is the built-in policy: it sizes the pool ([`Sizer`]: every idle node while
//! tasks wait, HTCondor's default of each idle machine advertising a slot, or RHIC's
//! controller, [`RhicSizer`]) and hands the cloud decision to any policy of Albatross's
//! protocol ([`cosched_albatross::policy::Albatross`] under a capital budget, or
//! [`cosched_albatross::policy::NoScaling`]).

use cosched_albatross::policy::{
    AlbatrossPolicy, CloudNodeView, Command as ACommand, Observation as AObs,
};
use cosched_albatross::pool::InstanceType;
use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId, Time};
use cosched_rhic::policy::{
    Command as RCommand, Observation as RObs, PeriodReport, ProfileReport, ProgressPoint,
};
use cosched_rhic::{CostModel, Goal, PowerModel, Progress, Rhic, RhicConfig};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

use crate::{SiteError, SiteState};

/// What one negotiation cycle left behind: the observation of the scavenging protocol.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PoolCycle {
    /// Tasks dispatched since the last cycle.
    pub dispatched: usize,
    /// Tasks waiting for a slot.
    pub queued: usize,
    /// Tasks running (site and cloud).
    pub running: usize,
    /// Batch-idle site nodes not lent (what the pool could still borrow).
    pub lendable: u32,
    /// Site nodes lent to the pool.
    pub lent: u32,
    /// Lent site nodes running no task.
    pub lent_free: u32,
    /// Lent nodes the owners took back since the last cycle (evictions or not).
    pub revoked: Vec<NodeId>,
    /// The live cloud nodes (their ids number the cloud instances, apart from site nodes).
    pub cloud_nodes: Vec<CloudNodeView>,
    /// Reference seconds of scavenged work completed so far (goodput).
    pub work_done_s: f64,
    /// Reference seconds of scavenged work submitted and not completed.
    pub work_left_s: f64,
    /// Of `work_left_s`, what is done already: the unfinished tasks' checkpoints and the
    /// running ones' work since their last start (the pool's progress between completions).
    pub work_partial_s: f64,
    /// The cloud's instance types, in the site's order (a cloud start's `instance`).
    pub instance_types: Vec<InstanceType>,
}

/// What the scavenging role asks of the site, applied in order after the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScavengingCommand {
    /// Lend up to `count` unlent batch-idle nodes (the longest idle first).
    Lend {
        /// How many.
        count: u32,
    },
    /// Lend this node if it is batch-idle and unlent (ignored otherwise: it may have been
    /// taken since the view was read).
    LendNode(NodeId),
    /// Give back up to `count` lent nodes that run no task.
    Recall {
        /// How many.
        count: u32,
    },
    /// Give this lent node back (its task, if any, is evicted).
    RecallNode(NodeId),
    /// Start `count` cloud instances of type `instance`, each staying `lifetime` once up.
    CloudStart {
        /// The instance type's index in the site's instance types.
        instance: usize,
        /// How many.
        count: u32,
        /// How long each stays in the pool.
        lifetime: Duration,
    },
    /// Stop this cloud node now (its tasks are checkpointed and requeued).
    CloudStop(NodeId),
}

/// A policy of the scavenging role: any [`Policy`] with these types.
pub trait ScavengingPolicy:
    Policy<Observation = PoolCycle, Command = ScavengingCommand, View = SiteState, Error = SiteError>
{
}

impl<P> ScavengingPolicy for P where
    P: Policy<
            Observation = PoolCycle,
            Command = ScavengingCommand,
            View = SiteState,
            Error = SiteError,
        > + ?Sized
{
}

/// How [`HtcPool`] sizes its share of the idle nodes. (Any other sizing is another
/// [`ScavengingPolicy`]: the protocol's `Lend`, `LendNode`, `Recall` and `RecallNode`
/// commands are what it needs.)
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Sizer {
    /// Every idle node while tasks wait (HTCondor's default: an idle machine advertises its
    /// slot); free lent nodes go back when nothing waits.
    HarvestAll,
    /// RHIC's controller (Clay et al. §4) on the residual capacity ([`RhicSizer`]).
    Rhic(Box<RhicSizer>),
}

impl Sizer {
    /// RHIC's controller under `sizing` ([`RhicSizer::new`]).
    ///
    /// # Errors
    /// A parameter out of range.
    pub fn rhic(sizing: RhicSizing) -> Result<Sizer, SiteError> {
        Ok(Sizer::Rhic(Box::new(RhicSizer::new(sizing)?)))
    }
}

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
/// interactive nodes, up to a slot per unfinished task; every other node gone), the period's
/// measurements and the pool's progress (checkpoints and running tasks' work included, as
/// Hadoop counts its tasks'), and applies the pool's changes: a `Join` lends the node, a
/// `Leave` recalls it (its task, if any, is evicted to its last checkpoint: the site's
/// tasks do not drain). The nodes lent are always batch-idle and within RHIC's last decision
/// (`D` + its volunteers); RHIC's algorithm is `cosched_rhic::Rhic`'s, untouched.
///
/// ```
/// use cosched_albatross::policy::NoScaling;
/// use cosched_core::{Duration, Time};
/// use cosched_site::{HtcPool, QueueAsBatch, RhicSizing, Roles, Site, SiteConfig,
///                    SiteError, SiteWorkload, Sizer, Task};
///
/// // Ten one-hour tasks on an idle 16-node site, the pool sized by RHIC (cost goal).
/// let task = |id| Task { id, bag: 0, submit: Time(0), work: Duration(3_600), ad: 0 };
/// let workload = SiteWorkload { tasks: (0..10).map(task).collect(), ..SiteWorkload::default() };
/// let roles = Roles {
///     batch: Box::new(cosched_batch::scenario::easy()),
///     on_demand: Box::new(QueueAsBatch),
///     scavenging: Some(Box::new(HtcPool::new(Sizer::rhic(RhicSizing::default())?, NoScaling))),
/// };
/// let report = Site::new(SiteConfig::new(16, Time(20_000)), roles, workload)?.run()?;
/// assert_eq!(report.scavenged_completed, 10);
/// # Ok::<(), SiteError>(())
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RhicSizer {
    rhic: Rhic,
    sizing: RhicSizing,
    /// The pool's base nodes, standing for RHIC's dedicated nodes.
    base: BTreeSet<NodeId>,
    /// The nodes RHIC knows as candidates (batch-idle at the last cycle).
    candidates: BTreeSet<NodeId>,
    /// The nodes lent by RHIC's commands and not taken back since.
    lent: BTreeSet<NodeId>,
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
    #[serde(skip)]
    buf: Vec<RCommand>,
}

impl RhicSizer {
    /// RHIC (the paper's controller, Algorithm 1 then the exhaustive search, its defaults of
    /// [`RhicConfig::new`]) under `sizing`.
    ///
    /// # Errors
    /// A parameter out of range ([`Rhic::new`]), or `bw_util` outside `(0, 1]`.
    pub fn new(sizing: RhicSizing) -> Result<RhicSizer, SiteError> {
        cosched_core::ParamError::check(
            sizing.bw_util > 0.0 && sizing.bw_util <= 1.0,
            "bw_util",
            sizing.bw_util,
            "must be in (0, 1]",
        )?;
        let mut config = RhicConfig::new(sizing.dedicated, 1.0, sizing.goal);
        config.interval = sizing.interval;
        config.setup = sizing.interval;
        Ok(RhicSizer {
            rhic: Rhic::new(config)?,
            sizing,
            base: BTreeSet::new(),
            candidates: BTreeSet::new(),
            lent: BTreeSet::new(),
            started: None,
            last: None,
            busy_s: 0,
            cpu_s: 0.0,
            period_end: None,
            buf: Vec::new(),
        })
    }

    /// The controller (its last sizing, its periods of Algorithm 1).
    pub fn controller(&self) -> &Rhic {
        &self.rhic
    }

    /// RHIC's last decision: the pool's size, its `D` dedicated nodes and the volunteers it
    /// wants (`None` before its first).
    pub fn decision(&self) -> Option<usize> {
        let d = self.sizing.dedicated as usize;
        self.rhic.last_sizing().map(|s| d + s.volunteers.len())
    }

    /// The nodes lent (base and volunteers) and not taken back.
    pub fn lent(&self) -> usize {
        self.base.len() + self.lent.len()
    }

    fn feed(&mut self, now: Time, obs: &RObs) -> Result<(), SiteError> {
        self.rhic
            .observe(now, obs, &(), &mut self.buf)
            .map_err(|e| SiteError::role("scavenging (RHIC protocol)", e))
    }

    /// One cycle: RHIC's observations, then its pool changes as site commands. Returns how
    /// many nodes it lent.
    fn cycle(
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
        // none is (they run no task then).
        // The longest idle first, read only as far as the base and the demand go (not every
        // idle node of a large site, each cycle).
        let skip: BTreeSet<NodeId> = self.lent.union(&self.base).copied().collect();
        let mut rest = view
            .batch_idle_longest_first()
            .filter(|n| !skip.contains(n));
        if work {
            let missing = (self.sizing.dedicated as usize).saturating_sub(self.base.len());
            for n in rest.by_ref().take(missing) {
                self.base.insert(n);
                out.push(ScavengingCommand::LendNode(n));
                lent_now += 1;
            }
        } else {
            out.extend(self.base.iter().map(|&n| ScavengingCommand::RecallNode(n)));
            self.base.clear();
        }
        // The residual capacity the pool can use: its volunteers, then the idle nodes batch
        // would take last, up to a slot per unfinished task (the negotiator claims no more).
        let demand = (cycle.queued + cycle.running).saturating_sub(self.base.len());
        let mut idle: BTreeSet<NodeId> = self.lent.clone();
        idle.extend(rest.take(demand.saturating_sub(idle.len())));
        let gone: Vec<NodeId> = self.candidates.difference(&idle).copied().collect();
        for n in gone {
            self.candidates.remove(&n);
            self.lent.remove(&n);
            self.feed(now, &RObs::Left(n))?;
        }
        for &node in &idle {
            self.candidates.insert(node);
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
            match c {
                RCommand::Join(a) if self.candidates.contains(&a.node) => {
                    if self.lent.insert(a.node) {
                        out.push(ScavengingCommand::LendNode(a.node));
                        lent_now += 1;
                    }
                }
                RCommand::Leave(n) => {
                    if self.lent.remove(&n) {
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

/// The built-in scavenging policy (see the [module docs](self)).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HtcPool<C> {
    sizer: Sizer,
    cloud: C,
    #[serde(skip)]
    buf: Vec<ACommand>,
}

impl<C: AlbatrossPolicy> HtcPool<C> {
    /// The pool sized by `sizer`, bursting to the cloud under `cloud`.
    pub fn new(sizer: Sizer, cloud: C) -> Self {
        HtcPool {
            sizer,
            cloud,
            buf: Vec::new(),
        }
    }

    /// How it sizes the pool (RHIC's state, for one).
    pub fn sizer(&self) -> &Sizer {
        &self.sizer
    }
}

impl<C> Policy for HtcPool<C>
where
    C: AlbatrossPolicy,
    C::Error: std::fmt::Display,
{
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = SiteError;

    fn start(
        &mut self,
        now: Time,
        view: &SiteState,
        _: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        self.cloud
            .start(now, view.waiting_ads(), &mut self.buf)
            .map_err(|e| SiteError::role("scavenging (Albatross protocol)", e))?;
        self.buf.clear();
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        cycle: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        // Albatross sees the desktops as the free lent nodes and those the pool may still
        // borrow (under RHIC, only what it lent this cycle).
        let borrowable = match &mut self.sizer {
            Sizer::HarvestAll => {
                let want = cycle.queued.saturating_sub(cycle.lent_free as usize);
                if want > 0 && cycle.lendable > 0 {
                    out.push(ScavengingCommand::Lend {
                        count: u32::try_from(want).unwrap_or(u32::MAX).min(cycle.lendable),
                    });
                } else if cycle.queued == 0 && cycle.lent_free > 0 {
                    out.push(ScavengingCommand::Recall {
                        count: cycle.lent_free,
                    });
                }
                cycle.lendable
            }
            Sizer::Rhic(r) => r.cycle(now, cycle, view, out)?,
        };
        let obs = AObs {
            dispatched: cycle.dispatched,
            cloud_nodes: cycle.cloud_nodes.clone(),
            free_desktop_slots: (cycle.lent_free + borrowable) as usize,
            instance_types: cycle.instance_types.clone(),
        };
        self.cloud
            .observe(now, &obs, view.waiting_ads(), &mut self.buf)
            .map_err(|e| SiteError::role("scavenging (Albatross protocol)", e))?;
        out.extend(self.buf.drain(..).map(|c| match c {
            ACommand::Start {
                instance,
                count,
                lifetime,
            } => ScavengingCommand::CloudStart {
                instance,
                count,
                lifetime,
            },
            ACommand::Stop { node } => ScavengingCommand::CloudStop(node),
        }));
        Ok(())
    }
}
