//! Where jobs and idle nodes are: the workload positions by job id and the mirror of the batch
//! cluster's free stack.

use cosched_core::NodeId;
use rustc_hash::FxHashMap;

use super::HybridJob;
use cosched_core::JobId;

/// Workload positions by job id: an offset when the admitted jobs' ids are consecutive in
/// workload order (as the generators and most logs number them), which costs no memory and
/// no hashing on the hot paths, else a hash map.
pub(super) enum JobIndex {
    Consecutive { first: u64, len: usize },
    Map(FxHashMap<JobId, usize>),
}

impl JobIndex {
    pub(super) fn new(specs: &[HybridJob]) -> JobIndex {
        let first = specs.first().map_or(0, |s| s.id().0);
        let consecutive = specs
            .iter()
            .enumerate()
            .all(|(i, s)| first.checked_add(i as u64) == Some(s.id().0));
        if consecutive {
            JobIndex::Consecutive {
                first,
                len: specs.len(),
            }
        } else {
            JobIndex::Map(specs.iter().enumerate().map(|(i, s)| (s.id(), i)).collect())
        }
    }

    /// Adds `job` at position `i` (the next one); `earlier` are the ids of the jobs before
    /// it, in order (read only if the ids stop being consecutive).
    pub(super) fn push(&mut self, job: JobId, i: usize, earlier: impl Iterator<Item = JobId>) {
        match self {
            JobIndex::Consecutive { first, len } if *len == i => {
                if *len == 0 {
                    *first = job.0;
                }
                if first.checked_add(i as u64) == Some(job.0) {
                    *len += 1;
                    return;
                }
                let mut map: FxHashMap<JobId, usize> = earlier.zip(0..).collect();
                map.insert(job, i);
                *self = JobIndex::Map(map);
            }
            JobIndex::Consecutive { .. } => {
                let mut map: FxHashMap<JobId, usize> = earlier.zip(0..).collect();
                map.insert(job, i);
                *self = JobIndex::Map(map);
            }
            JobIndex::Map(map) => {
                map.insert(job, i);
            }
        }
    }

    /// The workload position of `job`, if the workload has it.
    #[inline]
    pub(super) fn get(&self, job: JobId) -> Option<usize> {
        match self {
            JobIndex::Consecutive { first, len } => {
                let i = usize::try_from(job.0.checked_sub(*first)?).ok()?;
                (i < *len).then_some(i)
            }
            JobIndex::Map(map) => map.get(&job).copied(),
        }
    }
}

/// The batch cluster's idle nodes in the order of its free stack, mirrored from the operations
/// the simulator performs, so that it takes nodes from the top, where
/// [`BatchCluster::set_offline`] finds them at once (the mirror's order only matters for speed;
/// its content is checked by [`HybridSim::check_invariants`]).
pub(super) struct IdleStack {
    stack: Vec<NodeId>,
    /// Each node's position in `stack`, `usize::MAX` when not idle.
    pos: Vec<usize>,
}

impl IdleStack {
    /// All nodes idle, in the cluster's initial order (node 0 on top).
    pub(super) fn new(nodes: u32) -> IdleStack {
        let stack: Vec<NodeId> = (0..nodes).rev().map(NodeId).collect();
        let mut pos = vec![0; nodes as usize];
        for (k, node) in stack.iter().enumerate() {
            pos[node.index()] = k;
        }
        IdleStack { stack, pos }
    }

    pub(super) fn contains(&self, node: NodeId) -> bool {
        self.pos[node.index()] != usize::MAX
    }

    pub(super) fn push(&mut self, node: NodeId) {
        debug_assert!(!self.contains(node), "{node} pushed twice");
        self.pos[node.index()] = self.stack.len();
        self.stack.push(node);
    }

    /// Removes `node`: O(1) from the top, else it shifts the nodes above it.
    pub(super) fn remove(&mut self, node: NodeId) {
        let k = self.pos[node.index()];
        if k == usize::MAX {
            return;
        }
        self.stack.remove(k);
        self.pos[node.index()] = usize::MAX;
        for j in k..self.stack.len() {
            self.pos[self.stack[j].index()] = j;
        }
    }

    /// Orders idle `nodes` from the top of the stack down.
    pub(super) fn sort_top_first(&self, nodes: &mut [NodeId]) {
        nodes.sort_unstable_by_key(|n| std::cmp::Reverse(self.pos[n.index()]));
    }

    /// Up to `n` nodes from the top down.
    pub(super) fn top(&self, n: usize) -> Vec<NodeId> {
        self.stack.iter().rev().take(n).copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::{Duration, RigidJob, Time};

    fn rigid(ids: &[u64]) -> Vec<HybridJob> {
        ids.iter()
            .map(|&id| HybridJob::Rigid {
                job: RigidJob::new(JobId(id), Time(0), 1, Duration(60), Duration(60)).unwrap(),
                setup: Duration::ZERO,
            })
            .collect()
    }

    /// The index finds every job and nothing else, by offset for consecutive ids (up to the
    /// last representable id) and by hash otherwise.
    #[test]
    fn job_index_finds_exactly_the_workload() {
        for ids in [
            vec![5, 6, 7, 8],
            vec![u64::MAX - 2, u64::MAX - 1, u64::MAX],
            vec![1, 3, 2, 10],
            vec![],
        ] {
            let specs = rigid(&ids);
            let index = JobIndex::new(&specs);
            let consecutive = ids.windows(2).all(|w| w[1] == w[0] + 1);
            assert_eq!(matches!(index, JobIndex::Consecutive { .. }), consecutive);
            for (i, &id) in ids.iter().enumerate() {
                assert_eq!(index.get(JobId(id)), Some(i), "{ids:?}");
            }
            for id in [0, 4, 9, 11, u64::MAX - 3] {
                if !ids.contains(&id) {
                    assert_eq!(index.get(JobId(id)), None, "{id} in {ids:?}");
                }
            }
        }
    }
}
