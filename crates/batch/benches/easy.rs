//! Simulation throughput of FCFS and EASY on a seeded 100,000-job Lublin–Feitelson workload
//! (Tsafrir runtime estimates) at offered load 0.92 on 1,024 units.
//!
//! `cargo bench -p cosched-batch` reports jobs/s (criterion's element throughput) and prints the
//! queue lengths each policy sees.

use cosched_batch::{BatchSim, Policy};
use cosched_core::workload::{LublinModel, TsafrirEstimates, offered_load, scale_to_offered_load};
use cosched_core::{Duration, RigidJob};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const CAPACITY: u32 = 1_024;
const JOBS: usize = 100_000;
const LOAD: f64 = 0.92;

fn workload() -> Vec<RigidJob> {
    let mut jobs = LublinModel::typeless(CAPACITY)
        .expect("valid capacity")
        .generate(JOBS, 2026);
    TsafrirEstimates::new(Duration::from_hours(36))
        .expect("valid maximum estimate")
        .assign(&mut jobs, 2027);
    scale_to_offered_load(&mut jobs, CAPACITY, LOAD).expect("valid load");
    jobs
}

fn simulate(c: &mut Criterion) {
    let jobs = workload();
    eprintln!(
        "workload: {} jobs, offered load {:.3} on {CAPACITY} units",
        jobs.len(),
        offered_load(&jobs, CAPACITY)
    );
    let mut group = c.benchmark_group("lublin_100k_load_0.92_1024_units");
    group.throughput(Throughput::Elements(jobs.len() as u64));
    group.sample_size(10);
    for policy in [Policy::Fcfs, Policy::Easy] {
        let out = BatchSim::new(CAPACITY, policy.scheduler())
            .expect("valid capacity")
            .run(&jobs)
            .expect("valid workload");
        eprintln!(
            "{policy}: max queue {} jobs, time-averaged queue {:.1}, {} passes, utilization {:.3}, mean wait {:.0} s",
            out.stats.max_queue_len,
            out.stats.mean_queue_len,
            out.stats.passes,
            out.report.utilization,
            out.report.overall.mean_wait_s
        );
        group.bench_function(policy.name(), |b| {
            b.iter(|| {
                BatchSim::new(CAPACITY, policy.scheduler())
                    .expect("valid capacity")
                    .run(&jobs)
                    .expect("valid workload")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, simulate);
criterion_main!(benches);
