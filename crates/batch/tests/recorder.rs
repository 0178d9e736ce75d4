//! A batch run recorded with core's `Recorder` (with a snapshot of the cluster each pass reads)
//! replays identically, for each built-in policy, including after a serde round trip of the
//! policy mid-recording.

use cosched_batch::scenario::BuiltinPolicy;
use cosched_batch::{
    BatchCluster, BatchError, BatchPolicy, BatchSim, ClusterSnapshot, SchedulingPass,
};
use cosched_core::policy::{Call, Recorder, read_steps, replay, replay_step};
use cosched_core::{Duration, JobId, RigidJob, Time};

fn snapshot(_: Call<&SchedulingPass>, cluster: &BatchCluster) -> Option<serde_json::Value> {
    Some(serde_json::to_value(cluster.snapshot()).unwrap_or(serde_json::Value::Null))
}

fn view(snapshot: Option<&serde_json::Value>) -> Result<BatchCluster, String> {
    let value = snapshot.ok_or("no snapshot")?;
    let snapshot: ClusterSnapshot =
        serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    BatchCluster::from_snapshot(&snapshot).map_err(|e| e.to_string())
}

/// Jobs that end early, on time and get killed, on 16 units: every policy backfills, and
/// conservative replans.
fn jobs() -> Vec<RigidJob> {
    (0..300u64)
        .map(|i| {
            let size = [1, 2, 3, 5, 8, 13, 16][(i * 7 % 7) as usize];
            let run = (i * 37 % 500 + 1) as i64;
            let estimate = run + (i * 11 % 4) as i64 * 100;
            RigidJob::new(
                JobId(i),
                Time((i * 13) as i64),
                size,
                Duration(run),
                Duration(estimate),
            )
            .unwrap()
        })
        .collect()
}

/// Records a run of `policy`; returns the recording and the simulated starts.
fn record<P: BatchPolicy>(policy: P) -> (Vec<u8>, Vec<(JobId, Option<Time>)>) {
    let mut recorder = Recorder::with_view_snapshot(policy, Vec::new(), snapshot);
    let out = BatchSim::new(16)
        .unwrap()
        .run(&mut recorder, &jobs())
        .unwrap();
    let (_, lines) = recorder.into_parts();
    (lines, out.records.iter().map(|r| (r.id, r.start)).collect())
}

#[test]
fn recorded_runs_replay_identically() {
    for policy in BuiltinPolicy::ALL {
        let (lines, starts) = record(policy.build());
        // The recording drives the same schedule as an unrecorded run.
        let plain = BatchSim::new(16)
            .unwrap()
            .run(&mut policy.build(), &jobs())
            .unwrap();
        let plain: Vec<_> = plain.records.iter().map(|r| (r.id, r.start)).collect();
        assert_eq!(starts, plain, "{policy}");
        let outcome = replay(&mut policy.build(), lines.as_slice(), view).unwrap();
        assert!(outcome.steps > 100, "{policy}: {outcome:?}");
        assert_eq!(outcome.commands, 300, "{policy}: every job started once");
    }
}

#[test]
fn a_policy_restored_mid_recording_replays_identically() {
    let (lines, _) = record(cosched_batch::scenario::conservative());
    let steps: Vec<_> = read_steps(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let mut policy = cosched_batch::scenario::conservative();
    let mut out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        if i == steps.len() / 2 {
            let state = serde_json::to_string(&policy).unwrap();
            policy = serde_json::from_str(&state).unwrap();
        }
        replay_step(&mut policy, step, view, &mut out).unwrap();
    }
    // And EASY, whose head reservation is part of its state.
    let (lines, _) = record(cosched_batch::scenario::easy());
    let steps: Vec<_> = read_steps(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let mut policy = cosched_batch::scenario::easy();
    for (i, step) in steps.iter().enumerate() {
        if i % 50 == 25 {
            let state = serde_json::to_string(&policy).unwrap();
            policy = serde_json::from_str(&state).unwrap();
        }
        replay_step(&mut policy, step, view, &mut out).unwrap();
    }
}

#[test]
fn a_replay_against_another_view_diverges() {
    let (lines, _) = record(cosched_batch::scenario::easy());
    // The same recording replayed with every pass seeing an idle, empty cluster of 16 units:
    // nothing to start, where the recording started jobs.
    let empty = |_: Option<&serde_json::Value>| BatchCluster::counted(16);
    let err = replay(
        &mut cosched_batch::scenario::easy(),
        lines.as_slice(),
        empty,
    )
    .unwrap_err();
    assert!(err.to_string().contains("recorded"), "{err}");
}

#[test]
fn a_failing_writer_stops_the_run_with_a_typed_error() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::StorageFull.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut recorder = Recorder::new(cosched_batch::scenario::fcfs(), Full);
    let err = BatchSim::new(16)
        .unwrap()
        .run(&mut recorder, &jobs())
        .unwrap_err();
    // The policy's call failed (at its start): as a batch error, the recording's failure.
    let err = BatchError::from(err);
    assert!(
        matches!(&err, BatchError::Policy { source, .. }
            if matches!(**source, BatchError::Recording { step: 0, .. })),
        "{err}"
    );
}
