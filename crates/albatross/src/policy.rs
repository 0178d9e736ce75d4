//! The Albatross scaling policy (the paper's Albatross design section: a starvation detector
//! in the matchmaker and a *capital* parameter that sets how much cloud capacity it may buy).
//!
//! [`Albatross`] is a plain struct with no clock, RNG or I/O: after every negotiation cycle
//! the caller hands it an [`Observation`] and the current time, and gets back
//! [`Decision`]s. The same struct drives the simulator ([`crate::sim`]) and could drive a
//! live HTCondor pool.
//!
//! ## Stall detector
//! A timer restarts on every cycle that dispatched a job. The pool **stalls** when the timer
//! has reached [`AlbatrossConfig::stall_threshold`] while jobs are queued, whether or not any
//! machine is free (free machines may not match the queued jobs). Three points the paper
//! leaves open, fixed here:
//! - the timer also restarts while the queue is empty (nothing is starving then, so the first
//!   job after a quiet spell does not find an already expired timer);
//! - it restarts when Albatross starts nodes (they get one threshold to boot and take work);
//! - no new nodes start while nodes Albatross started are still booting.
//!
//! ## Capital
//! The capital `c ∈ [0, 1]` ([`Capital`]) selects one row ([`CapitalTier`]) of a
//! [`CapitalTable`]: the first row whose `up_to >= c`. The row fixes the instance type, how
//! many nodes start per stall, the most nodes alive at once, the lease (after which the node
//! stops and its jobs are checkpointed and requeued) and the idle spin-down (a node idle
//! that long is stopped early). `c = 0` selects no row: Albatross never starts a node.
//! [`CapitalTable::paper`] is the default table:
//!
//! | c in | instance | nodes per stall | max nodes | lease | idle spin-down |
//! |---|---|---|---|---|---|
//! | (0, 0.25] | `cloud-s` (1 slot, speed 1.0, $0.05/h) | 1 | 2 | 1 h | 10 min |
//! | (0.25, 0.5] | `cloud-m` (2 slots, speed 1.6, $0.10/h) | 1 | 3 | 1 h | 20 min |
//! | (0.5, 0.75] | `cloud-l` (4 slots, speed 3.5, $0.20/h) | 1 | 4 | 1 h | 30 min |
//! | (0.75, 1] | `cloud-xl` (8 slots, speed 5.0, $0.40/h) | 2 | 8 | 1 h | 60 min |
//!
//! (instance types from [`crate::pool::default_instance_types`]).
//!
//! ## Sizing (an extension beyond the paper)
//! With [`Sizing::Paper`] (the default) a stall starts the row's instance type and count,
//! whatever the queued jobs need — even if none of them may run in the cloud.
//! [`Sizing::FitWaitingJobs`], **our extension, not in the paper**, looks at the queued jobs'
//! ads instead: each job is assigned the row's instance type if a slot of it matches the job
//! (both `Requirements` true), else the cheapest type that matches, else none (it cannot use
//! the cloud); jobs assigned to a type are packed onto its slots, so `ceil(jobs / slots)`
//! nodes start per type, within the row's `max_nodes`.

use crate::classad::{ClassAd, symmetric_match};
use crate::pool::{InstanceType, default_instance_types};
use cosched_core::{Duration, NodeId, ParamError, Time};

/// The capital parameter `c ∈ [0, 1]`: how much cloud capacity Albatross may buy.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Capital(f64);

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
#[derive(Debug, Clone, PartialEq)]
pub struct CapitalTier {
    /// The row applies to capitals in (previous row's `up_to`, `up_to`].
    pub up_to: f64,
    /// Index of the instance type started, in the policy's instance types.
    pub instance: usize,
    /// Nodes started per stall, >= 1.
    pub nodes_per_stall: u32,
    /// Most nodes alive (booting or up) at once, >= `nodes_per_stall`.
    pub max_nodes: u32,
    /// Lease of each node, from its start request, > 0.
    pub lease: Duration,
    /// A node idle this long is stopped before its lease ends, >= 0.
    pub idle_spin_down: Duration,
}

/// The mapping from capital to scaling parameters (see the module docs).
#[derive(Debug, Clone, PartialEq)]
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
            ParamError::check(t.lease.secs() > 0, "lease", t.lease, "must be > 0 s")?;
            ParamError::check(
                t.idle_spin_down >= Duration::ZERO,
                "idle_spin_down",
                t.idle_spin_down,
                "must be >= 0 s",
            )?;
        }
        ParamError::check(below == 1.0, "up_to", below, "the last row must end at 1")?;
        Ok(CapitalTable { tiers })
    }

    /// The default table (module docs), over [`default_instance_types`].
    pub fn paper() -> CapitalTable {
        let row = |up_to, instance, nodes_per_stall, max_nodes, idle_min| CapitalTier {
            up_to,
            instance,
            nodes_per_stall,
            max_nodes,
            lease: Duration::from_hours(1),
            idle_spin_down: Duration::from_mins(idle_min),
        };
        CapitalTable {
            tiers: vec![
                row(0.25, 0, 1, 2, 10),
                row(0.5, 1, 1, 3, 20),
                row(0.75, 2, 1, 4, 30),
                row(1.0, 3, 2, 8, 60),
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sizing {
    /// The paper's rule: the capital row's instance type and node count.
    #[default]
    Paper,
    /// Our extension: instance types and counts fitted to the queued jobs' ads.
    FitWaitingJobs,
}

/// Everything [`Albatross`] is configured with.
#[derive(Debug, Clone, PartialEq)]
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
}

impl AlbatrossConfig {
    /// The default table and instance types with capital `c`, a 60 s stall threshold and the
    /// paper's sizing.
    pub fn paper(capital: Capital) -> AlbatrossConfig {
        AlbatrossConfig {
            capital,
            stall_threshold: Duration::from_secs(60),
            table: CapitalTable::paper(),
            instance_types: default_instance_types(),
            sizing: Sizing::Paper,
        }
    }
}

/// A cloud node as the policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloudNodeView {
    /// The node.
    pub node: NodeId,
    /// Index of its instance type.
    pub instance: usize,
    /// What it is doing.
    pub state: CloudNodeState,
}

/// The state of a live cloud node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloudNodeState {
    /// Requested, not yet in the pool.
    Booting,
    /// In the pool with no job since this time.
    Idle {
        /// When its last job left (or it joined the pool).
        since: Time,
    },
    /// Running at least one job.
    Busy,
}

/// What the matchmaker reports after one negotiation cycle.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// Jobs dispatched in this cycle.
    pub dispatched: usize,
    /// The ads of the jobs still queued, in queue order.
    pub waiting: &'a [&'a ClassAd],
    /// The live cloud nodes (booting or up).
    pub cloud_nodes: &'a [CloudNodeView],
}

/// What the policy asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Start `count` nodes of instance type `instance`, each leased for `lease`.
    Start {
        /// Index of the instance type.
        instance: usize,
        /// Nodes to start, >= 1.
        count: u32,
        /// Lease of each, from now.
        lease: Duration,
    },
    /// Stop this node now (it has been idle for the spin-down time).
    Stop {
        /// The node.
        node: NodeId,
    },
}

/// The Albatross policy (see the module docs).
#[derive(Debug, Clone)]
pub struct Albatross {
    tier: Option<CapitalTier>,
    stall_threshold: Duration,
    sizing: Sizing,
    types: Vec<InstanceType>,
    slot_ads: Vec<ClassAd>,
    timer_start: Time,
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
        let table = CapitalTable::new(config.table.tiers, config.instance_types.len())?;
        let slot_ads = config
            .instance_types
            .iter()
            .map(|t| t.slot_ad(&t.name))
            .collect();
        Ok(Albatross {
            tier: table.tier(config.capital).cloned(),
            stall_threshold: config.stall_threshold,
            sizing: config.sizing,
            types: config.instance_types,
            slot_ads,
            timer_start: now,
        })
    }

    /// The capital row in force; `None` when the capital is 0.
    pub fn tier(&self) -> Option<&CapitalTier> {
        self.tier.as_ref()
    }

    /// How long the matchmaker has gone without a dispatch (while jobs waited) at `now`.
    pub fn stalled_for(&self, now: Time) -> Duration {
        now - self.timer_start
    }

    /// Consumes one cycle's observation at `now` and returns the decisions: stops of nodes
    /// idle past the spin-down time, then at most one start per stall.
    pub fn after_cycle(&mut self, now: Time, obs: &Observation<'_>) -> Vec<Decision> {
        if obs.dispatched > 0 || obs.waiting.is_empty() {
            self.timer_start = now;
        }
        let Some(tier) = &self.tier else {
            return Vec::new();
        };
        let mut decisions: Vec<Decision> = obs
            .cloud_nodes
            .iter()
            .filter(|n| matches!(n.state, CloudNodeState::Idle { since } if now - since >= tier.idle_spin_down))
            .map(|n| Decision::Stop { node: n.node })
            .collect();
        let booting = obs
            .cloud_nodes
            .iter()
            .any(|n| n.state == CloudNodeState::Booting);
        if self.stalled_for(now) < self.stall_threshold || obs.waiting.is_empty() || booting {
            return decisions;
        }
        let alive = obs.cloud_nodes.len() - decisions.len();
        let room = (tier.max_nodes as usize).saturating_sub(alive) as u32;
        let starts = match self.sizing {
            Sizing::Paper => vec![(tier.instance, tier.nodes_per_stall)],
            Sizing::FitWaitingJobs => self.fit(tier.instance, obs.waiting),
        };
        let mut left = room;
        for (instance, count) in starts {
            let count = count.min(left);
            if count > 0 {
                left -= count;
                decisions.push(Decision::Start {
                    instance,
                    count,
                    lease: tier.lease,
                });
            }
        }
        if left < room {
            self.timer_start = now;
        }
        decisions
    }

    /// The extension's sizing: (instance type, nodes) for the waiting jobs, the row's type
    /// first, then the others by price.
    fn fit(&self, preferred: usize, waiting: &[&ClassAd]) -> Vec<(usize, u32)> {
        let mut by_price: Vec<usize> = (0..self.types.len()).filter(|&i| i != preferred).collect();
        by_price.sort_by(|&a, &b| {
            self.types[a]
                .price_per_hour
                .total_cmp(&self.types[b].price_per_hour)
        });
        let order: Vec<usize> = std::iter::once(preferred).chain(by_price).collect();
        let mut jobs = vec![0u32; self.types.len()];
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
            .map(|i| (i, jobs[i].div_ceil(self.types[i].slots)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Job;
    use cosched_core::JobId;
    use proptest::prelude::*;

    fn policy(c: f64, sizing: Sizing) -> Albatross {
        let mut config = AlbatrossConfig::paper(Capital::new(c).unwrap());
        config.sizing = sizing;
        Albatross::new(config, Time(0)).unwrap()
    }

    fn obs<'a>(
        dispatched: usize,
        waiting: &'a [&'a ClassAd],
        nodes: &'a [CloudNodeView],
    ) -> Observation<'a> {
        Observation {
            dispatched,
            waiting,
            cloud_nodes: nodes,
        }
    }

    #[test]
    fn capital_is_validated() {
        for bad in [-0.1, 1.1, f64::NAN, f64::INFINITY] {
            assert_eq!(Capital::new(bad).unwrap_err().name, "capital");
        }
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

    #[test]
    fn a_stall_starts_the_rows_nodes_and_restarts_the_timer() {
        let job = Job::new(JobId(0), Time(0), 10.0, 1024, true);
        let waiting = [&job.ad];
        let mut p = policy(0.5, Sizing::Paper);
        assert!(p.after_cycle(Time(40), &obs(0, &waiting, &[])).is_empty());
        let d = p.after_cycle(Time(60), &obs(0, &waiting, &[]));
        assert_eq!(
            d,
            vec![Decision::Start {
                instance: 1,
                count: 1,
                lease: Duration::from_hours(1)
            }]
        );
        assert_eq!(p.stalled_for(Time(60)), Duration(0));
        // A dispatch restarts the timer; an empty queue keeps it at zero.
        assert!(p.after_cycle(Time(200), &obs(1, &waiting, &[])).is_empty());
        assert!(p.after_cycle(Time(400), &obs(0, &[], &[])).is_empty());
        assert!(p.after_cycle(Time(440), &obs(0, &waiting, &[])).is_empty());
    }

    #[test]
    fn idle_nodes_spin_down_and_booting_nodes_hold_back_starts() {
        let job = Job::new(JobId(0), Time(0), 10.0, 1024, true);
        let waiting = [&job.ad];
        let mut p = policy(0.2, Sizing::Paper);
        let nodes = [
            CloudNodeView {
                node: NodeId(10),
                instance: 0,
                state: CloudNodeState::Idle { since: Time(0) },
            },
            CloudNodeView {
                node: NodeId(11),
                instance: 0,
                state: CloudNodeState::Booting,
            },
        ];
        let d = p.after_cycle(Time(600), &obs(0, &waiting, &nodes));
        assert_eq!(d, vec![Decision::Stop { node: NodeId(10) }]);
    }

    #[test]
    fn the_extension_skips_cloud_forbidden_jobs_and_packs_the_rest() {
        let jobs: Vec<Job> = (0..5)
            .map(|i| {
                Job::new(
                    JobId(i),
                    Time(0),
                    10.0,
                    if i == 4 { 6000 } else { 1024 },
                    i != 0,
                )
            })
            .collect();
        let waiting: Vec<&ClassAd> = jobs.iter().map(|j| &j.ad).collect();
        // c = 0.5: cloud-m has 2 slots of 4096 MB. Every type's slots hold 4096 MB, so the
        // 6000 MB job fits nowhere; job 0 forbids the cloud; the three others take 2 nodes.
        let mut p = policy(0.5, Sizing::FitWaitingJobs);
        let d = p.after_cycle(Time(120), &obs(0, &waiting, &[]));
        assert_eq!(
            d,
            vec![Decision::Start {
                instance: 1,
                count: 2,
                lease: Duration::from_hours(1)
            }]
        );
        // Only cloud-forbidden jobs waiting: the paper's rule still starts a node, ours does not.
        let forbidden = [&jobs[0].ad];
        assert!(
            policy(0.5, Sizing::FitWaitingJobs)
                .after_cycle(Time(120), &obs(0, &forbidden, &[]))
                .is_empty()
        );
        assert_eq!(
            policy(0.5, Sizing::Paper)
                .after_cycle(Time(120), &obs(0, &forbidden, &[]))
                .len(),
            1
        );
    }

    proptest! {
        /// With capital 0 no decision is ever a start (or anything else).
        #[test]
        fn capital_zero_never_starts(cycles in prop::collection::vec((0usize..3, 0usize..4), 1..60)) {
            let job = Job::new(JobId(0), Time(0), 10.0, 1024, true);
            let waiting_ads = [&job.ad, &job.ad, &job.ad];
            let mut p = policy(0.0, Sizing::Paper);
            for (i, (dispatched, waiting)) in cycles.into_iter().enumerate() {
                let d = p.after_cycle(Time(20 * i as i64 + 1000), &obs(dispatched, &waiting_ads[..waiting.min(3)], &[]));
                prop_assert!(d.is_empty());
            }
        }

        /// Starts never exceed the row's node limit, and stops name only idle nodes.
        #[test]
        fn decisions_respect_the_row(c in 0.01f64..=1.0, alive in 0usize..10, idle_since in 0i64..4000, fit in any::<bool>()) {
            let sizing = if fit { Sizing::FitWaitingJobs } else { Sizing::Paper };
            let mut p = policy(c, sizing);
            let max = p.tier().unwrap().max_nodes as usize;
            let nodes: Vec<CloudNodeView> = (0..alive)
                .map(|i| CloudNodeView {
                    node: NodeId(i as u32),
                    instance: 0,
                    state: if i % 2 == 0 { CloudNodeState::Idle { since: Time(idle_since) } } else { CloudNodeState::Busy },
                })
                .collect();
            let jobs: Vec<Job> = (0..12).map(|i| Job::new(JobId(i), Time(0), 10.0, 1024, true)).collect();
            let waiting: Vec<&ClassAd> = jobs.iter().map(|j| &j.ad).collect();
            let d = p.after_cycle(Time(4000), &obs(0, &waiting, &nodes));
            let stops = d.iter().filter(|d| matches!(d, Decision::Stop { .. })).count();
            let started: u32 = d.iter().map(|d| match d { Decision::Start { count, .. } => *count, _ => 0 }).sum();
            prop_assert!(alive - stops + started as usize <= max.max(alive - stops));
            for dec in &d {
                if let Decision::Stop { node } = dec {
                    prop_assert_eq!(node.0 % 2, 0);
                }
            }
        }
    }
}
