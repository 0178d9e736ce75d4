//! The built-in configurations of a site and its default inputs.
//!
//! [`Configuration`] names the role assignments `converged_site` compares; each builds fresh
//! role policies from the paper crates ([`Configuration::roles`]). [`Inputs`] assembles the
//! environment of one seed: a batch trace typed into rigid and malleable jobs, on-demand
//! leases with advance notices, scavenged tasks.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use cosched_albatross::policy::{Albatross, AlbatrossConfig, Capital, NoScaling};
use cosched_balancer::policy::{Balancer, BalancerConfig, Strategy};
use cosched_balancer::workload::LeaseRequest;
use cosched_core::{Duration, RigidJob, SeedStreams, Time};
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{Mechanism, NoticeStrategy};

use crate::scavenging::RhicSizing;
use crate::workload::{BagOfTasks, SiteWorkload, draw_notices, leases_from_requests, typed_batch};
use crate::{BalancerRole, HtcPool, HybridRole, QueueAsBatch, Roles, SiteError, Sizer};

/// Batch jobs [`Inputs::generated`] draws before cutting them at the span.
pub const GENERATED_JOBS: usize = 60_000;

/// The role assignments compared by `converged_site`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Configuration {
    /// Batch only: leases queue as batch jobs, nothing is scavenged.
    Batch,
    /// + the Balancer (Algorithm 1, static reserve `R`, window `W`).
    Balancer,
    /// Batch + hybrid's mechanisms: notices ([`RoleParams::notice`], N by default) and SPAA (shrink,
    /// then preempt, for instant starts).
    Hybrid,
    /// Batch + the scavenging pool on idle nodes (no cloud).
    Scavenging,
    /// Batch + scavenging + Albatross bursting to the cloud.
    Cloud,
    /// Hybrid's mechanisms (as `hybrid`) + scavenging + cloud, the pool harvesting every idle
    /// node: the row keeps HTCondor's default sizing, since RHIC's sizing of the pool rests on
    /// a storage model of ours ([`RhicSizing`]); [`Configuration::AllRhic`] is the row with
    /// RHIC.
    All,
    /// The Balancer + scavenging + cloud (an extra row).
    AllBalancer,
    /// Batch + the scavenging pool sized by RHIC's controller (no cloud; an extra row).
    Rhic,
    /// Hybrid's mechanisms (as `hybrid`) + the pool sized by RHIC + cloud (an extra row).
    AllRhic,
    /// `hybrid` with CUA in place of [`RoleParams::notice`] (CUA&SPAA, an extra row; reserved
    /// nodes run no guests, see [`RoleParams::notice`]).
    HybridCua,
    /// `hybrid` with CUP in place of [`RoleParams::notice`] (CUP&SPAA, an extra row; reserved
    /// nodes run no guests).
    HybridCup,
}

impl Configuration {
    /// Every configuration, in the table's order.
    pub const ALL: [Configuration; 11] = [
        Configuration::Batch,
        Configuration::Balancer,
        Configuration::Hybrid,
        Configuration::Scavenging,
        Configuration::Cloud,
        Configuration::All,
        Configuration::AllBalancer,
        Configuration::Rhic,
        Configuration::AllRhic,
        Configuration::HybridCua,
        Configuration::HybridCup,
    ];

    /// Its name in tables and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Configuration::Batch => "batch",
            Configuration::Balancer => "balancer",
            Configuration::Hybrid => "hybrid",
            Configuration::Scavenging => "scavenging",
            Configuration::Cloud => "cloud",
            Configuration::All => "all",
            Configuration::AllBalancer => "all-balancer",
            Configuration::Rhic => "rhic",
            Configuration::AllRhic => "all-rhic",
            Configuration::HybridCua => "hybrid-cua",
            Configuration::HybridCup => "hybrid-cup",
        }
    }

    /// Fresh role policies for one run under `params`.
    pub fn roles(self, params: &RoleParams) -> Result<Roles, SiteError> {
        use Configuration as C;
        let on_demand: Box<dyn crate::OnDemandPolicy + Send> = match self {
            C::Batch | C::Scavenging | C::Cloud | C::Rhic => Box::new(QueueAsBatch),
            C::Balancer | C::AllBalancer => Box::new(BalancerRole::new(Balancer::new(
                BalancerConfig::new(Strategy::Basic {
                    static_reserve: params.reserve,
                })
                .with_window(params.window),
            ))),
            C::Hybrid | C::All | C::AllRhic => {
                Box::new(HybridRole::new(params.mechanism).with_notices(params.notice))
            }
            C::HybridCua => {
                Box::new(HybridRole::new(params.mechanism).with_notices(NoticeStrategy::Cua))
            }
            C::HybridCup => {
                Box::new(HybridRole::new(params.mechanism).with_notices(NoticeStrategy::Cup))
            }
        };
        let scavenging: Option<Box<dyn crate::ScavengingPolicy + Send>> = match self {
            C::Batch | C::Balancer | C::Hybrid | C::HybridCua | C::HybridCup => None,
            C::Scavenging => Some(Box::new(HtcPool::new(Sizer::HarvestAll, NoScaling))),
            C::Rhic => Some(Box::new(HtcPool::new(Sizer::rhic(params.rhic)?, NoScaling))),
            C::Cloud | C::All | C::AllBalancer | C::AllRhic => {
                let cloud = Albatross::new(AlbatrossConfig::paper(params.capital), Time(0))?;
                let sizer = match self {
                    C::AllRhic => Sizer::rhic(params.rhic)?,
                    _ => Sizer::HarvestAll,
                };
                Some(Box::new(HtcPool::new(sizer, cloud)))
            }
        };
        Ok(Roles {
            batch: params.batch.build(),
            on_demand,
            scavenging,
        })
    }
}

impl fmt::Display for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Configuration {
    type Err = SiteError;
    fn from_str(s: &str) -> Result<Self, SiteError> {
        Configuration::ALL
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

/// The roles' parameters.
#[derive(Clone, Copy, Debug)]
pub struct RoleParams {
    /// The batch policy.
    pub batch: cosched_batch::scenario::BuiltinPolicy,
    /// The Balancer's static reserve `R` (ours: 8 nodes).
    pub reserve: u32,
    /// The Balancer's `W` (the leases carry their own window too).
    pub window: Duration,
    /// Hybrid's on-arrival mechanism (SPAA).
    pub mechanism: Mechanism,
    /// Hybrid's advance-notice strategy (Fan et al. §III-B1) for `hybrid` and `all`: N (notices
    /// ignored, SPAA at arrival) by default. §III-B1 lets the nodes a notice reserves run
    /// waiting jobs ("guests") until the arrival; the site keeps reserved nodes offline to
    /// batch and runs no guests yet, so its CUA and CUP are not the paper's whole mechanism
    /// and stay the extra rows `hybrid-cua` and `hybrid-cup`.
    pub notice: NoticeStrategy,
    /// Albatross's capital `c` (ours: 0.5, a t2.small per stall).
    pub capital: Capital,
    /// RHIC's sizing of the pool (`rhic`, `all-rhic`).
    pub rhic: RhicSizing,
}

impl Default for RoleParams {
    fn default() -> Self {
        RoleParams {
            batch: cosched_batch::scenario::BuiltinPolicy::Easy,
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
