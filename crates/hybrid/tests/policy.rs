//! `HybridPolicy` on the protocol, without the simulator: each step of N/CUA/CUP × PAA/SPAA
//! as observations in and commands out over a hand-built platform view, CUP plans cancelled
//! and re-planned, and a property test that a job shrunk for several on-demand jobs gets back
//! from each exactly what it lent.

use cosched_batch::Shadow;
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, NodeId, Time};
use cosched_hybrid::Composite;
use cosched_hybrid::HybridError;
use cosched_hybrid::checkpoint::Checkpointing;
use cosched_hybrid::mechanism::{MechanismKind, RunningKind, RunningView};
use cosched_hybrid::notice::{Notice, NoticeStrategy, PlannedJob};
use cosched_hybrid::policy::{
    BatchPass, Command, HybridPolicy, Lender, Observation, PlatformView, RunInfo, StartInfo,
};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// A platform as the policy sees it, edited by hand (and by [`Fake::apply`] for resizes).
#[derive(Default)]
struct Fake {
    idle: Vec<NodeId>,
    reserved: BTreeMap<NodeId, JobId>,
    running: Vec<PlannedJob>,
    queued: BTreeSet<JobId>,
    held: BTreeMap<JobId, u32>,
    queue_len: usize,
    /// `None`: EASY's head reservation leaves no room (no expansion).
    shadow: Option<Shadow>,
}

impl Fake {
    fn rigid(&mut self, id: u64, size: u32, elapsed: i64) {
        self.running.push(PlannedJob {
            view: RunningView {
                id: JobId(id),
                size,
                setup: Duration(10),
                kind: RunningKind::Rigid {
                    work: Duration(100_000),
                    elapsed: Duration(elapsed),
                    checkpoints: Some(Checkpointing {
                        interval: Duration(1_000),
                        cost: Duration(0),
                    }),
                },
            },
            run_start: Time(-elapsed),
            predicted_end: Time(100_000),
        });
    }

    fn malleable(&mut self, id: u64, size: u32, min_size: u32, max_size: u32) {
        self.running.push(PlannedJob {
            view: RunningView {
                id: JobId(id),
                size,
                setup: Duration(5),
                kind: RunningKind::Malleable { min_size, max_size },
            },
            run_start: Time(0),
            predicted_end: Time(100_000),
        });
    }

    fn size(&self, id: u64) -> Option<u32> {
        self.running
            .iter()
            .find(|p| p.view.id == JobId(id))
            .map(|p| p.view.size)
    }

    /// Resizes and preemptions change the running jobs; idle nodes are not modelled.
    fn apply(&mut self, commands: &[Command]) {
        for command in commands {
            match *command {
                Command::Resize { job, to } => {
                    if let Some(p) = self.running.iter_mut().find(|p| p.view.id == job) {
                        p.view.size = to;
                    }
                }
                Command::Preempt { job } => {
                    self.running.retain(|p| p.view.id != job);
                    self.queued.insert(job);
                }
                _ => {}
            }
        }
    }
}

impl PlatformView for Fake {
    fn idle_nodes(&self, n: usize) -> Vec<NodeId> {
        self.idle.iter().take(n).copied().collect()
    }

    fn idle_count(&self) -> u32 {
        self.idle.len() as u32
    }

    fn reserved_for(&self, node: NodeId) -> Option<JobId> {
        self.reserved.get(&node).copied()
    }

    fn running(&self, _now: Time) -> Vec<PlannedJob> {
        self.running.clone()
    }

    fn run(&self, job: JobId) -> Option<RunInfo> {
        let p = self.running.iter().find(|p| p.view.id == job)?;
        Some(RunInfo {
            size: p.view.size,
            predicted_end: p.predicted_end,
            started: p.run_start,
        })
    }

    fn is_queued(&self, job: JobId) -> bool {
        self.queued.contains(&job)
    }

    fn held(&self, job: JobId) -> u32 {
        self.held.get(&job).copied().unwrap_or(0)
    }

    fn queue_len(&self) -> usize {
        self.queue_len
    }

    fn queue_epoch(&self) -> u64 {
        0
    }

    fn head_shadow(&self, now: Time) -> Option<Shadow> {
        Some(self.shadow.unwrap_or(Shadow {
            time: now,
            extra: 0,
        }))
    }
}

/// One observation at a time, as an executor delivers them.
trait Calls {
    fn call(
        &mut self,
        now: Time,
        obs: Observation,
        view: &Fake,
    ) -> Result<Vec<Command>, HybridError>;
    fn notice(
        &mut self,
        now: Time,
        notice: Notice,
        view: &Fake,
    ) -> Result<Vec<Command>, HybridError> {
        self.call(now, Observation::Notice(notice), view)
    }
    fn arrive(
        &mut self,
        now: Time,
        job: JobId,
        size: u32,
        view: &Fake,
    ) -> Result<Vec<Command>, HybridError> {
        self.call(now, Observation::Arrival { job, size }, view)
    }
    fn od_end(&mut self, now: Time, job: JobId) {
        let cmds = self.call(now, Observation::OnDemandEnded { job }, &Fake::default());
        assert_eq!(cmds, Ok(vec![]));
    }
    fn started(&mut self, start: StartInfo) {
        let cmds = self.call(Time(0), Observation::Started(start), &Fake::default());
        assert_eq!(cmds, Ok(vec![]));
    }
    /// The policy's next wake, delivered at `now`.
    fn tick(&mut self, now: Time, view: &Fake) -> Vec<Command>;
}

impl Calls for HybridPolicy {
    fn call(
        &mut self,
        now: Time,
        obs: Observation,
        view: &Fake,
    ) -> Result<Vec<Command>, HybridError> {
        let mut out = Vec::new();
        self.observe(now, &obs, view, &mut out)?;
        Ok(out)
    }
    fn tick(&mut self, now: Time, view: &Fake) -> Vec<Command> {
        let mut out = Vec::new();
        cosched_core::policy::wake_due(self, now, view as &dyn PlatformView, &mut out).unwrap();
        out
    }
}

fn nodes(ids: std::ops::Range<u32>) -> Vec<NodeId> {
    ids.map(NodeId).collect()
}

fn policy(notice: NoticeStrategy, arrival: MechanismKind) -> HybridPolicy {
    HybridPolicy::new(Composite::new(notice, arrival))
}

/// Every command of a full settle, with the fake applying each round.
fn settle(policy: &mut HybridPolicy, now: Time, view: &mut Fake) -> Vec<Command> {
    let mut all = Vec::new();
    for round in 0.. {
        let commands = policy
            .call(now, Observation::Settle { round }, view)
            .unwrap();
        if commands.is_empty() {
            break;
        }
        view.apply(&commands);
        all.extend(commands);
    }
    all
}

fn malleable_start(id: u64, size: u32, max: u32) -> StartInfo {
    StartInfo {
        job: JobId(id),
        submit: Time(id as i64),
        size,
        max_size: Some(max),
        guest_of: None,
    }
}

#[test]
fn the_baseline_queues_on_demand_jobs_and_runs_only_the_site_pass() {
    let mut view = Fake {
        idle: nodes(0..8),
        ..Fake::default()
    };
    let mut p = HybridPolicy::baseline();
    assert!(!p.listens_to_notices());
    let notice = Notice {
        job: JobId(9),
        size: 2,
        at: Time(0),
        estimated_arrival: Time(100),
    };
    assert_eq!(p.notice(Time(0), notice, &view).unwrap(), vec![]);
    assert_eq!(
        p.arrive(Time(0), JobId(9), 2, &view).unwrap(),
        vec![Command::Submit { job: JobId(9) }]
    );
    assert_eq!(
        settle(&mut p, Time(0), &mut view),
        vec![Command::Schedule(BatchPass::Site {
            resize_malleable: false
        })]
    );
}

#[test]
fn paa_takes_idle_nodes_then_preempts_the_cheapest_and_owes_it_its_nodes() {
    let mut view = Fake {
        idle: nodes(0..1),
        ..Fake::default()
    };
    // Job 1 is 500 s past its checkpoint at 1,010 s; job 2 just checkpointed.
    view.rigid(1, 2, 1_500);
    view.rigid(2, 2, 2_015);
    let mut p = policy(NoticeStrategy::N, MechanismKind::Paa);
    let cmds = p.arrive(Time(0), JobId(9), 3, &view).unwrap();
    assert_eq!(
        cmds,
        vec![
            Command::AssignIdle {
                job: JobId(9),
                count: 3
            },
            Command::Preempt { job: JobId(2) },
            Command::AssignIdle {
                job: JobId(9),
                count: 2
            },
            Command::StartOnDemand { job: JobId(9) },
        ]
    );
    assert_eq!(p.lenders(JobId(9)), &[Lender::Preempted(JobId(2))]);
    // When the on-demand job ends, the preempted job, still queued, is started first.
    view.apply(&cmds);
    p.od_end(Time(50), JobId(9));
    assert!(p.lenders(JobId(9)).is_empty());
    let cmds = settle(&mut p, Time(50), &mut view);
    assert_eq!(
        cmds[0],
        Command::Schedule(BatchPass::Listed(vec![JobId(2)]))
    );
}

#[test]
fn an_arrival_that_cannot_be_served_waits_at_the_front_holding_nothing() {
    let mut view = Fake {
        idle: nodes(0..2),
        ..Fake::default()
    };
    view.rigid(1, 2, 100);
    let mut p = policy(NoticeStrategy::N, MechanismKind::Spaa);
    let cmds = p.arrive(Time(0), JobId(9), 6, &view).unwrap();
    assert_eq!(
        cmds,
        vec![
            Command::AssignIdle {
                job: JobId(9),
                count: 6
            },
            Command::Unassign { job: JobId(9) },
        ]
    );
    assert_eq!(p.waiting().collect::<Vec<_>>(), vec![JobId(9)]);
    // Later, 4 idle nodes and 2 already gathered: the front job takes 4 and starts.
    view.idle = nodes(10..20);
    view.held.insert(JobId(9), 2);
    let cmds = settle(&mut p, Time(10), &mut view);
    assert_eq!(
        &cmds[..2],
        &[
            Command::AssignIdle {
                job: JobId(9),
                count: 4
            },
            Command::StartOnDemand { job: JobId(9) },
        ]
    );
    assert_eq!(p.waiting().count(), 0);
}

#[test]
fn spaa_shrinks_evenly_and_each_on_demand_job_returns_only_its_own_loan() {
    let mut view = Fake::default();
    view.malleable(1, 8, 2, 8);
    view.malleable(2, 8, 2, 8);
    let mut p = policy(NoticeStrategy::N, MechanismKind::Spaa);
    p.started(malleable_start(1, 8, 8));
    p.started(malleable_start(2, 8, 8));
    let first = p.arrive(Time(0), JobId(10), 4, &view).unwrap();
    assert!(first.contains(&Command::Resize {
        job: JobId(1),
        to: 6
    }));
    assert!(first.contains(&Command::Resize {
        job: JobId(2),
        to: 6
    }));
    view.apply(&first);
    let second = p.arrive(Time(1), JobId(11), 2, &view).unwrap();
    view.apply(&second);
    assert_eq!((view.size(1), view.size(2)), (Some(5), Some(5)));
    assert!(p.is_expandable(JobId(1)));
    // The first on-demand job ends: each job gets back the 2 nodes it lent to it, not 3.
    view.idle = nodes(0..4);
    p.od_end(Time(5), JobId(10));
    let cmds = settle(&mut p, Time(5), &mut view);
    assert!(cmds.contains(&Command::Resize {
        job: JobId(1),
        to: 7
    }));
    assert_eq!((view.size(1), view.size(2)), (Some(7), Some(7)));
    view.idle = nodes(0..2);
    p.od_end(Time(6), JobId(11));
    settle(&mut p, Time(6), &mut view);
    assert_eq!((view.size(1), view.size(2)), (Some(8), Some(8)));
    assert!(!p.is_expandable(JobId(1)));
}

#[test]
fn cua_reserves_collects_and_hands_its_nodes_over_at_the_arrival() {
    let mut view = Fake {
        idle: nodes(0..1),
        ..Fake::default()
    };
    let mut p = policy(NoticeStrategy::Cua, MechanismKind::Paa);
    let notice = Notice {
        job: JobId(9),
        size: 3,
        at: Time(0),
        estimated_arrival: Time(1_000),
    };
    let cmds = p.notice(Time(0), notice, &view).unwrap();
    assert_eq!(
        cmds,
        vec![Command::Reserve {
            job: JobId(9),
            nodes: nodes(0..1)
        },]
    );
    // Woken 10 minutes after the estimated arrival to release the reservation.
    assert_eq!(p.next_wake(), Some(Time(1_600)));
    view.reserved.insert(NodeId(0), JobId(9));
    // Two nodes free up: the reservation collects them.
    view.idle = nodes(5..7);
    let cmds = settle(&mut p, Time(10), &mut view);
    assert_eq!(
        cmds[0],
        Command::Reserve {
            job: JobId(9),
            nodes: nodes(5..7)
        }
    );
    view.idle.clear();
    let cmds = p.arrive(Time(900), JobId(9), 3, &view).unwrap();
    assert_eq!(
        cmds,
        vec![
            Command::Assign {
                job: JobId(9),
                nodes: vec![NodeId(0), NodeId(5), NodeId(6)]
            },
            Command::StartOnDemand { job: JobId(9) },
        ]
    );
}

#[test]
fn reserved_idle_nodes_run_guests_who_are_preempted_at_the_arrival() {
    let mut view = Fake {
        idle: nodes(0..2),
        queue_len: 3,
        ..Fake::default()
    };
    let mut p = policy(NoticeStrategy::Cua, MechanismKind::Paa);
    let notice = Notice {
        job: JobId(9),
        size: 2,
        at: Time(0),
        estimated_arrival: Time(1_000),
    };
    p.notice(Time(0), notice, &view).unwrap();
    view.idle.clear();
    for n in 0..2 {
        view.reserved.insert(NodeId(n), JobId(9));
    }
    let cmds = settle(&mut p, Time(0), &mut view);
    assert_eq!(
        cmds[0],
        Command::Schedule(BatchPass::Guests {
            for_job: JobId(9),
            nodes: nodes(0..2),
            arrival: Time(1_000),
        })
    );
    // A guest started on them; asked again with nothing changed, nothing more is lent.
    p.started(StartInfo {
        job: JobId(4),
        submit: Time(0),
        size: 2,
        max_size: None,
        guest_of: Some(JobId(9)),
    });
    assert_eq!(p.guest_host(JobId(4)), Some(JobId(9)));
    view.reserved.clear();
    let cmds = p.arrive(Time(1_000), JobId(9), 2, &view).unwrap();
    assert_eq!(
        &cmds[..2],
        &[
            Command::Preempt { job: JobId(4) },
            Command::Reserve {
                job: JobId(9),
                nodes: nodes(0..2)
            },
        ]
    );
    assert_eq!(p.guest_host(JobId(4)), None);
}

fn cup_setup() -> (HybridPolicy, Fake, Vec<Command>) {
    let mut view = Fake::default();
    view.rigid(1, 4, 0);
    let mut p = policy(NoticeStrategy::Cup, MechanismKind::Paa);
    let notice = Notice {
        job: JobId(9),
        size: 4,
        at: Time(0),
        estimated_arrival: Time(1_000),
    };
    let cmds = p.notice(Time(0), notice, &view).unwrap();
    (p, view, cmds)
}

/// When the policy wants to carry out its plans, earliest first.
fn planned(p: &HybridPolicy) -> Vec<Time> {
    let mut at: Vec<Time> = p.plans().map(|plan| plan.at).collect();
    at.sort();
    at
}

#[test]
fn cup_plans_a_preemption_and_carries_it_out_while_the_reservation_is_short() {
    let (mut p, view, _) = cup_setup();
    let timers = planned(&p);
    assert_eq!(timers.len(), 1);
    assert_eq!(p.next_wake(), Some(timers[0]));
    // Not due yet: nothing.
    assert_eq!(p.tick(timers[0] - Duration(1), &view), vec![]);
    let cmds = p.tick(timers[0], &view);
    assert_eq!(cmds, vec![Command::Preempt { job: JobId(1) }]);
    assert_eq!(p.lenders(JobId(9)), &[Lender::Preempted(JobId(1))]);
    assert_eq!(p.plans().count(), 0);
    // Only the reservation's expiry is left to wake for.
    assert_eq!(p.next_wake(), Some(Time(1_600)));
}

#[test]
fn a_plan_survives_a_resize_of_its_target() {
    let mut view = Fake::default();
    view.malleable(1, 4, 1, 4);
    let mut p = policy(NoticeStrategy::Cup, MechanismKind::Spaa);
    let notice = Notice {
        job: JobId(9),
        size: 4,
        at: Time(0),
        estimated_arrival: Time(1_000),
    };
    p.notice(Time(0), notice, &view).unwrap();
    assert_eq!(planned(&p), vec![Time(880)]);
    // Shrunk for another on-demand job meanwhile: the same run, still preempted.
    view.apply(&[Command::Resize {
        job: JobId(1),
        to: 2,
    }]);
    assert_eq!(
        p.tick(Time(880), &view),
        vec![Command::Preempt { job: JobId(1) }]
    );
}

#[test]
fn an_early_arrival_cancels_cups_plans() {
    let (mut p, mut view, _) = cup_setup();
    let timers = planned(&p);
    view.idle = nodes(0..4);
    p.arrive(Time(0), JobId(9), 4, &view).unwrap();
    assert_eq!(p.plans().count(), 0);
    assert_eq!(p.next_wake(), None);
    assert_eq!(p.tick(timers[0], &view), vec![]);
}

#[test]
fn an_expired_reservation_cancels_its_plans_and_returns_its_lenders() {
    let (mut p, view, _) = cup_setup();
    let cmds = p.tick(Time(1_600), &view);
    assert_eq!(
        cmds,
        vec![Command::Release {
            job: JobId(9),
            nodes: vec![]
        }]
    );
    assert_eq!(p.plans().count(), 0);
    assert_eq!(p.next_wake(), None);
}

#[test]
fn a_changed_notice_replans_and_a_stale_run_is_not_preempted() {
    let (mut p, view, _) = cup_setup();
    let old: Vec<_> = p.plans().copied().collect();
    // The job now says it needs 2 nodes and comes later: the old plan goes, a new one is
    // made for the new estimate and expiry.
    let notice = Notice {
        job: JobId(9),
        size: 2,
        at: Time(100),
        estimated_arrival: Time(2_000),
    };
    p.notice(Time(100), notice, &view).unwrap();
    let new: Vec<_> = p.plans().copied().collect();
    assert_eq!(new.len(), 1);
    assert_ne!(new, old);
    assert_eq!(p.next_wake(), Some(new[0].at));
    assert_eq!(p.board().reservations().next().map(|r| r.size), Some(2));
    // The target has since been preempted and restarted (another run): nothing happens.
    let mut restarted = Fake::default();
    restarted.rigid(1, 4, 0);
    restarted.running[0].run_start = Time(7);
    assert_eq!(p.tick(new[0].at, &restarted), vec![]);
    assert_eq!(p.plans().count(), 0);
    // The expiry follows the new estimate.
    assert_eq!(p.next_wake(), Some(Time(2_600)));
}

/// §III-B4: "if a job was shrunk and is still running, we will expand this job to its
/// original size" — back to the size it had, never beyond it, and only when its on-demand job
/// ends; idle nodes before that, or a job that never lent, change nothing.
#[test]
fn a_shrunk_job_expands_back_to_its_original_size_and_no_further() {
    let mut view = Fake::default();
    // Started at 6 of at most 8 (a site may start it below its largest size).
    view.malleable(1, 6, 2, 8);
    let mut p = policy(NoticeStrategy::N, MechanismKind::Spaa);
    p.started(malleable_start(1, 6, 8));
    // Idle nodes while it lent nothing: no expansion.
    view.idle = nodes(0..4);
    assert!(
        !settle(&mut p, Time(0), &mut view)
            .iter()
            .any(|c| matches!(c, Command::Resize { .. }))
    );
    view.idle.clear();
    let cmds = p.arrive(Time(1), JobId(10), 3, &view).unwrap();
    assert!(cmds.contains(&Command::Resize {
        job: JobId(1),
        to: 3
    }));
    view.apply(&cmds);
    assert!(p.is_expandable(JobId(1)));
    // Nodes free up while the on-demand job still runs: the loan is not repaid yet.
    view.idle = nodes(0..5);
    assert!(
        !settle(&mut p, Time(2), &mut view)
            .iter()
            .any(|c| matches!(c, Command::Resize { .. }))
    );
    // It ends with only 2 idle nodes: the job takes them and is owed the third...
    view.idle = nodes(0..2);
    p.od_end(Time(3), JobId(10));
    let cmds = settle(&mut p, Time(3), &mut view);
    assert_eq!(
        cmds[0],
        Command::Resize {
            job: JobId(1),
            to: 5
        }
    );
    assert!(p.is_expandable(JobId(1)));
    // ...which it takes when a node frees, ahead of the batch pass; then back at 6 of 8, it
    // takes no more however many nodes are idle.
    view.idle = nodes(0..5);
    let cmds = settle(&mut p, Time(4), &mut view);
    assert_eq!(
        cmds[0],
        Command::Resize {
            job: JobId(1),
            to: 6
        }
    );
    assert_eq!(view.size(1), Some(6));
    assert!(!p.is_expandable(JobId(1)));
    let cmds = settle(&mut p, Time(5), &mut view);
    assert_eq!(
        cmds,
        vec![Command::Schedule(BatchPass::Site {
            resize_malleable: false
        })]
    );
}

#[test]
fn the_policy_state_serialises() {
    let (p, _, _) = cup_setup();
    let json = serde_json::to_string(&p).unwrap();
    let back: HybridPolicy = serde_json::from_str(&json).unwrap();
    assert_eq!(back, p);
}

proptest! {
    /// Malleable jobs shrunk by on-demand jobs arriving and ending in any order each get back
    /// from every on-demand job exactly what they lent it (idle nodes permitting).
    #[test]
    fn a_shrunk_job_gets_back_exactly_what_it_lent(
        sizes in prop::collection::vec(2u32..12, 1..5),
        demands in prop::collection::vec(1u32..6, 1..6),
        order in prop::collection::vec(any::<prop::sample::Index>(), 6),
    ) {
        let mut view = Fake::default();
        let mut p = policy(NoticeStrategy::N, MechanismKind::Spaa);
        for (k, &size) in sizes.iter().enumerate() {
            view.malleable(k as u64 + 1, size, 1, size);
            p.started(malleable_start(k as u64 + 1, size, size));
        }
        // Each on-demand job's loans, job by job.
        let mut loans: Vec<(JobId, BTreeMap<JobId, u32>)> = Vec::new();
        for (d, &demand) in demands.iter().enumerate() {
            let od = JobId(100 + d as u64);
            let before: BTreeMap<JobId, u32> =
                view.running.iter().map(|r| (r.view.id, r.view.size)).collect();
            let cmds = p.arrive(Time(d as i64), od, demand, &view).unwrap();
            view.apply(&cmds);
            if cmds.iter().any(|c| matches!(c, Command::Preempt { .. } | Command::Unassign { .. })) {
                // Not a pure shrink (PAA fallback or wait): stop here.
                break;
            }
            let lent = view
                .running
                .iter()
                .filter_map(|r| {
                    let lent = before[&r.view.id] - r.view.size;
                    (lent > 0).then_some((r.view.id, lent))
                })
                .collect();
            loans.push((od, lent));
        }
        let mut t = 100;
        while !loans.is_empty() {
            let (od, lent) = loans.remove(order[t as usize % 6].index(loans.len()));
            let before: BTreeMap<JobId, u32> =
                view.running.iter().map(|r| (r.view.id, r.view.size)).collect();
            view.idle = (0..64).map(NodeId).collect();
            p.od_end(Time(t), od);
            settle(&mut p, Time(t), &mut view);
            for r in &view.running {
                let back = r.view.size - before[&r.view.id];
                prop_assert_eq!(back, lent.get(&r.view.id).copied().unwrap_or(0));
            }
            t += 1;
        }
        for (k, &size) in sizes.iter().enumerate() {
            // Jobs a PAA fallback preempted are not running any more.
            if let Some(now) = view.size(k as u64 + 1) {
                prop_assert_eq!(now, size);
            }
        }
    }
}

/// The reference executor end to end under CUP&PAA: a notice plans a preemption, the wake
/// carries it out, the reservation collects the freed nodes, the arrival starts on them, and
/// at its end the preempted lender is asked to start again.
#[test]
fn cup_on_the_reference_executor() {
    use cosched_hybrid::platform::MemoryPlatform;
    let mut platform = MemoryPlatform::with_idle_nodes(4);
    let mut job = Fake::default();
    job.rigid(1, 4, 0);
    platform.started(job.running[0], nodes(0..4));
    let mut p = policy(NoticeStrategy::Cup, MechanismKind::Paa);
    let mut out = Vec::new();
    let settle = |p: &mut HybridPolicy, platform: &mut MemoryPlatform, now: Time| {
        let mut passes = Vec::new();
        for round in 0.. {
            let mut out = Vec::new();
            p.observe(now, &Observation::Settle { round }, &*platform, &mut out)
                .unwrap();
            if out.is_empty() {
                break;
            }
            passes.extend(platform.apply(&out).unwrap());
        }
        passes
    };
    let notice = Notice {
        job: JobId(9),
        size: 2,
        at: Time(0),
        estimated_arrival: Time(1_000),
    };
    p.observe(Time(0), &Observation::Notice(notice), &platform, &mut out)
        .unwrap();
    assert_eq!(platform.apply(&out).unwrap(), vec![]);
    let at = p.next_wake().unwrap();
    assert!(at <= Time(1_000));
    out.clear();
    cosched_core::policy::wake_due(&mut p, at, &platform as &dyn PlatformView, &mut out).unwrap();
    assert_eq!(out, vec![Command::Preempt { job: JobId(1) }]);
    platform.apply(&out).unwrap();
    assert!(platform.is_queued(JobId(1)) && platform.idle.len() == 4);
    // The reservation collects two of the freed nodes; the site's pass is the manager's.
    let passes = settle(&mut p, &mut platform, at);
    assert_eq!(platform.reserved.len(), 2);
    assert!(passes.contains(&BatchPass::Site {
        resize_malleable: false
    }));
    out.clear();
    let arrival = Observation::Arrival {
        job: JobId(9),
        size: 2,
    };
    p.observe(Time(1_000), &arrival, &platform, &mut out)
        .unwrap();
    platform.apply(&out).unwrap();
    assert_eq!(platform.on_demand_running(), vec![JobId(9)]);
    assert!(platform.reserved.is_empty());
    // It ends: its lender, still queued, is listed to start on the nodes it gets back.
    platform.on_demand_ended(JobId(9));
    out.clear();
    let end = Observation::OnDemandEnded { job: JobId(9) };
    p.observe(Time(2_000), &end, &platform, &mut out).unwrap();
    let passes = settle(&mut p, &mut platform, Time(2_000));
    assert_eq!(passes[0], BatchPass::Listed(vec![JobId(1)]));
    assert_eq!(platform.idle.len(), 4);
}
