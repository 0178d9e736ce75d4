//! Property tests of the RHIC controller's models and search.

use cosched_core::{Duration, NodeId, Time};
use cosched_rhic::baseline::{Fuzzy, threshold_size};
use cosched_rhic::{
    Assignment, Candidate, Cluster, CompletionParams, CostModel, Evaluation, Goal, IoCurve,
    IoSample, MeanShiftParams, PowerModel, Progress, SearchModel, Selection, exhaustive_search,
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
    /// §4.4's selection: resizing keeps the survivors, adds the best unused, drops the worst
    /// used; after replacement no unused candidate beats a used one by more than the threshold.
    #[test]
    fn selection_adjusts_the_previous_pool(
        nodes in nodes(),
        first in 0usize..40,
        second in 0usize..40,
        threshold in 0.0f64..4.0,
    ) {
        let candidates: Vec<Candidate> = nodes
            .iter()
            .enumerate()
            .map(|(i, &(fg, mem))| Candidate { node: NodeId(i as u32), residual_cpu: 4.0 - fg, slots: (mem / 1024) as u32 })
            .collect();
        let mut sorted = Vec::new();
        screen_and_sort(&candidates, &mut sorted);
        let mut sel = Selection::default();
        sel.resize(first, &sorted);
        prop_assert_eq!(sel.members().len(), first.min(sorted.len()));
        let before: Vec<NodeId> = sel.members().iter().map(|a| a.node).collect();
        sel.resize(second, &sorted);
        let after: Vec<NodeId> = sel.members().iter().map(|a| a.node).collect();
        prop_assert_eq!(after.len(), second.min(sorted.len()));
        if second >= first {
            prop_assert_eq!(&after[..before.len()], &before[..]); // nobody swapped out
        } else {
            prop_assert!(after.iter().all(|n| before.contains(n)));
        }
        sel.replace(&sorted, threshold);
        let used: Vec<NodeId> = sel.members().iter().map(|a| a.node).collect();
        let mut unique = used.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), used.len());
        let contribution = |n: NodeId| sorted.iter().find(|c| c.node == n).map_or(0.0, |c| c.contribution());
        let worst_used = used.iter().map(|&n| contribution(n)).fold(f64::INFINITY, f64::min);
        let best_unused = sorted.iter().filter(|c| !used.contains(&c.node)).map(|c| c.contribution()).fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(best_unused - worst_used <= threshold + 1e-12);
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
        let mut f = Fuzzy::new(step, start, 0.0).expect("step > 0");
        let mut prev: Option<(f64, bool)> = None; // measure, last move was up
        let mut size = start;
        let mut was_up = true;
        for &(m, available) in &measures {
            let next = f.next(m, available);
            prop_assert!(next <= available);
            let expected = match prev {
                None => size.min(available),
                Some((last, _)) if m == last => size.min(available),
                Some((last, up)) => {
                    let (up, by) = if m < last { (up, step) } else { (!up, 1) };
                    was_up = up;
                    if up { size + by } else { size.saturating_sub(by) }.min(available)
                }
            };
            prop_assert_eq!(next, expected);
            prev = Some((m, was_up));
            size = next;
        }
    }

    /// Threshold over a mix of node sizes: never more than the nodes, never more for a higher
    /// θ, every node with a residual at θ = 0, and a node counts by its own size.
    #[test]
    fn threshold_is_monotone_in_theta_over_mixed_nodes(
        nodes in prop::collection::vec((0.0f64..16.0, prop::sample::select(vec![4.0, 8.0, 16.0])), 0..40),
        theta in 0.0f64..1.0,
        more in 0.0f64..1.0,
    ) {
        let nodes: Vec<(f64, f64)> = nodes.into_iter().map(|(r, c)| (r.min(c), c)).collect();
        let k = threshold_size(nodes.iter().copied(), theta);
        prop_assert!(k <= nodes.len());
        prop_assert!(threshold_size(nodes.iter().copied(), theta + more) <= k);
        prop_assert_eq!(
            threshold_size(nodes.iter().copied(), 0.0),
            nodes.iter().filter(|n| n.0 > 0.0).count()
        );
        let full = nodes.iter().filter(|n| n.0 >= n.1).count();
        prop_assert!(threshold_size(nodes.iter().copied(), 0.999_999) >= full);
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

    /// Samples at one point climb once: on a small grid (many repeated points, with their
    /// own weights) the centres are bit for bit those of a climb from every sample over
    /// every sample, merged as the documentation says.
    #[test]
    fn mean_shift_equals_a_climb_from_every_sample(
        samples in prop::collection::vec((0u8..6, 0u8..6, 1u8..4), 0..60),
        bandwidth in prop_oneof![Just(1.0f64), Just(1.5), Just(2.5)],
    ) {
        let samples: Vec<IoSample> = samples
            .into_iter()
            .map(|(a, c, w)| IoSample {
                cpu_available: f64::from(a),
                cpu_consumed: f64::from(c),
                weight: f64::from(w) / 4.0,
            })
            .collect();
        let params = MeanShiftParams::new(bandwidth, 100).expect("valid");
        prop_assert_eq!(mean_shift(&samples, &params), climb_from_every_sample(&samples, bandwidth));
    }

    #[test]
    fn exhaustive_search_returns_the_minimal_score(
        residuals in prop::collection::vec((0.0f64..4.0, 0u32..6), 0..40),
        knots in prop::option::of(knots()),
        goal in goal(),
        remaining in 0.0f64..50_000.0,
        current in 0usize..40,
        task_s in 0.0f64..600.0,
        setup in 0i64..600,
        ceiling in prop_oneof![Just(f64::INFINITY), 0.0f64..200.0],
    ) {
        let candidates: Vec<Candidate> = residuals
            .iter()
            .enumerate()
            .map(|(i, &(r, s))| Candidate { node: NodeId(i as u32), residual_cpu: r, slots: s })
            .collect();
        let mut sorted = Vec::new();
        screen_and_sort(&candidates, &mut sorted);
        let curve = knots.and_then(|k| IoCurve::through(&k));
        let progress = Progress::new(500.0, remaining, Duration(300), 8.0).expect("valid");
        let completion = CompletionParams::new(Duration(setup), task_s).expect("valid");
        let model = SearchModel {
            now: Time(300),
            dedicated: 2,
            dedicated_cpu: 8.0,
            cpu_max: 4.0,
            curve: curve.as_ref(),
            ceiling_cpu: ceiling,
            progress: &progress,
            completion: &completion,
            goal: &goal,
            current,
        };
        // The search stops once the projection reaches its cap past `current`: still the
        // brute force's first minimum.
        let best = exhaustive_search(&model, &sorted);
        // Brute force: every prefix summed from scratch, first minimum.
        let brute: Vec<Evaluation> = (0..=sorted.len())
            .map(|k| {
                let available = sorted[..k].iter().fold(8.0, |acc, c| acc + c.contribution());
                model.evaluate(k, available)
            })
            .collect();
        let min = brute.iter().map(|e| e.score).min().expect("size 0 always exists");
        let first = brute.iter().position(|e| e.score == min).expect("min is attained");
        prop_assert_eq!(best.score, min);
        prop_assert_eq!(best.size, first);
        prop_assert_eq!(best, brute[first]);
    }
}

/// One step of a random controller history.
#[derive(Clone, Debug)]
enum Step {
    /// A reading of node `n`: foreground CPU, free memory.
    Reading(u32, f64, u64),
    /// The same reading as the node's last (nothing changes).
    Repeat(u32),
    Left(u32),
    BootFailed(u32),
    Joined(u32),
    /// A period's report, then the period-end progress (a decision).
    Period(f64, f64),
    /// A progress report between periods (a deferred decision).
    Between,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0u32..60, 0.0f64..16.0, 0u64..8192).prop_map(|(n, f, m)| Step::Reading(n, f, m)),
        6 => (0u32..60).prop_map(Step::Repeat),
        1 => (0u32..60).prop_map(Step::Left),
        1 => (0u32..60).prop_map(Step::BootFailed),
        1 => (0u32..60).prop_map(Step::Joined),
        2 => (0.0f64..600.0, 0.0f64..1.0).prop_map(|(a, d)| Step::Period(a, d)),
        1 => Just(Step::Between),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The incremental screen (only the nodes changed since the last decision move in the
    /// sorted candidates) and the ageing weights and samples' order kept between decisions
    /// (samples dropped as they age out too) decide exactly as screening every candidate and
    /// weighing and sorting every sample afresh, on random histories of readings, departures,
    /// failed boots, periods and progress reports.
    #[test]
    fn incremental_decisions_equal_full_decisions(
        history in prop::collection::vec(step(), 1..300),
        goal in goal(),
        max_samples in prop_oneof![Just(3usize), Just(256)],
    ) {
        use cosched_core::policy::Policy;
        use cosched_rhic::policy::{Observation, PeriodReport, ProfileReport, ProgressPoint};
        use cosched_rhic::{Rhic, RhicConfig};
        let mut config = RhicConfig::new(2, 16.0, goal);
        config.interval = Duration(60);
        config.max_samples = max_samples;
        let mut incremental = Rhic::new(config).expect("valid");
        let mut full = incremental.clone();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut last: std::collections::BTreeMap<u32, (f64, u64)> = Default::default();
        let mut t = 0i64;
        let mut work = 0.0;
        let profile = ProfileReport { bw_util: 0.2, dedicated_cpu: 32.0, slot_memory_mb: 512, task_s: 60.0 };
        let mut feed = |o: &Observation, t: i64, decide: bool| -> Result<(), TestCaseError> {
            if decide {
                full.forget_screen();
            }
            a.clear();
            b.clear();
            incremental.observe(Time(t), o, &(), &mut a).expect("valid");
            full.observe(Time(t), o, &(), &mut b).expect("valid");
            prop_assert_eq!(&a, &b);
            prop_assert_eq!(incremental.last_sizing(), full.last_sizing());
            Ok(())
        };
        feed(&Observation::Profile(profile), 0, false)?;
        for s in history {
            t += 1;
            let reading = |n: u32, f: f64, m: u64| Observation::Node {
                node: NodeId(n), cores: 16.0, foreground_cpu: f, free_memory_mb: m,
            };
            match s {
                Step::Reading(n, f, m) => {
                    last.insert(n, (f, m));
                    feed(&reading(n, f, m), t, false)?;
                }
                Step::Repeat(n) => {
                    let (f, m) = last.get(&n).copied().unwrap_or((1.0, 4096));
                    feed(&reading(n, f, m), t, false)?;
                }
                Step::Left(n) => feed(&Observation::Left(NodeId(n)), t, false)?,
                Step::BootFailed(n) => feed(&Observation::BootFailed(NodeId(n)), t, false)?,
                Step::Joined(n) => feed(&Observation::Joined(NodeId(n)), t, false)?,
                Step::Period(available, disk) => {
                    t += 59;
                    work += 1000.0;
                    let report = PeriodReport {
                        seconds: 60.0,
                        cpu_available: 32.0 + available,
                        cpu_consumed: 32.0 + available * 0.8,
                        max_disk_util: disk,
                        task_s: Some(60.0),
                        work: 1000.0,
                        usd: 1.0,
                        joules: 1.0,
                    };
                    feed(&Observation::Period(report), t, false)?;
                    let progress = Progress::new(work, 1e6, Duration(t), 32.0).expect("valid");
                    let point = ProgressPoint::PeriodEnd;
                    feed(&Observation::Progress { progress, point }, t, true)?;
                }
                Step::Between => {
                    let progress = Progress::new(work.max(1.0), 1e6, Duration(t), 32.0).expect("valid");
                    let point = ProgressPoint::BetweenPeriods;
                    feed(&Observation::Progress { progress, point }, t, true)?;
                }
            }
        }
    }
}

/// [`mean_shift`] by brute force: every sample climbs (100 shifts at most), each shift over
/// every sample; modes merged by decreasing support, samples joined to their nearest centre.
fn climb_from_every_sample(samples: &[IoSample], h: f64) -> Vec<Cluster> {
    let mut pts = samples.to_vec();
    pts.sort_by(|a, b| {
        (a.cpu_available, a.cpu_consumed, a.weight)
            .partial_cmp(&(b.cpu_available, b.cpu_consumed, b.weight))
            .expect("finite")
    });
    let d2 =
        |x: f64, y: f64, p: &IoSample| (p.cpu_available - x).powi(2) + (p.cpu_consumed - y).powi(2);
    let within = |x: f64, y: f64| pts.iter().filter(move |p| d2(x, y, p) <= h * h);
    let mut modes: Vec<Cluster> = pts
        .iter()
        .map(|s| {
            let (mut x, mut y) = (s.cpu_available, s.cpu_consumed);
            for _ in 0..100 {
                let (w, sx, sy) = within(x, y).fold((0.0, 0.0, 0.0), |(w, sx, sy), p| {
                    (
                        w + p.weight,
                        sx + p.weight * p.cpu_available,
                        sy + p.weight * p.cpu_consumed,
                    )
                });
                let (nx, ny) = (sx / w, sy / w);
                let moved = (nx - x).powi(2) + (ny - y).powi(2);
                (x, y) = (nx, ny);
                if moved <= h * h * 1e-6 {
                    break;
                }
            }
            let weight = within(x, y).map(|p| p.weight).sum();
            Cluster {
                cpu_available: x,
                cpu_consumed: y,
                weight,
            }
        })
        .collect();
    modes.sort_by(|a, b| {
        (-a.weight, a.cpu_available, a.cpu_consumed)
            .partial_cmp(&(-b.weight, b.cpu_available, b.cpu_consumed))
            .expect("finite")
    });
    let mut kept: Vec<Cluster> = Vec::new();
    for m in modes {
        let close = |k: &Cluster| {
            (k.cpu_available - m.cpu_available).powi(2) + (k.cpu_consumed - m.cpu_consumed).powi(2)
                <= h * h
        };
        if !kept.iter().any(close) {
            kept.push(Cluster { weight: 0.0, ..m });
        }
    }
    for p in &pts {
        let dist = |k: &Cluster| d2(k.cpu_available, k.cpu_consumed, p);
        let mut best: Option<usize> = None;
        for (i, k) in kept.iter().enumerate() {
            if best.is_none_or(|b| dist(k) < dist(&kept[b])) {
                best = Some(i);
            }
        }
        if let Some(i) = best {
            kept[i].weight += p.weight;
        }
    }
    kept.sort_by(|a, b| {
        (a.cpu_available, a.cpu_consumed)
            .partial_cmp(&(b.cpu_available, b.cpu_consumed))
            .expect("finite")
    });
    kept
}

/// One step of a candidate stream: some nodes' candidates change (`None`: no longer one),
/// then a decision: a boundary (a size, then the replacement) or a deferment (departed
/// members replaced up to the size before).
#[derive(Clone, Debug)]
struct SelectionStep {
    changes: Vec<(u32, Option<(u8, u32)>)>,
    boundary: Option<(usize, f64)>,
}

fn selection_step() -> impl Strategy<Value = SelectionStep> {
    // Few distinct contributions (halves of a core) so ties are frequent; 0 slots is
    // unusable (no candidate).
    let change = (0u32..30, prop::option::weighted(0.8, (0u8..10, 0u32..4)));
    (
        prop::collection::vec(change, 0..12),
        prop::option::weighted(
            0.7,
            (0usize..32, prop_oneof![Just(0.0), Just(0.5), 0.0f64..3.0]),
        ),
    )
        .prop_map(|(changes, boundary)| SelectionStep { changes, boundary })
}

/// §4.4's selection by its definition, over the candidates sorted afresh: members no longer
/// listed leave (the others take their slots); a boundary grows the pool by the best unused
/// or drops the worst used, then swaps the `i`-th worst used for the `i`-th best unused while
/// that beats it by more than the threshold; a deferment refills the pool to its size if a
/// member left.
fn select_afresh(members: &mut Vec<Assignment>, sorted: &[Candidate], step: &SelectionStep) {
    let size_before = members.len();
    let rank = |n: NodeId| sorted.iter().position(|c| c.node == n);
    let before = members.len();
    members.retain_mut(|a| match rank(a.node) {
        Some(i) => {
            a.slots = sorted[i].slots;
            true
        }
        None => false,
    });
    let left = members.len() != before;
    let (size, threshold) = match step.boundary {
        Some(b) => b,
        None if left => (size_before, f64::INFINITY),
        None => return,
    };
    let size = size.min(sorted.len());
    let worst_first = |members: &[Assignment]| {
        let mut ranks: Vec<usize> = members.iter().filter_map(|a| rank(a.node)).collect();
        ranks.sort_unstable_by(|a, b| b.cmp(a));
        ranks
    };
    if members.len() > size {
        let dropped: Vec<NodeId> = worst_first(members)
            .into_iter()
            .take(members.len() - size)
            .map(|i| sorted[i].node)
            .collect();
        members.retain(|a| !dropped.contains(&a.node));
    } else {
        for c in sorted {
            if members.len() >= size {
                break;
            }
            if !members.iter().any(|a| a.node == c.node) {
                members.push(Assignment {
                    node: c.node,
                    slots: c.slots,
                });
            }
        }
    }
    if step.boundary.is_none() {
        return;
    }
    let unused: Vec<Candidate> = sorted
        .iter()
        .filter(|c| !members.iter().any(|a| a.node == c.node))
        .copied()
        .collect();
    for (w, b) in worst_first(members).into_iter().zip(unused) {
        let worst = sorted[w];
        if b.contribution() - worst.contribution() <= threshold {
            break;
        }
        for a in members.iter_mut().filter(|a| a.node == worst.node) {
            *a = Assignment {
                node: b.node,
                slots: b.slots,
            };
        }
    }
}

proptest! {
    /// The selection kept incrementally (its listing updated with the changed candidates
    /// only) and the one given every candidate afresh at each decision choose the same
    /// members in the same order, and both as §4.4's rules by definition do, on random
    /// streams of candidate changes, boundaries and deferments.
    #[test]
    fn incremental_selection_equals_selection_afresh(
        steps in prop::collection::vec(selection_step(), 1..60),
    ) {
        let mut incremental = Selection::default();
        let mut afresh = Selection::default();
        let mut reference: Vec<Assignment> = Vec::new();
        let mut current: std::collections::BTreeMap<u32, Candidate> = Default::default();
        let mut sorted = Vec::new();
        for step in &steps {
            let mut changes = Vec::new();
            for &(n, c) in &step.changes {
                let c = c
                    .map(|(half_cores, slots)| Candidate {
                        node: NodeId(n),
                        residual_cpu: f64::from(half_cores) / 2.0,
                        slots,
                    })
                    .filter(|c| c.slots > 0);
                match c {
                    Some(c) => current.insert(n, c),
                    None => current.remove(&n),
                };
                changes.push((NodeId(n), c));
            }
            let all: Vec<Candidate> = current.values().copied().collect();
            screen_and_sort(&all, &mut sorted);
            let size = incremental.members().len();
            let left = incremental.update(changes);
            let size_afresh = afresh.members().len();
            let left_afresh = afresh.refresh(&sorted);
            prop_assert_eq!(left, left_afresh);
            prop_assert_eq!(size, size_afresh);
            match step.boundary {
                Some((to, threshold)) => {
                    incremental.resize_listed(to);
                    let swaps = incremental.replace_listed(threshold);
                    afresh.resize(to, &sorted);
                    prop_assert_eq!(swaps, afresh.replace(&sorted, threshold));
                }
                None if left => {
                    incremental.resize_listed(size);
                    afresh.resize(size, &sorted);
                }
                None => {}
            }
            select_afresh(&mut reference, &sorted, step);
            prop_assert_eq!(incremental.members(), &reference[..]);
            prop_assert_eq!(afresh.members(), &reference[..]);
            for c in &sorted {
                prop_assert_eq!(incremental.listed(c.node), Some(*c));
            }
        }
    }
}
