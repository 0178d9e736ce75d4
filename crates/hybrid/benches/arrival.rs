//! Speed of the hybrid mechanisms (Fan et al., IPDPS 2022: the paper reports a
//! decision under 10 ms; our target is < 100 µs).
//!
//! - `arrival_decision`: one on-demand arrival decision (PAA and SPAA) on a 12,076-node system
//!   running 5,000 jobs (a seeded mix: 70 % rigid with checkpoints, 30 % malleable), for an
//!   on-demand job of 64 and of 2,048 nodes with no idle node;
//! - `cup_notice`: CUP planning a notice against the same 5,000 jobs;
//! - `cori_like_sim`: a saturated Cori-like span (440,000 jobs, 20.6 days at the 2018 log's
//!   21,369 a day, with a standing queue) under
//!   CUP&SPAA and under the baseline, in the CPU time of the benchmarking thread (which a
//!   shared machine inflates far less than the wall clock), with jobs per CPU second; its
//!   simulated span is printed.
//!
//! `cargo bench -p cosched-hybrid`; `-- cori_like_sim --save-baseline old` on one build and
//! `--baseline old` on another compares two builds in one session.

use cosched_core::{Duration, JobId, Time};
use cosched_hybrid::notice::{Notice, NoticeBoard, NoticeStrategy, PlannedJob};
use cosched_hybrid::workload::{TraceParams, TypeParams, hybrid_workload};
use cosched_hybrid::{
    Checkpointing, Composite, HybridConfig, Mechanism, RunningKind, RunningView, scenario,
};
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

// The batch benches' CPU-time measurement, shared rather than copied (its workload helper is
// not used here).
#[allow(dead_code)]
#[path = "../../batch/benches/common/mod.rs"]
mod common;
use common::ThreadCpuTime;

const NODES: u32 = 12_076;
const RUNNING: usize = 5_000;

/// 5,000 running jobs filling the 12,076 nodes: 4,000 of one node... then larger ones.
fn running() -> Vec<PlannedJob> {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut left = NODES;
    (0..RUNNING)
        .map(|i| {
            let remaining_jobs = (RUNNING - i) as u32;
            let size = if i + 1 == RUNNING {
                left
            } else {
                rng.random_range(1..=(2 * (left - remaining_jobs) / remaining_jobs + 1).max(1))
                    .min(left - (remaining_jobs - 1))
            };
            left -= size;
            let runtime = Duration(rng.random_range(600..86_400));
            let elapsed = Duration(rng.random_range(0..runtime.0));
            let kind = if rng.random::<f64>() < 0.7 {
                RunningKind::Rigid {
                    work: runtime,
                    elapsed,
                    checkpoints: Some(Checkpointing {
                        interval: Duration(9_786),
                        cost: Duration(600),
                    }),
                }
            } else {
                RunningKind::Malleable {
                    min_size: size.div_ceil(5),
                    max_size: size,
                }
            };
            PlannedJob {
                view: RunningView {
                    id: JobId(i as u64),
                    size,
                    setup: Duration(runtime.0 / 20),
                    kind,
                },
                run_start: Time(100_000) - elapsed,
                predicted_end: Time(100_000) - elapsed + runtime,
            }
        })
        .collect()
}

fn decisions(c: &mut Criterion) {
    let planned = running();
    let views: Vec<RunningView> = planned.iter().map(|p| p.view).collect();
    assert_eq!(views.iter().map(|v| v.size).sum::<u32>(), NODES);
    let mut group = c.benchmark_group("arrival_decision_12076_nodes_5000_jobs");
    for (name, mechanism) in [("paa", Mechanism::paa()), ("spaa", Mechanism::spaa())] {
        for needed in [64u32, 2_048] {
            group.bench_function(format!("{name}_{needed}_nodes"), |b| {
                b.iter(|| {
                    mechanism
                        .decide(black_box(needed), 0, black_box(&views))
                        .expect("valid views")
                })
            });
        }
    }
    group.finish();
    c.bench_function("cup_notice_12076_nodes_5000_jobs", |b| {
        b.iter(|| {
            let mut board = NoticeBoard::new(NoticeStrategy::Cup);
            let notice = Notice {
                job: JobId(1_000_000),
                size: 2_048,
                at: Time(100_000),
                estimated_arrival: Time(101_200),
            };
            board
                .notice(notice, &[], black_box(&planned))
                .expect("valid notice")
        })
    });
}

/// Jobs of the Cori-like bench: 20.6 days of arrivals at the log's 21,369 a day.
const CORI_MONTH_JOBS: usize = 440_000;

fn simulation(c: &mut Criterion<ThreadCpuTime>) {
    let jobs = hybrid_workload(
        &TraceParams::cori(CORI_MONTH_JOBS),
        &TypeParams::default(),
        7,
    )
    .expect("valid workload");
    let config = HybridConfig::new(NODES).expect("valid config");
    let cup_spaa = Some(Composite::ALL[5]);
    let out = scenario::simulate(config.clone(), cup_spaa, &jobs).unwrap();
    let first = jobs.iter().map(|j| j.submit()).min().unwrap();
    let last = out.records.iter().filter_map(|r| r.end).max().unwrap();
    eprintln!(
        "cori-like: {} jobs over {:.1} days, instant start {:.3}",
        jobs.len(),
        (last - first).0 as f64 / 86_400.0,
        out.report.instant_start_ratio
    );
    let mut group = c.benchmark_group("cori_like_sim");
    // Ten runs of seconds each: flat sampling, not criterion's 55 of the linear ramp.
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(jobs.len() as u64));
    for (name, mechanism) in [("cup_spaa", cup_spaa), ("baseline", None)] {
        group.bench_function(format!("{name}_month_{CORI_MONTH_JOBS}_jobs"), |b| {
            b.iter(|| scenario::simulate(config.clone(), mechanism, black_box(&jobs)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, decisions);
criterion_group! {
    name = month;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = simulation
}
criterion_main!(benches, month);
