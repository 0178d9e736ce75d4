//! The wait queue: jobs in (submit, id) order, with fast removal anywhere and fast search for
//! the next job that could start.
//!
//! Entries live in a ring of slots at positions that stay stable until the next insertion; a
//! removed entry becomes a tombstone, and the positions before the first live entry are
//! dropped as the queue moves on. An entry that goes in ahead of the last one (a preempted
//! job requeued at its submit time) takes the nearest dead position by moving the entries in
//! between one place, so a requeue near a tombstone costs little. A full ring is laid out
//! again, live entries only, in a ring twice their number (amortised O(1) per insertion). Slots are grouped in buckets of
//! [`BUCKET`]; a segment tree over the buckets keeps, per subtree, the **skyline** of its live
//! entries' (size, estimate) pairs — the pairs no other pair beats in both — so a backfilling
//! scan jumps straight to the next bucket that may hold an entry fitting both bounds, and scans
//! its few slots, instead of visiting every waiting job. A skyline holds up to
//! [`SKYLINE_POINTS`] points; a longer one folds its tail into one point that bounds it from
//! below, which keeps the search conservative (never missing an entry) in the tree and exact
//! in the slots. A ring of at most [`UNINDEXED_SLOTS`] keeps no tree: its few slots are
//! scanned, and its insertions and removals maintain no bounds.
//!
//! The same tree keeps, per subtree, a [`Resizable`] bound: the smallest requested size and
//! the smallest accepted size among its live resizable (malleable) entries, so that a scan
//! for malleable jobs that fit jumps over the rigid ones. And each bucket counts its live
//! entries, so that the k-th queued job is found in O(k / [`BUCKET`]) without visiting the
//! entries before it.

use crate::cluster::QueuedJob;
use crate::profile::Staircase;
use cosched_core::{Duration, JobId, Time};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Sizes and estimates of a dead or empty slot: larger than any real bound.
const DEAD: (u32, i64) = (u32::MAX, i64::MAX);

/// Points a node's skyline keeps before folding its tail.
pub(crate) const SKYLINE_POINTS: usize = 3;

/// Slots per tree leaf: a bucket's few (size, estimate) pairs are scanned directly, which
/// keeps the tree small (it fits the L1 cache for queues of thousands) and shallow.
const BUCKET: usize = 8;

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

    /// Whether some point is at most `point` in both size and estimate.
    #[inline]
    fn covers(&self, point: (u32, i64)) -> bool {
        self.admits(point.0, 0, point.1)
    }

    /// Adds a point that comes after every point added so far in (size, estimate) order.
    #[inline]
    fn push_sorted(&mut self, p: (u32, i64)) {
        let n = usize::from(self.len);
        if n > 0 && p.1 >= self.points[n - 1].1 {
            return; // dominated by a smaller-or-equal size with a smaller-or-equal estimate
        }
        if n < SKYLINE_POINTS {
            self.points[n] = p;
            self.len += 1;
        } else {
            // Fold: the last point keeps its size and takes the smaller estimate, so it still
            // bounds every folded point from below.
            self.points[n - 1].1 = p.1;
        }
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
        while i < a.len() || j < b.len() {
            if j == b.len() || (i < a.len() && a[i] <= b[j]) {
                out.push_sorted(a[i]);
                i += 1;
            } else {
                out.push_sorted(b[j]);
                j += 1;
            }
        }
        out
    }

    /// [`Skyline::merge`] with the skyline of the one point `p`: the points up to `p`, then
    /// `p`, then the rest, each through [`Skyline::push_sorted`] as the merge would.
    #[inline]
    fn with_point(&self, p: (u32, i64)) -> Skyline {
        let points = self.points();
        let at = points.partition_point(|&q| q <= p);
        let mut out = Skyline::EMPTY;
        for &q in &points[..at] {
            out.push_sorted(q);
        }
        out.push_sorted(p);
        for &q in &points[at..] {
            out.push_sorted(q);
        }
        out
    }

    /// The skyline of a bucket's slots (dead ones left out).
    #[inline]
    fn of_bucket(slots: &[(u32, i64)]) -> Skyline {
        let mut out = Skyline::EMPTY;
        for &p in slots {
            if p != DEAD && !out.covers(p) {
                out = out.with_point(p);
            }
        }
        out
    }
}

/// The smallest requested size and the smallest accepted size among a subtree's live
/// resizable entries ([`Resizable::NONE`] for a subtree with none): a lower bound, so a node
/// that is not up to date only admits more (a search stays exact, as with skylines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resizable {
    size: u32,
    min_size: u32,
}

impl Resizable {
    const NONE: Resizable = Resizable {
        size: u32::MAX,
        min_size: u32::MAX,
    };

    /// The bound of one entry: [`Resizable::NONE`] unless it is resizable.
    #[inline]
    fn of(job: &QueuedJob) -> Resizable {
        job.job.resizable.map_or(Resizable::NONE, |r| Resizable {
            size: job.size(),
            min_size: r.min,
        })
    }

    /// The bound of the union of two subtrees.
    #[inline]
    fn merge(a: Resizable, b: Resizable) -> Resizable {
        Resizable {
            size: a.size.min(b.size),
            min_size: a.min_size.min(b.min_size),
        }
    }

    /// Whether an entry within the bound may request at most `max_size` units and accept
    /// at most `max_min_size`.
    #[inline]
    fn admits(self, max_size: u32, max_min_size: u32) -> bool {
        self.size <= max_size && self.min_size <= max_min_size
    }
}

/// The smallest ring the queue allocates.
const MIN_SLOTS: usize = 32;

/// The largest ring kept without the tree: its searches scan the slots, and insertions and
/// removals maintain no bounds. Most passes see a short queue (on CEA-Curie under EASY, three
/// arrivals in four find fewer than 32 jobs waiting), where keeping skylines up to date costs
/// more than the scans they save. Longer rings keep the tree, and so does every ring laid out
/// after a search under a staircase ([`JobQueue::next_under`]): conservative backfilling
/// searches the queue once per job it plans, where a scan of every slot costs more than the
/// bounds. The crate's unit tests keep a tree from 64 slots on, so that their queues, mostly
/// shorter than 128 jobs, exercise both layouts.
const UNINDEXED_SLOTS: usize = if cfg!(test) { 32 } else { 128 };

/// The wait queue; see the [module docs](self).
#[derive(Debug, Default)]
pub(crate) struct JobQueue {
    /// A ring of slots (a power of two, 0 before the first insertion): the entry at position
    /// `p` lives in slot `p & (ring - 1)`. Every position in `start..end` holds an entry (live
    /// or a tombstone), in (submit, id) order; the slots of other positions are dead.
    slots: Vec<QueuedJob>,
    /// The (size, estimate) of each slot's entry if it is live, else [`DEAD`].
    points: Vec<(u32, i64)>,
    /// The [`Resizable`] bound of each slot's entry if it is live and resizable, else
    /// [`Resizable::NONE`] (kept beside `points` so that a repair reads no job).
    flex: Vec<Resizable>,
    /// Segment tree in heap layout over the buckets: node `k` covers a range of buckets,
    /// leaves start at `leaves`; a skyline that covers every live entry below it. Empty for a
    /// ring of at most [`UNINDEXED_SLOTS`], which is searched slot by slot.
    tree: Vec<Skyline>,
    /// The [`Resizable`] bound of each tree node, in the same layout as `tree`, kept up to
    /// date by the same repairs.
    resizable: Vec<Resizable>,
    /// Live entries per bucket.
    counts: Vec<u8>,
    /// Buckets in the ring.
    leaves: usize,
    /// The first position the ring holds.
    start: usize,
    /// One past the last position.
    end: usize,
    live: usize,
    /// The first live position (`end` if none).
    head: usize,
    /// Tree leaves with a removal since the last [`JobQueue::finish_pass`]: they and their
    /// ancestors may still count removed entries. A stale node only over-approximates (it may
    /// admit a dead entry, never hides a live one), so searches stay exact: slots are always
    /// current.
    stale: Vec<usize>,
    /// The submit time of every queued job by id, built on the first lookup by id (so a
    /// driver that never asks pays nothing) and kept up to date from then on.
    submits: OnceLock<FxHashMap<JobId, Time>>,
    /// Whether [`JobQueue::next_under`] has searched the queue: from the next layout on, the
    /// ring keeps its tree whatever its length.
    searched_under: AtomicBool,
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

    /// The slot of position `pos`.
    #[inline]
    fn slot(&self, pos: usize) -> usize {
        pos & (self.slots.len() - 1)
    }

    /// Whether the ring has its tree (it is longer than [`UNINDEXED_SLOTS`]).
    #[inline]
    fn indexed(&self) -> bool {
        !self.tree.is_empty()
    }

    /// The tree leaf over `slot`.
    #[inline]
    fn leaf_of(&self, slot: usize) -> usize {
        self.leaves + slot / BUCKET
    }

    /// The live entry at `pos`.
    #[inline]
    pub(crate) fn get(&self, pos: usize) -> Option<&QueuedJob> {
        self.is_live(pos).then(|| self.entry(pos))
    }

    #[inline]
    pub(crate) fn is_live(&self, pos: usize) -> bool {
        (self.head..self.end).contains(&pos) && self.points[self.slot(pos)] != DEAD
    }

    /// The entry (live or not) at a position the ring holds.
    #[inline]
    fn entry(&self, pos: usize) -> &QueuedJob {
        &self.slots[self.slot(pos)]
    }

    /// Live entries in queue order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &QueuedJob> + '_ {
        (self.head..self.end).filter_map(|pos| self.get(pos))
    }

    /// Inserts `job` at its (submit, id) place: an append in the common case, which moves no
    /// other entry; otherwise (a requeue) the entries between its place and the nearest dead
    /// position move one place towards it, which changes their positions; a rebuild (new
    /// positions) only when the ring is full and has no dead position.
    pub(crate) fn insert(&mut self, job: QueuedJob) {
        // Appends rely on every node covering its children's points: repair first.
        self.repair_stale();
        let key = job.order_key();
        let appends = self.end == self.start || self.entry(self.end - 1).order_key() < key;
        if appends {
            // Positions before the head are all dead: the ring may drop them.
            self.start = self.head;
            if self.end - self.start == self.slots.len() {
                self.rebuild(None, job);
            }
            let pos = self.end;
            self.end += 1;
            if self.live == 0 {
                self.head = pos;
            }
            let slot = self.slot(pos);
            let point = (job.size(), job.estimate().0);
            let flex = Resizable::of(&job);
            self.slots[slot] = job;
            self.points[slot] = point;
            self.flex[slot] = flex;
            self.counts[slot / BUCKET] += 1;
            if self.indexed() {
                let leaf = self.leaf_of(slot);
                self.add_point(leaf, point);
                self.add_resizable(leaf, flex);
            }
        } else {
            self.insert_inside(job);
        }
        if let Some(submits) = self.submits.get_mut() {
            submits.insert(job.job.id, job.job.submit);
        }
        self.live += 1;
    }

    /// Inserts `job` ahead of the last entry: the entries between its place and the nearest
    /// dead position (a tombstone, or the room behind the last entry) move one place into
    /// it, O(distance / [`BUCKET`]) to find and O(distance + log n) to move and repair.
    fn insert_inside(&mut self, job: QueuedJob) {
        let at = self.partition_point(job.order_key());
        let (before, from) = (self.dead_before(at), self.dead_from(at));
        // The nearer dead position; the one before on a tie.
        let down = match (before, from) {
            (Some(b), Some(f)) => (at - 1 - b <= f - at).then_some(b),
            (b, _) => b,
        };
        let pos = match (down, from) {
            (Some(dead), _) => {
                // Entries `dead + 1..at` move down one place; `job` takes `at - 1`.
                for p in dead + 1..at {
                    self.move_entry(p, p - 1);
                }
                if (dead + 1..at).contains(&self.head) {
                    self.head -= 1;
                }
                self.mark_moved(dead..at);
                at - 1
            }
            (_, Some(dead)) => {
                // Entries `at..dead` move up one place; `job` takes `at` (the head if any
                // of them was).
                for p in (at..dead).rev() {
                    self.move_entry(p, p + 1);
                }
                self.end = self.end.max(dead + 1);
                self.mark_moved(at..dead + 1);
                at
            }
            (None, None) => {
                self.rebuild(Some(job), job);
                return;
            }
        };
        let slot = self.slot(pos);
        self.slots[slot] = job;
        self.points[slot] = (job.size(), job.estimate().0);
        self.flex[slot] = Resizable::of(&job);
        self.head = self.head.min(pos);
        // The moved range's buckets: counts now, bounds through a repair.
        self.recount(pos..pos + 1);
        self.repair_stale();
    }

    /// Moves the entry (live or not) at position `from` to the position `to`, whose slot the
    /// caller has freed.
    #[inline]
    fn move_entry(&mut self, from: usize, to: usize) {
        let (a, b) = (self.slot(from), self.slot(to));
        self.slots[b] = self.slots[a];
        self.points[b] = self.points[a];
        self.flex[b] = self.flex[a];
    }

    /// Marks the leaves over the positions `range` for repair and recounts their buckets.
    fn mark_moved(&mut self, range: std::ops::Range<usize>) {
        if self.indexed() {
            for pos in range.clone() {
                let leaf = self.leaf_of(self.slot(pos));
                if self.stale.last() != Some(&leaf) {
                    self.stale.push(leaf);
                }
            }
        }
        self.recount(range);
    }

    /// Counts again the live slots of the buckets over the positions `range`.
    fn recount(&mut self, range: std::ops::Range<usize>) {
        for pos in range {
            let bucket = self.slot(pos) / BUCKET;
            let first = bucket * BUCKET;
            // At most BUCKET (8) live slots.
            self.counts[bucket] = self.points[first..first + BUCKET]
                .iter()
                .filter(|&&p| p != DEAD)
                .count() as u8;
        }
    }

    /// The last dead position the ring holds before `at`, if any.
    fn dead_before(&self, at: usize) -> Option<usize> {
        let mut pos = at;
        while pos > self.start {
            let last = pos - 1;
            let slot = self.slot(last);
            // A whole bucket `last + 1 - BUCKET..=last` of live entries: skip it.
            if slot % BUCKET == BUCKET - 1
                && last + 1 >= self.start + BUCKET
                && usize::from(self.counts[slot / BUCKET]) == BUCKET
            {
                pos -= BUCKET;
                continue;
            }
            if self.points[slot] == DEAD {
                return Some(last);
            }
            pos = last;
        }
        None
    }

    /// The first dead position at or after `at` the ring holds, or the position behind the
    /// last entry if the ring has room for it.
    fn dead_from(&self, at: usize) -> Option<usize> {
        let mut pos = at;
        while pos < self.end {
            let slot = self.slot(pos);
            if slot.is_multiple_of(BUCKET)
                && pos + BUCKET <= self.end
                && usize::from(self.counts[slot / BUCKET]) == BUCKET
            {
                pos += BUCKET;
                continue;
            }
            if self.points[slot] == DEAD {
                return Some(pos);
            }
            pos += 1;
        }
        (self.end - self.start < self.slots.len()).then_some(self.end)
    }

    /// Removes the live entry at `pos`, leaving a tombstone. Its ancestors are repaired by
    /// [`JobQueue::finish_pass`].
    pub(crate) fn remove(&mut self, pos: usize) -> QueuedJob {
        debug_assert!(self.is_live(pos));
        let slot = self.slot(pos);
        let point = std::mem::replace(&mut self.points[slot], DEAD);
        let flex = std::mem::replace(&mut self.flex[slot], Resizable::NONE);
        if self.indexed() {
            // A skyline takes each coordinate of its points from some entry: one that shares
            // neither with the entry removed is what a repair would give again. (Skipping a
            // repair is always safe, only less precise: a skyline never hides what it
            // covered.)
            let leaf = self.leaf_of(slot);
            let on_skyline = self.tree[leaf]
                .points()
                .iter()
                .any(|q| q.0 == point.0 || q.1 == point.1);
            // Likewise for the resizable bound: only an entry that sets it can loosen it.
            let sets_bound = flex != Resizable::NONE && {
                let bound = self.resizable[leaf];
                flex.size == bound.size || flex.min_size == bound.min_size
            };
            if (on_skyline || sets_bound) && self.stale.last() != Some(&leaf) {
                self.stale.push(leaf);
            }
        }
        self.counts[slot / BUCKET] -= 1;
        self.live -= 1;
        if pos == self.head {
            self.head = self.next_live(pos + 1).unwrap_or(self.end);
        }
        let job = self.slots[slot];
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
        self.find(from, |k| self.tree[k].len > 0, |_, p| p != DEAD)
    }

    /// The position of the live entry `rank` places behind the head (the head for 0), if
    /// the queue has that many: O(rank / [`BUCKET`]) through the buckets' live counts.
    pub(crate) fn nth_live(&self, rank: usize) -> Option<usize> {
        let mut left = rank;
        let mut pos = self.head;
        while pos < self.end {
            let slot = self.slot(pos);
            // A whole bucket ahead: its positions are `pos..pos + BUCKET`, all held.
            if slot.is_multiple_of(BUCKET) && pos + BUCKET <= self.end {
                let count = usize::from(self.counts[slot / BUCKET]);
                if left >= count {
                    left -= count;
                    pos += BUCKET;
                    continue;
                }
            }
            if self.points[slot] != DEAD {
                if left == 0 {
                    return Some(pos);
                }
                left -= 1;
            }
            pos += 1;
        }
        None
    }

    /// The first live position at or after `from` whose job is resizable, requests at most
    /// `max_size` units and accepts at most `max_min_size` (its smallest size).
    #[inline]
    pub(crate) fn next_resizable(
        &self,
        from: usize,
        max_size: u32,
        max_min_size: u32,
    ) -> Option<usize> {
        self.find(
            from,
            |k| self.resizable[k].admits(max_size, max_min_size),
            |slot, _| self.flex[slot].admits(max_size, max_min_size),
        )
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
        let max = max_estimate.0;
        self.find(
            from,
            |k| self.tree[k].admits(units, small, max),
            |_, p| p != DEAD && p.0 <= units && (p.0 <= small || p.1 <= max),
        )
    }

    /// The first live position at or after `from` whose job fits under `stairs` (its size
    /// for its estimate).
    #[inline]
    pub(crate) fn next_under(&self, from: usize, stairs: &Staircase) -> Option<usize> {
        self.searched_under.store(true, Ordering::Relaxed);
        self.find(
            from,
            |k| {
                self.tree[k]
                    .points()
                    .iter()
                    .any(|p| stairs.admits(p.0, p.1))
            },
            |_, p| p != DEAD && stairs.admits(p.0, p.1),
        )
    }

    /// Ends a scheduling pass: repairs the tree where entries were removed.
    pub(crate) fn finish_pass(&mut self) {
        self.repair_stale();
    }

    /// Recomputes the stale leaves from their slots, then their ancestors level by level (so
    /// that shared ancestors are merged once), stopping where their bounds do not change.
    fn repair_stale(&mut self) {
        if let [leaf] = self.stale[..] {
            // One removal (the common pass): a plain walk up.
            self.stale.clear();
            if self.refresh_leaf(leaf) {
                self.repair_from(leaf);
            }
            return;
        }
        if self.stale.is_empty() {
            return;
        }
        let mut nodes = std::mem::take(&mut self.stale);
        // Passes start jobs in queue order, so this is usually sorted already; halving keeps
        // it sorted, so one sort serves every level.
        if !nodes.is_sorted() {
            nodes.sort_unstable();
        }
        nodes.dedup();
        nodes.retain(|&k| self.refresh_leaf(k));
        while !nodes.is_empty() {
            for k in &mut nodes {
                *k /= 2;
            }
            nodes.dedup();
            // A node whose bounds did not change gives its parent nothing to redo.
            nodes.retain(|&k| k >= 1 && self.refresh_inner(k) && k > 1);
        }
        self.stale = nodes;
    }

    /// Recomputes leaf `k` from its bucket's slots; whether it changed.
    #[inline]
    fn refresh_leaf(&mut self, k: usize) -> bool {
        let first = (k - self.leaves) * BUCKET;
        let skyline = Skyline::of_bucket(&self.points[first..first + BUCKET]);
        let resizable = self.resizable_of_bucket(first);
        let changed = self.tree[k] != skyline || self.resizable[k] != resizable;
        self.tree[k] = skyline;
        self.resizable[k] = resizable;
        changed
    }

    /// Recomputes inner node `k` from its children; whether it changed.
    #[inline]
    fn refresh_inner(&mut self, k: usize) -> bool {
        let skyline = Skyline::merge(&self.tree[2 * k], &self.tree[2 * k + 1]);
        let resizable = Resizable::merge(self.resizable[2 * k], self.resizable[2 * k + 1]);
        let changed = self.tree[k] != skyline || self.resizable[k] != resizable;
        self.tree[k] = skyline;
        self.resizable[k] = resizable;
        changed
    }

    /// The [`Resizable`] bound of the live entries of the bucket starting at slot `first`.
    #[inline]
    fn resizable_of_bucket(&self, first: usize) -> Resizable {
        self.flex[first..first + BUCKET]
            .iter()
            .fold(Resizable::NONE, |bound, &flex| {
                Resizable::merge(bound, flex)
            })
    }

    /// Lays the live entries (and `extra`, at its place) out again from position 0 in a ring
    /// with room for as many again (dead slots hold copies of `filler`), and rebuilds the tree
    /// (none for a ring of at most [`UNINDEXED_SLOTS`]).
    fn rebuild(&mut self, extra: Option<QueuedJob>, filler: QueuedJob) {
        self.stale.clear();
        let mut entries: Vec<QueuedJob> = self.iter().copied().collect();
        if let Some(job) = extra {
            let at = entries.partition_point(|x| x.order_key() < job.order_key());
            entries.insert(at, job);
        }
        // Room for as many appends as there are entries before the next rebuild.
        let ring = (2 * (entries.len() + 1)).next_power_of_two().max(MIN_SLOTS);
        self.start = 0;
        self.head = 0;
        self.end = entries.len();
        self.points.clear();
        self.points
            .extend(entries.iter().map(|j| (j.size(), j.estimate().0)));
        self.points.resize(ring, DEAD);
        self.flex.clear();
        self.flex.extend(entries.iter().map(Resizable::of));
        self.flex.resize(ring, Resizable::NONE);
        self.slots = entries;
        self.slots.resize(ring, filler);
        let leaves = ring / BUCKET;
        self.leaves = leaves;
        self.tree.clear();
        self.resizable.clear();
        self.counts.clear();
        // At most BUCKET (8) live slots each.
        self.counts.extend(
            self.points
                .chunks_exact(BUCKET)
                .map(|points| points.iter().filter(|&&p| p != DEAD).count() as u8),
        );
        if ring <= UNINDEXED_SLOTS && !self.searched_under.load(Ordering::Relaxed) {
            return;
        }
        self.tree.resize(2 * leaves, Skyline::EMPTY);
        self.resizable.resize(2 * leaves, Resizable::NONE);
        for bucket in 0..leaves {
            let first = bucket * BUCKET;
            self.tree[leaves + bucket] = Skyline::of_bucket(&self.points[first..first + BUCKET]);
            self.resizable[leaves + bucket] = self.resizable_of_bucket(first);
        }
        for k in (1..leaves).rev() {
            self.refresh_inner(k);
        }
    }

    /// Recomputes the ancestors of node `k` from their children, stopping where their bounds
    /// do not change.
    #[inline]
    fn repair_from(&mut self, mut k: usize) {
        while k > 1 {
            k /= 2;
            if !self.refresh_inner(k) {
                break;
            }
        }
    }

    /// Lowers the [`Resizable`] bounds of leaf `k` and its ancestors to admit `bound`,
    /// stopping at the first node that already does (its ancestors then do too: every node
    /// is at most the merge of its children).
    #[inline]
    fn add_resizable(&mut self, mut k: usize, bound: Resizable) {
        if bound == Resizable::NONE {
            return;
        }
        loop {
            let merged = Resizable::merge(self.resizable[k], bound);
            if merged == self.resizable[k] {
                return;
            }
            self.resizable[k] = merged;
            if k <= 1 {
                return;
            }
            k /= 2;
        }
    }

    /// Adds `point` to leaf `k` and merges each changed node into its parent, stopping at the
    /// first parent that already covers the changed node's points (a fold can make a point no
    /// entry has, so the parent must cover the node, not just the new point). Every node then
    /// covers its children's points, which is what makes stopping there safe.
    #[inline]
    fn add_point(&mut self, mut k: usize, point: (u32, i64)) {
        if self.tree[k].covers(point) {
            return;
        }
        let mut changed = self.tree[k].with_point(point);
        self.tree[k] = changed;
        while k > 1 {
            k /= 2;
            let node = &mut self.tree[k];
            if changed.points().iter().all(|&p| node.covers(p)) {
                break;
            }
            *node = Skyline::merge(node, &changed);
            changed = *node;
        }
    }

    /// The first live position >= `from` whose slot satisfies `fits` (given the slot and its
    /// point; tree nodes, by index, that may hold one satisfy `may_fit`). The positions
    /// `from..end` are at most two runs of slots: to the end of the ring, then from its start.
    #[inline]
    fn find(
        &self,
        from: usize,
        may_fit: impl Fn(usize) -> bool,
        fits: impl Fn(usize, (u32, i64)) -> bool,
    ) -> Option<usize> {
        let from = from.max(self.head);
        if from >= self.end {
            return None;
        }
        let first = self.slot(from);
        let count = self.end - from;
        let to_ring_end = self.slots.len() - first;
        if !self.indexed() {
            // A short ring: its slots in position order, to the ring's end and then from its
            // start.
            let scan = |slots: std::ops::Range<usize>| {
                slots.into_iter().find(|&s| fits(s, self.points[s]))
            };
            if let Some(slot) = scan(first..first + count.min(to_ring_end)) {
                return Some(from + (slot - first));
            }
            return (count > to_ring_end)
                .then(|| scan(0..count - to_ring_end))
                .flatten()
                .map(|slot| from + to_ring_end + slot);
        }
        // Slots past the run hold positions before `from`: bound the answer.
        if let Some(slot) = self.find_slot(first, &may_fit, &fits)
            && slot - first < count
        {
            return Some(from + (slot - first));
        }
        if count <= to_ring_end {
            return None;
        }
        let slot = self.find_slot(0, &may_fit, &fits)?;
        (slot < count - to_ring_end).then_some(from + to_ring_end + slot)
    }

    /// The first slot >= `from` that `fits`: the rest of its bucket, then the buckets the
    /// tree says `may_fit`.
    #[inline]
    fn find_slot(
        &self,
        from: usize,
        may_fit: &impl Fn(usize) -> bool,
        fits: &impl Fn(usize, (u32, i64)) -> bool,
    ) -> Option<usize> {
        let mut bucket = from / BUCKET;
        let bucket_end = (bucket + 1) * BUCKET;
        if let Some(i) = self.points[from..bucket_end]
            .iter()
            .enumerate()
            .position(|(i, &p)| fits(from + i, p))
        {
            return Some(from + i);
        }
        // The root bounds the whole queue: most futile searches end here.
        if !may_fit(1) {
            return None;
        }
        loop {
            bucket = self.find_bucket(bucket + 1, may_fit)?;
            let first = bucket * BUCKET;
            if let Some(i) = self.points[first..first + BUCKET]
                .iter()
                .enumerate()
                .position(|(i, &p)| fits(first + i, p))
            {
                return Some(first + i);
            }
        }
    }

    /// The first bucket >= `from` whose leaf satisfies `may_fit`, searching only subtrees
    /// whose skyline satisfies it.
    fn find_bucket(&self, from: usize, may_fit: &impl Fn(usize) -> bool) -> Option<usize> {
        if from >= self.leaves {
            return None;
        }
        // Walk up from the leaf, visiting the right siblings of the path in order.
        let mut k = self.leaves + from;
        if may_fit(k) {
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
            if may_fit(k)
                && let Some(bucket) = self.descend(k, may_fit)
            {
                return Some(bucket);
            }
        }
    }

    /// The leftmost leaf under `k` satisfying `may_fit`, if any (backtracking right on false
    /// alarms).
    fn descend(&self, k: usize, may_fit: &impl Fn(usize) -> bool) -> Option<usize> {
        if k >= self.leaves {
            return may_fit(k).then_some(k - self.leaves);
        }
        for child in [2 * k, 2 * k + 1] {
            if may_fit(child)
                && let Some(bucket) = self.descend(child, may_fit)
            {
                return Some(bucket);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BatchJob, SizeRange};
    use cosched_core::{JobClass, JobId, Time};
    use proptest::prelude::*;

    /// A queued job; malleable down to `min_size` if given (capped at `size`).
    fn queued(id: u64, submit: i64, size: u32, estimate: i64, min_size: Option<u32>) -> QueuedJob {
        QueuedJob {
            job: BatchJob {
                id: JobId(id),
                submit: Time(submit),
                size,
                runtime: Duration(estimate),
                estimate: Duration(estimate),
                class: JobClass::Rigid,
                resizable: min_size.map(|min| SizeRange {
                    min: min.clamp(1, size),
                    max: size,
                    setup: Duration::ZERO,
                }),
            },
            first_start: None,
            preemptions: 0,
            required_runtime: Duration(estimate),
        }
    }

    /// Every tree node's skyline is sorted by ascending size and strictly descending estimate,
    /// each slot's point is its entry's if live and dead otherwise, every tree node above
    /// a live slot covers its point (some point at most as large in both) and its resizable
    /// bound (if any), which is what keeps every search exact, and each bucket counts its live
    /// slots.
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
        prop_assert!(held.len() <= q.slots.len());
        prop_assert_eq!(q.points.len(), q.slots.len());
        prop_assert_eq!(q.flex.len(), q.slots.len());
        prop_assert_eq!(q.leaves * BUCKET, q.slots.len());
        // A long ring has its tree; a short one only after a search under a staircase.
        prop_assert!(q.indexed() || q.slots.len() <= UNINDEXED_SLOTS);
        prop_assert!(
            !q.indexed()
                || q.slots.len() > UNINDEXED_SLOTS
                || q.searched_under.load(Ordering::Relaxed)
        );
        prop_assert!(q.indexed() || q.stale.is_empty());
        let mut live = 0;
        for slot in 0..q.slots.len() {
            // The position the slot holds, if any.
            let pos = held.clone().find(|&p| q.slot(p) == slot);
            let point = q.points[slot];
            if point == DEAD {
                prop_assert_eq!(q.flex[slot], Resizable::NONE, "dead slot {}", slot);
                continue;
            }
            live += 1;
            let Some(pos) = pos else {
                return Err(TestCaseError::fail(format!(
                    "slot {slot} is live outside the ring"
                )));
            };
            prop_assert!(
                pos >= q.head,
                "live position {} before the head {}",
                pos,
                q.head
            );
            let job = q.entry(pos);
            prop_assert_eq!(point, (job.size(), job.estimate().0));
            let mut k = q.leaf_of(slot);
            let bound = Resizable::of(job);
            prop_assert_eq!(q.flex[slot], bound, "slot {}", slot);
            while q.indexed() {
                prop_assert!(
                    q.tree[k].covers(point),
                    "node {} ({:?}) hides live slot {} {:?}",
                    k,
                    q.tree[k].points(),
                    slot,
                    point
                );
                prop_assert!(
                    q.resizable[k].admits(bound.size, bound.min_size),
                    "node {} ({:?}) hides resizable slot {} {:?}",
                    k,
                    q.resizable[k],
                    slot,
                    bound
                );
                if k == 1 {
                    break;
                }
                k /= 2;
            }
        }
        prop_assert_eq!(live, q.len());
        for (bucket, &count) in q.counts.iter().enumerate() {
            let slots = &q.points[bucket * BUCKET..(bucket + 1) * BUCKET];
            prop_assert_eq!(
                usize::from(count),
                slots.iter().filter(|&&p| p != DEAD).count()
            );
        }
        Ok(())
    }

    /// Every search from every position agrees with a linear scan, for `queries` (whose two
    /// sizes also serve as the bounds of a search for resizable entries), and every rank finds
    /// the live entry a walk finds.
    fn check_searches(q: &JobQueue, queries: &[(u32, u32, i64)]) -> Result<(), TestCaseError> {
        let end = q.end();
        // Every position before the ring's start searches as the one before it does.
        let first = q.start.saturating_sub(1);
        let live: Vec<usize> = (first..end).filter(|&p| q.is_live(p)).collect();
        for rank in 0..=live.len() {
            prop_assert_eq!(q.nth_live(rank), live.get(rank).copied(), "rank {}", rank);
        }
        // Answers for every start position at once, by a backward scan.
        let mut expect_live = vec![None; end + 1];
        for pos in (0..end).rev() {
            expect_live[pos] = if q.is_live(pos) {
                Some(pos)
            } else {
                expect_live[pos + 1]
            };
        }
        for (from, expect) in expect_live.iter().enumerate().skip(first) {
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
            for (from, expect) in expect.iter().enumerate().skip(first) {
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
            for (max_size, max_min) in [(units, u32::MAX), (u32::MAX, small), (units, small)] {
                let mut expect = vec![None; end + 1];
                for pos in (0..end).rev() {
                    let fits = q.get(pos).is_some_and(|j| {
                        j.job
                            .resizable
                            .is_some_and(|r| j.size() <= max_size && r.min <= max_min)
                    });
                    expect[pos] = if fits { Some(pos) } else { expect[pos + 1] };
                }
                for (from, expect) in expect.iter().enumerate().skip(first) {
                    prop_assert_eq!(
                        q.next_resizable(from, max_size, max_min),
                        *expect,
                        "from {} max size {} max min {}",
                        from,
                        max_size,
                        max_min
                    );
                }
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
            let small = match i % 3 {
                0 => 0,
                1 => b.size().saturating_add_signed(-1),
                // The smallest size a resizable entry accepts, and one either side.
                _ => b
                    .job
                    .resizable
                    .map_or(b.size(), |r| r.min)
                    .saturating_add_signed(shift as i32),
            };
            queries.push((units, small, b.estimate().0 + shift));
        }
        queries
    }

    #[derive(Clone, Debug)]
    enum QueueOp {
        /// A job behind the last one, `gap` seconds later (often 0: equal submit times),
        /// malleable down to `min_size` if given.
        Append {
            gap: i64,
            size: u32,
            estimate: i64,
            min_size: Option<u32>,
        },
        /// A job at any place (a requeue after preemption): moves entries towards the nearest
        /// dead position, or rebuilds a full ring.
        InsertAnywhere {
            submit: i64,
            size: u32,
            estimate: i64,
            min_size: Option<u32>,
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

    /// Rigid two times in three, else malleable down to a size drawn like a job's.
    fn min_size() -> impl Strategy<Value = Option<u32>> {
        prop_oneof![2 => Just(None), 1 => size().prop_map(Some)]
    }

    fn queue_op() -> impl Strategy<Value = QueueOp> {
        prop_oneof![
            8 => (prop_oneof![3 => Just(0i64), 1 => 1i64..5], size(), estimate(), min_size())
                .prop_map(|(gap, size, estimate, min_size)| QueueOp::Append { gap, size, estimate, min_size }),
            2 => (0i64..400, size(), estimate(), min_size())
                .prop_map(|(submit, size, estimate, min_size)| QueueOp::InsertAnywhere { submit, size, estimate, min_size }),
            3 => (0usize..1000).prop_map(QueueOp::Remove),
            4 => (0usize..1000, size(), size(), estimate())
                .prop_map(|(from, units, small, max)| QueueOp::Backfill { from, units, small: small / 4, max }),
            2 => Just(QueueOp::FinishPass),
        ]
    }

    proptest! {
        /// Adding one point gives the merge with that point's skyline.
        #[test]
        fn with_point_is_the_merge_with_one_point(
            points in prop::collection::vec((size(), estimate()), 0..6),
            p in (size(), estimate()),
        ) {
            let mut skyline = Skyline::EMPTY;
            for q in points {
                let mut single = Skyline::EMPTY;
                single.push_sorted(q);
                skyline = Skyline::merge(&skyline, &single);
            }
            let mut single = Skyline::EMPTY;
            single.push_sorted(p);
            prop_assert_eq!(skyline.with_point(p), Skyline::merge(&skyline, &single));
        }
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
                    QueueOp::Append { gap, size, estimate, min_size } => {
                        id += 1;
                        last_submit += gap;
                        q.insert(queued(id, last_submit, size, estimate, min_size));
                    }
                    QueueOp::InsertAnywhere { submit, size, estimate, min_size } => {
                        id += 1;
                        last_submit = last_submit.max(submit);
                        q.insert(queued(id, submit, size, estimate, min_size));
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
