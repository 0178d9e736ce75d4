//! The roles' view kept by an executor outside the simulator: a live one observes each node's
//! use on its resource manager and records it here, so that a role's policy reads the same
//! [`SiteState`] in front of a real cluster as in a run of [`super::Site`].

use std::collections::BTreeMap;
use std::sync::Arc;

use cosched_batch::BatchCluster;
use cosched_classad::ClassAd;
use cosched_core::NodeId;

use super::state::{Holds, SiteState};
use super::{MAX_NODES, WAITING_ADS};
use crate::SiteError;
use crate::nodes::{NodeUse, Nodes};

impl SiteState {
    /// The view of `nodes` idle nodes, for an executor that observes its nodes' uses and
    /// records them with [`SiteState::observe_use`] (a live one: the resource manager holds
    /// the batch queue and its jobs, so the view's batch cluster has no job and no queue; a
    /// node that is not batch-idle is offline in it, so its free units are the batch-idle
    /// nodes). Node `i` is the `i`-th node of the executor's order; as in a run of the site,
    /// the last nodes count as the longest idle.
    ///
    /// ```
    /// use cosched_core::{JobId, NodeId};
    /// use cosched_site::{NodeUse, SiteState};
    ///
    /// let mut view = SiteState::observed(3)?;
    /// view.observe_use(NodeId(2), NodeUse::Batch(JobId(7)))?;
    /// view.observe_use(NodeId(1), NodeUse::Lent(Some(0)))?;
    /// assert_eq!(view.batch_idle_count(), 2);
    /// assert_eq!(view.cluster().free_units(), 2);
    /// // Node 2 came back last: it is the most recently idle, batch's first pick.
    /// view.observe_use(NodeId(2), NodeUse::Idle)?;
    /// assert_eq!(view.batch_idle_nodes().next(), Some(NodeId(2)));
    /// # Ok::<(), cosched_site::SiteError>(())
    /// ```
    ///
    /// # Errors
    /// `nodes` outside `1..=`[`MAX_NODES`].
    pub fn observed(nodes: u32) -> Result<SiteState, SiteError> {
        cosched_core::ParamError::check(
            (1..=MAX_NODES).contains(&nodes),
            "nodes",
            nodes,
            "must be in 1..=1000000",
        )?;
        Ok(SiteState {
            nodes: Nodes::new(nodes),
            cluster: BatchCluster::new(nodes)?,
            running: BTreeMap::new(),
            leases: Vec::new(),
            waiting_ads: Vec::new(),
            holds: Holds::new(u64::MAX),
            // An observer records no cycles: a sizer reads the idle nodes afresh each time.
            idle_flips: None,
        })
    }

    /// Records `node`'s use as observed; returns the previous one. A node becomes lent only
    /// from a batch-idle use, as in the site.
    ///
    /// # Errors
    /// No such node, or a node lent that was not batch-idle ([`SiteError::NotIdle`]).
    pub fn observe_use(&mut self, node: NodeId, to: NodeUse) -> Result<NodeUse, SiteError> {
        let from = self.nodes.get(node)?;
        if matches!(to, NodeUse::Lent(_)) && !from.is_batch_idle() {
            return Err(SiteError::NotIdle(node));
        }
        match (from.is_batch_idle(), to.is_batch_idle()) {
            (true, false) => {
                self.cluster.set_offline(node)?;
            }
            (false, true) => self.cluster.set_online(node)?,
            _ => {}
        }
        self.nodes.set(node, to)
    }

    /// Batch-idle nodes not lent, longest idle first (the ones the site lends first).
    pub fn lendable_longest_first(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.unlent_longest_first()
    }

    /// How many batch-idle nodes are not lent.
    pub fn lendable_count(&self) -> usize {
        self.nodes.unlent_count()
    }

    /// The head of the scavenging queue's ads the view lends (at most [`WAITING_ADS`] kept),
    /// queue order.
    pub fn set_waiting_ads(&mut self, ads: impl IntoIterator<Item = Arc<ClassAd>>) {
        self.waiting_ads.clear();
        self.waiting_ads.extend(ads.into_iter().take(WAITING_ADS));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::JobId;
    use proptest::prelude::*;

    fn use_of(k: u8) -> NodeUse {
        match k % 4 {
            0 => NodeUse::Idle,
            1 => NodeUse::Batch(JobId(u64::from(k))),
            2 => NodeUse::Reserve,
            _ => NodeUse::Lent(Some(u64::from(k))),
        }
    }

    proptest! {
        /// The view's batch cluster always has the batch-idle nodes free and no other, and a
        /// lend of a node that is not batch-idle is refused, leaving the view as it was.
        #[test]
        fn the_cluster_follows_the_observed_uses(
            n in 1u32..12,
            changes in proptest::collection::vec((0u32..12, any::<u8>()), 0..60),
        ) {
            let mut view = SiteState::observed(n).unwrap();
            for (node, k) in changes {
                let node = NodeId(node % n);
                let to = use_of(k);
                let before = view.node_uses().to_vec();
                match view.observe_use(node, to) {
                    Ok(_) => prop_assert_eq!(view.node_uses()[node.index()], to),
                    Err(SiteError::NotIdle(_)) => prop_assert_eq!(view.node_uses(), &before[..]),
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                }
                let idle = view.node_uses().iter().filter(|u| u.is_batch_idle()).count();
                prop_assert_eq!(view.batch_idle_count(), idle);
                prop_assert_eq!(view.cluster().free_units() as usize, idle);
            }
        }
    }

    #[test]
    fn a_view_of_no_node_is_refused() {
        assert!(SiteState::observed(0).is_err());
        assert!(SiteState::observed(MAX_NODES + 1).is_err());
    }
}
