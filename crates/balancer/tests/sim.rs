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
    prop_assert_eq!(
        i128::from(r.node_seconds_run.batch_busy),
        r.batch.busy_unit_seconds
    );
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
