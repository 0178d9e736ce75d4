//! Property tests of the notice policy on its own: random sequences of notices, offers of
//! freed nodes, arrivals, expiries and node failures. No node is ever booked twice, no
//! reservation holds more than its job's size, offers serve the earliest notice first, and
//! nodes handed back (arrival, expiry) are exactly those booked.

use cosched_core::{Duration, JobId, NodeId, Time};
use cosched_hybrid::notice::{Notice, NoticeBoard, NoticeStrategy};
use proptest::prelude::*;
use std::collections::BTreeSet;

#[derive(Clone, Debug)]
enum Op {
    Notice { size: u32, lead: i64 },
    Offer(u32),
    Arrive(usize),
    Expire,
    Fail(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1u32..=8, 0i64..2_000).prop_map(|(size, lead)| Op::Notice { size, lead }),
        (1u32..=6).prop_map(Op::Offer),
        (0usize..12).prop_map(Op::Arrive),
        Just(Op::Expire),
        (0u32..40).prop_map(Op::Fail),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_node_is_booked_twice_and_reservations_stay_within_demand(
        ops in prop::collection::vec(op(), 1..60),
        cua in any::<bool>(),
    ) {
        let strategy = if cua { NoticeStrategy::Cua } else { NoticeStrategy::Cup };
        let mut board = NoticeBoard::new(strategy);
        // Nodes 0..40; `idle` are the ones nobody holds.
        let mut idle: BTreeSet<u32> = (0..40).collect();
        let mut now = Time(0);
        let mut jobs: Vec<JobId> = Vec::new();
        for (step, op) in ops.into_iter().enumerate() {
            now += Duration(100);
            match op {
                Op::Notice { size, lead } => {
                    let job = JobId(step as u64);
                    let free: Vec<NodeId> = idle.iter().map(|&n| NodeId(n)).collect();
                    let plan = board
                        .notice(Notice { job, size, at: now, estimated_arrival: now + Duration(lead) }, &free, &[])
                        .unwrap();
                    prop_assert!(plan.claimed.len() as u32 <= size);
                    for n in &plan.claimed {
                        prop_assert!(idle.remove(&n.0), "claimed a node that was not idle");
                    }
                    jobs.push(job);
                }
                Op::Offer(k) => {
                    let offered: Vec<NodeId> = idle.iter().take(k as usize).map(|&n| NodeId(n)).collect();
                    let short_before: Vec<(JobId, bool)> = board
                        .reservations()
                        .map(|r| (r.job, (r.nodes.len() as u32) < r.size))
                        .collect();
                    let claims = board.offer(&offered);
                    // Earliest notice first: a reservation gets nodes only if every earlier
                    // one that was short is now complete.
                    let claimed_jobs: BTreeSet<JobId> = claims.iter().map(|c| c.0).collect();
                    for (k, (job, _)) in short_before.iter().enumerate() {
                        if claimed_jobs.contains(job) {
                            for (earlier, was_short) in &short_before[..k] {
                                let done = board.reservations().find(|r| r.job == *earlier)
                                    .is_none_or(|r| r.nodes.len() as u32 == r.size);
                                prop_assert!(!was_short || done);
                            }
                        }
                    }
                    for (_, n) in claims {
                        prop_assert!(idle.remove(&n.0), "claimed a node that was not offered idle");
                    }
                }
                Op::Arrive(k) => {
                    if let Some(&job) = jobs.get(k) {
                        // The job runs on its nodes and gives them back at once.
                        for n in board.arrive(job) {
                            prop_assert!(idle.insert(n.0), "handed over a node twice");
                        }
                    }
                }
                Op::Expire => {
                    for (_, nodes) in board.expire(now) {
                        for n in nodes {
                            prop_assert!(idle.insert(n.0), "released a node twice");
                        }
                    }
                }
                Op::Fail(n) => {
                    // A failed reserved node leaves its reservation; it is repaired at once.
                    if board.drop_node(NodeId(n)).is_some() {
                        prop_assert!(idle.insert(n));
                    }
                }
            }
            let mut booked = BTreeSet::new();
            for r in board.reservations() {
                prop_assert!(r.nodes.len() as u32 <= r.size);
                for n in r.nodes {
                    prop_assert!(booked.insert(n.0), "{} booked twice", n);
                    prop_assert!(!idle.contains(&n.0));
                }
            }
            prop_assert_eq!(booked.len() + idle.len(), 40, "a node was lost");
            prop_assert_eq!(board.shortfall(), board.reservations().map(|r| r.size - r.nodes.len() as u32).sum::<u32>());
        }
    }
}
