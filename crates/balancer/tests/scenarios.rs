//! Hand scenarios for each algorithm's decisions, against a real `BatchCluster`.

use cosched_balancer::{
    Balancer, BalancerConfig, BalancerError, BalancerNodeState as S, NodeUpdate, RequestOutcome,
    Strategy,
};
use cosched_batch::{BatchCluster, BatchJob, Fcfs, Started};
use cosched_core::{Duration, JobClass, JobId, NodeId, NodeState, Time};

fn job(id: u64, size: u32, run: i64, est: i64) -> BatchJob {
    BatchJob {
        id: JobId(id),
        submit: Time(0),
        size,
        runtime: Duration(run),
        estimate: Duration(est),
        class: JobClass::Rigid,
        resizable: None,
    }
}

/// A cluster of `n` nodes running `jobs` from time 0, reported to `balancer`.
fn running(
    n: u32,
    jobs: &[BatchJob],
    config: BalancerConfig,
) -> (BatchCluster, Balancer, Vec<Started>) {
    let mut c = BatchCluster::new(n).unwrap();
    let mut b = Balancer::new(Time(0), config, &mut c).unwrap();
    for &j in jobs {
        c.submit(j).unwrap();
    }
    let mut started = Vec::new();
    c.schedule(Time(0), &mut Fcfs, &mut started);
    let starts: Vec<NodeUpdate> = started
        .iter()
        .flat_map(|s| c.job_nodes(s.token.job).unwrap().to_vec())
        .map(NodeUpdate::JobStarting)
        .collect();
    b.update_nodes(Time(0), &starts, &mut c).unwrap();
    (c, b, started)
}

fn end(
    c: &mut BatchCluster,
    b: &mut Balancer,
    now: i64,
    s: &Started,
) -> cosched_balancer::Decisions {
    let nodes: Vec<NodeUpdate> = c
        .job_nodes(s.token.job)
        .unwrap()
        .iter()
        .map(|&n| NodeUpdate::JobEnded(n))
        .collect();
    c.complete(Time(now), s.token).unwrap();
    b.update_nodes(Time(now), &nodes, c).unwrap()
}

fn basic(r: u32) -> BalancerConfig {
    BalancerConfig::new(Strategy::Basic { static_reserve: r })
}

#[test]
fn window_zero_rejects_at_once_when_idle_nodes_fall_short() {
    let (mut c, mut b, _) = running(4, &[job(1, 3, 50, 60)], basic(0));
    assert_eq!(
        b.request_nodes(Time(1), 2, &mut c).unwrap(),
        RequestOutcome::Rejected
    );
    assert_eq!(c.offline_units(), 0);
    let RequestOutcome::Granted(g) = b.request_nodes(Time(1), 1, &mut c).unwrap() else {
        panic!("one node is idle")
    };
    assert_eq!(c.node_state(g.nodes[0]).unwrap(), NodeState::Offline);
    assert_eq!(b.count(S::OdAlloc), 1);
    assert!(b.next_deadline().is_none());
}

#[test]
fn a_request_waits_for_a_busy_node_whose_job_ends_within_the_window() {
    let config = basic(0).with_window(Duration(100));
    let (mut c, mut b, started) = running(2, &[job(1, 2, 50, 100)], config);
    // Predicted end 100 > 10 + 50: out of a 50 s window.
    let short = basic(0).with_window(Duration(50));
    let mut b_short = Balancer::new(Time(10), short, &mut c).unwrap();
    assert_eq!(
        b_short.request_nodes(Time(10), 1, &mut c).unwrap(),
        RequestOutcome::Rejected
    );

    let out = b.request_nodes(Time(10), 1, &mut c).unwrap();
    let RequestOutcome::Pending { request, deadline } = out else {
        panic!("{out:?}")
    };
    assert_eq!(deadline, Time(110));
    assert_eq!(b.next_deadline(), Some(Time(110)));
    assert_eq!((b.count(S::Reclaiming), b.count(S::OaBusy)), (1, 1));
    let d = end(&mut c, &mut b, 50, &started[0]);
    assert_eq!(d.granted.len(), 1);
    assert_eq!(d.granted[0].request, request);
    assert_eq!((b.count(S::OdAlloc), b.count(S::OaIdle)), (1, 1));
    assert_eq!((c.offline_units(), c.free_units()), (1, 1));
    assert!(b.pending().next().is_none());
}

#[test]
fn a_pending_request_is_rejected_at_its_deadline_and_its_node_stays_with_its_job() {
    let config = basic(0).with_window(Duration(100));
    let (mut c, mut b, _) = running(2, &[job(1, 2, 50, 100)], config);
    let RequestOutcome::Pending { request, .. } = b.request_nodes(Time(10), 2, &mut c).unwrap()
    else {
        panic!()
    };
    assert!(b.tick(Time(109), &mut c).unwrap().rejected.is_empty());
    // The job's end was never reported (a lost event): the deadline passes.
    let d = b.tick(Time(110), &mut c).unwrap();
    assert_eq!(d.rejected, vec![request]);
    assert_eq!(b.count(S::OaBusy), 2);
    assert!(matches!(
        c.node_state(NodeId(0)).unwrap(),
        NodeState::Busy(_)
    ));
    assert!(b.next_deadline().is_none());
}

#[test]
fn a_pending_request_takes_a_node_freed_elsewhere_and_gives_its_drained_node_back() {
    let config = basic(0).with_window(Duration(100));
    // Job 1 is predicted to end first (30), so its node drains; job 2 ends early, at 10.
    let (mut c, mut b, started) = running(2, &[job(1, 1, 30, 30), job(2, 1, 10, 90)], config);
    let drained = c.job_nodes(JobId(1)).unwrap()[0];
    let RequestOutcome::Pending { request, .. } = b.request_nodes(Time(0), 1, &mut c).unwrap()
    else {
        panic!()
    };
    assert_eq!(b.state(drained).unwrap(), S::Reclaiming);
    let d = end(&mut c, &mut b, 10, &started[1]);
    assert_eq!(d.granted[0].request, request);
    assert_ne!(d.granted[0].nodes, vec![drained]);
    assert_eq!(b.state(drained).unwrap(), S::OaBusy);
    assert_eq!(c.node_state(drained).unwrap(), NodeState::Busy(JobId(1)));
}

#[test]
fn unused_reserve_goes_back_to_batch_after_the_hold_but_never_below_r() {
    let config = basic(1).with_idle_hold(Duration(30));
    let (mut c, mut b, _) = running(4, &[], config);
    assert_eq!((b.count(S::OdReserve), c.offline_units()), (1, 1));
    let RequestOutcome::Granted(g) = b.request_nodes(Time(0), 3, &mut c).unwrap() else {
        panic!()
    };
    assert!(
        b.release_nodes(Time(10), &[g.nodes[0], g.nodes[0]], &mut c)
            .is_err()
    );
    b.release_nodes(Time(10), &g.nodes, &mut c).unwrap();
    assert_eq!(b.next_deadline(), Some(Time(40)));
    assert!(
        b.tick(Time(39), &mut c)
            .unwrap()
            .returned_to_batch
            .is_empty()
    );
    let d = b.tick(Time(40), &mut c).unwrap();
    assert_eq!(d.returned_to_batch.len(), 2);
    assert_eq!(
        (b.count(S::OdReserve), c.offline_units(), c.free_units()),
        (1, 1, 3)
    );
    assert!(b.next_deadline().is_none());
}

#[test]
fn a_hint_builds_the_reserve_by_its_time_and_the_hold_runs_from_then() {
    let config = BalancerConfig::new(Strategy::Hinted).with_idle_hold(Duration(60));
    let (mut c, mut b, started) = running(4, &[job(1, 1, 80, 100), job(2, 1, 80, 200)], config);
    let out = b.add_reserve(Time(0), Time(100), 3, &mut c).unwrap();
    // Two idle nodes now, the node of job 1 (ends by 100); job 2 ends too late.
    assert_eq!((out.reserved, out.draining), (2, 1));
    assert_eq!(b.next_deadline(), Some(Time(160)));
    end(&mut c, &mut b, 80, &started[0]);
    assert_eq!((b.count(S::OdReserve), c.offline_units()), (3, 3));
    assert_eq!(
        b.tick(Time(160), &mut c).unwrap().returned_to_batch.len(),
        3
    );
    assert_eq!(c.offline_units(), 0);

    let mut basic_b = Balancer::new(Time(0), basic(0), &mut c).unwrap();
    assert!(matches!(
        basic_b.add_reserve(Time(0), Time(0), 1, &mut c),
        Err(BalancerError::HintsDisabled)
    ));
}

#[test]
fn a_batch_start_on_a_claimed_node_is_refused_and_changes_nothing() {
    let config = basic(1).with_window(Duration(100));
    let (mut c, mut b, _) = running(3, &[job(1, 2, 50, 60)], config);
    let reserve = (0..3)
        .map(NodeId)
        .find(|&n| b.state(n).unwrap() == S::OdReserve)
        .unwrap();
    b.request_nodes(Time(0), 2, &mut c).unwrap();
    let draining = (0..3)
        .map(NodeId)
        .find(|&n| b.state(n).unwrap() == S::Reclaiming)
        .unwrap();
    let before: Vec<S> = b.states().collect();
    for node in [reserve, draining] {
        let refused = b.update_nodes(
            Time(1),
            &[
                NodeUpdate::JobEnded(NodeId(9)),
                NodeUpdate::JobStarting(node),
            ],
            &mut c,
        );
        assert!(matches!(refused, Err(BalancerError::UnknownNode(_))));
        let refused = b.update_nodes(Time(1), &[NodeUpdate::JobStarting(node)], &mut c);
        assert!(matches!(refused, Err(BalancerError::NodeReclaimed { node: n, .. }) if n == node));
    }
    assert_eq!(b.states().collect::<Vec<_>>(), before);
}

#[test]
fn the_predictor_builds_at_each_slot_start_the_reserve_the_same_slot_needed_before() {
    use cosched_balancer::predictor::{Combine, Predictor, SLOT};
    let config = BalancerConfig::new(Strategy::Hinted).with_idle_hold(SLOT);
    let (mut c, mut b, _) = running(8, &[], config);
    let mut predictor = Predictor::new(Combine::default()).unwrap();
    // Day 0, slot 1: two requests, 3 + 2 nodes.
    let t = Time(SLOT.secs() + 100);
    for n in [3, 2] {
        predictor.record_request(t, n);
        assert!(matches!(
            b.request_nodes(t, n, &mut c).unwrap(),
            RequestOutcome::Granted(_)
        ));
    }
    // The next day's slot 1: the peaks of the day, the week and the month are all 5.
    let slot_start = Time(5 * SLOT.secs());
    assert_eq!(
        Predictor::next_slot_start(slot_start - Duration(1)),
        slot_start
    );
    let n = predictor.reserve_for_slot(slot_start);
    assert_eq!(n, 5);
    let out = b.add_reserve(slot_start, slot_start, n, &mut c).unwrap();
    // The five allocated nodes are still out, so three idle nodes are all it can take.
    assert_eq!((out.reserved, out.draining), (3, 0));
    assert_eq!(b.next_deadline(), Some(slot_start + SLOT));
}

#[test]
fn reserve_at_least_claims_only_what_the_free_reserve_lacks() {
    let config = BalancerConfig::new(Strategy::Hinted).with_idle_hold(Duration(600));
    let (mut c, mut b, started) = running(6, &[job(1, 1, 50, 60)], config);
    // Five idle nodes and one busy node whose job ends by 60: two idle nodes are enough.
    let out = b.reserve_at_least(Time(0), Time(0), 2, &mut c).unwrap();
    assert_eq!((out.reserved, out.draining), (2, 0));
    // Already there: nothing more is claimed.
    let out = b.reserve_at_least(Time(1), Time(1), 2, &mut c).unwrap();
    assert_eq!((out.reserved, out.draining), (0, 0));
    // A node granted to a request no longer counts as free reserve.
    assert!(matches!(
        b.request_nodes(Time(2), 1, &mut c).unwrap(),
        RequestOutcome::Granted(_)
    ));
    let out = b.reserve_at_least(Time(3), Time(60), 2, &mut c).unwrap();
    assert_eq!((out.reserved, out.draining), (1, 0));
    // A node draining into the reserve counts too: asking for 6 takes the 2 idle nodes left
    // and drains the busy one, and asking again takes nothing.
    let out = b.reserve_at_least(Time(4), Time(60), 6, &mut c).unwrap();
    assert_eq!((out.reserved, out.draining), (2, 1));
    let out = b.reserve_at_least(Time(5), Time(60), 5, &mut c).unwrap();
    assert_eq!((out.reserved, out.draining), (0, 0));
    end(&mut c, &mut b, 50, &started[0]);
    assert_eq!(b.count(S::OdReserve), 5);
}

#[test]
fn nodes_draining_into_the_reserve_count_towards_it() {
    let config = BalancerConfig::new(Strategy::Hinted).with_idle_hold(Duration(600));
    let jobs = [job(1, 1, 50, 60), job(2, 1, 50, 60)];
    let (mut c, mut b, _) = running(4, &jobs, config);
    // Two idle nodes, and one of the two busy nodes drains in.
    let out = b.reserve_at_least(Time(0), Time(60), 3, &mut c).unwrap();
    assert_eq!((out.reserved, out.draining), (2, 1));
    // The draining node counts: the other busy node is left to batch.
    let out = b.reserve_at_least(Time(1), Time(60), 3, &mut c).unwrap();
    assert_eq!((out.reserved, out.draining), (0, 0));
    assert_eq!(b.count(S::Reclaiming), 1);
}
