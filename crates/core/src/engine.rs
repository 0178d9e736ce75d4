//! The discrete-event engine every cosched simulator runs on.
//!
//! An [`EventQueue`] holds future events and a clock. Events pop in a fully deterministic
//! order, so a simulation's output depends only on its input and seed:
//!
//! 1. earlier **time** first;
//! 2. at equal times, lower **class** first (each simulator gives its event kinds a
//!    [`Event::class`], e.g. completions 0 before arrivals 1);
//! 3. at equal time and class, **insertion order** (a sequence number assigned on schedule).
//!
//! The queue is a binary heap: `O(log n)` schedule and pop, no allocation once warm.
//!
//! ```
//! use cosched_core::{Event, EventQueue, Time};
//! #[derive(Debug, PartialEq)]
//! enum Ev { Done(u32), Arrive(u32) }
//! impl Event for Ev {
//!     fn class(&self) -> u8 { match self { Ev::Done(_) => 0, Ev::Arrive(_) => 1 } }
//! }
//! let mut q = EventQueue::new(Time(0));
//! q.schedule(Time(5), Ev::Arrive(1)).unwrap();
//! q.schedule(Time(5), Ev::Done(9)).unwrap();
//! q.schedule(Time(5), Ev::Arrive(2)).unwrap();
//! assert_eq!(q.pop(), Some((Time(5), Ev::Done(9))));
//! assert_eq!(q.pop(), Some((Time(5), Ev::Arrive(1))));
//! assert_eq!(q.pop(), Some((Time(5), Ev::Arrive(2))));
//! assert_eq!(q.now(), Time(5));
//! assert!(q.schedule(Time(4), Ev::Done(0)).is_err());
//! ```

use crate::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use thiserror::Error;

/// An event kind's rank among events at the same instant.
pub trait Event {
    /// Lower classes pop first among events at the same time.
    fn class(&self) -> u8;
}

/// An event scheduled before the engine's current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("event scheduled at {at} but the clock is already at {now}")]
pub struct ScheduleInPast {
    /// The requested time.
    pub at: Time,
    /// The clock when it was requested.
    pub now: Time,
}

struct Entry<E> {
    time: Time,
    class: u8,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(&self) -> (Time, u8, u64) {
        (self.time, self.class, self.seq)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that the max-heap pops the earliest key.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// A clock and the time-ordered queue of future events.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
}

impl<E: Event> EventQueue<E> {
    /// An empty queue whose clock starts at `start`.
    pub fn new(start: Time) -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: start,
        }
    }

    /// The clock: the time of the last popped event (or the start).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `event` at `at`; an error if `at` is before the clock.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) -> Result<(), ScheduleInPast> {
        if at < self.now {
            return Err(ScheduleInPast { at, now: self.now });
        }
        let class = event.class();
        self.heap.push(Entry {
            time: at,
            class,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
        Ok(())
    }

    /// Removes the next event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let entry = self.heap.pop()?;
        self.now = entry.time;
        Some((entry.time, entry.event))
    }

    /// Removes the next event only if it is due at the current clock time: the way to drain
    /// every event of one instant before acting on them together.
    #[inline]
    pub fn pop_now(&mut self) -> Option<E> {
        if self.heap.peek()?.time == self.now {
            self.heap.pop().map(|e| e.event)
        } else {
            None
        }
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of pending events.
    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    struct Ev(u8, usize);
    impl Event for Ev {
        fn class(&self) -> u8 {
            self.0
        }
    }

    proptest! {
        /// Pops come out sorted by (time, class, insertion order), whatever the push order.
        #[test]
        fn pops_in_time_class_sequence_order(items in prop::collection::vec((0i64..50, 0u8..3), 0..200)) {
            let mut q = EventQueue::new(Time(0));
            for (i, &(t, c)) in items.iter().enumerate() {
                q.schedule(Time(t), Ev(c, i)).unwrap();
            }
            let mut expected: Vec<(i64, u8, usize)> =
                items.iter().enumerate().map(|(i, &(t, c))| (t, c, i)).collect();
            expected.sort();
            let mut got = Vec::new();
            while let Some((t, Ev(c, i))) = q.pop() {
                prop_assert_eq!(q.now(), t);
                got.push((t.0, c, i));
            }
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn pop_now_drains_one_instant() {
        let mut q = EventQueue::new(Time(0));
        for (t, i) in [(3, 0), (3, 1), (4, 2)] {
            q.schedule(Time(t), Ev(0, i)).unwrap();
        }
        assert_eq!(q.pop().map(|(t, e)| (t, e.1)), Some((Time(3), 0)));
        assert_eq!(q.pop_now().map(|e| e.1), Some(1));
        assert!(q.pop_now().is_none());
        assert_eq!(q.peek_time(), Some(Time(4)));
        assert_eq!(q.len(), 1);
    }
}
