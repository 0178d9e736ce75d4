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

use cosched_batch::{BatchSim, Policy};
use cosched_core::{Duration, RigidJob};
use cosched_workload::{LublinModel, TsafrirEstimates, offered_load, scale_to_offered_load};
use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};

fn lublin(capacity: u32, jobs: usize, seed: u64, estimate_seed: u64) -> Vec<RigidJob> {
    let mut jobs = LublinModel::typeless(capacity)
        .expect("valid capacity")
        .generate(jobs, seed);
    TsafrirEstimates::new(Duration::from_hours(36))
        .expect("valid maximum estimate")
        .assign(&mut jobs, estimate_seed);
    jobs
}

/// CPU time of the calling thread, in nanoseconds (Linux: `/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .expect("/proc/thread-self/schedstat (Linux) gives the thread's CPU time")
}

/// Criterion measurement: CPU time of the benchmarking thread.
struct ThreadCpuTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// Formats nanoseconds of CPU time as ms, and element throughput as jobs per CPU second.
struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        values.iter_mut().for_each(|v| *v /= 1e6);
        "ms CPU"
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (count, unit) = match *throughput {
            Throughput::Elements(n) => (n as f64, "Kjobs/CPU s"),
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (n as f64, "KB/CPU s"),
            Throughput::Bits(n) => (n as f64, "Kbit/CPU s"),
            _ => (1.0, "K/CPU s"),
        };
        values.iter_mut().for_each(|v| *v = count * 1e9 / *v / 1e3);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn bench_in<M: Measurement>(group: &mut BenchmarkGroup<'_, M>, capacity: u32, jobs: &[RigidJob]) {
    group.throughput(Throughput::Elements(jobs.len() as u64));
    group.sample_size(10);
    for policy in [Policy::Fcfs, Policy::Easy] {
        group.bench_function(policy.name(), |b| {
            b.iter(|| {
                BatchSim::new(capacity, policy.scheduler())
                    .expect("valid capacity")
                    .run(jobs)
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
    for policy in [Policy::Fcfs, Policy::Easy] {
        let out = BatchSim::new(capacity, policy.scheduler())
            .expect("valid capacity")
            .run(jobs)
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
