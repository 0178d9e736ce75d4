//! Hybrid workloads (Fan et al., IPDPS 2022, the evaluation's workloads): a batch
//! trace whose jobs are typed by project, on-demand notices of the W1–W5 mixes, and
//! Theta-like and Cori-like traces generated from a seed.
//!
//! ## Typing jobs by project ([`assign_types`])
//! The distinct projects (SWF group id, else user id, else one project per job) are shuffled
//! with the seed; the first 10 % are on-demand projects, the next 60 % rigid, the rest
//! malleable, and every job takes its project's type. A single-node job drawn as malleable
//! (it could not shrink) becomes rigid or on-demand in the 60 : 10 proportion of those types.
//!
//! - rigid: setup drawn uniformly in 5–10 % of the run time ([`TypeParams::rigid_setup`]);
//! - malleable: `n_max` = requested size, `n_min` = ceil(20 % of it); setup drawn in 0–5 % of
//!   the run time `t`, and the single-node work `(t − setup) · n_max`, so that on `n_max` nodes
//!   it runs `t` as in the trace;
//! - on-demand: a category drawn from the mix ([`NoticeMix`]); with a notice, the notice
//!   comes 15–30 minutes (uniform) before the estimated arrival; an early job arrives uniformly
//!   between the notice and the estimate, a late one within 30 minutes after the estimate.
//!
//! ## Generated traces ([`TraceParams::theta`], [`TraceParams::cori`], [`generate`])
//! The Lublin–Feitelson model (`cosched_core::workload::LublinModel`, whole-log parameters)
//! draws arrivals, sizes and run times; Tsafrir's model draws estimates; the arrivals are then
//! rescaled to an offered load (default 0.85). Our choices, documented because the paper runs
//! on the real 2019 Theta and Cori logs we do not ship:
//! - Theta-like: 4,392 nodes, the model's sizes (log-uniform up to the whole machine) raised to
//!   at least 128 nodes (Theta's smallest allocation), run times and estimates at most 1 day;
//! - Cori-like: 12,076 nodes, run times and estimates at most 7 days, and the sizes of a
//!   *capacity* machine ([`capacity_sizes`]): 76 % single-node jobs (the issue's share, drawn
//!   by the model; a top-up makes more jobs single-node if a draw falls short), the parallel
//!   ones log-uniform on 2–64 nodes except a thin tail, 1 % of them, log-uniform on
//!   64–4,096 nodes;
//! - projects drawn with Zipf weights 1/k over 100 (Theta) or 400 (Cori) projects.
//!
//! **Why the Cori-like sizes are not the model's.** Lublin's size model puts `log2(size)` on
//! `[ULOW, UHI]` with `UHI = log2(machine)`: fitted on machines of 128–1,024 nodes, it makes
//! sizes grow with the machine. On 12,076 nodes that gave (seed 1, 20,000 jobs) ≈ 270 jobs a
//! day, the single-node jobs (76 %) 0.2 % of the node-hours, a queue of a few large jobs that
//! EASY backfills every small job around, and a baseline instant-start ratio of 91.6 %
//! (3 seeds) where the paper reports 18.94 % on Cori's log. Cori was a capacity machine for
//! NERSC's ≈ 7,000 users: 76 % of its jobs single-node (the issue), its regular queue taking
//! 1–8,991 KNL nodes with a lower charge from 1,024 nodes on to draw large jobs in — sizes set
//! by the users' problems, not growing with the machine. So the Cori-like trace keeps the
//! model's arrivals and run times (a run time still depends on the size as in the model) and
//! its power-of-two share, and fixes the sizes in nodes. Measured on this generator (seeds 1–3, offered load 0.85, 100,000 jobs,
//! ≈ 1 week, except the second row: 20,000 jobs, ≈ 10 days; node-hour shares of seed 1;
//! instant start under the W5 mix):
//!
//! | parallel sizes | jobs a day | node-hours in 2–64 / 65–512 / 513–4,096 nodes | baseline instant start |
//! | --- | ---: | --- | ---: |
//! | model (log-uniform to 12,076), before | ≈ 270 | – (single-node 0.2 %) | 91.6 % (W1–W5) |
//! | 86 % on 2–64, 14 % on 64–4,096 (the model's own stage split) | ≈ 1,930 | 5 / 14 / 80 % | 93.5 % |
//! | 97 % on 2–64, 3 % on 64–1,024 | ≈ 14,200 | 41 / 37 / 16 % (≤ 1,024) | 83.6 % |
//! | **99 % on 2–64, 1 % on 64–4,096 (chosen)** | ≈ 14,300 | 43 / 8 / 44 % (single-node 4.6 %) | **72.9 %** |
//!
//! The chosen split is the one that matches the description above — almost every parallel job
//! small, a thin tail (≈ 35 jobs a day) up to a third of the machine carrying about half the
//! node-hours, ≈ 10^4 jobs a day — and it was not tuned to the paper's number, which it does not
//! reach: EASY still starts ≈ 73 % of on-demand jobs at arrival at offered load 0.85. What
//! moves it further in our runs is load: with the chosen sizes, offered load 1.0 gives 41.8 %
//! and 1.2 gives 28.9 % (3 seeds, 100,000 jobs), a backlog that grows without bound (Cori's
//! users saw long queue waits in 2019); with the model's whole-machine sizes, load 1.0 and
//! 1.2 still gave 89 % and 87 % (seed 1). The offered load stays 0.85 (the issue's workloads),
//! so the Cori-like baseline remains far above 18.94 %.

use crate::HybridError;
use crate::sim::HybridJob;
use cosched_core::workload::lublin::LublinParams;
use cosched_core::workload::{LublinModel, TsafrirEstimates, scale_to_offered_load};
use cosched_core::{Duration, MalleableJob, OnDemandJob, ParamError, RigidJob};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::fmt;

/// Shares of the four notice categories: none, accurate, early, late.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoticeMix {
    /// Weights of none, accurate, early, late (non-negative, not all 0).
    pub weights: [f64; 4],
}

impl NoticeMix {
    /// The paper's five mixes: W1–W4 put 70 % on one category (none, accurate, early, late in
    /// turn) and 10 % on each other; W5 has 25 % each.
    pub const ALL: [(&'static str, NoticeMix); 5] = [
        ("W1", NoticeMix::new([0.7, 0.1, 0.1, 0.1])),
        ("W2", NoticeMix::new([0.1, 0.7, 0.1, 0.1])),
        ("W3", NoticeMix::new([0.1, 0.1, 0.7, 0.1])),
        ("W4", NoticeMix::new([0.1, 0.1, 0.1, 0.7])),
        ("W5", NoticeMix::new([0.25, 0.25, 0.25, 0.25])),
    ];

    /// A mix of the given weights.
    pub const fn new(weights: [f64; 4]) -> NoticeMix {
        NoticeMix { weights }
    }

    fn validate(&self) -> Result<(), ParamError> {
        let ok = self.weights.iter().all(|w| w.is_finite() && *w >= 0.0)
            && self.weights.iter().sum::<f64>() > 0.0;
        ParamError::check(
            ok,
            "weights",
            format!("{:?}", self.weights),
            "must be >= 0, sum > 0",
        )
    }

    fn draw(&self, rng: &mut ChaCha8Rng) -> usize {
        let total: f64 = self.weights.iter().sum();
        let mut u = rng.random::<f64>() * total;
        for (k, w) in self.weights.iter().enumerate() {
            if u < *w {
                return k;
            }
            u -= w;
        }
        3
    }
}

impl fmt::Display for NoticeMix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [n, a, e, l] = self.weights.map(|w| (w * 100.0).round());
        write!(f, "none {n}% / accurate {a}% / early {e}% / late {l}%")
    }
}

/// How jobs are typed and given their models' parameters; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TypeParams {
    /// Shares of on-demand, rigid and malleable projects.
    pub project_shares: [f64; 3],
    /// Rigid setup range, as fractions of the run time.
    pub rigid_setup: (f64, f64),
    /// Malleable setup range, as fractions of the run time.
    pub malleable_setup: (f64, f64),
    /// A malleable job's smallest size as a fraction of its requested size.
    pub min_fraction: f64,
    /// The notice mix of on-demand jobs.
    pub mix: NoticeMix,
    /// Notice lead before the estimated arrival, range.
    pub lead: (Duration, Duration),
    /// How late a late job may be.
    pub max_late: Duration,
}

impl Default for TypeParams {
    fn default() -> Self {
        TypeParams {
            project_shares: [0.1, 0.6, 0.3],
            rigid_setup: (0.05, 0.10),
            malleable_setup: (0.0, 0.05),
            min_fraction: 0.2,
            mix: NoticeMix::ALL[4].1,
            lead: (Duration::from_mins(15), Duration::from_mins(30)),
            max_late: Duration::from_mins(30),
        }
    }
}

impl TypeParams {
    fn validate(&self) -> Result<(), ParamError> {
        self.mix.validate()?;
        let shares_ok = self
            .project_shares
            .iter()
            .all(|s| s.is_finite() && *s >= 0.0)
            && self.project_shares.iter().sum::<f64>() > 0.0;
        ParamError::check(
            shares_ok,
            "project_shares",
            format!("{:?}", self.project_shares),
            "must be >= 0, sum > 0",
        )?;
        for (name, (lo, hi)) in [
            ("rigid_setup", self.rigid_setup),
            ("malleable_setup", self.malleable_setup),
        ] {
            ParamError::check(
                (0.0..=1.0).contains(&lo) && (lo..=1.0).contains(&hi),
                name,
                format!("{lo}..{hi}"),
                "must satisfy 0 <= low <= high <= 1",
            )?;
        }
        ParamError::check(
            self.min_fraction > 0.0 && self.min_fraction <= 1.0,
            "min_fraction",
            self.min_fraction,
            "must lie in (0, 1]",
        )?;
        ParamError::check(
            self.lead.0.0 >= 0 && self.lead.0 <= self.lead.1,
            "lead",
            format!("{}..{}", self.lead.0, self.lead.1),
            "must satisfy 0 <= low <= high",
        )?;
        ParamError::check(
            self.max_late.0 >= 1,
            "max_late",
            self.max_late.0,
            "must be >= 1",
        )
    }
}

/// The type a project's jobs take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    OnDemand,
    Rigid,
    Malleable,
}

/// Types the jobs of a batch trace by project and gives each its model (see the
/// [module docs](self)); deterministic for a seed. Jobs keep their ids and times.
///
/// ```
/// use cosched_core::{Duration, JobId, RigidJob, Time};
/// use cosched_hybrid::workload::{TypeParams, assign_types};
/// let jobs: Vec<RigidJob> = (0..100)
///     .map(|i| {
///         let mut j = RigidJob::new(JobId(i), Time(i as i64 * 60), 8, Duration(3_600),
///                                   Duration(7_200)).unwrap();
///         j.group = Some((i % 20) as u32);
///         j
///     })
///     .collect();
/// let typed = assign_types(&jobs, &TypeParams::default(), 1).unwrap();
/// assert_eq!(typed.len(), 100);
/// ```
pub fn assign_types(
    jobs: &[RigidJob],
    params: &TypeParams,
    seed: u64,
) -> Result<Vec<HybridJob>, HybridError> {
    params.validate()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let project = |j: &RigidJob| match (j.group, j.user) {
        (Some(g), _) => (0, u64::from(g)),
        (None, Some(u)) => (1, u64::from(u)),
        (None, None) => (2, j.id.0),
    };
    let mut projects: Vec<(u8, u64)> = jobs.iter().map(project).collect();
    projects.sort_unstable();
    projects.dedup();
    for k in (1..projects.len()).rev() {
        projects.swap(k, rng.random_range(0..=k));
    }
    let total: f64 = params.project_shares.iter().sum();
    let n = projects.len() as f64;
    let od_end = (n * params.project_shares[0] / total).round() as usize;
    let rigid_end = od_end + (n * params.project_shares[1] / total).round() as usize;
    let kinds: BTreeMap<(u8, u64), Kind> = projects
        .iter()
        .enumerate()
        .map(|(k, &p)| {
            let kind = if k < od_end {
                Kind::OnDemand
            } else if k < rigid_end {
                Kind::Rigid
            } else {
                Kind::Malleable
            };
            (p, kind)
        })
        .collect();
    let od_weight = params.project_shares[0]
        / (params.project_shares[0] + params.project_shares[1]).max(f64::MIN_POSITIVE);
    jobs.iter()
        .map(|job| {
            job.validate()?;
            let mut kind = kinds[&project(job)];
            if kind == Kind::Malleable && job.size == 1 {
                kind = if rng.random::<f64>() < od_weight {
                    Kind::OnDemand
                } else {
                    Kind::Rigid
                };
            }
            let runtime = job.simulated_runtime();
            let frac =
                |rng: &mut ChaCha8Rng, (lo, hi): (f64, f64)| lo + (hi - lo) * rng.random::<f64>();
            Ok(match kind {
                Kind::Rigid => {
                    let f = frac(&mut rng, params.rigid_setup);
                    HybridJob::Rigid {
                        job: *job,
                        setup: Duration((runtime.0 as f64 * f).round() as i64),
                    }
                }
                Kind::Malleable => {
                    let f = frac(&mut rng, params.malleable_setup);
                    let runtime = runtime.max(Duration(1));
                    let setup =
                        Duration(((runtime.0 as f64 * f).round() as i64).min(runtime.0 - 1));
                    let min_size = ((f64::from(job.size) * params.min_fraction).ceil() as u32)
                        .clamp(1, job.size);
                    let work = Duration((runtime - setup).0 * i64::from(job.size));
                    let m = MalleableJob::new(job.id, job.submit, min_size, job.size, work, setup)?;
                    HybridJob::Malleable {
                        job: m,
                        estimate: job.estimate.max(runtime),
                    }
                }
                Kind::OnDemand => HybridJob::OnDemand(on_demand(job, params, &mut rng)?),
            })
        })
        .collect()
}

/// An on-demand job arriving at `job.submit`, its notice category drawn from the mix.
fn on_demand(
    job: &RigidJob,
    params: &TypeParams,
    rng: &mut ChaCha8Rng,
) -> Result<OnDemandJob, ParamError> {
    let runtime = job.simulated_runtime();
    let arrival = job.submit;
    let od = OnDemandJob::new(
        job.id,
        job.size,
        runtime,
        job.estimate.max(runtime).max(Duration(1)),
        arrival,
    )?;
    let lead = Duration(rng.random_range(params.lead.0.0..=params.lead.1.0));
    let category = params.mix.draw(rng);
    let estimated = match category {
        0 => return Ok(od),
        1 => arrival,
        // Early: it arrives between the notice and the estimate.
        2 => arrival + Duration(rng.random_range(1..=lead.0.max(1))),
        // Late: it arrives up to `max_late` after the estimate.
        _ => arrival - Duration(rng.random_range(1..=params.max_late.0)),
    };
    let notice = (estimated - lead).min(arrival);
    od.with_notice(notice, estimated)
}

/// The parameters of a generated trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceParams {
    /// Nodes of the machine.
    pub nodes: u32,
    /// Jobs to generate.
    pub jobs: usize,
    /// Smallest job size.
    pub min_size: u32,
    /// Share of single-node jobs to reach (`None`: the model's own).
    pub single_node_share: Option<f64>,
    /// Longest run time and estimate.
    pub max_runtime: Duration,
    /// Projects jobs are spread over (Zipf weights 1/k).
    pub projects: u32,
    /// Offered load the arrivals are rescaled to.
    pub load: f64,
    /// The Lublin–Feitelson parameters arrivals, sizes and run times are drawn with (the
    /// size range is relative to `nodes`, see `LublinParams`).
    pub model: LublinParams,
}

impl TraceParams {
    /// Theta-like: 4,392 nodes, jobs of at least 128 nodes, at most 1 day, 100 projects.
    pub fn theta(jobs: usize) -> TraceParams {
        TraceParams {
            nodes: 4_392,
            jobs,
            min_size: 128,
            single_node_share: None,
            max_runtime: Duration::from_hours(24),
            projects: 100,
            load: 0.85,
            model: LublinParams::typeless(),
        }
    }

    /// Cori-like: 12,076 nodes, 76 % single-node jobs, at most 7 days, 400 projects, and the
    /// capacity-machine sizes of [`capacity_sizes`].
    pub fn cori(jobs: usize) -> TraceParams {
        let nodes = 12_076;
        TraceParams {
            nodes,
            jobs,
            min_size: 1,
            single_node_share: Some(CORI_SINGLE_NODE_SHARE),
            max_runtime: Duration::from_hours(24 * 7),
            projects: 400,
            load: 0.85,
            model: capacity_sizes(nodes, CORI_SINGLE_NODE_SHARE),
        }
    }
}

/// The share of single-node jobs on Cori the issue gives.
const CORI_SINGLE_NODE_SHARE: f64 = 0.76;

/// `log2` of the smallest parallel size of [`capacity_sizes`] (2 nodes).
pub const CAPACITY_ULOW: f64 = 1.0;
/// `log2` of the boundary between its two size stages (64 nodes).
pub const CAPACITY_UMED: f64 = 6.0;
/// `log2` of its largest size (4,096 nodes, a third of Cori).
pub const CAPACITY_UHI: f64 = 12.0;
/// Share of its parallel jobs in the upper stage, 64–4,096 nodes (the thin tail).
pub const CAPACITY_TAIL: f64 = 0.01;

/// The whole-log Lublin–Feitelson parameters with the job sizes of a capacity machine of
/// `nodes` nodes (see the [module docs](self)): a job is serial with probability
/// `serial_share`; `log2(size)` of a parallel job is uniform on `[1, 6]` (2–64 nodes) with
/// probability `1 −` [`CAPACITY_TAIL`], else on `[6, 12]` (64–4,096 nodes), and rounded to a
/// power of two in the whole-log model's proportion of parallel jobs (0.576 / 0.756).
/// Arrivals and run times keep the whole-log parameters. On a machine of fewer than 4,096
/// nodes the upper end is the machine.
///
/// ```
/// use cosched_hybrid::workload::capacity_sizes;
/// let p = capacity_sizes(12_076, 0.76);
/// assert_eq!(p.serial_prob, 0.76);
/// assert!((p.uprob - 0.99).abs() < 1e-12);
/// assert!(cosched_core::workload::LublinModel::with_params(12_076, p).is_ok());
/// ```
pub fn capacity_sizes(nodes: u32, serial_share: f64) -> LublinParams {
    let whole = LublinParams::typeless();
    let log2_nodes = f64::from(nodes.max(1)).log2();
    let uhi = CAPACITY_UHI.min(log2_nodes);
    LublinParams {
        serial_prob: serial_share,
        pow2_prob: whole.pow2_prob / (1.0 - whole.serial_prob) * (1.0 - serial_share),
        ulow: CAPACITY_ULOW,
        uhi_below_log2_capacity: log2_nodes - uhi,
        umed_below_uhi: (uhi - CAPACITY_UMED).max(0.0),
        uprob: 1.0 - CAPACITY_TAIL,
        ..whole
    }
}

/// A generated batch trace for `params` (see the [module docs](self)); the projects are in
/// the jobs' `group`. Deterministic for a seed.
pub fn generate(params: &TraceParams, seed: u64) -> Result<Vec<RigidJob>, HybridError> {
    ParamError::check(params.jobs >= 2, "jobs", params.jobs, "must be >= 2")?;
    ParamError::check(
        (1..=params.nodes).contains(&params.min_size),
        "min_size",
        params.min_size,
        "must lie within 1..=nodes",
    )?;
    ParamError::check(
        params.projects >= 1,
        "projects",
        params.projects,
        "must be >= 1",
    )?;
    let model = LublinModel::with_params(params.nodes, params.model)?;
    let estimates = TsafrirEstimates::new(params.max_runtime.max(Duration::from_hours(1)))?;
    let mut jobs = model.generate(params.jobs, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let single_now = jobs.iter().filter(|j| j.size == 1).count() as f64 / jobs.len() as f64;
    let make_single = params.single_node_share.map_or(0.0, |s| {
        ((s - single_now) / (1.0 - single_now)).clamp(0.0, 1.0)
    });
    let zipf: Vec<f64> = (1..=params.projects)
        .scan(0.0, |acc, k| {
            *acc += 1.0 / f64::from(k);
            Some(*acc)
        })
        .collect();
    let zipf_total = zipf[zipf.len() - 1];
    for job in &mut jobs {
        if rng.random::<f64>() < make_single {
            job.size = 1;
        }
        job.size = job.size.max(params.min_size);
        job.runtime = job.runtime.min(params.max_runtime).max(Duration(1));
        let u = rng.random::<f64>() * zipf_total;
        job.group = Some(zipf.partition_point(|&c| c <= u).min(zipf.len() - 1) as u32);
    }
    estimates.assign(&mut jobs, seed);
    scale_to_offered_load(&mut jobs, params.nodes, params.load)?;
    Ok(jobs)
}

/// A whole hybrid workload: a generated trace typed by project.
pub fn hybrid_workload(
    trace: &TraceParams,
    types: &TypeParams,
    seed: u64,
) -> Result<Vec<HybridJob>, HybridError> {
    assign_types(&generate(trace, seed)?, types, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::NoticeCategory;

    #[test]
    fn projects_split_10_60_30_and_single_nodes_are_not_malleable() {
        let trace = generate(&TraceParams::cori(3_000), 5).unwrap();
        let typed = assign_types(&trace, &TypeParams::default(), 5).unwrap();
        assert_eq!(typed.len(), trace.len());
        let single = trace.iter().filter(|j| j.size == 1).count() as f64 / 3_000.0;
        assert!((single - 0.76).abs() < 0.03, "single-node share {single}");
        for job in &typed {
            if let HybridJob::Malleable { job, .. } = job {
                assert!(job.max_size > 1);
                assert!(job.min_size >= 1 && job.min_size <= job.max_size);
            }
        }
        assert!(typed.iter().any(|j| matches!(j, HybridJob::OnDemand(_))));
        assert!(trace.iter().all(|j| j.runtime <= Duration::from_hours(168)));
    }

    #[test]
    fn cori_parallel_jobs_are_mostly_small_with_a_thin_tail() {
        let trace = generate(&TraceParams::cori(20_000), 3).unwrap();
        let parallel: Vec<u32> = trace.iter().map(|j| j.size).filter(|&s| s > 1).collect();
        assert!(parallel.iter().all(|&s| (2..=4_096).contains(&s)));
        let tail = parallel.iter().filter(|&&s| s > 64).count() as f64 / parallel.len() as f64;
        assert!(tail > 0.0 && tail < 0.02, "tail share {tail}");
        let days = (trace[trace.len() - 1].submit - trace[0].submit).0 as f64 / 86_400.0;
        let per_day = trace.len() as f64 / days;
        assert!(
            (10_000.0..20_000.0).contains(&per_day),
            "{per_day} jobs a day"
        );
        // A machine smaller than the tail's top keeps every size on the machine.
        let small = TraceParams {
            nodes: 100,
            model: capacity_sizes(100, 0.5),
            ..TraceParams::cori(2_000)
        };
        assert!(generate(&small, 3).unwrap().iter().all(|j| j.size <= 100));
    }

    #[test]
    fn theta_jobs_are_large_and_short() {
        let trace = generate(&TraceParams::theta(500), 2).unwrap();
        assert!(trace.iter().all(|j| j.size >= 128 && j.size <= 4_392));
        assert!(trace.iter().all(|j| j.runtime <= Duration::from_hours(24)));
        assert!(trace.iter().all(|j| j.estimate <= Duration::from_hours(24)));
    }

    #[test]
    fn notice_categories_follow_the_mix() {
        let trace = generate(&TraceParams::theta(4_000), 9).unwrap();
        let types = TypeParams {
            project_shares: [1.0, 0.0, 0.0],
            mix: NoticeMix::ALL[2].1,
            ..TypeParams::default()
        };
        let typed = assign_types(&trace, &types, 9).unwrap();
        let mut counts = [0usize; 4];
        for job in &typed {
            let HybridJob::OnDemand(od) = job else {
                panic!("every project is on-demand")
            };
            counts[match od.category() {
                NoticeCategory::None => 0,
                NoticeCategory::Accurate => 1,
                NoticeCategory::Early => 2,
                NoticeCategory::Late => 3,
            }] += 1;
            if let (Some(n), Some(e)) = (od.notice, od.estimated_arrival) {
                let lead = (e - n).0;
                assert!((900..=1_800).contains(&lead), "lead {lead}");
                assert!(od.arrival <= e + Duration::from_mins(30));
            }
        }
        let early = counts[2] as f64 / typed.len() as f64;
        assert!((early - 0.7).abs() < 0.03, "{counts:?}");
    }

    #[test]
    fn same_seed_same_workload() {
        let a = hybrid_workload(&TraceParams::theta(300), &TypeParams::default(), 4).unwrap();
        let b = hybrid_workload(&TraceParams::theta(300), &TypeParams::default(), 4).unwrap();
        assert_eq!(a, b);
        assert!(
            assign_types(
                &[],
                &TypeParams {
                    min_fraction: 0.0,
                    ..TypeParams::default()
                },
                1
            )
            .is_err()
        );
    }
}
