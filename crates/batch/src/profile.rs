//! Availability profile: free units over future time, as a step function.
//!
//! Built from the free units now and the running jobs' predicted ends, then carved by
//! reservations. It serves conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6),
//! 2001: every queued job gets a reservation at its earliest fit) and start-time predictions.
//!
//! The steps live in chunks of up to twice a target length, each with a pending addition and
//! the minimum and maximum of its values, so that a search skips a whole chunk that cannot hold
//! or cannot block a job, and a reservation subtracts from a whole chunk at once. The target
//! is `√s` for `s` steps (at least [`CHUNK`]; the chunks are cut again when `√s` doubles), so
//! every operation costs O(√s) instead of the O(s) of a flat vector: a conservative pass over
//! `q` queued jobs costs O(q √q) rather than O(q²).

use cosched_core::{Duration, Time};

/// The least target of steps per chunk; a chunk splits at twice its target.
const CHUNK: usize = 64;

/// The target chunk length for `steps` steps: `√steps`, at least [`CHUNK`].
fn chunk_target(steps: usize) -> usize {
    steps.isqrt().max(CHUNK)
}

/// A run of consecutive steps.
#[derive(Clone, Debug)]
struct Chunk {
    /// Step start times, increasing.
    times: Vec<Time>,
    /// Free units of each step, before `add`.
    free: Vec<i64>,
    /// Added to every step of the chunk.
    add: i64,
    /// Smallest and largest value (after `add`).
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

    #[inline]
    fn value(&self, i: usize) -> i64 {
        self.free[i] + self.add
    }

    #[inline]
    fn len(&self) -> usize {
        self.times.len()
    }
}

/// A step: chunk index and index within the chunk.
type Pos = (usize, usize);

/// Free units from each step's time until the next step's; the last step lasts forever.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    /// Never empty; no chunk is empty.
    chunks: Vec<Chunk>,
    /// Steps in all chunks.
    steps: usize,
    /// The chunk length aimed at: a chunk splits at twice this.
    target: usize,
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
        let target = chunk_target(steps.len());
        Profile {
            chunks: steps.chunks(target).map(Chunk::new).collect(),
            steps: steps.len(),
            target,
        }
    }

    /// Cuts the steps into chunks of the target length for their number again.
    fn rechunk(&mut self) {
        let steps: Vec<(Time, i64)> = self
            .chunks
            .iter()
            .flat_map(|c| c.times.iter().zip(&c.free).map(|(&t, &f)| (t, f + c.add)))
            .collect();
        self.target = chunk_target(steps.len());
        self.chunks = steps.chunks(self.target).map(Chunk::new).collect();
    }

    #[inline]
    fn time(&self, (c, i): Pos) -> Time {
        self.chunks[c].times[i]
    }

    /// The step after `pos`, if any.
    #[inline]
    fn next(&self, (c, i): Pos) -> Option<Pos> {
        if i + 1 < self.chunks[c].len() {
            Some((c, i + 1))
        } else if c + 1 < self.chunks.len() {
            Some((c + 1, 0))
        } else {
            None
        }
    }

    /// The first step at or after `pos` with at least `size` free units.
    fn next_with(&self, (mut c, mut i): Pos, size: i64) -> Option<Pos> {
        while let Some(chunk) = self.chunks.get(c) {
            if chunk.max >= size
                && let Some(j) = (i..chunk.len()).find(|&j| chunk.value(j) >= size)
            {
                return Some((c, j));
            }
            c += 1;
            i = 0;
        }
        None
    }

    /// The first step after `pos` that starts before `end` and has fewer than `size` units.
    fn first_blocking(&self, pos: Pos, end: Time, size: i64) -> Option<Pos> {
        let (mut c, mut i) = self.next(pos)?;
        while let Some(chunk) = self.chunks.get(c) {
            if chunk.times.get(i).is_none_or(|&t| t >= end) {
                return None;
            }
            let whole_chunk_inside = chunk.times.last().is_some_and(|&t| t < end);
            if !(i == 0 && whole_chunk_inside && chunk.min >= size) {
                for j in i..chunk.len() {
                    if chunk.times[j] >= end {
                        return None;
                    }
                    if chunk.value(j) < size {
                        return Some((c, j));
                    }
                }
            }
            c += 1;
            i = 0;
        }
        None
    }

    /// The earliest step start at which `size` units stay free for `duration` (a zero duration
    /// needs only that step); `None` if the profile never has that many.
    pub(crate) fn earliest_fit(&self, size: u32, duration: Duration) -> Option<Time> {
        let size = i64::from(size);
        let mut from = (0, 0);
        loop {
            let candidate = self.next_with(from, size)?;
            let start = self.time(candidate);
            match self.first_blocking(candidate, start.saturating_add(duration), size) {
                None => return Some(start),
                Some(blocking) => from = self.next(blocking)?,
            }
        }
    }

    /// Sets `size` units aside over `[start, start + duration)` (one step for a zero duration).
    pub(crate) fn reserve(&mut self, start: Time, duration: Duration, size: u32) {
        let end = start.saturating_add(duration);
        if end > start {
            self.split_at(end);
        }
        let Some(first) = self.split_at(start) else {
            return;
        };
        let size = i64::from(size);
        let (mut c, mut i) = first;
        let mut last_step = end <= start;
        while let Some(chunk) = self.chunks.get_mut(c) {
            let whole = i == 0 && chunk.times.last().is_some_and(|&t| t < end);
            if whole && !last_step {
                chunk.add -= size;
                chunk.min -= size;
                chunk.max -= size;
            } else {
                for j in i..chunk.len() {
                    if chunk.times[j] >= end && !last_step {
                        chunk.refresh();
                        return;
                    }
                    chunk.free[j] -= size;
                    if last_step {
                        chunk.refresh();
                        return;
                    }
                }
                chunk.refresh();
            }
            // Only a zero-duration reservation stops after its first step.
            last_step = false;
            c += 1;
            i = 0;
        }
    }

    /// Makes `t` a step boundary and returns that step; `None` for `Time::MAX` when no step
    /// starts there (nothing lies beyond it).
    fn split_at(&mut self, t: Time) -> Option<Pos> {
        let c = self
            .chunks
            .partition_point(|chunk| chunk.times[0] <= t)
            .saturating_sub(1);
        let chunk = &mut self.chunks[c];
        let j = chunk.times.partition_point(|&s| s <= t);
        if j > 0 && chunk.times[j - 1] == t {
            return Some((c, j - 1));
        }
        if t == Time::MAX {
            return None;
        }
        let raw = chunk.free[j.saturating_sub(1)];
        chunk.times.insert(j, t);
        chunk.free.insert(j, raw);
        self.steps += 1;
        if chunk_target(self.steps) >= 2 * self.target {
            self.rechunk();
            return self.split_at(t);
        }
        let chunk = &mut self.chunks[c];
        if chunk.len() > 2 * self.target {
            let half = chunk.len() / 2;
            let tail = Chunk {
                times: chunk.times.split_off(half),
                free: chunk.free.split_off(half),
                add: chunk.add,
                min: 0,
                max: 0,
            };
            chunk.refresh();
            let mut tail = tail;
            tail.refresh();
            self.chunks.insert(c + 1, tail);
            return Some(if j >= half { (c + 1, j - half) } else { (c, j) });
        }
        Some((c, j))
    }

    /// Moves the profile's start to `now` (no earlier than its start): steps that ended by then
    /// are dropped and the step under `now` starts at `now`.
    pub(crate) fn advance(&mut self, now: Time) {
        let c = self
            .chunks
            .partition_point(|chunk| chunk.times[0] <= now)
            .saturating_sub(1);
        self.steps -= self
            .chunks
            .drain(..c)
            .map(|chunk| chunk.len())
            .sum::<usize>();
        let chunk = &mut self.chunks[0];
        let j = chunk.times.partition_point(|&s| s <= now).saturating_sub(1);
        chunk.times.drain(..j);
        chunk.free.drain(..j);
        self.steps -= j;
        if chunk.times[0] < now {
            chunk.times[0] = now;
        }
        chunk.refresh();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The flat step vector the chunks stand for: each step's time and value.
    fn flat(p: &Profile) -> Vec<(Time, i64)> {
        p.chunks
            .iter()
            .flat_map(|c| (0..c.len()).map(move |i| (c.times[i], c.value(i))))
            .collect()
    }

    /// Tens of thousands of steps: the chunks are cut again as `√s` doubles, and every fit
    /// is checked against a scan of the flat steps.
    #[test]
    fn long_profiles_rechunk_and_stay_exact() {
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
                let steps = flat(&p);
                assert_eq!(p.steps, steps.len());
                let expect = (0..steps.len()).find(|&k| {
                    let end = steps[k].0.saturating_add(duration);
                    steps[k..]
                        .iter()
                        .take_while(|s| s.0 == steps[k].0 || s.0 < end)
                        .all(|s| s.1 >= i64::from(size))
                });
                assert_eq!(fit, expect.map(|k| steps[k].0), "fit {i}");
            }
            let Some(start) = fit else { continue };
            p.reserve(start, duration, size);
            if targets.last() != Some(&p.target) {
                targets.push(p.target);
            }
        }
        assert!(p.steps > 16_384, "{} steps", p.steps);
        assert_eq!(targets, [64, 128], "targets as the profile grew");
        assert!(
            p.chunks
                .iter()
                .all(|c| c.len() <= 2 * p.target && c.len() > 0)
        );
    }
}
