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
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

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

/// The smallest ring (and tree) the queue allocates.
const MIN_SLOTS: usize = 32;

/// The wait queue; see the [module docs](self).
#[derive(Debug, Default)]
pub(crate) struct JobQueue {
    /// A ring of `leaves` slots: the entry at position `p` lives in slot `p & (leaves - 1)`.
    /// Every position in `start..end` holds an entry (live or a tombstone), in (submit, id)
    /// order; the slots of other positions are dead.
    slots: Vec<QueuedJob>,
    /// Segment tree in heap layout over the slots: node `k` covers a range of slots, leaves
    /// start at `leaves`; the skyline of its live entries.
    tree: Vec<Skyline>,
    /// Slots in the ring, a power of two (0 before the first insertion).
    leaves: usize,
    /// The first position the ring holds.
    start: usize,
    /// One past the last position.
    end: usize,
    live: usize,
    /// The first live position (`end` if none).
    head: usize,
    /// Leaves removed since the last [`JobQueue::finish_pass`] whose ancestors still count them.
    /// A stale ancestor only over-approximates (it may admit a dead entry, never hides a live
    /// one), so searches stay exact: leaves are always current.
    stale: Vec<usize>,
    /// The submit time of every queued job by id, built on the first lookup by id (so a
    /// driver that never asks pays nothing) and kept up to date from then on.
    submits: OnceLock<FxHashMap<JobId, Time>>,
}

impl JobQueue {
    /// Live entries.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// One past the last position (live or not); positions are stable until an insertion.
    #[cfg(test)]
    pub(crate) fn end(&self) -> usize {
        self.end
    }

    /// The tree leaf of position `pos` (which the ring must hold).
    #[inline]
    fn leaf_of(&self, pos: usize) -> usize {
        self.leaves + (pos & (self.leaves - 1))
    }

    /// The live entry at `pos`.
    #[inline]
    pub(crate) fn get(&self, pos: usize) -> Option<&QueuedJob> {
        self.is_live(pos)
            .then(|| &self.slots[pos & (self.leaves - 1)])
    }

    #[inline]
    pub(crate) fn is_live(&self, pos: usize) -> bool {
        (self.head..self.end).contains(&pos) && self.tree[self.leaf_of(pos)].len > 0
    }

    /// The entry (live or not) at a position the ring holds.
    #[inline]
    fn entry(&self, pos: usize) -> &QueuedJob {
        &self.slots[pos & (self.leaves - 1)]
    }

    /// Live entries in queue order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &QueuedJob> + '_ {
        (self.head..self.end).filter_map(|pos| self.get(pos))
    }

    /// Inserts `job` at its (submit, id) place: an append in the common case, which moves no
    /// other entry; a rebuild (new positions) otherwise, or when the ring is full.
    pub(crate) fn insert(&mut self, job: QueuedJob) {
        // Appends rely on every node covering its children's points: repair first.
        self.repair_stale();
        let key = job.order_key();
        let appends = self.end == self.start || self.entry(self.end - 1).order_key() < key;
        if appends {
            // Positions before the head are all dead: the ring may drop them.
            self.start = self.head;
            if self.end - self.start == self.leaves {
                self.rebuild(None, job);
            }
            let pos = self.end;
            self.end += 1;
            if self.live == 0 {
                self.head = pos;
            }
            self.slots[pos & (self.leaves - 1)] = job;
            self.add_leaf(self.leaf_of(pos), (job.size(), job.estimate().0));
        } else {
            self.rebuild(Some(job), job);
        }
        if let Some(submits) = self.submits.get_mut() {
            submits.insert(job.job.id, job.job.submit);
        }
        self.live += 1;
    }

    /// Removes the live entry at `pos`, leaving a tombstone. Its ancestors are repaired by
    /// [`JobQueue::finish_pass`].
    pub(crate) fn remove(&mut self, pos: usize) -> QueuedJob {
        debug_assert!(self.is_live(pos));
        let leaf = self.leaf_of(pos);
        self.tree[leaf] = Skyline::EMPTY;
        self.stale.push(leaf);
        self.live -= 1;
        if pos == self.head {
            self.head = self.next_live(pos + 1).unwrap_or(self.end);
        }
        let job = *self.entry(pos);
        if let Some(submits) = self.submits.get_mut() {
            submits.remove(&job.job.id);
        }
        job
    }

    /// The first position in `start..end` whose entry's key is above `key` (`end` if none).
    fn partition_point(&self, key: (Time, JobId)) -> usize {
        let (mut lo, mut hi) = (self.start, self.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.entry(mid).order_key() <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The position of the first live entry whose key is above `key`, if any.
    pub(crate) fn next_live_after(&self, key: (Time, JobId)) -> Option<usize> {
        self.next_live(self.partition_point(key))
    }

    /// The live position of the entry with `key`, if it is queued.
    pub(crate) fn position_of(&self, key: (Time, JobId)) -> Option<usize> {
        let pos = self.partition_point(key).checked_sub(1)?;
        (self.get(pos)?.order_key() == key).then_some(pos)
    }

    /// The live position of the queued job `id`, if it is queued: O(1) expected plus a binary
    /// search, once an index by id is built (on the first call, in O(n)).
    pub(crate) fn position_of_id(&self, id: JobId) -> Option<usize> {
        let submits = self
            .submits
            .get_or_init(|| self.iter().map(|q| (q.job.id, q.job.submit)).collect());
        self.position_of((*submits.get(&id)?, id))
    }

    /// The first live position at or after `from`.
    #[inline]
    pub(crate) fn next_live(&self, from: usize) -> Option<usize> {
        self.find(from, |s| s.len > 0)
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
        self.find(from, |s| s.admits(units, small, max_estimate.0))
    }

    /// Ends a scheduling pass: repairs the ancestors of removed entries.
    pub(crate) fn finish_pass(&mut self) {
        self.repair_stale();
    }

    /// Repairs the ancestors of removed entries level by level, so that shared ancestors are
    /// merged once, stopping where a skyline does not change.
    fn repair_stale(&mut self) {
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

    /// Lays the live entries (and `extra`, at its place) out again from position 0 in a ring
    /// with room for as many again (dead slots hold copies of `filler`), and rebuilds the tree.
    fn rebuild(&mut self, extra: Option<QueuedJob>, filler: QueuedJob) {
        self.stale.clear();
        let mut entries: Vec<QueuedJob> = self.iter().copied().collect();
        if let Some(job) = extra {
            let at = entries.partition_point(|x| x.order_key() < job.order_key());
            entries.insert(at, job);
        }
        // Room for as many appends as there are entries before the next rebuild.
        self.leaves = (2 * (entries.len() + 1)).next_power_of_two().max(MIN_SLOTS);
        self.start = 0;
        self.head = 0;
        self.end = entries.len();
        self.slots = entries;
        self.slots.resize(self.leaves, filler);
        let leaves = self.leaves;
        self.tree.clear();
        self.tree.resize(2 * leaves, Skyline::EMPTY);
        for (pos, job) in self.slots[..self.end].iter().enumerate() {
            self.tree[leaves + pos] = Skyline::leaf((job.size(), job.estimate().0));
        }
        for k in (1..leaves).rev() {
            self.tree[k] = Skyline::merge(&self.tree[2 * k], &self.tree[2 * k + 1]);
        }
    }

    /// Sets a leaf to `point` and merges each changed node into its parent, stopping at the
    /// first parent that already covers the changed node's points (a fold can make a point no
    /// entry has, so the parent must cover the node, not just the new point). Every node then
    /// covers its children's points, which is what makes stopping there safe.
    #[inline]
    fn add_leaf(&mut self, mut k: usize, point: (u32, i64)) {
        let mut changed = Skyline::leaf(point);
        self.tree[k] = changed;
        while k > 1 {
            k /= 2;
            let node = &mut self.tree[k];
            if changed.points().iter().all(|p| node.admits(p.0, 0, p.1)) {
                break;
            }
            *node = Skyline::merge(node, &changed);
            changed = *node;
        }
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

    /// The first live position >= `from` whose leaf satisfies `pred` (which must hold for a
    /// node if it holds for a leaf below). The positions `from..end` are at most two runs of
    /// slots: to the end of the ring, then from its start.
    #[inline]
    fn find(&self, from: usize, pred: impl Fn(&Skyline) -> bool) -> Option<usize> {
        let from = from.max(self.head);
        if from >= self.end || !pred(&self.tree[1]) {
            return None;
        }
        let first = from & (self.leaves - 1);
        let count = self.end - from;
        let to_ring_end = self.leaves - first;
        // Slots past the run map to positions before `from`: bound the answer.
        if let Some(slot) = self.find_slot(first, &pred)
            && slot - first < count
        {
            return Some(from + (slot - first));
        }
        if count <= to_ring_end {
            return None;
        }
        let slot = self.find_slot(0, &pred)?;
        (slot < count - to_ring_end).then_some(from + to_ring_end + slot)
    }

    /// The first slot >= `from` whose leaf satisfies `pred`, searching only subtrees whose
    /// skyline satisfies it.
    fn find_slot(&self, from: usize, pred: &impl Fn(&Skyline) -> bool) -> Option<usize> {
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
            if pred(&self.tree[k])
                && let Some(slot) = self.descend(k, pred)
            {
                return Some(slot);
            }
        }
    }

    /// The leftmost leaf under `k` satisfying `pred`, if any (backtracking right on false
    /// alarms).
    fn descend(&self, k: usize, pred: &impl Fn(&Skyline) -> bool) -> Option<usize> {
        if k >= self.leaves {
            return pred(&self.tree[k]).then_some(k - self.leaves);
        }
        for child in [2 * k, 2 * k + 1] {
            if pred(&self.tree[child])
                && let Some(slot) = self.descend(child, pred)
            {
                return Some(slot);
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

    /// Every tree node's skyline is sorted by ascending size and strictly descending estimate,
    /// and covers each live leaf below it (some point at most as large in both), which is what
    /// keeps every search exact; leaves are exact.
    fn check_tree(q: &JobQueue) -> Result<(), TestCaseError> {
        for k in 1..q.tree.len() {
            let points = q.tree[k].points();
            prop_assert!(
                points
                    .windows(2)
                    .all(|w| w[0].0 < w[1].0 && w[0].1 > w[1].1),
                "node {} is not a skyline: {:?}",
                k,
                points
            );
        }
        let held = q.start..q.end;
        prop_assert!(held.contains(&q.head) || q.head == q.end);
        prop_assert!(held.len() <= q.leaves);
        prop_assert_eq!(q.slots.len(), q.leaves);
        for slot in 0..q.leaves {
            // The position the slot holds, if any.
            let pos = held.clone().find(|p| p & (q.leaves - 1) == slot);
            let leaf = q.tree[q.leaves + slot];
            let expected = match pos {
                Some(pos) if leaf.len > 0 => {
                    prop_assert!(pos >= q.head, "live position {} before the head {}", pos, q.head);
                    let job = q.entry(pos);
                    Skyline::leaf((job.size(), job.estimate().0))
                }
                _ => Skyline::EMPTY,
            };
            prop_assert_eq!(leaf, expected, "leaf of slot {} is stale", slot);
            let Some(&(size, estimate)) = leaf.points().first() else {
                continue;
            };
            let mut k = q.leaves + slot;
            while k > 1 {
                k /= 2;
                prop_assert!(
                    q.tree[k].admits(size, 0, estimate),
                    "node {} ({:?}) hides live slot {} ({}, {})",
                    k,
                    q.tree[k].points(),
                    slot,
                    size,
                    estimate
                );
            }
        }
        Ok(())
    }

    /// Every search from every position agrees with a linear scan, for `queries`.
    fn check_searches(q: &JobQueue, queries: &[(u32, u32, i64)]) -> Result<(), TestCaseError> {
        let end = q.end();
        // Answers for every start position at once, by a backward scan.
        let mut expect_live = vec![None; end + 1];
        for pos in (0..end).rev() {
            expect_live[pos] = if q.is_live(pos) {
                Some(pos)
            } else {
                expect_live[pos + 1]
            };
        }
        for (from, expect) in expect_live.iter().enumerate() {
            prop_assert_eq!(q.next_live(from), *expect);
        }
        for &(units, small, max_est) in queries {
            let mut expect = vec![None; end + 1];
            for pos in (0..end).rev() {
                let fits = q.get(pos).is_some_and(|j| {
                    j.size() <= units && (j.size() <= small || j.estimate().0 <= max_est)
                });
                expect[pos] = if fits { Some(pos) } else { expect[pos + 1] };
            }
            for (from, expect) in expect.iter().enumerate() {
                prop_assert_eq!(
                    q.next_candidate(from, units, small, Duration(max_est)),
                    *expect,
                    "from {} units {} small {} max {}",
                    from,
                    units,
                    small,
                    max_est
                );
            }
        }
        Ok(())
    }

    /// Queries at the boundaries the queued jobs define (their sizes and estimates, and one
    /// either side), plus the given random ones.
    fn boundary_queries(
        q: &JobQueue,
        picks: &[usize],
        random: &[(u32, u32, i64)],
    ) -> Vec<(u32, u32, i64)> {
        let live: Vec<&QueuedJob> = q.iter().collect();
        let mut queries = random.to_vec();
        if live.is_empty() {
            return queries;
        }
        for (i, &pick) in picks.iter().enumerate() {
            let a = live[pick % live.len()];
            let b = live[pick / 3 % live.len()];
            let shift = (i % 3) as i64 - 1;
            let units = a.size().saturating_add_signed(shift as i32).max(1);
            let small = if i % 2 == 0 {
                0
            } else {
                b.size().saturating_add_signed(-1)
            };
            queries.push((units, small, b.estimate().0 + shift));
        }
        queries
    }

    #[derive(Clone, Debug)]
    enum QueueOp {
        /// A job behind the last one, `gap` seconds later (often 0: equal submit times).
        Append { gap: i64, size: u32, estimate: i64 },
        /// A job at any place (a requeue after preemption): rebuilds the tree.
        InsertAnywhere {
            submit: i64,
            size: u32,
            estimate: i64,
        },
        /// Removes a live entry, as a cancellation does.
        Remove(usize),
        /// Removes the first candidate for a query from a position, as a backfilling pass does.
        Backfill {
            from: usize,
            units: u32,
            small: u32,
            max: i64,
        },
        /// Ends a pass.
        FinishPass,
    }

    /// Sizes from 1 to 1,024 and estimates from 0 to 10^6, both log-uniform so that equal and
    /// near-equal values are common at the small end and skylines fold at every level.
    fn size() -> impl Strategy<Value = u32> {
        (0u32..=10, 0u32..1024)
            .prop_map(|(bits, r)| (1 << bits) + r % (1 << bits))
            .prop_map(|s| s.min(1024))
    }

    fn estimate() -> impl Strategy<Value = i64> {
        (0u32..=20, 0i64..(1 << 20))
            .prop_map(|(bits, r)| ((1i64 << bits) - 1 + r % (1i64 << bits)).min(1_000_000))
    }

    fn queue_op() -> impl Strategy<Value = QueueOp> {
        prop_oneof![
            8 => (prop_oneof![3 => Just(0i64), 1 => 1i64..5], size(), estimate())
                .prop_map(|(gap, size, estimate)| QueueOp::Append { gap, size, estimate }),
            1 => (0i64..400, size(), estimate())
                .prop_map(|(submit, size, estimate)| QueueOp::InsertAnywhere { submit, size, estimate }),
            3 => (0usize..1000).prop_map(QueueOp::Remove),
            4 => (0usize..1000, size(), size(), estimate())
                .prop_map(|(from, units, small, max)| QueueOp::Backfill { from, units, small: small / 4, max }),
            2 => Just(QueueOp::FinishPass),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(160))]

        /// The tree keeps its invariants and every search agrees with a linear scan, at
        /// boundary and random queries, under any mix of appends (often at equal submit
        /// times), out-of-order inserts, removals anywhere, backfilling removals between
        /// repairs, pass ends and compactions.
        #[test]
        fn searches_match_a_linear_scan(
            ops in prop::collection::vec(queue_op(), 1..400),
            picks in prop::collection::vec(0usize..10_000, 6),
            random in prop::collection::vec((size(), size(), estimate()), 2),
        ) {
            let mut q = JobQueue::default();
            let mut id = 0;
            let mut last_submit = 0;
            for op in ops {
                match op {
                    QueueOp::Append { gap, size, estimate } => {
                        id += 1;
                        last_submit += gap;
                        q.insert(queued(id, last_submit, size, estimate));
                    }
                    QueueOp::InsertAnywhere { submit, size, estimate } => {
                        id += 1;
                        last_submit = last_submit.max(submit);
                        q.insert(queued(id, submit, size, estimate));
                    }
                    QueueOp::Remove(pick) => {
                        let live: Vec<usize> = (0..q.end()).filter(|&p| q.is_live(p)).collect();
                        if !live.is_empty() {
                            q.remove(live[pick % live.len()]);
                        }
                    }
                    QueueOp::Backfill { from, units, small, max } => {
                        let from = from % (q.end() + 1);
                        if let Some(pos) = q.next_candidate(from, units, small, Duration(max)) {
                            q.remove(pos);
                        }
                    }
                    QueueOp::FinishPass => q.finish_pass(),
                }
                let keys: Vec<_> = q.iter().map(|j| j.order_key()).collect();
                prop_assert!(keys.windows(2).all(|w| w[0] < w[1]));
                prop_assert_eq!(keys.len(), q.len());
                check_tree(&q)?;
                check_searches(&q, &boundary_queries(&q, &picks, &random))?;
            }
        }
    }
}
