//! The simulator's environment stepped by an outside clock, for a live executor: the same
//! events become the same observations and the policy's commands the same changes, but the
//! runs' ends are those a platform reports, and what the platform must do is handed out as
//! [`Action`]s.

use super::*;

/// What a platform carries out for a stepped run, at the instant the environment decided it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Start (or restart) batch job `job` on `nodes`, for `run` seconds.
    Start {
        /// The job.
        job: JobId,
        /// Its nodes.
        nodes: Vec<NodeId>,
        /// How long this run lasts (its setup, its work left, its checkpoints).
        run: Duration,
    },
    /// Stop running batch job `job` and requeue it (it waits for a [`Action::Start`]).
    Preempt {
        /// The job.
        job: JobId,
    },
    /// Resize running malleable job `job` to `nodes` (a shrink keeps a prefix of its nodes),
    /// after which it runs `run` seconds more.
    Resize {
        /// The job.
        job: JobId,
        /// The nodes it keeps (or holds after an expansion).
        nodes: Vec<NodeId>,
        /// Its remaining run time.
        run: Duration,
    },
    /// Start on-demand job `job` on `nodes`, for `run` seconds.
    StartOnDemand {
        /// The job.
        job: JobId,
        /// Its nodes.
        nodes: Vec<NodeId>,
        /// Its run time.
        run: Duration,
    },
}

/// A run of [`HybridSim`]'s environment whose time and job ends come from outside, for a live
/// executor: the same events become the same observations and the policy's commands the same
/// changes, but the runs' ends are those a platform reports, and what the platform must do is
/// handed out as [`Action`]s. Made by [`HybridSim::stepped`].
///
/// ```
/// use cosched_core::{Duration, JobId, RigidJob, Time};
/// use cosched_hybrid::sim::Action;
/// use cosched_hybrid::{HybridConfig, HybridJob, HybridSim, scenario};
/// let job = RigidJob::new(JobId(1), Time(0), 2, Duration(50), Duration(60)).unwrap();
/// let jobs = [HybridJob::Rigid { job, setup: Duration(0) }];
/// let mut policy = scenario::baseline();
/// let sim = HybridSim::new(HybridConfig::new(4).unwrap()).unwrap();
/// let mut run = sim.stepped(&mut policy, &jobs).unwrap();
/// run.step(Time(0), &[]).unwrap();
/// let actions = run.take_actions();
/// assert!(matches!(&actions[..], [(Time(0), Action::Start { job: JobId(1), .. })]));
/// // The platform reports the end (a little late): the job completes then.
/// run.step(Time(53), &[JobId(1)]).unwrap();
/// assert!(run.is_done());
/// assert_eq!(run.finish().records[0].end, Some(Time(53)));
/// ```
pub struct Stepped<'p, P: HybridWorkloadPolicy + ?Sized> {
    sim: Sim<'p, P>,
    queue: EventQueue<Ev>,
    label: String,
    last: Option<Time>,
}

impl HybridSim {
    /// A run of `jobs` under `policy` stepped from outside ([`Stepped`]). Node failures are
    /// the platform's, not drawn: a configuration that injects them is refused.
    pub fn stepped<'p, P>(
        &self,
        policy: &'p mut P,
        jobs: &[HybridJob],
    ) -> Result<Stepped<'p, P>, SimError<P::Error>>
    where
        P: HybridWorkloadPolicy + ?Sized,
    {
        ParamError::check(
            self.config.failures.is_none(),
            "failures",
            "injected",
            "a stepped run's failures are its platform's",
        )
        .map_err(HybridError::from)?;
        let (sim, queue) = self.prepare(policy, jobs, Some(External::default()))?;
        Ok(Stepped {
            sim,
            queue,
            label: self.label.clone(),
            last: None,
        })
    }
}

impl<P: HybridWorkloadPolicy + ?Sized> Stepped<'_, P> {
    /// The time of the next event the environment handles by itself (an arrival, a
    /// submission, a notice, a timer); ends come from [`Stepped::step`].
    pub fn next_event(&self) -> Option<Time> {
        self.queue.peek_time()
    }

    /// Brings the environment to `now`: the events due before it at their own instants,
    /// then at `now` the ends of the runs of `ended` (as the platform reports them, in any
    /// order: they are delivered in the simulator's; a job that has no run is skipped), the events due at `now`, and the settle rounds. A time
    /// before the last step's is refused.
    pub fn step(&mut self, now: Time, ended: &[JobId]) -> Result<(), SimError<P::Error>> {
        if self.last.is_some_and(|last| now < last) {
            return Err(HybridError::from(ParamError::new(
                "now",
                now.0,
                "is before the last step",
            ))
            .into());
        }
        self.last = Some(now);
        while self.queue.peek_time().is_some_and(|at| at < now) {
            if let Some((at, first)) = self.queue.pop() {
                self.instant(at, Some(first))?;
            }
        }
        // In the order the simulator queues them (the order it delivers ends at one instant).
        let mut ends: Vec<(u64, Ev)> = match self.sim.env.external.as_mut() {
            Some(external) => ended
                .iter()
                .filter_map(|job| external.ends.remove(job))
                .collect(),
            None => Vec::new(),
        };
        ends.sort_unstable_by_key(|&(queued, _)| queued);
        let handled = !ends.is_empty();
        for (_, ev) in ends {
            self.sim.handle(now, ev, &mut self.queue)?;
        }
        let first = if self.queue.peek_time() == Some(now) {
            self.queue.pop().map(|(_, ev)| ev)
        } else {
            None
        };
        if handled || first.is_some() {
            self.instant(now, first)?;
        }
        Ok(())
    }

    /// One instant: `first` and every other event due at `now`, then the settle rounds.
    fn instant(&mut self, now: Time, first: Option<Ev>) -> Result<(), SimError<P::Error>> {
        if let Some(ev) = first {
            self.sim.handle(now, ev, &mut self.queue)?;
        }
        while let Some(ev) = self.queue.pop_now() {
            self.sim.handle(now, ev, &mut self.queue)?;
        }
        self.sim.settle(now, &mut self.queue)
    }

    /// The actions decided since the last call, in order, with their instants.
    pub fn take_actions(&mut self) -> Vec<(Time, Action)> {
        self.sim
            .env
            .external
            .as_mut()
            .map(|e| std::mem::take(&mut e.actions))
            .unwrap_or_default()
    }

    /// Whether every job completed or was rejected.
    pub fn is_done(&self) -> bool {
        self.sim.env.outstanding == 0
    }

    /// The run so far as the simulator reports a run: records, accounts, the ledger.
    pub fn finish(self) -> HybridOutcome {
        self.sim.env.finish(&self.label)
    }
}
