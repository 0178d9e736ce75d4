//! The position hint a batch command carries is checked, never trusted: a policy whose hints
//! are wrong (another job's position, a gap, past the queue, missing) gets the schedule its
//! commands name, the same as with the hints `Pass` writes.

use cosched_batch::scenario::BuiltinPolicy;
use cosched_batch::{
    BatchCluster, BatchCommand, BatchError, BatchJob, BatchPolicy, BatchSim, Pass, SchedulingPass,
};
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, RigidJob, Time};

#[expect(dead_code, reason = "the burst shape serves the deep-backlog tests")]
mod shapes;

/// A rewrite of the `i`-th command's position hint.
type Hint = fn(usize, Option<usize>) -> Option<usize>;

/// Runs `inner` and rewrites the position hint of each of its commands with `hint`.
struct Rehinted<P> {
    inner: P,
    hint: Hint,
}

impl<P: BatchPolicy> Policy for Rehinted<P> {
    type Observation = SchedulingPass;
    type Command = BatchCommand;
    type View = BatchCluster;
    type Error = BatchError;

    fn observe(
        &mut self,
        now: Time,
        pass: &SchedulingPass,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> Result<(), BatchError> {
        let from = out.len();
        self.inner.observe(now, pass, view, out)?;
        for (i, command) in out[from..].iter_mut().enumerate() {
            let hint = self.hint;
            match command {
                BatchCommand::Start { at, .. } | BatchCommand::StartResized { at, .. } => {
                    *at = hint(i, *at);
                }
            }
        }
        Ok(())
    }
}

/// The schedule of `policy` on 1,000 jobs of mixed sizes arriving faster than they run, with
/// estimates far above their run times: every policy backfills out of queue order.
fn starts<P: BatchPolicy>(mut policy: P) -> Vec<(JobId, Option<Time>)> {
    let jobs = shapes::staggered_backlog(1_000);
    let out = BatchSim::new(shapes::CAPACITY)
        .unwrap()
        .run(&mut policy, &jobs)
        .unwrap();
    assert_eq!(out.report.completed, 1_000);
    out.records.iter().map(|r| (r.id, r.start)).collect()
}

#[test]
fn wrong_hints_give_the_same_schedule() {
    let wrong: [(&str, Hint); 5] = [
        ("missing", |_, _| None),
        ("the next position", |_, at| at.map(|p| p + 1)),
        ("the previous position", |_, at| {
            at.map(|p| p.saturating_sub(1))
        }),
        ("always 0", |_, _| Some(0)),
        ("past any queue", |i, _| Some(usize::MAX - i)),
    ];
    for policy in BuiltinPolicy::ALL {
        let expected = starts(policy.build());
        for (name, hint) in wrong {
            let got = starts(Rehinted {
                inner: policy.build(),
                hint,
            });
            assert_eq!(got, expected, "{policy}, hints {name}");
        }
    }
}

#[test]
fn a_hint_naming_another_job_starts_the_named_job() {
    let mut cluster = BatchCluster::counted(4).unwrap();
    for id in 1..=3 {
        let job = RigidJob::new(JobId(id), Time(0), 2, Duration(10), Duration(10)).unwrap();
        cluster.submit(BatchJob::rigid(&job)).unwrap();
    }
    // Positions as a policy sees them.
    let mut out = Vec::new();
    let pass = Pass::new(Time(0), &cluster, &mut out);
    let first = pass.next_queued(0).unwrap();
    let third = pass.position_of(JobId(3)).unwrap();
    assert_ne!(first, third);
    // Start job 3 with job 1's position as the hint: job 3 starts, job 1 waits.
    let mut command = BatchCommand::start(pass.job(third).unwrap());
    if let BatchCommand::Start { at, .. } = &mut command {
        *at = Some(first);
    }
    drop(pass);
    let mut started = Vec::new();
    cluster.apply(Time(0), &[command], &mut started).unwrap();
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].token.job, JobId(3));
    assert!(cluster.queued_job(JobId(1)).is_some());
    assert!(cluster.queued_job(JobId(3)).is_none());
    // A command naming a job that is not queued fails, whatever its hint.
    let gone = BatchCommand::Start {
        job: JobId(3),
        submit: Time(0),
        at: Some(first),
    };
    assert!(matches!(
        cluster.apply(Time(0), &[gone], &mut started),
        Err(BatchError::NotQueued(JobId(3)))
    ));
}
