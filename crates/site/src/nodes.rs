//! Who holds each node of the site: the one table every role's grant goes through.

use cosched_core::{JobId, LeaseId, NodeId, Pool};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

use crate::SiteError;

/// What one node of the site is doing, and for whom. Exactly one holder at a time: that is
/// the invariant the property tests check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NodeUse {
    /// In the batch pool, idle, not lent.
    Idle,
    /// In the batch pool, running this batch job.
    Batch(JobId),
    /// Reserved for an on-demand job and lent to this batch job, a **guest**, until the
    /// on-demand job arrives (Fan et al. §III-B1): in the batch pool while the guest runs.
    Guest(JobId),
    /// Taken out of batch by the on-demand role and not granted yet (a reserve, a
    /// reservation for an announced lease, or nodes gathered for a waiting one).
    Reserve,
    /// Granted to this on-demand lease.
    OnDemand(LeaseId),
    /// Idle in the batch pool and lent, on availability, to the scavenging pool; running
    /// this scavenged task if any.
    Lent(Option<u64>),
}

impl NodeUse {
    /// The core pool the node serves.
    pub fn pool(self) -> Pool {
        match self {
            NodeUse::Idle | NodeUse::Batch(_) | NodeUse::Guest(_) => Pool::Batch,
            NodeUse::Reserve | NodeUse::OnDemand(_) => Pool::OnDemand,
            NodeUse::Lent(_) => Pool::Volunteer,
        }
    }

    /// Whether the batch scheduler may start a job on it (idle, lent or not).
    pub fn is_batch_idle(self) -> bool {
        matches!(self, NodeUse::Idle | NodeUse::Lent(_))
    }
}

/// The node table and the order in which idle nodes became idle.
///
/// The batch cluster hands idle nodes out most-recently-freed first, so the nodes idle the
/// longest are the last it takes: they are the ones lent to scavenging first, which keeps
/// evictions to what batch really needs (a heuristic of the executor, never a correctness
/// condition: any lent node batch takes is evicted and counted).
#[derive(Clone, Debug)]
pub(crate) struct Nodes {
    uses: Vec<NodeUse>,
    /// When each node last became batch-idle (a sequence number).
    since: Vec<u64>,
    /// Batch-idle nodes (lent or not) by (since, node): the longest idle first.
    idle: BTreeSet<(u64, NodeId)>,
    /// Idle nodes not lent, same order.
    unlent: BTreeSet<(u64, NodeId)>,
    /// Lent nodes running a scavenged task, same order: so that what looks at the running
    /// tasks follows them, not every idle node.
    running: BTreeSet<(u64, NodeId)>,
    seq: u64,
    /// The nodes whose batch-idle state flipped since the log was last taken
    /// ([`Nodes::swap_flips`]); `None` once more flipped than there are nodes.
    flips: Option<Vec<NodeId>>,
}

impl Nodes {
    /// `n` idle nodes; the cluster hands out 0, 1, 2, … first, so node `n − 1` is the
    /// "longest idle".
    pub(crate) fn new(n: u32) -> Nodes {
        // As if each node were marked idle from `n − 1` down to 0: node `i` idle since
        // `n − i`. The sets are built from their sorted keys at once (linear, where `n`
        // insertions would be `n log n`).
        let since: Vec<u64> = (0..n).map(|i| u64::from(n - i)).collect();
        let idle: BTreeSet<(u64, NodeId)> = (0..n)
            .rev()
            .map(|i| (u64::from(n - i), NodeId(i)))
            .collect();
        Nodes {
            uses: vec![NodeUse::Idle; n as usize],
            since,
            unlent: idle.clone(),
            idle,
            running: BTreeSet::new(),
            seq: u64::from(n),
            flips: Some(Vec::new()),
        }
    }

    pub(crate) fn get(&self, node: NodeId) -> Result<NodeUse, SiteError> {
        self.uses
            .get(node.index())
            .copied()
            .ok_or(SiteError::UnknownNode(node))
    }

    pub(crate) fn uses(&self) -> &[NodeUse] {
        &self.uses
    }

    pub(crate) fn idle_count(&self) -> usize {
        self.idle.len()
    }

    pub(crate) fn unlent_count(&self) -> usize {
        self.unlent.len()
    }

    /// Batch-idle nodes, most recently idle first (the order the cluster takes them).
    pub(crate) fn idle_recent_first(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.idle.iter().rev().map(|&(_, n)| n)
    }

    /// Batch-idle nodes, longest idle first (the ones the cluster takes last).
    pub(crate) fn idle_longest_first(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.idle.iter().map(|&(_, n)| n)
    }

    /// Lent nodes running a scavenged task, most recently idle first.
    pub(crate) fn running_recent_first(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.running.iter().rev().map(|&(_, n)| n)
    }

    /// Unlent idle nodes, longest idle first (the ones to lend).
    pub(crate) fn unlent_longest_first(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.unlent.iter().map(|&(_, n)| n)
    }

    /// Unlent idle nodes, most recently idle first (the ones to take for others).
    pub(crate) fn unlent_recent_first(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.unlent.iter().rev().map(|&(_, n)| n)
    }

    /// `node`'s place in the longest-idle order while it is batch-idle.
    pub(crate) fn idle_key(&self, node: NodeId) -> Option<(u64, NodeId)> {
        let i = node.index();
        self.uses
            .get(i)
            .is_some_and(|u| u.is_batch_idle())
            .then(|| (self.since[i], node))
    }

    /// Batch-idle nodes after `after` in the longest-idle order (all of them for `None`),
    /// with their keys.
    pub(crate) fn idle_after(
        &self,
        after: Option<(u64, NodeId)>,
    ) -> impl Iterator<Item = (u64, NodeId)> + '_ {
        use std::ops::Bound::{Excluded, Unbounded};
        let from = after.map_or(Unbounded, Excluded);
        self.idle.range((from, Unbounded)).copied()
    }

    /// Hands out the log of the nodes whose batch-idle state flipped since the last call
    /// (each at least once; `None` when more flipped than there are nodes) and starts a new
    /// one in `reuse`'s buffer.
    pub(crate) fn swap_flips(&mut self, reuse: Option<Vec<NodeId>>) -> Option<Vec<NodeId>> {
        let mut fresh = reuse.unwrap_or_default();
        fresh.clear();
        self.flips.replace(fresh)
    }

    fn flipped(&mut self, node: NodeId) {
        if let Some(log) = &mut self.flips {
            if log.len() < self.uses.len() {
                log.push(node);
            } else {
                self.flips = None;
            }
        }
    }

    fn mark_idle(&mut self, node: NodeId) {
        self.flipped(node);
        self.seq += 1;
        let i = node.index();
        self.since[i] = self.seq;
        self.uses[i] = NodeUse::Idle;
        self.idle.insert((self.seq, node));
        self.unlent.insert((self.seq, node));
    }

    /// Sets `node`'s use, keeping the idle sets in step; returns the previous use.
    pub(crate) fn set(&mut self, node: NodeId, to: NodeUse) -> Result<NodeUse, SiteError> {
        let from = self.get(node)?;
        let key = (self.since[node.index()], node);
        if matches!(from, NodeUse::Lent(Some(_))) {
            self.running.remove(&key);
        }
        if matches!(to, NodeUse::Lent(Some(_))) && from.is_batch_idle() {
            self.running.insert(key);
        }
        // A node is in `unlent` exactly while it is `Idle`.
        let unlent = from == NodeUse::Idle;
        match (from.is_batch_idle(), to) {
            (false, NodeUse::Idle) => {
                self.mark_idle(node);
                return Ok(from);
            }
            (true, NodeUse::Idle) => {
                if !unlent {
                    self.unlent.insert(key);
                }
            }
            (true, NodeUse::Lent(_)) => {
                if unlent {
                    self.unlent.remove(&key);
                }
            }
            (false, NodeUse::Lent(_)) => return Err(SiteError::NotIdle(node)),
            (true, _) => {
                self.idle.remove(&key);
                if unlent {
                    self.unlent.remove(&key);
                }
                self.flipped(node);
            }
            (false, _) => {}
        }
        self.uses[node.index()] = to;
        Ok(from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A use to set a node to, from a small alphabet.
    fn use_of(k: u8) -> NodeUse {
        match k % 5 {
            0 => NodeUse::Idle,
            1 => NodeUse::Batch(JobId(u64::from(k))),
            2 => NodeUse::Reserve,
            3 => NodeUse::Lent(None),
            _ => NodeUse::Lent(Some(u64::from(k))),
        }
    }

    #[test]
    fn a_new_table_is_as_if_every_node_were_marked_idle_in_turn() {
        let n = 1_000;
        let built = Nodes::new(n);
        let mut marked = Nodes {
            uses: vec![NodeUse::Idle; n as usize],
            since: vec![0; n as usize],
            idle: BTreeSet::new(),
            unlent: BTreeSet::new(),
            running: BTreeSet::new(),
            seq: 0,
            flips: Some(Vec::new()),
        };
        for i in (0..n).rev() {
            marked.mark_idle(NodeId(i));
        }
        assert_eq!(built.since, marked.since);
        assert_eq!(built.idle, marked.idle);
        assert_eq!(built.unlent, marked.unlent);
        assert_eq!(built.seq, marked.seq);
    }

    proptest! {
        /// The index of lent nodes running a task, and that of the idle nodes not lent, are
        /// exactly those of the idle nodes, in their order, whatever the changes.
        #[test]
        fn running_lent_nodes_are_indexed_in_idle_order(
            changes in prop::collection::vec((0u32..40, any::<u8>()), 0..300)
        ) {
            let mut nodes = Nodes::new(40);
            for (node, k) in changes {
                let _ = nodes.set(NodeId(node), use_of(k));
                let scanned: Vec<NodeId> = nodes
                    .idle_recent_first()
                    .filter(|&n| matches!(nodes.get(n), Ok(NodeUse::Lent(Some(_)))))
                    .collect();
                let indexed: Vec<NodeId> = nodes.running_recent_first().collect();
                prop_assert_eq!(indexed, scanned);
                let unlent: Vec<NodeId> = nodes
                    .idle_longest_first()
                    .filter(|&n| matches!(nodes.get(n), Ok(NodeUse::Idle)))
                    .collect();
                prop_assert_eq!(nodes.unlent_longest_first().collect::<Vec<_>>(), unlent);
                let longest: Vec<NodeId> = nodes.idle_longest_first().collect();
                let mut recent: Vec<NodeId> = nodes.idle_recent_first().collect();
                recent.reverse();
                prop_assert_eq!(longest, recent);
            }
        }

        /// Between two takes of the log, every node whose place in the longest-idle order
        /// changed (it became idle, stopped being idle, or both) is in it; reading on from a
        /// key gives the idle nodes after it.
        #[test]
        fn the_log_holds_every_node_whose_idle_key_changed(
            rounds in prop::collection::vec(prop::collection::vec((0u32..12, any::<u8>()), 0..30), 1..6)
        ) {
            let mut nodes = Nodes::new(12);
            let keys = |nodes: &Nodes| -> Vec<Option<(u64, NodeId)>> {
                (0..12).map(|i| nodes.idle_key(NodeId(i))).collect()
            };
            let mut before = keys(&nodes);
            let mut reuse = nodes.swap_flips(None);
            for changes in rounds {
                for (node, k) in changes {
                    let _ = nodes.set(NodeId(node), use_of(k));
                }
                let after = keys(&nodes);
                reuse = nodes.swap_flips(reuse);
                if let Some(log) = &reuse {
                    for i in 0..12 {
                        if before[i] != after[i] {
                            prop_assert!(log.contains(&NodeId(i as u32)), "node {i}");
                        }
                    }
                }
                let all: Vec<(u64, NodeId)> = nodes.idle_after(None).collect();
                for (j, &k) in all.iter().enumerate() {
                    prop_assert_eq!(nodes.idle_after(Some(k)).collect::<Vec<_>>(), all[j + 1..].to_vec());
                }
                before = after;
            }
        }
    }
}
