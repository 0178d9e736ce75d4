//! Hand scenarios of the controller: validation, deferment, replacement, new intervals.

use cosched_core::{Duration, NodeId, Time};
use cosched_rhic::{CostModel, DecisionKind, Goal, PowerModel, Progress, Rhic, RhicConfig};

fn rhic() -> Rhic {
    // One dedicated 4-core node and a deadline no pool can meet: the search takes every
    // volunteer (the least-late pool).
    let mut config = RhicConfig::new(1, 4.0, Goal::Deadline(Time(1500)));
    config.interval = Duration(300);
    config.replacement_threshold = 1.0;
    let mut r = Rhic::new(config).expect("valid");
    for n in 0..6 {
        r.observe_node(NodeId(n), 0.5, 4096); // 3.5 cores residual each
    }
    r
}

fn progress() -> Progress {
    // 4 cores so far at rate 1/4 per core-second: 12,000 units left.
    Progress::new(300.0, 12_000.0, Duration(300), 4.0).expect("valid")
}

#[test]
fn invalid_parameters_are_rejected() {
    let bad = |f: fn(&mut RhicConfig)| {
        let mut c = RhicConfig::new(2, 4.0, Goal::Cost(CostModel::default()));
        f(&mut c);
        Rhic::new(c).err().map(|e| e.name)
    };
    assert_eq!(bad(|c| c.dedicated = 0), Some("dedicated"));
    assert_eq!(bad(|c| c.cpu_max = f64::NAN), Some("cpu_max"));
    assert_eq!(bad(|c| c.interval = Duration(0)), Some("interval"));
    assert_eq!(
        bad(|c| c.replacement_threshold = -1.0),
        Some("replacement_threshold")
    );
    assert_eq!(bad(|c| c.max_samples = 0), Some("max_samples"));
    assert_eq!(bad(|_| ()), None);
}

#[test]
fn deferment_replacement_and_a_new_interval() {
    let mut r = rhic();
    // t = 300: 12,000 units at 1/4 unit per core-second take 48,000 / (4 + 3.5k) s with k
    // volunteers; k = 6 gives 1,920 s, past the deadline, and is the least late.
    let d = r.decide(Time(300), &progress()).clone();
    assert_eq!(d.kind, DecisionKind::Search);
    assert_eq!(d.volunteers.len(), 6);
    // Mid-interval, nothing changed: the decision stands.
    assert_eq!(
        r.decide(Time(400), &progress()).kind,
        DecisionKind::Deferred
    );
    // Node 0 becomes busy (residual drops to 0 after the window fills) and node 5 leaves.
    for _ in 0..5 {
        r.observe_node(NodeId(0), 4.0, 4096);
    }
    r.remove_node(NodeId(5));
    r.observe_node(NodeId(9), 0.0, 4096); // a newcomer, a spare above the threshold
    let m = r.decide(Time(500), &progress()).clone();
    assert_eq!(m.kind, DecisionKind::Replaced);
    assert_eq!(m.at, Time(300));
    assert_eq!(
        m.volunteers,
        [NodeId(9), NodeId(1), NodeId(2), NodeId(3), NodeId(4)]
    );
    // The interval ends at 600: a fresh search, without the busy node.
    let n = r.decide(Time(600), &progress()).clone();
    assert_eq!(n.kind, DecisionKind::Search);
    assert!(!n.volunteers.contains(&NodeId(0)));
    assert_eq!(n.volunteers[0], NodeId(9));
}

#[test]
fn initial_pool_follows_algorithm_1() {
    let mut r = rhic();
    // BWUtil 0.8: (1/0.8 − 1) · 4 · 1 = 1 core supportable: one volunteer.
    let d = r.initial(Time(0), 0.8).expect("valid").clone();
    assert_eq!((d.kind, d.volunteers.len()), (DecisionKind::Initial, 1));
    assert!(r.initial(Time(0), 1.5).is_err());
}

#[test]
fn cost_and_energy_goals_weigh_speed_against_price() {
    let progress = Progress::new(300.0, 12_000.0, Duration(300), 4.0).expect("valid");
    let run = |goal: Goal| {
        let mut r = Rhic::new(RhicConfig::new(1, 4.0, goal)).expect("valid");
        for n in 0..3 {
            r.observe_node(NodeId(n), 0.0, 4096); // a whole 4-core node each
        }
        r.decide(Time(300), &progress).volunteers.len()
    };
    // $1/h dedicated, $0.42/h volunteer: each volunteer adds the dedicated node's speed for
    // less than half its price, so all three are used (48,000 / 16 s at $2.26/h: $1.88).
    assert_eq!(run(Goal::Cost(CostModel::default())), 3);
    // Volunteers dearer than the speed they bring: none.
    assert_eq!(run(Goal::Cost(CostModel::new(1_000_000, 100_000_000))), 0);
    // Energy: the dynamic energy of the work is the same whatever the pool, so the dedicated
    // node's idle power decides: finish fastest, with all three.
    let power = PowerModel::new(100.0, 200.0).expect("valid");
    assert_eq!(run(Goal::Energy(power)), 3);
}
