//! The one way an executor drives a policy: the call loop written once, beside the kernel.
//!
//! A [`Driver`] owns a policy and makes every call an executor makes: [`Driver::start`] once,
//! [`Driver::observe`] for each event, [`Driver::wake_due`] when the policy's timer has come.
//! Each call lends the policy the executor's view, collects its commands into a buffer the
//! driver keeps warm (no allocation once warm, nested calls included), hands them to the
//! executor's [`Executor::apply`] in order, and turns a policy failure into a [`CallError`]
//! naming the call and the time. [`Driver::arm`] puts the policy's next wake on the kernel's
//! [`EventQueue`], so an executor only names the event that carries it. This is the calling
//! convention of tower's `Service`: the same for the batch simulator, the paper crates'
//! simulators, the composed site and the live engine.
//!
//! The rules the driver keeps, so that no executor has to:
//!
//! - **Wakes are pulled** ([`Policy::next_wake`]): [`Driver::wake_due`] calls
//!   [`Policy::wake`] while the policy's wake time is at or before `now` (a policy with two
//!   timers due at one instant is woken twice), at most [`Driver::round_limit`] times in one
//!   call, then fails with [`CallError::Rounds`]: a policy that never moves its wake time
//!   stops the run with a typed error instead of hanging it.
//! - **Wake events**: [`Driver::arm`] schedules the executor's wake event at the policy's wake
//!   time (or `now` if that has passed) unless a wake event at or before it is already on the
//!   queue; a wake event that finds nothing due is harmless.
//! - **Rounds**: [`Driver::observe_until_quiet`] repeats an observation, numbered by its
//!   round, until the policy returns no command (a settle pass that may ask for more passes),
//!   bounded by the same limit.
//! - **Failures**: a call that fails applies none of its commands; the error says which call
//!   failed, at what time, and carries the policy's own error.
//! - Commands of a call are applied after the call returns, in order; an executor whose
//!   [`Executor::apply`] makes further calls (the starts of a batch pass reported back) passes
//!   the driver on, and each nested call gets its own warm buffer.
//!
//! ```
//! use cosched_core::driver::{CallError, Driver, Executor};
//! use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, Time};
//!
//! /// Grants requests while fewer than `cap` are granted in the current minute.
//! struct PerMinute { cap: u32, used: u32, resets: Option<Time> }
//! impl Policy for PerMinute {
//!     type Observation = u32;
//!     type Command = (u32, bool);
//!     type View = ();
//!     type Error = std::convert::Infallible;
//!     fn observe(&mut self, now: Time, id: &u32, _: &(), out: &mut Vec<(u32, bool)>)
//!         -> Result<(), Self::Error> {
//!         self.resets.get_or_insert(Time(now.secs() + 60));
//!         let granted = self.used < self.cap;
//!         self.used += u32::from(granted);
//!         out.push((*id, granted));
//!         Ok(())
//!     }
//!     fn wake(&mut self, _: Time, _: &(), _: &mut Vec<(u32, bool)>) -> Result<(), Self::Error> {
//!         (self.used, self.resets) = (0, None);
//!         Ok(())
//!     }
//!     fn next_wake(&self) -> Option<Time> { self.resets }
//! }
//!
//! /// The environment: requests arrive; the answers are its record.
//! #[derive(Default)]
//! struct Desk { answers: Vec<(i64, u32, bool)> }
//! impl Executor<PerMinute> for Desk {
//!     type Context = ();
//!     type Error = CallError<std::convert::Infallible>;
//!     fn view(&mut self, _now: Time) -> &() { &() }
//!     fn apply(&mut self, _: &mut Driver<PerMinute>, _: &mut (), now: Time, commands: &[(u32, bool)])
//!         -> Result<(), Self::Error> {
//!         self.answers.extend(commands.iter().map(|&(id, ok)| (now.secs(), id, ok)));
//!         Ok(())
//!     }
//! }
//!
//! enum Ev { Request(u32), Wake }
//! impl Event for Ev {
//!     fn class(&self) -> u8 { match self { Ev::Wake => 0, Ev::Request(_) => 1 } }
//! }
//! struct Run { desk: Desk, driver: Driver<PerMinute> }
//! impl Simulation for Run {
//!     type Event = Ev;
//!     type Error = Box<dyn std::error::Error>;
//!     fn handle(&mut self, now: Time, ev: Ev, _: &mut EventQueue<Ev>) -> Result<(), Self::Error> {
//!         match ev {
//!             Ev::Wake => { self.driver.wake_due(now, &mut self.desk, &mut ())?; }
//!             Ev::Request(id) => { self.driver.observe(now, &id, &mut self.desk, &mut ())?; }
//!         }
//!         Ok(())
//!     }
//!     fn settle(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(), Self::Error> {
//!         Ok(self.driver.arm(now, q, Ev::Wake)?)
//!     }
//! }
//!
//! let mut q = EventQueue::new(Time(0));
//! for (t, id) in [(0, 1), (10, 2), (30, 3), (61, 4)] { q.schedule(Time(t), Ev::Request(id))?; }
//! let mut run = Run { desk: Desk::default(), driver: Driver::new(PerMinute { cap: 2, used: 0, resets: None }) };
//! engine::run(&mut run, &mut q)?;
//! // The minute that began at 0 ends at 60: request 4 is granted again.
//! assert_eq!(run.desk.answers, [(0, 1, true), (10, 2, true), (30, 3, false), (61, 4, true)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeSet;
use std::fmt;

use thiserror::Error;

use crate::Time;
use crate::engine::{EngineError, Event, EventQueue};
use crate::policy::Policy;

/// The most calls [`Driver::wake_due`] or [`Driver::observe_until_quiet`] makes in one go
/// unless [`Driver::with_round_limit`] says otherwise (ours: far above what any built-in policy
/// needs, reached in milliseconds by a policy that never quiets).
pub const DEFAULT_ROUND_LIMIT: u32 = 100_000;

/// Which call of the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallKind {
    /// [`Policy::start`].
    Start,
    /// [`Policy::observe`].
    Observe,
    /// [`Policy::wake`].
    Wake,
}

impl fmt::Display for CallKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CallKind::Start => "start",
            CallKind::Observe => "observe",
            CallKind::Wake => "wake",
        })
    }
}

/// Why a call through the [`Driver`] failed; `E` is the policy's error.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum CallError<E> {
    /// The policy returned an error (none of the call's commands was applied).
    #[error("the policy failed in `{call}` at {time}: {source}")]
    Policy {
        /// The call.
        call: CallKind,
        /// Its time.
        time: Time,
        /// The policy's error.
        #[source]
        source: E,
    },
    /// The policy was still due (woken, or asking for another round) after the round limit.
    #[error(
        "the policy still asked for `{call}` at {time} after {rounds} calls in a row (the driver's round limit)"
    )]
    Rounds {
        /// The call repeated.
        call: CallKind,
        /// The instant.
        time: Time,
        /// The calls made.
        rounds: u32,
    },
}

impl<E> CallError<E> {
    /// The policy's own error, if that is why the call failed.
    pub fn policy_error(&self) -> Option<&E> {
        match self {
            CallError::Policy { source, .. } => Some(source),
            CallError::Rounds { .. } => None,
        }
    }

    /// The same failure with the policy's error converted by `f`.
    pub fn map<F>(self, f: impl FnOnce(E) -> F) -> CallError<F> {
        match self {
            CallError::Policy { call, time, source } => CallError::Policy {
                call,
                time,
                source: f(source),
            },
            CallError::Rounds { call, time, rounds } => CallError::Rounds { call, time, rounds },
        }
    }
}

/// The platform side of a driven policy: what it lends the policy and how it carries out the
/// commands. A simulator's environment implements it, as does a live executor's record of its
/// platform.
pub trait Executor<P: Policy> {
    /// What each call lends [`Executor::apply`] beside the executor itself: the kernel's event
    /// queue in a simulator that schedules from its commands, `()` where nothing is needed.
    type Context: ?Sized;
    /// The executor's error; the driver's failures convert into it.
    type Error: From<CallError<P::Error>>;

    /// The view lent for a call at `now` (`&()` when the policy needs none). Called once
    /// before each call; an executor may bring its view up to date here.
    fn view(&mut self, now: Time) -> &P::View;

    /// Carries out `commands`, which one call at `now` returned, in order. `driver` is the
    /// one that made the call, for an executor that reports back to the policy while it
    /// applies (each such call is applied before this one goes on).
    fn apply(
        &mut self,
        driver: &mut Driver<P>,
        cx: &mut Self::Context,
        now: Time,
        commands: &[P::Command],
    ) -> Result<(), Self::Error>;
}

/// A policy and the state of calling it; see the [module docs](self).
pub struct Driver<P: Policy> {
    policy: P,
    /// Warm command buffers, one taken per call in progress.
    spare: Vec<Vec<P::Command>>,
    /// Times of the wake events on the kernel's queue that have not fired yet.
    armed: BTreeSet<Time>,
    round_limit: u32,
}

impl<P: Policy + fmt::Debug> fmt::Debug for Driver<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver")
            .field("policy", &self.policy)
            .field("armed", &self.armed)
            .field("round_limit", &self.round_limit)
            .finish_non_exhaustive()
    }
}

impl<P: Policy> Driver<P> {
    /// Drives `policy`, with the [`DEFAULT_ROUND_LIMIT`].
    pub fn new(policy: P) -> Self {
        Driver {
            policy,
            spare: Vec::new(),
            armed: BTreeSet::new(),
            round_limit: DEFAULT_ROUND_LIMIT,
        }
    }

    /// With at most `rounds` (at least 1) calls per [`Driver::wake_due`] or
    /// [`Driver::observe_until_quiet`].
    pub fn with_round_limit(mut self, rounds: u32) -> Self {
        self.round_limit = rounds.max(1);
        self
    }

    /// The round limit.
    pub fn round_limit(&self) -> u32 {
        self.round_limit
    }

    /// The policy (to read its state after a run; an executor reads nothing of it but its
    /// commands and wake time).
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The policy, consuming the driver.
    pub fn into_policy(self) -> P {
        self.policy
    }

    /// The policy's next wake time ([`Policy::next_wake`]).
    pub fn next_wake(&self) -> Option<Time> {
        self.policy.next_wake()
    }

    /// Calls [`Policy::start`] at `now` and applies its commands; returns how many there were.
    pub fn start<X: Executor<P>>(
        &mut self,
        now: Time,
        exec: &mut X,
        cx: &mut X::Context,
    ) -> Result<usize, X::Error> {
        self.call(CallKind::Start, now, None, exec, cx)
    }

    /// Calls [`Policy::observe`] with `observation` at `now` and applies its commands; returns
    /// how many there were.
    pub fn observe<X: Executor<P>>(
        &mut self,
        now: Time,
        observation: &P::Observation,
        exec: &mut X,
        cx: &mut X::Context,
    ) -> Result<usize, X::Error> {
        self.call(CallKind::Observe, now, Some(observation), exec, cx)
    }

    /// Calls [`Policy::wake`] while the policy's wake time is at or before `now`, applying
    /// each call's commands before the next; returns how many calls it made. Fails with
    /// [`CallError::Rounds`] if the policy is still due after the round limit.
    pub fn wake_due<X: Executor<P>>(
        &mut self,
        now: Time,
        exec: &mut X,
        cx: &mut X::Context,
    ) -> Result<u32, X::Error> {
        // Every wake event at or before `now` has fired (or is stale: it finds nothing due).
        self.armed = self.armed.split_off(&Time(now.secs().saturating_add(1)));
        let mut rounds = 0;
        while self.policy.next_wake().is_some_and(|t| t <= now) {
            if rounds == self.round_limit {
                return Err(CallError::Rounds {
                    call: CallKind::Wake,
                    time: now,
                    rounds,
                }
                .into());
            }
            self.call(CallKind::Wake, now, None, exec, cx)?;
            rounds += 1;
        }
        Ok(rounds)
    }

    /// Calls [`Policy::observe`] with `observation(round)` for rounds 0, 1, … until a call
    /// returns no command, applying each call's commands before the next; returns the rounds
    /// that returned commands. Fails with [`CallError::Rounds`] if the policy still returns
    /// commands after the round limit.
    pub fn observe_until_quiet<X: Executor<P>>(
        &mut self,
        now: Time,
        mut observation: impl FnMut(u32) -> P::Observation,
        exec: &mut X,
        cx: &mut X::Context,
    ) -> Result<u32, X::Error> {
        let mut round = 0;
        loop {
            if round == self.round_limit {
                return Err(CallError::Rounds {
                    call: CallKind::Observe,
                    time: now,
                    rounds: round,
                }
                .into());
            }
            let o = observation(round);
            if self.call(CallKind::Observe, now, Some(&o), exec, cx)? == 0 {
                return Ok(round);
            }
            round += 1;
        }
    }

    /// Puts `wake` on `queue` at the policy's next wake time (`now` if that has passed),
    /// unless a wake event at or before it is already there. Call it after each event's calls
    /// (or once per instant, after the last).
    pub fn arm<E: Event>(
        &mut self,
        now: Time,
        queue: &mut EventQueue<E>,
        wake: E,
    ) -> Result<(), EngineError> {
        let Some(at) = self.policy.next_wake().map(|t| t.max(now)) else {
            return Ok(());
        };
        if self.armed.first().is_none_or(|&first| at < first) {
            queue.schedule(at, wake)?;
            self.armed.insert(at);
        }
        Ok(())
    }

    /// The earliest wake event [`Driver::arm`] put on the queue that has not fired yet.
    pub fn armed(&self) -> Option<Time> {
        self.armed.first().copied()
    }

    /// One call: the view, the policy, then the commands applied; the buffer goes back warm.
    fn call<X: Executor<P>>(
        &mut self,
        kind: CallKind,
        now: Time,
        observation: Option<&P::Observation>,
        exec: &mut X,
        cx: &mut X::Context,
    ) -> Result<usize, X::Error> {
        let mut out = self.spare.pop().unwrap_or_default();
        let view = exec.view(now);
        let called = match observation {
            Some(o) => self.policy.observe(now, o, view, &mut out),
            None if kind == CallKind::Start => self.policy.start(now, view, &mut out),
            None => self.policy.wake(now, view, &mut out),
        };
        let result = match called {
            Ok(()) => exec.apply(self, cx, now, &out).map(|()| out.len()),
            Err(source) => Err(CallError::Policy {
                call: kind,
                time: now,
                source,
            }
            .into()),
        };
        out.clear();
        self.spare.push(out);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// Wants a wake at each listed time in turn; each observation `n` asks for `n` more rounds.
    #[derive(Default)]
    struct Timers {
        wakes: Vec<Time>,
        woken: Vec<Time>,
        rounds_left: u32,
        stuck: bool,
    }

    impl Policy for Timers {
        type Observation = u32;
        type Command = u32;
        type View = ();
        type Error = &'static str;

        fn observe(
            &mut self,
            _: Time,
            o: &u32,
            _: &(),
            out: &mut Vec<u32>,
        ) -> Result<(), Self::Error> {
            if *o == u32::MAX {
                return Err("refused");
            }
            if *o == 0 && self.rounds_left > 0 {
                self.rounds_left -= 1;
                out.push(0);
            } else if *o > 0 {
                self.rounds_left = *o;
                out.push(*o);
            }
            Ok(())
        }

        fn wake(&mut self, now: Time, _: &(), _: &mut Vec<u32>) -> Result<(), Self::Error> {
            self.woken.push(now);
            if !self.stuck {
                self.wakes.remove(0);
            }
            Ok(())
        }

        fn next_wake(&self) -> Option<Time> {
            self.wakes.first().copied()
        }
    }

    /// Records what it applies; reports each command `n > 100` back as observation `n - 100`.
    #[derive(Default)]
    struct Log(Vec<(Time, u32)>);

    impl Executor<Timers> for Log {
        type Context = ();
        type Error = CallError<&'static str>;
        fn view(&mut self, _: Time) -> &() {
            &()
        }
        fn apply(
            &mut self,
            driver: &mut Driver<Timers>,
            cx: &mut (),
            now: Time,
            commands: &[u32],
        ) -> Result<(), Self::Error> {
            for &c in commands {
                self.0.push((now, c));
                if c > 100 {
                    driver.observe(now, &(c - 100), self, cx)?;
                }
            }
            Ok(())
        }
    }

    #[test]
    fn wakes_every_due_timer_and_stops_a_stuck_policy() {
        let mut d = Driver::new(Timers {
            wakes: vec![Time(5), Time(5), Time(9)],
            ..Timers::default()
        });
        assert_eq!(d.wake_due(Time(4), &mut Log::default(), &mut ()), Ok(0));
        assert_eq!(d.wake_due(Time(6), &mut Log::default(), &mut ()), Ok(2));
        assert_eq!(d.policy().woken, [Time(6), Time(6)]);
        let mut stuck = Driver::new(Timers {
            wakes: vec![Time(1)],
            stuck: true,
            ..Timers::default()
        })
        .with_round_limit(3);
        assert_eq!(
            stuck.wake_due(Time(2), &mut Log::default(), &mut ()),
            Err(CallError::Rounds {
                call: CallKind::Wake,
                time: Time(2),
                rounds: 3
            })
        );
        assert_eq!(stuck.policy().woken.len(), 3);
    }

    #[test]
    fn rounds_are_numbered_and_bounded() {
        let mut d = Driver::new(Timers::default()).with_round_limit(4);
        let mut log = Log::default();
        d.observe(Time(0), &2, &mut log, &mut ()).unwrap();
        let mut seen = Vec::new();
        let rounds = d
            .observe_until_quiet(
                Time(0),
                |r| {
                    seen.push(r);
                    0
                },
                &mut log,
                &mut (),
            )
            .unwrap();
        assert_eq!((rounds, seen), (2, vec![0, 1, 2]));
        d.observe(Time(1), &9, &mut log, &mut ()).unwrap();
        let err = d.observe_until_quiet(Time(1), |_| 0, &mut log, &mut ());
        assert!(
            matches!(err, Err(CallError::Rounds { rounds: 4, .. })),
            "{err:?}"
        );
    }

    #[test]
    fn nested_calls_are_applied_in_order_and_failures_name_the_call() {
        let mut d = Driver::new(Timers::default());
        let mut log = Log::default();
        assert_eq!(d.observe(Time(3), &103, &mut log, &mut ()), Ok(1));
        assert_eq!(log.0, [(Time(3), 103), (Time(3), 3)]);
        let err = d
            .observe(Time(4), &u32::MAX, &mut log, &mut ())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the policy failed in `observe` at t=4s: refused"
        );
        assert_eq!(err.policy_error(), Some(&"refused"));
        assert_eq!(log.0.len(), 2);
    }

    #[derive(Clone, Copy)]
    struct Wake;
    impl Event for Wake {
        fn class(&self) -> u8 {
            0
        }
    }

    #[test]
    fn arming_schedules_only_an_earlier_wake() {
        let mut d = Driver::new(Timers {
            wakes: vec![Time(10)],
            ..Timers::default()
        });
        let mut q = EventQueue::new(Time(0));
        d.arm(Time(0), &mut q, Wake).unwrap();
        d.arm(Time(0), &mut q, Wake).unwrap();
        assert_eq!((d.armed(), q.len()), (Some(Time(10)), 1));
        d.policy.wakes.insert(0, Time(4));
        d.arm(Time(0), &mut q, Wake).unwrap();
        assert_eq!((d.armed(), q.len()), (Some(Time(4)), 2));
        // A wake already due is armed at `now`.
        let mut late = Driver::new(Timers {
            wakes: vec![Time(1)],
            ..Timers::default()
        });
        late.arm(Time(7), &mut q, Wake).unwrap();
        assert_eq!(late.armed(), Some(Time(7)));
        // Once an armed event has fired, the next wake is armed unless one is queued before it.
        let mut log = Log::default();
        d.wake_due(Time(4), &mut log, &mut ()).unwrap();
        d.arm(Time(4), &mut q, Wake).unwrap();
        assert_eq!(
            (d.armed(), q.len()),
            (Some(Time(10)), 3),
            "10 is still on the queue"
        );
        d.wake_due(Time(10), &mut log, &mut ()).unwrap();
        d.arm(Time(10), &mut q, Wake).unwrap();
        assert_eq!((d.armed(), q.len()), (None, 3), "no wake wanted");
    }

    #[test]
    fn an_infallible_policy_needs_no_conversion() {
        struct Echo;
        impl Policy for Echo {
            type Observation = u8;
            type Command = u8;
            type View = ();
            type Error = Infallible;
            fn observe(
                &mut self,
                _: Time,
                o: &u8,
                _: &(),
                out: &mut Vec<u8>,
            ) -> Result<(), Infallible> {
                out.push(*o);
                Ok(())
            }
        }
        struct Sink(Vec<u8>);
        impl Executor<Echo> for Sink {
            type Context = ();
            type Error = CallError<Infallible>;
            fn view(&mut self, _: Time) -> &() {
                &()
            }
            fn apply(
                &mut self,
                _: &mut Driver<Echo>,
                _: &mut (),
                _: Time,
                c: &[u8],
            ) -> Result<(), Self::Error> {
                self.0.extend_from_slice(c);
                Ok(())
            }
        }
        let mut d = Driver::new(Echo);
        let mut sink = Sink(Vec::new());
        d.start(Time(0), &mut sink, &mut ()).unwrap();
        d.observe(Time(1), &7, &mut sink, &mut ()).unwrap();
        assert_eq!(sink.0, [7]);
    }
}
