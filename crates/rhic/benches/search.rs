//! Exhaustive search over all pool sizes (sort + prefix evaluation), 36 and 10,000 candidates.

use cosched_core::{Duration, NodeId, Time};
use cosched_rhic::{
    Candidate, Cluster, CompletionParams, CostModel, Goal, IoCurve, Progress, SearchModel,
    exhaustive_search, screen_and_sort,
};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn candidates(n: u32) -> Vec<Candidate> {
    // A fixed pseudo-random spread of residuals and memory (no RNG dependency).
    (0..n)
        .map(|i| {
            let h = i.wrapping_mul(2_654_435_761);
            Candidate {
                node: NodeId(i),
                residual_cpu: f64::from(h % 4000) / 1000.0,
                free_memory_mb: u64::from(h % 8192),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let knot = |a, u| Cluster {
        cpu_available: a,
        cpu_consumed: u,
        weight: 1.0,
    };
    let curve = IoCurve::through(&[
        knot(8.0, 8.0),
        knot(40.0, 30.0),
        knot(200.0, 60.0),
        knot(5000.0, 80.0),
    ]);
    let progress = Progress::new(1000.0, 9000.0, Duration(600), 8.0).expect("valid progress");
    let completion = CompletionParams::new(0.05, Duration(60), Duration(30)).expect("valid");
    let goal = Goal::Cost(CostModel::default());
    let model = SearchModel {
        now: Time(600),
        dedicated: 2,
        dedicated_cpu: 8.0,
        cpu_max: 4.0,
        curve: curve.as_ref(),
        ceiling_cpu: f64::INFINITY,
        progress: &progress,
        completion: &completion,
        goal: &goal,
        current: 4,
    };
    for n in [36, 10_000] {
        let all = candidates(n);
        let mut sorted = Vec::with_capacity(all.len());
        c.bench_function(&format!("exhaustive_search/{n}"), |b| {
            b.iter(|| {
                screen_and_sort(black_box(&all), 1024, &mut sorted);
                black_box(exhaustive_search(&model, &sorted))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
