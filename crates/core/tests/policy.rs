//! The policy protocol: recording and replay round-trip, divergence is caught, a serde restart
//! mid-recording changes nothing, wakes are pulled.

use cosched_core::Time;
use cosched_core::policy::{
    Policy, Recorder, ReplayError, read_steps, replay, replay_step, wake_due,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// A token bucket: each observation asks for units; the bucket refills by `rate` at each wake,
/// every `period` seconds after the first request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Bucket {
    tokens: u32,
    cap: u32,
    rate: u32,
    period: i64,
    next: Option<Time>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Cmd {
    Grant(u32),
    Refuse(u32),
}

impl Policy for Bucket {
    type Observation = u32;
    type Command = Cmd;
    /// A multiplier the executor lends (tests a recorded view).
    type View = u32;
    type Error = String;

    fn start(&mut self, now: Time, _: &u32, _: &mut Vec<Cmd>) -> Result<(), String> {
        self.next = Some(Time(now.secs() + self.period));
        Ok(())
    }
    fn observe(&mut self, _: Time, o: &u32, view: &u32, out: &mut Vec<Cmd>) -> Result<(), String> {
        let want = o.checked_mul(*view).ok_or("overflow")?;
        if want <= self.tokens {
            self.tokens -= want;
            out.push(Cmd::Grant(*o));
        } else {
            out.push(Cmd::Refuse(*o));
        }
        Ok(())
    }
    fn wake(&mut self, now: Time, _: &u32, _: &mut Vec<Cmd>) -> Result<(), String> {
        self.tokens = (self.tokens + self.rate).min(self.cap);
        self.next = Some(Time(now.secs() + self.period));
        Ok(())
    }
    fn next_wake(&self) -> Option<Time> {
        self.next
    }
}

fn bucket() -> Bucket {
    Bucket {
        tokens: 5,
        cap: 10,
        rate: 3,
        period: 7,
        next: None,
    }
}

/// Runs `events` (time gaps, request sizes, view) through a recorded bucket; returns the lines.
fn record(events: &[(i64, u32, u32)]) -> Vec<u8> {
    let mut rec =
        Recorder::with_view_snapshot(bucket(), Vec::new(), |_, v: &u32| Some((*v).into()));
    let mut out = Vec::new();
    rec.start(Time(0), &1, &mut out).unwrap();
    let mut now = 0;
    for &(gap, units, view) in events {
        now += gap;
        while rec.next_wake().is_some_and(|t| t <= Time(now)) {
            wake_due(&mut rec, Time(now), &view, &mut out).unwrap();
        }
        rec.observe(Time(now), &units, &view, &mut out).unwrap();
    }
    rec.into_parts().1
}

fn view_of(v: Option<&serde_json::Value>) -> Result<u32, &'static str> {
    v.and_then(|v| v.as_u64())
        .and_then(|v| u32::try_from(v).ok())
        .ok_or("no view")
}

proptest! {
    /// A recording replays identically into a fresh policy.
    #[test]
    fn recording_replays(events in prop::collection::vec((0i64..20, 0u32..6, 1u32..3), 0..60)) {
        let lines = record(&events);
        let outcome = replay(&mut bucket(), lines.as_slice(), view_of).unwrap();
        prop_assert!(outcome.steps as usize > events.len());
    }

    /// Serialising the policy half-way and continuing from the restored state changes nothing.
    #[test]
    fn restart_mid_recording(events in prop::collection::vec((0i64..20, 0u32..6, 1u32..3), 1..60),
                             cut in 0usize..100) {
        let lines = record(&events);
        let steps: Vec<_> = read_steps::<u32, Cmd, _>(lines.as_slice()).collect::<Result<_, _>>().unwrap();
        let cut = cut % steps.len();
        let mut policy = bucket();
        let mut out = Vec::new();
        for s in &steps[..cut] {
            replay_step(&mut policy, s, view_of, &mut out).unwrap();
        }
        let json = serde_json::to_string(&policy).unwrap();
        let mut restored: Bucket = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&restored, &policy);
        for s in &steps[cut..] {
            replay_step(&mut restored, s, view_of, &mut out).unwrap();
        }
    }
}

#[test]
fn a_different_policy_diverges() {
    let lines = record(&[(1, 4, 1), (1, 4, 1), (10, 4, 1)]);
    let mut other = Bucket {
        tokens: 0,
        ..bucket()
    };
    let err = replay(&mut other, lines.as_slice(), view_of).unwrap_err();
    match err {
        ReplayError::Diverged {
            step,
            recorded,
            replayed,
            ..
        } => {
            assert_eq!(step, 1);
            assert_eq!(recorded, "[Grant(4)]");
            assert_eq!(replayed, "[Refuse(4)]");
        }
        e => panic!("expected a divergence, got {e}"),
    }
}

#[test]
fn a_corrupt_line_is_named() {
    let mut lines = record(&[(1, 1, 1)]);
    lines.extend_from_slice(b"{\"step\": 9}\n");
    let err = replay(&mut bucket(), lines.as_slice(), view_of).unwrap_err();
    assert!(err.to_string().starts_with("recording line 3:"), "{err}");
}

#[test]
fn policy_errors_pass_through_the_recorder() {
    let mut rec = Recorder::new(bucket(), Vec::new());
    let mut out = Vec::new();
    let err = rec.observe(Time(0), &u32::MAX, &2, &mut out).unwrap_err();
    assert_eq!(err.to_string(), "policy: overflow");
    assert!(
        rec.into_parts().1.is_empty(),
        "a failed call writes nothing"
    );
}

#[test]
fn boxed_policies_run_where_concrete_ones_do() {
    let mut boxed: Box<dyn Policy<Observation = u32, Command = Cmd, View = u32, Error = String>> =
        Box::new(bucket());
    let mut out = Vec::new();
    boxed.start(Time(0), &1, &mut out).unwrap();
    assert_eq!(boxed.next_wake(), Some(Time(7)));
    assert!(!wake_due(&mut boxed, Time(6), &1, &mut out).unwrap());
    assert!(wake_due(&mut boxed, Time(7), &1, &mut out).unwrap());
    boxed.observe(Time(7), &8, &1, &mut out).unwrap();
    assert_eq!(out, vec![Cmd::Grant(8)]);
}

/// The error adapters: a policy whose error is another type runs where `String` is asked for,
/// converted by a function or by `Into`, and its state serialises as the policy's own.
#[test]
fn error_adapters_convert_and_serialise_as_the_policy() {
    type Boxed = Box<dyn Policy<Observation = u32, Command = Cmd, View = u32, Error = String>>;
    #[derive(Debug, PartialEq)]
    struct Short(u32);
    impl From<Short> for String {
        fn from(s: Short) -> String {
            format!("short by {}", s.0)
        }
    }
    /// Refuses any request above 3 with its own error type.
    #[derive(Clone, Serialize, Deserialize)]
    struct Strict;
    impl Policy for Strict {
        type Observation = u32;
        type Command = Cmd;
        type View = u32;
        type Error = Short;
        fn observe(&mut self, _: Time, o: &u32, _: &u32, out: &mut Vec<Cmd>) -> Result<(), Short> {
            if *o > 3 {
                return Err(Short(*o - 3));
            }
            out.push(Cmd::Grant(*o));
            Ok(())
        }
    }
    let mut out = Vec::new();
    let mut mapped: Boxed = Box::new(Strict.map_err(|e| format!("{e:?}")));
    assert_eq!(
        mapped.observe(Time(0), &5, &1, &mut out),
        Err("Short(2)".into())
    );
    let mut into: Boxed = Box::new(Strict.err_into());
    assert_eq!(
        into.observe(Time(0), &4, &1, &mut out),
        Err("short by 1".into())
    );
    into.observe(Time(0), &2, &1, &mut out).unwrap();
    assert_eq!(out, [Cmd::Grant(2)]);
    let wrapped = bucket().err_into::<String>();
    let json = serde_json::to_string(&wrapped).unwrap();
    assert_eq!(json, serde_json::to_string(&bucket()).unwrap());
    let back: cosched_core::policy::ErrInto<Bucket, String> = serde_json::from_str(&json).unwrap();
    assert_eq!(back.get_ref(), &bucket());
}

/// A recorder takes the view's snapshot only where its function asks for one.
#[test]
fn the_view_is_snapshot_only_where_asked() {
    use cosched_core::policy::Call;
    let mut rec = Recorder::with_view_snapshot(bucket(), Vec::new(), |call, v: &u32| {
        matches!(call, Call::Start).then(|| (*v).into())
    });
    let mut out = Vec::new();
    rec.start(Time(0), &2, &mut out).unwrap();
    rec.observe(Time(1), &1, &2, &mut out).unwrap();
    let lines = rec.into_parts().1;
    let steps: Vec<_> = read_steps::<u32, Cmd, _>(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let views: Vec<_> = steps.iter().map(|s| s.view.clone()).collect();
    assert_eq!(views, [Some(2.into()), None]);
}
