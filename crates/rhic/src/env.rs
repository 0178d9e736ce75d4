//! The environment model: interactive nodes with bursty foreground sessions, and the
//! background job's I/O profile on the dedicated nodes.
//!
//! The paper measures RHIC on a real testbed (its evaluation section): interactive VMs replay
//! four desktop workloads (its Table 2: Matlab, Photoshop, OpenOffice, C development), and
//! Hadoop/HBase jobs read all their data from the dedicated nodes. This module is our
//! simulated stand-in, seeded and documented:
//!
//! - [`Workload`] and [`ForegroundStats`]: per-session foreground CPU statistics (mean, stdev,
//!   burst height and length, reservation length mean and stdev, memory). **The numbers are our
//!   assumptions**: the paper's Table 2 could not be consulted here; they are chosen to be
//!   plausible (a compute-heavy Matlab, a bursty compile-edit cycle for C development, a nearly
//!   idle office suite) and are printed as such by the examples.
//! - [`ForegroundProcess`]: a per-second two-level (base / burst) Markov process whose long-run
//!   mean and standard deviation equal the table's exactly, with geometric bursts of the
//!   table's mean length (derivation on [`ForegroundStats::levels`]).
//! - [`JobProfile`]: the background jobs (Wordcount, Grep, Pi, Word co-occurrence, and the
//!   HBase-style Compress and Raytrace) differ in the dedicated node's bandwidth utilisation
//!   when it computes alone at full CPU (`BWUtil`, the quantity Eq. 1 profiles), hence in the
//!   volunteer CPU the dedicated nodes can feed: `(1/BWUtil − 1) · CPU_max` per dedicated node
//!   (Eq. 1), divided by the busiest dedicated node's share of the data (load imbalance), so
//!   the effective volunteer CPU lies between Eq. 3's worst and Eq. 2's best case. The
//!   `BWUtil` values are ours as well.

use cosched_core::ParamError;
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Exp, LogNormal};

/// The four foreground (interactive) workload types of the paper's Table 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Workload {
    /// Numerical computing: long, high bursts.
    Matlab,
    /// Image editing: short bursts on filters.
    Photoshop,
    /// Office suite: nearly idle.
    OpenOffice,
    /// C development: edit, then compile bursts.
    CDev,
}

/// Foreground statistics of one workload type, CPU in percent of one node's `CPU_max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForegroundStats {
    /// Long-run mean CPU, % of `CPU_max`.
    pub mean_pct: f64,
    /// Long-run standard deviation of the per-second CPU, percentage points.
    pub sd_pct: f64,
    /// CPU during a burst, % of `CPU_max`.
    pub burst_pct: f64,
    /// Mean burst length, seconds (≥ 1).
    pub burst_len_s: f64,
    /// Mean reservation (session) length, seconds.
    pub session_mean_s: f64,
    /// Standard deviation of the reservation length, seconds.
    pub session_sd_s: f64,
    /// Mean memory the session holds, MiB (each session draws uniformly within ±50 %; on an
    /// 8 GiB node a large Matlab session leaves too little for a 1 GiB volunteer VM, which
    /// is what RHIC's memory screening is for).
    pub memory_mb: u64,
}

impl Workload {
    /// All four, in the paper's order.
    pub const ALL: [Workload; 4] = [
        Workload::Matlab,
        Workload::Photoshop,
        Workload::OpenOffice,
        Workload::CDev,
    ];

    /// The workload's name as the paper writes it.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Matlab => "Matlab",
            Workload::Photoshop => "Photoshop",
            Workload::OpenOffice => "OpenOffice",
            Workload::CDev => "C Dev",
        }
    }

    /// Our assumed statistics (the paper's Table 2 could not be consulted; see the module
    /// docs).
    pub fn stats(self) -> ForegroundStats {
        let (mean_pct, sd_pct, burst_pct, burst_len_s, mins, sd_mins, memory_mb) = match self {
            Workload::Matlab => (30.0, 20.0, 80.0, 30.0, 120.0, 60.0, 5120),
            Workload::Photoshop => (15.0, 15.0, 70.0, 5.0, 60.0, 30.0, 4096),
            Workload::OpenOffice => (5.0, 8.0, 50.0, 2.0, 45.0, 30.0, 1024),
            Workload::CDev => (20.0, 25.0, 95.0, 20.0, 90.0, 45.0, 1024),
        };
        ForegroundStats {
            mean_pct,
            sd_pct,
            burst_pct,
            burst_len_s,
            session_mean_s: mins * 60.0,
            session_sd_s: sd_mins * 60.0,
            memory_mb,
        }
    }
}

impl ForegroundStats {
    /// The two levels of the process and the long-run fraction of time in a burst:
    /// `(base_pct, burst_fraction)`.
    ///
    /// A process at `B` outside bursts and `H` in them, bursting a fraction `f` of the time,
    /// has mean `m = B + f(H − B)` and variance `f(1 − f)(H − B)²`; solving both for the
    /// table's `m` and `s` gives `B = m − s²/(H − m)` and `f = (m − B)/(H − B)`. An error if
    /// the table's numbers admit no such process (`0 ≤ B ≤ m < H ≤ 100`, burst length ≥ 1).
    ///
    /// ```
    /// use cosched_rhic::env::Workload;
    /// let (base, f) = Workload::Matlab.stats().levels().unwrap();
    /// assert!((base - 22.0).abs() < 1e-12); // 30 − 20² / (80 − 30)
    /// assert!((f - 8.0 / 58.0).abs() < 1e-12);
    /// ```
    pub fn levels(&self) -> Result<(f64, f64), ParamError> {
        let (m, s, h) = (self.mean_pct, self.sd_pct, self.burst_pct);
        ParamError::check(
            m.is_finite() && h.is_finite() && m >= 0.0 && m < h && h <= 100.0,
            "mean_pct",
            m,
            "must satisfy 0 <= mean < burst <= 100",
        )?;
        let base = m - s * s / (h - m);
        ParamError::check(
            s.is_finite() && s >= 0.0 && base >= 0.0,
            "sd_pct",
            s,
            "must satisfy sd^2 <= mean * (burst - mean)",
        )?;
        ParamError::check(
            self.burst_len_s.is_finite() && self.burst_len_s >= 1.0,
            "burst_len_s",
            self.burst_len_s,
            "must be >= 1 s",
        )?;
        Ok((base, (m - base) / (h - base)))
    }

    /// A session length, seconds (≥ 60): log-normal with the table's mean and stdev, both
    /// divided by `churn` (x2 halves them, x8 divides them by 8).
    pub fn session_s(&self, churn: f64, rng: &mut impl Rng) -> f64 {
        let mean = self.session_mean_s / churn;
        let cv = self.session_sd_s / self.session_mean_s;
        LogNormal::from_mean_cv(mean, cv)
            .map_or(mean, |d| d.sample(rng))
            .max(60.0)
    }
}

/// The per-second foreground CPU of one session: base level `B` between bursts, the burst
/// height `H` during them; a burst ends each second with probability `1/L` (mean length `L`)
/// and starts with probability `f / (L(1 − f))`, so that the long-run burst fraction is `f`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForegroundProcess {
    base_pct: f64,
    burst_pct: f64,
    p_start: f64,
    p_end: f64,
    in_burst: bool,
}

impl ForegroundProcess {
    /// A process for `stats`, started in its stationary state (in a burst with probability
    /// `f`).
    pub fn new(stats: &ForegroundStats, rng: &mut impl Rng) -> Result<Self, ParamError> {
        let (base_pct, f) = stats.levels()?;
        let p_end = 1.0 / stats.burst_len_s;
        let p_start = if f >= 1.0 {
            1.0
        } else {
            (f / (stats.burst_len_s * (1.0 - f))).min(1.0)
        };
        Ok(ForegroundProcess {
            base_pct,
            burst_pct: stats.burst_pct,
            p_start,
            p_end,
            in_burst: rng.random::<f64>() < f,
        })
    }

    /// Advances one second; returns this second's CPU, % of `CPU_max`.
    pub fn step(&mut self, rng: &mut impl Rng) -> f64 {
        let u: f64 = rng.random();
        self.in_burst = if self.in_burst {
            u >= self.p_end
        } else {
            u < self.p_start
        };
        if self.in_burst {
            self.burst_pct
        } else {
            self.base_pct
        }
    }
}

/// A background job type of the paper's evaluation (Hadoop jobs and HBase-style ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobProfile {
    /// Hadoop Wordcount: moderate I/O.
    Wordcount,
    /// Hadoop Grep: I/O-bound.
    Grep,
    /// Hadoop Pi: CPU-bound, no input.
    Pi,
    /// Word co-occurrence: CPU-heavy with some I/O.
    WordCooccurrence,
    /// HBase-style Compress: I/O-heavy.
    Compress,
    /// HBase-style Raytrace: CPU-bound.
    Raytrace,
}

impl JobProfile {
    /// The four Hadoop jobs of the main experiments.
    pub const HADOOP: [JobProfile; 4] = [
        JobProfile::Wordcount,
        JobProfile::Grep,
        JobProfile::Pi,
        JobProfile::WordCooccurrence,
    ];
    /// The two HBase-style jobs.
    pub const HBASE: [JobProfile; 2] = [JobProfile::Compress, JobProfile::Raytrace];

    /// The job's name.
    pub fn name(self) -> &'static str {
        match self {
            JobProfile::Wordcount => "Wordcount",
            JobProfile::Grep => "Grep",
            JobProfile::Pi => "Pi",
            JobProfile::WordCooccurrence => "Word co-occurrence",
            JobProfile::Compress => "Compress",
            JobProfile::Raytrace => "Raytrace",
        }
    }

    /// `BWUtil`: a dedicated node's bandwidth utilisation while it computes alone at full
    /// CPU, in `(0, 1]` (our assumption per job type; I/O per unit of CPU work).
    pub fn bw_util(self) -> f64 {
        match self {
            JobProfile::Wordcount => 0.30,
            JobProfile::Grep => 0.50,
            JobProfile::Pi => 0.02,
            JobProfile::WordCooccurrence => 0.20,
            JobProfile::Compress => 0.35,
            JobProfile::Raytrace => 0.05,
        }
    }
}

/// The share of the volunteers' I/O each dedicated node serves: `1 + imbalance · u` with `u`
/// uniform in `[−1, 1]`, normalised to sum to 1. With `imbalance = 0` every node serves
/// `1/D` and the supportable volunteer CPU is Eq. 2's best case.
pub fn io_shares(dedicated: u32, imbalance: f64, rng: &mut impl Rng) -> Vec<f64> {
    let raw: Vec<f64> = (0..dedicated)
        .map(|_| 1.0 + imbalance * (2.0 * rng.random::<f64>() - 1.0))
        .collect();
    let sum: f64 = raw.iter().sum();
    raw.into_iter().map(|w| w / sum).collect()
}

/// Volunteer CPU (cores) the dedicated nodes can feed: Eq. 1's per-node figure divided by the
/// busiest node's share (it saturates first and stalls the volunteers it feeds).
///
/// ```
/// use cosched_rhic::env::supportable_volunteer_cpu;
/// // BWUtil 0.5 on 4 cores: 4 cores per dedicated node; two balanced nodes feed 8.
/// assert_eq!(supportable_volunteer_cpu(0.5, 4.0, &[0.5, 0.5]), 8.0);
/// assert_eq!(supportable_volunteer_cpu(0.5, 4.0, &[0.8, 0.2]), 5.0);
/// ```
pub fn supportable_volunteer_cpu(bw_util: f64, cpu_max: f64, shares: &[f64]) -> f64 {
    let per = (1.0 / bw_util - 1.0) * cpu_max;
    let busiest = shares.iter().copied().fold(0.0, f64::max);
    if busiest > 0.0 { per / busiest } else { 0.0 }
}

/// An exponential gap of mean `mean_s` seconds (≥ 1).
pub(crate) fn gap_s(mean_s: f64, rng: &mut impl Rng) -> f64 {
    Exp::new(1.0 / mean_s)
        .map_or(mean_s, |d| d.sample(rng))
        .max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_process_matches_the_table_mean_and_stdev() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for w in Workload::ALL {
            let stats = w.stats();
            let mut p = ForegroundProcess::new(&stats, &mut rng).expect("valid table");
            let n = 400_000;
            let xs: Vec<f64> = (0..n).map(|_| p.step(&mut rng)).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
            assert!((mean - stats.mean_pct).abs() < 1.0, "{w:?} mean {mean}");
            assert!((sd - stats.sd_pct).abs() < 1.0, "{w:?} sd {sd}");
        }
    }

    #[test]
    fn impossible_tables_are_rejected() {
        let mut s = Workload::OpenOffice.stats();
        s.sd_pct = 40.0; // 1600 > 5 · 45
        assert_eq!(s.levels().map_err(|e| e.name), Err("sd_pct"));
        s.sd_pct = 1.0;
        s.burst_pct = 4.0;
        assert_eq!(s.levels().map_err(|e| e.name), Err("mean_pct"));
    }

    #[test]
    fn churn_divides_the_session_length() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let s = Workload::Photoshop.stats();
        let mean = |churn: f64, rng: &mut ChaCha8Rng| {
            (0..20_000).map(|_| s.session_s(churn, rng)).sum::<f64>() / 20_000.0
        };
        let (x1, x8) = (mean(1.0, &mut rng), mean(8.0, &mut rng));
        assert!((x1 / s.session_mean_s - 1.0).abs() < 0.05, "{x1}");
        assert!((x8 * 8.0 / s.session_mean_s - 1.0).abs() < 0.1, "{x8}");
    }
}
