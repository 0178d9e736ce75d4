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
        if let Some(submits) = self.submits.get_mut() {
            submits.insert(job.job.id, job.job.submit);
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
        let job = self.entries[pos];
        if let Some(submits) = self.submits.get_mut() {
            submits.remove(&job.job.id);
        }
        job
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
        for pos in 0..q.end() {
            let leaf = q.tree[q.leaves + pos];
            let expected = match q.entries.get(pos) {
                Some(job) if leaf.len > 0 => Skyline::leaf((job.size(), job.estimate().0)),
                _ => Skyline::EMPTY,
            };
            prop_assert_eq!(leaf, expected, "leaf {} is stale", pos);
            let Some(&(size, estimate)) = leaf.points().first() else {
                continue;
            };
            let mut k = q.leaves + pos;
            while k > 1 {
                k /= 2;
                prop_assert!(
                    q.tree[k].admits(size, 0, estimate),
                    "node {} ({:?}) hides live entry {} ({}, {})",
                    k,
                    q.tree[k].points(),
                    pos,
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
