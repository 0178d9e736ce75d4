//! The deep-backlog shapes of conservative backfilling, shared by the regression
//! tests and the bench: every job ends well before its estimate, so every completion is an
//! unforeseen change and the pass plans the queue again.

use cosched_core::{Duration, JobId, RigidJob, SeedStreams, Time};
use rand::RngExt;

/// Units of the machine.
pub const CAPACITY: u32 = 64;

/// `n` jobs of 64 units submitted at 0 that run 100 s with an estimate of 200 s.
pub fn full_width_burst(n: u64) -> Vec<RigidJob> {
    (1..=n)
        .map(|i| RigidJob::new(JobId(i), Time(0), CAPACITY, Duration(100), Duration(200)))
        .collect::<Result<_, _>>()
        .unwrap_or_default()
}

/// `n` jobs, one every 80 s, of log-uniform size on 1–64 units and run time uniform on
/// 100–1,000 s with an estimate ten times the run time: an offered load of about 1.6, so
/// the queue grows to about 8,000 jobs over 20,000.
pub fn staggered_backlog(n: u64) -> Vec<RigidJob> {
    let streams = SeedStreams::new(29);
    let mut sizes = streams.stream("sizes", 0);
    let mut runs = streams.stream("runtimes", 0);
    (1..=n)
        .map(|i| {
            let x = sizes
                .random_range(0.0..(f64::from(CAPACITY) + 1.0).ln())
                .exp();
            let size = (x as u32).clamp(1, CAPACITY);
            let run = runs.random_range(100..=1_000);
            RigidJob::new(
                JobId(i),
                Time(i as i64 * 80),
                size,
                Duration(run),
                Duration(10 * run),
            )
        })
        .collect::<Result<_, _>>()
        .unwrap_or_default()
}
