//! The scavenging pool sized through RHIC's protocol (Clay et al. §4): by RHIC's controller,
//! the decisions it makes over periods on the site's residual capacity, and the nodes lent
//! never exceeding the idle nodes nor its decision; by its baselines (FUZZY, Threshold,
//! Fixed, §5.2–5.3) and by a policy written here.

use std::sync::{Arc, Mutex};

use cosched_albatross::policy::NoScaling;
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, RigidJob, Time};
use cosched_hybrid::workload::HybridJob;
use cosched_rhic::baseline::{Baseline, Fuzzy, Rule};
use cosched_rhic::policy::{Assignment, Command as RCommand, Observation as RObs};
use cosched_rhic::{CostModel, Goal, PowerModel, SizingKind};
use cosched_site::{
    HtcPool, OnDemandRole, PoolCycle, QueueAsBatch, RhicSizer, RhicSizing, Roles,
    ScavengingCommand, Site, SiteConfig, SiteError, SiteReport, SiteState, SiteWorkload, Sizer,
    Task,
};
use proptest::prelude::*;

/// One negotiation cycle as the pool's policy saw it.
#[derive(Clone, Debug)]
struct Row {
    at: Time,
    /// Nodes lent when the cycle began, and batch-idle nodes then.
    lent_before: u32,
    idle: usize,
    /// RHIC's decision before the cycle and after it, and how the latter was reached.
    decision_before: Option<usize>,
    decision: Option<usize>,
    kind: Option<SizingKind>,
    /// Nodes lent on RHIC's commands after the cycle.
    lent_after: usize,
}

/// What a sizing policy says of how it reached its last decision.
type KindOf<P> = fn(&P) -> Option<SizingKind>;

/// The built-in pool sized by a policy of RHIC's protocol, logging every cycle.
struct Logged<P> {
    pool: HtcPool<RhicSizer<P>, NoScaling>,
    kind: KindOf<P>,
    log: Arc<Mutex<Vec<Row>>>,
}

impl<P> Logged<P>
where
    P: Policy<Observation = RObs, Command = RCommand, View = ()>,
    P::Error: std::fmt::Display,
{
    fn rhic(&self) -> Option<&RhicSizer<P>> {
        Some(self.pool.sizer())
    }
}

impl<P> Policy for Logged<P>
where
    P: Policy<Observation = RObs, Command = RCommand, View = ()>,
    P::Error: std::fmt::Display,
{
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = SiteError;

    fn start(
        &mut self,
        now: Time,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        self.pool.start(now, view, out)
    }

    fn observe(
        &mut self,
        now: Time,
        cycle: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        let decision_before = self.rhic().and_then(|r| r.decision());
        self.pool.observe(now, cycle, view, out)?;
        let r = self.rhic();
        let row = Row {
            at: now,
            lent_before: cycle.lent,
            idle: view.batch_idle_count(),
            decision_before,
            decision: r.and_then(|r| r.decision()),
            kind: r.and_then(|r| (self.kind)(r.policy())),
            lent_after: r.map_or(0, |r| r.lent()),
        };
        self.log
            .lock()
            .map_err(|e| SiteError::role("log", e))?
            .push(row);
        Ok(())
    }
}

fn rigid(id: u64, submit: i64, size: u32, run: i64) -> HybridJob {
    HybridJob::Rigid {
        job: RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run))
            .expect("valid job"),
        setup: Duration(0),
    }
}

fn task(id: u64, submit: i64, work: i64) -> Task {
    Task {
        id,
        bag: 0,
        submit: Time(submit),
        work: Duration(work),
        ad: 0,
    }
}

fn run(nodes: u32, end: i64, sizing: RhicSizing, workload: SiteWorkload) -> (SiteReport, Vec<Row>) {
    let sizer = RhicSizer::new(sizing).expect("sizing");
    run_with(
        nodes,
        end,
        sizer,
        |r| r.last_sizing().map(|s| s.kind),
        workload,
    )
}

fn run_with<P>(
    nodes: u32,
    end: i64,
    sizer: RhicSizer<P>,
    kind: KindOf<P>,
    workload: SiteWorkload,
) -> (SiteReport, Vec<Row>)
where
    P: Policy<Observation = RObs, Command = RCommand, View = ()> + Send + 'static,
    P::Error: std::fmt::Display,
{
    let log = Arc::new(Mutex::new(Vec::new()));
    let pool = Logged {
        pool: HtcPool::new(sizer, NoScaling),
        kind,
        log: Arc::clone(&log),
    };
    let roles = Roles {
        batch: Box::new(cosched_batch::scenario::easy()),
        on_demand: OnDemandRole::site(QueueAsBatch),
        scavenging: Some(Box::new(pool)),
    };
    let mut site = Site::new(SiteConfig::new(nodes, Time(end)), roles, workload).expect("site");
    site.run_until(Time(end)).expect("run");
    site.check().expect("invariants");
    let rows = log.lock().expect("log").clone();
    (site.report(), rows)
}

/// 300 two-hour tasks on an idle 200-node site; from 1 h to 2 h a batch job takes 150 nodes.
/// RHIC (cost goal at the paper's prices, one submit host at 1 % disk per running task, all
/// ours but the prices) starts with Algorithm 1: period 1 is Eq. 3's worst case,
/// `(1/0.01 − 1) · 1 = 99` volunteers beside the base node; the disk then reads
/// `0.01 · 100 = 100 %`, past the 90 % saturation, so scaling stops (line 8) and the search
/// holds the pool. When batch takes nodes the pool shrinks to the 50 left idle (the base and
/// 49 volunteers); when they return, the search keeps 50: at the
/// remaining work, the straggler padding's cost on every extra volunteer (half a task each,
/// §4.3) outweighs the time saved.
#[test]
fn rhic_sizes_the_pool_over_periods_on_the_residual_capacity() {
    let workload = SiteWorkload {
        batch: vec![rigid(1, 3_600, 150, 3_600)],
        leases: vec![],
        tasks: (0..300).map(|i| task(i, 0, 7_200)).collect(),
        ..SiteWorkload::default()
    };
    let (report, rows) = run(200, 20_000, RhicSizing::default(), workload);
    let at = |t: i64| rows.iter().find(|r| r.at == Time(t)).expect("a cycle");
    assert_eq!(
        (at(0).decision, at(0).kind),
        (Some(100), Some(SizingKind::Scaling(1)))
    );
    assert_eq!(
        (at(60).decision, at(60).kind),
        (Some(100), Some(SizingKind::Search))
    );
    assert_eq!((at(3_600).idle, at(3_600).decision), (50, Some(50)));
    assert_eq!(at(3_600).lent_after, 50);
    assert_eq!((at(7_260).idle, at(7_260).decision), (200, Some(50)));
    assert_eq!(report.batch_mean_wait_s, 0.0);
    assert!(report.scavenged_completed > 0);
}

/// 30 half-hour tasks on an idle 200-node site: Algorithm 1's first period lends a node per
/// task (the residual capacity the pool can use: Eq. 3's 99 volunteers capped at the 29 tasks
/// beside the base), then the search (cost goal) trims the pool to 6 (the straggler padding
/// priced on every volunteer) and grows it to 15 as the curve learns; under the energy goal
/// too, every task completes, and the nodes lent stay within each decision.
#[test]
fn rhic_changes_a_small_pool_over_periods_under_cost_and_energy() {
    let workload = SiteWorkload {
        batch: vec![],
        leases: vec![],
        tasks: (0..30).map(|i| task(i, 0, 1_800)).collect(),
        ..SiteWorkload::default()
    };
    let (_, rows) = run(200, 10_000, RhicSizing::default(), workload.clone());
    let first: Vec<Option<usize>> = rows.iter().take(3).map(|r| r.decision).collect();
    assert_eq!(first, [Some(30), Some(6), Some(15)]);
    for goal in [
        Goal::Cost(CostModel::default()),
        Goal::Energy(PowerModel::arc()),
    ] {
        let sizing = RhicSizing {
            goal,
            ..RhicSizing::default()
        };
        let (report, rows) = run(200, 10_000, sizing, workload.clone());
        assert_eq!(report.scavenged_completed, 30, "{goal:?}");
        assert!(
            rows.iter()
                .all(|r| r.decision.is_some_and(|d| r.lent_after <= d))
        );
    }
}

fn workload(nodes: u32) -> impl Strategy<Value = SiteWorkload> {
    let job = (0i64..20_000, 1u32..=nodes, 60i64..6_000);
    let bag = (0i64..20_000, 1u32..40, 60i64..5_000);
    (
        prop::collection::vec(job, 0..25),
        prop::collection::vec(bag, 1..6),
    )
        .prop_map(|(jobs, bags)| {
            let batch = jobs
                .into_iter()
                .enumerate()
                .map(|(i, (submit, size, run))| rigid(i as u64 + 1, submit, size, run))
                .collect();
            let mut tasks = Vec::new();
            for (submit, n, work) in bags {
                for k in 0..n {
                    tasks.push((submit, work + i64::from(k) * 37));
                }
            }
            tasks.sort_unstable();
            let tasks = tasks
                .into_iter()
                .enumerate()
                .map(|(i, (submit, work))| task(i as u64, submit, work))
                .collect();
            SiteWorkload {
                batch,
                leases: vec![],
                tasks,
                ..SiteWorkload::default()
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Whatever the work, the owners and RHIC's parameters: at every cycle the nodes lent are
    /// batch-idle and within RHIC's last decision, and after its commands within the new one.
    #[test]
    fn lent_nodes_never_exceed_idle_nodes_nor_rhics_decision(
        w in workload(48),
        bw_util in 0.005f64..0.5,
        dedicated in 1u32..4,
        energy in any::<bool>(),
    ) {
        let goal = if energy {
            Goal::Energy(PowerModel::arc())
        } else {
            Goal::Cost(CostModel::default())
        };
        let sizing = RhicSizing { goal, dedicated, bw_util, ..RhicSizing::default() };
        let (report, rows) = run(48, 30_000, sizing, w.clone());
        prop_assert!(!rows.is_empty());
        for r in &rows {
            prop_assert!(r.lent_before as usize <= r.idle, "{r:?}");
            prop_assert!(r.lent_before as usize <= r.decision_before.unwrap_or(0), "{r:?}");
            prop_assert!(r.lent_after <= r.decision.unwrap_or(0), "{r:?}");
            prop_assert!(r.lent_after <= r.idle, "{r:?}");
        }
        prop_assert_eq!(
            report.scavenged_completed + report.scavenged_running + report.scavenged_queued,
            w.tasks.len()
        );
    }
}

/// Each cycle's time and the sizer's commands.
type CommandLog = Vec<(Time, Vec<ScavengingCommand>)>;

/// The pool sized by RHIC, its commands logged every cycle; with `afresh`, the idle nodes
/// read afresh every cycle instead of the changes since the last one.
struct Commands {
    sizer: RhicSizer,
    afresh: bool,
    log: Arc<Mutex<CommandLog>>,
}

impl Sizer for Commands {
    fn size(
        &mut self,
        now: Time,
        cycle: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<u32, SiteError> {
        if self.afresh {
            self.sizer.read_afresh();
        }
        let from = out.len();
        let lent = self.sizer.size(now, cycle, view, out)?;
        self.log
            .lock()
            .map_err(|e| SiteError::role("log", e))?
            .push((now, out[from..].to_vec()));
        Ok(lent)
    }
}

fn commands(
    nodes: u32,
    sizing: RhicSizing,
    afresh: bool,
    workload: SiteWorkload,
) -> (SiteReport, CommandLog) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sizer = Commands {
        sizer: RhicSizer::new(sizing).expect("sizing"),
        afresh,
        log: Arc::clone(&log),
    };
    let roles = Roles {
        batch: Box::new(cosched_batch::scenario::easy()),
        on_demand: OnDemandRole::site(QueueAsBatch),
        scavenging: Some(Box::new(HtcPool::new(sizer, NoScaling))),
    };
    let site = Site::new(SiteConfig::new(nodes, Time(30_000)), roles, workload).expect("site");
    let report = site.run().expect("run");
    let log = log.lock().expect("log").clone();
    (report, log)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Reading only the nodes whose batch-idle state changed since the last cycle (and the
    /// volunteers RHIC sent away) gives RHIC the candidates reading every idle node gives:
    /// the same commands at every cycle, the same report.
    #[test]
    fn incremental_reads_of_the_idle_nodes_equal_fresh_ones(
        w in workload(48),
        bw_util in 0.005f64..0.5,
        dedicated in 1u32..4,
    ) {
        let sizing = RhicSizing { dedicated, bw_util, ..RhicSizing::default() };
        let incremental = commands(48, sizing, false, w.clone());
        let afresh = commands(48, sizing, true, w);
        prop_assert!(!incremental.1.is_empty());
        prop_assert_eq!(incremental, afresh);
    }
}

/// 60 half-hour tasks on an idle 200-node site, D = 1: the residual capacity the pool can use
/// is a node per task beside the base, 59 nodes.
fn sixty_tasks() -> SiteWorkload {
    SiteWorkload {
        tasks: (0..60).map(|i| task(i, 0, 1_800)).collect(),
        ..SiteWorkload::default()
    }
}

fn baseline(rule: Rule) -> RhicSizer<Baseline> {
    let sizing = RhicSizing::default();
    let policy = Baseline::new(rule, 1.0, sizing.goal, sizing.interval).expect("baseline");
    RhicSizer::with_policy(policy, sizing).expect("sizing")
}

fn kind_of(b: &Baseline) -> Option<SizingKind> {
    b.last_sizing().map(|s| s.kind)
}

/// Fixed (the targeted framework, §5.2): the pool is `D` + 8 from the first decision (the
/// profile comes with the first progress report), whatever the work, while the tasks left
/// keep that many nodes busy.
#[test]
fn a_fixed_size_sizes_the_pool() {
    let (report, rows) = run_with(
        200,
        20_000,
        baseline(Rule::Fixed(8)),
        kind_of,
        sixty_tasks(),
    );
    assert_eq!(report.scavenged_completed, 60);
    assert!(
        rows[..20]
            .iter()
            .all(|r| r.decision == Some(9) && r.lent_after == 9)
    );
    assert_eq!(rows[0].kind, Some(SizingKind::Rule));
}

/// Threshold (§5.3): every node whose residual exceeds `θ · CPU_max`: every idle node the
/// pool can use, 59 volunteers beside the base.
#[test]
fn threshold_takes_every_usable_idle_node() {
    let (report, rows) = run_with(
        200,
        20_000,
        baseline(Rule::Threshold(0.5)),
        kind_of,
        sixty_tasks(),
    );
    assert_eq!(report.scavenged_completed, 60);
    assert_eq!(rows[1].decision, Some(60));
    assert_eq!(rows[1].lent_after, 60);
}

/// FUZZY (§5.3, after Liu et al.): the pool goes to the manual start `S` and stays there
/// while its measure (dollars per unit of work) is flat, inside the dead-band, as it is while
/// every lent node runs a task; the nodes lent stay within each decision.
#[test]
fn fuzzy_starts_at_its_start_and_holds_in_its_dead_band() {
    let fuzzy = Fuzzy::new(4, 10, 0.02).expect("fuzzy");
    let (report, rows) = run_with(
        200,
        20_000,
        baseline(Rule::Fuzzy(fuzzy)),
        kind_of,
        sixty_tasks(),
    );
    assert_eq!(report.scavenged_completed, 60);
    assert!(rows[..20].iter().all(|r| r.decision == Some(11)), "D + S");
    assert!(
        rows.iter()
            .all(|r| r.decision.is_some_and(|d| r.lent_after <= d))
    );
}

/// A policy of RHIC's protocol written here, which never fails: half the candidates it has
/// been told of, at every progress report.
#[derive(Default)]
struct HalfTheCandidates {
    candidates: std::collections::BTreeSet<cosched_core::NodeId>,
    joined: std::collections::BTreeSet<cosched_core::NodeId>,
}

impl Policy for HalfTheCandidates {
    type Observation = RObs;
    type Command = RCommand;
    type View = ();
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        _: Time,
        obs: &RObs,
        _: &(),
        out: &mut Vec<RCommand>,
    ) -> Result<(), Self::Error> {
        match *obs {
            RObs::Node { node, .. } => {
                self.candidates.insert(node);
            }
            RObs::Left(node) => {
                self.candidates.remove(&node);
                self.joined.remove(&node);
            }
            RObs::Progress { .. } => {
                let want: Vec<_> = self.candidates.iter().step_by(2).copied().collect();
                for &node in &want {
                    if self.joined.insert(node) {
                        out.push(RCommand::Join(Assignment { node, slots: 1 }));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Any policy of RHIC's protocol sizes the pool, one with `Error = Infallible` included: here
/// half the 59 usable idle nodes, 30, beside the base.
#[test]
fn a_policy_written_here_sizes_the_pool() {
    let sizer = RhicSizer::with_policy(HalfTheCandidates::default(), RhicSizing::default())
        .expect("sizing");
    let (report, rows) = run_with(200, 20_000, sizer, |_| None, sixty_tasks());
    assert_eq!(report.scavenged_completed, 60);
    assert_eq!((rows[0].decision, rows[0].lent_after), (Some(31), 31));
}
