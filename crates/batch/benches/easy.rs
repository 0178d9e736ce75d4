//! Simulation throughput of the batch policies on two seeded Lublin–Feitelson workloads with
//! Tsafrir runtime estimates:
//!
//! - `lublin_100k_load_0.92_1024_units`: 100,000 jobs scaled to offered load 0.92 on 1,024
//!   units (FCFS and EASY);
//! - `lublin_312k_93312_units`: 312,000 jobs on 93,312 units (the shape of a large machine's
//!   year-long log), exactly the trace `cosched generate lublin --jobs 312000 --capacity 93312
//!   --seed 1` writes (FCFS and EASY).
//!
//! `cargo bench -p cosched-batch --bench easy` reports jobs/s (criterion's element throughput)
//! and prints the queue lengths each policy sees. Each group is measured twice: in wall-clock
//! time (criterion's default) and, under `…/cpu`, in the CPU time of the benchmarking thread,
//! which a machine shared with other work inflates far less than the wall clock.

use cosched_batch::BatchSim;
use cosched_batch::scenario::BuiltinPolicy;
use cosched_core::RigidJob;
use cosched_workload::{offered_load, scale_to_offered_load};
use criterion::measurement::Measurement;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};

mod common;
use common::{ThreadCpuTime, lublin};

fn bench_in<M: Measurement>(group: &mut BenchmarkGroup<'_, M>, capacity: u32, jobs: &[RigidJob]) {
    group.throughput(Throughput::Elements(jobs.len() as u64));
    group.sample_size(10);
    for policy in [BuiltinPolicy::Fcfs, BuiltinPolicy::Easy] {
        group.bench_function(policy.name(), |b| {
            b.iter(|| {
                BatchSim::new(capacity)
                    .expect("valid capacity")
                    .run(&mut policy.build(), jobs)
                    .expect("valid workload")
            })
        });
    }
}

fn bench_policies(c: &mut Criterion, name: &str, capacity: u32, jobs: &[RigidJob]) {
    eprintln!(
        "{name}: {} jobs, offered load {:.3} on {capacity} units",
        jobs.len(),
        offered_load(jobs, capacity)
    );
    for policy in [BuiltinPolicy::Fcfs, BuiltinPolicy::Easy] {
        let out = BatchSim::new(capacity)
            .expect("valid capacity")
            .run(&mut policy.build(), jobs)
            .expect("valid workload");
        eprintln!(
            "{policy}: max queue {} jobs, time-averaged queue {:.1}, {} passes, utilization {:.3}, mean wait {:.0} s",
            out.stats.max_queue_len,
            out.stats.mean_queue_len,
            out.stats.passes,
            out.report.utilization,
            out.report.overall.mean_wait_s
        );
    }
    let mut wall = c.benchmark_group(name);
    bench_in(&mut wall, capacity, jobs);
    wall.finish();
    let mut cpu_criterion = Criterion::default()
        .with_measurement(ThreadCpuTime)
        .configure_from_args();
    let mut cpu = cpu_criterion.benchmark_group(format!("{name}/cpu"));
    bench_in(&mut cpu, capacity, jobs);
    cpu.finish();
}

fn simulate(c: &mut Criterion) {
    const CAPACITY: u32 = 1_024;
    let mut jobs = lublin(CAPACITY, 100_000, 2026, 2027);
    scale_to_offered_load(&mut jobs, CAPACITY, 0.92).expect("valid load");
    bench_policies(c, "lublin_100k_load_0.92_1024_units", CAPACITY, &jobs);
}

fn simulate_large_machine(c: &mut Criterion) {
    const CAPACITY: u32 = 93_312;
    let jobs = lublin(CAPACITY, 312_000, 1, 1);
    bench_policies(c, "lublin_312k_93312_units", CAPACITY, &jobs);
}

criterion_group!(benches, simulate, simulate_large_machine);
criterion_main!(benches);
