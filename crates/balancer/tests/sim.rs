//! Properties of the combined-cluster simulator on random small workloads: determinism, node
//! accounting, every batch job run once in full, every request granted within `W` or
//! rejected, and the dynamic Balancer (`R = 0`, `W = 0`) never serving fewer requests than the
//! dedicated split.

use cosched_balancer::predictor::Combine;
use cosched_balancer::report::SimOutcome;
use cosched_balancer::scenario::Arm;
use cosched_balancer::workload::LeaseRequest;
use cosched_balancer::workload::Workload as Inputs;
use cosched_balancer::{BalancerConfig, Strategy as Algorithm};
use cosched_core::{Duration, JobId, LeaseId, RigidJob, Time};
use proptest::prelude::*;
use std::collections::BTreeSet;

#[derive(Debug, Clone)]
struct Workload {
    nodes: u32,
    jobs: Vec<RigidJob>,
    requests: Vec<LeaseRequest>,
}

fn workload() -> impl Strategy<Value = Workload> {
    (2u32..=12).prop_flat_map(|n| {
        let job = (0i64..2_000, 1..=n, 1i64..300, 0i64..100);
        let request = (0i64..2_000, 1..=n, 1i64..300, prop::option::of(0i64..200));
        (
            Just(n),
            prop::collection::vec(job, 0..25),
            prop::collection::vec(request, 0..25),
        )
            .prop_map(|(nodes, jobs, requests)| Workload {
                nodes,
                jobs: jobs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (submit, size, run, extra))| {
                        RigidJob::new(
                            JobId(i as u64),
                            Time(submit),
                            size,
                            Duration(run),
                            Duration(run + extra),
                        )
                        .unwrap()
                    })
                    .collect(),
                requests: requests
                    .into_iter()
                    .enumerate()
                    .map(|(i, (submit, nodes, duration, notice))| LeaseRequest {
                        id: LeaseId(i as u64),
                        submit: Time(submit),
                        nodes,
                        duration: Duration(duration),
                        notice: notice.map(Duration),
                    })
                    .collect(),
            })
    })
}

fn configurations(n: u32, w: i64, i: i64) -> Vec<(Arm, Duration)> {
    let window = Duration(w);
    let config = |s| {
        BalancerConfig::new(s)
            .with_window(window)
            .with_idle_hold(Duration(i))
    };
    vec![
        (
            Arm::balancer(config(Algorithm::Basic {
                static_reserve: n / 4,
            })),
            window,
        ),
        (Arm::balancer(config(Algorithm::Hinted)), window),
        (
            Arm::predictive(config(Algorithm::Hinted), Combine::Mean.into()),
            window,
        ),
        (Arm::all_batch(), Duration::ZERO),
        (Arm::dedicated(n / 3, window), window),
        (Arm::all_on_demand(n, window), window),
    ]
}

fn check(w: &Workload, out: &SimOutcome, window: Duration) -> Result<(), TestCaseError> {
    let r = &out.report;
    // Node-seconds add up exactly.
    prop_assert_eq!(
        r.node_seconds_run.total(),
        i64::from(w.nodes) * (r.end_s - r.start_s)
    );
    prop_assert_eq!(
        r.node_seconds.total(),
        i64::from(w.nodes) * (r.span_end_s - r.start_s)
    );
    // Batch usage is the jobs' run time (from their start, after any launch delay).
    let run: i64 = out
        .records
        .iter()
        .filter_map(|j| Some(i64::from(j.size) * (j.end? - j.start?).0))
        .sum();
    prop_assert_eq!(r.node_seconds_run.batch_busy, run);
    prop_assert!(i128::from(r.node_seconds_run.batch_busy) <= r.batch.busy_unit_seconds);
    // Every batch job once; started ones in full.
    prop_assert_eq!(out.records.len(), w.jobs.len());
    let ids: BTreeSet<JobId> = out.records.iter().map(|j| j.id).collect();
    prop_assert_eq!(ids.len(), w.jobs.len());
    for rec in &out.records {
        if let (Some(s), Some(e)) = (rec.start, rec.end) {
            prop_assert_eq!(e - s, rec.runtime);
            prop_assert!(s >= rec.submit);
        }
    }
    // Every request granted within W or rejected.
    prop_assert_eq!(out.requests.len(), w.requests.len());
    for q in &out.requests {
        if let Some(g) = q.granted {
            prop_assert!(
                g >= q.request.submit && g - q.request.submit <= window,
                "{:?}",
                q
            );
        }
    }
    let od = &r.on_demand;
    prop_assert_eq!(od.granted + od.rejected, od.requests);
    let allocated: i64 = out
        .requests
        .iter()
        .filter(|q| q.granted.is_some())
        .map(|q| i64::from(q.request.nodes) * q.request.duration.0)
        .sum();
    prop_assert_eq!(r.node_seconds_run.on_demand_allocated, allocated);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_configuration_keeps_the_books(w in workload(), win in prop_oneof![Just(0i64), 1i64..100], hold in 0i64..100) {
        for (configuration, window) in configurations(w.nodes, win, hold) {
            let out = configuration.run(w.nodes, &Inputs::new(&w.jobs, &w.requests), &[]).unwrap();
            check(&w, &out, window)?;
            let again = configuration.run(w.nodes, &Inputs::new(&w.jobs, &w.requests), &[]).unwrap();
            prop_assert_eq!(out.report.to_json(), again.report.to_json());
            match configuration.name() {
                "all-batch" => prop_assert_eq!(out.report.on_demand.granted, 0),
                "all-on-demand" => prop_assert_eq!(out.report.batch.completed, 0),
                _ => {}
            }
        }
    }
}

/// Hostile input #2/#8/#13: jobs and leases at the clock's edge neither panic nor make the
/// simulator (or the Predictive slots) step through the span.
#[test]
fn times_at_the_clock_edge_are_handled_by_events_not_by_the_span() {
    use cosched_balancer::predictor::Combine;
    use cosched_balancer::{BalancerConfig, Strategy};
    let jobs = [
        RigidJob::new(JobId(1), Time(0), 1, Duration(100), Duration(200)).unwrap(),
        RigidJob::new(
            JobId(2),
            Time(9_000_000_000_000_000_000),
            1,
            Duration(100),
            Duration(200),
        )
        .unwrap(),
        RigidJob::new(
            JobId(3),
            Time(i64::MAX - 10),
            1,
            Duration(100),
            Duration(200),
        )
        .unwrap(),
    ];
    let lease = |id, submit| LeaseRequest {
        id: LeaseId(id),
        submit: Time(submit),
        nodes: 1,
        duration: Duration(3600),
        notice: Some(Duration(600)),
    };
    let requests = [
        lease(0, -9_000_000_000_000_000_000),
        lease(1, 0),
        lease(2, 9_000_000_000_000_000_000),
        lease(3, i64::MAX),
    ];
    let predictive = Arm::predictive(BalancerConfig::new(Strategy::Hinted), Combine::Max.into());
    let hint = Arm::balancer(BalancerConfig::new(Strategy::Hinted).with_window(Duration(i64::MAX)));
    for configuration in [predictive, hint] {
        let out = configuration
            .run(4, &Inputs::new(&jobs, &requests), &[])
            .unwrap();
        assert_eq!(out.report.unrepresentable, 2, "{configuration:?}");
        assert_eq!(out.report.batch.completed, 2);
        assert_eq!(out.report.on_demand.granted, 3);
    }
}

/// The testbed's batch scheduler (§III-A, `cosched_balancer::testbed`): jobs start only in a
/// scheduling iteration, one start latency after another, and their wait runs to their start.
mod testbed {
    use cosched_balancer::baseline::StaticSplit;
    use cosched_balancer::sim::Simulation;
    use cosched_balancer::testbed::{BatchCycle, MauiTorque};
    use cosched_balancer::workload::Workload;
    use cosched_core::{Duration, JobId, JobRecord, RigidJob, Time};

    fn job(id: u64, submit: i64, size: u32, run: i64) -> RigidJob {
        RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run)).unwrap()
    }

    fn run(cycle: BatchCycle, jobs: &[RigidJob], preload: &[RigidJob]) -> Vec<JobRecord> {
        let mut all_batch = StaticSplit::new(0, Duration::ZERO);
        let mut records = Simulation::new(4)
            .unwrap()
            .with_batch_cycle(cycle)
            .run(
                &mut all_batch,
                &Workload::new(jobs, &[]).with_preload(preload),
            )
            .unwrap()
            .records;
        records.sort_by_key(|r| r.id);
        records
    }

    fn starts(records: &[JobRecord]) -> Vec<(i64, i64)> {
        records
            .iter()
            .map(|r| (r.start.map_or(-1, |t| t.0), r.end.map_or(-1, |t| t.0)))
            .collect()
    }

    #[test]
    fn an_event_runs_an_iteration_minetime_after_the_last_and_starts_are_serial() {
        // 10 s starts, iterations >= 60 s apart; the run's start (10 s) counts as one.
        let maui = BatchCycle::Maui(MauiTorque::testbed(Duration(10)));
        let jobs = [job(0, 10, 1, 100), job(1, 10, 1, 100), job(2, 200, 1, 50)];
        let records = run(maui, &jobs, &[]);
        // Submitted at 10: the iteration at 70 starts them at 80 and 90. Their completions run
        // one at 180 (nothing to start) and plan the next for 240: the third job, submitted at
        // 200, starts then plus 10. Each runs its full run time from its start.
        assert_eq!(starts(&records), vec![(80, 180), (90, 190), (250, 300)]);
        let ideal = run(BatchCycle::Immediate, &jobs, &[]);
        assert_eq!(starts(&ideal), vec![(10, 110), (10, 110), (200, 250)]);
    }

    #[test]
    fn without_events_a_job_waits_for_the_poll_timer() {
        let polling = BatchCycle::Maui(MauiTorque::testbed(Duration(5)).polling_only());
        let records = run(polling, &[job(0, 10, 1, 100), job(1, 4_000, 2, 100)], &[]);
        // RMPOLLINTERVAL 60 s x 60 from the run's start: iterations at 3,610 and 7,210.
        assert_eq!(starts(&records), vec![(3_615, 3_715), (7_215, 7_315)]);
    }

    #[test]
    fn a_job_that_does_not_fit_waits_for_the_iteration_after_a_completion() {
        let maui = BatchCycle::Maui(MauiTorque::testbed(Duration(1)));
        // A 3-node job behind a 2-node one on 4 nodes: it starts in the iteration after the
        // first ends (a completion is an event), not at the end itself.
        let jobs = [job(0, 0, 2, 100), job(1, 0, 3, 10)];
        let records = run(maui, &jobs, &[]);
        assert_eq!(starts(&records), vec![(61, 161), (162, 172)]);
    }

    #[test]
    fn preloaded_jobs_run_from_the_start_and_a_bad_model_is_refused() {
        let maui = BatchCycle::Maui(MauiTorque::testbed(Duration(30)));
        // The preloaded 4-node job holds the cluster to 500; the job then starts an event
        // later (the completion at 500, the last iteration at 0) plus one latency.
        let records = run(maui, &[job(0, 0, 1, 10)], &[job(9, 0, 4, 500)]);
        assert_eq!(starts(&records), vec![(530, 540)]);
        let bad = BatchCycle::Maui(MauiTorque {
            poll_interval: Duration(0),
            ..MauiTorque::testbed(Duration(1))
        });
        let mut all_batch = StaticSplit::new(0, Duration::ZERO);
        assert!(
            Simulation::new(2)
                .unwrap()
                .with_batch_cycle(bad)
                .run(&mut all_batch, &Workload::new(&[job(0, 0, 1, 10)], &[]))
                .is_err()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Under the testbed's batch scheduler every configuration keeps the same books: node
    /// accounting, every job run once in full from its start, every request answered in W.
    #[test]
    fn the_testbed_cycle_keeps_the_books(
        w in workload(),
        latency in 0i64..40,
        spacing in prop::option::of(0i64..120),
        poll in 1i64..4_000,
    ) {
        use cosched_balancer::testbed::{BatchCycle, MauiTorque};
        let cycle = BatchCycle::Maui(MauiTorque {
            poll_interval: Duration(poll),
            event_spacing: spacing.map(Duration),
            start_latency: Duration(latency),
        });
        for (configuration, window) in configurations(w.nodes, 30, 60) {
            let out = configuration.run_with(w.nodes, cycle, &Inputs::new(&w.jobs, &w.requests), &[]).unwrap();
            check(&w, &out, window)?;
            let again = configuration.run_with(w.nodes, cycle, &Inputs::new(&w.jobs, &w.requests), &[]).unwrap();
            prop_assert_eq!(out.report.to_json(), again.report.to_json());
        }
    }
}

/// Any policy of the protocol runs, whatever its error type: one that cannot fail (grants
/// from idle nodes at once or rejects) runs in the simulator and as a scenario arm; the batch
/// side takes any batch policy.
#[test]
fn an_infallible_policy_runs_in_the_simulator_and_as_an_arm() {
    use cosched_balancer::policy::{Command, Observation, Policy, RmNode};
    use cosched_balancer::sim::Simulation;
    use cosched_batch::scenario::{self as batch, BuiltinPolicy};
    use cosched_core::NodeId;
    use std::convert::Infallible;

    /// Grants a request from the nodes no job runs on and no lease holds, or rejects it.
    #[derive(Clone, Default)]
    struct Greedy {
        busy: Vec<bool>,
        taken: Vec<bool>,
    }
    impl Policy for Greedy {
        type Observation = Observation;
        type Command = Command;
        type View = [RmNode];
        type Error = Infallible;
        fn start(
            &mut self,
            _: Time,
            view: &[RmNode],
            _: &mut Vec<Command>,
        ) -> Result<(), Infallible> {
            (self.busy, self.taken) = (vec![false; view.len()], vec![false; view.len()]);
            Ok(())
        }
        fn observe(
            &mut self,
            _: Time,
            obs: &Observation,
            _: &[RmNode],
            out: &mut Vec<Command>,
        ) -> Result<(), Infallible> {
            match obs {
                Observation::Request { request, nodes, .. } => {
                    let free: Vec<NodeId> = (0..self.busy.len())
                        .filter(|&i| !self.busy[i] && !self.taken[i])
                        .take(*nodes as usize)
                        .map(|i| NodeId(i as u32))
                        .collect();
                    if free.len() < *nodes as usize {
                        out.push(Command::Reject { request: *request });
                        return Ok(());
                    }
                    for &n in &free {
                        self.taken[n.index()] = true;
                        out.push(Command::Reclaim(n));
                    }
                    out.push(Command::Grant {
                        request: *request,
                        nodes: free,
                    });
                }
                Observation::Release { nodes } => {
                    for &n in nodes {
                        self.taken[n.index()] = false;
                        out.push(Command::Restore(n));
                    }
                }
                Observation::JobStarting { nodes } => {
                    nodes.iter().for_each(|n| self.busy[n.index()] = true)
                }
                Observation::JobEnded { nodes } => {
                    nodes.iter().for_each(|n| self.busy[n.index()] = false)
                }
                _ => {}
            }
            Ok(())
        }
    }

    let job = |id, submit, size, run| {
        RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run)).unwrap()
    };
    // A wide job first; two narrow ones that FCFS keeps behind a blocked second wide job.
    let jobs = [job(0, 0, 3, 100), job(1, 1, 4, 10), job(2, 2, 1, 50)];
    let lease = |id, submit, nodes| LeaseRequest {
        id: LeaseId(id),
        submit: Time(submit),
        nodes,
        duration: Duration(20),
        notice: None,
    };
    let requests = [lease(0, 3, 1), lease(1, 4, 4)];
    let workload = Inputs::new(&jobs, &requests);
    let sim = Simulation::new(4).unwrap();
    let out = sim.run(&mut Greedy::default(), &workload).unwrap();
    // EASY backfills job 2 at 2 onto the last free node: request 0 finds none.
    assert_eq!(
        (out.report.on_demand.granted, out.report.on_demand.rejected),
        (0, 2)
    );
    let fcfs = sim
        .clone()
        .with_batch_scheduler(BuiltinPolicy::Fcfs)
        .run(&mut Greedy::default(), &workload)
        .unwrap();
    // FCFS keeps job 2 waiting behind job 1: request 0 gets the free node.
    assert_eq!(
        (
            fcfs.report.on_demand.granted,
            fcfs.report.on_demand.rejected
        ),
        (1, 1)
    );
    let custom = sim
        .clone()
        .with_batch_scheduler(batch::BatchScheduler::new("my-fcfs", batch::fcfs()))
        .run(&mut Greedy::default(), &workload)
        .unwrap();
    assert_eq!(custom.report.on_demand.granted, 1);
    let arm = Arm::new("greedy", |_| Greedy::default());
    let as_arm = arm.run(4, &workload, &[]).unwrap();
    assert_eq!(as_arm.report.on_demand.rejected, 2);
    assert_eq!(as_arm.report.configuration, "greedy");
}
