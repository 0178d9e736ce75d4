//! A custom scavenging policy of the site (`cosched-site`), written here through its public
//! items only, run on the site's generated inputs (ours) beside the built-in pool sized by
//! harvesting every idle node and by RHIC's controller.

use cosched_core::policy::Policy;
use cosched_core::{Duration, Time};
use cosched_site::{
    HarvestAll, HtcPool, Inputs, OnDemandRole, PoolCycle, QueueAsBatch, RhicSizer, RhicSizing,
    RoleParams, Roles, ScavengingCommand, ScavengingPolicy, Site, SiteConfig, SiteError,
    SiteReport, SiteState,
};
use std::fmt::Write as _;

/// Lends idle nodes to waiting tasks but always keeps `spare` batch-idle nodes unlent, so
/// that arriving batch jobs and leases find free nodes without evicting a task.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct KeepSpare {
    /// Idle nodes never lent.
    pub spare: u32,
}

impl Policy for KeepSpare {
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = SiteError;

    fn observe(
        &mut self,
        _now: Time,
        cycle: &PoolCycle,
        _view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        let want = u32::try_from(cycle.queued.saturating_sub(cycle.lent_free as usize))
            .unwrap_or(u32::MAX);
        let room = cycle.lendable.saturating_sub(self.spare);
        if want > 0 && room > 0 {
            out.push(ScavengingCommand::Lend {
                count: want.min(room),
            });
        } else if cycle.lendable < self.spare && cycle.lent_free > 0 {
            // Give free lent nodes back until the spare is restored.
            out.push(ScavengingCommand::Recall {
                count: (self.spare - cycle.lendable).min(cycle.lent_free),
            });
        } else if cycle.queued == 0 && cycle.lent_free > 0 {
            out.push(ScavengingCommand::Recall {
                count: cycle.lent_free,
            });
        }
        Ok(())
    }
}

/// Runs the custom policy, the built-in pool harvesting every idle node and the pool sized
/// by RHIC (cost goal) on a generated 128-node site with EASY batch (seed 1; 2 days when
/// `quick`, else 7) and returns the site's metrics as a Markdown table.
///
/// # Errors
/// The site's.
pub fn demo(quick: bool) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let (nodes, seed) = (128, 1);
    let span = Duration::from_hours(if quick { 48 } else { 168 });
    let params = RoleParams::default();
    let inputs = Inputs::generated(nodes, span, params.window, seed)?;
    let workload = inputs.workload(seed)?;
    let policies: [(&str, Box<dyn ScavengingPolicy + Send>); 3] = [
        (
            "custom: keep 8 idle nodes spare",
            Box::new(KeepSpare { spare: 8 }),
        ),
        (
            "built-in: harvest every idle node",
            Box::new(HtcPool::new(
                HarvestAll,
                cosched_albatross::policy::NoScaling,
            )),
        ),
        (
            "built-in: RHIC (cost)",
            Box::new(HtcPool::new(
                RhicSizer::new(RhicSizing::default())?,
                cosched_albatross::policy::NoScaling,
            )),
        ),
    ];
    let mut table = String::from(
        "| scavenging policy | tasks completed | evictions | goodput (node-h) | batch mean wait (s) | useful utilisation (%) |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let end = Time(0).saturating_add(span);
    for (name, policy) in policies {
        let roles = Roles {
            batch: params.batch.build(),
            on_demand: OnDemandRole::site(QueueAsBatch),
            scavenging: Some(policy),
        };
        let r: SiteReport =
            Site::new(SiteConfig::new(nodes, end), roles, workload.clone())?.run()?;
        writeln!(
            table,
            "| {name} | {} | {} | {:.1} | {:.0} | {:.1} |",
            r.scavenged_completed,
            r.scavenged_evicted,
            r.goodput_node_h,
            r.batch_mean_wait_s,
            r.useful_utilization_pct
        )?;
    }
    Ok(table)
}
