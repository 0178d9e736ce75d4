//! The paper's wait-time predictor at its working size (the seasonal ARIMA price model is
//! benchmarked in cosched-forecast's `models` bench).
//!
//! A full history of 2,000 started jobs with wait-feature-like coordinates (power-of-two cores, log-normal estimates, heavy-tailed queue sums); `predict` alone,
//!   `observe` (ring push; one call in `refit_every` = 50 pays a refit, so the figure is the
//!   amortised cost), and one full refit (scaling, DBSCAN, ridge) of the 2,000 jobs — also
//!   for a history drawn from three tight queue regimes, where nearly every job is a core
//!   point of a large cluster.
//!
//! `cargo bench -p cosched-metasched --bench predictors`.

use cosched_core::Duration;
use cosched_metasched::wait::{
    ClusteredWaitConfig, ClusteredWaitPredictor, QueueWaitPredictor, WaitFeatures,
};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn job(rng: &mut ChaCha8Rng) -> (WaitFeatures, Duration) {
    let heavy = |rng: &mut ChaCha8Rng, scale: f64| scale / rng.random_range(0.02..1.0f64);
    let f = WaitFeatures {
        cores: f64::from(1u32 << rng.random_range(0..10)),
        estimate: rng.random_range(6.0..11.0f64).exp(),
        queued_cores: heavy(rng, 64.0).floor(),
        queued_estimate: heavy(rng, 3.6e4),
        queued_elapsed_wait: heavy(rng, 1.8e4),
        busy_cores: f64::from(rng.random_range(0..4096u32)),
        running_elapsed: rng.random_range(9.0..14.0f64).exp(),
        running_estimate: rng.random_range(10.0..15.0f64).exp(),
    };
    let wait = (f.queued_estimate / 64.0 + rng.random_range(0.0..600.0)) as i64;
    (f, Duration(wait))
}

/// A job from one of three queue regimes, each coordinate within ±3 % of the regime's: the
/// dense case, where most jobs are core points of a few large clusters.
fn regime_job(rng: &mut ChaCha8Rng) -> (WaitFeatures, Duration) {
    const REGIMES: [[f64; 8]; 3] = [
        [1.0, 600.0, 0.0, 0.0, 0.0, 100.0, 2e4, 5e4],
        [64.0, 36_000.0, 512.0, 4e5, 2e5, 1_000.0, 8e4, 2e5],
        [16.0, 7_200.0, 128.0, 1e5, 3e4, 800.0, 5e4, 1e5],
    ];
    let regime = REGIMES[rng.random_range(0..3)];
    let f = WaitFeatures::from_array(regime.map(|x| x * rng.random_range(0.97..1.03)));
    (f, Duration((f.queued_estimate / 64.0) as i64))
}

fn full_predictor(
    rng: &mut ChaCha8Rng,
    job: fn(&mut ChaCha8Rng) -> (WaitFeatures, Duration),
    config: ClusteredWaitConfig,
) -> ClusteredWaitPredictor {
    let mut p = config.build().unwrap();
    for _ in 0..2_000 {
        let (f, w) = job(rng);
        p.observe(&f, w);
    }
    p.refit();
    p
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let predictor = full_predictor(&mut rng, job, ClusteredWaitConfig::default());
    let dense = full_predictor(&mut rng, regime_job, ClusteredWaitConfig::default());
    // The paper configuration: published parameters, correlation-weighted features.
    let paper = full_predictor(&mut rng, job, ClusteredWaitConfig::paper());
    let queries: Vec<(WaitFeatures, Duration)> = (0..1_024).map(|_| job(&mut rng)).collect();
    println!(
        "history {} jobs, {} clusters (scattered); {} clusters (regimes)",
        predictor.history_len(),
        predictor.cluster_count(),
        dense.cluster_count()
    );
    let mut group = c.benchmark_group("wait_2000");
    let mut next = 0;
    group.bench_function("predict", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            black_box(predictor.predict(black_box(&queries[next].0)))
        })
    });
    let mut live = predictor.clone();
    group.bench_function("observe_amortised", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            let (f, w) = &queries[next];
            live.observe(black_box(f), *w);
        })
    });
    group.bench_function("predict_then_observe_amortised", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            let (f, w) = &queries[next];
            black_box(live.predict(f));
            live.observe(f, *w);
        })
    });
    group.sample_size(20);
    group.bench_function("refit", |b| {
        b.iter_batched_ref(|| predictor.clone(), |p| p.refit(), BatchSize::LargeInput)
    });
    group.bench_function("refit_regimes", |b| {
        b.iter_batched_ref(|| dense.clone(), |p| p.refit(), BatchSize::LargeInput)
    });
    group.bench_function("refit_paper_correlation_weights", |b| {
        b.iter_batched_ref(|| paper.clone(), |p| p.refit(), BatchSize::LargeInput)
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
