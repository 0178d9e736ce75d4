//! The batch simulator drives any policy of the batch protocol through core's driver: one
//! whose error is `Infallible`, that starts jobs only when woken, runs as the built-in ones do.

use cosched_batch::{BatchCluster, BatchCommand, BatchSim, Pass, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, RigidJob, Time};
use std::convert::Infallible;

/// Starts queued jobs (in order, while they fit) only at its wakes, every `period` seconds
/// from its start: a batch window.
#[derive(Debug, Default)]
struct Windows {
    period: i64,
    next: Option<Time>,
    wakes: Vec<Time>,
}

impl Policy for Windows {
    type Observation = SchedulingPass;
    type Command = BatchCommand;
    type View = BatchCluster;
    type Error = Infallible;

    fn start(
        &mut self,
        now: Time,
        _: &BatchCluster,
        _: &mut Vec<BatchCommand>,
    ) -> Result<(), Infallible> {
        self.next = Some(Time(now.secs() + self.period));
        Ok(())
    }

    fn observe(
        &mut self,
        _: Time,
        _: &SchedulingPass,
        _: &BatchCluster,
        _: &mut Vec<BatchCommand>,
    ) -> Result<(), Infallible> {
        Ok(())
    }

    fn wake(
        &mut self,
        now: Time,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> Result<(), Infallible> {
        self.wakes.push(now);
        let mut pass = Pass::new(now, view, out);
        pass.start_while_fits();
        self.next = Some(Time(now.secs() + self.period));
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        self.next
    }
}

#[test]
fn an_infallible_policy_started_by_its_wakes_runs() {
    let job = |id, submit, size, run| {
        RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run)).unwrap()
    };
    let jobs = [job(1, 5, 2, 30), job(2, 7, 2, 30), job(3, 130, 4, 10)];
    let mut policy = Windows {
        period: 100,
        ..Windows::default()
    };
    let out = BatchSim::new(4).unwrap().run(&mut policy, &jobs).unwrap();
    let starts: Vec<_> = out.records.iter().map(|r| (r.id.0, r.start)).collect();
    // Both small jobs wait for the window at 105; the wide one for the window at 205.
    assert_eq!(
        starts,
        [
            (1, Some(Time(105))),
            (2, Some(Time(105))),
            (3, Some(Time(205)))
        ]
    );
    // Woken at each window armed while work remained (the one at 305 was armed while job 3
    // ran), and at none after.
    assert_eq!(policy.wakes, [Time(105), Time(205), Time(305)]);
}
