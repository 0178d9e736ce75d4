//! On-demand lease requests for the simulator, and a seeded diurnal generator of them.
//!
//! The paper's evaluation setup (Liu et al., SC18, "Evaluation") replays batch traces on a
//! 372-node cluster beside a synthetic on-demand load; its on-demand arrivals follow the
//! working day. [`DiurnalLeases`] is our stand-in, documented here so that runs can be
//! repeated exactly:
//!
//! - arrivals are a Poisson process whose rate follows the hour of the day,
//!   `λ(t) = λ̄ · (1 + a · sin(2π (t − 6 h) / 24 h))` with amplitude `a` in `[0, 1]`: the
//!   busiest instant is at noon, the quietest at midnight (`t = 0` is a midnight), drawn by
//!   thinning a process of rate `λ̄ (1 + a)`;
//! - each arrival is a burst of `1..=max_burst` requests (uniform), one per second, as an
//!   experiment that starts deploys several VMs at once (the paper's on-demand load is bursty:
//!   a peak of 264 requests per minute at ρ = 30 %, §III-B2, i.e. 11 at ρ = 1.25 %);
//! - sizes are uniform on `1..=max_nodes`, durations exponential with the given mean, rounded
//!   up to whole seconds (at least 1 s);
//! - `λ̄` is chosen so that the offered on-demand load, requested node-seconds over
//!   `nodes × span`, is `load` in expectation.
//!
//! Draws come from the named stream `("on-demand", 0)` of the seed's
//! [`SeedStreams`], so the same parameters and seed give the same requests on every platform.

use cosched_core::SeedStreams;
use cosched_core::{Duration, LeaseId, ParamError, RigidJob, Time};
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// One on-demand request: `nodes` nodes for `duration`, asked for at `submit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseRequest {
    /// Its identifier (unique within a workload).
    pub id: LeaseId,
    /// When it is made.
    pub submit: Time,
    /// Nodes wanted (at least 1).
    pub nodes: u32,
    /// How long it holds them once granted (more than 0 s).
    pub duration: Duration,
    /// Advance notice given by the user (the Hint strategy turns it into
    /// a [`crate::Observation::Hint`] at `submit − notice` for `nodes` nodes by `submit`); other
    /// configurations ignore it.
    pub notice: Option<Duration>,
}

impl LeaseRequest {
    /// Checks `nodes >= 1`, `duration > 0` and a non-negative notice.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.nodes >= 1, "nodes", self.nodes, "must be >= 1")?;
        ParamError::check(
            self.duration.0 > 0,
            "duration",
            self.duration.0,
            "must be > 0 s",
        )?;
        let notice = self.notice.map_or(0, |n| n.0);
        ParamError::check(notice >= 0, "notice", notice, "must be >= 0")
    }
}

/// The diurnal generator's parameters; see the [module docs](self).
///
/// ```
/// use cosched_balancer::workload::DiurnalLeases;
/// use cosched_core::Duration;
/// let g = DiurnalLeases::new(372, Duration::from_hours(24 * 7), 0.3);
/// let requests = g.generate(1).unwrap();
/// assert_eq!(requests, g.generate(1).unwrap());
/// let load = DiurnalLeases::offered_load(&requests, 372, Duration::from_hours(24 * 7));
/// assert!((load - 0.3).abs() < 0.06, "{load}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiurnalLeases {
    /// Nodes of the whole cluster (the load is relative to it).
    pub nodes: u32,
    /// Requests arrive in `[0, span)`.
    pub span: Duration,
    /// Offered on-demand load, in `(0, 1]`.
    pub load: f64,
    /// Largest request (default: an eighth of the cluster, at least 1).
    pub max_nodes: u32,
    /// Mean lease duration (default 1 hour).
    pub mean_duration: Duration,
    /// Day/night amplitude `a` in `[0, 1]` (default 0.5).
    pub amplitude: f64,
    /// Largest burst of requests per arrival (default 1: no bursts).
    pub max_burst: u32,
}

impl DiurnalLeases {
    /// `load` on `nodes` nodes over `span`, with the default sizes, durations and amplitude.
    pub fn new(nodes: u32, span: Duration, load: f64) -> DiurnalLeases {
        DiurnalLeases {
            nodes,
            span,
            load,
            max_nodes: (nodes / 8).max(1),
            mean_duration: Duration::from_hours(1),
            amplitude: 0.5,
            max_burst: 1,
        }
    }

    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.nodes >= 1, "nodes", self.nodes, "must be >= 1")?;
        ParamError::check(self.span.0 > 0, "span", self.span.0, "must be > 0 s")?;
        ParamError::check(
            self.load > 0.0 && self.load <= 1.0,
            "load",
            self.load,
            "must be in (0, 1]",
        )?;
        ParamError::check(
            (1..=self.nodes).contains(&self.max_nodes),
            "max_nodes",
            self.max_nodes,
            "must be in 1..=nodes",
        )?;
        ParamError::check(
            self.mean_duration.0 > 0,
            "mean_duration",
            self.mean_duration.0,
            "must be > 0 s",
        )?;
        ParamError::check(
            (1..=10_000).contains(&self.max_burst),
            "max_burst",
            self.max_burst,
            "must be in 1..=10000",
        )?;
        ParamError::check(
            (0.0..=1.0).contains(&self.amplitude),
            "amplitude",
            self.amplitude,
            "must be in [0, 1]",
        )
    }

    /// The requests for `seed`, by submit time, ids from 0.
    pub fn generate(&self, seed: u64) -> Result<Vec<LeaseRequest>, ParamError> {
        self.validate()?;
        let mut rng = SeedStreams::new(seed).stream("on-demand", 0);
        let mean_nodes = (f64::from(self.max_nodes) + 1.0) / 2.0;
        let mean_burst = (f64::from(self.max_burst) + 1.0) / 2.0;
        let work_per_request = mean_burst * mean_nodes * self.mean_duration.0 as f64;
        let mean_rate = self.load * f64::from(self.nodes) / work_per_request;
        let peak_rate = mean_rate * (1.0 + self.amplitude);
        let day = Duration::from_hours(24).0 as f64;
        let mut requests = Vec::new();
        let mut t = 0.0_f64;
        loop {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / peak_rate;
            if t >= self.span.0 as f64 {
                return Ok(requests);
            }
            let phase = std::f64::consts::TAU * (t / day - 0.25);
            let accept = (1.0 + self.amplitude * phase.sin()) / (1.0 + self.amplitude);
            if rng.random::<f64>() >= accept {
                continue;
            }
            let burst = rng.random_range(1..=self.max_burst);
            for k in 0..burst {
                let nodes = rng.random_range(1..=self.max_nodes);
                let u: f64 = rng.random();
                let duration = (-(1.0 - u).ln() * self.mean_duration.0 as f64)
                    .ceil()
                    .max(1.0);
                requests.push(LeaseRequest {
                    id: LeaseId(requests.len() as u64),
                    submit: Time(t as i64 + i64::from(k)),
                    nodes,
                    duration: Duration(duration as i64),
                    notice: None,
                });
            }
        }
    }

    /// Requested node-seconds over `nodes × span`.
    pub fn offered_load(requests: &[LeaseRequest], nodes: u32, span: Duration) -> f64 {
        let work: f64 = requests
            .iter()
            .map(|r| f64::from(r.nodes) * r.duration.0 as f64)
            .sum();
        work / (f64::from(nodes) * span.0 as f64)
    }
}

/// What the combined cluster runs ([`crate::sim::Simulation::run`]): the batch jobs, the jobs
/// already running at the start (§III-A's preloading: the previous week's jobs still running
/// at its end) and the on-demand requests. Borrowed: a study runs one workload under many
/// policies.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Workload<'a> {
    /// Batch jobs (any order; ids unique, also against `preload`).
    pub jobs: &'a [RigidJob],
    /// Jobs started at the run's start, before anything else.
    pub preload: &'a [RigidJob],
    /// On-demand requests (any order; ids unique).
    pub requests: &'a [LeaseRequest],
}

impl<'a> Workload<'a> {
    /// `jobs` beside `requests`, nothing preloaded.
    pub fn new(jobs: &'a [RigidJob], requests: &'a [LeaseRequest]) -> Workload<'a> {
        Workload {
            jobs,
            preload: &[],
            requests,
        }
    }

    /// With `preload` running at the start.
    pub fn with_preload(self, preload: &'a [RigidJob]) -> Workload<'a> {
        Workload { preload, ..self }
    }
}
