//! The wait queue: jobs in (submit, id) order, with fast removal anywhere and fast search for
//! the next job that could start.
//!
//! Entries live in a vector whose positions stay stable between compactions; a removed entry
//! becomes a tombstone, and the vector is compacted once tombstones outnumber live entries
//! (amortised O(1) per removal). A segment tree over the positions keeps, per subtree, the
//! **skyline** of its live entries' (size, estimate) pairs — the pairs no other pair beats in
//! both — so a backfilling scan jumps straight to the next entry that fits both bounds instead
//! of visiting every waiting job. A skyline holds up to [`SKYLINE_POINTS`] points; a longer one
//! folds its tail into one point that bounds it from below, which keeps the search exact at the
//! leaves and conservative (never missing an entry) above them.

use crate::cluster::QueuedJob;
use cosched_core::{Duration, JobId, Time};

/// Sizes and estimates of a dead or empty slot: larger than any real bound.
const DEAD: (u32, i64) = (u32::MAX, i64::MAX);

/// Points a node's skyline keeps before folding its tail.
pub(crate) const SKYLINE_POINTS: usize = 3;

/// The (size, estimate) pairs of a subtree that no other pair beats in both, by ascending size
/// (so descending estimate). Empty for a subtree with no live entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Skyline {
    len: u8,
    points: [(u32, i64); SKYLINE_POINTS],
}

impl Skyline {
    const EMPTY: Skyline = Skyline {
        len: 0,
        points: [DEAD; SKYLINE_POINTS],
    };

    #[inline]
    fn leaf(point: (u32, i64)) -> Skyline {
        if point == DEAD {
            return Skyline::EMPTY;
        }
        let mut s = Skyline::EMPTY;
        s.points[0] = point;
        s.len = 1;
        s
    }

    #[inline]
    fn points(&self) -> &[(u32, i64)] {
        &self.points[..usize::from(self.len)]
    }

    /// Whether some point has `size <= small`, or `size <= units` and `estimate <= max`.
    #[inline]
    fn admits(&self, units: u32, small: u32, max_estimate: i64) -> bool {
        let points = self.points();
        let Some(&(min_size, _)) = points.first() else {
            return false;
        };
        if min_size <= small {
            return true;
        }
        // The largest size within `units` carries the smallest estimate among those within it.
        points
            .iter()
            .take_while(|p| p.0 <= units)
            .last()
            .is_some_and(|p| p.1 <= max_estimate)
    }

    /// The skyline of the union of two subtrees.
    #[inline]
    fn merge(a: &Skyline, b: &Skyline) -> Skyline {
        // Empty sides are common (tombstones, the unused right end of the tree).
        if b.len == 0 {
            return *a;
        }
        if a.len == 0 {
            return *b;
        }
        let (a, b) = (a.points(), b.points());
        let mut out = Skyline::EMPTY;
        let (mut i, mut j) = (0, 0);
        let mut best_estimate = i64::MAX;
        while i < a.len() || j < b.len() {
            let take_a = j == b.len() || (i < a.len() && a[i] <= b[j]);
            let p = if take_a { a[i] } else { b[j] };
            if take_a {
                i += 1;
            } else {
                j += 1;
            }
            if p.1 >= best_estimate {
                continue; // dominated by a smaller-or-equal size with a smaller estimate
            }
            best_estimate = p.1;
            let n = usize::from(out.len);
            if n < SKYLINE_POINTS {
                out.points[n] = p;
                out.len += 1;
            } else {
                // Fold: the last point keeps its size and takes the smaller estimate, so it
                // still bounds every folded point from below.
                out.points[n - 1].1 = p.1;
            }
        }
        out
    }
}

/// Compaction waits until at least this many tombstones have piled up.
const MIN_TOMBSTONES_TO_COMPACT: usize = 64;

#[derive(Debug, Default)]
pub(crate) struct JobQueue {
    entries: Vec<QueuedJob>,
    /// Segment tree in heap layout: node `k` covers a range, leaves start at `leaves`; the
    /// skyline of its live entries.
    tree: Vec<Skyline>,
    leaves: usize,
    live: usize,
    /// No live entry sits before this position.
    head: usize,
    /// Leaves removed since the last [`JobQueue::finish_pass`] whose ancestors still count them.
    /// A stale ancestor only over-approximates (it may admit a dead entry, never hides a live
    /// one), so searches stay exact: leaves are always current.
    stale: Vec<usize>,
}

impl JobQueue {
    /// Live entries.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// One past the last position (live or not); positions are stable until
    /// [`JobQueue::finish_pass`].
    #[cfg(test)]
    pub(crate) fn end(&self) -> usize {
        self.entries.len()
    }

    /// The live entry at `pos`.
    #[inline]
    pub(crate) fn get(&self, pos: usize) -> Option<&QueuedJob> {
        self.is_live(pos).then(|| &self.entries[pos])
    }

    #[inline]
    pub(crate) fn is_live(&self, pos: usize) -> bool {
        pos < self.entries.len() && self.tree[self.leaves + pos].len > 0
    }

    /// Live entries in queue order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &QueuedJob> + '_ {
        (self.head..self.entries.len()).filter_map(|pos| self.get(pos))
    }

    /// Inserts `job` at its (submit, id) place: an append in the common case, a rebuild
    /// otherwise.
    pub(crate) fn insert(&mut self, job: QueuedJob) {
        let key = job.order_key();
        let appends = self
            .entries
            .last()
            .is_none_or(|last| last.order_key() < key);
        if appends {
            if self.entries.len() == self.leaves {
                self.compact_and_rebuild(1);
            }
            self.entries.push(job);
            self.set(self.entries.len() - 1, (job.size(), job.estimate().0));
        } else {
            self.compact_and_rebuild(1);
            let at = self.entries.partition_point(|x| x.order_key() < key);
            self.entries.insert(at, job);
            self.set_all();
        }
        self.live += 1;
    }

    /// Removes the live entry at `pos`, leaving a tombstone. Its ancestors are repaired by
    /// [`JobQueue::finish_pass`].
    pub(crate) fn remove(&mut self, pos: usize) -> QueuedJob {
        debug_assert!(self.is_live(pos));
        self.tree[self.leaves + pos] = Skyline::EMPTY;
        self.stale.push(self.leaves + pos);
        self.live -= 1;
        if pos == self.head {
            self.head = self.next_live(pos + 1).unwrap_or(self.entries.len());
        }
        self.entries[pos]
    }

    /// The position of the first live entry whose key is above `key`, if any.
    pub(crate) fn next_live_after(&self, key: (Time, JobId)) -> Option<usize> {
        let from = self.entries.partition_point(|x| x.order_key() <= key);
        self.next_live(from)
    }

    /// The live position of the entry with `key`, if it is queued.
    pub(crate) fn position_of(&self, key: (Time, JobId)) -> Option<usize> {
        let pos = self.entries.partition_point(|x| x.order_key() < key);
        (self.get(pos)?.order_key() == key).then_some(pos)
    }

    /// The first live position at or after `from`.
    #[inline]
    pub(crate) fn next_live(&self, from: usize) -> Option<usize> {
        self.find(from.max(self.head), |s| s.len > 0)
    }

    /// The first live position at or after `from` whose job has `size <= units` and
    /// (`size <= small_units` or `estimate <= max_estimate`).
    #[inline]
    pub(crate) fn next_candidate(
        &self,
        from: usize,
        units: u32,
        small_units: u32,
        max_estimate: Duration,
    ) -> Option<usize> {
        let small = small_units.min(units);
        self.find(from.max(self.head), |s| {
            s.admits(units, small, max_estimate.0)
        })
    }

    /// Ends a scheduling pass: repairs the ancestors of removed entries, level by level so that
    /// shared ancestors are merged once, and compacts the entries once tombstones outnumber
    /// live ones (positions change then).
    pub(crate) fn finish_pass(&mut self) {
        let dead = self.entries.len() - self.live;
        if dead >= MIN_TOMBSTONES_TO_COMPACT && dead > self.live {
            self.compact_and_rebuild(0);
            return;
        }
        if let [leaf] = self.stale[..] {
            self.stale.clear();
            self.repair_from(leaf);
            return;
        }
        let mut nodes = std::mem::take(&mut self.stale);
        // Passes start jobs in queue order, so this is usually sorted already; halving keeps
        // it sorted, so one sort serves every level.
        if !nodes.is_sorted() {
            nodes.sort_unstable();
        }
        while !nodes.is_empty() {
            for k in &mut nodes {
                *k /= 2;
            }
            nodes.dedup();
            // A node whose skyline did not change gives its parent nothing to redo.
            let tree = &mut self.tree;
            nodes.retain(|&k| {
                if k < 1 {
                    return false;
                }
                let merged = Skyline::merge(&tree[2 * k], &tree[2 * k + 1]);
                let changed = tree[k] != merged;
                tree[k] = merged;
                changed && k > 1
            });
        }
        self.stale = nodes;
    }

    /// Drops the tombstones and rebuilds the tree with room for `spare` more entries.
    fn compact_and_rebuild(&mut self, spare: usize) {
        self.stale.clear();
        let (tree, leaves) = (&self.tree, self.leaves);
        let mut pos = 0;
        self.entries.retain(|_| {
            pos += 1;
            tree[leaves + pos - 1].len > 0
        });
        self.leaves = (self.entries.len() + spare)
            .next_power_of_two()
            .max(self.leaves)
            .max(32);
        self.set_all();
    }

    /// Rebuilds the tree from the entries, all of which must be live.
    fn set_all(&mut self) {
        let leaves = self.leaves;
        self.tree.clear();
        self.tree.resize(2 * leaves, Skyline::EMPTY);
        for (pos, job) in self.entries.iter().enumerate() {
            self.tree[leaves + pos] = Skyline::leaf((job.size(), job.estimate().0));
        }
        for k in (1..leaves).rev() {
            self.tree[k] = Skyline::merge(&self.tree[2 * k], &self.tree[2 * k + 1]);
        }
        self.head = 0;
        self.head = self.next_live(0).unwrap_or(self.entries.len());
    }

    #[inline]
    fn set(&mut self, pos: usize, value: (u32, i64)) {
        let leaf = self.leaves + pos;
        self.tree[leaf] = Skyline::leaf(value);
        self.repair_from(leaf);
    }

    /// Recomputes the ancestors of node `k`, stopping where a skyline does not change.
    #[inline]
    fn repair_from(&mut self, mut k: usize) {
        while k > 1 {
            k /= 2;
            let merged = Skyline::merge(&self.tree[2 * k], &self.tree[2 * k + 1]);
            if self.tree[k] == merged {
                break;
            }
            self.tree[k] = merged;
        }
    }

    /// The first position >= `from` whose leaf satisfies `pred`, searching only subtrees
    /// whose skyline satisfies it (`pred` must hold for a node if it holds for a leaf below).
    fn find(&self, from: usize, pred: impl Fn(&Skyline) -> bool) -> Option<usize> {
        // The root bounds the whole queue: most futile searches end here.
        if from >= self.entries.len() || !pred(&self.tree[1]) {
            return None;
        }
        // Walk up from the leaf, visiting the right siblings of the path in order.
        let mut k = self.leaves + from;
        if pred(&self.tree[k]) {
            return Some(from);
        }
        loop {
            // Move to the next subtree to the right at the lowest possible level.
            while k & 1 == 1 {
                k /= 2;
                if k <= 1 {
                    return None;
                }
            }
            k += 1;
            if pred(&self.tree[k]) {
                // Descend to the leftmost satisfying leaf; backtrack right on false alarms.
                if let Some(pos) = self.descend(k, &pred) {
                    return (pos < self.entries.len()).then_some(pos);
                }
            }
        }
    }

    /// The leftmost leaf under `k` satisfying `pred`, if any.
    fn descend(&self, k: usize, pred: &impl Fn(&Skyline) -> bool) -> Option<usize> {
        if k >= self.leaves {
            return pred(&self.tree[k]).then_some(k - self.leaves);
        }
        for child in [2 * k, 2 * k + 1] {
            if pred(&self.tree[child])
                && let Some(pos) = self.descend(child, pred)
            {
                return Some(pos);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BatchJob;
    use cosched_core::{JobClass, JobId, Time};
    use proptest::prelude::*;

    fn queued(id: u64, submit: i64, size: u32, estimate: i64) -> QueuedJob {
        QueuedJob {
            job: BatchJob {
                id: JobId(id),
                submit: Time(submit),
                size,
                runtime: Duration(estimate),
                estimate: Duration(estimate),
                class: JobClass::Rigid,
                resizable: None,
            },
            first_start: None,
            preemptions: 0,
            required_runtime: Duration(estimate),
        }
    }

    proptest! {
        /// Searches agree with a linear scan under any mix of inserts (in and out of order),
        /// removals and compactions.
        #[test]
        fn searches_match_a_linear_scan(
            ops in prop::collection::vec((0u8..4, 0i64..50, 1u32..20, 1i64..100, 0usize..200), 1..300),
            (units, small, max_est) in (1u32..20, 0u32..20, 0i64..100),
        ) {
            let mut q = JobQueue::default();
            let mut id = 0;
            for (op, submit, size, est, pick) in ops {
                match op {
                    0 | 1 => { id += 1; q.insert(queued(id, submit, size, est)); }
                    2 => {
                        let live: Vec<usize> = (0..q.end()).filter(|&p| q.is_live(p)).collect();
                        if !live.is_empty() { q.remove(live[pick % live.len()]); }
                    }
                    _ => q.finish_pass(),
                }
                let keys: Vec<_> = q.iter().map(|j| j.order_key()).collect();
                prop_assert!(keys.windows(2).all(|w| w[0] < w[1]));
                prop_assert_eq!(keys.len(), q.len());
                for from in 0..=q.end() {
                    let expect_live = (from..q.end()).find(|&p| q.is_live(p));
                    prop_assert_eq!(q.next_live(from), expect_live);
                    let expect = (from..q.end()).find(|&p| q.get(p).is_some_and(|j| {
                        j.size() <= units && (j.size() <= small || j.estimate().0 <= max_est)
                    }));
                    prop_assert_eq!(q.next_candidate(from, units, small, Duration(max_est)), expect);
                }
            }
        }
    }
}
