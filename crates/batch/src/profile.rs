//! Availability profile: free units over future time, as a step function.
//!
//! Built from the free units now and the running jobs' predicted ends, then carved by
//! reservations. It serves conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6),
//! 2001: every queued job gets a reservation at its earliest fit) and start-time predictions.
//!
//! The `s` steps live in `m` chunks of `L` steps (`L` aims at `√s`, at least [`CHUNK`]; a chunk
//! splits at `2L` and all are cut again when `√s` doubles). Each chunk keeps its minimum and
//! maximum and, once fits have crossed it in vain a few times since it last changed, the
//! skyline of its closed runs (for every threshold, the longest run of steps at or above it
//! with a lower step on both sides inside the chunk). A segment tree over the chunks keeps the
//! minimum and maximum of every run of chunks, with additions pending on whole runs.
//!
//! An earliest fit for `k` units over `d` seconds walks the chunks carrying the start of the
//! run of steps with room that reaches the next chunk. In a chunk, scans from either end find
//! the first and last steps without room, so the carried run fits or ends at the first, and
//! the run passed on starts after the last; the skyline says in O(log L) whether a run between
//! them lasts `d`, and only then (or while there is no skyline) is the middle scanned. Runs of
//! chunks all with room or all without are jumped by one O(log m) descent. A reservation costs
//! O(L): two step splits (a binary search over the chunks' start times, kept in one array, then
//! one within the chunk), one O(log m) range addition on the tree and at most two chunks cut
//! (their minimum follows the cut steps; the maximum is looked for again only if a cut step
//! held it); a chunk split rebuilds the tree, O(m), once per `L` new steps or more.
//!
//! Costs, honestly: a full-width job (every fit at the profile's end, after chunks without
//! room) costs O(log s + L) per fit, so 50,000 of them plan in O(q √q). A fit that crosses
//! fragmented chunks pays, per chunk, the scans to its first and last step without room
//! (short when the chunk is fragmented) plus O(log s), instead of every step; but an
//! adversarial profile (long runs with room in every chunk, none long enough) still costs O(s)
//! per fit, as a flat profile does. The measured plans are in the crate's bench
//! (`benches/conservative.rs`); the tests check every operation against the flat steps.
//!
//! Per plan of `q` jobs (conservative backfilling plans the whole queue again after every
//! unforeseen change, such as a job ending before its estimate): best case O(q (log s + L))
//! (every fit at the profile's end or in the first chunks it reaches), typical O(q · chunks
//! crossed · scan to the first blocked step), worst case O(q · s) = O(q²).
//!
//! We do not claim a polylog bound. "Earliest window of length `d` with minimum ≥ `k`" depends
//! on the pair `(k, d)`: a tree node would have to hold the skyline of its runs over every
//! threshold (as the chunks here do), and merging such skylines up the tree costs time in the
//! number of distinct values below a node, not O(1), so an update is no longer polylog. The
//! query is also not decomposable: the earliest fit in a node is not a function of its two
//! children's earliest fits for the same `(k, d)`, because a window may straddle them, which
//! is why each node's whole run structure would be needed. We know of no structure with
//! polylog updates and queries for this query, and did not search the literature for one.

use std::cell::{Cell, OnceCell};

use cosched_core::{Duration, Time};

/// The least target of steps per chunk; a chunk splits in two when it exceeds twice its
/// target.
const CHUNK: usize = 64;

/// Scans of a changed chunk that find no fit before its run skyline is made: the skyline
/// costs a stack pass and a sort, O(L log L), against O(L) for a scan that usually stops
/// early, and a chunk near the profile's start changes again after a few fits.
const SUMMARISE_AFTER: u8 = 16;

/// The target chunk length for `steps` steps: `√steps`, at least [`CHUNK`].
fn chunk_target(steps: usize) -> usize {
    steps.isqrt().max(CHUNK)
}

/// A run of consecutive steps.
#[derive(Clone, Debug)]
struct Chunk {
    /// Step start times, increasing.
    times: Vec<Time>,
    /// Free units of each step, before `add` and the tree's pending additions.
    free: Vec<i64>,
    /// Added to every step of the chunk.
    add: i64,
    /// Smallest and largest of `free` plus `add`.
    min: i64,
    max: i64,
    /// The closed runs: `(v, length)` with `v` decreasing and `length` increasing, so that
    /// the longest run of steps with `free ≥ t` that has a lower step on both sides inside
    /// the chunk lasts the `length` of the last entry with `v ≥ t` (seconds, from its first
    /// step's start to the next lower step's; `i64::MAX` if that step starts at `Time::MAX`).
    /// Made once fits have crossed the chunk in vain a few times since it changed (see
    /// [`Chunk::crossed_in_vain`]).
    runs: OnceCell<Vec<(i64, i64)>>,
    /// Fits that crossed the chunk in vain since it changed, up to [`SUMMARISE_AFTER`].
    vain: Cell<u8>,
}

impl Chunk {
    fn new(steps: &[(Time, i64)]) -> Chunk {
        let mut chunk = Chunk::raw(Vec::new(), Vec::new(), 0);
        chunk.refill(steps);
        chunk
    }

    /// Makes the chunk hold `steps`, in the buffers it has.
    fn refill(&mut self, steps: &[(Time, i64)]) {
        self.times.clear();
        self.times.extend(steps.iter().map(|s| s.0));
        self.free.clear();
        self.free.extend(steps.iter().map(|s| s.1));
        self.add = 0;
        self.refresh();
    }

    /// The chunk of steps at `times` with values `free` plus `add`.
    fn raw(times: Vec<Time>, free: Vec<i64>, add: i64) -> Chunk {
        let mut chunk = Chunk {
            times,
            free,
            add,
            min: 0,
            max: 0,
            runs: OnceCell::new(),
            vain: Cell::new(0),
        };
        chunk.refresh();
        chunk
    }

    /// Recomputes the minimum and maximum from `free` (O(L) for L steps) and drops the run
    /// skyline.
    fn refresh(&mut self) {
        let (min, max) = self
            .free
            .iter()
            .fold((i64::MAX, i64::MIN), |(lo, hi), &f| (lo.min(f), hi.max(f)));
        self.min = min.saturating_add(self.add);
        self.max = max.saturating_add(self.add);
        self.runs.take();
        self.vain.set(0);
    }

    /// Takes in a cut of `size` units from steps `from..to`, the lowest of them now `lowest`
    /// and the highest before `highest_before` (own values): the minimum can only fall to
    /// `lowest`, and the maximum is looked for again, among the steps outside the cut, only if
    /// a cut step held it (the cut steps' highest is now `highest_before - size`). Drops the
    /// run skyline.
    fn lowered(&mut self, (from, to): (usize, usize), size: i64, lowest: i64, highest_before: i64) {
        self.min = self.min.min(lowest.saturating_add(self.add));
        if highest_before.saturating_add(self.add) >= self.max {
            let outside = self.free[..from]
                .iter()
                .chain(&self.free[to..])
                .copied()
                .max();
            let max = outside.map_or(highest_before - size, |m| m.max(highest_before - size));
            self.max = max.saturating_add(self.add);
        }
        self.runs.take();
        self.vain.set(0);
    }

    /// Every maximal run of steps with `free ≥ t` is, for its leftmost lowest step `p`, the
    /// span from the last step before `p` with `free ≤ free[p]` to the first after it with
    /// `free < free[p]`: one pass with a stack finds them all.
    fn closed_runs(&self) -> Vec<(i64, i64)> {
        let mut runs = Vec::new();
        // Steps whose run has not ended yet, each with the last step before it that is not
        // higher (where its run starts), lowest first.
        let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
        for (i, &f) in self.free.iter().enumerate() {
            while let Some(&(top, before)) = stack.last() {
                if self.free[top] <= f {
                    break;
                }
                stack.pop();
                // `top`'s run ends at step `i`; it is closed if a lower step precedes it.
                if let Some(before) = before {
                    let (first, next) = (self.times[before + 1], self.times[i]);
                    let length = if next == Time::MAX {
                        i64::MAX
                    } else {
                        next.0.saturating_sub(first.0)
                    };
                    runs.push((self.free[top], length));
                }
            }
            let before = stack.last().map(|&(j, _)| j);
            stack.push((i, before));
        }
        // Highest threshold first; keep only entries longer than every higher one.
        runs.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut longest = i64::MIN;
        runs.retain(|&(_, length)| {
            let keep = length > longest;
            longest = longest.max(length);
            keep
        });
        runs
    }

    /// The skyline of closed runs (see the field), computed now if a change dropped it.
    fn runs(&self) -> &[(i64, i64)] {
        self.runs.get_or_init(|| self.closed_runs())
    }

    /// Counts a scan of the chunk that found no fit, and makes the skyline at the
    /// [`SUMMARISE_AFTER`]th: a chunk that keeps changing before fits cross it again (fits that
    /// lie early, as when a real trace's queue is planned afresh) is scanned as a flat profile
    /// would be, and sorts its runs only when that would pay.
    fn crossed_in_vain(&self) {
        let vain = self.vain.get().saturating_add(1);
        self.vain.set(vain);
        if vain >= SUMMARISE_AFTER {
            self.runs();
        }
    }

    /// Whether a closed run (see `runs`) of steps whose own values reach `threshold` lasts
    /// `duration`; `None` while the skyline is not made (the caller then scans the chunk).
    fn may_fit_inside(&self, threshold: i64, duration: Duration) -> Option<bool> {
        let runs = self.runs.get()?;
        let above = runs.partition_point(|&(v, _)| v >= threshold);
        Some(
            above
                .checked_sub(1)
                .is_some_and(|last| runs[last].1 >= duration.0),
        )
    }

    /// The first step of the earliest closed run after step `from` whose own values reach
    /// `threshold` for `duration`.
    fn first_closed_fit(&self, from: usize, threshold: i64, duration: Duration) -> Option<usize> {
        let mut i = from + 1;
        loop {
            let first = i + self.free.get(i..)?.iter().position(|&f| f >= threshold)?;
            let next = first
                + 1
                + self
                    .free
                    .get(first + 1..)?
                    .iter()
                    .position(|&f| f < threshold)?;
            if self.times[next] >= self.times[first].saturating_add(duration) {
                return Some(first);
            }
            i = next + 1;
        }
    }

    /// Free units of step `i`, given the tree's additions `offset` above the chunk.
    #[cfg(test)]
    fn value(&self, i: usize, offset: i64) -> i64 {
        self.free[i] + self.add + offset
    }

    #[inline]
    fn len(&self) -> usize {
        self.times.len()
    }
}

/// Segment tree over the chunks: per node, the smallest and largest free units below it and
/// an addition pending on all of them.
#[derive(Clone, Debug, Default)]
struct Summary {
    /// Leaf count: a power of two, at least the number of chunks.
    leaves: usize,
    /// Per node (root 1, children `2n` and `2n + 1`, leaf of chunk `c` at `leaves + c`): the
    /// smallest and largest value below it, with the additions at it and below it but not
    /// those of its ancestors. Leaves without a chunk hold `i64::MAX` and `i64::MIN`.
    min: Vec<i64>,
    max: Vec<i64>,
    /// Added to every step below the node.
    add: Vec<i64>,
}

impl Summary {
    /// The tree over `chunks`, with no pending addition.
    fn build(&mut self, chunks: &[Chunk]) {
        self.leaves = chunks.len().next_power_of_two();
        let nodes = 2 * self.leaves;
        for (values, fill) in [(&mut self.min, i64::MAX), (&mut self.max, i64::MIN)] {
            values.clear();
            values.resize(nodes, fill);
        }
        self.add.clear();
        self.add.resize(nodes, 0);
        for (c, chunk) in chunks.iter().enumerate() {
            self.min[self.leaves + c] = chunk.min;
            self.max[self.leaves + c] = chunk.max;
        }
        for node in (1..self.leaves).rev() {
            self.pull(node);
        }
    }

    /// Moves every pending addition into the chunks' own `add`, so that the tree can be built
    /// again over a changed list of chunks.
    fn flatten_into(&mut self, chunks: &mut [Chunk]) {
        for node in 1..self.leaves {
            let add = std::mem::take(&mut self.add[node]);
            self.add[2 * node] += add;
            self.add[2 * node + 1] += add;
        }
        for (c, chunk) in chunks.iter_mut().enumerate() {
            let add = std::mem::take(&mut self.add[self.leaves + c]);
            chunk.add += add;
            chunk.min = chunk.min.saturating_add(add);
            chunk.max = chunk.max.saturating_add(add);
        }
    }

    fn pull(&mut self, node: usize) {
        let add = self.add[node];
        self.min[node] = self.min[2 * node]
            .min(self.min[2 * node + 1])
            .saturating_add(add);
        self.max[node] = self.max[2 * node]
            .max(self.max[2 * node + 1])
            .saturating_add(add);
    }

    /// Takes in the changed values of chunk `c`.
    fn set_leaf(&mut self, c: usize, chunk: &Chunk) {
        let mut node = self.leaves + c;
        self.min[node] = chunk.min.saturating_add(self.add[node]);
        self.max[node] = chunk.max.saturating_add(self.add[node]);
        while node > 1 {
            node /= 2;
            self.pull(node);
        }
    }

    /// The additions pending above chunk `c`'s own values.
    fn offset(&self, c: usize) -> i64 {
        let mut node = self.leaves + c;
        let mut offset = self.add[node];
        while node > 1 {
            node /= 2;
            offset += self.add[node];
        }
        offset
    }

    /// The additions pending above chunk `c + 1`, given `offset`, those above chunk `c`: the
    /// two paths differ only below their lowest common node, so a walk over consecutive
    /// chunks pays O(1) per chunk on average.
    fn next_offset(&self, c: usize, mut offset: i64) -> i64 {
        let (mut a, mut b) = (self.leaves + c, self.leaves + c + 1);
        while a != b && b < 2 * self.leaves {
            offset += self.add[b] - self.add[a];
            a /= 2;
            b /= 2;
        }
        offset
    }

    /// Adds `value` to every step of chunks `from..to`.
    fn add_range(&mut self, from: usize, to: usize, value: i64) {
        if from < to {
            self.add_in(1, 0, self.leaves, from, to, value);
        }
    }

    fn add_in(&mut self, node: usize, lo: usize, hi: usize, from: usize, to: usize, value: i64) {
        if to <= lo || hi <= from {
            return;
        }
        if from <= lo && hi <= to {
            self.add[node] += value;
            self.min[node] = self.min[node].saturating_add(value);
            self.max[node] = self.max[node].saturating_add(value);
            return;
        }
        let mid = lo + (hi - lo) / 2;
        self.add_in(2 * node, lo, mid, from, to, value);
        self.add_in(2 * node + 1, mid, hi, from, to, value);
        self.pull(node);
    }

    /// The smallest value in chunks `from..to` (`i64::MAX` if there are none).
    fn min_in(&self, from: usize, to: usize) -> i64 {
        self.min_below(1, 0, self.leaves, from, to)
    }

    fn min_below(&self, node: usize, lo: usize, hi: usize, from: usize, to: usize) -> i64 {
        if to <= lo || hi <= from {
            return i64::MAX;
        }
        if from <= lo && hi <= to {
            return self.min[node];
        }
        let mid = lo + (hi - lo) / 2;
        self.min_below(2 * node, lo, mid, from, to)
            .min(self.min_below(2 * node + 1, mid, hi, from, to))
            .saturating_add(self.add[node])
    }

    /// The first chunk at or after `from` that `hit` accepts, where `hit(min, max)` must
    /// accept a run of chunks exactly when it accepts one of them (as "max ≥ k" and "min < k"
    /// do), with the additions pending above its own values: one descent, O(log chunks).
    fn first_from(
        &self,
        from: usize,
        hit: impl Fn(i64, i64) -> bool + Copy,
    ) -> Option<(usize, i64)> {
        self.descend(1, 0, self.leaves, from, 0, hit)
    }

    fn descend(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        above: i64,
        hit: impl Fn(i64, i64) -> bool + Copy,
    ) -> Option<(usize, i64)> {
        if hi <= from
            || !hit(
                self.min[node].saturating_add(above),
                self.max[node].saturating_add(above),
            )
        {
            return None;
        }
        if hi - lo == 1 {
            return Some((lo, above + self.add[node]));
        }
        let above = above + self.add[node];
        let mid = lo + (hi - lo) / 2;
        self.descend(2 * node, lo, mid, from, above, hit)
            .or_else(|| self.descend(2 * node + 1, mid, hi, from, above, hit))
    }
}

/// The first step time of each chunk (chunks are never empty).
fn chunk_starts(chunks: &[Chunk]) -> Vec<Time> {
    chunks
        .iter()
        .filter_map(|c| c.times.first().copied())
        .collect()
}

/// What fits in a stretch of a profile: for each number of free units, the longest run of
/// steps with at least that many (see [`Profile::staircase`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Staircase {
    /// `(units, seconds)`: units increasing, seconds decreasing; a job of `k` units fits for
    /// the seconds of the first entry with at least `k` units.
    stairs: Vec<(i64, i64)>,
}

impl Staircase {
    /// The staircase of steps `(free units, start)`, in time order, the last of which ends at
    /// `end`.
    fn of_steps(steps: &[(i64, Time)], end: Time) -> Staircase {
        let start_of = |k: usize| steps.get(k).map_or(end, |s| s.1);
        // Each step's maximal run of steps at least as high: from after the last lower step
        // before it to the next lower step after it (a stack of rising steps).
        let mut runs: Vec<(i64, i64)> = Vec::with_capacity(steps.len());
        let mut stack: Vec<usize> = Vec::new();
        for k in 0..=steps.len() {
            let value = steps.get(k).map_or(i64::MIN, |s| s.0);
            while let Some(&top) = stack.last() {
                if steps[top].0 < value {
                    break;
                }
                stack.pop();
                let from = stack.last().map_or(0, |&below| below + 1);
                runs.push((steps[top].0, start_of(k).0.saturating_sub(start_of(from).0)));
            }
            stack.push(k);
        }
        // Highest first; keep each run longer than every higher one.
        runs.retain(|r| r.0 > 0);
        runs.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut stairs: Vec<(i64, i64)> = Vec::new();
        for (units, seconds) in runs {
            if stairs.last().is_none_or(|&(_, longest)| seconds > longest) {
                stairs.push((units, seconds));
            }
        }
        stairs.reverse();
        Staircase { stairs }
    }

    /// Whether a job of `size` units fits for `seconds` (a zero estimate: on one step).
    #[inline]
    pub(crate) fn admits(&self, size: u32, seconds: i64) -> bool {
        let at = self.stairs.partition_point(|s| s.0 < i64::from(size));
        self.stairs.get(at).is_some_and(|s| seconds <= s.1)
    }
}

/// A step: chunk index and index within the chunk.
type Pos = (usize, usize);

/// Free units from each step's time until the next step's; the last step lasts forever.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    /// Never empty; no chunk is empty.
    chunks: Vec<Chunk>,
    /// The first step time of each chunk, kept beside the chunks so that finding the chunk
    /// of a time is a binary search over one array (not a load from every chunk it probes).
    starts: Vec<Time>,
    /// Minimum and maximum over runs of chunks.
    summary: Summary,
    /// Steps in all chunks.
    steps: usize,
    /// The chunk length aimed at: a chunk splits at twice this.
    target: usize,
    /// The steps [`Profile::rebuild`] collects, kept for the next one.
    scratch: Vec<(Time, i64)>,
    /// Counts the changes to how the steps lie in chunks (a chunk split, a new cut), so that
    /// a step's position taken before one is known to be stale.
    layout: u64,
    /// The last earliest fit found, its step's position and the layout then: the reservation
    /// that usually follows it at that start need not look the step up again. Any change to
    /// the profile drops it.
    last_fit: Cell<Option<(Time, Pos, u64)>>,
}

impl Profile {
    /// The profile at `now` with `free` idle units and `releases` (predicted end, units) in
    /// time order (ends at or before `now` count as free now).
    pub(crate) fn new(now: Time, free: u32, releases: impl Iterator<Item = (Time, u32)>) -> Self {
        let mut profile = Profile {
            chunks: Vec::new(),
            starts: Vec::new(),
            summary: Summary::default(),
            steps: 0,
            target: CHUNK,
            scratch: Vec::new(),
            layout: 0,
            last_fit: Cell::new(None),
        };
        profile.rebuild(now, free, releases);
        profile
    }

    /// Makes this the profile [`Profile::new`] gives, in the buffers it has (a plan made
    /// afresh at every unforeseen change would otherwise allocate them again each time).
    pub(crate) fn rebuild(
        &mut self,
        now: Time,
        free: u32,
        releases: impl Iterator<Item = (Time, u32)>,
    ) {
        self.last_fit.set(None);
        self.layout = self.layout.wrapping_add(1);
        let mut steps = std::mem::take(&mut self.scratch);
        steps.clear();
        steps.push((now, i64::from(free)));
        for (t, units) in releases {
            let units = i64::from(units);
            match steps.last_mut() {
                Some(last) if t <= last.0 => last.1 += units,
                Some(last) => {
                    let free = last.1 + units;
                    steps.push((t, free));
                }
                None => steps.push((t, units)),
            }
        }
        self.target = chunk_target(steps.len());
        let mut spare = std::mem::take(&mut self.chunks);
        spare.truncate(steps.len().div_ceil(self.target));
        for part in steps.chunks(self.target) {
            let chunk = match spare.pop() {
                Some(mut chunk) => {
                    chunk.refill(part);
                    chunk
                }
                None => Chunk::new(part),
            };
            // Free units never fall over time before any reservation (releases only add), so
            // no chunk holds a closed run yet: its skyline is empty, and fits skip its middle.
            let _ = chunk.runs.set(Vec::new());
            self.chunks.push(chunk);
        }
        self.summary.build(&self.chunks);
        self.starts.clear();
        self.starts.extend(self.chunks.iter().map(|c| c.times[0]));
        self.steps = steps.len();
        self.scratch = steps;
    }

    /// The chunk holding time `t`: the last one starting at or before it (the first if none).
    fn chunk_at(&self, t: Time) -> usize {
        self.starts.partition_point(|&s| s <= t).saturating_sub(1)
    }

    /// The earliest step start at which `size` units stay free for `duration` (a zero duration
    /// needs only that step); `None` if the profile never has that many.
    ///
    /// Goes chunk by chunk carrying the start of the run of steps with room that reaches the
    /// chunk (if any). In each chunk, scans from either end find the first and last step
    /// without room, so the carried run either fits before the first or ends there, and the
    /// run the chunk passes on starts after the last; the steps between are scanned only when
    /// the chunk's run skyline says a run there lasts long enough (or it has none yet). A run
    /// of chunks all with room, or all without, is jumped by one descent of the tree.
    pub(crate) fn earliest_fit(&self, size: u32, duration: Duration) -> Option<Time> {
        let (start, at) = self.fit_position(size, duration)?;
        self.last_fit.set(Some((start, at, self.layout)));
        Some(start)
    }

    /// [`Profile::earliest_fit`], with the position of the step it starts at.
    fn fit_position(&self, size: u32, duration: Duration) -> Option<(Time, Pos)> {
        let size = i64::from(size);
        let mut c = 0;
        let mut offset = self.summary.offset(0);
        // The start of the run of steps with room that reaches chunk `c`, and its step.
        let mut open: Option<(Time, Pos)> = None;
        while let Some(chunk) = self.chunks.get(c) {
            // A step of this chunk has room exactly when its own value reaches `threshold`.
            let threshold = size - chunk.add - offset;
            let first_blocked = chunk
                .free
                .iter()
                .position(|&f| f < threshold)
                .unwrap_or(chunk.len());
            if open.is_none() && first_blocked > 0 {
                open = Some((chunk.times[0], (c, 0)));
            }
            if let Some(&blocked_at) = chunk.times.get(first_blocked) {
                if let Some((start, _)) = open
                    && blocked_at >= start.saturating_add(duration)
                {
                    return open;
                }
                let may_fit = chunk.may_fit_inside(threshold, duration);
                if may_fit != Some(false) {
                    if let Some(i) = chunk.first_closed_fit(first_blocked, threshold, duration) {
                        return Some((chunk.times[i], (c, i)));
                    }
                    if may_fit.is_none() {
                        chunk.crossed_in_vain();
                    }
                }
                let last_blocked = chunk
                    .free
                    .iter()
                    .rposition(|&f| f < threshold)
                    .unwrap_or(first_blocked);
                open = chunk
                    .times
                    .get(last_blocked + 1)
                    .map(|&t| (t, (c, last_blocked + 1)));
            }
            // The next chunk that can end the run, or start one: the very next one, or the
            // first after it by one descent of the tree.
            let wanted = |min: i64, max: i64| match open {
                Some(_) => min < size,
                None => max >= size,
            };
            let Some(following) = self.chunks.get(c + 1) else {
                return open;
            };
            let next_offset = self.summary.next_offset(c, offset);
            if wanted(following.min + next_offset, following.max + next_offset) {
                (c, offset) = (c + 1, next_offset);
                continue;
            }
            match self.summary.first_from(c + 2, wanted) {
                Some(next) => (c, offset) = next,
                // No later step without room (the run fits), or none with room.
                None => return open,
            }
        }
        open
    }

    /// Sets `size` units aside over `[start, start + duration)` (one step for a zero duration)
    /// and returns the fewest free units left on those steps (`i64::MAX` if none is taken), so
    /// that the caller knows whether a step without room appeared without looking for it.
    pub(crate) fn reserve(&mut self, start: Time, duration: Duration, size: u32) -> i64 {
        let fit = self.last_fit.take().filter(|f| f.0 == start);
        let end = start.saturating_add(duration);
        let end_at = if end > start {
            self.split_at(end)
        } else {
            None
        };
        // The step at `start` is where the last fit found it if no chunk was cut since (a split
        // at `end` inserts after it), and the step at `end` is then where its split left it.
        let known = fit.filter(|f| f.2 == self.layout).map(|f| f.1);
        let Some((first, i)) = known.or_else(|| self.split_at(start)) else {
            return i64::MAX;
        };
        let size = i64::from(size);
        if end <= start {
            return self.subtract(first, i, i + 1, size);
        }
        // The last chunk with a step before `end` and the end of its steps before `end`; the
        // chunks between are covered whole.
        let (last, stop) = match (known, end_at) {
            (Some(_), Some((c, 0))) if c > 0 => (c - 1, self.chunks[c - 1].len()),
            (Some(_), Some((c, j))) if j > 0 => (c, j),
            _ => {
                let last = self.starts.partition_point(|&s| s < end).saturating_sub(1);
                (last, self.chunks[last].times.partition_point(|&t| t < end))
            }
        };
        if last == first {
            self.subtract(first, i, stop, size)
        } else {
            let head = self.subtract(first, i, self.chunks[first].len(), size);
            self.summary.add_range(first + 1, last, -size);
            let tail = self.subtract(last, 0, stop, size);
            head.min(self.summary.min_in(first + 1, last)).min(tail)
        }
    }

    /// Takes `size` units from steps `from..to` of chunk `c` and returns the fewest left on
    /// them.
    fn subtract(&mut self, c: usize, from: usize, to: usize, size: i64) -> i64 {
        let chunk = &mut self.chunks[c];
        let (mut lowest, mut highest_before) = (i64::MAX, i64::MIN);
        for free in &mut chunk.free[from..to] {
            highest_before = highest_before.max(*free);
            *free -= size;
            lowest = lowest.min(*free);
        }
        chunk.lowered((from, to), size, lowest, highest_before);
        let add = chunk.add;
        self.summary.set_leaf(c, chunk);
        lowest
            .saturating_add(add)
            .saturating_add(self.summary.offset(c))
    }

    /// Makes `t` a step boundary and returns that step; `None` for `Time::MAX` when no step
    /// starts there (nothing lies beyond it).
    fn split_at(&mut self, t: Time) -> Option<Pos> {
        let c = self.chunk_at(t);
        let chunk = &mut self.chunks[c];
        let j = chunk.times.partition_point(|&s| s <= t);
        if j > 0 && chunk.times[j - 1] == t {
            return Some((c, j - 1));
        }
        if t == Time::MAX {
            return None;
        }
        // The new step repeats the value of the one it splits: no minimum, maximum or run
        // changes.
        let before = j.saturating_sub(1);
        let raw = chunk.free[before];
        chunk.times.insert(j, t);
        chunk.free.insert(j, raw);
        if j == 0 {
            chunk.refresh();
            if let Some(start) = self.starts.get_mut(c) {
                *start = t;
            }
        }
        self.steps += 1;
        if chunk_target(self.steps) >= 2 * self.target {
            self.rechunk();
            return self.split_at(t);
        }
        if self.chunks[c].len() <= 2 * self.target {
            return Some((c, j));
        }
        self.summary.flatten_into(&mut self.chunks);
        self.layout = self.layout.wrapping_add(1);
        let chunk = &mut self.chunks[c];
        let half = chunk.len() / 2;
        let tail = Chunk::raw(
            chunk.times.split_off(half),
            chunk.free.split_off(half),
            chunk.add,
        );
        chunk.refresh();
        self.starts.insert(c + 1, tail.times[0]);
        self.chunks.insert(c + 1, tail);
        self.summary.build(&self.chunks);
        Some(if j >= half { (c + 1, j - half) } else { (c, j) })
    }

    /// Cuts the steps into chunks of the target length for their number again.
    fn rechunk(&mut self) {
        self.summary.flatten_into(&mut self.chunks);
        self.layout = self.layout.wrapping_add(1);
        let steps: Vec<(Time, i64)> = self
            .chunks
            .iter()
            .flat_map(|c| c.times.iter().zip(&c.free).map(|(&t, &f)| (t, f + c.add)))
            .collect();
        self.target = chunk_target(steps.len());
        self.chunks = steps.chunks(self.target).map(Chunk::new).collect();
        self.starts = chunk_starts(&self.chunks);
        self.summary.build(&self.chunks);
    }

    /// Free units at the profile's start.
    pub(crate) fn free_now(&self) -> i64 {
        let chunk = &self.chunks[0];
        chunk.free[0] + chunk.add + self.summary.offset(0)
    }

    /// The end of the run of steps from the profile's start with at least `size` free units:
    /// the first step time with fewer, `Time::MAX` if none. Jumps chunks with room throughout
    /// by the tree, as [`Profile::earliest_fit`] does.
    pub(crate) fn room_until(&self, size: u32) -> Time {
        let size = i64::from(size);
        let (mut c, mut offset) = (0, self.summary.offset(0));
        while let Some(chunk) = self.chunks.get(c) {
            let threshold = size - chunk.add - offset;
            if let Some(i) = chunk.free.iter().position(|&f| f < threshold) {
                return chunk.times[i];
            }
            let Some(following) = self.chunks.get(c + 1) else {
                break;
            };
            let next_offset = self.summary.next_offset(c, offset);
            if following.min + next_offset < size {
                (c, offset) = (c + 1, next_offset);
                continue;
            }
            match self.summary.first_from(c + 2, |min, _| min < size) {
                Some(next) => (c, offset) = next,
                None => break,
            }
        }
        Time::MAX
    }

    /// What can start at the profile's start: for each number of free units, how long that
    /// many stay free from the start (so a job fits there iff the staircase admits its size
    /// for its estimate, as [`Profile::earliest_fit`] would place it there). One walk over the
    /// steps where the running minimum falls, jumping the chunks that do not lower it by the
    /// tree, until no unit is free.
    pub(crate) fn room_from_start(&self) -> Staircase {
        let start = self.chunks[0].times[0];
        // (units, seconds) with units decreasing and seconds increasing.
        let mut stairs: Vec<(i64, i64)> = Vec::new();
        let mut low = i64::MAX;
        let (mut c, mut offset) = (0, self.summary.offset(0));
        'chunks: while let Some(chunk) = self.chunks.get(c) {
            for (&t, &f) in chunk.times.iter().zip(&chunk.free) {
                let value = f + chunk.add + offset;
                if value < low {
                    if low != i64::MAX {
                        stairs.push((low, t.0.saturating_sub(start.0)));
                    }
                    low = value;
                    if low <= 0 {
                        break 'chunks;
                    }
                }
            }
            match self.summary.first_from(c + 1, |min, _| min < low) {
                Some(next) => (c, offset) = next,
                None => break,
            }
        }
        if low > 0 {
            stairs.push((low, i64::MAX));
        }
        stairs.reverse();
        Staircase { stairs }
    }

    /// What fits before `until`: for each number of free units, the longest run of steps
    /// with at least that many, among the steps that start before it (a run ends at `until`
    /// at the latest). O(s log s) for the `s` steps before `until`.
    pub(crate) fn staircase(&self, until: Time) -> Staircase {
        // (free units, start) of each step before `until`, then where the last one ends.
        let mut steps: Vec<(i64, Time)> = Vec::new();
        let mut offset = self.summary.offset(0);
        let mut end = until;
        'chunks: for c in 0..self.chunks.len() {
            if c > 0 {
                offset = self.summary.next_offset(c - 1, offset);
            }
            let chunk = &self.chunks[c];
            for (&t, &f) in chunk.times.iter().zip(&chunk.free) {
                if t >= until {
                    end = t.min(until);
                    break 'chunks;
                }
                steps.push((f + chunk.add + offset, t));
            }
        }
        Staircase::of_steps(&steps, end)
    }

    /// Moves the profile's start to `now` (no earlier than its start): steps that ended by then
    /// are dropped and the step under `now` starts at `now`.
    pub(crate) fn advance(&mut self, now: Time) {
        self.last_fit.set(None);
        let c = self.chunk_at(now);
        if c > 0 {
            self.summary.flatten_into(&mut self.chunks);
            self.steps -= self
                .chunks
                .drain(..c)
                .map(|chunk| chunk.len())
                .sum::<usize>();
            self.starts.drain(..c);
        }
        let chunk = &mut self.chunks[0];
        let j = chunk.times.partition_point(|&s| s <= now).saturating_sub(1);
        chunk.times.drain(..j);
        chunk.free.drain(..j);
        self.steps -= j;
        if chunk.times[0] < now {
            chunk.times[0] = now;
        }
        if let Some(start) = self.starts.first_mut() {
            *start = chunk.times[0];
        }
        chunk.refresh();
        if c > 0 {
            self.summary.build(&self.chunks);
        } else {
            self.summary.set_leaf(0, &self.chunks[0]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fits_reserves_and_refits() {
        // 2 free now, +2 at t=10, +4 at t=20.
        let mut p = Profile::new(Time(0), 2, [(Time(10), 2), (Time(20), 4)].into_iter());
        assert_eq!(p.earliest_fit(2, Duration(100)), Some(Time(0)));
        assert_eq!(p.earliest_fit(3, Duration(5)), Some(Time(10)));
        assert_eq!(p.earliest_fit(9, Duration(5)), None);
        // 4 units over [10, 25): free 2 on [0,10), 0 on [10,20), 4 on [20,25), 8 after.
        p.reserve(Time(10), Duration(15), 4);
        assert_eq!(p.earliest_fit(4, Duration(1)), Some(Time(20)));
        assert_eq!(p.earliest_fit(2, Duration(30)), Some(Time(20)));
        assert_eq!(p.earliest_fit(1, Duration(5)), Some(Time(0)));
        // 2 units over [0, 5): free 0 on [0,5), 2 on [5,10), 0 on [10,20).
        p.reserve(Time(0), Duration(5), 2);
        assert_eq!(p.earliest_fit(1, Duration(1)), Some(Time(5)));
        assert_eq!(p.earliest_fit(1, Duration(10)), Some(Time(20)));
        assert_eq!(p.earliest_fit(8, Duration(0)), Some(Time(25)));
        // From t = 22 on: 4 on [22,25), 8 after.
        p.advance(Time(22));
        assert_eq!(p.earliest_fit(1, Duration(1)), Some(Time(22)));
        assert_eq!(p.earliest_fit(5, Duration(1)), Some(Time(25)));
    }

    /// The flat step vector the chunks and the tree stand for: each step's time and value.
    fn flat(p: &Profile) -> Vec<(Time, i64)> {
        p.chunks
            .iter()
            .enumerate()
            .flat_map(|(c, chunk)| {
                let offset = p.summary.offset(c);
                (0..chunk.len()).map(move |i| (chunk.times[i], chunk.value(i, offset)))
            })
            .collect()
    }

    /// The earliest fit by a scan of the flat steps.
    fn flat_fit(steps: &[(Time, i64)], size: u32, duration: Duration) -> Option<Time> {
        (0..steps.len())
            .find(|&k| {
                let end = steps[k].0.saturating_add(duration);
                steps[k..]
                    .iter()
                    .take_while(|s| s.0 == steps[k].0 || s.0 < end)
                    .all(|s| s.1 >= i64::from(size))
            })
            .map(|k| steps[k].0)
    }

    /// A reservation on the flat steps: split at its start and end, take from the steps
    /// between (the start's step alone for a zero duration).
    fn flat_reserve(steps: &mut Vec<(Time, i64)>, start: Time, duration: Duration, size: u32) {
        let mut split = |t: Time| match steps.binary_search_by_key(&t, |s| s.0) {
            Ok(k) => k,
            Err(k) => {
                let value = steps[k - 1].1;
                steps.insert(k, (t, value));
                k
            }
        };
        let first = split(start);
        let end = start.saturating_add(duration);
        let last = if end > start { split(end) } else { first + 1 };
        for step in &mut steps[first..last] {
            step.1 -= i64::from(size);
        }
    }

    /// Every chunk is non-empty and short enough, and every tree node summarises its chunks.
    fn check_shape(p: &Profile) {
        assert!(!p.chunks.is_empty());
        assert!(
            p.chunks
                .iter()
                .all(|c| c.len() > 0 && c.len() <= 2 * p.target)
        );
        assert_eq!(p.steps, flat(p).len());
        assert_eq!(p.starts, chunk_starts(&p.chunks));
        assert!(p.summary.leaves >= p.chunks.len());
        for (c, chunk) in p.chunks.iter().enumerate() {
            let offset = p.summary.offset(c);
            let values = (0..chunk.len()).map(|i| chunk.value(i, offset));
            assert_eq!(values.clone().min(), Some(chunk.min + offset), "chunk {c}");
            assert_eq!(values.max(), Some(chunk.max + offset), "chunk {c}");
            let mut fresh = chunk.clone();
            fresh.refresh();
            assert_eq!(fresh.runs(), chunk.runs(), "chunk {c}");
        }
        assert_eq!(
            p.summary.min[1],
            flat(p).iter().map(|s| s.1).min().unwrap_or(i64::MAX)
        );
    }

    /// Tens of thousands of steps: chunks split, are cut again as `√s` doubles, and the tree
    /// is built again many times; every 199th fit is checked against a scan of the flat steps.
    #[test]
    fn long_profiles_stay_exact() {
        let mut p = Profile::new(Time(0), 64, std::iter::empty());
        let mut targets = vec![p.target];
        let mut x: u64 = 1;
        for i in 0..18_000 {
            // A fixed pseudo-random sequence of sizes and durations.
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let size = (x >> 58) as u32 + 1;
            let duration = Duration(((x >> 20) % 5_000) as i64 + 1);
            let fit = p.earliest_fit(size, duration);
            if i % 199 == 0 {
                assert_eq!(fit, flat_fit(&flat(&p), size, duration), "fit {i}");
                check_shape(&p);
            }
            let Some(start) = fit else { continue };
            p.reserve(start, duration, size);
            if targets.last() != Some(&p.target) {
                targets.push(p.target);
            }
        }
        assert!(p.steps > 16_384, "{} steps", p.steps);
        assert_eq!(targets, [64, 128], "targets as the profile grew");
        check_shape(&p);
    }

    /// Additions left pending on whole chunks (reservations between existing steps split
    /// nothing): fits that walk from chunk to chunk carry the right offsets.
    #[test]
    fn pending_additions_on_whole_chunks() {
        // 640 steps, 10 chunks: 2 units more every second, then back down.
        let releases = (1..640).map(|t| (Time(t), if t < 320 { 2 } else { 1 }));
        let mut p = Profile::new(Time(0), 1, releases);
        let mut steps = flat(&p);
        for &(from, to, size) in &[(70, 250, 300), (130, 200, 100), (200, 600, 50), (1, 639, 5)] {
            let duration = Duration(to - from);
            p.reserve(Time(from), duration, size);
            flat_reserve(&mut steps, Time(from), duration, size);
            assert_eq!(flat(&p), steps);
            assert!(p.summary.add.iter().any(|&a| a != 0), "additions pending");
            for size in (0..1_000).step_by(37) {
                for duration in [0, 1, 5, 60, 200, 500] {
                    let duration = Duration(duration);
                    assert_eq!(
                        p.earliest_fit(size, duration),
                        flat_fit(&steps, size, duration),
                        "size {size} for {duration:?}"
                    );
                }
            }
        }
    }

    /// An operation on a profile: a reservation at the earliest fit, or a move of the start.
    #[derive(Clone, Debug)]
    enum Op {
        Reserve {
            size: u32,
            duration: i64,
        },
        /// Units taken between two existing steps (no step split, so no chunk splits and the
        /// tree's pending additions stay), then fits asked for without reserving.
        Carve {
            first: prop::sample::Index,
            steps: prop::sample::Index,
            size: u32,
            fits: Vec<(u32, i64)>,
        },
        Advance(i64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (1u32..=16, prop_oneof![Just(0i64), 1i64..50, 1i64..5_000])
                .prop_map(|(size, duration)| Op::Reserve { size, duration }),
            3 => (
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                1u32..=4,
                proptest::collection::vec((1u32..=16, 0i64..2_000), 1..8)
            )
                .prop_map(|(first, steps, size, fits)| Op::Carve { first, steps, size, fits }),
            1 => (0i64..200).prop_map(Op::Advance),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Fits, reservations and advances agree step for step with the flat profile, through
        /// chunk splits, whole-chunk additions and dropped chunks.
        #[test]
        fn matches_the_flat_steps(
            free in 0u32..=16,
            releases in proptest::collection::vec((1i64..3_000, 1u32..=8), 0..300),
            ops in proptest::collection::vec(op(), 1..600),
        ) {
            let mut releases: Vec<(Time, u32)> =
                releases.into_iter().map(|(t, u)| (Time(t), u)).collect();
            releases.sort_by_key(|r| r.0);
            let mut p = Profile::new(Time(0), free, releases.iter().copied());
            let mut now = Time(0);
            for op in ops {
                let steps = flat(&p);
                match op {
                    Op::Reserve { size, duration } => {
                        let duration = Duration(duration);
                        let fit = p.earliest_fit(size, duration);
                        prop_assert_eq!(fit, flat_fit(&steps, size, duration));
                        if let Some(start) = fit {
                            p.reserve(start, duration, size);
                            let mut expect = steps.clone();
                            flat_reserve(&mut expect, start, duration, size);
                            prop_assert_eq!(flat(&p), expect);
                        }
                    }
                    Op::Carve { first, steps: span, size, fits } => {
                        let i = first.index(steps.len());
                        let j = i + 1 + span.index(steps.len() - i);
                        if let Some(&(end, _)) = steps.get(j) {
                            let (start, duration) = (steps[i].0, Duration(end.0 - steps[i].0.0));
                            p.reserve(start, duration, size);
                            let mut expect = steps.clone();
                            flat_reserve(&mut expect, start, duration, size);
                            prop_assert_eq!(&flat(&p), &expect);
                            for (size, duration) in fits {
                                let duration = Duration(duration);
                                prop_assert_eq!(
                                    p.earliest_fit(size, duration),
                                    flat_fit(&expect, size, duration)
                                );
                            }
                        }
                    }
                    Op::Advance(by) => {
                        now = Time(now.0 + by);
                        p.advance(now);
                        let keep = steps.partition_point(|s| s.0 <= now).saturating_sub(1);
                        let mut expect = steps[keep..].to_vec();
                        if expect[0].0 < now {
                            expect[0].0 = now;
                        }
                        prop_assert_eq!(flat(&p), expect);
                    }
                }
                // What fits before a time, against fits on the flat steps cut there.
                let steps = flat(&p);
                let from_start = p.room_from_start();
                for size in [1u32, 2, 3, 5, 8, 13, 21] {
                    for d in [0i64, 1, 7, 60, 400, 2_500, 10_000] {
                        let fits = flat_fit(&steps, size, Duration(d)) == Some(steps[0].0);
                        prop_assert_eq!(from_start.admits(size, d), fits, "{} units for {} s from the start", size, d);
                    }
                }
                for until in [now.0 + 1, now.0 + 50, now.0 + 700, now.0 + 4_000] {
                    let until = Time(until);
                    let stairs = p.staircase(until);
                    let mut cut: Vec<(Time, i64)> =
                        steps.iter().copied().filter(|s| s.0 < until).collect();
                    cut.push((until, i64::MIN));
                    for size in [1u32, 2, 3, 5, 8, 13] {
                        for d in [0i64, 1, 7, 60, 400, 2_500] {
                            let fits = flat_fit(&cut, size, Duration(d)).is_some_and(|s| s < until);
                            prop_assert_eq!(stairs.admits(size, d), fits, "{} units for {} s before {:?}", size, d, until);
                        }
                    }
                }
                check_shape(&p);
            }
        }
    }
}
