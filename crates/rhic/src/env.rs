//! The testbed of the paper's evaluation (§5.1), as a seeded model: the nodes, the four
//! interactive (foreground) workloads of Table 2 with their sessions, the background jobs and
//! the dedicated nodes' disks, and the power model.
//!
//! Where each number comes from:
//!
//! | what | value | source |
//! |---|---|---|
//! | node | 16 cores at 2 GHz, 32 GB; dedicated VMs 16 GB; foreground + volunteer VMs share 8 GB | §5.1 |
//! | foreground CPU: mean, sd, burst height, burst length | Table 2, exactly | Table 2 |
//! | session (reservation) length | normal, Table 2's mean and sd | §5.1, Table 2 |
//! | churn ×N | sessions *and* the gaps between them N× shorter (mean and sd ÷ N) | §5.4 |
//! | sessions under way at the start | every node busy (§5.4: "we begin all experiments with 100 % of nodes available"), residual life of a length-biased draw | renewal theory |
//! | `BWUtil` of Wordcount and Grep | 0.25 and 0.50: the disk carries 64 and 32 one-per-core map tasks at the best size (3:1 and 1:1 volunteers : dedicated) | §3.2 |
//! | work of each Hadoop job | from Table 1's exhaustive (baseline) cost range | Table 1 |
//! | power | 328 W busy, 194 W idle per node | Table 1's Pi energy rows (exhaustive, baseline) on the simulator's own Pi runs |
//!
//! Everything else is ours and labelled so: the shape of the CPU process between its moments
//! ([`BurstModel`]), the gap between sessions, foreground memory, map-slot memory, task
//! lengths, `BWUtil` of Pi, Word co-occurrence and the HBase jobs, the smoothness of disk
//! saturation and the load imbalance across dedicated nodes.

use crate::completion::check_duration;
use cosched_core::{Duration, ParamError};
use rand::{Rng, RngExt};
use rand_distr::{Beta, Distribution, Exp, Normal};

/// Cores per node (ARC: two 8-core 2 GHz processors, §5.1).
pub const CORES: u32 = 16;
/// Clock frequency of every core, GHz (§5.1); the power model is evaluated here.
pub const CLOCK_GHZ: f64 = 2.0;
/// Memory of a node, MiB (§5.1).
pub const NODE_MEMORY_MB: u64 = 32 * 1024;
/// Memory of a dedicated VM, MiB (§5.1).
pub const DEDICATED_VM_MEMORY_MB: u64 = 16 * 1024;
/// Memory the foreground VM and the volunteer VM of an interactive node share, MiB (§5.1).
pub const SHARED_VM_MEMORY_MB: u64 = 8 * 1024;

/// The four foreground (interactive) workload types of the paper's Table 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Workload {
    /// Matlab.
    Matlab,
    /// Photoshop.
    Photoshop,
    /// OpenOffice.
    OpenOffice,
    /// C development.
    CDev,
}

/// One row of Table 2 (CPU in percent of a node's `CPU_max`), plus the foreground VM's
/// memory (normal, per workload type, §5.1; the values are ours, the paper gives none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForegroundStats {
    /// CPU consumed, mean, % of `CPU_max`.
    pub mean_pct: f64,
    /// CPU consumed, standard deviation of the per-second readings, percentage points.
    pub sd_pct: f64,
    /// Mean CPU burst height, %.
    pub burst_pct: f64,
    /// Mean CPU burst length, seconds (≥ 1).
    pub burst_len_s: f64,
    /// Mean reservation (session) length, seconds.
    pub session_mean_s: f64,
    /// Standard deviation of the reservation length, seconds.
    pub session_sd_s: f64,
    /// Mean memory of the foreground VM, MiB (ours).
    pub memory_mean_mb: f64,
    /// Its standard deviation, MiB (ours).
    pub memory_sd_mb: f64,
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

    /// Table 2's row (CPU, bursts, reservations exactly as printed) with our memory figures.
    ///
    /// ```
    /// use cosched_rhic::env::Workload;
    /// let m = Workload::Matlab.stats();
    /// assert_eq!((m.mean_pct, m.sd_pct, m.burst_pct, m.burst_len_s), (19.8, 23.2, 39.9, 6.9));
    /// assert_eq!((m.session_mean_s, m.session_sd_s), (93.0 * 60.0, 90.0 * 60.0));
    /// ```
    pub fn stats(self) -> ForegroundStats {
        // (mean, sd, burst height, burst length s, reservation mean min, sd min, memory GiB, sd)
        let (mean_pct, sd_pct, burst_pct, burst_len_s, mins, sd_mins, mem_gb, mem_sd_gb) =
            match self {
                Workload::Matlab => (19.8, 23.2, 39.9, 6.9, 93.0, 90.0, 3.0, 1.0),
                Workload::Photoshop => (7.0, 16.2, 25.8, 2.0, 74.0, 79.0, 2.5, 0.75),
                Workload::OpenOffice => (2.8, 12.4, 31.0, 1.3, 70.0, 91.0, 1.5, 0.5),
                Workload::CDev => (22.5, 24.27, 27.7, 47.4, 120.0, 99.0, 2.0, 0.5),
            };
        ForegroundStats {
            mean_pct,
            sd_pct,
            burst_pct,
            burst_len_s,
            session_mean_s: mins * 60.0,
            session_sd_s: sd_mins * 60.0,
            memory_mean_mb: mem_gb * 1024.0,
            memory_sd_mb: mem_sd_gb * 1024.0,
        }
    }
}

/// Shortest session (and shortest gap), seconds: normal draws below it are redrawn (ours).
pub const MIN_SESSION_S: f64 = 60.0;

impl ForegroundStats {
    /// A session length, seconds: normal with Table 2's mean and sd (§5.1), both divided by
    /// `churn` (§5.4: ×2 halves them), truncated below at [`MIN_SESSION_S`] by redrawing.
    pub fn session_s(&self, churn: f64, rng: &mut impl Rng) -> f64 {
        truncated_normal(
            self.session_mean_s / churn,
            self.session_sd_s / churn,
            MIN_SESSION_S,
            rng,
        )
    }

    /// The remaining life of a session already under way when the experiment starts: a
    /// session length drawn in proportion to its length (an observer arriving at a random
    /// instant is more likely to fall in a long session) times a uniform fraction, the
    /// equilibrium residual life of a renewal process. Rejection sampling against the cap
    /// `mean + 6 sd`.
    pub fn residual_session_s(&self, churn: f64, rng: &mut impl Rng) -> f64 {
        let cap = (self.session_mean_s + 6.0 * self.session_sd_s) / churn;
        let length = loop {
            let l = self.session_s(churn, rng);
            if rng.random::<f64>() * cap < l {
                break l;
            }
        };
        (length * rng.random::<f64>()).max(1.0)
    }

    /// Memory of a new foreground VM, MiB: normal (ours), within `[256, SHARED − 256]`.
    pub fn memory_mb(&self, rng: &mut impl Rng) -> u64 {
        let draw = Normal::new(self.memory_mean_mb, self.memory_sd_mb)
            .map_or(self.memory_mean_mb, |d| d.sample(rng));
        draw.clamp(256.0, (SHARED_VM_MEMORY_MB - 256) as f64) as u64
    }
}

/// A normal draw truncated below at `min` (redrawn); `min` if the mass above it is negligible.
fn truncated_normal(mean: f64, sd: f64, min: f64, rng: &mut impl Rng) -> f64 {
    let Ok(d) = Normal::new(mean, sd) else {
        return mean.max(min);
    };
    for _ in 0..1000 {
        let x = d.sample(rng);
        if x >= min {
            return x;
        }
    }
    min
}

/// The per-second foreground CPU model of one workload type, built to reproduce Table 2's
/// four CPU statistics exactly (its moments are solved below; the shape is ours).
///
/// The CPU alternates between *idle* periods at 0 % and *bursts*. A burst lasts a geometric
/// number of seconds of mean `L` (Table 2's burst length) at a height drawn once per burst
/// from a Beta distribution (scaled to 0–100 %) of mean `H` (Table 2's burst height); idle
/// periods last a geometric number of seconds of mean `G`. With the burst fraction
/// `f = L / (L + G)`:
///
/// - mean `m = f·H`, so `f = m / H` and `G = L (1 − f) / f`;
/// - second moment `m² + s² = f·E[Y²]`, so the heights' variance is
///   `Var(Y) = (m² + s²)/f − H²`, and the Beta's parameters follow by the method of moments.
///
/// A two-level process (one fixed burst height) cannot have Table 2's spread: its variance is
/// at most `m(H − m)`, below every row's `s²`; the heights must vary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BurstModel {
    burst_fraction: f64,
    p_end: f64,
    p_start: f64,
    heights: Beta<f64>,
}

impl BurstModel {
    /// The model of `stats`, or the first statistic no such process can have.
    ///
    /// ```
    /// use cosched_rhic::env::{BurstModel, Workload};
    /// for w in Workload::ALL {
    ///     assert!(BurstModel::of(&w.stats()).is_ok(), "{}", w.name());
    /// }
    /// let m = BurstModel::of(&Workload::Matlab.stats()).unwrap();
    /// assert!((m.burst_fraction() - 19.8 / 39.9).abs() < 1e-12);
    /// ```
    pub fn of(stats: &ForegroundStats) -> Result<Self, ParamError> {
        let (m, s, h, l) = (
            stats.mean_pct,
            stats.sd_pct,
            stats.burst_pct,
            stats.burst_len_s,
        );
        ParamError::check(
            m.is_finite() && h.is_finite() && m > 0.0 && m <= h && h < 100.0,
            "mean_pct",
            m,
            "must satisfy 0 < mean <= burst height < 100",
        )?;
        ParamError::check(
            l.is_finite() && l >= 1.0,
            "burst_len_s",
            l,
            "must be >= 1 s",
        )?;
        let f = m / h;
        let gap = l * (1.0 - f) / f;
        ParamError::check(
            f >= 1.0 || gap >= 1.0,
            "burst_len_s",
            l,
            "leaves idle gaps shorter than 1 s",
        )?;
        let var_y = (m * m + s * s) / f - h * h;
        let (mu, var) = (h / 100.0, var_y / 1e4);
        ParamError::check(
            s.is_finite() && var > 0.0 && var < mu * (1.0 - mu),
            "sd_pct",
            s,
            "burst heights would need a variance no distribution on 0-100 % has",
        )?;
        let k = mu * (1.0 - mu) / var - 1.0;
        let heights = Beta::new(mu * k, (1.0 - mu) * k).map_err(|_| {
            ParamError::new(
                "sd_pct",
                s,
                "gives no valid Beta distribution of burst heights",
            )
        })?;
        Ok(BurstModel {
            burst_fraction: f,
            p_end: 1.0 / l,
            p_start: if f >= 1.0 { 1.0 } else { 1.0 / gap },
            heights,
        })
    }

    /// The long-run fraction of seconds in a burst, `m / H`.
    pub fn burst_fraction(&self) -> f64 {
        self.burst_fraction
    }

    /// A process in its stationary state (in a burst with probability `f`).
    pub fn start(&self, rng: &mut impl Rng) -> ForegroundProcess {
        let level = if rng.random::<f64>() < self.burst_fraction {
            self.height(rng)
        } else {
            0.0
        };
        ForegroundProcess {
            model: *self,
            level,
        }
    }

    fn height(&self, rng: &mut impl Rng) -> f64 {
        // A height of exactly 0 would merge into the idle period; Beta draws are > 0.
        (100.0 * self.heights.sample(rng)).max(1e-9)
    }
}

/// One session's foreground CPU, advanced one second at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForegroundProcess {
    model: BurstModel,
    level: f64,
}

impl ForegroundProcess {
    /// Advances one second; returns this second's CPU, % of `CPU_max`.
    pub fn step(&mut self, rng: &mut impl Rng) -> f64 {
        let u: f64 = rng.random();
        if self.level > 0.0 {
            if u < self.model.p_end {
                self.level = 0.0;
            }
        } else if u < self.model.p_start {
            self.level = self.model.height(rng);
        }
        self.level
    }
}

/// A background job type of the paper's evaluation: the four Hadoop jobs (§5.1) and the two
/// HBasePCF jobs (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobProfile {
    /// Hadoop Wordcount: 70 GB of input, moderately I/O-bound.
    Wordcount,
    /// Hadoop Grep: 70 GB of input, the most I/O-bound.
    Grep,
    /// Hadoop Pi: no input, CPU-bound.
    Pi,
    /// Word co-occurrence: 11 GB of input, CPU-bound with non-trivial I/O and long tasks.
    WordCooccurrence,
    /// HBasePCF Compress: I/O-intensive.
    Compress,
    /// HBasePCF Raytrace: CPU-intensive.
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
    /// The two HBasePCF jobs (§5.5).
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

    /// `BWUtil`: a dedicated node's disk utilisation while it computes alone at full CPU (the
    /// quantity Eq. 1 profiles), in `(0, 1]`.
    ///
    /// Wordcount and Grep from §3.2: at their best sizes (3:1 and 1:1 volunteers to dedicated)
    /// one SATA disk carries 64 and 32 map tasks, one per core, so 16 cores alone use 16/64 and
    /// 16/32 of it. The rest are ours: Pi reads no input (0.02); Word co-occurrence reads
    /// 11 GB (a sixth of Wordcount's 70 GB) but spills large intermediate data (Fig. 2), 0.10;
    /// Compress is I/O-intensive (0.40), Raytrace CPU-intensive (0.02).
    pub fn bw_util(self) -> f64 {
        match self {
            JobProfile::Wordcount => 16.0 / 64.0,
            JobProfile::Grep => 16.0 / 32.0,
            JobProfile::Pi => 0.02,
            JobProfile::WordCooccurrence => 0.10,
            JobProfile::Compress => 0.40,
            JobProfile::Raytrace => 0.02,
        }
    }

    /// The job's work, core-seconds at full speed (the paper's jobs take 20–40 minutes at their
    /// best sizes, §5.1).
    ///
    /// Hadoop jobs from Table 1 (the exhaustive runs, a baseline): for Wordcount, Pi and Word
    /// co-occurrence the dearest size is 0 volunteers (volunteer cores are cheaper than
    /// dedicated ones while the disk keeps up), so Table 1's maximum cost is 6 nodes at $1/h
    /// for the dedicated-only time: work = 96 cores × max/$6 h. Grep's dearest size is 36
    /// (saturated), so its work is fitted to its minimum instead: $2.40 at 6 volunteers
    /// (§3.2's 1:1), at the mean residual of the Table 2 mix (13.9 cores) and the disk model
    /// of [`disk_service`] (0.87 served at 1:1): 156 cores for 1,014 s. The HBasePCF jobs
    /// (3 dedicated nodes, §5.5; no figures given) are ours: 45 minutes alone.
    pub fn work_core_s(self) -> f64 {
        let dedicated_only = |usd: f64| 96.0 * usd / 6.0 * 3600.0;
        match self {
            JobProfile::Wordcount => dedicated_only(6.38),
            JobProfile::Grep => 156.0 * 1014.0,
            JobProfile::Pi => dedicated_only(16.63),
            JobProfile::WordCooccurrence => dedicated_only(11.41),
            JobProfile::Compress | JobProfile::Raytrace => 48.0 * 2700.0,
        }
    }

    /// Mean length of one map task on one slot, seconds (ours; Word co-occurrence's are long,
    /// §5.2).
    pub fn task_s(self) -> f64 {
        match self {
            JobProfile::Wordcount => 60.0,
            JobProfile::Grep => 30.0,
            JobProfile::Pi => 120.0,
            JobProfile::WordCooccurrence => 240.0,
            JobProfile::Compress => 45.0,
            JobProfile::Raytrace => 90.0,
        }
    }

    /// Memory of one map slot (worker process), MiB (ours: a Hadoop 1 child JVM).
    pub fn slot_memory_mb(self) -> u64 {
        match self {
            JobProfile::WordCooccurrence => 512,
            _ => 256,
        }
    }

    /// The experiment's dedicated nodes: 6 for Hadoop (§5.2), 3 for HBasePCF (§5.5).
    pub fn dedicated(self) -> u32 {
        match self {
            JobProfile::Compress | JobProfile::Raytrace => 3,
            _ => 6,
        }
    }
}

/// Smoothness of disk saturation (ours): the exponent `n` of [`disk_service`].
pub const DISK_SMOOTHNESS: f64 = 4.0;

/// The fraction of its I/O demand a disk serves at offered load `rho` (demand over capacity):
/// `(1 + ρⁿ)^(−1/n)`, a smooth minimum of demand and capacity with no knee: 98.5 % served at
/// ρ = 0.5, 84 % at ρ = 1, 49 % at ρ = 2 (n = 4). Every task whose data the disk holds slows
/// by this fraction, the dedicated node's own and the volunteers' alike.
///
/// ```
/// use cosched_rhic::env::disk_service;
/// assert!((disk_service(1.0) - 0.5f64.powf(0.25)).abs() < 1e-12);
/// assert!(disk_service(0.1) > 0.9999 && disk_service(10.0) < 0.1);
/// ```
pub fn disk_service(rho: f64) -> f64 {
    (1.0 + rho.max(0.0).powf(DISK_SMOOTHNESS)).powf(-1.0 / DISK_SMOOTHNESS)
}

/// The share of the volunteers' I/O each dedicated node serves: `1 + imbalance · u` with `u`
/// uniform in `[−1, 1]`, normalised to sum to 1 (ours: HDFS places blocks unevenly). With
/// `imbalance = 0` every node serves `1/D`, Eq. 2's best case.
pub fn io_shares(dedicated: u32, imbalance: f64, rng: &mut impl Rng) -> Vec<f64> {
    let raw: Vec<f64> = (0..dedicated)
        .map(|_| 1.0 + imbalance * (2.0 * rng.random::<f64>() - 1.0))
        .collect();
    let sum: f64 = raw.iter().sum();
    raw.into_iter().map(|w| w / sum).collect()
}

/// What the dedicated disks let the job do in one second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IoSecond {
    /// CPU the dedicated nodes consume, cores.
    pub dedicated_cpu: f64,
    /// Fraction of the volunteers' demanded CPU they get.
    pub volunteer_fraction: f64,
    /// Disk utilisation (served over capacity) of the busiest dedicated node, in `[0, 1)`.
    pub max_disk_util: f64,
    /// Mean disk utilisation over the dedicated nodes.
    pub mean_disk_util: f64,
}

/// One second of I/O: every dedicated node offers its own `cores` of demand plus its `share`
/// of the volunteers' `volunteer_cpu`, each core's worth loading the disk by
/// `bw_util / cores`; each node's tasks run at [`disk_service`] of its load.
///
/// ```
/// use cosched_rhic::env::io_second;
/// let alone = io_second(0.25, 16.0, &[0.5, 0.5], 0.0);
/// assert!((alone.mean_disk_util - 0.25).abs() < 0.001); // BWUtil: ≈ the profile's reading
/// let busy = io_second(0.25, 16.0, &[0.5, 0.5], 6.0 * 16.0);
/// assert!(busy.volunteer_fraction < 0.9 && busy.dedicated_cpu < 32.0 * 0.9);
/// ```
pub fn io_second(bw_util: f64, cores: f64, shares: &[f64], volunteer_cpu: f64) -> IoSecond {
    let (mut dedicated_cpu, mut fraction, mut max_util, mut sum_util) = (0.0, 0.0, 0.0, 0.0);
    for &share in shares {
        let rho = bw_util * (cores + share * volunteer_cpu) / cores;
        let served = disk_service(rho);
        dedicated_cpu += cores * served;
        fraction += share * served;
        let util = rho * served;
        max_util = f64::max(max_util, util);
        sum_util += util;
    }
    IoSecond {
        dedicated_cpu,
        volunteer_fraction: fraction,
        max_disk_util: max_util,
        mean_disk_util: sum_util / shares.len().max(1) as f64,
    }
}

/// An exponential gap of mean `mean_s` seconds, at least 1 s (ours: how long an interactive
/// node stays empty between sessions).
pub(crate) fn gap_s(mean_s: f64, rng: &mut impl Rng) -> f64 {
    Exp::new(1.0 / mean_s)
        .map_or(mean_s, |d| d.sample(rng))
        .max(1.0)
}

/// The interactive cloud and its noise.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvConfig {
    /// `CPU_max`: cores per node, dedicated and (unless `interactive_cores` says otherwise)
    /// interactive (> 0; §5.1: 16).
    pub cores: u32,
    /// Cores of interactive node slot `i`, cycling through the list (each in 1..=1024); empty
    /// (the default, the paper's homogeneous ARC testbed): every slot has `cores`. Each of a
    /// node's readings tells the policy its cores ([`crate::policy::Observation::Node`]); §4.1
    /// notes the model extends to a few hardware types, Fig. 7 that Hadoop tolerates uneven
    /// per-node CPU.
    pub interactive_cores: Vec<u32>,
    /// Memory the foreground and volunteer VMs of a node share, MiB (§5.1: 8 GB).
    pub shared_memory_mb: u64,
    /// Interactive nodes (host slots), each hosting one session at a time.
    pub interactive_nodes: usize,
    /// The session types, drawn in equal proportion (§5.2: 25 % each).
    pub workloads: Vec<Workload>,
    /// Churn factor (≥ 1): sessions and the gaps between them are this many times shorter.
    pub churn: f64,
    /// Mean gap before a node hosts its next session, seconds (> 0; ours), divided by `churn`.
    pub session_gap_mean_s: f64,
    /// Load imbalance of the volunteers' I/O across dedicated nodes, in `[0, 1)`
    /// ([`io_shares`]; ours).
    pub imbalance: f64,
    /// Standard deviation of a 1 s foreground-CPU reading, cores (≥ 0; ours).
    pub cpu_noise: f64,
    /// Relative standard deviation of the reported completed work (≥ 0; ours).
    pub progress_noise: f64,
    /// Relative standard deviation of a period's CPU-consumed reading (≥ 0; ours: §5.3 calls
    /// these readings noisy).
    pub consumed_noise: f64,
    /// Standard deviation of a disk-utilisation reading (≥ 0; ours).
    pub disk_noise: f64,
    /// Boot time of a volunteer VM (≥ 0; ours).
    pub setup: Duration,
    /// Longest a removed volunteer drains its tasks in flight (≥ 0; ours).
    pub max_drain: Duration,
    /// Probability that a volunteer VM fails to boot, in `[0, 1]` (ours: 0).
    pub boot_failure: f64,
    /// Backup (speculative) copies of straggling tasks at the job's end (Hadoop's default, the
    /// LATE scheduler the paper cites \[22\]): once no work is left to hand out, every task still
    /// running on a volunteer also starts on a free dedicated slot, and whichever copy
    /// finishes first counts. Without them the job waits for its slowest volunteer.
    pub backup_tasks: bool,
    /// CPU a volunteer VM burns besides the job's (cores, ≥ 0; ours), for energy.
    pub vm_overhead_cpu: f64,
    /// Recorded foreground CPU instead of Table 2's generator (ours, a robustness input): slot
    /// `i` replays trace `i mod len` from the run's start; sessions, churn and memory stay
    /// Table 2's. Empty (the default): the generator.
    pub cpu_traces: Vec<CpuTrace>,
}

/// A recorded CPU load: one reading every `step_s` seconds, % of the machine's capacity,
/// held until the next and repeated from the start past the end.
///
/// ```
/// use cosched_rhic::env::CpuTrace;
/// let t = CpuTrace::new(300, vec![10.0, 50.0]).unwrap();
/// assert_eq!((t.pct_at(0), t.pct_at(299), t.pct_at(300), t.pct_at(600)), (10.0, 10.0, 50.0, 10.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CpuTrace {
    step_s: u32,
    /// Shared, so every run of a sweep holds the same readings.
    pct: std::sync::Arc<[f64]>,
}

impl CpuTrace {
    /// Readings every `step_s` (> 0) seconds, each in `[0, 100]`, at least one and at most a
    /// million.
    pub fn new(step_s: u32, pct: Vec<f64>) -> Result<Self, ParamError> {
        ParamError::check(step_s > 0, "step_s", step_s, "must be > 0")?;
        ParamError::check(
            (1..=1_000_000).contains(&pct.len()),
            "readings",
            pct.len(),
            "must be 1..=1000000",
        )?;
        if let Some(bad) = pct.iter().find(|p| !(0.0..=100.0).contains(*p)) {
            return Err(ParamError::new("pct", bad, "each must be in [0, 100]"));
        }
        Ok(CpuTrace {
            step_s,
            pct: pct.into(),
        })
    }

    /// The reading in force `t` seconds (≥ 0) after the start, %.
    pub fn pct_at(&self, t: i64) -> f64 {
        let i = (t.max(0) as u64 / u64::from(self.step_s)) % self.pct.len() as u64;
        self.pct[i as usize]
    }
}

impl Default for EnvConfig {
    /// The paper's testbed (§5.1): 36 interactive 16-core nodes sharing 8 GB between the
    /// foreground and volunteer VMs, the four workloads in equal proportion, natural churn;
    /// ours: sessions 5 minutes apart on average, 30 % I/O imbalance, 1-core reading noise,
    /// 3 % progress noise, 5 % CPU-consumed noise, 2 % disk noise, 30 s VM setup, drains of at
    /// most 5 minutes, no boot failures, 0.1-core VM overhead.
    fn default() -> Self {
        EnvConfig {
            cores: CORES,
            interactive_cores: Vec::new(),
            shared_memory_mb: SHARED_VM_MEMORY_MB,
            interactive_nodes: 36,
            workloads: Workload::ALL.to_vec(),
            churn: 1.0,
            session_gap_mean_s: 300.0,
            imbalance: 0.3,
            cpu_noise: 1.0,
            progress_noise: 0.03,
            consumed_noise: 0.05,
            disk_noise: 0.02,
            setup: Duration(30),
            max_drain: Duration::from_mins(5),
            boot_failure: 0.0,
            backup_tasks: true,
            vm_overhead_cpu: 0.1,
            cpu_traces: Vec::new(),
        }
    }
}

impl EnvConfig {
    /// The first parameter out of range, if any.
    ///
    /// # Errors
    /// [`ParamError`] naming it.
    pub fn validate(&self) -> Result<(), ParamError> {
        let e = self;
        ParamError::check(e.cores > 0, "cores", e.cores, "must be > 0")?;
        ParamError::check(
            e.interactive_cores.len() <= 100_000,
            "interactive_cores",
            e.interactive_cores.len(),
            "must list at most 100000 entries",
        )?;
        for &c in &e.interactive_cores {
            ParamError::check(
                (1..=1024).contains(&c),
                "interactive_cores",
                c,
                "each must be in 1..=1024",
            )?;
        }
        ParamError::check(
            !e.workloads.is_empty(),
            "workloads",
            "[]",
            "must not be empty",
        )?;
        for w in &e.workloads {
            BurstModel::of(&w.stats())?;
        }
        ParamError::check(
            e.churn.is_finite() && e.churn >= 1.0,
            "churn",
            e.churn,
            "must be >= 1",
        )?;
        ParamError::check(
            e.session_gap_mean_s.is_finite() && e.session_gap_mean_s > 0.0,
            "session_gap_mean_s",
            e.session_gap_mean_s,
            "must be > 0",
        )?;
        ParamError::check(
            (0.0..1.0).contains(&e.imbalance),
            "imbalance",
            e.imbalance,
            "must be in [0, 1)",
        )?;
        ParamError::check(
            (0.0..=1.0).contains(&e.boot_failure),
            "boot_failure",
            e.boot_failure,
            "must be in [0, 1]",
        )?;
        for (name, v) in [
            ("cpu_noise", e.cpu_noise),
            ("progress_noise", e.progress_noise),
            ("consumed_noise", e.consumed_noise),
            ("disk_noise", e.disk_noise),
            ("vm_overhead_cpu", e.vm_overhead_cpu),
        ] {
            ParamError::check(
                v.is_finite() && v >= 0.0,
                name,
                v,
                "must be finite and >= 0",
            )?;
        }
        check_duration("setup", e.setup, false)?;
        check_duration("max_drain", e.max_drain, false)?;
        ParamError::check(
            e.cpu_traces.len() <= 100_000,
            "cpu_traces",
            e.cpu_traces.len(),
            "must list at most 100000 traces",
        )?;
        ParamError::check(
            e.interactive_nodes <= 100_000,
            "interactive_nodes",
            e.interactive_nodes,
            "must be <= 100000",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::SeedStreams;
    use cosched_core::stats::{mean, population_sd};

    /// Table 2, reproduced: a long stationary trace of each workload has the row's mean, sd,
    /// burst height (mean over bursts, a burst being a maximal run of seconds above 0 %) and
    /// burst length.
    #[test]
    fn generated_traces_reproduce_every_table_2_row() {
        for (i, w) in Workload::ALL.into_iter().enumerate() {
            let stats = w.stats();
            let model = BurstModel::of(&stats).expect("Table 2 rows are valid");
            let mut rng = SeedStreams::new(11).stream("table2", i as u64);
            let mut p = model.start(&mut rng);
            let xs: Vec<f64> = (0..1_500_000).map(|_| p.step(&mut rng)).collect();
            let (mut heights, mut lengths) = (Vec::new(), Vec::new());
            let mut run = (0.0, 0usize);
            for &x in xs.iter().chain([0.0].iter()) {
                if x > 0.0 {
                    run = (run.0 + x, run.1 + 1);
                } else if run.1 > 0 {
                    heights.push(run.0 / run.1 as f64);
                    lengths.push(run.1 as f64);
                    run = (0.0, 0);
                }
            }
            let m = mean(&xs).expect("samples");
            let sd = population_sd(&xs).expect("samples");
            let h = mean(&heights).expect("bursts");
            let l = mean(&lengths).expect("bursts");
            let name = w.name();
            assert!((m - stats.mean_pct).abs() < 0.5, "{name} mean {m}");
            assert!((sd - stats.sd_pct).abs() < 0.5, "{name} sd {sd}");
            assert!((h - stats.burst_pct).abs() < 0.6, "{name} burst height {h}");
            let rel = (l - stats.burst_len_s).abs() / stats.burst_len_s;
            assert!(rel < 0.04, "{name} burst length {l}");
        }
    }

    #[test]
    fn a_two_level_spread_is_not_required_but_impossible_rows_are_rejected() {
        let mut s = Workload::OpenOffice.stats();
        s.sd_pct = 60.0; // heights would need more variance than any 0–100 % law has
        assert_eq!(
            BurstModel::of(&s).map(|_| ()).map_err(|e| e.name),
            Err("sd_pct")
        );
        let mut s = Workload::Matlab.stats();
        s.burst_pct = 10.0; // below the mean
        assert_eq!(
            BurstModel::of(&s).map(|_| ()).map_err(|e| e.name),
            Err("mean_pct")
        );
    }

    /// Sessions: normal, truncated at one minute; churn ×8 divides the mean by 8; residual
    /// lives at the start are length-biased (longer than half a session on average when the
    /// spread is large).
    #[test]
    fn sessions_follow_the_table_scaled_by_churn() {
        use statrs::distribution::{Continuous, ContinuousCDF, Normal as N};
        let s = Workload::Photoshop.stats();
        let mut rng = SeedStreams::new(3).stream("sessions", 0);
        for churn in [1.0, 8.0] {
            let xs: Vec<f64> = (0..40_000).map(|_| s.session_s(churn, &mut rng)).collect();
            let (mu, sigma) = (s.session_mean_s / churn, s.session_sd_s / churn);
            let alpha = (MIN_SESSION_S - mu) / sigma;
            let z = N::standard();
            let truncated_mean = mu + sigma * z.pdf(alpha) / (1.0 - z.cdf(alpha));
            let m = mean(&xs).expect("draws");
            assert!(
                (m / truncated_mean - 1.0).abs() < 0.03,
                "x{churn}: {m} vs {truncated_mean}"
            );
        }
        let fresh = mean(
            &(0..40_000)
                .map(|_| s.session_s(1.0, &mut rng))
                .collect::<Vec<_>>(),
        );
        let residual = mean(
            &(0..40_000)
                .map(|_| s.residual_session_s(1.0, &mut rng))
                .collect::<Vec<_>>(),
        );
        let (fresh, residual) = (fresh.expect("draws"), residual.expect("draws"));
        // E[residual] = E[L²] / (2 E[L]) > E[L] / 2.
        assert!(residual > 0.6 * fresh, "{residual} vs {fresh}");
    }

    #[test]
    fn io_slows_dedicated_and_volunteers_smoothly() {
        let shares = [1.0 / 6.0; 6];
        let mut last = io_second(0.5, 16.0, &shares, 0.0);
        for v in (8..=600).step_by(8) {
            let now = io_second(0.5, 16.0, &shares, f64::from(v));
            assert!(now.volunteer_fraction < last.volunteer_fraction);
            assert!(now.dedicated_cpu < last.dedicated_cpu);
            assert!(now.max_disk_util > last.max_disk_util && now.max_disk_util < 1.0);
            last = now;
        }
    }
}
