//! The one policy protocol every cosched crate speaks.
//!
//! A **policy** is a plain struct: each call takes the current time and an observation (a
//! request, a job start or end, a node's status, a cycle's queue) and appends **commands**
//! (grant, reject, reclaim a node, start a job, place a job at a site, …) to a buffer the caller
//! owns, so a hot path allocates nothing once the buffer is warm. An **executor** (a simulator,
//! or a real system such as Slurm or an HTCondor pool) turns its platform's events into
//! observations and applies the commands. This is the split Batsim made standard, written once
//! in the spirit of tower's `Service`.
//!
//! The rules every implementation follows:
//!
//! - The policy never holds or mutates the platform: it reads a read-only [`Policy::View`]
//!   the executor lends for the call (`()` where the observation says everything).
//! - It owns no clock, random generator or I/O: time comes in as `now`, randomness is the
//!   environment's (named streams in the simulators).
//! - Timers are **pulled**: [`Policy::next_wake`] says when the policy next wants a
//!   [`Policy::wake`] call. Executors ask after every call, so a policy restored from its
//!   serialised state loses no timer (a pushed "wake me at t" command would be lost).
//! - Start-up is one convention: [`Policy::start`] is called once, before any observation, with
//!   the executor's view of the platform as it is then (its initial nodes and their states).
//! - Its state serialises (derive `serde::Serialize` and `Deserialize`), so a live service can
//!   restart it and a recording can be checked mid-way. The trait does not demand it, so that
//!   policies can be boxed (`Box<dyn Policy<…>>`) for choice at run time.
//! - It chooses its own error type.
//!
//! Each crate chooses its observation, command, view and error types: the Balancer's commands
//! are reclaim/restore/grant/reject, metasched's are job placements, the batch schedulers'
//! start jobs. Built-in policies are constructors in each crate's `scenario` module; a caller's
//! own policy runs in the same executors.
//!
//! # Writing a policy
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, Time};
//!
//! /// Observations of a toy protocol: requests for units.
//! #[derive(Debug)]
//! enum Obs { Request { id: u32, units: u32 } }
//! /// Commands: grant or refuse a request.
//! #[derive(Debug, PartialEq)]
//! enum Cmd { Grant(u32), Refuse(u32) }
//!
//! /// Grants a request if at most `cap` units are granted in the current hour.
//! #[derive(Default, serde::Serialize, serde::Deserialize)]
//! struct HourlyCap { cap: u32, used: u32, hour_ends: Option<Time> }
//!
//! impl Policy for HourlyCap {
//!     type Observation = Obs;
//!     type Command = Cmd;
//!     type View = ();
//!     type Error = std::convert::Infallible;
//!
//!     fn observe(&mut self, now: Time, obs: &Obs, _: &(), out: &mut Vec<Cmd>)
//!         -> Result<(), Self::Error> {
//!         let Obs::Request { id, units } = *obs;
//!         if self.hour_ends.is_none() {
//!             self.hour_ends = now.checked_add(Duration(3600));
//!         }
//!         if self.used + units <= self.cap {
//!             self.used += units;
//!             out.push(Cmd::Grant(id));
//!         } else {
//!             out.push(Cmd::Refuse(id));
//!         }
//!         Ok(())
//!     }
//!     fn wake(&mut self, _now: Time, _: &(), _out: &mut Vec<Cmd>) -> Result<(), Self::Error> {
//!         (self.used, self.hour_ends) = (0, None);
//!         Ok(())
//!     }
//!     fn next_wake(&self) -> Option<Time> { self.hour_ends }
//! }
//!
//! // Called by hand: due wakes first, then the observation. Executors make these calls
//! // through `cosched_core::driver::Driver`, which also applies the commands.
//! let mut policy = HourlyCap { cap: 4, ..Default::default() };
//! let mut out = Vec::new();
//! for (t, id, units) in [(0, 1, 3), (10, 2, 2), (3700, 3, 2)] {
//!     let now = Time(t);
//!     cosched_core::policy::wake_due(&mut policy, now, &(), &mut out).unwrap();
//!     policy.observe(now, &Obs::Request { id, units }, &(), &mut out).unwrap();
//! }
//! assert_eq!(out, vec![Cmd::Grant(1), Cmd::Refuse(2), Cmd::Grant(3)]);
//! ```
//!
//! # Running a policy where another error is asked for
//!
//! Each crate's error implements `From<Infallible>`, and [`Policy::err_into`] or
//! [`Policy::map_err`] adapts a policy's errors where an executor or a role boxes policies
//! with one error type.
//!
//! # Recording and replay
//!
//! [`Recorder`] wraps any policy and writes each call as one JSON line (time, what was asked,
//! the commands returned, optionally a snapshot of the view); [`replay`] feeds a recording to a
//! policy and checks that it returns the same commands. That is how a simulated run and a live
//! run are compared, and how a restart from serialised state is shown to change nothing.

use std::borrow::Borrow;
use std::fmt::Debug;
use std::io::{BufRead, Write};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::Time;

/// A scheduling policy: time and an observation in, commands out. See the [module docs](self).
pub trait Policy {
    /// What the executor tells the policy (one event of its platform).
    type Observation;
    /// What the policy asks the executor to do, in the order to apply them.
    type Command;
    /// The read-only view of the platform lent for each call (`()` when none is needed).
    type View: ?Sized;
    /// The policy's own error type.
    type Error;

    /// Called once, before any observation, with the platform as it is at `now`. The default
    /// does nothing.
    fn start(
        &mut self,
        now: Time,
        view: &Self::View,
        out: &mut Vec<Self::Command>,
    ) -> Result<(), Self::Error> {
        let _ = (now, view, out);
        Ok(())
    }

    /// Acts on `observation` at `now`, appending commands to `out` (never clearing it).
    fn observe(
        &mut self,
        now: Time,
        observation: &Self::Observation,
        view: &Self::View,
        out: &mut Vec<Self::Command>,
    ) -> Result<(), Self::Error>;

    /// Called at (or, if the executor's clock jumped, after) [`Policy::next_wake`]. The
    /// default does nothing.
    fn wake(
        &mut self,
        now: Time,
        view: &Self::View,
        out: &mut Vec<Self::Command>,
    ) -> Result<(), Self::Error> {
        let _ = (now, view, out);
        Ok(())
    }

    /// When the policy next wants [`Policy::wake`], if ever. Executors ask after every call.
    fn next_wake(&self) -> Option<Time> {
        None
    }

    /// This policy with its errors converted by `f`: the adapter that lets a policy run where
    /// an executor or a role asks for another error type.
    ///
    /// ```
    /// use cosched_core::policy::Policy;
    /// use cosched_core::{ParamError, Time};
    /// struct Never;
    /// impl Policy for Never {
    ///     type Observation = ();
    ///     type Command = ();
    ///     type View = ();
    ///     type Error = std::convert::Infallible;
    ///     fn observe(&mut self, _: Time, _: &(), _: &(), _: &mut Vec<()>) -> Result<(), Self::Error> {
    ///         Ok(())
    ///     }
    /// }
    /// // A place that boxes policies with `ParamError` as their error takes it adapted.
    /// let boxed: Box<dyn Policy<Observation = (), Command = (), View = (), Error = ParamError>> =
    ///     Box::new(Never.map_err(|never| match never {}));
    /// # let _ = boxed;
    /// ```
    fn map_err<F, E>(self, f: F) -> MapErr<Self, F>
    where
        Self: Sized,
        F: FnMut(Self::Error) -> E,
    {
        MapErr { policy: self, f }
    }

    /// This policy with its errors converted by [`Into`] (e.g. `Infallible` into any
    /// crate's error, each of which implements `From<Infallible>`). Its state serialises as
    /// the policy's own.
    fn err_into<E>(self) -> ErrInto<Self, E>
    where
        Self: Sized,
        Self::Error: Into<E>,
    {
        ErrInto {
            policy: self,
            error: std::marker::PhantomData,
        }
    }
}

/// A policy whose errors are converted by a function: [`Policy::map_err`]. Serialises as the
/// policy it wraps.
#[derive(Clone, Debug)]
pub struct MapErr<P, F> {
    policy: P,
    f: F,
}

impl<P, F> MapErr<P, F> {
    /// The wrapped policy.
    pub fn get_ref(&self) -> &P {
        &self.policy
    }

    /// The wrapped policy, unwrapped.
    pub fn into_inner(self) -> P {
        self.policy
    }
}

impl<P: Serialize, F> Serialize for MapErr<P, F> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.policy.serialize(serializer)
    }
}

/// A policy whose errors are converted by [`Into`]: [`Policy::err_into`]. Serialises and
/// deserialises as the policy it wraps.
#[derive(Debug, Serialize, Deserialize)]
#[serde(
    transparent,
    bound(serialize = "P: Serialize", deserialize = "P: Deserialize<'de>")
)]
pub struct ErrInto<P, E> {
    policy: P,
    #[serde(skip)]
    error: std::marker::PhantomData<fn() -> E>,
}

impl<P: Clone, E> Clone for ErrInto<P, E> {
    fn clone(&self) -> Self {
        ErrInto {
            policy: self.policy.clone(),
            error: std::marker::PhantomData,
        }
    }
}

impl<P, E> ErrInto<P, E> {
    /// The wrapped policy.
    pub fn get_ref(&self) -> &P {
        &self.policy
    }

    /// The wrapped policy, unwrapped.
    pub fn into_inner(self) -> P {
        self.policy
    }
}

/// The methods of a policy that delegates every call to `$inner` (an expression of `$s`, the
/// delegating policy), its errors converted by `$convert` (of `$e`, the inner error).
macro_rules! delegate_policy {
    ($s:ident => $inner:expr, $e:ident => $convert:expr) => {
        fn start(
            &mut self,
            now: Time,
            view: &Self::View,
            out: &mut Vec<Self::Command>,
        ) -> Result<(), Self::Error> {
            let $s = self;
            let called = $inner.start(now, view, out);
            called.map_err(|$e| $convert)
        }

        fn observe(
            &mut self,
            now: Time,
            observation: &Self::Observation,
            view: &Self::View,
            out: &mut Vec<Self::Command>,
        ) -> Result<(), Self::Error> {
            let $s = self;
            let called = $inner.observe(now, observation, view, out);
            called.map_err(|$e| $convert)
        }

        fn wake(
            &mut self,
            now: Time,
            view: &Self::View,
            out: &mut Vec<Self::Command>,
        ) -> Result<(), Self::Error> {
            let $s = self;
            let called = $inner.wake(now, view, out);
            called.map_err(|$e| $convert)
        }

        fn next_wake(&self) -> Option<Time> {
            let $s = self;
            $inner.next_wake()
        }
    };
}

impl<P, F, E> Policy for MapErr<P, F>
where
    P: Policy,
    F: FnMut(P::Error) -> E,
{
    type Observation = P::Observation;
    type Command = P::Command;
    type View = P::View;
    type Error = E;
    delegate_policy!(s => s.policy, e => (s.f)(e));
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
    delegate_policy!(s => s.policy, e => e.into());
}

impl<P: Policy + ?Sized> Policy for Box<P> {
    type Observation = P::Observation;
    type Command = P::Command;
    type View = P::View;
    type Error = P::Error;
    delegate_policy!(s => (**s), e => e);
}

impl<P: Policy + ?Sized> Policy for &mut P {
    type Observation = P::Observation;
    type Command = P::Command;
    type View = P::View;
    type Error = P::Error;
    delegate_policy!(s => (**s), e => e);
}

/// Calls [`Policy::wake`] once if the policy's wake time is at or before `now`; returns
/// whether it did: one call made by hand. Executors drive their policy through
/// [`crate::driver::Driver`], whose [`wake_due`](crate::driver::Driver::wake_due) wakes it
/// while it is due and schedules its wake events.
pub fn wake_due<P: Policy + ?Sized>(
    policy: &mut P,
    now: Time,
    view: &P::View,
    out: &mut Vec<P::Command>,
) -> Result<bool, P::Error> {
    match policy.next_wake() {
        Some(t) if t <= now => policy.wake(now, view, out).map(|()| true),
        _ => Ok(false),
    }
}

/// Which call a recorded step was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "call", content = "observation")]
pub enum Call<O> {
    /// [`Policy::start`].
    Start,
    /// [`Policy::observe`] with this observation.
    Observe(O),
    /// [`Policy::wake`].
    Wake,
}

/// One recorded call: a line of a recording.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step<O, C> {
    /// Its index in the recording, from 0.
    pub step: u64,
    /// The time passed to the call.
    pub time: Time,
    /// What was called.
    #[serde(flatten)]
    pub call: Call<O>,
    /// A snapshot of the view, when the recorder was given a way to take one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<serde_json::Value>,
    /// The commands the call appended.
    pub commands: Vec<C>,
}

/// [`Step`] as the recorder writes it, borrowing its parts.
#[derive(Serialize)]
struct StepRef<'a, O, C> {
    step: u64,
    time: Time,
    #[serde(flatten)]
    call: Call<&'a O>,
    #[serde(skip_serializing_if = "Option::is_none")]
    view: Option<serde_json::Value>,
    commands: &'a [C],
}

/// Why recording failed.
#[derive(Debug, Error)]
pub enum RecordError<E> {
    /// The wrapped policy failed; nothing was written for the call.
    #[error("policy: {0}")]
    Policy(#[source] E),
    /// The step could not be encoded.
    #[error("recording step {step}: cannot encode as JSON: {source}")]
    Encode {
        /// The step.
        step: u64,
        /// The encoder's error.
        source: serde_json::Error,
    },
    /// The step could not be written.
    #[error("recording step {step}: cannot write: {source}")]
    Write {
        /// The step.
        step: u64,
        /// The writer's error.
        source: std::io::Error,
    },
}

/// Takes a snapshot of the view for a recording, where the call needs one: given the call
/// (its observation, for [`Call::Observe`]) and the view, `None` records no view. A policy that
/// reads the view only at start snapshots only [`Call::Start`]; one whose answer to an
/// observation depends on what the view says about that observation's items snapshots what
/// it asks (the call says which items).
pub type ViewSnapshot<O, V> = fn(Call<&O>, &V) -> Option<serde_json::Value>;

/// Wraps a policy and writes every call as one JSON line of [`Step`]; it is itself a policy of
/// the same protocol, so any executor records by running the wrapper.
///
/// ```
/// use cosched_core::policy::{Policy, Recorder, replay};
/// use cosched_core::Time;
///
/// /// Echoes each observation as a command.
/// #[derive(Clone, serde::Serialize, serde::Deserialize)]
/// struct Echo;
/// impl Policy for Echo {
///     type Observation = u32;
///     type Command = u32;
///     type View = ();
///     type Error = std::convert::Infallible;
///     fn observe(&mut self, _: Time, o: &u32, _: &(), out: &mut Vec<u32>) -> Result<(), Self::Error> {
///         out.push(*o);
///         Ok(())
///     }
/// }
/// let mut rec = Recorder::new(Echo, Vec::new());
/// let mut out = Vec::new();
/// rec.start(Time(0), &(), &mut out).unwrap();
/// rec.observe(Time(5), &7, &(), &mut out).unwrap();
/// let (_, lines) = rec.into_parts();
/// let outcome = replay(&mut Echo, lines.as_slice(), |_| Ok::<_, std::convert::Infallible>(())).unwrap();
/// assert_eq!(outcome.steps, 2);
/// ```
pub struct Recorder<P: Policy, W> {
    policy: P,
    writer: W,
    step: u64,
    snapshot: Option<ViewSnapshot<P::Observation, P::View>>,
}

impl<P: Policy, W: Write> Recorder<P, W> {
    /// Records `policy`'s calls into `writer`, without view snapshots.
    pub fn new(policy: P, writer: W) -> Self {
        Recorder {
            policy,
            writer,
            step: 0,
            snapshot: None,
        }
    }

    /// Records `policy`'s calls with a snapshot of the view taken by `snapshot` where it
    /// returns one, for policies whose decisions depend on the view.
    pub fn with_view_snapshot(
        policy: P,
        writer: W,
        snapshot: ViewSnapshot<P::Observation, P::View>,
    ) -> Self {
        Recorder {
            snapshot: Some(snapshot),
            ..Recorder::new(policy, writer)
        }
    }

    /// The wrapped policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The policy and the writer.
    pub fn into_parts(self) -> (P, W) {
        (self.policy, self.writer)
    }

    /// Writes the step of a call that returned `called` (nothing when it failed).
    fn record(
        &mut self,
        called: Result<(), P::Error>,
        now: Time,
        call: Call<&P::Observation>,
        view: &P::View,
        commands: &[P::Command],
    ) -> Result<(), RecordError<P::Error>>
    where
        P::Observation: Serialize,
        P::Command: Serialize,
    {
        called.map_err(RecordError::Policy)?;
        let step = self.step;
        let view = self.snapshot.and_then(|f| f(call.clone(), view));
        let line = StepRef {
            step,
            time: now,
            call,
            view,
            commands,
        };
        serde_json::to_writer(&mut self.writer, &line)
            .map_err(|source| RecordError::Encode { step, source })?;
        self.writer
            .write_all(b"\n")
            .map_err(|source| RecordError::Write { step, source })?;
        self.step += 1;
        Ok(())
    }
}

impl<P, W> Policy for Recorder<P, W>
where
    P: Policy,
    P::Observation: Serialize,
    P::Command: Serialize,
    W: Write,
{
    type Observation = P::Observation;
    type Command = P::Command;
    type View = P::View;
    type Error = RecordError<P::Error>;

    fn start(
        &mut self,
        now: Time,
        view: &Self::View,
        out: &mut Vec<Self::Command>,
    ) -> Result<(), Self::Error> {
        let from = out.len();
        let called = self.policy.start(now, view, out);
        self.record(called, now, Call::Start, view, &out[from..])
    }

    fn observe(
        &mut self,
        now: Time,
        observation: &Self::Observation,
        view: &Self::View,
        out: &mut Vec<Self::Command>,
    ) -> Result<(), Self::Error> {
        let from = out.len();
        let called = self.policy.observe(now, observation, view, out);
        self.record(called, now, Call::Observe(observation), view, &out[from..])
    }

    fn wake(
        &mut self,
        now: Time,
        view: &Self::View,
        out: &mut Vec<Self::Command>,
    ) -> Result<(), Self::Error> {
        let from = out.len();
        let called = self.policy.wake(now, view, out);
        self.record(called, now, Call::Wake, view, &out[from..])
    }

    fn next_wake(&self) -> Option<Time> {
        self.policy.next_wake()
    }
}

/// Why a recording could not be read.
#[derive(Debug, Error)]
pub enum ReadError {
    /// A line could not be read.
    #[error("recording line {line}: cannot read: {source}")]
    Read {
        /// The 1-based line.
        line: u64,
        /// The reader's error.
        source: std::io::Error,
    },
    /// A line is not a step of this protocol.
    #[error("recording line {line}: not a step of this policy's protocol: {source}")]
    Decode {
        /// The 1-based line.
        line: u64,
        /// The decoder's error.
        source: serde_json::Error,
    },
}

/// Why a replay stopped.
#[derive(Debug, Error)]
pub enum ReplayError<E, VE> {
    /// The recording could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The view could not be rebuilt from the step's snapshot.
    #[error("step {step}: cannot rebuild the view: {source}")]
    View {
        /// The step.
        step: u64,
        /// The view builder's error.
        source: VE,
    },
    /// The policy failed where the recorded one did not.
    #[error("step {step} at {time}: the policy failed: {source}")]
    Policy {
        /// The step.
        step: u64,
        /// Its time.
        time: Time,
        /// The policy's error.
        source: E,
    },
    /// The policy returned other commands than the recording.
    #[error("step {step} at {time}: recorded {recorded}, replayed {replayed}")]
    Diverged {
        /// The step.
        step: u64,
        /// Its time.
        time: Time,
        /// The recorded commands, as Debug text.
        recorded: String,
        /// The replayed commands, as Debug text.
        replayed: String,
    },
}

/// What a replay that matched saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayOutcome {
    /// Steps replayed.
    pub steps: u64,
    /// Commands compared.
    pub commands: u64,
}

/// Decodes a recording, one [`Step`] a line (blank lines skipped).
pub fn read_steps<O, C, R>(reader: R) -> impl Iterator<Item = Result<Step<O, C>, ReadError>>
where
    O: DeserializeOwned,
    C: DeserializeOwned,
    R: BufRead,
{
    reader
        .lines()
        .enumerate()
        .filter(|(_, l)| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
        .map(|(i, line)| {
            let line_no = i as u64 + 1;
            let line = line.map_err(|source| ReadError::Read {
                line: line_no,
                source,
            })?;
            serde_json::from_str(&line).map_err(|source| ReadError::Decode {
                line: line_no,
                source,
            })
        })
}

/// Replays one recorded step into `policy` and checks it returns the recorded commands.
/// `view` rebuilds the view from the step's snapshot (`None` when none was recorded).
pub fn replay_step<P, V, VE>(
    policy: &mut P,
    step: &Step<P::Observation, P::Command>,
    view: impl FnOnce(Option<&serde_json::Value>) -> Result<V, VE>,
    out: &mut Vec<P::Command>,
) -> Result<(), ReplayError<P::Error, VE>>
where
    P: Policy + ?Sized,
    P::Command: PartialEq + Debug,
    V: Borrow<P::View>,
{
    let view = view(step.view.as_ref()).map_err(|source| ReplayError::View {
        step: step.step,
        source,
    })?;
    let view = view.borrow();
    out.clear();
    match &step.call {
        Call::Start => policy.start(step.time, view, out),
        Call::Observe(o) => policy.observe(step.time, o, view, out),
        Call::Wake => policy.wake(step.time, view, out),
    }
    .map_err(|source| ReplayError::Policy {
        step: step.step,
        time: step.time,
        source,
    })?;
    if *out != step.commands {
        return Err(ReplayError::Diverged {
            step: step.step,
            time: step.time,
            recorded: format!("{:?}", step.commands),
            replayed: format!("{out:?}"),
        });
    }
    Ok(())
}

/// Feeds a whole recording to `policy`, checking every step's commands.
pub fn replay<P, R, V, VE>(
    policy: &mut P,
    reader: R,
    mut view: impl FnMut(Option<&serde_json::Value>) -> Result<V, VE>,
) -> Result<ReplayOutcome, ReplayError<P::Error, VE>>
where
    P: Policy + ?Sized,
    P::Observation: DeserializeOwned,
    P::Command: DeserializeOwned + PartialEq + Debug,
    V: Borrow<P::View>,
    R: BufRead,
{
    let mut outcome = ReplayOutcome::default();
    let mut out = Vec::new();
    for step in read_steps::<P::Observation, P::Command, R>(reader) {
        replay_step(policy, &step?, &mut view, &mut out)?;
        outcome.steps += 1;
        outcome.commands += out.len() as u64;
    }
    Ok(outcome)
}
