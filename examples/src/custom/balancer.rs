//! A custom policy of the Balancer's protocol, written through `cosched-balancer`'s public
//! items only: a **fixed reserve that refills from job ends**. It keeps `K` nodes out of batch
//! (like Basic's `R`), grants a request from the reserve and then from idle batch nodes at
//! once, never waits, and tops the reserve up as batch jobs end. It runs in the crate's
//! simulator on the crate's default synthetic workload (U66-Main on 372 nodes, the on-demand
//! base × 8, ρ about 10 %) beside the built-in Basic Balancer with `R = K`, `W = 0`.

use cosched_balancer::BalancerError;
use cosched_balancer::policy::{Command, NodeSlot, NodeTracker, Observation, Policy, RmNode};
use cosched_balancer::report::SimReport;
use cosched_balancer::scenario::{Scenario, scaled};
use cosched_balancer::sim::Simulation;
use cosched_balancer::synthetic::BatchKind;
use cosched_balancer::workload::Workload;
use cosched_core::{NodeId, SeedStreams, Time};
use serde::{Deserialize, Serialize};

/// Keeps `reserve` nodes on-demand; grants at once or rejects. Its node bookkeeping is the
/// crate's [`NodeTracker`], the Balancer's own.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RefillingReserve {
    reserve: usize,
    nodes: NodeTracker,
}

/// A reserve node, held for ever.
const RESERVE: NodeSlot = NodeSlot::OdReserve {
    hold_until: Time::MAX,
    claim: None,
};

impl RefillingReserve {
    /// A reserve of `reserve` nodes.
    pub fn new(reserve: usize) -> Self {
        RefillingReserve {
            reserve,
            ..RefillingReserve::default()
        }
    }

    /// Reclaims `node` into the reserve if it is short and the node idle in batch.
    fn refill(&mut self, node: NodeId, out: &mut Vec<Command>) {
        let idle = self.nodes.slot(node).ok() == Some(NodeSlot::OaIdle);
        if self.nodes.free_reserve().count() < self.reserve && idle {
            self.nodes.set(node, RESERVE);
            out.push(Command::Reclaim(node));
        }
    }
}

impl Policy for RefillingReserve {
    type Observation = Observation;
    type Command = Command;
    type View = [RmNode];
    type Error = BalancerError;

    fn start(
        &mut self,
        _: Time,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), Self::Error> {
        self.nodes = NodeTracker::from_view(view, Time::MAX)?;
        for i in 0..view.len() {
            self.refill(NodeId(i as u32), out);
        }
        Ok(())
    }

    fn observe(
        &mut self,
        _: Time,
        obs: &Observation,
        _: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), Self::Error> {
        match obs {
            Observation::Request { request, nodes, .. } => {
                let want = *nodes as usize;
                let take: Vec<NodeId> = (self.nodes.free_reserve())
                    .chain(self.nodes.idle())
                    .take(want)
                    .collect();
                if take.len() < want {
                    out.push(Command::Reject { request: *request });
                    return Ok(());
                }
                for &n in &take {
                    if self.nodes.slot(n)? == NodeSlot::OaIdle {
                        out.push(Command::Reclaim(n));
                    }
                    self.nodes.set(n, NodeSlot::OdAlloc);
                }
                out.push(Command::Grant {
                    request: *request,
                    nodes: take,
                });
            }
            Observation::Release { nodes } => {
                for &n in nodes {
                    if self.nodes.free_reserve().count() < self.reserve {
                        self.nodes.set(n, RESERVE);
                    } else {
                        self.nodes.set(n, NodeSlot::OaIdle);
                        out.push(Command::Restore(n));
                    }
                }
            }
            Observation::JobStarting { nodes } => self.nodes.start_jobs(nodes)?,
            Observation::JobEnded { nodes } => {
                self.nodes.end_jobs(nodes)?;
                for &n in nodes {
                    self.refill(n, out);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Runs the custom policy beside Basic (`R = K`, `W = 0`) on the default workload and returns a
/// Markdown table of the metrics the built-in policies report.
///
/// # Errors
/// A workload that cannot be generated, or a simulation that fails.
pub fn demo(quick: bool) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let (nodes, k) = if quick { (64, 6) } else { (372, 30) };
    let scenario = Scenario::synthetic(nodes);
    let streams = SeedStreams::new(1).family("replicate", 0);
    let replicate = scenario.replicate(&[BatchKind::Main { utilization: 0.66 }], 1, &streams)?;
    let batch = &replicate.batch[0];
    let leases = scaled(&replicate.base, 8)?;
    let custom = Simulation::new(nodes)?
        .with_label("refilling reserve (custom)")
        .with_batch_nodes(nodes - k as u32)
        .run(
            &mut RefillingReserve::new(k),
            &Workload::new(&batch.jobs, &leases).with_preload(&batch.preload),
        )?
        .report;
    let basic = scenario.run(
        &scenario.basic(k as u32, cosched_core::Duration::ZERO),
        batch,
        &leases,
    )?;
    let mut table = String::from(
        "| policy | reject rate (%) | mean batch wait (h) | combined utilisation (%) | idle reserve (node-h) |\n|---|---|---|---|---|\n",
    );
    for r in [&basic, &custom] {
        table.push_str(&row(r));
    }
    Ok(table)
}

fn row(r: &SimReport) -> String {
    format!(
        "| {} | {:.2} | {:.2} | {:.1} | {:.0} |\n",
        r.configuration,
        100.0 * r.on_demand.reject_rate,
        r.batch.overall.mean_wait_s / 3600.0,
        100.0 * r.combined_utilization,
        r.reserve_idle_node_hours
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_custom_policy_runs_beside_basic() {
        let table = super::demo(true).expect("demo");
        assert_eq!(table.lines().count(), 4, "{table}");
        assert!(table.contains("refilling reserve (custom)") && table.contains("| basic |"));
    }
}
