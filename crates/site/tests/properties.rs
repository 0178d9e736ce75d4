//! Property tests of the site: one use per node, agreeing with the batch cluster, at every
//! step; every job, lease and task accounted exactly once; the environment the same across
//! configurations (and scavenging never moving batch or on-demand work); any combination of
//! role policies runs, including policies defined here, as a downstream crate would.

use cosched_albatross::policy::{Albatross, AlbatrossConfig, Capital, NoScaling};
use cosched_balancer::policy::{Balancer, BalancerConfig, Strategy as Reserve};
use cosched_batch::{BatchCluster, BatchCommand, BatchError, BatchPolicy, Pass, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{
    Duration, JobId, Lease, LeaseEnd, LeaseId, LeaseKind, MalleableJob, RigidJob, Time,
};
use cosched_hybrid::policy::{Command as HCommand, Observation as HObs, PlatformView};
use cosched_hybrid::workload::HybridJob;
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{Composite, HybridError, HybridPolicy, MechanismKind, NoticeStrategy};
use cosched_site::workload::draw_notices;
use cosched_site::{
    BalancerRole, Configuration, HarvestAll, HtcPool, Inputs, OnDemandRole, PoolCycle,
    QueueAsBatch, RoleParams, Roles, ScavengingCommand, ScavengingPolicy, Site, SiteConfig,
    SiteError, SiteReport, SiteState, SiteWorkload, Task,
};
use proptest::prelude::*;

mod common;
use common::{IdleOrQueue, IdleOrRefuse};
use std::sync::{Arc, Mutex};

/// A downstream batch policy: smallest job first, while they fit.
struct SmallestFirst;

impl Policy for SmallestFirst {
    type Observation = SchedulingPass;
    type Command = BatchCommand;
    type View = BatchCluster;
    type Error = BatchError;

    fn observe(
        &mut self,
        now: Time,
        _: &SchedulingPass,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> Result<(), BatchError> {
        let mut pass = Pass::new(now, view, out);
        let mut waiting = Vec::new();
        let mut pos = 0;
        while let Some(p) = pass.next_queued(pos) {
            waiting.extend(pass.job(p).map(|q| (q.size(), p)));
            pos = p + 1;
        }
        waiting.sort_unstable();
        for (size, p) in waiting {
            if size <= pass.free_units() {
                let _ = pass.start(p);
            }
        }
        pass.finish()
    }
}

/// A downstream scavenging policy: lend half the lendable nodes while tasks wait, recall
/// free ones otherwise, and give a lent node back by name now and then.
struct LendHalf;

impl Policy for LendHalf {
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = SiteError;

    fn observe(
        &mut self,
        now: Time,
        c: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        if c.queued > 0 {
            out.push(ScavengingCommand::Lend {
                count: c.lendable.div_ceil(2),
            });
        } else {
            out.push(ScavengingCommand::Recall { count: c.lent_free });
        }
        if now.0 % 7 == 0
            && let Some(i) = view
                .node_uses()
                .iter()
                .position(|u| matches!(u, cosched_site::NodeUse::Lent(_)))
        {
            out.push(ScavengingCommand::RecallNode(cosched_core::NodeId(
                i as u32,
            )));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
enum BatchChoice {
    Fcfs,
    Easy,
    Conservative,
    Downstream,
}

#[derive(Clone, Copy, Debug)]
enum OnDemandChoice {
    Queue,
    Balancer {
        reserve: u32,
        window: i64,
    },
    Paa,
    Spaa,
    /// Hybrid's notices (CUA or CUP, with guests) with PAA or SPAA.
    Noticed(NoticeStrategy, MechanismKind),
    /// Of the site's protocol.
    Downstream,
    /// Of hybrid's protocol.
    DownstreamHybrid,
}

#[derive(Clone, Copy, Debug)]
enum ScavengingChoice {
    None,
    Harvest,
    Cloud(f64),
    Downstream,
}

fn roles(b: BatchChoice, o: OnDemandChoice, s: ScavengingChoice) -> Roles {
    use cosched_batch::scenario as bs;
    let batch: Box<dyn BatchPolicy + Send> = match b {
        BatchChoice::Fcfs => Box::new(bs::fcfs()),
        BatchChoice::Easy => Box::new(bs::easy()),
        BatchChoice::Conservative => Box::new(bs::conservative()),
        BatchChoice::Downstream => Box::new(SmallestFirst),
    };
    let hybrid =
        |notice, arrival| OnDemandRole::hybrid(HybridPolicy::new(Composite::new(notice, arrival)));
    let on_demand = match o {
        OnDemandChoice::Queue => OnDemandRole::site(QueueAsBatch),
        OnDemandChoice::Balancer { reserve, window } => {
            OnDemandRole::site(BalancerRole::new(Balancer::new(
                BalancerConfig::new(Reserve::Basic {
                    static_reserve: reserve,
                })
                .with_window(Duration(window)),
            )))
        }
        OnDemandChoice::Paa => hybrid(NoticeStrategy::N, MechanismKind::Paa),
        OnDemandChoice::Spaa => hybrid(NoticeStrategy::N, MechanismKind::Spaa),
        OnDemandChoice::Noticed(n, arrival) => hybrid(n, arrival),
        OnDemandChoice::Downstream => OnDemandRole::site(IdleOrRefuse),
        OnDemandChoice::DownstreamHybrid => OnDemandRole::hybrid(IdleOrQueue),
    };
    let scavenging: Option<Box<dyn ScavengingPolicy + Send>> = match s {
        ScavengingChoice::None => None,
        ScavengingChoice::Harvest => Some(Box::new(HtcPool::new(HarvestAll, NoScaling))),
        ScavengingChoice::Cloud(c) => {
            let config = AlbatrossConfig {
                stall_threshold: Duration(120),
                ..AlbatrossConfig::paper(Capital::new(c).expect("capital in [0, 1]"))
            };
            Some(Box::new(HtcPool::new(
                HarvestAll,
                Albatross::new(config, Time(0)).expect("albatross"),
            )))
        }
        ScavengingChoice::Downstream => Some(Box::new(LendHalf)),
    };
    Roles {
        batch,
        on_demand,
        scavenging,
    }
}

fn batch_choice() -> impl Strategy<Value = BatchChoice> {
    prop_oneof![
        Just(BatchChoice::Fcfs),
        Just(BatchChoice::Easy),
        Just(BatchChoice::Conservative),
        Just(BatchChoice::Downstream),
    ]
}

fn on_demand_choice() -> impl Strategy<Value = OnDemandChoice> {
    prop_oneof![
        Just(OnDemandChoice::Queue),
        (0u32..=2, 0i64..600)
            .prop_map(|(reserve, window)| OnDemandChoice::Balancer { reserve, window }),
        Just(OnDemandChoice::Paa),
        Just(OnDemandChoice::Spaa),
        (
            prop_oneof![Just(NoticeStrategy::Cua), Just(NoticeStrategy::Cup)],
            prop_oneof![Just(MechanismKind::Paa), Just(MechanismKind::Spaa)],
        )
            .prop_map(|(n, a)| OnDemandChoice::Noticed(n, a)),
        Just(OnDemandChoice::Downstream),
        Just(OnDemandChoice::DownstreamHybrid),
    ]
}

fn scavenging_choice() -> impl Strategy<Value = ScavengingChoice> {
    prop_oneof![
        Just(ScavengingChoice::None),
        Just(ScavengingChoice::Harvest),
        (0.0f64..=1.0).prop_map(ScavengingChoice::Cloud),
        Just(ScavengingChoice::Downstream),
    ]
}

/// A small random workload on `nodes` nodes (some jobs and leases too large for the site).
fn workload(nodes: u32) -> impl Strategy<Value = SiteWorkload> {
    let job = (
        0i64..6_000,
        1u32..=nodes + 2,
        1i64..3_000,
        0i64..2_000,
        any::<bool>(),
        0i64..120,
    );
    let lease = (0i64..6_000, 1u32..=nodes + 1, 0i64..600, 1i64..2_500);
    let task = (0i64..6_000, 10i64..2_000, 0usize..3);
    (
        prop::collection::vec(job, 0..30),
        prop::collection::vec(lease, 0..15),
        prop::collection::vec(task, 0..40),
        any::<u64>(),
    )
        .prop_map(move |(jobs, leases, tasks, notice_seed)| {
            let batch = jobs
                .into_iter()
                .enumerate()
                .map(|(i, (submit, size, run, extra, malleable, setup))| {
                    let id = JobId(i as u64 * 3 + 1);
                    if malleable && size >= 2 {
                        let min = size.div_ceil(3);
                        let setup = Duration(setup.min(run - 1).max(0));
                        let work = Duration((run - setup.0).max(1) * i64::from(size));
                        HybridJob::Malleable {
                            job: MalleableJob::new(id, Time(submit), min, size, work, setup)
                                .expect("valid malleable job"),
                            estimate: Duration(run + extra),
                        }
                    } else {
                        HybridJob::Rigid {
                            job: RigidJob::new(
                                id,
                                Time(submit),
                                size,
                                Duration(run),
                                Duration(run + extra),
                            )
                            .expect("valid rigid job"),
                            setup: Duration(setup.min(run)),
                        }
                    }
                })
                .collect();
            let mut leases: Vec<(i64, u32, i64, i64)> = leases;
            leases.sort_unstable();
            let leases = leases
                .into_iter()
                .enumerate()
                .map(|(k, (at, n, w, d))| {
                    Lease::new(
                        LeaseId(k as u64),
                        Time(at),
                        n,
                        LeaseKind::OnDemand {
                            window: Duration(w),
                        },
                        LeaseEnd::Bounded(Duration(d)),
                    )
                    .expect("valid lease")
                })
                .collect::<Vec<_>>();
            let notices = draw_notices(&leases, &TypeParams::default(), notice_seed)
                .expect("hybrid's default notice parameters");
            let tasks = tasks
                .into_iter()
                .enumerate()
                .map(|(i, (submit, work, ad))| Task {
                    id: i as u64,
                    bag: 0,
                    submit: Time(submit),
                    work: Duration(work),
                    ad,
                })
                .collect();
            SiteWorkload {
                batch,
                leases,
                tasks,
                notices,
            }
        })
}

/// Every job, lease and task counted exactly once.
fn accounted(r: &SiteReport, w: &SiteWorkload) -> Result<(), TestCaseError> {
    let l = &r.leases;
    prop_assert_eq!(l.requested, w.leases.len());
    prop_assert_eq!(
        l.completed + l.running + l.rejected + l.waiting,
        l.requested
    );
    prop_assert_eq!(r.batch_submitted, w.batch.len());
    prop_assert_eq!(
        r.batch_completed + r.batch_rejected + r.batch_running + r.batch_queued,
        r.batch_submitted
    );
    prop_assert_eq!(r.scavenged_submitted, w.tasks.len());
    prop_assert_eq!(
        r.scavenged_completed + r.scavenged_running + r.scavenged_queued,
        r.scavenged_submitted
    );
    let hours: f64 = r.node_hours.iter().sum();
    let expected = f64::from(r.nodes) * r.end_s as f64 / 3600.0;
    prop_assert!(
        (hours - expected).abs() < 1e-6,
        "{hours} node-hours, expected {expected}"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any combination of role policies (built-in or downstream) runs; at every step each
    /// node has one use that the batch cluster agrees with; at the end every job, lease and
    /// task is completed, rejected, running or waiting, exactly once.
    #[test]
    fn any_roles_keep_one_use_per_node_and_account_everything(
        (nodes, w) in (2u32..16).prop_flat_map(|n| (Just(n), workload(n))),
        b in batch_choice(),
        o in on_demand_choice(),
        s in scavenging_choice(),
        step in 100i64..1_500,
    ) {
        let end = Time(9_000);
        let mut site = Site::new(SiteConfig::new(nodes, end), roles(b, o, s), w.clone())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut t = Time(0);
        while t < end {
            t = Time((t.0 + step).min(end.0));
            site.run_until(t).map_err(|e| TestCaseError::fail(format!("{b:?} {o:?} {s:?}: {e}")))?;
            site.check().map_err(|e| TestCaseError::fail(format!("{b:?} {o:?} {s:?} at {t:?}: {e}")))?;
        }
        accounted(&site.report(), &w)?;
    }

    /// Same input and seed, same report; stepping changes nothing.
    #[test]
    fn runs_are_deterministic_and_stepping_changes_nothing(
        (nodes, w) in (2u32..12).prop_flat_map(|n| (Just(n), workload(n))),
        b in batch_choice(),
        o in on_demand_choice(),
        s in scavenging_choice(),
    ) {
        let end = Time(9_000);
        let run = || Site::new(SiteConfig::new(nodes, end), roles(b, o, s), w.clone())
            .and_then(Site::run);
        let once = run().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&once, &run().map_err(|e| TestCaseError::fail(e.to_string()))?);
        let mut stepped = Site::new(SiteConfig::new(nodes, end), roles(b, o, s), w.clone())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for t in (0..=9_000).step_by(1_234).chain([9_000]) {
            stepped.run_until(Time(t)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        prop_assert_eq!(&once, &stepped.report());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// The environment (arrivals, sizes, tasks) of a seed is the same for every
    /// configuration, and scavenging never moves batch or on-demand work: each configuration
    /// with scavenging serves batch and leases exactly as the same one without it.
    #[test]
    fn the_environment_is_shared_and_scavenging_moves_no_owner_work(seed in 0u64..1_000) {
        let span = Duration::from_hours(30);
        let inputs = Inputs::generated(24, span, Duration::from_mins(5), seed)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let w = inputs.workload(seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let again = inputs.workload(seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&w.batch, &again.batch);
        prop_assert_eq!(&w.leases, &again.leases);
        prop_assert_eq!(&w.tasks, &again.tasks);
        let end = Time(0).saturating_add(span);
        let mut reports = Vec::new();
        for c in Configuration::rows() {
            let roles = c.roles(&RoleParams::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let r = Site::new(SiteConfig::new(24, end), roles, w.clone())
                .and_then(Site::run)
                .map_err(|e| TestCaseError::fail(format!("{c}: {e}")))?;
            reports.push((c.name().to_string(), r));
        }
        let get = |c: &str| reports.iter().find(|(x, _)| x == c).map(|(_, r)| r.clone());
        for (_, r) in &reports {
            prop_assert_eq!(r.batch_submitted, reports[0].1.batch_submitted);
            prop_assert_eq!(r.leases.requested, reports[0].1.leases.requested);
            prop_assert_eq!(r.scavenged_submitted, reports[0].1.scavenged_submitted);
        }
        for (without, with) in [
            ("batch", "scavenging"),
            ("batch", "cloud"),
            ("batch", "rhic"),
            ("hybrid", "all"),
            ("hybrid", "all-rhic"),
            ("balancer", "all-balancer"),
        ] {
            let (a, b) = (get(without).expect("ran"), get(with).expect("ran"));
            prop_assert_eq!(a.batch_mean_wait_s, b.batch_mean_wait_s, "{} vs {}", without, with);
            prop_assert_eq!(a.batch_mean_bounded_slowdown, b.batch_mean_bounded_slowdown);
            prop_assert_eq!(a.malleable_mean_turnaround_s, b.malleable_mean_turnaround_s);
            prop_assert_eq!(a.leases, b.leases);
            prop_assert_eq!(a.on_demand_mean_wait_s, b.on_demand_mean_wait_s);
            prop_assert_eq!(a.revocations.rigid_preemptions, b.revocations.rigid_preemptions);
        }
    }
}

/// A preemption hybrid's policy asked for: of a guest (with the job whose reservation it ran
/// on, and whether the call answered that job's arrival) or of an ordinary batch job.
#[derive(Clone, Debug)]
enum Preempted {
    Guest { at_its_arrival: bool },
    Ordinary,
}

/// Hybrid's policy, unchanged, logging each preemption it asks for.
struct Audited {
    policy: HybridPolicy,
    log: Arc<Mutex<Vec<Preempted>>>,
}

impl Audited {
    fn audit(&self, before: &HybridPolicy, obs: Option<&HObs>, commands: &[HCommand]) {
        let mut log = self.log.lock().expect("log");
        for c in commands {
            if let HCommand::Preempt { job } = *c {
                log.push(match before.guest_host(job) {
                    Some(od) => Preempted::Guest {
                        at_its_arrival: matches!(obs, Some(HObs::Arrival { job, .. }) if *job == od),
                    },
                    None => Preempted::Ordinary,
                });
            }
        }
    }
}

impl Policy for Audited {
    type Observation = HObs;
    type Command = HCommand;
    type View = dyn PlatformView;
    type Error = HybridError;

    fn observe(
        &mut self,
        now: Time,
        obs: &HObs,
        view: &Self::View,
        out: &mut Vec<HCommand>,
    ) -> Result<(), HybridError> {
        let (before, from) = (self.policy.clone(), out.len());
        self.policy.observe(now, obs, view, out)?;
        self.audit(&before, Some(obs), &out[from..]);
        Ok(())
    }

    fn wake(
        &mut self,
        now: Time,
        view: &Self::View,
        out: &mut Vec<HCommand>,
    ) -> Result<(), HybridError> {
        let (before, from) = (self.policy.clone(), out.len());
        self.policy.wake(now, view, out)?;
        self.audit(&before, None, &out[from..]);
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        self.policy.next_wake()
    }
}

/// Only the rigid jobs of a workload.
fn rigid_only(mut w: SiteWorkload) -> SiteWorkload {
    w.batch.retain(|j| matches!(j, HybridJob::Rigid { .. }));
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Guests (§III-B1) under CUA and CUP, PAA or SPAA, batch and scavenging policies of any
    /// kind: hybrid's policy preempts a guest only when the lease whose reservation it runs on
    /// arrives, and the site counts those preemptions apart from the ordinary ones, exactly;
    /// every node-hour is still counted once.
    #[test]
    fn guests_are_preempted_at_their_arrival_and_counted_apart(
        (nodes, w) in (2u32..16).prop_flat_map(|n| (Just(n), workload(n))),
        b in batch_choice(),
        notice in prop_oneof![Just(NoticeStrategy::Cua), Just(NoticeStrategy::Cup)],
        arrival in prop_oneof![Just(MechanismKind::Paa), Just(MechanismKind::Spaa)],
        s in scavenging_choice(),
    ) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let policy = Audited {
            policy: HybridPolicy::new(Composite::new(notice, arrival)),
            log: Arc::clone(&log),
        };
        let mut roles = roles(b, OnDemandChoice::Queue, s);
        roles.on_demand = OnDemandRole::hybrid(policy);
        let mut site = Site::new(SiteConfig::new(nodes, Time(9_000)), roles, w.clone())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for t in (0..=9_000).step_by(500) {
            site.run_until(Time(t)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            site.check().map_err(|e| TestCaseError::fail(format!("at {t}: {e}")))?;
        }
        let r = site.report();
        accounted(&r, &w)?;
        let log = log.lock().expect("log").clone();
        let guests = log.iter().filter(|p| matches!(p, Preempted::Guest { .. })).count();
        prop_assert!(
            log.iter().all(|p| !matches!(p, Preempted::Guest { at_its_arrival: false })),
            "{log:?}"
        );
        prop_assert_eq!(guests as u64, r.revocations.guest_preemptions);
        prop_assert_eq!(
            (log.len() - guests) as u64,
            r.revocations.rigid_preemptions + r.revocations.malleable_preemptions
        );
        prop_assert!(r.guest_starts as u64 >= r.revocations.guest_preemptions);
    }

    /// Hybrid's baseline (its policy without a mechanism, Table III) on the site is the site's
    /// own `QueueAsBatch` on rigid work, whatever the batch and scavenging policies: the same
    /// report to the bit. (Under the site's protocol the site expands malleable jobs itself;
    /// the baseline does not.)
    #[test]
    fn hybrids_baseline_on_the_site_is_queue_as_batch(
        (nodes, w) in (2u32..16).prop_flat_map(|n| (Just(n), workload(n).prop_map(rigid_only))),
        b in batch_choice(),
        s in scavenging_choice(),
    ) {
        let run = |on_demand| {
            let mut roles = roles(b, OnDemandChoice::Queue, s);
            roles.on_demand = on_demand;
            Site::new(SiteConfig::new(nodes, Time(9_000)), roles, w.clone()).and_then(Site::run)
        };
        let queued = run(OnDemandRole::site(QueueAsBatch)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let baseline = run(OnDemandRole::hybrid(HybridPolicy::baseline()))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(queued, baseline);
    }
}
