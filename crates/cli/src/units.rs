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
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
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
    pieces: Vec<Range<u32>>,
    /// Job `i`'s pieces are `pieces[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<usize>,
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
        match (self.offsets.get(index), self.offsets.get(index + 1)) {
            (Some(&a), Some(&b)) => &self.pieces[a..b],
            _ => &[],
        }
    }

    /// Writes job `index`'s units in Batsim's interval-set notation (`0-3 8 10-11`: inclusive
    /// ranges separated by spaces) to `out`.
    pub fn write_batsim(&self, index: usize, out: &mut String) {
        for (i, r) in self.units(index).iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let last = r.end - 1;
            if last == r.start {
                let _ = write!(out, "{}", r.start);
            } else {
                let _ = write!(out, "{}-{}", r.start, last);
            }
        }
    }
}

/// The free units as disjoint maximal intervals, indexed by start and by (length, start).
struct FreeSet {
    by_start: BTreeMap<u32, u32>,
    by_len: BTreeSet<(u32, u32)>,
}

impl FreeSet {
    fn new(capacity: u32) -> FreeSet {
        let mut set = FreeSet {
            by_start: BTreeMap::new(),
            by_len: BTreeSet::new(),
        };
        if capacity > 0 {
            set.insert(0, capacity);
        }
        set
    }

    fn insert(&mut self, start: u32, end: u32) {
        self.by_start.insert(start, end);
        self.by_len.insert((end - start, start));
    }

    fn remove(&mut self, start: u32, end: u32) {
        self.by_start.remove(&start);
        self.by_len.remove(&(end - start, start));
    }

    /// Takes `size` units (best fit, else largest first) into `out`; `false` if not enough.
    fn take(&mut self, size: u32, out: &mut Vec<Range<u32>>) -> bool {
        let first = out.len();
        if let Some(&(len, start)) = self.by_len.range((size, 0)..).next() {
            // Take the top of the block: the rest keeps its start, so only its end changes.
            self.by_len.remove(&(len, start));
            if len > size {
                self.by_len.insert((len - size, start));
                if let Some(end) = self.by_start.get_mut(&start) {
                    *end = start + len - size;
                }
            } else {
                self.by_start.remove(&start);
            }
            out.push(start + len - size..start + len);
            return true;
        }
        let mut left = size;
        while left > 0 {
            let Some(&(len, start)) = self.by_len.last() else {
                // Not enough: give back what was taken.
                let taken: Vec<Range<u32>> = out.drain(first..).collect();
                for r in taken {
                    self.give(r);
                }
                return false;
            };
            let used = len.min(left);
            self.remove(start, start + len);
            if len > used {
                self.insert(start + used, start + len);
            }
            out.push(start..start + used);
            left -= used;
        }
        out[first..].sort_unstable_by_key(|r| r.start);
        true
    }

    /// Gives back one range, merging it with its free neighbours.
    fn give(&mut self, r: Range<u32>) {
        let (mut start, mut end) = (r.start, r.end);
        if let Some((&s, &e)) = self.by_start.range(..start).next_back()
            && e == start
        {
            self.remove(s, e);
            start = s;
        }
        if let Some(&e) = self.by_start.get(&end) {
            self.remove(end, e);
            end = e;
        }
        self.insert(start, end);
    }
}

/// The bit of a start key that marks a job of non-zero length (no index reaches it).
const LASTS_BIT: u32 = usize::BITS - 1;

/// Assigns units of a `capacity`-unit machine to the jobs that ran (`None` for a job that
/// never started), so that jobs running at the same time hold disjoint units.
pub fn assign(capacity: u32, jobs: &[Option<Span>]) -> Result<Assignment, AssignError> {
    // (start, index with the top bit set when the job lasts): zero-length jobs first at an
    // instant, then by index; 16-byte keys sort faster than tuples with a separate flag.
    let mut starts: Vec<(Time, usize)> = Vec::with_capacity(jobs.len());
    let mut ends: Vec<(Time, usize)> = Vec::with_capacity(jobs.len());
    for (i, span) in jobs.iter().enumerate() {
        let Some(span) = span else { continue };
        if span.end < span.start {
            return Err(AssignError::EndBeforeStart { index: i });
        }
        let lasts = span.end > span.start;
        starts.push((span.start, i | usize::from(lasts) << LASTS_BIT));
        if lasts {
            ends.push((span.end, i));
        }
    }
    starts.sort_unstable();
    ends.sort_unstable();

    let mut held: Vec<(usize, usize)> = vec![(0, 0); jobs.len()];
    let mut pieces: Vec<Range<u32>> = Vec::with_capacity(starts.len());
    let mut free = FreeSet::new(capacity);
    let mut next_end = 0;
    for &(at, key) in &starts {
        let (i, lasts) = (key & !(1 << LASTS_BIT), key >> LASTS_BIT == 1);
        while let Some(&(end, j)) = ends.get(next_end)
            && end <= at
        {
            let (a, b) = held[j];
            for r in &pieces[a..b] {
                free.give(r.clone());
            }
            next_end += 1;
        }
        let size = jobs[i].map_or(0, |s| s.size);
        let a = pieces.len();
        if !free.take(size, &mut pieces) {
            return Err(AssignError::OverCapacity {
                at,
                needed: size,
                capacity,
            });
        }
        held[i] = (a, pieces.len());
        if !lasts {
            for r in &pieces[a..] {
                free.give(r.clone());
            }
        }
    }
    // Lay the pieces out in job order.
    let mut out = Assignment {
        pieces: Vec::with_capacity(pieces.len()),
        offsets: Vec::with_capacity(jobs.len() + 1),
    };
    out.offsets.push(0);
    for &(a, b) in &held {
        out.pieces.extend_from_slice(&pieces[a..b]);
        out.offsets.push(out.pieces.len());
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
        let mut s = String::new();
        a.write_batsim(i, &mut s);
        s
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
