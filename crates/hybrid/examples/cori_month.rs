//! Runs a Cori-like span under one configuration and prints how long the simulation took
//! (wall and the thread's CPU time) and a digest of its outcome, so that a profiler can be
//! pointed at it and two builds can be checked to give the same schedule. By default the span
//! is the `cori_like_sim` bench's: 440,000 jobs on 12,076 nodes, 20.6 days at the 2018 log's
//! rate; `JOBS` = 2,607,054 runs the Cori-like environment's whole 122 days (Table I,
//! [`CORI_LOG_JOBS`](cosched_hybrid::workload::CORI_LOG_JOBS)).
//!
//! `cargo run --release -p cosched-hybrid --example cori_month -- [MECHANISM] [SEED] [JOBS]
//! [SCALE]` where MECHANISM is `baseline` or one of `N&PAA`, …, `CUP&SPAA` (default
//! `CUP&SPAA`) and SCALE the run-time scale (default the calibrated
//! [`CORI_RUNTIME_SCALE`](cosched_hybrid::workload::CORI_RUNTIME_SCALE)), for probing the
//! calibration at other lengths.

use cosched_hybrid::workload::{CORI_RUNTIME_SCALE, TraceParams, TypeParams, hybrid_workload};
use cosched_hybrid::{Composite, HybridConfig, mechanism_name, scenario};
use std::error::Error;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

/// The most jobs a run generates (ours: about 2.3 Cori-like logs of Table I), so that a
/// mistyped `JOBS` is refused before anything is allocated for it.
const MAX_JOBS: usize = 6_000_000;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("CUP&SPAA", String::as_str);
    let mechanism = if name.eq_ignore_ascii_case("baseline") {
        None
    } else {
        let found = Composite::ALL
            .into_iter()
            .find(|c| c.to_string().eq_ignore_ascii_case(name));
        Some(found.ok_or_else(|| format!("unknown mechanism `{name}`"))?)
    };
    let seed: u64 = args.get(1).map_or(Ok(7), |s| s.parse())?;
    let jobs: usize = args.get(2).map_or(Ok(440_000), |s| s.parse())?;
    if !(1..=MAX_JOBS).contains(&jobs) {
        return Err(format!("JOBS must lie within 1..={MAX_JOBS}, got {jobs}").into());
    }
    let scale: f64 = args.get(3).map_or(Ok(CORI_RUNTIME_SCALE), |s| s.parse())?;
    let params = TraceParams {
        runtime_scale: scale,
        ..TraceParams::cori(jobs)
    };
    let workload = hybrid_workload(&params, &TypeParams::default(), seed)?;
    let config = HybridConfig::new(12_076)?;
    let (start, cpu) = (Instant::now(), thread_cpu_seconds());
    let outcome = scenario::simulate(config, mechanism, &workload)?;
    let elapsed = start.elapsed();
    let cpu = thread_cpu_seconds()
        .zip(cpu)
        .map(|(end, start)| end - start);
    let mut hasher = DefaultHasher::new();
    format!("{:?}", outcome.records).hash(&mut hasher);
    format!("{:?}", outcome.accounts).hash(&mut hasher);
    format!("{:?}", outcome.report).hash(&mut hasher);
    let cpu = cpu.map_or("n/a".to_string(), |c| format!("{c:.3}"));
    println!(
        "{} seed {seed}: {} jobs simulated in {:.3} s ({cpu} s CPU), instant start {:.4}, utilisation {:.4} (window {:.4}), turnaround {:.2} h, digest {:016x}",
        mechanism_name(mechanism),
        workload.len(),
        elapsed.as_secs_f64(),
        outcome.report.instant_start_ratio,
        outcome.report.utilization,
        outcome.report.window_utilization,
        outcome.report.turnaround_h,
        hasher.finish()
    );
    Ok(())
}

/// CPU time of the calling thread in seconds (Linux: `/proc/thread-self/schedstat`), which a
/// machine shared with other work inflates far less than the wall clock; `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}
