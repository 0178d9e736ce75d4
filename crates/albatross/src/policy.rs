//! The Albatross scaling policy (the paper's Albatross design section: a starvation detector
//! in the matchmaker and a *capital* parameter that sets how much cloud capacity it may buy).
//!
//! [`Albatross`] is a plain struct with no clock, RNG or I/O implementing the workspace's one
//! policy protocol ([`cosched_core::policy::Policy`]): after every negotiation cycle the
//! executor hands it the time, an [`Observation`] and the queued jobs' ads as the view
//! ([`WaitingJobs`]), and it appends [`Command`]s. The same struct drives the simulator
//! ([`crate::sim`]) and `cosched albatross decide` on a live HTCondor pool; [`NoScaling`] is
//! the paper's no-Albatross baseline, and any other [`AlbatrossPolicy`] runs in the same
//! places.
//!
//! ## Stall detector (§IV-C)
//! A timer restarts on every cycle that dispatched a job. The pool **stalls** when the timer
//! has reached [`AlbatrossConfig::stall_threshold`] while jobs are queued, whether or not any
//! machine is free (free machines may not match the queued jobs). The paper gives no number for
//! its "predetermined time period", but explains Fig. 1's initial lag by it: the flat start is
//! that period "along with the time spent executing the first job" (§V). The default
//! ([`STALL_THRESHOLD`]) is therefore the lag less the first job's run, i.e. the first
//! dispatch of the no-Albatross baseline, derived by the `albatross_calibrate` example from
//! the baseline runs alone. Three points the paper leaves open, fixed here:
//! - the timer also restarts while the queue is empty (nothing is starving then, so the first
//!   job after a quiet spell does not find an already expired timer);
//! - it restarts when Albatross starts nodes (they get one threshold to boot and take work);
//! - no new nodes start while nodes Albatross started are still booting.
//!
//! ## Capital (§IV-F)
//! The capital `c ∈ [0, 1]` ([`Capital`]) selects one row ([`CapitalTier`]) of a
//! [`CapitalTable`]: the first row whose `up_to >= c`. The row fixes the instance type, how
//! many nodes start per stall, the most nodes alive at once, and the node **lifetime**: a node
//! stops that long after joining the pool, its running jobs checkpointed and requeued, and the
//! stall is checked again (§IV-F: "up to one hour, after which, we spin down and check for
//! whether the stall is still present"). `c = 0` selects no row: Albatross never starts a node.
//! [`CapitalTable::paper`] is the default table:
//!
//! | c in | instance (§IV-F: t2.micro below 0.25, then ≈ doubling) | nodes per stall | max nodes | lifetime |
//! |---|---|---|---|---|
//! | (0, 0.25] | t2.micro (1 vCPU, 1 GiB, $0.0116/h) | 1 | 1 | 15 min |
//! | (0.25, 0.5] | t2.small (1 vCPU, 2 GiB, $0.023/h) | 1 | 1 | 30 min |
//! | (0.5, 0.75] | t2.medium (2 vCPU, 4 GiB, $0.0464/h) | 1 | 1 | 45 min |
//! | (0.75, 1] | t2.large (2 vCPU, 8 GiB, $0.0928/h) | 1 | 1 | 60 min |
//!
//! (instance types from [`crate::pool::default_instance_types`]). The lifetime is the row's
//! upper bound × 1 h, so the paper's runs at 0.25 / 0.5 / 0.75 get `c × 1 h` ("a mapping ...
//! up to one hour"); one node at a time is ours (the paper speaks of "a t2.micro instance").
//!
//! ## Spin-down (§III-B, §IV-E)
//! "After the peak load has subsided, and more machines are available/idle, Albatross has the
//! ability to spin down the added dedicated compute nodes if desired": with
//! [`SpinDown::when_desktops_free`] an idle cloud node stops as soon as a desktop slot is free
//! and no job waits. With [`SpinDown::move_back`] ("checkpoint the currently running job on
//! the VM and move it over to a local machine ... if we prefer low cost to performance") busy
//! nodes stop too, as long as the free desktop slots can take their jobs; the jobs are
//! checkpointed and requeued. The default keeps the first and not the second (the paper's
//! alternative: "allow the job to finish executing").
//!
//! ## Executors
//! The policy returns [`Command`]s; [`apply`] hands them to a [`CloudBackend`] — the
//! simulator's cloud ([`crate::sim`]) or a real provider. The policy's state serialises
//! (serde, through [`AlbatrossState`]) so a live driver can run it from cron.
//!
//! ## Sizing (an extension beyond the paper)
//! With [`Sizing::Paper`] (the default) a stall starts the row's instance type and count,
//! whatever the queued jobs need — even if none of them may run in the cloud.
//! [`Sizing::FitWaitingJobs`], **our extension, not in the paper** (§VI names it future work),
//! looks at the queued jobs' ads instead: each job is assigned the row's instance type if a
//! slot of it matches the job (both `Requirements` true), else the cheapest type that matches,
//! else none (it cannot use the cloud); jobs assigned to a type are packed onto its slots, so
//! `ceil(jobs / slots)` nodes start per type, within the row's `max_nodes`.

use crate::classad::{ClassAd, symmetric_match};
use crate::pool::{InstanceType, default_instance_types};
use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId, ParamError, Time};
use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::sync::Arc;

/// The capital parameter `c ∈ [0, 1]`: how much cloud capacity Albatross may buy.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Capital(f64);

impl TryFrom<f64> for Capital {
    type Error = ParamError;
    fn try_from(c: f64) -> Result<Capital, ParamError> {
        Capital::new(c)
    }
}

impl From<Capital> for f64 {
    fn from(c: Capital) -> f64 {
        c.0
    }
}

impl Capital {
    /// No cloud at all.
    pub const ZERO: Capital = Capital(0.0);

    /// `c`, rejected unless finite and in `[0, 1]`.
    pub fn new(c: f64) -> Result<Capital, ParamError> {
        ParamError::check((0.0..=1.0).contains(&c), "capital", c, "must be in [0, 1]")?;
        Ok(Capital(c))
    }

    /// The value of `c`.
    pub fn value(self) -> f64 {
        self.0
    }
}

/// One row of a [`CapitalTable`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapitalTier {
    /// The row applies to capitals in (previous row's `up_to`, `up_to`].
    pub up_to: f64,
    /// Index of the instance type started, in the policy's instance types.
    pub instance: usize,
    /// Nodes started per stall, >= 1.
    pub nodes_per_stall: u32,
    /// Most nodes alive (booting or up) at once, >= `nodes_per_stall`.
    pub max_nodes: u32,
    /// How long each node stays in the pool after joining it, > 0; then it stops, its jobs
    /// checkpointed and requeued.
    pub lifetime: Duration,
}

/// The mapping from capital to scaling parameters (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapitalTable {
    tiers: Vec<CapitalTier>,
}

impl CapitalTable {
    /// A table from its rows, in increasing `up_to`: the bounds must increase strictly within
    /// (0, 1] and end at 1, and every row must be well-formed for `instance_types` types.
    pub fn new(tiers: Vec<CapitalTier>, instance_types: usize) -> Result<CapitalTable, ParamError> {
        ParamError::check(!tiers.is_empty(), "tiers", 0, "needs at least one row")?;
        let mut below = 0.0;
        for t in &tiers {
            ParamError::check(
                t.up_to > below && t.up_to <= 1.0,
                "up_to",
                t.up_to,
                "must increase strictly within (0, 1]",
            )?;
            below = t.up_to;
            ParamError::check(
                t.instance < instance_types,
                "instance",
                t.instance,
                "must index one of the instance types",
            )?;
            ParamError::check(
                t.nodes_per_stall >= 1,
                "nodes_per_stall",
                t.nodes_per_stall,
                "must be >= 1",
            )?;
            ParamError::check(
                t.max_nodes >= t.nodes_per_stall,
                "max_nodes",
                t.max_nodes,
                "must be >= nodes_per_stall",
            )?;
            ParamError::check(
                t.lifetime.secs() > 0,
                "lifetime",
                t.lifetime,
                "must be > 0 s",
            )?;
        }
        ParamError::check(below == 1.0, "up_to", below, "the last row must end at 1")?;
        Ok(CapitalTable { tiers })
    }

    /// The default table (module docs), over [`default_instance_types`].
    pub fn paper() -> CapitalTable {
        let row = |up_to, instance, lifetime_min| CapitalTier {
            up_to,
            instance,
            nodes_per_stall: 1,
            max_nodes: 1,
            lifetime: Duration::from_mins(lifetime_min),
        };
        CapitalTable {
            tiers: vec![
                row(0.25, 0, 15),
                row(0.5, 1, 30),
                row(0.75, 2, 45),
                row(1.0, 3, 60),
            ],
        }
    }

    /// The rows.
    pub fn tiers(&self) -> &[CapitalTier] {
        &self.tiers
    }

    /// The row for `c`; `None` for `c = 0`.
    pub fn tier(&self, c: Capital) -> Option<&CapitalTier> {
        if c.value() == 0.0 {
            return None;
        }
        self.tiers.iter().find(|t| c.value() <= t.up_to)
    }
}

/// How a stall is turned into a start request (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Sizing {
    /// The paper's rule: the capital row's instance type and node count.
    #[default]
    Paper,
    /// Our extension: instance types and counts fitted to the queued jobs' ads.
    FitWaitingJobs,
}

/// When cloud nodes stop before their lifetime ends (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpinDown {
    /// Stop idle nodes when a desktop slot is free and no job waits.
    pub when_desktops_free: bool,
    /// Also stop busy nodes whose jobs the free desktop slots can take (checkpointed,
    /// requeued).
    pub move_back: bool,
}

impl Default for SpinDown {
    /// Idle nodes spin down when desktops are free; running jobs finish where they are.
    fn default() -> SpinDown {
        SpinDown {
            when_desktops_free: true,
            move_back: false,
        }
    }
}

/// Everything [`Albatross`] is configured with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlbatrossConfig {
    /// The capital.
    pub capital: Capital,
    /// How long the matchmaker may go without a dispatch while jobs wait, > 0.
    pub stall_threshold: Duration,
    /// The capital table.
    pub table: CapitalTable,
    /// The instance types the table's rows index.
    pub instance_types: Vec<InstanceType>,
    /// Paper sizing or the extension.
    pub sizing: Sizing,
    /// Early spin-down.
    pub spin_down: SpinDown,
}

impl AlbatrossConfig {
    /// The default table and instance types with capital `c`, the stall threshold
    /// [`STALL_THRESHOLD`], the paper's sizing and the default spin-down.
    pub fn paper(capital: Capital) -> AlbatrossConfig {
        AlbatrossConfig {
            capital,
            stall_threshold: STALL_THRESHOLD,
            table: CapitalTable::paper(),
            instance_types: default_instance_types(),
            sizing: Sizing::Paper,
            spin_down: SpinDown::default(),
        }
    }
}

/// The stall threshold of [`AlbatrossConfig::paper`]: 4,500 s, Fig. 1's initial lag less the
/// first job's run (§V; see the module docs): the mean first dispatch of the no-Albatross
/// baseline over 64 seeds (4,493 ± 919 s, 95 % CI), rounded to the 60 s negotiation cycle.
pub const STALL_THRESHOLD: Duration = Duration::from_secs(4500);

/// Where commands take effect: the simulator's cloud, or a real provider's API.
pub trait CloudBackend {
    /// Why a request failed.
    type Error;
    /// Requests `count` nodes of instance type `instance`, each to stop `lifetime` after it
    /// joins the pool.
    fn start(
        &mut self,
        now: Time,
        instance: usize,
        count: u32,
        lifetime: Duration,
    ) -> Result<(), Self::Error>;
    /// Stops `node` now; its running jobs are checkpointed and requeued.
    fn stop(&mut self, now: Time, node: NodeId) -> Result<(), Self::Error>;
}

/// Hands `commands` to `backend`, in order.
pub fn apply<B: CloudBackend>(
    now: Time,
    commands: &[Command],
    backend: &mut B,
) -> Result<(), B::Error> {
    for c in commands {
        match *c {
            Command::Start {
                instance,
                count,
                lifetime,
            } => backend.start(now, instance, count, lifetime)?,
            Command::Stop { node } => backend.stop(now, node)?,
        }
    }
    Ok(())
}

/// A cloud node as the policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloudNodeView {
    /// The node.
    pub node: NodeId,
    /// Its instance type, by index in [`Observation::instance_types`].
    pub instance: usize,
    /// What it is doing.
    pub state: CloudNodeState,
}

/// The state of a live cloud node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CloudNodeState {
    /// Requested, not yet in the pool.
    Booting,
    /// In the pool with no job.
    Idle,
    /// Running this many jobs (>= 1).
    Busy {
        /// Jobs running on it.
        jobs: u32,
    },
}

/// What the matchmaker reports after one negotiation cycle: the observation of the Albatross
/// protocol. The queued jobs' ads are the call's view (`[Arc<ClassAd>]`, queue order).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Jobs dispatched in this cycle.
    pub dispatched: usize,
    /// The live cloud nodes (booting or up).
    pub cloud_nodes: Vec<CloudNodeView>,
    /// Desktop slots that are unclaimed and willing to start a job (their `START` holds).
    pub free_desktop_slots: usize,
    /// The instance types the executor's cloud offers, in its order: a [`Command::Start`]'s
    /// and a [`CloudNodeView`]'s `instance` index them.
    #[serde(default)]
    pub instance_types: Vec<InstanceType>,
}

/// What a policy of the Albatross protocol asks the pool's cloud to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// Start `count` nodes of instance type `instance`, each to stay `lifetime` in the pool.
    Start {
        /// The instance type, by index in the observation's [`Observation::instance_types`].
        instance: usize,
        /// Nodes to start, >= 1.
        count: u32,
        /// How long each stays after joining the pool.
        lifetime: Duration,
    },
    /// Stop this node now (spin-down; its jobs, if any, are checkpointed and requeued).
    Stop {
        /// The node.
        node: NodeId,
    },
}

/// The view a policy of the Albatross protocol is lent with each call: the queued jobs' ads,
/// in queue order (shared, so lending them copies no ad).
pub type WaitingJobs = [Arc<ClassAd>];

/// A policy of the Albatross protocol: after each negotiation cycle an [`Observation`] and the
/// queued jobs' ads ([`WaitingJobs`]) in, cloud [`Command`]s out. Any type implementing it
/// (the built-in [`Albatross`] and [`NoScaling`], or a caller's own) runs in the simulator
/// ([`crate::sim::PoolSim`]) and behind `cosched albatross decide`.
pub trait AlbatrossPolicy:
    Policy<Observation = Observation, Command = Command, View = WaitingJobs>
{
}

impl<P> AlbatrossPolicy for P where
    P: Policy<Observation = Observation, Command = Command, View = WaitingJobs> + ?Sized
{
}

/// The paper's baseline, "without Albatross" (§V, Fig. 1): the pool never scales, whatever
/// it observes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoScaling;

impl Policy for NoScaling {
    type Observation = Observation;
    type Command = Command;
    type View = WaitingJobs;
    type Error = Infallible;

    fn observe(
        &mut self,
        _now: Time,
        _observation: &Observation,
        _waiting: &WaitingJobs,
        _out: &mut Vec<Command>,
    ) -> Result<(), Infallible> {
        Ok(())
    }
}

/// The Albatross policy (see the module docs). Serialises as its [`AlbatrossState`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "AlbatrossState", into = "AlbatrossState")]
pub struct Albatross {
    config: AlbatrossConfig,
    tier: Option<CapitalTier>,
    slot_ads: Vec<ClassAd>,
    timer_start: Time,
}

/// Everything a live driver must keep between two calls of the policy: its configuration and
/// when the stall timer last restarted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlbatrossState {
    /// The configuration.
    pub config: AlbatrossConfig,
    /// When the stall timer last restarted.
    pub timer_start: Time,
}

impl TryFrom<AlbatrossState> for Albatross {
    type Error = ParamError;
    fn try_from(state: AlbatrossState) -> Result<Albatross, ParamError> {
        Albatross::new(state.config, state.timer_start)
    }
}

impl From<Albatross> for AlbatrossState {
    fn from(a: Albatross) -> AlbatrossState {
        AlbatrossState {
            config: a.config,
            timer_start: a.timer_start,
        }
    }
}

impl Albatross {
    /// The policy for `config`, its timer started at `now`. Checks the stall threshold
    /// (> 0 s), the instance types and that the table fits them.
    pub fn new(config: AlbatrossConfig, now: Time) -> Result<Albatross, ParamError> {
        ParamError::check(
            config.stall_threshold.secs() > 0,
            "stall_threshold",
            config.stall_threshold,
            "must be > 0 s",
        )?;
        for t in &config.instance_types {
            t.validate()?;
        }
        let table = CapitalTable::new(config.table.tiers.clone(), config.instance_types.len())?;
        let slot_ads = config
            .instance_types
            .iter()
            .map(|t| t.slot_ad(&t.name))
            .collect();
        Ok(Albatross {
            tier: table.tier(config.capital).cloned(),
            config,
            slot_ads,
            timer_start: now,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &AlbatrossConfig {
        &self.config
    }

    /// The capital row in force; `None` when the capital is 0.
    pub fn tier(&self) -> Option<&CapitalTier> {
        self.tier.as_ref()
    }

    /// How long the matchmaker has gone without a dispatch (while jobs waited) at `now`.
    pub fn stalled_for(&self, now: Time) -> Duration {
        now.checked_since(self.timer_start)
            .unwrap_or(Duration::ZERO)
    }

    /// Acts on one cycle (the [`Policy`] impl): restarts the stall timer on a dispatch or an
    /// empty queue, then appends spin-downs (module docs) and at most one start per stall.
    fn after_cycle(
        &mut self,
        now: Time,
        obs: &Observation,
        waiting: &WaitingJobs,
        out: &mut Vec<Command>,
    ) {
        if obs.dispatched > 0 || waiting.is_empty() {
            self.timer_start = now;
        }
        let Some(tier) = &self.tier else {
            return;
        };
        let first = out.len();
        let spin_down = self.config.spin_down;
        if spin_down.when_desktops_free && obs.free_desktop_slots > 0 && waiting.is_empty() {
            let mut room = obs.free_desktop_slots;
            for n in &obs.cloud_nodes {
                let jobs = match n.state {
                    CloudNodeState::Idle => 0,
                    CloudNodeState::Busy { jobs } if spin_down.move_back => jobs as usize,
                    _ => continue,
                };
                if jobs <= room {
                    room -= jobs;
                    out.push(Command::Stop { node: n.node });
                }
            }
        }
        let booting = obs
            .cloud_nodes
            .iter()
            .any(|n| n.state == CloudNodeState::Booting);
        if self.stalled_for(now) < self.config.stall_threshold || waiting.is_empty() || booting {
            return;
        }
        let alive = obs.cloud_nodes.len().saturating_sub(out.len() - first);
        let room = (tier.max_nodes as usize).saturating_sub(alive) as u32;
        let starts = match self.config.sizing {
            Sizing::Paper => vec![(tier.instance, tier.nodes_per_stall)],
            Sizing::FitWaitingJobs => self.fit(tier.instance, waiting),
        };
        let mut left = room;
        for (own, count) in starts {
            // The executor's index of the type, by name; a type it does not offer is not
            // started.
            let Some(instance) = self
                .config
                .instance_types
                .get(own)
                .and_then(|t| obs.instance_types.iter().position(|o| o.name == t.name))
            else {
                continue;
            };
            let count = count.min(left);
            if count > 0 {
                left -= count;
                out.push(Command::Start {
                    instance,
                    count,
                    lifetime: tier.lifetime,
                });
            }
        }
        if left < room {
            self.timer_start = now;
        }
    }

    /// The extension's sizing: (instance type, nodes) for the waiting jobs, the row's type
    /// first, then the others by price.
    fn fit(&self, preferred: usize, waiting: &WaitingJobs) -> Vec<(usize, u32)> {
        let types = &self.config.instance_types;
        let mut by_price: Vec<usize> = (0..types.len()).filter(|&i| i != preferred).collect();
        by_price.sort_by(|&a, &b| types[a].price_per_hour.total_cmp(&types[b].price_per_hour));
        let order: Vec<usize> = std::iter::once(preferred).chain(by_price).collect();
        let mut jobs = vec![0u32; types.len()];
        for job in waiting {
            if let Some(&i) = order
                .iter()
                .find(|&&i| symmetric_match(job, &self.slot_ads[i]))
            {
                jobs[i] += 1;
            }
        }
        order
            .into_iter()
            .filter(|&i| jobs[i] > 0)
            .map(|i| (i, jobs[i].div_ceil(types[i].slots)))
            .collect()
    }
}

/// The Albatross protocol's built-in policy. `start` restarts the stall timer; there are no
/// timers (the policy acts after each negotiation cycle) and no errors.
///
/// ```
/// use cosched_albatross::classad::ClassAd;
/// use cosched_albatross::policy::{Albatross, AlbatrossConfig, Capital, Command, Observation};
/// use cosched_albatross::pool::default_instance_types;
/// use cosched_core::policy::Policy;
/// use cosched_core::{Duration, Time};
/// use std::sync::Arc;
/// let mut policy = Albatross::new(AlbatrossConfig::paper(Capital::new(0.25)?), Time(0))?;
/// let job: ClassAd = "[ RequestMemory = 256; Requirements = true ]".parse()?;
/// let waiting = [Arc::new(job)];
/// let cycle = Observation {
///     dispatched: 0,
///     cloud_nodes: vec![],
///     free_desktop_slots: 0,
///     instance_types: default_instance_types(),
/// };
/// let mut out = Vec::new();
/// // No dispatch for 4,500 s with a job queued: a stall, so one t2.micro for 15 minutes.
/// policy.observe(Time(4440), &cycle, &waiting, &mut out)?;
/// assert!(out.is_empty());
/// policy.observe(Time(4500), &cycle, &waiting, &mut out)?;
/// let start = Command::Start { instance: 0, count: 1, lifetime: Duration::from_mins(15) };
/// assert_eq!(out, vec![start]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl Policy for Albatross {
    type Observation = Observation;
    type Command = Command;
    type View = WaitingJobs;
    type Error = Infallible;

    fn start(
        &mut self,
        now: Time,
        _waiting: &WaitingJobs,
        _out: &mut Vec<Command>,
    ) -> Result<(), Infallible> {
        self.timer_start = now;
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        waiting: &WaitingJobs,
        out: &mut Vec<Command>,
    ) -> Result<(), Infallible> {
        self.after_cycle(now, observation, waiting, out);
        Ok(())
    }
}

#[cfg(all(test, feature = "sim"))]
mod tests {
    use super::*;
    use crate::workload::Job;
    use cosched_core::JobId;
    use proptest::prelude::*;

    /// The default table at capital `c`, with a 300 s stall threshold (the tests' own).
    fn policy(c: f64, sizing: Sizing) -> Albatross {
        let mut config = AlbatrossConfig::paper(Capital::new(c).unwrap());
        config.sizing = sizing;
        config.stall_threshold = Duration(300);
        Albatross::new(config, Time(0)).unwrap()
    }

    /// One cycle of `p` at `now`: (dispatched, waiting ads, cloud nodes, free desktop slots).
    fn cycle(
        p: &mut Albatross,
        now: Time,
        (dispatched, waiting, nodes, free_desktop_slots): (
            usize,
            &[Arc<ClassAd>],
            &[CloudNodeView],
            usize,
        ),
    ) -> Vec<Command> {
        let obs = Observation {
            dispatched,
            cloud_nodes: nodes.to_vec(),
            free_desktop_slots,
            instance_types: default_instance_types(),
        };
        let mut out = Vec::new();
        let Ok(()) = p.observe(now, &obs, waiting, &mut out);
        out
    }

    fn node(id: u32, state: CloudNodeState) -> CloudNodeView {
        CloudNodeView {
            node: NodeId(id),
            instance: 0,
            state,
        }
    }

    #[test]
    fn capital_is_validated() {
        for bad in [-0.1, 1.1, f64::NAN, f64::INFINITY] {
            assert_eq!(Capital::new(bad).unwrap_err().name, "capital");
        }
        assert!(serde_json::from_str::<Capital>("1.5").is_err());
        let table = CapitalTable::paper();
        assert!(table.tier(Capital::ZERO).is_none());
        assert_eq!(table.tier(Capital::new(0.25).unwrap()).unwrap().instance, 0);
        assert_eq!(table.tier(Capital::new(0.26).unwrap()).unwrap().instance, 1);
        assert_eq!(table.tier(Capital::new(1.0).unwrap()).unwrap().instance, 3);
        let mut rows = table.tiers().to_vec();
        rows[1].up_to = 0.2;
        assert_eq!(CapitalTable::new(rows, 4).unwrap_err().name, "up_to");
        let mut rows = table.tiers().to_vec();
        rows[0].instance = 9;
        assert_eq!(CapitalTable::new(rows, 4).unwrap_err().name, "instance");
        let mut config = AlbatrossConfig::paper(Capital::ZERO);
        config.stall_threshold = Duration(0);
        assert_eq!(
            Albatross::new(config, Time(0)).unwrap_err().name,
            "stall_threshold"
        );
    }

    /// §IV-F: the paper's capitals get lifetimes c × 1 h and a t2.micro below 0.25.
    #[test]
    fn the_paper_table_maps_capital_to_instance_and_lifetime() {
        let table = CapitalTable::paper();
        let types = default_instance_types();
        for (c, name, minutes) in [
            (0.1, "t2.micro", 15),
            (0.25, "t2.micro", 15),
            (0.5, "t2.small", 30),
            (0.75, "t2.medium", 45),
            (1.0, "t2.large", 60),
        ] {
            let row = table.tier(Capital::new(c).unwrap()).unwrap();
            assert_eq!(types[row.instance].name, name);
            assert_eq!(row.lifetime, Duration::from_mins(minutes));
        }
    }

    #[test]
    fn a_stall_starts_the_rows_nodes_and_restarts_the_timer() {
        let job = Job::new(JobId(0), Time(0), 10.0, 256, true);
        let waiting = [Arc::new(job.ad)];
        let mut p = policy(0.5, Sizing::Paper);
        assert!(cycle(&mut p, Time(240), (0, &waiting, &[], 0)).is_empty());
        let d = cycle(&mut p, Time(300), (0, &waiting, &[], 0));
        assert_eq!(
            d,
            vec![Command::Start {
                instance: 1,
                count: 1,
                lifetime: Duration::from_mins(30)
            }]
        );
        assert_eq!(p.stalled_for(Time(300)), Duration(0));
        // A dispatch restarts the timer; an empty queue keeps it at zero.
        assert!(cycle(&mut p, Time(700), (1, &waiting, &[], 0)).is_empty());
        assert!(cycle(&mut p, Time(1000), (0, &[], &[], 0)).is_empty());
        assert!(cycle(&mut p, Time(1200), (0, &waiting, &[], 0)).is_empty());
        assert_eq!(cycle(&mut p, Time(1300), (0, &waiting, &[], 0)).len(), 1);
    }

    /// §III-B: idle nodes spin down when a desktop is free and nothing waits; busy ones only
    /// with move-back, as far as the free desktops can take their jobs; booting nodes hold
    /// back starts.
    #[test]
    fn nodes_spin_down_when_desktops_free_up() {
        let job = Job::new(JobId(0), Time(0), 10.0, 256, true);
        let waiting = [Arc::new(job.ad)];
        let nodes = [
            node(10, CloudNodeState::Idle),
            node(11, CloudNodeState::Busy { jobs: 2 }),
            node(12, CloudNodeState::Busy { jobs: 1 }),
        ];
        let mut p = policy(0.2, Sizing::Paper);
        assert!(cycle(&mut p, Time(600), (1, &[], &nodes, 0)).is_empty());
        assert!(cycle(&mut p, Time(600), (1, &waiting, &nodes, 3)).is_empty());
        assert_eq!(
            cycle(&mut p, Time(600), (0, &[], &nodes, 1)),
            vec![Command::Stop { node: NodeId(10) }]
        );
        let mut config = AlbatrossConfig::paper(Capital::new(0.2).unwrap());
        config.spin_down.move_back = true;
        let mut back = Albatross::new(config, Time(0)).unwrap();
        assert_eq!(
            cycle(&mut back, Time(600), (0, &[], &nodes, 1)),
            vec![
                Command::Stop { node: NodeId(10) },
                Command::Stop { node: NodeId(12) }
            ]
        );
        let booting = [node(13, CloudNodeState::Booting)];
        assert!(cycle(&mut p, Time(5000), (0, &waiting, &booting, 0)).is_empty());
    }

    #[test]
    fn the_state_round_trips_through_json() {
        let job = Job::new(JobId(0), Time(0), 10.0, 256, true);
        let waiting = [Arc::new(job.ad)];
        let mut p = policy(0.75, Sizing::FitWaitingJobs);
        cycle(&mut p, Time(100), (1, &waiting, &[], 0));
        let json = serde_json::to_string(&p).unwrap();
        let mut q: Albatross = serde_json::from_str(&json).unwrap();
        assert_eq!(q.stalled_for(Time(150)), Duration(50));
        assert_eq!(
            cycle(&mut p, Time(400), (0, &waiting, &[], 0)),
            cycle(&mut q, Time(400), (0, &waiting, &[], 0))
        );
        let broken = json.replace("0.75", "7.5");
        assert!(serde_json::from_str::<Albatross>(&broken).is_err());
    }

    /// The executor sees the decisions in order.
    #[test]
    fn apply_hands_decisions_to_the_backend() {
        #[derive(Default)]
        struct Log(Vec<String>);
        impl CloudBackend for Log {
            type Error = ();
            fn start(&mut self, now: Time, i: usize, n: u32, l: Duration) -> Result<(), ()> {
                self.0.push(format!("{now} start {i}x{n} {l}"));
                Ok(())
            }
            fn stop(&mut self, now: Time, node: NodeId) -> Result<(), ()> {
                self.0.push(format!("{now} stop {}", node.0));
                Ok(())
            }
        }
        let mut log = Log::default();
        let d = [
            Command::Stop { node: NodeId(3) },
            Command::Start {
                instance: 1,
                count: 2,
                lifetime: Duration(60),
            },
        ];
        apply(Time(7), &d, &mut log).unwrap();
        assert_eq!(log.0.len(), 2);
        assert!(log.0[0].ends_with("stop 3") && log.0[1].contains("start 1x2"));
    }

    #[test]
    fn the_extension_skips_cloud_forbidden_jobs_and_packs_the_rest() {
        let jobs: Vec<Job> = (0..5)
            .map(|i| {
                Job::new(
                    JobId(i),
                    Time(0),
                    10.0,
                    if i == 4 { 6000 } else { 256 },
                    i != 0,
                )
            })
            .collect();
        let waiting: Vec<Arc<ClassAd>> = jobs.iter().map(|j| Arc::new(j.ad.clone())).collect();
        // c = 0.5: t2.small has 1 slot of 2048 MB. The 6000 MB job fits only a t2.large
        // (8192 MB); job 0 forbids the cloud; the three others take 3 t2.small nodes, cut
        // to the row's one node.
        let mut p = policy(0.5, Sizing::FitWaitingJobs);
        let d = cycle(&mut p, Time(300), (0, &waiting, &[], 0));
        assert_eq!(
            d,
            vec![Command::Start {
                instance: 1,
                count: 1,
                lifetime: Duration::from_mins(30)
            }]
        );
        // Only cloud-forbidden jobs waiting: the paper's rule still starts a node, ours does not.
        let forbidden = [waiting[0].clone()];
        assert!(
            cycle(
                &mut policy(0.5, Sizing::FitWaitingJobs),
                Time(300),
                (0, &forbidden, &[], 0)
            )
            .is_empty()
        );
        assert_eq!(
            cycle(
                &mut policy(0.5, Sizing::Paper),
                Time(300),
                (0, &forbidden, &[], 0)
            )
            .len(),
            1
        );
    }

    proptest! {
        /// With capital 0 no decision is ever a start (or anything else).
        #[test]
        fn capital_zero_never_starts(cycles in prop::collection::vec((0usize..3, 0usize..4, 0usize..3), 1..60)) {
            let job = Job::new(JobId(0), Time(0), 10.0, 256, true);
            let ad = Arc::new(job.ad);
            let waiting_ads = [ad.clone(), ad.clone(), ad];
            let mut p = policy(0.0, Sizing::Paper);
            for (i, (dispatched, waiting, free)) in cycles.into_iter().enumerate() {
                let d = cycle(&mut p, Time(60 * i as i64 + 1000), (dispatched, &waiting_ads[..waiting.min(3)], &[], free));
                prop_assert!(d.is_empty());
            }
        }

        /// Starts never exceed the row's node limit, and stops name only idle nodes (no
        /// move-back) when a desktop is free and no job waits.
        #[test]
        fn decisions_respect_the_row(c in 0.01f64..=1.0, alive in 0usize..10, free in 0usize..3, waiting in 0usize..3, fit in any::<bool>()) {
            let sizing = if fit { Sizing::FitWaitingJobs } else { Sizing::Paper };
            let mut p = policy(c, sizing);
            let max = p.tier().unwrap().max_nodes as usize;
            let nodes: Vec<CloudNodeView> = (0..alive)
                .map(|i| node(i as u32, if i % 2 == 0 { CloudNodeState::Idle } else { CloudNodeState::Busy { jobs: 1 } }))
                .collect();
            let jobs: Vec<Job> = (0..12).map(|i| Job::new(JobId(i), Time(0), 10.0, 256, true)).collect();
            let ads: Vec<Arc<ClassAd>> = jobs.iter().take(waiting).map(|j| Arc::new(j.ad.clone())).collect();
            let d = cycle(&mut p, Time(4000), (0, &ads, &nodes, free));
            let stops = d.iter().filter(|d| matches!(d, Command::Stop { .. })).count();
            let started: u32 = d.iter().map(|d| match d { Command::Start { count, .. } => *count, _ => 0 }).sum();
            prop_assert!(alive - stops + started as usize <= max.max(alive - stops));
            prop_assert!(stops == 0 || (free > 0 && waiting == 0));
            for dec in &d {
                if let Command::Stop { node } = dec {
                    prop_assert_eq!(node.0 % 2, 0);
                }
            }
        }
    }
}
