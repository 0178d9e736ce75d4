//! The site's configurations and its default inputs.
//!
//! A [`Configuration`] is a name and a constructor of fresh role policies for one run under
//! [`RoleParams`] ([`Configuration::roles`]): the named constructors build the rows
//! `converged_site` compares, from the paper crates' policies; [`Configuration::new`] (any
//! roles) and [`Configuration::assemble`] (an on-demand and a scavenging role, batch from the
//! parameters) build any other. [`Inputs`] assembles the environment of one seed: a batch
//! trace typed into rigid and malleable jobs, on-demand leases with advance notices,
//! scavenged tasks.
//!
//! ```
//! use cosched_core::Time;
//! use cosched_hybrid::{Composite, HybridPolicy, MechanismKind, NoticeStrategy};
//! use cosched_site::scenario::Configuration;
//! use cosched_site::{OnDemandRole, RoleParams, Site, SiteConfig, SiteWorkload};
//!
//! // CUA&PAA with nothing scavenged: a row of one's own beside the built-in ones.
//! let cua_paa = Configuration::assemble(
//!     "cua-paa",
//!     |_| Ok(OnDemandRole::hybrid(HybridPolicy::new(Composite::new(NoticeStrategy::Cua, MechanismKind::Paa)))),
//!     |_| Ok(None),
//! );
//! let rows: Vec<Configuration> = Configuration::rows().into_iter().chain([cua_paa]).collect();
//! assert_eq!(rows[2].name(), "hybrid");
//! for c in &rows {
//!     let roles = c.roles(&RoleParams::default())?;
//!     Site::new(SiteConfig::new(16, Time(60)), roles, SiteWorkload::default())?.run()?;
//! }
//! assert_eq!("all".parse::<Configuration>()?.name(), "all");
//! # Ok::<(), cosched_site::SiteError>(())
//! ```

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use cosched_albatross::policy::{Albatross, AlbatrossConfig, Capital, NoScaling};
use cosched_balancer::policy::{Balancer, BalancerConfig, Strategy};
use cosched_balancer::workload::LeaseRequest;
use cosched_batch::scenario::BuiltinPolicy;
use cosched_batch::{BatchCluster, BatchCommand, BatchError, BatchPolicy, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{Duration, RigidJob, SeedStreams, Time};
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{Composite, HybridPolicy, Mechanism, NoticeStrategy};

use crate::scavenging::{HarvestAll, RhicSizer, RhicSizing, ScavengingPolicy, Sizer};
use crate::workload::{BagOfTasks, SiteWorkload, draw_notices, leases_from_requests, typed_batch};
use crate::{BalancerRole, HtcPool, OnDemandRole, QueueAsBatch, Roles, SiteError};

/// Batch jobs [`Inputs::generated`] draws before cutting them at the span.
pub const GENERATED_JOBS: usize = 60_000;

/// Builds one run's role policies.
type Build = dyn Fn(&RoleParams) -> Result<Roles, SiteError> + Send + Sync;

/// A named assignment of policies to the roles: a constructor of fresh role policies for
/// each run (see the [module docs](self)).
#[derive(Clone)]
pub struct Configuration {
    name: String,
    build: Arc<Build>,
}

impl Configuration {
    /// A configuration named `name` whose roles `build` makes, fresh for each run.
    pub fn new(
        name: impl Into<String>,
        build: impl Fn(&RoleParams) -> Result<Roles, SiteError> + Send + Sync + 'static,
    ) -> Configuration {
        Configuration {
            name: name.into(),
            build: Arc::new(build),
        }
    }

    /// A configuration of the batch policy of the parameters ([`RoleParams::batch`]), the
    /// on-demand role `on_demand` makes and the scavenging role `scavenging` makes (`None`:
    /// nothing is scavenged).
    pub fn assemble(
        name: impl Into<String>,
        on_demand: impl Fn(&RoleParams) -> Result<OnDemandRole, SiteError> + Send + Sync + 'static,
        scavenging: impl Fn(&RoleParams) -> Result<Option<Box<dyn ScavengingPolicy + Send>>, SiteError>
        + Send
        + Sync
        + 'static,
    ) -> Configuration {
        Configuration::new(name, move |p| {
            Ok(Roles {
                batch: p.batch.build(),
                on_demand: on_demand(p)?,
                scavenging: scavenging(p)?,
            })
        })
    }

    /// Its name in tables and CSV.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Fresh role policies for one run under `params`.
    pub fn roles(&self, params: &RoleParams) -> Result<Roles, SiteError> {
        (self.build)(params)
    }

    /// The rows `converged_site` prints, in its table's order.
    pub fn rows() -> Vec<Configuration> {
        vec![
            Configuration::batch(),
            Configuration::balancer(),
            Configuration::hybrid(),
            Configuration::scavenging(),
            Configuration::cloud(),
            Configuration::all(),
            Configuration::all_balancer(),
            Configuration::rhic(),
            Configuration::all_rhic(),
            Configuration::hybrid_cua(),
            Configuration::hybrid_cup(),
        ]
    }

    /// `batch`: leases queue as batch jobs, nothing is scavenged.
    pub fn batch() -> Configuration {
        Configuration::assemble("batch", queue, nothing)
    }

    /// `balancer`: + the Balancer (Algorithm 1, static reserve `R`, window `W`).
    pub fn balancer() -> Configuration {
        Configuration::assemble("balancer", balancer, nothing)
    }

    /// `hybrid`: + hybrid's policy ([`HybridPolicy`], run unchanged), its notice strategy
    /// [`RoleParams::notice`] (N by default) with [`RoleParams::mechanism`] (SPAA: shrink,
    /// then preempt, for instant starts).
    pub fn hybrid() -> Configuration {
        Configuration::assemble("hybrid", |p| hybrid(p, p.notice), nothing)
    }

    /// `scavenging`: batch + the scavenging pool on idle nodes (no cloud).
    pub fn scavenging() -> Configuration {
        Configuration::assemble("scavenging", queue, |_| pool(HarvestAll, NoScaling))
    }

    /// `cloud`: batch + scavenging + Albatross bursting to the cloud.
    pub fn cloud() -> Configuration {
        Configuration::assemble("cloud", queue, |p| pool(HarvestAll, albatross(p)?))
    }

    /// `all`: hybrid's policy (as `hybrid`) + scavenging + cloud, the pool harvesting every
    /// idle node: the row keeps HTCondor's default sizing, since RHIC's sizing of the pool
    /// rests on a storage model of ours ([`RhicSizing`]); `all-rhic` is the row with RHIC.
    pub fn all() -> Configuration {
        Configuration::assemble(
            "all",
            |p| hybrid(p, p.notice),
            |p| pool(HarvestAll, albatross(p)?),
        )
    }

    /// `all-balancer`: the Balancer + scavenging + cloud (an extra row).
    pub fn all_balancer() -> Configuration {
        Configuration::assemble("all-balancer", balancer, |p| {
            pool(HarvestAll, albatross(p)?)
        })
    }

    /// `rhic`: batch + the scavenging pool sized by RHIC's controller (no cloud; an extra
    /// row).
    pub fn rhic() -> Configuration {
        Configuration::assemble("rhic", queue, |p| pool(RhicSizer::new(p.rhic)?, NoScaling))
    }

    /// `all-rhic`: hybrid's policy (as `hybrid`) + the pool sized by RHIC + cloud (an extra
    /// row).
    pub fn all_rhic() -> Configuration {
        Configuration::assemble(
            "all-rhic",
            |p| hybrid(p, p.notice),
            |p| pool(RhicSizer::new(p.rhic)?, albatross(p)?),
        )
    }

    /// `hybrid-cua`: `hybrid` with CUA (CUA&SPAA: reservations collect released nodes until
    /// the arrival, their idle nodes running guests; an extra row).
    pub fn hybrid_cua() -> Configuration {
        Configuration::assemble("hybrid-cua", |p| hybrid(p, NoticeStrategy::Cua), nothing)
    }

    /// `hybrid-cup`: `hybrid` with CUP (CUP&SPAA: as CUA, and preemptions planned before
    /// the estimated arrival; an extra row).
    pub fn hybrid_cup() -> Configuration {
        Configuration::assemble("hybrid-cup", |p| hybrid(p, NoticeStrategy::Cup), nothing)
    }
}

fn queue(_: &RoleParams) -> Result<OnDemandRole, SiteError> {
    Ok(OnDemandRole::site(QueueAsBatch))
}

fn balancer(p: &RoleParams) -> Result<OnDemandRole, SiteError> {
    let config = BalancerConfig::new(Strategy::Basic {
        static_reserve: p.reserve,
    })
    .with_window(p.window);
    Ok(OnDemandRole::site(BalancerRole::new(Balancer::new(config))))
}

fn hybrid(p: &RoleParams, notice: NoticeStrategy) -> Result<OnDemandRole, SiteError> {
    let policy = HybridPolicy::new(Composite::new(notice, p.mechanism.kind));
    Ok(OnDemandRole::hybrid(policy))
}

fn nothing(_: &RoleParams) -> Result<Option<Box<dyn ScavengingPolicy + Send>>, SiteError> {
    Ok(None)
}

fn albatross(p: &RoleParams) -> Result<Albatross, SiteError> {
    Ok(Albatross::new(AlbatrossConfig::paper(p.capital), Time(0))?)
}

fn pool<S, C>(sizer: S, cloud: C) -> Result<Option<Box<dyn ScavengingPolicy + Send>>, SiteError>
where
    S: Sizer + Send + 'static,
    C: cosched_albatross::policy::AlbatrossPolicy + Send + 'static,
    C::Error: fmt::Display,
{
    Ok(Some(Box::new(HtcPool::new(sizer, cloud))))
}

impl fmt::Debug for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Configuration").field(&self.name).finish()
    }
}

impl fmt::Display for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// One of [`Configuration::rows`], by name.
impl FromStr for Configuration {
    type Err = SiteError;
    fn from_str(s: &str) -> Result<Self, SiteError> {
        Configuration::rows()
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                cosched_core::ParamError::new(
                    "configuration",
                    s,
                    "batch, balancer, hybrid, scavenging, cloud, all, all-balancer, rhic, all-rhic, \
                     hybrid-cua or hybrid-cup",
                )
                .into()
            })
    }
}

/// A batch policy for the runs of a configuration, built afresh for each (a batch policy
/// keeps state between passes): a built-in one ([`BuiltinPolicy`]) or any of the batch
/// protocol ([`BatchRole::new`]).
#[derive(Clone)]
pub struct BatchRole {
    name: String,
    build: Arc<dyn Fn() -> Box<dyn BatchPolicy + Send> + Send + Sync>,
}

impl BatchRole {
    /// The batch policy `build` makes, named `name`, whatever its error (`Infallible`, or any
    /// the batch protocol's error converts from).
    pub fn new<P, F>(name: impl Into<String>, build: F) -> BatchRole
    where
        F: Fn() -> P + Send + Sync + 'static,
        P: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>
            + Send
            + 'static,
        P::Error: Into<BatchError>,
    {
        BatchRole {
            name: name.into(),
            build: Arc::new(move || Box::new(build().err_into::<BatchError>())),
        }
    }

    /// A fresh policy.
    pub fn build(&self) -> Box<dyn BatchPolicy + Send> {
        (self.build)()
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl From<BuiltinPolicy> for BatchRole {
    fn from(policy: BuiltinPolicy) -> BatchRole {
        BatchRole {
            name: policy.name().to_string(),
            build: Arc::new(move || policy.build()),
        }
    }
}

impl fmt::Debug for BatchRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BatchRole").field(&self.name).finish()
    }
}

/// The roles' parameters.
#[derive(Clone, Debug)]
pub struct RoleParams {
    /// The batch policy (EASY by default; any of the batch protocol).
    pub batch: BatchRole,
    /// The Balancer's static reserve `R` (ours: 8 nodes).
    pub reserve: u32,
    /// The Balancer's `W` (the leases carry their own window too).
    pub window: Duration,
    /// Hybrid's on-arrival mechanism (SPAA).
    pub mechanism: Mechanism,
    /// Hybrid's advance-notice strategy (Fan et al. §III-B1) for `hybrid`, `all` and
    /// `all-rhic`: N (notices ignored, SPAA at arrival) by default; `hybrid-cua` and
    /// `hybrid-cup` are the rows with CUA and CUP.
    pub notice: NoticeStrategy,
    /// Albatross's capital `c` (ours: 0.5, a t2.small per stall).
    pub capital: Capital,
    /// RHIC's sizing of the pool (`rhic`, `all-rhic`).
    pub rhic: RhicSizing,
}

impl Default for RoleParams {
    fn default() -> Self {
        RoleParams {
            batch: BuiltinPolicy::Easy.into(),
            reserve: 8,
            window: Duration::from_mins(5),
            mechanism: Mechanism::spaa(),
            notice: NoticeStrategy::N,
            capital: Capital::new(0.5).unwrap_or(Capital::ZERO),
            rhic: RhicSizing::default(),
        }
    }
}

/// The inputs of one seed (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The batch trace (rigid jobs, before typing), only jobs submitted before the end.
    pub trace: Vec<RigidJob>,
    /// The on-demand lease requests (the Balancer's type), tiled over the span.
    pub requests: Vec<LeaseRequest>,
    /// The run's length.
    pub span: Duration,
    /// Each lease's window `W`.
    pub window: Duration,
    /// The scavenged work's generator.
    pub bags: BagOfTasks,
}

impl Inputs {
    /// The first `span` of the SWF trace at `swf` from its first valid job (sizes divided by
    /// `cores_per_node`, rounded up), and the APS weekly trace at `aps` packed into one-node leases of 16-core
    /// VMs (Liu et al. §III-A) at `scale` nodes each, repeated week after week over `span`.
    pub fn load(
        swf: &Path,
        cores_per_node: u32,
        aps: &Path,
        scale: u32,
        span: Duration,
        window: Duration,
    ) -> Result<Inputs, SiteError> {
        let cores = cores_per_node.max(1);
        let trace = cosched_workload::swf::read_rigid_jobs(swf)?;
        // The window starts at the trace's first valid job (a sample may open with a gap).
        let first = trace.jobs.iter().map(|j| j.submit).min().unwrap_or(Time(0));
        let end = Time(0).saturating_add(span);
        let trace: Vec<RigidJob> = trace
            .jobs
            .into_iter()
            .filter_map(|mut j| {
                j.submit = Time(0).saturating_add(j.submit.checked_since(first)?);
                j.size = j.size.div_ceil(cores);
                (j.submit < end).then_some(j)
            })
            .collect();
        let week = cosched_balancer::traces::read_aps(aps)?;
        let packed = cosched_balancer::traces::aps_to_leases(&week, 16)?;
        let packed = cosched_balancer::scenario::scaled(&packed, scale.max(1))?;
        let mut requests = Vec::new();
        let week_s = Duration::from_hours(24 * 7);
        let mut shift = Duration::ZERO;
        while shift < span {
            requests.extend(
                packed
                    .iter()
                    .filter(|r| r.submit.saturating_add(shift) < end)
                    .map(|r| LeaseRequest {
                        submit: r.submit.saturating_add(shift),
                        ..*r
                    }),
            );
            let Some(next) = shift.checked_add(week_s) else {
                break;
            };
            shift = next;
        }
        Ok(Inputs {
            trace,
            requests,
            span,
            window,
            bags: BagOfTasks::default(),
        })
    }

    /// File-free inputs, ours, for a site of `nodes` nodes over `span`: Lublin–Feitelson batch
    /// jobs with Tsafrir estimates at offered load 0.8, the Balancer's diurnal one-node
    /// leases at offered load 0.1, and bags of tasks arriving in proportion to the site (a
    /// bag every 2 h per 128 nodes). Drawn from `seed`'s streams.
    pub fn generated(
        nodes: u32,
        span: Duration,
        window: Duration,
        seed: u64,
    ) -> Result<Inputs, SiteError> {
        let streams = SeedStreams::new(seed);
        let model = cosched_workload::LublinModel::typeless(nodes)?;
        let mut jobs = model.generate(GENERATED_JOBS, streams.family("lublin", 0).root());
        cosched_workload::TsafrirEstimates::new(Duration::from_hours(36))?
            .assign(&mut jobs, streams.family("estimates", 0).root());
        cosched_workload::scale_to_offered_load(&mut jobs, nodes, 0.8)?;
        let end = Time(0).saturating_add(span);
        jobs.retain(|j| j.submit < end);
        let requests = cosched_balancer::workload::DiurnalLeases::new(nodes, span, 0.1)
            .generate(streams.family("leases", 0).root())?;
        let bags = BagOfTasks {
            mean_gap: Duration(
                (BagOfTasks::default().mean_gap.0 * 128 / i64::from(nodes.max(1))).max(1),
            ),
            ..BagOfTasks::default()
        };
        Ok(Inputs {
            trace: jobs,
            requests,
            span,
            window,
            bags,
        })
    }

    /// The workload of `seed`: the trace typed into rigid and malleable jobs (its on-demand
    /// projects' jobs dropped: the leases are the on-demand work), the leases with their
    /// advance notices ([`draw_notices`], ours, hybrid's W5 mix), the tasks.
    pub fn workload(&self, seed: u64) -> Result<SiteWorkload, SiteError> {
        let streams = SeedStreams::new(seed);
        let batch = typed_batch(&self.trace, streams.family("typing", 0).root())?
            .into_iter()
            .filter(|j| !matches!(j, cosched_hybrid::workload::HybridJob::OnDemand(_)))
            .collect();
        let leases = leases_from_requests(&self.requests, self.window)?;
        Ok(SiteWorkload {
            batch,
            notices: draw_notices(
                &leases,
                &TypeParams::default(),
                streams.family("notices", 0).root(),
            )?,
            leases,
            tasks: self
                .bags
                .generate(self.span, streams.family("scavenged", 0))?,
        })
    }
}
