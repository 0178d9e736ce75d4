//! The paper's synthetic workloads (Liu et al., SC18, the evaluation's "synthetic traces"),
//! generated from a seed with no input file.
//!
//! **Batch.** A long batch trace is sampled into one-week workloads:
//!
//! - **U66-Main**: 1 % of the jobs of a long trace, keeping each job's nodes, walltime and run
//!   time, with its submit time taken relative to the start of its week; then brought within
//!   `tolerance` of 66 % (random jobs of the rest of the trace added, or of the sample removed,
//!   skipping any that would overshoot), so that every seed offers the paper's load. Our long trace is a
//!   seeded Lublin–Feitelson stream (typeless model, sized for the cluster) with
//!   Tsafrir–Etsion–Feitelson walltimes (maximum 48 h), its arrivals scaled so that it offers
//!   66 % of the cluster over `weeks / sample` weeks: a 1 % sample then offers ≈ 66 % of one
//!   week before the adjustment (one sample's load varies with the seed, the jobs being
//!   heavy-tailed).
//! - **U66-Wide**: U66-Main with each job kept with probability ½ (about half are dropped)
//!   and the nodes of those kept doubled, capped at the cluster. The load stays about 66 %
//!   in expectation less what the cap takes off: the few jobs wider than half the cluster
//!   carry much of the work, so a Wide week offers ≈ 0.6 on average and varies much with the
//!   seed (0.43–0.75 over seeds 0–11 on 372 nodes; [`BatchWeeks::offered_load`] reports it). (Dropping jobs until the load is back at
//!   66 % instead would keep 50–75 % of them, not about half.)
//! - **U66-Narrow**: U66-Main with every job split into two jobs of half its nodes
//!   (`ceil(n/2)` and `floor(n/2)`, submitted together with the same run time and walltime;
//!   a 1-node job stays whole), which conserves node-seconds exactly.
//! - **U77-Main**, **U88-Main**: U66-Main plus jobs injected from the rest of the long trace
//!   (in a seeded random order, each at its own week-relative time) until the offered load is
//!   within `tolerance` of 77 % or 88 %; a job that would overshoot by more is skipped.
//!
//! U66-Wide and U66-Narrow derive from U66-Main of the same seed.
//!
//! Several weeks ([`SyntheticBatch::weeks`]) are disjoint samples placed one after another,
//! each job in a week drawn uniformly.
//!
//! **Ramp-up.** A simulation that starts on an empty cluster underestimates the waits of its
//! first hours. The paper removes the ramp-up by preloading the cluster with running jobs; we
//! preload the jobs of the (first) week that would still run at the week's end, as if the same
//! week had run before: a job submitted at week-relative `s` with run time `r > WEEK − s`
//! runs at time 0 for its remaining `s + r − WEEK` (walltime likewise), in submit order while
//! they fit on the cluster. The simulator starts them at time 0 ([`crate::workload::Workload::preload`]).
//!
//! **On-demand.** ρ = 1.25 % of the cluster, scaled ×2, ×4, ×8, ×16 and ×24 ([`RHO_SCALES`]).
//! The paper's ×1 load is the challenging week's leases; without that file [`base_leases`]
//! draws one from [`DiurnalLeases`] calibrated to the week's stated figures (141 one-node
//! leases of about 5.5 h, bursts up to 11 a minute; ours), and
//! [`scale_leases`] multiplies every request's nodes by the factor, so all scales share the
//! arrival times and differ only in size.

use crate::workload::{DiurnalLeases, LeaseRequest};
use cosched_core::SeedStreams;
use cosched_core::{Duration, JobId, ParamError, RigidJob, Time};
use cosched_workload::{LublinModel, TsafrirEstimates, scale_to_offered_load};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// One week, the span of a synthetic workload.
pub const WEEK: Duration = Duration::from_hours(24 * 7);
/// The base on-demand load ρ: 1.25 % of the cluster.
pub const BASE_RHO: f64 = 0.0125;
/// The paper's on-demand scales of [`BASE_RHO`]: ρ = 1.25, 2.5, 5, 10, 20 and 30 %.
pub const RHO_SCALES: [u32; 6] = [1, 2, 4, 8, 16, 24];
/// The longest long trace, in weeks (20 weeks of 1 % samples; a few million jobs at most).
const MAX_LONG_WEEKS: f64 = 2_000.0;
/// The longest walltime of the long trace.
const MAX_WALLTIME: Duration = Duration::from_hours(48);

/// Which of the paper's batch workloads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BatchKind {
    /// The sample brought to the long trace's load (U66-Main), then topped up to
    /// `utilization`.
    Main {
        /// Target offered load, at least the long trace's.
        utilization: f64,
    },
    /// U66-Main with about half the jobs dropped and the others' nodes doubled.
    Wide,
    /// U66-Main with every job split into two half-size jobs.
    Narrow,
}

impl BatchKind {
    /// The paper's five batch workloads, in its order: U66-Main, U66-Wide, U66-Narrow,
    /// U77-Main, U88-Main.
    pub const PAPER: [BatchKind; 5] = [
        BatchKind::Main { utilization: 0.66 },
        BatchKind::Wide,
        BatchKind::Narrow,
        BatchKind::Main { utilization: 0.77 },
        BatchKind::Main { utilization: 0.88 },
    ];

    /// The paper's name, e.g. `U66-Wide`, `U77-Main`.
    pub fn label(&self) -> String {
        match self {
            BatchKind::Main { utilization } => {
                format!("U{:.0}-Main", utilization * 100.0)
            }
            BatchKind::Wide => "U66-Wide".to_owned(),
            BatchKind::Narrow => "U66-Narrow".to_owned(),
        }
    }
}

/// The batch generator's parameters; see the [module docs](self).
///
/// ```
/// use cosched_balancer::synthetic::{BatchKind, SyntheticBatch};
/// let u77 = SyntheticBatch::new(372, BatchKind::Main { utilization: 0.77 });
/// let week = u77.generate(1).unwrap();
/// assert!((week.offered_load(372) - 0.77).abs() <= u77.tolerance);
/// assert_eq!(week.jobs, u77.generate(1).unwrap().jobs);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SyntheticBatch {
    /// Nodes of the cluster.
    pub nodes: u32,
    /// Which workload.
    pub kind: BatchKind,
    /// Weeks generated (default 1).
    pub weeks: u32,
    /// Fraction of the long trace sampled per week, in `(0, 1]` (default 0.01).
    pub sample: f64,
    /// The long trace's offered load, in `(0, 1]` (default 0.66).
    pub base_load: f64,
    /// How close the offered load gets to its target (default 0.005).
    pub tolerance: f64,
}

/// A generated batch workload.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchWeeks {
    /// The jobs, by submit time, ids from 0, submits in `[0, weeks × WEEK)`.
    pub jobs: Vec<RigidJob>,
    /// Jobs running at time 0 (remaining run time and walltime), ids after the jobs'.
    pub preload: Vec<RigidJob>,
    /// The span the load is measured over: `weeks × WEEK`.
    pub span: Duration,
}

impl BatchWeeks {
    /// The jobs' node-seconds (run time cut at walltime) over `nodes × span`.
    pub fn offered_load(&self, nodes: u32) -> f64 {
        offered_load(&self.jobs, nodes, self.span)
    }
}

/// The node-seconds of `jobs` (run time cut at walltime) over `nodes × span`: the offered
/// load of a workload measured over a fixed span (its weeks) rather than between its first
/// and last submission, as [`cosched_workload::offered_load`] measures it.
pub fn offered_load(jobs: &[RigidJob], nodes: u32, span: Duration) -> f64 {
    work(jobs) / (f64::from(nodes) * span.0 as f64)
}

impl SyntheticBatch {
    /// `kind` on `nodes` nodes with the defaults: one week, a 1 % sample of a 66 % trace.
    pub fn new(nodes: u32, kind: BatchKind) -> SyntheticBatch {
        SyntheticBatch {
            nodes,
            kind,
            weeks: 1,
            sample: 0.01,
            base_load: 0.66,
            tolerance: 0.005,
        }
    }

    /// The same with `weeks` weeks.
    pub fn with_weeks(mut self, weeks: u32) -> SyntheticBatch {
        self.weeks = weeks;
        self
    }

    /// Checks every parameter's range (the long trace, `weeks / sample` weeks, is at most
    /// 2,000 weeks long).
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.nodes >= 1, "nodes", self.nodes, "must be >= 1")?;
        ParamError::check(self.weeks >= 1, "weeks", self.weeks, "must be >= 1")?;
        ParamError::check(
            self.sample > 0.0 && self.sample <= 1.0,
            "sample",
            self.sample,
            "must be in (0, 1]",
        )?;
        ParamError::check(
            self.base_load > 0.0 && self.base_load <= 1.0,
            "base_load",
            self.base_load,
            "must be in (0, 1]",
        )?;
        ParamError::check(
            self.tolerance > 0.0 && self.tolerance < 0.5,
            "tolerance",
            self.tolerance,
            "must be in (0, 0.5)",
        )?;
        let long_weeks = f64::from(self.weeks) / self.sample;
        ParamError::check(
            long_weeks <= MAX_LONG_WEEKS,
            "weeks / sample",
            long_weeks,
            "the long trace must span at most 2,000 weeks",
        )?;
        if let BatchKind::Main { utilization } = self.kind {
            ParamError::check(
                utilization >= self.base_load && utilization <= 1.0,
                "utilization",
                utilization,
                "must be in [base_load, 1]",
            )?;
        }
        Ok(())
    }

    /// The workload for `seed`. Fails on invalid parameters, or when the long trace cannot
    /// reach the target load (too few jobs left, or only jobs too large to adjust by).
    pub fn generate(&self, seed: u64) -> Result<BatchWeeks, ParamError> {
        self.validate()?;
        let streams = SeedStreams::new(seed);
        let long = self.long_trace(streams.family("long-trace", 0))?;
        self.sample_from(long, self.sample, streams)
    }

    /// The workload sampled from a real trace instead of the generated long trace, as the
    /// paper's U66-Main is from the LCRC traces (§III-B1): `trace` holds `trace_weeks` weeks
    /// of jobs with week-relative submit times; a fraction `weeks / trace_weeks` of them is
    /// sampled (the paper's 1 % of two years is one week's worth), then brought to 66 % and
    /// transformed as in [`SyntheticBatch::generate`]. Node counts above the cluster are cut to it.
    ///
    /// ```
    /// use cosched_balancer::synthetic::{BatchKind, SyntheticBatch, WEEK};
    /// use cosched_core::{Duration, JobId, RigidJob, Time};
    /// // Four weeks of 2-node, 1-hour jobs every 10 minutes.
    /// let trace: Vec<RigidJob> = (0..4 * 1008)
    ///     .map(|i| RigidJob::new(JobId(i), Time((i as i64 * 600) % WEEK.0), 2,
    ///         Duration(3600), Duration(7200)).unwrap())
    ///     .collect();
    /// let g = SyntheticBatch::new(8, BatchKind::Main { utilization: 0.66 });
    /// let week = g.generate_from_trace(trace, 4, 1).unwrap();
    /// assert!((week.offered_load(8) - 0.66).abs() <= g.tolerance);
    /// assert!(week.jobs.iter().all(|j| j.size == 2));
    /// ```
    pub fn generate_from_trace(
        &self,
        mut trace: Vec<RigidJob>,
        trace_weeks: u32,
        seed: u64,
    ) -> Result<BatchWeeks, ParamError> {
        self.validate()?;
        ParamError::check(trace_weeks >= 1, "trace_weeks", trace_weeks, "must be >= 1")?;
        for job in &mut trace {
            job.size = job.size.min(self.nodes);
        }
        let sample = (f64::from(self.weeks) / f64::from(trace_weeks)).min(1.0);
        self.sample_from(trace, sample, SeedStreams::new(seed))
    }

    fn sample_from(
        &self,
        long: Vec<RigidJob>,
        sample: f64,
        streams: SeedStreams,
    ) -> Result<BatchWeeks, ParamError> {
        let mut rng = streams.stream("batch-sample", 0);
        let span = Duration(WEEK.0 * i64::from(self.weeks));
        let mut placed = Vec::new();
        let mut rest = Vec::new();
        for job in long {
            if rng.random::<f64>() < sample {
                placed.push(self.place(job, &mut rng));
            } else {
                rest.push(job);
            }
        }
        // U66-Main: the sample, brought to the long trace's load; every workload derives
        // from it.
        let rest = self.adjust(&mut placed, rest, self.base_load, &mut rng)?;
        match self.kind {
            BatchKind::Main { utilization } => {
                if utilization > self.base_load {
                    self.adjust(&mut placed, rest, utilization, &mut rng)?;
                }
            }
            BatchKind::Wide => {
                placed.retain(|_| rng.random::<f64>() < 0.5);
                for job in &mut placed {
                    job.size = job.size.saturating_mul(2).min(self.nodes);
                }
            }
            BatchKind::Narrow => {
                placed = placed
                    .into_iter()
                    .flat_map(|job| {
                        let half = job.size / 2;
                        let first = RigidJob {
                            size: job.size - half,
                            ..job
                        };
                        let second = (half > 0).then_some(RigidJob { size: half, ..job });
                        std::iter::once(first).chain(second)
                    })
                    .collect();
            }
        }
        placed.sort_by_key(|j| (j.submit, j.id));
        for (i, job) in placed.iter_mut().enumerate() {
            job.id = JobId(i as u64);
        }
        let preload = self.preload(&placed);
        Ok(BatchWeeks {
            jobs: placed,
            preload,
            span,
        })
    }

    /// The long trace: Lublin jobs with Tsafrir walltimes, offering `base_load` over
    /// `weeks / sample` weeks.
    fn long_trace(&self, streams: SeedStreams) -> Result<Vec<RigidJob>, ParamError> {
        let long_weeks = (f64::from(self.weeks) / self.sample).ceil();
        let target = self.base_load * f64::from(self.nodes) * WEEK.0 as f64 * long_weeks;
        let model = LublinModel::typeless(self.nodes)?;
        let mut jobs = Vec::new();
        let mut total = 0.0;
        for job in model.jobs(streams.stream("jobs", 0).random()) {
            if total >= target {
                break;
            }
            total += f64::from(job.size) * job.runtime.0 as f64;
            jobs.push(job);
        }
        TsafrirEstimates::new(MAX_WALLTIME)?
            .assign(&mut jobs, streams.stream("walltimes", 0).random());
        scale_to_offered_load(&mut jobs, self.nodes, self.base_load)?;
        Ok(jobs)
    }

    /// `job` at its week-relative submit time, in a random week of the workload.
    fn place(&self, mut job: RigidJob, rng: &mut ChaCha8Rng) -> RigidJob {
        let week = i64::from(rng.random_range(0..self.weeks));
        job.submit = Time(week * WEEK.0 + job.submit.0.rem_euclid(WEEK.0));
        job
    }

    /// Brings the offered load within `tolerance` of `target`: adds jobs of `pool` (at
    /// their week-relative times) while below, removes placed jobs while above, each in a
    /// seeded random order and skipping a job that would overshoot; returns what is left of
    /// the pool, with the jobs removed.
    fn adjust(
        &self,
        placed: &mut Vec<RigidJob>,
        mut pool: Vec<RigidJob>,
        target: f64,
        rng: &mut ChaCha8Rng,
    ) -> Result<Vec<RigidJob>, ParamError> {
        let capacity = f64::from(self.nodes) * (WEEK.0 * i64::from(self.weeks)) as f64;
        let (low, high) = (target - self.tolerance, target + self.tolerance);
        let mut load = work(placed) / capacity;
        let unreachable =
            || ParamError::new("utilization", target, "the long trace cannot reach it");
        // Fisher–Yates, drawing lazily: only as much as needed is shuffled.
        let mut n = pool.len();
        while load < low {
            if n == 0 {
                return Err(unreachable());
            }
            let k = rng.random_range(0..n);
            n -= 1;
            pool.swap(k, n);
            let added = work(&pool[n..=n]) / capacity;
            if load + added <= high {
                placed.push(self.place(pool[n], rng));
                load += added;
            }
        }
        pool.truncate(n);
        let mut n = placed.len();
        while load > high {
            if n == 0 {
                return Err(unreachable());
            }
            let k = rng.random_range(0..n);
            n -= 1;
            placed.swap(k, n);
            let removed = work(&placed[n..=n]) / capacity;
            if load - removed >= low {
                // Back to the pool: a later, higher target (U77, U88) may inject it again.
                pool.push(placed.swap_remove(n));
                load -= removed;
            }
        }
        Ok(pool)
    }

    /// The first week's jobs still running at its end, as running at time 0; see the
    /// [module docs](self).
    fn preload(&self, jobs: &[RigidJob]) -> Vec<RigidJob> {
        let mut free = self.nodes;
        let mut preload = Vec::new();
        for job in jobs.iter().take_while(|j| j.submit < Time(WEEK.0)) {
            // Submits lie in [0, WEEK): `ran` is in (0, WEEK], and the differences below
            // cannot overflow whatever the run time or walltime (a trace's may be i64::MAX).
            let ran = WEEK.0 - job.submit.0;
            let left = job.simulated_runtime().0 - ran;
            if left <= 0 || job.size > free {
                continue;
            }
            free -= job.size;
            preload.push(RigidJob {
                id: JobId((jobs.len() + preload.len()) as u64),
                submit: Time::ZERO,
                runtime: Duration(left),
                estimate: Duration(job.estimate.0 - ran),
                ..*job
            });
        }
        preload
    }
}

/// Mean lease of the paper's challenging week: ρ = 1.25 % of 372 nodes over a week in 141
/// one-node VM leases (Table I caption, §III-B2) is about 5.5 hours each.
pub const BASE_LEASE_MEAN: Duration = Duration(19_900);
/// The base load's largest burst: the paper's peak of 264 requests per minute at ×24 (§III-B2)
/// is 11 at ×1.
pub const BASE_MAX_BURST: u32 = 11;

/// The file-free ×1 on-demand load of [`RHO_SCALES`] (ours; the paper's base is the
/// challenging week's leases, which [`crate::traces::aps_to_leases`] gives from its APS file):
/// one-node (one 16-core VM) leases of [`BASE_LEASE_MEAN`] on average, arriving in diurnal
/// bursts of up to [`BASE_MAX_BURST`], offering [`BASE_RHO`] of `nodes` over `span` — the
/// challenging week's stated count, mean and peak, not its exact times.
pub fn base_leases(nodes: u32, span: Duration, seed: u64) -> Result<Vec<LeaseRequest>, ParamError> {
    DiurnalLeases {
        max_nodes: 1,
        mean_duration: BASE_LEASE_MEAN,
        max_burst: BASE_MAX_BURST,
        ..DiurnalLeases::new(nodes, span, BASE_RHO)
    }
    .generate(seed)
}

/// `requests` with every request's nodes multiplied by `factor` (at least 1).
///
/// ```
/// use cosched_balancer::synthetic::{WEEK, base_leases, scale_leases};
/// use cosched_balancer::workload::DiurnalLeases;
/// let base = base_leases(372, WEEK, 1).unwrap();
/// let x8 = scale_leases(&base, 8).unwrap();
/// let load = |r| DiurnalLeases::offered_load(r, 372, WEEK);
/// assert!((load(&x8) - 8.0 * load(&base)).abs() < 1e-12);
/// ```
pub fn scale_leases(
    requests: &[LeaseRequest],
    factor: u32,
) -> Result<Vec<LeaseRequest>, ParamError> {
    ParamError::check(factor >= 1, "factor", factor, "must be >= 1")?;
    requests
        .iter()
        .map(|r| {
            let nodes = r.nodes.checked_mul(factor).ok_or_else(|| {
                ParamError::new("factor", factor, "a scaled request's nodes overflow")
            })?;
            Ok(LeaseRequest { nodes, ..*r })
        })
        .collect()
}

/// Node-seconds of `jobs`, run time cut at walltime.
fn work(jobs: &[RigidJob]) -> f64 {
    jobs.iter()
        .map(|j| f64::from(j.size) * j.simulated_runtime().0 as f64)
        .sum()
}
