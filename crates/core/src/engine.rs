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
//! The queue is a binary heap of one packed integer key per event: `O(log n)` schedule and
//! pop, no allocation once warm. A queue made by [`EventQueue::with_ordered_class`] also keeps
//! a FIFO lane for one class of events that is mostly scheduled in time order (a trace's
//! arrivals, each scheduling the next): those skip the heap, `O(1)` each, and the pops keep
//! the same order.
//!
//! ## The kernel
//!
//! Every simulator in the workspace runs on [`run`] (or [`run_until`]): it pops the first event
//! of the next instant, drains every other event of that instant in the order above, handing
//! each to [`Simulation::handle`], and then calls [`Simulation::settle`] once — the scheduling
//! pass that sees the whole instant at once. Periodic sampling (RHIC's 1-second samples, a
//! controller's 1-minute period) is a tick event the simulation re-schedules from `handle`, so
//! it shares the clock and the tie-break with everything else.
//!
//! ```
//! use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
//! use cosched_core::{Duration, Time};
//!
//! /// Counts arrivals; a tick every 10 s samples the count until t = 30.
//! #[derive(Default)]
//! struct Counter { arrivals: u32, samples: Vec<(i64, u32)>, passes: u32 }
//! enum Ev { Arrive, Tick }
//! impl Event for Ev {
//!     fn class(&self) -> u8 { match self { Ev::Arrive => 0, Ev::Tick => 1 } }
//! }
//! impl Simulation for Counter {
//!     type Event = Ev;
//!     type Error = EngineError;
//!     fn handle(&mut self, now: Time, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), EngineError> {
//!         match ev {
//!             Ev::Arrive => self.arrivals += 1,
//!             Ev::Tick => {
//!                 self.samples.push((now.secs(), self.arrivals));
//!                 if now < Time(30) { q.schedule_in(Duration(10), Ev::Tick)?; }
//!             }
//!         }
//!         Ok(())
//!     }
//!     fn settle(&mut self, _now: Time, _q: &mut EventQueue<Ev>) -> Result<(), EngineError> {
//!         self.passes += 1;
//!         Ok(())
//!     }
//! }
//! let mut q = EventQueue::new(Time(0));
//! for t in [0, 10, 10, 25] { q.schedule(Time(t), Ev::Arrive)?; }
//! q.schedule(Time(0), Ev::Tick)?;
//! let mut sim = Counter::default();
//! let stats = engine::run(&mut sim, &mut q)?;
//! // Arrivals (class 0) are counted before the tick (class 1) of the same instant.
//! assert_eq!(sim.samples, vec![(0, 1), (10, 3), (20, 3), (30, 4)]);
//! assert_eq!((stats.instants, stats.events), (5, 8));
//! assert_eq!(sim.passes, 5);
//! # Ok::<(), EngineError>(())
//! ```
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

use crate::time::TimeOverflow;
use crate::{Duration, Time};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
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

/// Why the engine refused to schedule an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum EngineError {
    /// The time was before the clock.
    #[error(transparent)]
    InPast(#[from] ScheduleInPast),
    /// The clock plus the delay passes the largest representable instant.
    #[error(transparent)]
    Overflow(#[from] TimeOverflow),
}

/// The most events scheduled between two renumberings: the sequence number's bits in a key.
const SEQ_BITS: u32 = 56;

/// An event and its key: the time (sign bit flipped, so unsigned order is time order), the
/// class and the sequence number packed into one `u128`, so that the heap compares one integer
/// instead of a tuple.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(time: Time, class: u8, seq: u64) -> u128 {
        let time = (time.secs() as u64) ^ (1 << 63);
        (u128::from(time) << 64) | (u128::from(class) << SEQ_BITS) | u128::from(seq)
    }

    #[inline]
    fn time(&self) -> Time {
        Time((((self.key >> 64) as u64) ^ (1 << 63)) as i64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
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
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A clock and the time-ordered queue of future events.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    /// Events of `lane_class` scheduled behind the lane's last key, in key order; the others
    /// of that class go to the heap. A pop takes the smaller of the lane's front and the
    /// heap's top, so the order is the heap's alone.
    lane: VecDeque<Entry<E>>,
    lane_class: Option<u8>,
    next_seq: u64,
    now: Time,
}

impl<E: Event> EventQueue<E> {
    /// An empty queue whose clock starts at `start`.
    pub fn new(start: Time) -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            lane: VecDeque::new(),
            lane_class: None,
            next_seq: 0,
            now: start,
        }
    }

    /// An empty queue whose clock starts at `start`, where events of `class` scheduled in
    /// time order wait in a FIFO lane instead of the heap (`O(1)` to schedule and pop); one
    /// scheduled before the lane's last event goes to the heap. Events pop in the same order
    /// as from [`EventQueue::new`]'s queue.
    ///
    /// ```
    /// use cosched_core::{Event, EventQueue, Time};
    /// struct Ev(u8, u32);
    /// impl Event for Ev {
    ///     fn class(&self) -> u8 { self.0 }
    /// }
    /// let mut q = EventQueue::with_ordered_class(Time(0), 1);
    /// for (t, c, id) in [(5, 1, 1), (9, 1, 2), (5, 0, 3), (2, 1, 4)] {
    ///     q.schedule(Time(t), Ev(c, id)).unwrap();
    /// }
    /// let mut order = Vec::new();
    /// while let Some((t, Ev(_, id))) = q.pop() {
    ///     order.push((t.0, id));
    /// }
    /// assert_eq!(order, [(2, 4), (5, 3), (5, 1), (9, 2)]);
    /// ```
    pub fn with_ordered_class(start: Time, class: u8) -> Self {
        EventQueue {
            lane_class: Some(class),
            ..EventQueue::new(start)
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
        if self.next_seq == 1 << SEQ_BITS {
            self.renumber();
        }
        let class = event.class();
        let key = Entry::<E>::key(at, class, self.next_seq);
        let entry = Entry { key, event };
        if self.lane_class == Some(class) && self.lane.back().is_none_or(|last| last.key < key) {
            self.lane.push_back(entry);
        } else {
            self.heap.push(entry);
        }
        self.next_seq += 1;
        Ok(())
    }

    /// Numbers the pending events `0, 1, …` in their order, keeping it, when the sequence
    /// numbers run out (after 2^56 events).
    #[cold]
    fn renumber(&mut self) {
        // Every pending event, marked with whether it waits in the lane, in pop order.
        let mut entries: Vec<(Entry<E>, bool)> = std::mem::take(&mut self.heap)
            .into_iter()
            .map(|e| (e, false))
            .chain(
                std::mem::take(&mut self.lane)
                    .into_iter()
                    .map(|e| (e, true)),
            )
            .collect();
        entries.sort_unstable_by_key(|(e, _)| e.key);
        let seq_mask = (1u128 << SEQ_BITS) - 1;
        self.next_seq = entries.len() as u64;
        // The order is kept, so the lane stays sorted.
        for (seq, (mut entry, in_lane)) in entries.into_iter().enumerate() {
            entry.key = (entry.key & !seq_mask) | seq as u128;
            if in_lane {
                self.lane.push_back(entry);
            } else {
                self.heap.push(entry);
            }
        }
    }

    /// Schedules `event` `delay` after the clock and returns its time; an error if the sum
    /// overflows or the delay is negative. The form to use whenever the delay comes from input.
    #[inline]
    pub fn schedule_in(&mut self, delay: Duration, event: E) -> Result<Time, EngineError> {
        let at = self.now.try_add(delay)?;
        self.schedule(at, event)?;
        Ok(at)
    }

    /// Whether the next event waits in the lane (else in the heap, if anywhere).
    #[inline]
    fn next_in_lane(&self) -> bool {
        match (self.lane.front(), self.heap.peek()) {
            (Some(lane), Some(heap)) => lane.key < heap.key,
            (lane, _) => lane.is_some(),
        }
    }

    /// The next event, without removing it.
    #[inline]
    fn peek(&self) -> Option<&Entry<E>> {
        if self.next_in_lane() {
            self.lane.front()
        } else {
            self.heap.peek()
        }
    }

    /// Removes the next event.
    #[inline]
    fn take_next(&mut self) -> Option<Entry<E>> {
        if self.next_in_lane() {
            self.lane.pop_front()
        } else {
            self.heap.pop()
        }
    }

    /// Removes the next event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let entry = self.take_next()?;
        self.now = entry.time();
        Some((self.now, entry.event))
    }

    /// Removes the next event only if it is due at the current clock time: the way to drain
    /// every event of one instant before acting on them together.
    #[inline]
    pub fn pop_now(&mut self) -> Option<E> {
        if self.peek()?.time() == self.now {
            self.take_next().map(|e| e.event)
        } else {
            None
        }
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.peek().map(Entry::time)
    }

    /// Number of pending events.
    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len() + self.lane.len()
    }

    /// Whether no event is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.lane.is_empty()
    }
}

/// A discrete-event simulation run by the kernel ([`run`], [`run_until`]).
///
/// The simulation is the environment's state; the kernel owns the order of events. `handle`
/// sees each event of an instant in the documented order; `settle` runs once per instant after
/// the last of them (a scheduling pass, a policy call, a sample).
pub trait Simulation {
    /// The simulation's events.
    type Event: Event;
    /// Its error; engine errors (scheduling in the past, time overflow) convert into it.
    type Error: From<EngineError>;

    /// Applies one event at `now`; may schedule further events on `queue`.
    fn handle(
        &mut self,
        now: Time,
        event: Self::Event,
        queue: &mut EventQueue<Self::Event>,
    ) -> Result<(), Self::Error>;

    /// Runs once after every event of the instant `now` has been handled.
    fn settle(&mut self, now: Time, queue: &mut EventQueue<Self::Event>)
    -> Result<(), Self::Error>;
}

/// What the kernel did in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelStats {
    /// Distinct instants processed (one `settle` each).
    pub instants: u64,
    /// Events handled.
    pub events: u64,
    /// The clock when the run stopped (the last instant processed, or the start).
    pub end: Time,
}

/// Runs `sim` until `queue` is empty. See the module docs for the order of events.
pub fn run<S: Simulation>(
    sim: &mut S,
    queue: &mut EventQueue<S::Event>,
) -> Result<KernelStats, S::Error> {
    run_until(sim, queue, Time::MAX)
}

/// Runs `sim` through every instant up to and including `horizon`; later events stay queued
/// (a run can be resumed with another call). Work is proportional to the events, never to the
/// simulated span.
pub fn run_until<S: Simulation>(
    sim: &mut S,
    queue: &mut EventQueue<S::Event>,
    horizon: Time,
) -> Result<KernelStats, S::Error> {
    let mut stats = KernelStats {
        end: queue.now(),
        ..KernelStats::default()
    };
    while queue.peek_time().is_some_and(|t| t <= horizon) {
        let Some((now, first)) = queue.pop() else {
            break;
        };
        sim.handle(now, first, queue)?;
        stats.events += 1;
        while let Some(event) = queue.pop_now() {
            sim.handle(now, event, queue)?;
            stats.events += 1;
        }
        sim.settle(now, queue)?;
        stats.instants += 1;
        stats.end = now;
    }
    Ok(stats)
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
        /// Pops come out sorted by (time, class, insertion order), whatever the push order, at
        /// any time (the extremes included).
        #[test]
        fn pops_in_time_class_sequence_order(items in prop::collection::vec(
            (prop_oneof![8 => -50i64..50, 1 => Just(i64::MIN), 1 => Just(i64::MAX)], 0u8..3), 0..200,
        ), lane in prop::option::of(0u8..3)) {
            let mut q = match lane {
                Some(class) => EventQueue::with_ordered_class(Time(i64::MIN), class),
                None => EventQueue::new(Time(i64::MIN)),
            };
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

        /// A queue with a lane pops exactly what the plain heap pops, under any interleaving
        /// of schedules (at or after the clock, often in time order) and pops.
        #[test]
        fn the_lane_keeps_the_heap_order(
            ops in prop::collection::vec((0i64..30, 0u8..3, 0u8..4), 0..300),
            lane in 0u8..3,
        ) {
            let mut plain = EventQueue::new(Time(0));
            let mut laned = EventQueue::with_ordered_class(Time(0), lane);
            let next = |q: &mut EventQueue<Ev>, now_only: bool| {
                if now_only {
                    q.pop_now().map(|Ev(c, i)| (q.now().0, c, i))
                } else {
                    q.pop().map(|(t, Ev(c, i))| (t.0, c, i))
                }
            };
            for (i, &(dt, c, op)) in ops.iter().enumerate() {
                if op == 0 {
                    let now_only = dt % 2 == 0;
                    prop_assert_eq!(next(&mut plain, now_only), next(&mut laned, now_only));
                } else {
                    let at = Time(plain.now().0 + dt / 3);
                    plain.schedule(at, Ev(c, i)).unwrap();
                    laned.schedule(at, Ev(c, i)).unwrap();
                }
                prop_assert_eq!(plain.peek_time(), laned.peek_time());
                prop_assert_eq!(plain.len(), laned.len());
            }
            while !plain.is_empty() {
                prop_assert_eq!(next(&mut plain, false), next(&mut laned, false));
            }
            prop_assert!(laned.is_empty());
        }
    }

    /// Records what the kernel hands it; optionally schedules a follow-up at the same instant.
    #[derive(Default)]
    struct Recorder {
        seen: Vec<(i64, u8, usize)>,
        settles: Vec<i64>,
    }
    impl Simulation for Recorder {
        type Event = Ev;
        type Error = EngineError;
        fn handle(&mut self, now: Time, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), EngineError> {
            self.seen.push((now.0, ev.0, ev.1));
            if ev.0 == 0 && ev.1 < 1000 {
                // A same-instant follow-up of a later class joins this instant's drain.
                q.schedule(now, Ev(2, ev.1 + 1000))?;
            }
            Ok(())
        }
        fn settle(&mut self, now: Time, _q: &mut EventQueue<Ev>) -> Result<(), EngineError> {
            self.settles.push(now.0);
            Ok(())
        }
    }

    proptest! {
        /// The kernel hands events over in (time, class, insertion) order and settles exactly
        /// once per distinct instant, after that instant's last event.
        #[test]
        fn kernel_settles_once_per_instant(items in prop::collection::vec((0i64..20, 1u8..3), 0..100)) {
            let mut q = EventQueue::new(Time(0));
            for (i, &(t, c)) in items.iter().enumerate() {
                q.schedule(Time(t), Ev(c, i)).unwrap();
            }
            let mut sim = Recorder::default();
            let stats = run(&mut sim, &mut q).unwrap();
            let mut expected: Vec<(i64, u8, usize)> =
                items.iter().enumerate().map(|(i, &(t, c))| (t, c, i)).collect();
            expected.sort();
            prop_assert_eq!(&sim.seen, &expected);
            let mut instants: Vec<i64> = items.iter().map(|&(t, _)| t).collect();
            instants.sort_unstable();
            instants.dedup();
            prop_assert_eq!(&sim.settles, &instants);
            prop_assert_eq!(stats.instants as usize, instants.len());
            prop_assert_eq!(stats.events as usize, items.len());
        }
    }

    /// Running out of sequence numbers renumbers the pending events without changing their
    /// order, negative times included.
    #[test]
    fn renumbering_keeps_the_order() {
        for lane in [None, Some(1)] {
            renumbering_keeps_the_order_with(lane);
        }
    }

    fn renumbering_keeps_the_order_with(lane: Option<u8>) {
        let mut q = match lane {
            Some(class) => EventQueue::with_ordered_class(Time(-10), class),
            None => EventQueue::new(Time(-10)),
        };
        let mut expected = Vec::new();
        for (i, &(t, c)) in [(5, 1), (-3, 0), (5, 0), (-3, 1), (7, 2), (5, 1)]
            .iter()
            .enumerate()
        {
            q.schedule(Time(t), Ev(c, i)).unwrap();
            expected.push((t, c, i));
        }
        q.next_seq = (1 << SEQ_BITS) - 2;
        for (i, &(t, c)) in [(5, 1), (-3, 1), (9, 0), (5, 1)].iter().enumerate() {
            q.schedule(Time(t), Ev(c, 6 + i)).unwrap();
            expected.push((t, c, 6 + i));
        }
        assert!(q.next_seq < 1 << SEQ_BITS);
        expected.sort();
        let mut got = Vec::new();
        while let Some((t, Ev(c, i))) = q.pop() {
            got.push((t.0, c, i));
        }
        assert_eq!(got, expected);
    }

    #[test]
    fn same_instant_follow_ups_are_drained_before_settling() {
        let mut q = EventQueue::new(Time(0));
        q.schedule(Time(4), Ev(0, 7)).unwrap();
        q.schedule(Time(4), Ev(1, 8)).unwrap();
        let mut sim = Recorder::default();
        run(&mut sim, &mut q).unwrap();
        assert_eq!(sim.seen, vec![(4, 0, 7), (4, 1, 8), (4, 2, 1007)]);
        assert_eq!(sim.settles, vec![4]);
    }

    #[test]
    fn run_until_leaves_later_events_queued() {
        let mut q = EventQueue::new(Time(0));
        for t in [1, 5, 9] {
            q.schedule(Time(t), Ev(1, t as usize)).unwrap();
        }
        let mut sim = Recorder::default();
        let stats = run_until(&mut sim, &mut q, Time(5)).unwrap();
        assert_eq!(sim.settles, vec![1, 5]);
        assert_eq!(stats.end, Time(5));
        assert_eq!(q.peek_time(), Some(Time(9)));
        run(&mut sim, &mut q).unwrap();
        assert_eq!(sim.settles, vec![1, 5, 9]);
    }

    #[test]
    fn schedule_in_refuses_overflow_and_negative_delays() {
        let mut q = EventQueue::new(Time(i64::MAX - 5));
        assert!(matches!(
            q.schedule_in(Duration(6), Ev(0, 0)),
            Err(EngineError::Overflow(_))
        ));
        assert!(matches!(
            q.schedule_in(Duration(-1), Ev(0, 0)),
            Err(EngineError::InPast(_))
        ));
        assert_eq!(q.schedule_in(Duration(5), Ev(0, 0)), Ok(Time::MAX));
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
