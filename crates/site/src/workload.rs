//! The site's inputs: batch jobs (rigid and malleable), on-demand leases, scavenged tasks.
//!
//! - **Batch**: any rigid trace (SWF through `cosched-workload`, or the vendored weeks), typed
//!   by project into rigid and malleable jobs by hybrid's [`assign_types`] (Fan et al.,
//!   IPDPS 2022, §IV-A: projects split 10 % on-demand / 60 % rigid / 30 % malleable; a
//!   malleable job runs on 20 %–100 % of its requested size). Jobs of on-demand projects are
//!   kept as leases when no other on-demand input is given ([`on_demand_leases`]).
//! - **On-demand**: core [`Lease`]s that must start within a window `W`: from the APS trace
//!   packed into one-node leases (`cosched_balancer::traces::aps_to_leases`), or hybrid's
//!   typed on-demand jobs.
//! - **Scavenged**: a bag-of-tasks generator, **ours** ([`BagOfTasks`]): bags arrive as a
//!   Poisson process (mean gap 2 h by default); a bag holds 20–200 tasks (uniform); a task
//!   needs one node for a log-normal time (median 30 min, σ = 0.8, cut to 1 min–8 h) and
//!   carries one of three ClassAds ([`TASK_ADS`]). Drawn from named streams, so every
//!   configuration of one seed sees the same tasks.

use cosched_core::{
    Duration, Lease, LeaseEnd, LeaseId, LeaseKind, ParamError, RigidJob, SeedStreams, Time,
};
use cosched_hybrid::workload::{HybridJob, TypeParams, assign_types};
use rand::RngExt;
use rand_distr::weighted::WeightedIndex;
use rand_distr::{Distribution, Exp, LogNormal};
use serde::{Deserialize, Serialize};

use crate::SiteError;

/// A scavenged task: one node (or cloud slot) for `work` reference seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Its id (submission order).
    pub id: u64,
    /// Its bag.
    pub bag: u64,
    /// When it is submitted.
    pub submit: Time,
    /// Its work, in seconds at reference speed (a site node's).
    pub work: Duration,
    /// Which of the workload's ads it carries.
    pub ad: usize,
}

/// The scavenged tasks' ClassAds, ours: most need 1 GB (any slot), some need 3 GB (large
/// cloud instances or site nodes), some must stay on site (their data may not leave).
pub const TASK_ADS: [&str; 3] = [
    "[ RequestMemory = 1024; Requirements = TARGET.Memory >= MY.RequestMemory ]",
    "[ RequestMemory = 3072; Requirements = TARGET.Memory >= MY.RequestMemory ]",
    "[ RequestMemory = 1024; Requirements = TARGET.Memory >= MY.RequestMemory && TARGET.IsCloud =!= true ]",
];

/// The share of tasks carrying each of [`TASK_ADS`] (ours).
pub const TASK_AD_SHARES: [f64; 3] = [0.7, 0.1, 0.2];

/// The bag-of-tasks generator (ours; see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BagOfTasks {
    /// Mean time between bags.
    pub mean_gap: Duration,
    /// Fewest and most tasks per bag.
    pub tasks: (u32, u32),
    /// Median task length.
    pub median: Duration,
    /// Log-normal σ of task lengths.
    pub sigma: f64,
    /// Shortest and longest task.
    pub bounds: (Duration, Duration),
}

impl Default for BagOfTasks {
    fn default() -> Self {
        BagOfTasks {
            mean_gap: Duration::from_hours(2),
            tasks: (20, 200),
            median: Duration::from_mins(30),
            sigma: 0.8,
            bounds: (Duration::from_mins(1), Duration::from_hours(8)),
        }
    }
}

/// The most tasks one generation may produce (a bound on memory, whatever the parameters).
pub const MAX_TASKS: usize = 5_000_000;

impl BagOfTasks {
    fn validate(&self) -> Result<(), SiteError> {
        ParamError::check(
            self.mean_gap.0 > 0,
            "mean_gap",
            self.mean_gap.0,
            "must be > 0 s",
        )?;
        ParamError::check(
            self.tasks.0 >= 1 && self.tasks.0 <= self.tasks.1 && self.tasks.1 <= 100_000,
            "tasks",
            format!("{:?}", self.tasks),
            "must be 1 <= min <= max <= 100000",
        )?;
        ParamError::check(self.median.0 > 0, "median", self.median.0, "must be > 0 s")?;
        ParamError::check(
            self.sigma.is_finite() && self.sigma >= 0.0,
            "sigma",
            self.sigma,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            self.bounds.0.0 > 0 && self.bounds.0 <= self.bounds.1,
            "bounds",
            format!("{:?}", self.bounds),
            "must be 0 < shortest <= longest",
        )?;
        Ok(())
    }

    /// The tasks of bags arriving in `[0, span)`, from the streams `bags`, `bag-sizes`,
    /// `task-lengths` and `task-ads` of `streams`. At most [`MAX_TASKS`] (an error beyond).
    pub fn generate(&self, span: Duration, streams: SeedStreams) -> Result<Vec<Task>, SiteError> {
        self.validate()?;
        let gap = Exp::new(1.0 / self.mean_gap.0 as f64)
            .map_err(|_| ParamError::new("mean_gap", self.mean_gap.0, "must be > 0 s"))?;
        let len = LogNormal::new((self.median.0 as f64).ln(), self.sigma)
            .map_err(|_| ParamError::new("sigma", self.sigma, "must be finite and >= 0"))?;
        let mut arrivals = streams.stream("bags", 0);
        let mut sizes = streams.stream("bag-sizes", 0);
        let mut lengths = streams.stream("task-lengths", 0);
        let mut ads = streams.stream("task-ads", 0);
        let mut tasks = Vec::new();
        let mut t = 0.0_f64;
        let mut bag = 0;
        loop {
            t += gap.sample(&mut arrivals);
            if t >= span.0 as f64 {
                break;
            }
            let n = sizes.random_range(self.tasks.0..=self.tasks.1);
            if tasks.len() + n as usize > MAX_TASKS {
                return Err(ParamError::new(
                    "span",
                    span.0,
                    "gives more than MAX_TASKS (5,000,000) scavenged tasks",
                )
                .into());
            }
            for _ in 0..n {
                let work = (len.sample(&mut lengths).round() as i64)
                    .clamp(self.bounds.0.0, self.bounds.1.0);
                let u: f64 = ads.random();
                let ad = if u < TASK_AD_SHARES[0] {
                    0
                } else if u < TASK_AD_SHARES[0] + TASK_AD_SHARES[1] {
                    1
                } else {
                    2
                };
                tasks.push(Task {
                    id: tasks.len() as u64,
                    bag,
                    submit: Time(t as i64),
                    work: Duration(work),
                    ad,
                });
            }
            bag += 1;
        }
        Ok(tasks)
    }
}

/// A trace's jobs typed by hybrid's [`assign_types`] with its default shares (10 % on-demand,
/// 60 % rigid, 30 % malleable projects), the draws from `seed`'s streams.
pub fn typed_batch(jobs: &[RigidJob], seed: u64) -> Result<Vec<HybridJob>, SiteError> {
    Ok(assign_types(jobs, &TypeParams::default(), seed)?)
}

/// The on-demand jobs among `typed` as one-node-per-unit leases of their run time, each to
/// start within `window` of its arrival (the jobs of hybrid's on-demand projects).
pub fn on_demand_leases(typed: &[HybridJob], window: Duration) -> Result<Vec<Lease>, SiteError> {
    let mut leases = Vec::new();
    for j in typed {
        if let HybridJob::OnDemand(job) = j {
            leases.push(Lease::new(
                LeaseId(leases.len() as u64),
                job.arrival,
                job.size,
                LeaseKind::OnDemand { window },
                LeaseEnd::Bounded(job.runtime.max(Duration(1))),
            )?);
        }
    }
    Ok(leases)
}

/// Leases from the Balancer's lease requests (for instance the APS trace packed by
/// `cosched_balancer::traces::aps_to_leases`), each to start within `window`; sorted by
/// request time, ids renumbered from 0.
pub fn leases_from_requests(
    requests: &[cosched_balancer::workload::LeaseRequest],
    window: Duration,
) -> Result<Vec<Lease>, SiteError> {
    let mut sorted: Vec<_> = requests.iter().collect();
    sorted.sort_by_key(|r| (r.submit, r.id));
    sorted
        .into_iter()
        .enumerate()
        .map(|(k, r)| {
            Ok(Lease::new(
                LeaseId(k as u64),
                r.submit,
                r.nodes,
                LeaseKind::OnDemand { window },
                LeaseEnd::Bounded(r.duration),
            )?)
        })
        .collect()
}

/// Everything one run of a site consumes: the environment, identical for every
/// configuration of a seed.
#[derive(Clone, Debug, Default)]
pub struct SiteWorkload {
    /// Batch jobs, rigid and malleable (on-demand entries are ignored: leases are separate).
    pub batch: Vec<HybridJob>,
    /// On-demand leases.
    pub leases: Vec<Lease>,
    /// Scavenged tasks.
    pub tasks: Vec<Task>,
    /// Advance notices of on-demand leases (hybrid's CUA/CUP, Fan et al. §III-B1): at most
    /// one per lease; a lease without one arrives unannounced.
    pub notices: Vec<LeaseNotice>,
}

/// An advance notice of an on-demand lease (Fan et al. §III-B1): given at `at`, announcing
/// the lease for `estimated_arrival`; the lease itself arrives at its `requested_at`, which
/// may be earlier or later than announced. `at` is at most both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseNotice {
    /// The lease announced.
    pub lease: LeaseId,
    /// When the notice is given.
    pub at: Time,
    /// When the lease says it will arrive.
    pub estimated_arrival: Time,
}

/// Draws an advance notice for each lease (**ours**, labelled as such: hybrid's own drawing,
/// `cosched_hybrid::workload::assign_types`, types whole projects of a batch trace and keeps
/// its per-job notice draw private). The distribution is the paper's (§IV-A), with hybrid's
/// parameters ([`TypeParams`]: the notice mix, the lead, the lateness): each lease takes a
/// category from `params.mix` (none, accurate, early, late; the default is W5, 25 % each); a
/// noticed lease's notice comes a lead drawn uniformly in `params.lead` (15–30 min) before
/// its estimated arrival, which is its arrival (accurate), uniformly 1 s..lead after it
/// (early: the lease comes before its estimate) or uniformly 1 s..`params.max_late` before
/// it (late); the notice is never after the arrival. Draws come from `seed` alone, one
/// lease after another in the given order.
pub fn draw_notices(
    leases: &[Lease],
    params: &TypeParams,
    seed: u64,
) -> Result<Vec<LeaseNotice>, SiteError> {
    let weights = WeightedIndex::new(params.mix.weights).map_err(|_| {
        ParamError::new(
            "mix",
            format!("{:?}", params.mix.weights),
            "must be finite, >= 0, with a positive sum",
        )
    })?;
    let (lo, hi) = (params.lead.0.0, params.lead.1.0);
    ParamError::check(
        (0..=hi).contains(&lo),
        "lead",
        format!("{lo}..{hi} s"),
        "must satisfy 0 <= low <= high",
    )?;
    ParamError::check(
        params.max_late.0 >= 1,
        "max_late",
        params.max_late.0,
        "must be >= 1 s",
    )?;
    let mut rng = SeedStreams::new(seed).stream("lease-notices", 0);
    let mut notices = Vec::new();
    for l in leases {
        let lead = Duration(rng.random_range(lo..=hi));
        let arrival = l.requested_at;
        let estimated = match weights.sample(&mut rng) {
            0 => continue,
            1 => arrival,
            2 => arrival.saturating_add(Duration(rng.random_range(1..=lead.0.max(1)))),
            _ => Time(
                arrival
                    .0
                    .saturating_sub(rng.random_range(1..=params.max_late.0)),
            ),
        };
        notices.push(LeaseNotice {
            lease: l.id,
            at: Time(estimated.0.saturating_sub(lead.0)).min(arrival),
            estimated_arrival: estimated,
        });
    }
    Ok(notices)
}
