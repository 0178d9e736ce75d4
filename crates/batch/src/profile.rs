//! Availability profile: free units over future time, as a step function.
//!
//! Built from the free units now and the running jobs' predicted ends, then carved by
//! reservations. It serves conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6),
//! 2001: every queued job gets a reservation at its earliest fit) and start-time predictions.
//!
//! The steps live in chunks of at most `2·`[`CHUNK`] steps, and a segment tree over the chunks
//! keeps the minimum and maximum free units of every run of chunks, with additions pending on
//! whole runs. A search for a job of `k` units alternates two jumps, each a descent of the
//! tree plus a scan of one chunk: to the next step with at least `k` free (a candidate start)
//! and to the next step with fewer than `k` free (a step that blocks the candidate). So, for
//! `s` steps, an earliest fit costs O((g + 1)·(log s + [`CHUNK`])) where `g` is the number of
//! blocking runs it crosses, a reservation O(log s + [`CHUNK`]) (a step split, a range
//! addition and at most two partial chunks), and a new chunk O(s / [`CHUNK`]) once per
//! [`CHUNK`] new steps or more. A full-width job (every fit at the profile's end, `g = 0`) costs
//! O(log s); a conservative plan of `q` such jobs O(q log q).
//!
//! `g` is not bounded by a polylogarithm in general: "earliest window of length `d` whose
//! minimum is at least `k`" asks, for each `k`, for the first gap of length ≥ `d` between the
//! steps below `k`. Answering that in polylog time for arbitrary `(k, d)` under range additions
//! would need per-node summaries of the longest run above every threshold, which grow with the
//! number of distinct values (a run-length profile in each node), not a constant-size min/max;
//! we know of no structure with polylog worst-case updates and queries for it, and a plan of
//! mixed sizes measures far below that worst case (see the crate README).

use cosched_core::{Duration, Time};

/// Steps per chunk when a profile is built; a chunk splits in two when it exceeds twice this.
const CHUNK: usize = 64;

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
}

impl Chunk {
    fn new(steps: &[(Time, i64)]) -> Chunk {
        let mut chunk = Chunk {
            times: steps.iter().map(|s| s.0).collect(),
            free: steps.iter().map(|s| s.1).collect(),
            add: 0,
            min: 0,
            max: 0,
        };
        chunk.refresh();
        chunk
    }

    fn refresh(&mut self) {
        let (min, max) = self
            .free
            .iter()
            .fold((i64::MAX, i64::MIN), |(lo, hi), &f| (lo.min(f), hi.max(f)));
        self.min = min.saturating_add(self.add);
        self.max = max.saturating_add(self.add);
    }

    /// Free units of step `i`, given the tree's additions `offset` above the chunk.
    #[inline]
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

    /// The first chunk at or after `from` that `hit` accepts, where `hit(min, max)` must
    /// accept a run of chunks exactly when it accepts one of them (as "max ≥ k" and "min < k"
    /// do): one descent, O(log chunks).
    fn first_from(&self, from: usize, hit: impl Fn(i64, i64) -> bool + Copy) -> Option<usize> {
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
    ) -> Option<usize> {
        if hi <= from
            || !hit(
                self.min[node].saturating_add(above),
                self.max[node].saturating_add(above),
            )
        {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let above = above + self.add[node];
        let mid = lo + (hi - lo) / 2;
        self.descend(2 * node, lo, mid, from, above, hit)
            .or_else(|| self.descend(2 * node + 1, mid, hi, from, above, hit))
    }
}

/// A step: chunk index and index within the chunk.
type Pos = (usize, usize);

/// Free units from each step's time until the next step's; the last step lasts forever.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    /// Never empty; no chunk is empty.
    chunks: Vec<Chunk>,
    /// Minimum and maximum over runs of chunks.
    summary: Summary,
}

impl Profile {
    /// The profile at `now` with `free` idle units and `releases` (predicted end, units) in
    /// time order (ends at or before `now` count as free now).
    pub(crate) fn new(now: Time, free: u32, releases: impl Iterator<Item = (Time, u32)>) -> Self {
        let mut steps = vec![(now, i64::from(free))];
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
        let chunks: Vec<Chunk> = steps.chunks(CHUNK).map(Chunk::new).collect();
        let mut summary = Summary::default();
        summary.build(&chunks);
        Profile { chunks, summary }
    }

    /// The chunk holding time `t`: the last one starting at or before it (the first if none).
    fn chunk_at(&self, t: Time) -> usize {
        self.chunks
            .partition_point(|chunk| chunk.times[0] <= t)
            .saturating_sub(1)
    }

    /// The earliest step start at which `size` units stay free for `duration` (a zero duration
    /// needs only that step); `None` if the profile never has that many.
    ///
    /// Walks the steps of one chunk at a time, alternately looking for a candidate (a step with
    /// at least `size` free) and for a step that blocks it (fewer than `size` free before the
    /// candidate's end); a chunk that holds neither is jumped over by a descent of the tree.
    pub(crate) fn earliest_fit(&self, size: u32, duration: Duration) -> Option<Time> {
        let size = i64::from(size);
        let (mut c, mut from) = (0, 0);
        let mut chunk = self.chunks.first()?;
        let mut offset = self.summary.offset(0);
        // The candidate being checked: its start and end.
        let mut candidate: Option<(Time, Time)> = None;
        loop {
            match candidate {
                None if chunk.max + offset >= size => {
                    if let Some(k) = (from..chunk.len()).find(|&k| chunk.value(k, offset) >= size) {
                        let start = chunk.times[k];
                        candidate = Some((start, start.saturating_add(duration)));
                        from = k + 1;
                        continue;
                    }
                }
                Some((start, end)) if chunk.min + offset < size => {
                    for k in from..chunk.len() {
                        if chunk.times[k] >= end {
                            return Some(start);
                        }
                        if chunk.value(k, offset) < size {
                            candidate = None;
                            from = k + 1;
                            break;
                        }
                    }
                    if candidate.is_none() {
                        continue;
                    }
                }
                _ => {}
            }
            // Nothing more in this chunk: jump to the next chunk that has what is looked for.
            let next = match candidate {
                None => self.summary.first_from(c + 1, |_, max| max >= size),
                Some(_) => self.summary.first_from(c + 1, |min, _| min < size),
            };
            let Some(next) = next else {
                // No later candidate, or no later blocking step: the candidate fits for ever.
                return candidate.map(|(start, _)| start);
            };
            c = next;
            from = 0;
            chunk = &self.chunks[c];
            offset = self.summary.offset(c);
        }
    }

    /// Sets `size` units aside over `[start, start + duration)` (one step for a zero duration).
    pub(crate) fn reserve(&mut self, start: Time, duration: Duration, size: u32) {
        let end = start.saturating_add(duration);
        if end > start {
            self.split_at(end);
        }
        let Some((first, i)) = self.split_at(start) else {
            return;
        };
        let size = i64::from(size);
        if end <= start {
            self.subtract(first, i, i + 1, size);
            return;
        }
        // The last chunk with a step before `end`; those between are covered whole.
        let last = self
            .chunks
            .partition_point(|chunk| chunk.times[0] < end)
            .saturating_sub(1);
        let stop = self.chunks[last].times.partition_point(|&t| t < end);
        if last == first {
            self.subtract(first, i, stop, size);
        } else {
            self.subtract(first, i, self.chunks[first].len(), size);
            self.summary.add_range(first + 1, last, -size);
            self.subtract(last, 0, stop, size);
        }
    }

    /// Takes `size` units from steps `from..to` of chunk `c`.
    fn subtract(&mut self, c: usize, from: usize, to: usize, size: i64) {
        let chunk = &mut self.chunks[c];
        for free in &mut chunk.free[from..to] {
            *free -= size;
        }
        chunk.refresh();
        self.summary.set_leaf(c, chunk);
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
        // The new step repeats the value of the one it splits: no minimum or maximum changes.
        let raw = chunk.free[j.saturating_sub(1)];
        chunk.times.insert(j, t);
        chunk.free.insert(j, raw);
        if chunk.len() <= 2 * CHUNK {
            return Some((c, j));
        }
        self.summary.flatten_into(&mut self.chunks);
        let chunk = &mut self.chunks[c];
        let half = chunk.len() / 2;
        let mut tail = Chunk {
            times: chunk.times.split_off(half),
            free: chunk.free.split_off(half),
            add: chunk.add,
            min: 0,
            max: 0,
        };
        chunk.refresh();
        tail.refresh();
        self.chunks.insert(c + 1, tail);
        self.summary.build(&self.chunks);
        Some(if j >= half { (c + 1, j - half) } else { (c, j) })
    }

    /// Moves the profile's start to `now` (no earlier than its start): steps that ended by then
    /// are dropped and the step under `now` starts at `now`.
    pub(crate) fn advance(&mut self, now: Time) {
        let c = self.chunk_at(now);
        if c > 0 {
            self.summary.flatten_into(&mut self.chunks);
            self.chunks.drain(..c);
        }
        let chunk = &mut self.chunks[0];
        let j = chunk.times.partition_point(|&s| s <= now).saturating_sub(1);
        chunk.times.drain(..j);
        chunk.free.drain(..j);
        if chunk.times[0] < now {
            chunk.times[0] = now;
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
        assert!(p.chunks.iter().all(|c| !c.is_empty_or_long()));
        assert!(p.summary.leaves >= p.chunks.len());
        for (c, chunk) in p.chunks.iter().enumerate() {
            let offset = p.summary.offset(c);
            let values = (0..chunk.len()).map(|i| chunk.value(i, offset));
            assert_eq!(values.clone().min(), Some(chunk.min + offset), "chunk {c}");
            assert_eq!(values.max(), Some(chunk.max + offset), "chunk {c}");
        }
        assert_eq!(
            p.summary.min[1],
            flat(p).iter().map(|s| s.1).min().unwrap_or(i64::MAX)
        );
    }

    impl Chunk {
        fn is_empty_or_long(&self) -> bool {
            self.len() == 0 || self.len() > 2 * CHUNK
        }
    }

    /// Tens of thousands of steps: chunks split and the tree is built again many times, and
    /// every fit is checked against a scan of the flat steps.
    #[test]
    fn long_profiles_stay_exact() {
        let mut p = Profile::new(Time(0), 64, std::iter::empty());
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
        }
        assert!(p.chunks.len() > 128, "{} chunks", p.chunks.len());
        check_shape(&p);
    }

    /// An operation on a profile: a reservation at the earliest fit, or a move of the start.
    #[derive(Clone, Debug)]
    enum Op {
        Reserve { size: u32, duration: i64 },
        Advance(i64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (1u32..=16, prop_oneof![Just(0i64), 1i64..50, 1i64..5_000])
                .prop_map(|(size, duration)| Op::Reserve { size, duration }),
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
                check_shape(&p);
            }
        }
    }
}
