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
    notices: bool,
    /// When the run started (its first job's submission): nothing comes before.
    start: Time,
}

/// Where an on-demand job of a stepped run is ([`Stepped::on_demand`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum OnDemandStatus {
    /// Admitted, not arrived yet.
    Announced,
    /// Larger than the system: rejected at its arrival.
    Rejected,
    /// Arrived; the policy holds `held` of its `size` nodes and waits for the others (busy
    /// with jobs the mechanism does not preempt or shrink, or reserved for earlier notices).
    Waiting {
        /// Nodes it holds already.
        held: u32,
        /// Nodes it needs.
        size: u32,
    },
    /// Handed to the batch scheduler as a batch job (the baseline's way), queued there.
    QueuedAsBatch,
    /// Running since `start` on `nodes`.
    Running {
        /// When its run started.
        start: Time,
        /// Its nodes.
        nodes: Vec<NodeId>,
    },
    /// Completed at `end`.
    Completed {
        /// Its end.
        end: Time,
    },
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
        let start = sim
            .env
            .jobs
            .first()
            .map_or(Time::ZERO, |st| st.spec.submit());
        Ok(Stepped {
            sim,
            queue,
            label: self.label.clone(),
            last: None,
            notices: self.notices,
            start,
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

    /// Checks that `at` comes after the last step (the instants before are handled) and not
    /// before the run's start, as an event given from outside must.
    fn after_last(&self, what: &'static str, at: Time) -> Result<(), SimError<P::Error>> {
        if at < self.start {
            return Err(HybridError::from(ParamError::new(
                what,
                at.0,
                "must not come before the run's start (its first submission)",
            ))
            .into());
        }
        if self.last.is_some_and(|last| at <= last) {
            return Err(HybridError::from(ParamError::new(
                what,
                at.0,
                "must come after the last step",
            ))
            .into());
        }
        Ok(())
    }

    /// As [`Stepped::step`], each run of `ended` accounted until the time the platform gives
    /// for its end (within the run and `now`; `None`: until `now`): the policy is told of
    /// the end at `now`, when the platform reported it, but the record, the account and the
    /// ledger end when the run did.
    pub fn step_ended_at(
        &mut self,
        now: Time,
        ended: &[(JobId, Option<Time>)],
    ) -> Result<(), SimError<P::Error>> {
        if let Some(external) = self.sim.env.external.as_mut() {
            for &(job, at) in ended {
                if let Some(at) = at.filter(|_| external.ends.contains_key(&job)) {
                    external.ended_at.insert(job, at);
                }
            }
        }
        let jobs: Vec<JobId> = ended.iter().map(|&(job, _)| job).collect();
        self.step(now, &jobs)
    }

    /// Delivers advance notice `notice` at its time `notice.at` (after the last step), for a
    /// job not yet in the run (its arrival comes by [`Stepped::arrive`]); ignored by a
    /// simulator built [`HybridSim::with_notices`]`(false)`. At one instant the workload's
    /// notices come first, then these in the order given (the simulator of the whole
    /// workload orders them by arrival: the same unless two notices share a second).
    pub fn notice(&mut self, notice: Notice) -> Result<(), SimError<P::Error>> {
        self.after_last("notice at", notice.at)?;
        ParamError::check(notice.size >= 1, "size", notice.size, "must be >= 1")
            .map_err(HybridError::from)?;
        if self.notices {
            self.queue
                .schedule(notice.at, Ev::LateNotice(notice))
                .map_err(|e| HybridError::from(engine::EngineError::from(e)))?;
        }
        Ok(())
    }

    /// Admits on-demand job `job`, not in the workload, arriving at `job.arrival` (after the
    /// last step): validated, its id new. At its instant it arrives after the workload's
    /// entries, and jobs admitted so come in the order admitted, so the run decides as
    /// [`HybridSim::run`] does on the workload with the job added (its id above the
    /// workload's).
    pub fn arrive(&mut self, job: OnDemandJob) -> Result<(), SimError<P::Error>> {
        self.after_last("arrival", job.arrival)?;
        self.sim.env.admit_late(job)?;
        self.sim.env.flush(&mut self.queue)?;
        Ok(())
    }

    /// Where on-demand job `job` is, if the run has it.
    pub fn on_demand(&self, job: JobId) -> Option<OnDemandStatus> {
        let env = &self.sim.env;
        let i = env.index.get(job)?;
        let st = &env.jobs[i];
        let HybridJob::OnDemand(spec) = st.spec else {
            return None;
        };
        let record = &env.records[i];
        let arrived = self.last.is_some_and(|last| last >= spec.arrival);
        Some(if let Some(end) = record.end {
            OnDemandStatus::Completed { end }
        } else if let Some(run) = st.run {
            OnDemandStatus::Running {
                start: run.start,
                nodes: if st.od_nodes.is_empty() {
                    // Run by the batch scheduler (the baseline).
                    env.cluster
                        .job_nodes(job)
                        .map(<[_]>::to_vec)
                        .unwrap_or_default()
                } else {
                    st.od_nodes.clone()
                },
            }
        } else if !arrived {
            OnDemandStatus::Announced
        } else if spec.size > env.config.nodes {
            OnDemandStatus::Rejected
        } else if env.cluster.queued_job(job).is_some() {
            OnDemandStatus::QueuedAsBatch
        } else {
            OnDemandStatus::Waiting {
                held: st.od_nodes.len() as u32,
                size: spec.size,
            }
        })
    }

    /// Jobs waiting: batch jobs in the batch queue and on-demand jobs arrived and not
    /// started.
    pub fn queue_depth(&self) -> usize {
        self.sim.env.cluster.queue_len() + self.sim.env.od_pending
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

    /// When the run started: its first job's submission (0 without jobs); nothing given
    /// from outside may come before.
    pub fn start(&self) -> Time {
        self.start
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
