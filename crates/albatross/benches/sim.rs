//! The pool simulator: one run of the paper's set-up (10 desktops, a job every 5 minutes over
//! 100,000 s, owners coming and going) at capital 0.5 — the Figures 1–4 experiment — with the
//! workload generated outside the timed loop.
//!
//! `cargo bench -p cosched-albatross --bench sim` reports the time per run and simulated jobs
//! per second (criterion's element throughput).

use cosched_albatross::policy::Capital;
use cosched_albatross::scenario::albatross;
use cosched_albatross::sim::{PoolSim, SimConfig};
use cosched_albatross::workload::WorkloadModel;
use cosched_core::{Duration, SeedStreams};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn paper_run(c: &mut Criterion) {
    let jobs = WorkloadModel::paper()
        .generate(Duration(100_000), SeedStreams::new(1), 1000)
        .expect("the paper's workload is valid");
    let pool = PoolSim::new(SimConfig::paper()).expect("valid config");
    let capital = Capital::new(0.5).expect("0.5 is a capital");
    let mut group = c.benchmark_group("albatross_sim");
    group.throughput(Throughput::Elements(jobs.len() as u64));
    group.sample_size(20);
    group.bench_function("paper_100000s_capital_0.5", |b| {
        b.iter(|| {
            let out = pool
                .run(&mut albatross(capital).expect("valid"), black_box(&jobs))
                .expect("valid");
            black_box(out.cloud_cost)
        })
    });
    group.finish();
}

criterion_group!(benches, paper_run);
criterion_main!(benches);
