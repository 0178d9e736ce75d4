//! Which units each job held: an exact assignment computed from a finished schedule.
//!
//! The batch simulator counts free units without identities (that is what keeps EASY fast on
//! 93,312-unit machines), so the units are named afterwards, by one sweep over the start and
//! end events: at each instant the jobs that end release their units, then the jobs that start
//! take units from the free set. A job takes the smallest free interval that holds it whole
//! (best fit, so that most jobs hold one contiguous block) and, when none does, the largest
//! free intervals first (fewest pieces). Any schedule that never uses more than the capacity
//! gets an assignment in which no unit is held by two jobs at once; `O(n log n)` for `n` jobs
//! when allocations stay in a few pieces, as they do in practice.
//!
//! Jobs of zero length (start = end) take and give back their units at their instant, before
//! the other starts of that instant: the simulator completes them in a second round there.

use cosched_core::Time;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::Range;
use thiserror::Error;

/// One job's span and size, as the sweep reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// When it started.
    pub start: Time,
    /// When it ended (at least `start`).
    pub end: Time,
    /// Units it held.
    pub size: u32,
}

/// The units of every job of a schedule: for job `i`, a few disjoint ranges of unit indices
/// in `0..capacity`, in increasing order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    /// In the order the jobs started.
    pieces: Vec<Range<u32>>,
    /// Job `i`'s pieces are `pieces[a..b]` for `(a, b) = held[i]`.
    held: Vec<(usize, usize)>,
}

/// Why a schedule has no assignment.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AssignError {
    /// At some instant the running jobs need more units than the machine has.
    #[error("the schedule runs {needed} units at {at} on a machine of {capacity}")]
    OverCapacity {
        /// When.
        at: Time,
        /// Units asked for by the job that did not fit.
        needed: u32,
        /// The machine.
        capacity: u32,
    },
    /// A job ends before it starts.
    #[error("job {index} of the schedule ends before it starts")]
    EndBeforeStart {
        /// Its position in the input.
        index: usize,
    },
}

impl Assignment {
    /// The units of job `index` (empty for a job that never ran).
    pub fn units(&self, index: usize) -> &[Range<u32>] {
        self.held
            .get(index)
            .and_then(|&(a, b)| self.pieces.get(a..b))
            .unwrap_or(&[])
    }

    /// Appends job `index`'s units in Batsim's interval-set notation (`0-3 8 10-11`: inclusive
    /// ranges separated by spaces) to `out`, formatting numbers with `int`.
    pub fn write_batsim(&self, index: usize, out: &mut Vec<u8>, int: &mut itoa::Buffer) {
        for (i, r) in self.units(index).iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(int.format(r.start).as_bytes());
            let last = r.end - 1;
            if last != r.start {
                out.push(b'-');
                out.extend_from_slice(int.format(last).as_bytes());
            }
        }
    }
}

/// The free units as disjoint maximal intervals.
struct FreeSet {
    index: Index,
    /// Intervals past which they are indexed.
    few: usize,
}

/// Free intervals past which the set is indexed rather than scanned.
const FEW: usize = 64;

/// How the free intervals are held. A machine's free units usually lie in a handful of
/// intervals (5 on average, 23 at most, on a 312k-job trace), which a short
/// unordered vector scans fastest; a fragmented machine (many one-unit jobs ending out of
/// order) can reach thousands, which are indexed so each step stays `O(log k)`.
enum Index {
    /// `(start, end)`, in no order.
    Few(Vec<(u32, u32)>),
    /// By both ends (merging a freed range needs only its exact neighbours) and by
    /// `length << 32 | start` (best fit is the first key at or above `size << 32`).
    Many {
        end_of: FxHashMap<u32, u32>,
        start_of: FxHashMap<u32, u32>,
        by_len: BTreeSet<u64>,
    },
}

fn len_key(len: u32, start: u32) -> u64 {
    u64::from(len) << 32 | u64::from(start)
}

fn from_key(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

impl FreeSet {
    fn new(capacity: u32, few: usize) -> FreeSet {
        let mut set = FreeSet {
            index: Index::Few(Vec::new()),
            few,
        };
        if capacity > 0 {
            set.insert(0, capacity);
        }
        set
    }

    /// `(length, start)` of the smallest interval holding `size` units (lowest start on ties).
    fn best_fit(&self, size: u32) -> Option<(u32, u32)> {
        match &self.index {
            Index::Few(v) => v
                .iter()
                .map(|&(s, e)| (e - s, s))
                .filter(|&(len, _)| len >= size)
                .min(),
            Index::Many { by_len, .. } => by_len
                .range(len_key(size, 0)..)
                .next()
                .map(|&k| from_key(k)),
        }
    }

    /// `(length, start)` of the longest interval (highest start on ties).
    fn largest(&self) -> Option<(u32, u32)> {
        match &self.index {
            Index::Few(v) => v.iter().map(|&(s, e)| (e - s, s)).max(),
            Index::Many { by_len, .. } => by_len.last().map(|&k| from_key(k)),
        }
    }

    /// The start of the interval that ends at `at`.
    fn ending_at(&self, at: u32) -> Option<u32> {
        match &self.index {
            Index::Few(v) => v.iter().find(|&&(_, e)| e == at).map(|&(s, _)| s),
            Index::Many { start_of, .. } => start_of.get(&at).copied(),
        }
    }

    /// The end of the interval that starts at `at`.
    fn starting_at(&self, at: u32) -> Option<u32> {
        match &self.index {
            Index::Few(v) => v.iter().find(|&&(s, _)| s == at).map(|&(_, e)| e),
            Index::Many { end_of, .. } => end_of.get(&at).copied(),
        }
    }

    fn insert(&mut self, start: u32, end: u32) {
        match &mut self.index {
            Index::Few(v) => {
                v.push((start, end));
                if v.len() > self.few {
                    let mut many = Index::Many {
                        end_of: FxHashMap::default(),
                        start_of: FxHashMap::default(),
                        by_len: BTreeSet::new(),
                    };
                    std::mem::swap(&mut self.index, &mut many);
                    if let Index::Few(v) = many {
                        for (s, e) in v {
                            self.insert(s, e);
                        }
                    }
                }
            }
            Index::Many {
                end_of,
                start_of,
                by_len,
            } => {
                end_of.insert(start, end);
                start_of.insert(end, start);
                by_len.insert(len_key(end - start, start));
            }
        }
    }

    /// Replaces the interval `old` by `new`.
    fn replace(&mut self, old: (u32, u32), new: (u32, u32)) {
        match &mut self.index {
            Index::Few(v) => {
                if let Some(slot) = v.iter_mut().find(|(s, _)| *s == old.0) {
                    *slot = new;
                }
            }
            Index::Many { .. } => {
                self.remove(old.0, old.1);
                self.insert(new.0, new.1);
            }
        }
    }

    fn remove(&mut self, start: u32, end: u32) {
        match &mut self.index {
            Index::Few(v) => {
                if let Some(p) = v.iter().position(|&(s, _)| s == start) {
                    v.swap_remove(p);
                }
            }
            Index::Many {
                end_of,
                start_of,
                by_len,
            } => {
                end_of.remove(&start);
                start_of.remove(&end);
                by_len.remove(&len_key(end - start, start));
            }
        }
    }

    /// Takes `size` units (best fit, else largest first) into `out`; `false` if not enough.
    fn take(&mut self, size: u32, out: &mut Vec<Range<u32>>) -> bool {
        let first = out.len();
        if let Some((len, start)) = self.best_fit(size) {
            // Take the top of the block: the rest keeps its start.
            if len > size {
                self.replace((start, start + len), (start, start + len - size));
            } else {
                self.remove(start, start + len);
            }
            out.push(start + len - size..start + len);
            return true;
        }
        let mut left = size;
        while left > 0 {
            let Some((len, start)) = self.largest() else {
                // Not enough: give back what was taken.
                let taken: Vec<Range<u32>> = out.drain(first..).collect();
                for r in taken {
                    self.give(r);
                }
                return false;
            };
            let used = len.min(left);
            if len > used {
                self.replace((start, start + len), (start + used, start + len));
            } else {
                self.remove(start, start + len);
            }
            out.push(start..start + used);
            left -= used;
        }
        out[first..].sort_unstable_by_key(|r| r.start);
        true
    }

    /// Gives back one range, merging it with its free neighbours.
    fn give(&mut self, r: Range<u32>) {
        let (start, end) = (r.start, r.end);
        match (self.ending_at(start), self.starting_at(end)) {
            (Some(s), Some(e)) => {
                self.remove(end, e);
                self.replace((s, start), (s, e));
            }
            (Some(s), None) => self.replace((s, start), (s, end)),
            (None, Some(e)) => self.replace((end, e), (start, e)),
            (None, None) => self.insert(start, end),
        }
    }
}

/// The bit of a start key that marks a job of non-zero length (no index reaches it).
const LASTS_BIT: u32 = usize::BITS - 1;

/// Assigns units of a `capacity`-unit machine to the jobs that ran (`None` for a job that
/// never started), so that jobs running at the same time hold disjoint units.
pub fn assign(capacity: u32, jobs: &[Option<Span>]) -> Result<Assignment, AssignError> {
    assign_by(capacity, jobs, |s| *s)
}

/// [`assign`] for jobs of any type, `span` giving each one's span (`None`: never ran).
pub fn assign_by<T>(
    capacity: u32,
    jobs: &[T],
    span: impl Fn(&T) -> Option<Span>,
) -> Result<Assignment, AssignError> {
    assign_indexing_past(capacity, jobs, span, FEW)
}

/// [`assign_by`], with the free intervals indexed once there are more than `few`.
fn assign_indexing_past<T>(
    capacity: u32,
    jobs: &[T],
    span_of: impl Fn(&T) -> Option<Span>,
    few: usize,
) -> Result<Assignment, AssignError> {
    // (start, index with the top bit set when the job lasts): zero-length jobs first at an
    // instant, then by index; 16-byte keys sort faster than tuples with a separate flag.
    let mut starts: Vec<(Time, usize)> = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        let Some(span) = span_of(job) else { continue };
        if span.end < span.start {
            return Err(AssignError::EndBeforeStart { index: i });
        }
        let lasts = span.end > span.start;
        starts.push((span.start, i | usize::from(lasts) << LASTS_BIT));
    }
    starts.sort_unstable();

    let mut out = Assignment {
        pieces: Vec::with_capacity(starts.len()),
        held: vec![(0, 0); jobs.len()],
    };
    // The running jobs by end, with their pieces: a heap of the running jobs stays in cache
    // where a sorted list of all ends did not. Which of several jobs ending at one instant
    // gives its units back first does not matter: the free intervals are maximal, so the same
    // units give the same set.
    let mut running: BinaryHeap<Reverse<(Time, usize, usize)>> = BinaryHeap::new();
    let mut free = FreeSet::new(capacity, few);
    for &(at, key) in &starts {
        let (i, lasts) = (key & !(1 << LASTS_BIT), key >> LASTS_BIT == 1);
        while let Some(&Reverse((end, a, b))) = running.peek()
            && end <= at
        {
            running.pop();
            for r in &out.pieces[a..b] {
                free.give(r.clone());
            }
        }
        let Some(span) = span_of(&jobs[i]) else {
            continue;
        };
        let a = out.pieces.len();
        if !free.take(span.size, &mut out.pieces) {
            return Err(AssignError::OverCapacity {
                at,
                needed: span.size,
                capacity,
            });
        }
        let b = out.pieces.len();
        out.held[i] = (a, b);
        if lasts {
            running.push(Reverse((span.end, a, b)));
        } else {
            for r in &out.pieces[a..b] {
                free.give(r.clone());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn span(start: i64, end: i64, size: u32) -> Option<Span> {
        Some(Span {
            start: Time(start),
            end: Time(end),
            size,
        })
    }

    fn notation(a: &Assignment, i: usize) -> String {
        let mut s = Vec::new();
        a.write_batsim(i, &mut s, &mut itoa::Buffer::new());
        String::from_utf8(s).unwrap()
    }

    #[test]
    fn contiguous_blocks_then_pieces_when_fragmented() {
        // Blocks are taken from the top of the best-fitting free block: 3-4, then 1-2; 3-4
        // is freed at 10, and a 3-unit job must then use 3-4 and 0.
        let jobs = [
            span(0, 10, 2),
            span(0, 20, 2),
            span(10, 30, 3),
            None,
            span(20, 20, 2),
        ];
        let a = assign(5, &jobs).unwrap();
        assert_eq!(notation(&a, 0), "3-4");
        assert_eq!(notation(&a, 1), "1-2");
        assert_eq!(notation(&a, 2), "0 3-4");
        assert_eq!(notation(&a, 3), "");
        // The zero-length job at 20 runs in the units job 1 frees then.
        assert_eq!(notation(&a, 4), "1-2");
        assert_eq!(
            assign(4, &[span(0, 10, 3), span(5, 10, 2)]),
            Err(AssignError::OverCapacity {
                at: Time(5),
                needed: 2,
                capacity: 4
            })
        );
    }

    #[test]
    fn a_zero_length_job_uses_units_freed_at_its_instant() {
        // Full machine until 10; at 10 a zero-length full-width job, then another full job.
        let jobs = [span(0, 10, 4), span(10, 10, 4), span(10, 20, 4)];
        let a = assign(4, &jobs).unwrap();
        assert_eq!(notation(&a, 1), "0-3");
        assert_eq!(notation(&a, 2), "0-3");
    }

    /// Random feasible schedules: jobs placed greedily on a counted machine.
    fn schedules() -> impl Strategy<Value = (u32, Vec<Option<Span>>)> {
        (1u32..40)
            .prop_flat_map(|cap| {
                let job = (0i64..50, 0i64..20, 1u32..=cap, 0u8..10);
                (Just(cap), prop::collection::vec(job, 0..60))
            })
            .prop_map(|(cap, raw)| {
                let mut placed: Vec<Option<Span>> = Vec::new();
                for (start, len, size, never) in raw {
                    let s = Span {
                        start: Time(start),
                        end: Time(start + len),
                        size,
                    };
                    // Keep the job only if the machine has room over its whole span.
                    let fits = (s.start.0..s.end.0.max(s.start.0 + 1)).all(|t| {
                        let used: u32 = placed
                            .iter()
                            .flatten()
                            .filter(|p| p.start.0 <= t && t < p.end.0.max(p.start.0 + 1))
                            .map(|p| p.size)
                            .sum();
                        used + s.size <= cap
                    });
                    placed.push((fits && never > 0).then_some(s));
                }
                (cap, placed)
            })
    }

    proptest! {
        #[test]
        fn scanned_and_indexed_free_sets_assign_alike((cap, jobs) in schedules()) {
            let scanned = assign_indexing_past(cap, &jobs, |s| *s, usize::MAX).unwrap();
            for few in [0, 1, 3] {
                let indexed = assign_indexing_past(cap, &jobs, |s| *s, few).unwrap();
                for i in 0..jobs.len() {
                    prop_assert_eq!(scanned.units(i), indexed.units(i));
                }
            }
        }

        #[test]
        fn jobs_get_their_size_in_disjoint_units((cap, jobs) in schedules()) {
            let a = assign(cap, &jobs).unwrap();
            for (i, job) in jobs.iter().enumerate() {
                let units = a.units(i);
                let total: u32 = units.iter().map(|r| r.end - r.start).sum();
                prop_assert_eq!(total, job.map_or(0, |s| s.size));
                prop_assert!(units.iter().all(|r| r.start < r.end && r.end <= cap));
                prop_assert!(units.windows(2).all(|w| w[0].end < w[1].start));
            }
            for (i, x) in jobs.iter().enumerate() {
                for (j, y) in jobs.iter().enumerate().skip(i + 1) {
                    let (Some(x), Some(y)) = (x, y) else { continue };
                    if x.start < y.end && y.start < x.end {
                        let shared = a.units(i).iter().any(|r| {
                            a.units(j).iter().any(|q| r.start < q.end && q.start < r.end)
                        });
                        prop_assert!(!shared, "jobs {} and {} share a unit", i, j);
                    }
                }
            }
        }
    }
}
