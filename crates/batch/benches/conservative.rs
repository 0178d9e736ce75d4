//! Planning cost of conservative backfilling on bursts submitted at t = 0 on 64 units, where
//! every job runs exactly its estimate (so one plan serves the whole run):
//!
//! - `full_width_50k`: 50,000 jobs of 64 units and 100 s (every fit at the profile's end);
//! - `mixed_10k`, `mixed_50k`: sizes log-uniform on 1–64 units and estimates uniform on
//!   1–10,000 s (a fragmented profile: each fit crosses many runs with and without room).
//!
//! and the cost of replanning after unforeseen changes, on a Lublin–Feitelson trace whose jobs
//! mostly end before their Tsafrir estimates (each such end makes the pass plan the queue
//! again):
//!
//! - `conservative_replans_1024_units/lublin_5k`: 5,000 jobs on 1,024 units (seeds 2026 and
//!   2027, as the EASY bench's trace).
//!
//! and deep backlogs (`tests/shapes`), every job ending well before its
//! estimate so that every completion replans:
//!
//! - `conservative_deep_backlog_64_units/full_width_early_20k`: 20,000 jobs of 64 units at
//!   t = 0, run 100 s, estimate 200 s (exact policy);
//! - `conservative_deep_backlog_64_units/staggered_bounded_20k`: 20,000 jobs every 80 s,
//!   estimates ten times their run times, about 8,000 queued (bounded policy, Slurm's
//!   defaults).
//!
//! `cargo bench -p cosched-batch --bench conservative` measures the CPU time of the
//! benchmarking thread (see `common`) and reports jobs per CPU second.

use cosched_batch::BatchSim;
use cosched_batch::scenario::BuiltinPolicy;
use cosched_core::{Duration, JobId, RigidJob, SeedStreams, Time};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::RngExt;

mod common;
use common::{ThreadCpuTime, lublin};
#[path = "../tests/shapes/mod.rs"]
mod shapes;

const CAPACITY: u32 = 64;

/// `n` jobs at t = 0 of `size` units for `seconds`, each drawn by `draw`.
fn burst(n: u64, mut draw: impl FnMut() -> (u32, i64)) -> Vec<RigidJob> {
    (0..n)
        .map(|i| {
            let (size, seconds) = draw();
            RigidJob::new(
                JobId(i + 1),
                Time(0),
                size,
                Duration(seconds),
                Duration(seconds),
            )
            .expect("valid job")
        })
        .collect()
}

/// A value log-uniform on `1..=max`.
fn log_uniform(rng: &mut impl RngExt, max: u32) -> u32 {
    let x = rng.random_range(0.0..(f64::from(max) + 1.0).ln()).exp();
    (x as u32).clamp(1, max)
}

fn mixed(n: u64) -> Vec<RigidJob> {
    let streams = SeedStreams::new(n);
    let mut sizes = streams.stream("sizes", 0);
    let mut estimates = streams.stream("estimates", 0);
    burst(n, || {
        (
            log_uniform(&mut sizes, CAPACITY),
            estimates.random_range(1..=10_000),
        )
    })
}

fn bursts(c: &mut Criterion<ThreadCpuTime>) {
    let cases = [
        ("full_width_50k", burst(50_000, || (CAPACITY, 100))),
        ("mixed_10k", mixed(10_000)),
        ("mixed_50k", mixed(50_000)),
    ];
    let mut group = c.benchmark_group("conservative_bursts_64_units/cpu");
    group.sample_size(10);
    for (name, jobs) in &cases {
        group.throughput(Throughput::Elements(jobs.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| {
                BatchSim::new(CAPACITY)
                    .expect("valid capacity")
                    .run(&mut BuiltinPolicy::Conservative.build(), jobs)
                    .expect("valid workload")
            })
        });
    }
    group.finish();
}

fn replans(c: &mut Criterion<ThreadCpuTime>) {
    const UNITS: u32 = 1_024;
    let jobs = lublin(UNITS, 5_000, 2026, 2027);
    let out = BatchSim::new(UNITS)
        .expect("valid capacity")
        .run(&mut BuiltinPolicy::Conservative.build(), &jobs)
        .expect("valid workload");
    eprintln!(
        "lublin_5k: {} passes, queue up to {} jobs ({:.0} on average)",
        out.stats.passes, out.stats.max_queue_len, out.stats.mean_queue_len
    );
    let mut group = c.benchmark_group("conservative_replans_1024_units/cpu");
    group.sample_size(10);
    group.throughput(Throughput::Elements(jobs.len() as u64));
    group.bench_function("lublin_5k", |b| {
        b.iter(|| {
            BatchSim::new(UNITS)
                .expect("valid capacity")
                .run(&mut BuiltinPolicy::Conservative.build(), &jobs)
                .expect("valid workload")
        })
    });
    group.finish();
}

fn deep_backlogs(c: &mut Criterion<ThreadCpuTime>) {
    let cases = [
        (
            "full_width_early_20k",
            shapes::full_width_burst(20_000),
            BuiltinPolicy::Conservative,
        ),
        (
            "staggered_bounded_20k",
            shapes::staggered_backlog(20_000),
            BuiltinPolicy::ConservativeBounded,
        ),
    ];
    let mut group = c.benchmark_group("conservative_deep_backlog_64_units/cpu");
    group.sample_size(10);
    for (name, jobs, policy) in &cases {
        group.throughput(Throughput::Elements(jobs.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| {
                BatchSim::new(shapes::CAPACITY)
                    .expect("valid capacity")
                    .run(&mut policy.build(), jobs)
                    .expect("valid workload")
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bursts, replans, deep_backlogs
}
criterion_main!(benches);
