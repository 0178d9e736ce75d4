//! The controller's speed (§5.6: under 250 ms for an exhaustive decision over 36 volunteers):
//! a full boundary decision (the answer to a progress report) for 36, 4,000 and 10,000
//! candidates, with the candidates screened afresh and incrementally (none changed since the
//! last decision) —
//! screening, sorting, mean-shift over an hour of 1-minute I/O samples, the spline, the search,
//! the selection, the pool's commands — and the bare
//! exhaustive search and simulated annealing over 10,000 candidates.

use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId, SeedStreams, Time};
use cosched_rhic::policy::{Observation, PeriodReport, ProfileReport, ProgressPoint};
use cosched_rhic::{
    Candidate, CompletionParams, CostModel, Goal, Progress, Rhic, RhicConfig, SearchModel,
    annealing_search, exhaustive_search, screen_and_sort,
};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// A fixed pseudo-random spread (no RNG dependency).
fn spread(i: u32) -> (f64, u64) {
    let h = i.wrapping_mul(2_654_435_761);
    (f64::from(h % 16_000) / 1000.0, u64::from(h % 8192))
}

/// A controller after profiling, Algorithm 1 and an hour of periods, with `n` candidates.
fn prepared(n: u32) -> Rhic {
    let mut out = Vec::new();
    let mut r =
        Rhic::new(RhicConfig::new(6, 16.0, Goal::Cost(CostModel::default()))).expect("valid");
    for t in 0..60 {
        for i in 0..n {
            let (fg, mem) = spread(i.wrapping_add(t));
            let o = Observation::Node {
                node: NodeId(i),
                cores: 16.0,
                foreground_cpu: fg,
                free_memory_mb: mem,
            };
            r.observe(Time(i64::from(t)), &o, &(), &mut out)
                .expect("valid");
        }
    }
    let profile = ProfileReport {
        bw_util: 0.25,
        dedicated_cpu: 96.0,
        slot_memory_mb: 256,
        task_s: 60.0,
    };
    r.observe(Time(60), &Observation::Profile(profile), &(), &mut out)
        .expect("valid");
    for k in 1..=60 {
        let available = 96.0 + f64::from(k % 37) * 12.0;
        let report = PeriodReport {
            seconds: 60.0,
            cpu_available: available,
            cpu_consumed: available.min(300.0) * (0.9 + 0.001 * f64::from(k % 7)),
            max_disk_util: (available / 400.0).min(1.0),
            task_s: Some(60.0),
            work: 1000.0,
            usd: 1.0,
            joules: 1.0,
        };
        let at = Time(60 * (i64::from(k) + 1));
        r.observe(at, &Observation::Period(report), &(), &mut out)
            .expect("valid");
        let p = Progress::new(1000.0 * f64::from(k), 1e7, Duration(at.0), 200.0).expect("valid");
        let o = Observation::Progress {
            progress: p,
            point: ProgressPoint::PeriodEnd,
        };
        r.observe(at, &o, &(), &mut out).expect("valid");
    }
    r
}

fn bench(c: &mut Criterion) {
    let progress = Progress::new(60_000.0, 1e7, Duration(3660), 200.0).expect("valid");
    let report = Observation::Progress {
        progress,
        point: ProgressPoint::PeriodEnd,
    };
    // A boundary decision after a period in which no candidate changed: screened afresh (every
    // candidate re-listed and sorted, as before the incremental screen) and incrementally.
    for n in [36, 4_000, 10_000] {
        let r = prepared(n);
        for (name, afresh) in [("full", true), ("incremental", false)] {
            c.bench_function(&format!("decide/{name}/{n}"), |b| {
                b.iter_batched_ref(
                    || {
                        let mut r = r.clone();
                        if afresh {
                            r.forget_screen();
                        }
                        (r, Vec::new())
                    },
                    |(r, out)| {
                        r.observe(Time(3720), &report, &(), out).expect("valid");
                        black_box(out.len())
                    },
                    BatchSize::SmallInput,
                )
            });
        }
    }
    let all: Vec<Candidate> = (0..10_000)
        .map(|i| {
            let (fg, mem) = spread(i);
            Candidate {
                node: NodeId(i),
                residual_cpu: 16.0 - fg,
                slots: (mem / 256) as u32,
            }
        })
        .collect();
    let completion = CompletionParams::new(Duration(30), 60.0).expect("valid");
    let goal = Goal::Cost(CostModel::default());
    let model = SearchModel {
        now: Time(600),
        dedicated: 6,
        dedicated_cpu: 96.0,
        cpu_max: 16.0,
        curve: None,
        ceiling_cpu: 20_000.0,
        progress: &progress,
        completion: &completion,
        goal: &goal,
        current: 40,
    };
    let mut sorted = Vec::with_capacity(all.len());
    c.bench_function("exhaustive_search/10000", |b| {
        b.iter(|| {
            screen_and_sort(black_box(&all), &mut sorted);
            black_box(exhaustive_search(&model, &sorted))
        })
    });
    screen_and_sort(&all, &mut sorted);
    c.bench_function("annealing_search/10000", |b| {
        let mut rng = SeedStreams::new(7).stream("annealing", 0);
        b.iter(|| {
            black_box(annealing_search(
                &model,
                black_box(&sorted),
                40,
                500,
                &mut rng,
            ))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
