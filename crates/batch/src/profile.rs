//! Availability profile: free units over future time, as a step function.
//!
//! Built from the free units now and the running jobs' predicted ends, then carved by
//! reservations. It serves conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6),
//! 2001: every queued job gets a reservation at its earliest fit) and start-time predictions.

use cosched_core::{Duration, Time};

/// Free units from `steps[i].0` until `steps[i + 1].0`; the last step lasts forever.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    steps: Vec<(Time, i64)>,
}

impl Profile {
    /// The profile at `now` with `free` idle units and `releases` (predicted end, units) in
    /// time order.
    pub(crate) fn new(now: Time, free: u32, releases: impl Iterator<Item = (Time, u32)>) -> Self {
        let mut steps = vec![(now, i64::from(free))];
        for (t, units) in releases {
            let last = steps.last_mut().expect("never empty");
            let units = i64::from(units);
            if t <= last.0 {
                last.1 += units;
            } else {
                let free = last.1 + units;
                steps.push((t, free));
            }
        }
        Profile { steps }
    }

    /// The earliest step start at which `size` units stay free for `duration`; `None` if the
    /// profile never has that many.
    pub(crate) fn earliest_fit(&self, size: u32, duration: Duration) -> Option<Time> {
        let size = i64::from(size);
        let mut i = 0;
        while i < self.steps.len() {
            let start = self.steps[i].0;
            let end = start.saturating_add(duration);
            match self.steps[i..]
                .iter()
                .take_while(|&&(t, _)| t == start || t < end)
                .position(|&(_, free)| free < size)
            {
                None => return Some(start),
                Some(offset) => i += offset + 1,
            }
        }
        None
    }

    /// Sets `size` units aside over `[start, start + duration)` (one step for a zero duration).
    pub(crate) fn reserve(&mut self, start: Time, duration: Duration, size: u32) {
        let end = start.saturating_add(duration);
        let first = self.split_at(start);
        let last = if end > start {
            self.split_at(end)
        } else {
            first + 1
        };
        for step in &mut self.steps[first..last] {
            step.1 -= i64::from(size);
        }
    }

    /// Makes `t` a step boundary and returns that step's index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.steps.partition_point(|&(s, _)| s <= t);
        if i > 0 && self.steps[i - 1].0 == t {
            return i - 1;
        }
        if t == Time::MAX {
            return self.steps.len();
        }
        let free = self.steps[i.saturating_sub(1)].1;
        self.steps.insert(i, (t, free));
        i
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
    }
}
