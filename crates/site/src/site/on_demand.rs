//! The on-demand role in the executor: the leases' life (requests, notices, windows, ends),
//! grants, and the commands of the site's on-demand protocol.

use cosched_core::{Duration, JobId, LeaseId, NodeId, Time};
use cosched_hybrid::Notice;
use cosched_hybrid::policy::Observation as HObs;

use super::batch::lease_job;
use super::{Ev, Exec, LeaseState, Protocol};
use crate::SiteError;
use crate::nodes::NodeUse;
use crate::on_demand::{OnDemandCommand, OnDemandObservation, OnDemandPolicy};
use cosched_core::driver::Driver;

impl Exec {
    /// Lease `k` is requested: the observation for a policy of hybrid's protocol (none for
    /// one of the site's, told through `od_pending`, nor for a lease larger than the site,
    /// refused at once).
    pub(super) fn lease_request(&mut self, now: Time, k: usize) -> Result<Option<HObs>, SiteError> {
        let lease = *self.lease(k);
        if let Some(d) = lease.start_deadline() {
            self.queue
                .schedule(d.saturating_add(Duration(1)), Ev::LeaseDeadline(k))?;
        }
        if let Some(next) = self.state.leases.get(k + 1) {
            self.queue
                .schedule(next.requested_at.max(now), Ev::LeaseRequest(k + 1))?;
        }
        match self.protocol {
            Protocol::Site => {
                self.od_pending.push(OnDemandObservation::Request(lease));
                Ok(None)
            }
            Protocol::Hybrid if lease.nodes > self.config.nodes => {
                self.lease_state[k] = LeaseState::Rejected;
                Ok(None)
            }
            Protocol::Hybrid => Ok(Some(HObs::Arrival {
                job: self.lease_job_id(k),
                size: lease.nodes,
            })),
        }
    }

    /// The next advance notice is given (Fan et al. §III-B1): its observation for a policy
    /// of hybrid's protocol. A notice at or after its lease's arrival carries nothing the
    /// arrival does not and is not delivered.
    pub(super) fn lease_notice(&mut self, now: Time, i: usize) -> Result<Option<HObs>, SiteError> {
        let n = self.workload.notices[i];
        if let Some(next) = self.workload.notices.get(i + 1) {
            self.queue
                .schedule(next.at.max(now), Ev::LeaseNotice(i + 1))?;
        }
        let k = n.lease.0 as usize;
        let lease = *self.lease(k);
        if now >= lease.requested_at {
            return Ok(None);
        }
        let estimated_arrival = n.estimated_arrival.max(now);
        Ok(match self.protocol {
            Protocol::Site => {
                self.od_pending.push(OnDemandObservation::Notice {
                    lease: lease.id,
                    nodes: lease.nodes,
                    estimated_arrival,
                });
                None
            }
            Protocol::Hybrid => Some(HObs::Notice(Notice {
                job: self.lease_job_id(k),
                size: lease.nodes,
                at: now,
                estimated_arrival,
            })),
        })
    }

    /// Lease `k` running on reserve nodes ends: under the site's protocol its nodes go back
    /// to the reserve for the role to keep or restore; under hybrid's, to batch. Its job.
    pub(super) fn lease_end(&mut self, now: Time, k: usize) -> Result<JobId, SiteError> {
        let id = self.lease(k).id;
        let nodes = self.state.holds.granted.remove(&k).unwrap_or_default();
        self.lease_state[k] = LeaseState::Done(now);
        for &n in &nodes {
            match self.protocol {
                Protocol::Site => {
                    self.set_use(now, n, NodeUse::Reserve)?;
                }
                Protocol::Hybrid => {
                    self.set_use(now, n, NodeUse::Reserve)?;
                    self.restore(now, n)?;
                }
            }
        }
        self.tell(OnDemandObservation::Ended { lease: id, nodes });
        Ok(self.lease_job_id(k))
    }

    /// Lease `k`'s window closed: withdrawn if it has not started (what was gathered for it
    /// goes back; dequeued if queued as a batch job). Its job, if a policy of hybrid's
    /// protocol held it waiting.
    pub(super) fn lease_deadline(
        &mut self,
        now: Time,
        k: usize,
    ) -> Result<Option<JobId>, SiteError> {
        match self.lease_state[k] {
            LeaseState::Waiting => {
                self.lease_state[k] = LeaseState::Rejected;
                for n in self.state.holds.gathered.remove(&k).unwrap_or_default() {
                    self.restore(now, n)?;
                }
                Ok((self.protocol == Protocol::Hybrid).then(|| self.lease_job_id(k)))
            }
            LeaseState::Queued(job) => {
                self.batch_dirty = true;
                self.state.cluster.cancel(job)?;
                self.lease_state[k] = LeaseState::Rejected;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Starts lease `k` now on `nodes`, each in the reserve.
    pub(super) fn grant(
        &mut self,
        now: Time,
        k: usize,
        nodes: Vec<NodeId>,
    ) -> Result<(), SiteError> {
        let lease = *self.lease(k);
        if self.lease_state[k] != LeaseState::Waiting {
            return Err(SiteError::LeaseNotWaiting(lease.id));
        }
        if nodes.len() != lease.nodes as usize {
            return Err(SiteError::GrantSize {
                lease: lease.id,
                needed: lease.nodes,
                given: nodes.len(),
            });
        }
        for &n in &nodes {
            let u = self.state.nodes.get(n)?;
            if u != NodeUse::Reserve || self.state.holds.reserved.contains_key(&n) {
                return Err(SiteError::NotOnDemand {
                    node: n,
                    state: format!("{u:?}"),
                });
            }
            self.set_use(now, n, NodeUse::OnDemand(lease.id))?;
        }
        self.lease_state[k] = LeaseState::Running(now);
        self.state.holds.granted.insert(k, nodes);
        if let Some(end) = lease.end_if_started_at(now) {
            self.queue.schedule(end, Ev::LeaseEnd(k))?;
        }
        Ok(())
    }

    pub(super) fn lease_index(&self, lease: LeaseId) -> Result<usize, SiteError> {
        usize::try_from(lease.0)
            .ok()
            .filter(|&k| k < self.state.leases.len())
            .ok_or(SiteError::LeaseNotWaiting(lease))
    }

    /// Queues waiting lease `k` as a batch job; refused (rejected) if larger than the site.
    pub(super) fn queue_as_batch(&mut self, k: usize) -> Result<(), SiteError> {
        if self.lease_state[k] != LeaseState::Waiting {
            return Err(SiteError::LeaseNotWaiting(self.lease(k).id));
        }
        let id = self.lease_job_id(k);
        self.lease_jobs.insert(id, k);
        self.lease_state[k] = LeaseState::Queued(id);
        let job = lease_job(id, self.lease(k));
        if self.submit_batch(job)? == cosched_batch::Submitted::Rejected {
            self.lease_state[k] = LeaseState::Rejected;
        }
        Ok(())
    }

    /// Carries out the site protocol's commands, in order.
    pub(super) fn apply_on_demand(
        &mut self,
        _: &mut Driver<Box<dyn OnDemandPolicy + Send>>,
        now: Time,
        commands: &[OnDemandCommand],
    ) -> Result<(), SiteError> {
        for c in commands {
            match c {
                &OnDemandCommand::Reclaim(n) => self.reclaim(now, n)?,
                &OnDemandCommand::Restore(n) => self.restore(now, n)?,
                OnDemandCommand::Grant { lease, nodes } => {
                    let k = self.lease_index(*lease)?;
                    self.grant(now, k, nodes.clone())?;
                }
                &OnDemandCommand::GrantIdle { lease } => {
                    let k = self.lease_index(lease)?;
                    let need = self.lease(k).nodes as usize;
                    let pick = self.state.pick_idle(need);
                    if pick.len() < need {
                        return Err(SiteError::GrantSize {
                            lease,
                            needed: need as u32,
                            given: pick.len(),
                        });
                    }
                    for &n in &pick {
                        self.reclaim(now, n)?;
                    }
                    self.grant(now, k, pick)?;
                }
                &OnDemandCommand::Reject { lease } => {
                    let k = self.lease_index(lease)?;
                    match self.lease_state[k] {
                        LeaseState::Waiting => self.lease_state[k] = LeaseState::Rejected,
                        LeaseState::Rejected => {}
                        _ => return Err(SiteError::LeaseNotWaiting(lease)),
                    }
                }
                &OnDemandCommand::QueueAsBatch { lease } => {
                    let k = self.lease_index(lease)?;
                    self.queue_as_batch(k)?;
                }
                &OnDemandCommand::Preempt { job } => self.preempt(now, job)?,
                &OnDemandCommand::Shrink { job, to } => self.resize(now, job, to)?,
            }
        }
        Ok(())
    }
}
