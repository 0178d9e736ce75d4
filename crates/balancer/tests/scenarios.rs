//! Scenario tests for each step of Algorithm 1 (Liu et al., SC18, §II-C), the hint, the
//! reserve floor (static `R`, Predictive) and the live-service duties, on the policy protocol.

mod common;
use common::Drive;
use cosched_balancer::policy::{RmNode, RmNodeState};
use cosched_balancer::{
    Balancer, BalancerConfig, BalancerError, BalancerNodeState as S, Command, Observation as O,
    Policy, Strategy,
};
use cosched_core::{Duration, LeaseId, NodeId, Time};

fn cluster(states: &[RmNodeState]) -> Vec<RmNode> {
    states
        .iter()
        .enumerate()
        .map(|(i, &state)| RmNode {
            name: format!("n{i}"),
            state,
        })
        .collect()
}

use RmNodeState::{BatchBusy as Busy, BatchIdle as Idle};

fn basic(r: u32, w: i64, i: i64) -> BalancerConfig {
    BalancerConfig::new(Strategy::Basic { static_reserve: r })
        .with_window(Duration(w))
        .with_idle_hold(Duration(i))
}

fn hinted(w: i64, i: i64) -> BalancerConfig {
    BalancerConfig::new(Strategy::Hinted)
        .with_window(Duration(w))
        .with_idle_hold(Duration(i))
}

fn ask(id: u64, nodes: u32) -> O {
    O::Request {
        request: LeaseId(id),
        nodes,
        wait: None,
    }
}

fn granted(out: &[Command]) -> Vec<(u64, Vec<u32>)> {
    out.iter()
        .filter_map(|c| match c {
            Command::Grant { request, nodes } => {
                Some((request.0, nodes.iter().map(|n| n.0).collect()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn step_1_reserve_then_idle_nodes_are_granted_at_once() {
    let (mut b, start) = Balancer::started(Time(0), basic(1, 0, 0), &cluster(&[Idle; 4])).unwrap();
    assert_eq!(start, vec![Command::Reclaim(NodeId(0))]);
    // nr = 1 < 2: one idle node reclaimed.
    let out = b.step(Time(1), ask(1, 2)).unwrap();
    assert_eq!(out[0], Command::Reclaim(NodeId(1)));
    assert_eq!(granted(&out), vec![(1, vec![0, 1])]);
    assert_eq!(b.count(S::OdAlloc), 2);
}

#[test]
fn step_2_window_zero_rejects_at_once_and_reclaims_nothing() {
    let (mut b, _) = Balancer::started(Time(0), basic(0, 0, 0), &cluster(&[Idle, Busy])).unwrap();
    let out = b.step(Time(1), ask(1, 2)).unwrap();
    assert_eq!(
        out,
        vec![Command::Reject {
            request: LeaseId(1)
        }]
    );
    assert_eq!(b.count(S::OaIdle), 1);
    assert_eq!(b.next_wake(), None);
}

#[test]
fn step_3_a_request_waits_and_is_served_by_a_job_ending_inside_w() {
    let (mut b, _) =
        Balancer::started(Time(0), basic(0, 600, 0), &cluster(&[Idle, Busy, Busy])).unwrap();
    // The idle node is reclaimed at once; the request waits up to W = 600 s.
    let out = b.step(Time(10), ask(1, 2)).unwrap();
    assert_eq!(out, vec![Command::Reclaim(NodeId(0))]);
    assert_eq!(b.next_wake(), Some(Time(610)));
    // Node 1's job actually ends at 400 (whatever its walltime said): it is taken.
    let out = b
        .step(
            Time(400),
            O::JobEnded {
                nodes: vec![NodeId(1)],
            },
        )
        .unwrap();
    assert_eq!(out[0], Command::Reclaim(NodeId(1)));
    assert_eq!(granted(&out), vec![(1, vec![0, 1])]);
    assert_eq!(b.next_wake(), None);
    // Node 2's later end is not needed: it stays in batch.
    let out = b
        .step(
            Time(500),
            O::JobEnded {
                nodes: vec![NodeId(2)],
            },
        )
        .unwrap();
    assert!(out.is_empty());
    assert_eq!(b.state(NodeId(2)).unwrap(), S::OaIdle);
}

#[test]
fn step_3_a_request_is_rejected_when_w_expires_and_its_nodes_go_back_after_i() {
    let (mut b, _) =
        Balancer::started(Time(0), basic(0, 600, 100), &cluster(&[Idle, Busy])).unwrap();
    b.step(Time(10), ask(1, 2)).unwrap();
    // Nothing before the deadline.
    assert!(b.tick(Time(609)).unwrap().is_empty());
    let out = b.tick(Time(610)).unwrap();
    assert_eq!(
        out,
        vec![Command::Reject {
            request: LeaseId(1)
        }]
    );
    // The gathered node is kept OD_Reserve for I, then restored.
    assert_eq!(b.state(NodeId(0)).unwrap(), S::OdReserve);
    assert_eq!(b.next_wake(), Some(Time(710)));
    let out = b.tick(Time(710)).unwrap();
    assert_eq!(out, vec![Command::Restore(NodeId(0))]);
    assert_eq!(b.next_wake(), None);
}

#[test]
fn a_later_request_cannot_take_nodes_gathered_for_an_earlier_one() {
    let (mut b, _) =
        Balancer::started(Time(0), basic(0, 600, 0), &cluster(&[Idle, Busy, Busy])).unwrap();
    b.step(Time(0), ask(1, 2)).unwrap();
    // Request 2 finds no free node (node 0 is gathered for request 1) and waits too.
    assert!(b.step(Time(5), ask(2, 1)).unwrap().is_empty());
    // The first job end goes to the oldest claim.
    let out = b
        .step(
            Time(10),
            O::JobEnded {
                nodes: vec![NodeId(1)],
            },
        )
        .unwrap();
    assert_eq!(granted(&out), vec![(1, vec![0, 1])]);
    let out = b
        .step(
            Time(20),
            O::JobEnded {
                nodes: vec![NodeId(2)],
            },
        )
        .unwrap();
    assert_eq!(granted(&out), vec![(2, vec![2])]);
}

#[test]
fn a_released_node_serves_a_waiting_request() {
    let (mut b, _) = Balancer::started(Time(0), basic(0, 600, 0), &cluster(&[Idle, Busy])).unwrap();
    let out = b.step(Time(0), ask(1, 1)).unwrap();
    assert_eq!(granted(&out), vec![(1, vec![0])]);
    assert!(b.step(Time(1), ask(2, 1)).unwrap().is_empty());
    let out = b
        .step(
            Time(50),
            O::Release {
                nodes: vec![NodeId(0)],
            },
        )
        .unwrap();
    assert_eq!(granted(&out), vec![(2, vec![0])]);
}

#[test]
fn release_keeps_the_static_reserve_and_returns_the_rest_after_i() {
    let (mut b, _) = Balancer::started(Time(0), basic(1, 0, 30), &cluster(&[Idle; 3])).unwrap();
    b.step(Time(0), ask(1, 2)).unwrap();
    b.step(
        Time(10),
        O::Release {
            nodes: vec![NodeId(0), NodeId(1)],
        },
    )
    .unwrap();
    assert_eq!(b.next_wake(), Some(Time(40)));
    let out = b.tick(Time(40)).unwrap();
    // One node goes back; R = 1 stays, with no deadline any more.
    assert_eq!(out.len(), 1);
    assert_eq!(b.count(S::OdReserve), 1);
    assert_eq!(b.next_wake(), None);
}

#[test]
fn a_hint_keeps_collecting_as_jobs_end_until_h_and_nobody_else_takes_its_nodes() {
    let (mut b, _) =
        Balancer::started(Time(0), hinted(0, 60), &cluster(&[Busy, Busy, Busy])).unwrap();
    // add_reserve(H = 1000, N = 2): no node free yet.
    assert!(
        b.step(
            Time(0),
            O::Hint {
                by: Time(1000),
                nodes: 2
            }
        )
        .unwrap()
        .is_empty()
    );
    let out = b
        .step(
            Time(100),
            O::JobEnded {
                nodes: vec![NodeId(0)],
            },
        )
        .unwrap();
    assert_eq!(out, vec![Command::Reclaim(NodeId(0))]);
    // Another request cannot take the hint's node.
    let out = b.step(Time(200), ask(9, 1)).unwrap();
    assert_eq!(
        out,
        vec![Command::Reject {
            request: LeaseId(9)
        }]
    );
    let out = b
        .step(
            Time(300),
            O::JobEnded {
                nodes: vec![NodeId(1)],
            },
        )
        .unwrap();
    assert_eq!(out, vec![Command::Reclaim(NodeId(1))]);
    // Full: the third job end stays with batch.
    assert!(
        b.step(
            Time(400),
            O::JobEnded {
                nodes: vec![NodeId(2)]
            }
        )
        .unwrap()
        .is_empty()
    );
    // At H the announced request finds its nodes in the reserve.
    let out = b.step(Time(1000), ask(1, 2)).unwrap();
    assert_eq!(granted(&out), vec![(1, vec![0, 1])]);
}

#[test]
fn an_unused_hint_goes_back_to_batch_i_after_h() {
    let (mut b, _) = Balancer::started(Time(0), hinted(0, 60), &cluster(&[Idle; 2])).unwrap();
    let out = b
        .step(
            Time(0),
            O::Hint {
                by: Time(100),
                nodes: 1,
            },
        )
        .unwrap();
    assert_eq!(out, vec![Command::Reclaim(NodeId(0))]);
    assert_eq!(b.next_wake(), Some(Time(100)));
    assert!(b.tick(Time(100)).unwrap().is_empty());
    assert_eq!(b.next_wake(), Some(Time(160)));
    let out = b.tick(Time(160)).unwrap();
    assert_eq!(out, vec![Command::Restore(NodeId(0))]);
}

#[test]
fn a_predicted_reserve_is_what_is_idle_at_its_slot_start_held_for_the_slot_not_for_i() {
    // §II-C3: "at the beginning of each time slot, the predictor invokes add_reserve(0, N)":
    // H = 0, so the reserve is the idle nodes there are then (here 2 of the 3 asked for).
    let (mut b, _) =
        Balancer::started(Time(0), hinted(0, 10), &cluster(&[Idle, Busy, Idle, Busy])).unwrap();
    let slot = O::ReserveTarget {
        nodes: 3,
        until: Time(21_600),
    };
    let out = b.step(Time(0), slot).unwrap();
    assert_eq!(
        out,
        vec![Command::Reclaim(NodeId(0)), Command::Reclaim(NodeId(2))]
    );
    // Jobs ending later in the slot give their nodes to batch, not to the reserve: there is no
    // time left to gather nodes by (H = 0).
    for n in [1, 3] {
        let ended = O::JobEnded {
            nodes: vec![NodeId(n)],
        };
        let out = b.step(Time(2), ended).unwrap();
        assert!(out.is_empty(), "{out:?}");
    }
    assert_eq!((b.count(S::OdReserve), b.count(S::OaIdle)), (2, 2));
    // I = 10 s passes: the slot's reserve stays.
    assert!(b.tick(Time(60)).unwrap().is_empty());
    assert_eq!(b.count(S::OdReserve), 2);
    // A request takes the reserve and the idle nodes; released, the nodes within the slot's
    // 3 stay reserved to its end, the one beyond goes back after I.
    let out = b.step(Time(100), ask(1, 4)).unwrap();
    assert_eq!(
        out[..2],
        [Command::Reclaim(NodeId(1)), Command::Reclaim(NodeId(3))]
    );
    assert_eq!(granted(&out), vec![(1, vec![0, 2, 1, 3])]);
    let release = O::Release {
        nodes: vec![NodeId(0), NodeId(1), NodeId(2), NodeId(3)],
    };
    assert!(b.step(Time(200), release).unwrap().is_empty());
    assert_eq!(
        b.tick(Time(210)).unwrap(),
        vec![Command::Restore(NodeId(0))]
    );
    assert_eq!(b.count(S::OdReserve), 3);
    assert_eq!(b.next_wake(), Some(Time(21_600)));
    let out = b.tick(Time(21_600)).unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(b.count(S::OaIdle), 4);
}

#[test]
fn a_batch_start_on_a_held_node_is_refused_and_changes_nothing() {
    let (mut b, _) = Balancer::started(Time(0), basic(1, 0, 0), &cluster(&[Idle; 2])).unwrap();
    let before = b.clone();
    let err = b
        .step(
            Time(1),
            O::JobStarting {
                nodes: vec![NodeId(1), NodeId(0)],
            },
        )
        .unwrap_err();
    assert!(matches!(
        err,
        BalancerError::NodeReclaimed {
            node: NodeId(0),
            ..
        }
    ));
    assert_eq!(b, before);
}

#[test]
fn cancelling_a_waiting_request_frees_its_nodes() {
    let (mut b, _) = Balancer::started(Time(0), basic(0, 600, 0), &cluster(&[Idle, Busy])).unwrap();
    b.step(Time(0), ask(1, 2)).unwrap();
    assert!(
        b.step(
            Time(5),
            O::Cancel {
                request: LeaseId(1)
            }
        )
        .unwrap()
        .is_empty()
    );
    assert_eq!(b.waiting_requests().count(), 0);
    let out = b.tick(Time(5)).unwrap();
    assert_eq!(out, vec![Command::Restore(NodeId(0))]);
    assert!(matches!(
        b.step(
            Time(6),
            O::Cancel {
                request: LeaseId(1)
            }
        ),
        Err(BalancerError::UnknownRequest(_))
    ));
}

#[test]
fn a_restart_keeps_allocated_nodes_and_never_adopts_unavailable_ones() {
    use RmNodeState::*;
    let nodes = cluster(&[OnDemandAllocated, Unavailable, OnDemandFree, BatchIdle]);
    let (mut b, out) = Balancer::started(Time(0), basic(2, 0, 0), &nodes).unwrap();
    // R = 2: the allocated and the free on-demand nodes count; nothing to reclaim.
    assert!(out.is_empty());
    assert_eq!(b.state(NodeId(0)).unwrap(), S::OdAlloc);
    assert_eq!(b.node("n2"), Some(NodeId(2)));
    // A request of 2 gets the free reserve node and the idle node, never the allocated or
    // the drained one.
    let out = b.step(Time(1), ask(1, 2)).unwrap();
    assert_eq!(granted(&out), vec![(1, vec![2, 3])]);
    assert_eq!(
        b.step(Time(2), ask(2, 1)).unwrap(),
        vec![Command::Reject {
            request: LeaseId(2)
        }]
    );
}

#[test]
fn a_node_taken_down_by_an_admin_leaves_the_reserve_for_good() {
    let (mut b, _) = Balancer::started(Time(0), basic(1, 0, 0), &cluster(&[Idle; 2])).unwrap();
    let out = b
        .step(
            Time(1),
            O::Availability {
                node: NodeId(0),
                available: false,
            },
        )
        .unwrap();
    // It goes back to the resource manager (where the admin holds it); the floor takes node 1.
    assert_eq!(
        out,
        vec![Command::Restore(NodeId(0)), Command::Reclaim(NodeId(1))]
    );
    assert!(b.is_unavailable(NodeId(0)));
    let out = b.step(Time(2), ask(1, 2)).unwrap();
    assert_eq!(
        out,
        vec![Command::Reject {
            request: LeaseId(1)
        }]
    );
}

#[test]
fn the_state_round_trips_through_serde_mid_wait() {
    let (mut b, _) = Balancer::started(Time(0), basic(0, 600, 0), &cluster(&[Idle, Busy])).unwrap();
    b.step(Time(0), ask(1, 2)).unwrap();
    let json = serde_json::to_string(&b).unwrap();
    let mut restored: Balancer = serde_json::from_str(&json).unwrap();
    assert_eq!(restored, b);
    let out = restored
        .step(
            Time(10),
            O::JobEnded {
                nodes: vec![NodeId(1)],
            },
        )
        .unwrap();
    assert_eq!(granted(&out), vec![(1, vec![0, 1])]);
}

#[test]
fn bad_input_is_refused_with_a_typed_error() {
    let (mut b, _) = Balancer::started(Time(0), basic(0, 0, 0), &cluster(&[Idle])).unwrap();
    assert!(matches!(
        b.step(Time(0), ask(1, 0)),
        Err(BalancerError::Param(_))
    ));
    assert!(matches!(
        b.step(
            Time(0),
            O::Release {
                nodes: vec![NodeId(0)]
            }
        ),
        Err(BalancerError::NotAllocated(_))
    ));
    assert!(matches!(
        b.step(
            Time(0),
            O::JobEnded {
                nodes: vec![NodeId(7)]
            }
        ),
        Err(BalancerError::UnknownNode(_))
    ));
    assert!(matches!(
        b.step(
            Time(0),
            O::Hint {
                by: Time(5),
                nodes: 1
            }
        ),
        Err(BalancerError::HintsDisabled)
    ));
    let twice = cluster(&[Idle, Idle]).into_iter().map(|n| RmNode {
        name: "x".into(),
        ..n
    });
    assert!(matches!(
        Balancer::started(Time(0), basic(0, 0, 0), &twice.collect::<Vec<_>>()),
        Err(BalancerError::DuplicateName(_))
    ));
}

#[test]
fn a_rejected_request_s_nodes_stay_in_the_reserve_for_i_then_pass_to_a_waiting_hint() {
    let (mut b, _) =
        Balancer::started(Time(0), hinted(0, 60), &cluster(&[Idle, Busy, Busy])).unwrap();
    // Hint A wants 2 by 100 (gets the idle node), hint B wants 1 by 200 (gets nothing yet).
    b.step(
        Time(0),
        O::Hint {
            by: Time(100),
            nodes: 2,
        },
    )
    .unwrap();
    assert!(
        b.step(
            Time(1),
            O::Hint {
                by: Time(200),
                nodes: 1
            }
        )
        .unwrap()
        .is_empty()
    );
    // A's request finds only one node: rejected. Algorithm 1: the node stays OD_Reserve for I
    // (to 160), free for any request; a hint takes it only when that hold ends.
    let out = b.step(Time(100), ask(1, 2)).unwrap();
    assert_eq!(
        out,
        vec![Command::Reject {
            request: LeaseId(1)
        }]
    );
    assert_eq!(b.state(NodeId(0)).unwrap(), S::OdReserve);
    assert_eq!(b.next_wake(), Some(Time(160)));
    // At 160 the hold ends: hint B is waiting, so the node is B's rather than batch's.
    assert!(b.tick(Time(160)).unwrap().is_empty());
    assert_eq!(b.state(NodeId(0)).unwrap(), S::OdReserve);
    // It is B's now: an unannounced request cannot take it.
    let out = b.step(Time(170), ask(3, 1)).unwrap();
    assert_eq!(
        out,
        vec![Command::Reject {
            request: LeaseId(3)
        }]
    );
    let out = b.step(Time(200), ask(2, 1)).unwrap();
    assert_eq!(granted(&out), vec![(2, vec![0])]);
}

#[test]
fn a_hint_made_as_another_matures_adds_extra_nodes_and_leaves_the_matured_ones_to_their_request() {
    // §II-C2, add_reserve(H, N) adds N *extra* reserve nodes. Hint A gathers 2 nodes by 100;
    // at 100 (the instant its request arrives) hint B is made for a request at 200. B must not
    // take A's matured nodes: A's request, arriving the same instant after it, gets them.
    let (mut b, _) = Balancer::started(Time(0), hinted(0, 60), &cluster(&[Idle; 3])).unwrap();
    let out = b
        .step(
            Time(0),
            O::Hint {
                by: Time(100),
                nodes: 2,
            },
        )
        .unwrap();
    assert_eq!(
        out,
        vec![Command::Reclaim(NodeId(0)), Command::Reclaim(NodeId(1))]
    );
    let out = b
        .step(
            Time(100),
            O::Hint {
                by: Time(200),
                nodes: 2,
            },
        )
        .unwrap();
    // B reclaims the one idle node, none of A's.
    assert_eq!(out, vec![Command::Reclaim(NodeId(2))]);
    let out = b.step(Time(100), ask(1, 2)).unwrap();
    assert_eq!(granted(&out), vec![(1, vec![0, 1])]);
}

#[test]
fn a_request_rejected_at_h_leaves_the_other_matured_hints_nodes_to_their_requests() {
    // Two hints mature at 100: A (3 nodes, gets 1) and B (1 node, gets 1); hint C (2 nodes by
    // 200) waits. A's request is rejected; B's request, at the same instant, still finds its node:
    // the matured reserve is not handed to the waiting hint C.
    let (mut b, _) =
        Balancer::started(Time(0), hinted(0, 60), &cluster(&[Idle, Idle, Busy])).unwrap();
    for (at, by, nodes) in [(0, 100, 3), (1, 100, 1), (2, 200, 2)] {
        b.step(
            Time(at),
            O::Hint {
                by: Time(by),
                nodes,
            },
        )
        .unwrap();
    }
    // A holds node 0 and is still short; the idle node 1 goes to the next hint, B.
    assert_eq!(b.state(NodeId(1)).unwrap(), S::OdReserve);
    let out = b.step(Time(100), ask(1, 3)).unwrap();
    assert_eq!(
        out,
        vec![Command::Reject {
            request: LeaseId(1)
        }]
    );
    let out = b.step(Time(100), ask(2, 1)).unwrap();
    assert_eq!(granted(&out).len(), 1);
}
