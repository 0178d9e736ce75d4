//! The batch role in the executor: submissions, starts, ends, preemptions, resizes, the
//! batch pass and malleable expansion; and batch jobs routed in from outside (a grid's
//! metascheduler, [`crate::grid`]).

use std::collections::BTreeSet;

use cosched_batch::{BatchJob, Resume, RunToken, Started, Submitted};
use cosched_core::{Duration, JobClass, JobId, JobRecord, NodeId, Time};
use cosched_hybrid::workload::HybridJob;
use cosched_hybrid::{ExpansionCandidate, plan_expansion};

use super::state::RunningJob;
use super::{Ev, Exec, LeaseState, Site, to_batch_job};
use crate::SiteError;
use crate::nodes::NodeUse;
use crate::on_demand::OnDemandObservation;

impl Exec {
    /// The next workload job arrives.
    pub(super) fn batch_arrival(&mut self, now: Time, i: usize) -> Result<(), SiteError> {
        let j = self.workload.batch[i];
        if !matches!(j, HybridJob::OnDemand(_)) {
            self.submit_batch(to_batch_job(&j)?)?;
        }
        if let Some(next) = self.workload.batch.get(i + 1) {
            self.queue
                .schedule(next.submit().max(now), Ev::BatchArrival(i + 1))?;
        }
        Ok(())
    }

    pub(super) fn submit_batch(&mut self, job: BatchJob) -> Result<Submitted, SiteError> {
        self.batch_dirty = true;
        self.state.holds.queue_epoch += 1;
        let submitted = self.state.cluster.submit(job)?;
        if submitted == Submitted::Rejected && job.class != JobClass::OnDemand {
            self.batch_rejected += 1;
            self.records.push(job.unstarted_record());
        }
        Ok(submitted)
    }

    /// The workload job `id`, by the index built at construction.
    fn workload_job(&self, id: JobId) -> Option<&HybridJob> {
        self.batch_index
            .get(&id)
            .and_then(|&i| self.workload.batch.get(i))
    }

    fn setup_of(&self, id: JobId) -> Duration {
        self.workload_job(id).map_or(Duration::ZERO, |j| match j {
            HybridJob::Rigid { setup, .. } => *setup,
            HybridJob::Malleable { job, .. } => job.setup,
            HybridJob::OnDemand(_) => Duration::ZERO,
        })
    }

    /// What a node of running job `job` serves: a guest's its reservation, else batch.
    fn job_use(&self, job: JobId) -> NodeUse {
        if self.guests.contains_key(&job) {
            NodeUse::Guest(job)
        } else {
            NodeUse::Batch(job)
        }
    }

    /// The batch job `s` the cluster started takes its nodes.
    pub(super) fn on_started(&mut self, now: Time, s: Started) -> Result<(), SiteError> {
        let id = s.token.job;
        let nodes = self.state.cluster.job_nodes(id)?.to_vec();
        let to = self.job_use(id);
        for &n in &nodes {
            self.take_idle(now, n, to)?;
        }
        self.queue.schedule(s.end, Ev::BatchEnd(s.token))?;
        let job = self.batch_job_of(id)?;
        if let Some(&k) = self.lease_jobs.get(&id) {
            self.lease_state[k] = LeaseState::Running(now);
        }
        if let Some(range) = job.resizable
            && (nodes.len() as u32) < range.max
        {
            self.expandable.insert((job.submit, id));
        }
        let setup = self.setup_of(id);
        self.state.running.insert(
            id,
            RunningJob {
                nodes: nodes.clone(),
                started: now,
                token: s.token,
                predicted_end: s.predicted_end,
                job,
                setup,
            },
        );
        self.tell(OnDemandObservation::NodesBusy { job: id, nodes });
        Ok(())
    }

    /// The batch form of a job of the workload (or of a lease queued as one).
    fn batch_job_of(&self, id: JobId) -> Result<BatchJob, SiteError> {
        if let Some(&k) = self.lease_jobs.get(&id) {
            return Ok(lease_job(id, self.lease(k)));
        }
        to_batch_job(self.workload_job(id).ok_or(SiteError::NotRunning(id))?)
    }

    fn free_job_nodes(
        &mut self,
        now: Time,
        job: JobId,
        nodes: Vec<NodeId>,
    ) -> Result<(), SiteError> {
        for &n in &nodes {
            self.set_use(now, n, NodeUse::Idle)?;
        }
        self.tell(OnDemandObservation::NodesFreed { job, nodes });
        Ok(())
    }

    /// A batch run ends; the job that completed, if `token` was its current run.
    pub(super) fn batch_end(
        &mut self,
        now: Time,
        token: RunToken,
    ) -> Result<Option<JobId>, SiteError> {
        let Some(record) = self.state.cluster.complete(now, token) else {
            return Ok(None);
        };
        let Some(run) = self.state.running.remove(&token.job) else {
            return Ok(None);
        };
        self.batch_dirty = true;
        self.guests.remove(&token.job);
        self.expandable.remove(&(run.job.submit, token.job));
        self.free_job_nodes(now, token.job, run.nodes)?;
        if let Some(&k) = self.lease_jobs.get(&token.job) {
            self.lease_state[k] = LeaseState::Done(now);
        } else {
            self.records.push(record);
        }
        Ok(Some(token.job))
    }

    /// Preempts running batch job `job`: requeued under its submit time (a rigid job
    /// restarts, a malleable one resumes, paying its setup again). A guest's preemption is
    /// counted apart from the others.
    pub(super) fn preempt(&mut self, now: Time, job: JobId) -> Result<(), SiteError> {
        let run = self
            .state
            .running
            .remove(&job)
            .ok_or(SiteError::NotRunning(job))?;
        let malleable = run.job.resizable.is_some();
        let resume = if malleable {
            Resume::Remaining
        } else {
            Resume::Restart
        };
        self.state.cluster.preempt(now, job, resume)?;
        self.state.holds.queue_epoch += 1;
        self.batch_dirty = true;
        self.expandable.remove(&(run.job.submit, job));
        let elapsed = now.checked_since(run.started).unwrap_or(Duration::ZERO);
        let lost = if malleable {
            elapsed.min(run.setup)
        } else {
            elapsed
        };
        let lost = run.nodes.len() as i128 * i128::from(lost.0);
        let r = &mut self.revocations;
        if self.guests.remove(&job).is_some() {
            r.guest_preemptions += 1;
            r.guest_lost_node_s += lost;
        } else {
            if malleable {
                r.malleable_preemptions += 1;
            } else {
                r.rigid_preemptions += 1;
            }
            r.batch_lost_node_s += lost;
        }
        if let Some(&k) = self.lease_jobs.get(&job) {
            self.lease_state[k] = LeaseState::Queued(job);
        }
        self.free_job_nodes(now, job, run.nodes)
    }

    /// Resizes running malleable job `job` to `to` nodes (expanding takes idle nodes, lent
    /// ones' tasks evicted; shrinking gives back its most recent ones), counted as a shrink or
    /// an expansion.
    pub(super) fn resize(&mut self, now: Time, job: JobId, to: u32) -> Result<(), SiteError> {
        let before = self
            .state
            .running
            .get(&job)
            .ok_or(SiteError::NotRunning(job))?
            .nodes
            .len();
        match (to as usize).cmp(&before) {
            std::cmp::Ordering::Less => {
                self.revocations.malleable_shrinks += 1;
                self.batch_dirty = true;
            }
            std::cmp::Ordering::Greater => self.revocations.malleable_expansions += 1,
            std::cmp::Ordering::Equal => {}
        }
        let s = self.state.cluster.resize(now, job, to)?;
        let new_nodes = self.state.cluster.job_nodes(job)?.to_vec();
        let run = self
            .state
            .running
            .get_mut(&job)
            .ok_or(SiteError::NotRunning(job))?;
        let old = std::mem::replace(&mut run.nodes, new_nodes.clone());
        run.token = s.token;
        run.predicted_end = s.predicted_end;
        let (submit, max) = (run.job.submit, run.job.resizable.map_or(to, |r| r.max));
        self.queue.schedule(s.end, Ev::BatchEnd(s.token))?;
        if to < max {
            self.expandable.insert((submit, job));
        } else {
            self.expandable.remove(&(submit, job));
        }
        let kept: BTreeSet<NodeId> = new_nodes.iter().copied().collect();
        let freed: Vec<NodeId> = old.iter().copied().filter(|n| !kept.contains(n)).collect();
        let had: BTreeSet<NodeId> = old.into_iter().collect();
        let gained: Vec<NodeId> = new_nodes.into_iter().filter(|n| !had.contains(n)).collect();
        let as_use = self.job_use(job);
        for &n in &gained {
            self.take_idle(now, n, as_use)?;
        }
        if !gained.is_empty() {
            self.tell(OnDemandObservation::NodesBusy { job, nodes: gained });
        }
        if !freed.is_empty() {
            self.free_job_nodes(now, job, freed)?;
        }
        Ok(())
    }

    /// Starts the jobs a pass started.
    pub(super) fn start_all(&mut self, now: Time, started: &[Started]) -> Result<(), SiteError> {
        for &s in started {
            self.on_started(now, s)?;
        }
        Ok(())
    }

    /// The site's batch pass (its batch policy).
    pub(super) fn batch_pass(&mut self, now: Time) -> Result<(), SiteError> {
        let mut started = std::mem::take(&mut self.started);
        started.clear();
        self.state
            .cluster
            .schedule(now, self.batch_policy.as_mut(), &mut started);
        let done = self.start_all(now, &started);
        self.started = started;
        done
    }

    /// Malleable expansion by hybrid's rule ([`plan_expansion`]): running malleable jobs below
    /// their largest size grow into idle nodes in (submit, id) order, as far as EASY's
    /// reservation for the queue head allows.
    pub(super) fn expand(&mut self, now: Time) -> Result<(), SiteError> {
        let free = self.state.cluster.free_units();
        if free == 0 || self.expandable.is_empty() {
            return Ok(());
        }
        let head = self.state.cluster.queue().next().map(|q| q.size());
        let shadow = head.map(|size| self.state.cluster.shadow(now, size));
        let candidates: Vec<ExpansionCandidate> = self
            .expandable
            .iter()
            .filter_map(|&(_, job)| {
                let run = self.state.running.get(&job)?;
                let size = run.nodes.len() as u32;
                Some(ExpansionCandidate {
                    job,
                    size,
                    max: run.job.resizable.map_or(size, |r| r.max),
                    predicted_end: run.predicted_end,
                })
            })
            .collect();
        for (job, to, _) in plan_expansion(now, free, shadow, candidates) {
            self.resize(now, job, to)?;
        }
        Ok(())
    }

    /// Tells the site's on-demand protocol `obs` (a policy of hybrid's protocol is told
    /// otherwise).
    pub(super) fn tell(&mut self, obs: OnDemandObservation) {
        if self.protocol == super::Protocol::Site {
            self.od_pending.push(obs);
        }
    }
}

/// A lease queued as a rigid batch job of its duration.
pub(super) fn lease_job(id: JobId, lease: &cosched_core::Lease) -> BatchJob {
    let d = match lease.end {
        cosched_core::LeaseEnd::Bounded(d) => d,
        cosched_core::LeaseEnd::Unbounded => Duration(i64::from(u32::MAX)),
    };
    BatchJob {
        id,
        submit: lease.requested_at,
        size: lease.nodes,
        runtime: d,
        estimate: d,
        class: JobClass::OnDemand,
        resizable: None,
    }
}

// ---- batch jobs routed in from outside (a grid's metascheduler: crate::grid) ----

/// Where a batch job handed to [`Site::submit`] stands ([`Site::batch_start`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchStart {
    /// Waiting in the queue.
    Queued,
    /// Started at this time (its current run, if it was preempted and restarted).
    Started(Time),
    /// Refused: larger than the site.
    Rejected,
}

impl Site {
    /// Keeps batch ids below `bound` free for [`Site::submit`] (leases take the ids above
    /// the workload's, as batch jobs and under hybrid's protocol; call this before the run).
    ///
    /// # Errors
    /// [`SiteError::Param`] once the run has started.
    pub fn reserve_batch_ids(&mut self, bound: u64) -> Result<(), SiteError> {
        let x = &mut self.x;
        cosched_core::ParamError::check(
            !x.started_roles && x.lease_jobs.is_empty(),
            "reserve_batch_ids",
            bound,
            "must be called before the run",
        )?;
        x.state.holds.base = x.state.holds.base.max(bound);
        Ok(())
    }

    /// Submits a batch job at `at`, after the site ran to `at` ([`Site::run_until`]): it
    /// joins the queue in `(submit, id)` order (its `submit`, at most `at`, counts in its
    /// wait) and is scheduled at `at`.
    ///
    /// # Errors
    /// [`SiteError::Duplicate`] for an id the site knows or one of those kept for leases;
    /// [`SiteError::Param`] for an on-demand job, a job submitted after `at`, a site not run
    /// to `at` (or past it), or while the site's own batch jobs are still arriving.
    pub fn submit(&mut self, at: Time, job: HybridJob) -> Result<(), SiteError> {
        let x = &mut self.x;
        let id = job.id();
        if id.0 >= x.state.holds.base || x.batch_index.contains_key(&id) {
            return Err(SiteError::Duplicate {
                what: "submitted batch job",
                id: id.0,
            });
        }
        let check =
            |ok: bool, why: &'static str| cosched_core::ParamError::check(ok, "submit", id.0, why);
        check(
            job.submit() <= at,
            "a job is submitted at or after its submit time",
        )?;
        check(
            x.started_roles && x.queue.now() <= at && x.queue.peek_time().is_none_or(|t| t >= at),
            "the site must have run to the submission time, and not past it",
        )?;
        check(
            x.workload.batch.last().is_none_or(|j| j.submit() <= at),
            "the site's own batch jobs must all have arrived",
        )?;
        if let HybridJob::OnDemand(_) = job {
            check(false, "an on-demand job is a lease, not a batch job")?;
        }
        let batch_job = to_batch_job(&job)?;
        x.batch_index.insert(id, x.workload.batch.len());
        x.workload.batch.push(job);
        x.submit_batch(batch_job)?;
        // An instant at `at`, so that the job is considered then.
        x.queue.schedule(at, Ev::Wake)?;
        Ok(())
    }

    /// Where the batch job `id` stands; `None` if the site never had it.
    pub fn batch_start(&self, id: JobId) -> Option<BatchStart> {
        let x = &self.x;
        if x.state.cluster.queued_job(id).is_some() {
            return Some(BatchStart::Queued);
        }
        if let Some(r) = x.state.running.get(&id) {
            return Some(BatchStart::Started(r.started));
        }
        let record = x.records.iter().rev().find(|r| r.id == id)?;
        Some(
            record
                .start
                .map_or(BatchStart::Rejected, BatchStart::Started),
        )
    }

    /// When the run stops (the configured end).
    pub fn end(&self) -> Time {
        self.x.config.end
    }

    /// The batch jobs ended or refused so far, in order of their end (leases queued as batch
    /// jobs are counted as leases, not here).
    pub fn batch_records(&self) -> &[JobRecord] {
        &self.x.records
    }
}
