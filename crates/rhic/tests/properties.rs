//! Property tests of the RHIC controller's models and search.

use cosched_core::{Duration, NodeId, Time};
use cosched_rhic::baseline::{Fuzzy, threshold_size};
use cosched_rhic::{
    Candidate, Cluster, CompletionParams, CostModel, Evaluation, Goal, IoCurve, IoSample,
    MeanShiftParams, PowerModel, Progress, Rhic, RhicConfig, SearchModel, exhaustive_search,
    mean_shift, screen_and_sort,
};
use proptest::prelude::*;

fn goal() -> impl Strategy<Value = Goal> {
    prop_oneof![
        (0i64..20_000).prop_map(|t| Goal::Deadline(Time(t))),
        (0u64..2_000_000, 0u64..2_000_000).prop_map(|(d, v)| Goal::Cost(CostModel::new(d, v))),
        (0.0f64..150.0, 0.0f64..150.0).prop_map(|(i, extra)| Goal::Energy(
            PowerModel::new(i, i + extra).expect("idle <= max")
        )),
    ]
}

fn knots() -> impl Strategy<Value = Vec<Cluster>> {
    prop::collection::vec((0.0f64..200.0, 0.0f64..100.0, 0.1f64..5.0), 1..8).prop_map(|v| {
        v.into_iter()
            .map(|(a, u, w)| Cluster {
                cpu_available: a,
                cpu_consumed: u,
                weight: w,
            })
            .collect()
    })
}

/// One volunteer per entry: (foreground CPU, free memory MiB).
fn nodes() -> impl Strategy<Value = Vec<(f64, u64)>> {
    prop::collection::vec((0.0f64..4.0, 0u64..4096), 0..40)
}

proptest! {
    #[test]
    fn selected_volunteers_are_a_prefix_of_the_screened_order(
        nodes in nodes(),
        vm_memory_mb in 0u64..4096,
        goal in goal(),
        remaining in 0.0f64..50_000.0,
        io in prop::collection::vec((1.0f64..100.0, 0.0f64..1.0), 0..10),
    ) {
        let mut config = RhicConfig::new(2, 4.0, goal);
        config.vm_memory_mb = vm_memory_mb;
        let mut rhic = Rhic::new(config).expect("valid config");
        for (i, &(fg, mem)) in nodes.iter().enumerate() {
            rhic.observe_node(NodeId(i as u32), fg, mem);
        }
        for (i, &(a, f)) in io.iter().enumerate() {
            rhic.observe_io(Time(10 * i as i64), a, a * f);
        }
        let progress = Progress::new(500.0, remaining, Duration(300), 8.0).expect("valid");
        let mut sorted = Vec::new();
        screen_and_sort(&rhic.candidates(), vm_memory_mb, &mut sorted);
        let d = rhic.decide(Time(300), &progress);
        let prefix: Vec<NodeId> = sorted[..d.volunteers.len()].iter().map(|c| c.node).collect();
        prop_assert_eq!(&d.volunteers, &prefix);
        for w in sorted.windows(2) {
            prop_assert!(w[0].residual_cpu >= w[1].residual_cpu);
        }
        prop_assert!(sorted.iter().all(|c| c.free_memory_mb >= vm_memory_mb));
    }

    #[test]
    fn cost_accounting_sums_exactly_to_the_per_node_charges(
        dedicated_rate in 0u64..10_000_000,
        volunteer_rate in 0u64..10_000_000,
        dedicated in 0u32..50,
        dedicated_s in 0u64..1_000_000,
        volunteers in prop::collection::vec(0u64..1_000_000, 0..50),
    ) {
        let model = CostModel::new(dedicated_rate, volunteer_rate);
        let used: Vec<(NodeId, u64)> =
            volunteers.iter().enumerate().map(|(i, &s)| (NodeId(i as u32), s)).collect();
        let bill = model.bill(dedicated, dedicated_s, &used);
        let per_node: u128 = bill.dedicated.iter().map(|m| m.0).sum::<u128>()
            + bill.volunteers.iter().map(|(_, m)| m.0).sum::<u128>();
        prop_assert_eq!(bill.total.0, per_node);
        let rates = u128::from(dedicated) * u128::from(dedicated_s) * u128::from(dedicated_rate)
            + volunteers.iter().map(|&s| u128::from(s) * u128::from(volunteer_rate)).sum::<u128>();
        prop_assert_eq!(bill.total.0, rates);
        prop_assert_eq!(bill.dedicated.len(), dedicated as usize);
        prop_assert_eq!(bill.volunteers.len(), volunteers.len());
    }

    #[test]
    fn spline_passes_through_the_centres_and_keeps_their_monotonicity(
        knots in knots(),
        monotone in any::<bool>(),
        probes in prop::collection::vec(-50.0f64..300.0, 2..20),
    ) {
        let mut knots = knots;
        knots.sort_by(|a, b| a.cpu_available.total_cmp(&b.cpu_available));
        knots.dedup_by(|a, b| a.cpu_available == b.cpu_available);
        if monotone {
            let mut ys: Vec<f64> = knots.iter().map(|k| k.cpu_consumed).collect();
            ys.sort_by(f64::total_cmp);
            for (k, y) in knots.iter_mut().zip(ys) {
                k.cpu_consumed = y;
            }
        }
        let curve = IoCurve::through(&knots).expect("at least one knot");
        for k in &knots {
            prop_assert_eq!(curve.consumed(k.cpu_available), k.cpu_consumed);
        }
        if monotone {
            let mut probes = probes;
            probes.sort_by(f64::total_cmp);
            for w in probes.windows(2) {
                let (a, b) = (curve.consumed(w[0]), curve.consumed(w[1]));
                prop_assert!(a <= b + 1e-9 * b.abs().max(1.0), "{a} > {b}");
            }
        }
    }

    #[test]
    fn the_extrapolation_agrees_inside_the_knots_and_respects_the_ceiling(
        knots in knots(),
        probes in prop::collection::vec(0.0f64..400.0, 1..20),
        ceiling in 0.0f64..150.0,
    ) {
        let curve = IoCurve::through(&knots).expect("at least one knot");
        let (last_x, last_y) = curve.knots().last().expect("a knot");
        for &a in &probes {
            let p = curve.projected(a, ceiling);
            if a <= last_x {
                prop_assert_eq!(p, curve.consumed(a));
            } else {
                // Never below the last knot nor above it by more than the CPU added, and
                // never above the ceiling unless the knots already are.
                prop_assert!(p >= last_y - 1e-9);
                prop_assert!(p <= last_y + (a - last_x) + 1e-9);
                prop_assert!(p <= ceiling.max(last_y) + 1e-9);
            }
        }
    }

    #[test]
    fn fuzzy_stays_in_range_and_follows_its_rules(
        step in 1usize..9,
        start in 0usize..40,
        measures in prop::collection::vec((0.0f64..10.0, 0usize..40), 1..30),
    ) {
        let mut f = Fuzzy::new(step, start).expect("step > 0");
        let mut prev: Option<(f64, usize, bool)> = None; // measure, size, last move was up
        let mut size = start;
        for &(m, available) in &measures {
            let next = f.next(m, available);
            prop_assert!(next <= available);
            let (up, by) = match prev {
                None => (true, step),
                Some((last, _, was_up)) if m < last => (was_up, step),
                Some((_, _, was_up)) => (!was_up, 1),
            };
            let expected = if up { size + by } else { size.saturating_sub(by) }.min(available);
            prop_assert_eq!(next, expected);
            prev = Some((m, next, up));
            size = next;
        }
    }

    #[test]
    fn threshold_takes_exactly_the_nodes_above_theta(
        mut residuals in prop::collection::vec(0.0f64..4.0, 0..40),
        theta in 0.0f64..1.0,
    ) {
        residuals.sort_by(|a, b| b.total_cmp(a));
        let k = threshold_size(&residuals, theta, 4.0);
        prop_assert_eq!(k, residuals.iter().filter(|&&r| r > theta * 4.0).count());
    }

    #[test]
    fn mean_shift_is_deterministic_and_order_independent(
        samples in prop::collection::vec((0.0f64..50.0, 0.0f64..50.0, 0.01f64..1.0), 0..40),
        keys in prop::collection::vec(any::<u32>(), 40),
        bandwidth in 0.5f64..10.0,
    ) {
        let samples: Vec<IoSample> = samples
            .into_iter()
            .map(|(a, c, w)| IoSample { cpu_available: a, cpu_consumed: c, weight: w })
            .collect();
        let mut shuffled: Vec<(u32, IoSample)> = keys.iter().copied().zip(samples.iter().copied()).collect();
        shuffled.sort_by_key(|&(k, _)| k);
        let shuffled: Vec<IoSample> = shuffled.into_iter().map(|(_, s)| s).collect();
        let params = MeanShiftParams::new(bandwidth, 100).expect("valid");
        let once = mean_shift(&samples, &params);
        prop_assert_eq!(&once, &mean_shift(&samples, &params));
        prop_assert_eq!(&once, &mean_shift(&shuffled, &params));
        let total: f64 = samples.iter().map(|s| s.weight).sum();
        let clustered: f64 = once.iter().map(|c| c.weight).sum();
        prop_assert!((total - clustered).abs() <= 1e-9 * total.max(1.0));
    }

    #[test]
    fn exhaustive_search_returns_the_minimal_score(
        residuals in prop::collection::vec((0.0f64..4.0, 0u64..4096), 0..40),
        knots in prop::option::of(knots()),
        goal in goal(),
        remaining in 0.0f64..50_000.0,
        current in 0usize..40,
        padding in 0.0f64..0.5,
        setup in 0i64..600,
        drain in 0i64..600,
    ) {
        let candidates: Vec<Candidate> = residuals
            .iter()
            .enumerate()
            .map(|(i, &(r, m))| Candidate { node: NodeId(i as u32), residual_cpu: r, free_memory_mb: m })
            .collect();
        let mut sorted = Vec::new();
        screen_and_sort(&candidates, 1024, &mut sorted);
        let curve = knots.and_then(|k| IoCurve::through(&k));
        let progress = Progress::new(500.0, remaining, Duration(300), 8.0).expect("valid");
        let completion = CompletionParams::new(padding, Duration(setup), Duration(drain)).expect("valid");
        let model = SearchModel {
            now: Time(300),
            dedicated: 2,
            dedicated_cpu: 8.0,
            cpu_max: 4.0,
            curve: curve.as_ref(),
            ceiling_cpu: f64::INFINITY,
            progress: &progress,
            completion: &completion,
            goal: &goal,
            current,
        };
        let best = exhaustive_search(&model, &sorted);
        // Brute force: every prefix summed from scratch, first minimum.
        let brute: Vec<Evaluation> = (0..=sorted.len())
            .map(|k| {
                let available = sorted[..k].iter().fold(8.0, |acc, c| acc + c.residual_cpu);
                model.evaluate(k, available)
            })
            .collect();
        let min = brute.iter().map(|e| e.score).min().expect("size 0 always exists");
        let first = brute.iter().position(|e| e.score == min).expect("min is attained");
        prop_assert_eq!(best.score, min);
        prop_assert_eq!(best.size, first);
        prop_assert_eq!(best, brute[first]);
    }

    #[test]
    fn mid_interval_replacement_keeps_healthy_volunteers_in_place(
        nodes in nodes(),
        churn in prop::collection::vec((0u32..40, prop::option::of((0.0f64..4.0, 0u64..4096))), 0..20),
        newcomers in prop::collection::vec((0.0f64..4.0, 0u64..4096), 0..5),
    ) {
        let mut config = RhicConfig::new(2, 4.0, Goal::Deadline(Time(0)));
        config.predictor_window = 1;
        let threshold = config.replacement_threshold;
        let mut rhic = Rhic::new(config).expect("valid config");
        for (i, &(fg, mem)) in nodes.iter().enumerate() {
            rhic.observe_node(NodeId(i as u32), fg, mem);
        }
        let progress = Progress::new(500.0, 1e6, Duration(300), 8.0).expect("valid");
        let before = rhic.decide(Time(300), &progress).volunteers.clone();
        for &(n, obs) in &churn {
            match obs {
                Some((fg, mem)) => rhic.observe_node(NodeId(n), fg, mem),
                None => rhic.remove_node(NodeId(n)),
            }
        }
        for (i, &(fg, mem)) in newcomers.iter().enumerate() {
            rhic.observe_node(NodeId(100 + i as u32), fg, mem);
        }
        let mut sorted = Vec::new();
        screen_and_sort(&rhic.candidates(), rhic.config().vm_memory_mb, &mut sorted);
        let healthy = |n: NodeId| sorted.iter().any(|c| c.node == n && c.residual_cpu >= threshold);
        let after = rhic.decide(Time(301), &progress).volunteers.clone();
        prop_assert!(after.len() <= before.len());
        let mut unique = after.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), after.len());
        prop_assert!(after.iter().all(|&n| healthy(n)));
        for (i, &n) in before.iter().enumerate() {
            if healthy(n) {
                prop_assert!(after.contains(&n));
                prop_assert!(after.iter().position(|&m| m == n).expect("kept") <= i);
            }
        }
    }
}
