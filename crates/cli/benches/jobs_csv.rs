//! Cost of the per-job CSV (Batsim's `_jobs.csv`, `allocated_resources` in interval-set
//! notation) on a large trace: 312,000 Lublin–Feitelson jobs with Tsafrir estimates
//! on 93,312 units at offered load 0.9, scheduled by EASY.
//!
//! `cargo bench -p cosched-cli --bench jobs_csv` measures, in the CPU time of the benchmarking
//! thread (which a shared machine inflates far less than the wall clock), the unit assignment
//! alone (`units_assign`) and the whole table written to memory (`write`: sort by job id,
//! assignment, row formatting).

use cosched_batch::BatchSim;
use cosched_batch::scenario::BuiltinPolicy;
use cosched_workload::scale_to_offered_load;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use cosched_cli::{jobs_csv, units};
// The batch benches' CPU-time measurement and workload, shared rather than copied.
#[path = "../../batch/benches/common/mod.rs"]
mod common;
use common::ThreadCpuTime;

fn jobs_csv(c: &mut Criterion<ThreadCpuTime>) {
    const CAPACITY: u32 = 93_312;
    let mut jobs = common::lublin(CAPACITY, 312_000, 1, 1);
    scale_to_offered_load(&mut jobs, CAPACITY, 0.9).expect("valid load");
    let outcome = BatchSim::new(CAPACITY)
        .expect("valid capacity")
        .run(&mut BuiltinPolicy::Easy.build(), &jobs)
        .expect("valid workload");
    let info = jobs_csv::WorkloadInfo {
        name: "lublin_312k",
        jobs: &jobs,
        profiles: None,
    };
    // In job id order, as the table assigns them.
    let mut by_id = outcome.records.clone();
    by_id.sort_unstable_by_key(|r| r.id);
    let spans: Vec<Option<units::Span>> = by_id
        .iter()
        .map(|r| {
            Some(units::Span {
                start: r.start?,
                end: r.end?,
                size: r.size,
            })
        })
        .collect();
    let mut out: Vec<u8> = Vec::new();
    jobs_csv::write(&mut out, &info, &outcome.records, CAPACITY).expect("a valid schedule");
    eprintln!(
        "lublin_312k_93312_units_load_0.9: {} records, {} bytes of CSV",
        outcome.records.len(),
        out.len()
    );

    let mut group = c.benchmark_group("jobs_csv/lublin_312k_93312_units_load_0.9/cpu");
    group.throughput(Throughput::Elements(outcome.records.len() as u64));
    group.sample_size(10);
    group.bench_function("units_assign", |b| {
        b.iter(|| units::assign(CAPACITY, black_box(&spans)).expect("a valid schedule"))
    });
    group.bench_function("write", |b| {
        b.iter(|| {
            out.clear();
            jobs_csv::write(&mut out, &info, black_box(&outcome.records), CAPACITY)
                .expect("a valid schedule");
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = jobs_csv
}
criterion_main!(benches);
