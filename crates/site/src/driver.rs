//! TEMPORARY: the call loop of `cosched_core::driver` (its API, verbatim), until that module is
//! on main; replaced by the import then.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::fmt;

use thiserror::Error;

use cosched_core::Time;
use cosched_core::engine::{EngineError, Event, EventQueue};
use cosched_core::policy::Policy;

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
#[derive(Debug, Error, PartialEq, Eq)]
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


/// A policy whose errors are converted by [`Into`] (`cosched_core`'s `Policy::err_into`).
#[derive(Debug)]
pub struct ErrInto<P, E> {
    policy: P,
    error: std::marker::PhantomData<fn() -> E>,
}

/// `policy` with its errors converted by [`Into`].
pub fn err_into<P: Policy<Error: Into<E>>, E>(policy: P) -> ErrInto<P, E> {
    ErrInto {
        policy,
        error: std::marker::PhantomData,
    }
}

impl<P, E> ErrInto<P, E> {
    /// The wrapped policy.
    pub fn get_ref(&self) -> &P {
        &self.policy
    }
}

impl<P, E> Policy for ErrInto<P, E>
where
    P: Policy,
    P::Error: Into<E>,
{
    type Observation = P::Observation;
    type Command = P::Command;
    type View = P::View;
    type Error = E;

    fn start(&mut self, now: Time, view: &P::View, out: &mut Vec<P::Command>) -> Result<(), E> {
        self.policy.start(now, view, out).map_err(Into::into)
    }

    fn observe(
        &mut self,
        now: Time,
        observation: &P::Observation,
        view: &P::View,
        out: &mut Vec<P::Command>,
    ) -> Result<(), E> {
        self.policy
            .observe(now, observation, view, out)
            .map_err(Into::into)
    }

    fn wake(&mut self, now: Time, view: &P::View, out: &mut Vec<P::Command>) -> Result<(), E> {
        self.policy.wake(now, view, out).map_err(Into::into)
    }

    fn next_wake(&self) -> Option<Time> {
        self.policy.next_wake()
    }
}
