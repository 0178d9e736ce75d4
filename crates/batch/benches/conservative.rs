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
//! and the rows of the speed table for conservative backfilling (all exact policy):
//!
//! - `conservative_backlog_64_units/lublin_20k_first_8k_at_0`: 20,000 Lublin–Feitelson jobs
//!   with Tsafrir estimates on 64 units (seeds 1 and 1), the first 8,000 submitted at t = 0;
//! - `conservative_burst_256_units/{5k,10k,20k}`: jobs all at t = 0 on 256 units, every
//!   4th full width, the others log-uniform on 1–256 units, run times uniform on 100–1,000 s
//!   and estimates 100 times the run time (ours: the shape the speed table names);
//! - `conservative_curie/cea_curie`: CEA-Curie-2011-2.1-cln (312,807 jobs, its MaxProcs), if
//!   `../shared/data/swf` (or `$COSCHED_SHARED_DATA/swf`) holds it, beside EASY on it.
//!
//! and the catalogue's conservative backfilling in a static order, kept between passes
//! (`sjf`), beside the same key planned from scratch at every pass (`expr(estimate + 0 *
//! now)`, an order that changes with time):
//!
//! - `catalogue_sjf_conservative_64_units/{kept,afresh}_mixed_1k`: 1,000 jobs of the mixed
//!   burst (every job runs its estimate);
//! - `catalogue_sjf_conservative_1024_units/{kept,afresh}_lublin_5k`: the Lublin trace above.
//!
//! `cargo bench -p cosched-batch --bench conservative` measures the CPU time of the
//! benchmarking thread (see `common`) and reports jobs per CPU second.

use cosched_batch::BatchSim;
use cosched_batch::catalogue::PolicySpec;
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

/// 20,000 Lublin jobs on 64 units, the first 8,000 submitted at t = 0.
fn backlog_at_zero() -> Vec<RigidJob> {
    let mut jobs = lublin(64, 20_000, 1, 1);
    jobs.sort_by_key(|j| (j.submit, j.id));
    for job in jobs.iter_mut().take(8_000) {
        job.submit = Time(0);
    }
    jobs
}

/// `n` jobs at t = 0 on 256 units: every 4th full width, the others log-uniform on 1–256
/// units; run times uniform on 100–1,000 s, estimates 100 times that.
fn wide_burst(n: u64) -> Vec<RigidJob> {
    let streams = SeedStreams::new(36);
    let mut sizes = streams.stream("sizes", 0);
    let mut runs = streams.stream("runtimes", 0);
    (0..n)
        .map(|i| {
            let size = if i % 4 == 3 {
                256
            } else {
                log_uniform(&mut sizes, 256)
            };
            let run = runs.random_range(100..=1_000);
            RigidJob::new(
                JobId(i + 1),
                Time(0),
                size,
                Duration(run),
                Duration(100 * run),
            )
            .expect("valid job")
        })
        .collect()
}

fn speed_table(c: &mut Criterion<ThreadCpuTime>) {
    let mut group = c.benchmark_group("conservative_backlog_64_units/cpu");
    group.sample_size(10);
    let jobs = backlog_at_zero();
    group.throughput(Throughput::Elements(jobs.len() as u64));
    group.bench_function("lublin_20k_first_8k_at_0", |b| {
        b.iter(|| {
            BatchSim::new(64)
                .expect("valid capacity")
                .run(&mut BuiltinPolicy::Conservative.build(), &jobs)
                .expect("valid workload")
        })
    });
    group.finish();
    let mut group = c.benchmark_group("conservative_burst_256_units/cpu");
    group.sample_size(10);
    for n in [5_000, 10_000, 20_000] {
        let jobs = wide_burst(n);
        group.throughput(Throughput::Elements(n));
        group.bench_function(format!("{}k", n / 1_000), |b| {
            b.iter(|| {
                BatchSim::new(256)
                    .expect("valid capacity")
                    .run(&mut BuiltinPolicy::Conservative.build(), &jobs)
                    .expect("valid workload")
            })
        });
    }
    group.finish();
    let data = std::env::var_os("COSCHED_SHARED_DATA").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        std::path::PathBuf::from,
    );
    let curie = data.join("swf/CEA-Curie-2011-2.1-cln.swf.gz");
    let Ok(trace) = cosched_workload::swf::read_rigid_jobs(&curie) else {
        eprintln!("skipped: {} not found", curie.display());
        return;
    };
    let capacity = trace
        .header
        .values()
        .max_procs
        .and_then(|c| u32::try_from(c).ok())
        .expect("Curie's MaxProcs");
    let mut group = c.benchmark_group("conservative_curie/cpu");
    group.sample_size(10);
    group.throughput(Throughput::Elements(trace.jobs.len() as u64));
    for policy in [
        BuiltinPolicy::Easy,
        BuiltinPolicy::Conservative,
        BuiltinPolicy::ConservativeBounded,
    ] {
        group.bench_function(policy.name(), |b| {
            b.iter(|| {
                BatchSim::new(capacity)
                    .expect("valid capacity")
                    .run(&mut policy.build(), &trace.jobs)
                    .expect("valid workload")
            })
        });
    }
    group.finish();
}

fn static_orders(c: &mut Criterion<ThreadCpuTime>) {
    let cases = [
        ("64_units", "mixed_1k", CAPACITY, mixed(1_000)),
        (
            "1024_units",
            "lublin_5k",
            1_024,
            lublin(1_024, 5_000, 2026, 2027),
        ),
    ];
    for (units, name, capacity, jobs) in &cases {
        let mut group = c.benchmark_group(format!("catalogue_sjf_conservative_{units}/cpu"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(jobs.len() as u64));
        for (how, spec) in [
            ("kept", "sjf+conservative"),
            ("afresh", "expr(estimate + 0 * now)+conservative"),
        ] {
            let spec: PolicySpec = spec.parse().expect("a catalogue name");
            group.bench_function(format!("{how}_{name}"), |b| {
                b.iter(|| {
                    BatchSim::new(*capacity)
                        .expect("valid capacity")
                        .run(&mut spec.build(), jobs)
                        .expect("valid workload")
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bursts, replans, deep_backlogs, speed_table, static_orders
}
criterion_main!(benches);
