//! What the benches share: a criterion measurement of the benchmarking thread's CPU time,
//! which a machine shared with other work inflates far less than the wall clock.

use cosched_core::{Duration, RigidJob};
use cosched_workload::{LublinModel, TsafrirEstimates};
use criterion::Throughput;
use criterion::measurement::{Measurement, ValueFormatter};

/// CPU time of the calling thread, in nanoseconds (Linux: `/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .expect("/proc/thread-self/schedstat (Linux) gives the thread's CPU time")
}

/// Criterion measurement: CPU time of the benchmarking thread.
pub struct ThreadCpuTime;

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

/// `jobs` Lublin–Feitelson jobs on `capacity` units (seed `seed`) with Tsafrir estimates (seed
/// `estimate_seed`, at most 36 h), as `cosched generate lublin` writes them.
pub fn lublin(capacity: u32, jobs: usize, seed: u64, estimate_seed: u64) -> Vec<RigidJob> {
    let mut jobs = LublinModel::typeless(capacity)
        .expect("valid capacity")
        .generate(jobs, seed);
    TsafrirEstimates::new(Duration::from_hours(36))
        .expect("valid maximum estimate")
        .assign(&mut jobs, estimate_seed);
    jobs
}
