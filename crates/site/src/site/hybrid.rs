//! The site as the platform of a policy of hybrid's protocol (Fan et al., IPDPS 2022,
//! §III-B; `cosched_hybrid::policy`): the view it reads ([`PlatformView`] for
//! [`SiteState`]) and its commands carried out on the site's nodes. A reservation's nodes are
//! reserve nodes held for the announced lease's job; its guests run on them as batch jobs
//! ([`crate::NodeUse::Guest`]) until the policy preempts them at the arrival; the nodes
//! gathered for a lease that waits are reserve nodes it holds; a lease starts on exactly its
//! node count. The batch passes run the site's batch policy (between hybrid's malleable
//! passes when the policy asks for them), hybrid's `StartListed` and `GuestPicker`; a site
//! pass at an instant when nothing changed batch state since the last one is skipped (it
//! would start nothing).

use cosched_batch::Shadow;
use cosched_core::{JobId, NodeId, Time};
use cosched_hybrid::PlannedJob;
use cosched_hybrid::policy::{
    BatchPass, Command, GuestPicker, MalleableBackfill, MalleableHeads, Observation, PlatformView,
    RunInfo, StartInfo, StartListed,
};

use super::{Exec, LeaseState};
use crate::nodes::NodeUse;
use crate::on_demand::HybridRolePolicy;
use crate::{SiteError, SiteState};
use cosched_core::driver::Driver;

type HybridDriver = Driver<Box<dyn HybridRolePolicy + Send>>;

impl PlatformView for SiteState {
    /// Idle nodes not lent to scavenging first (taking a lent one evicts its task), each
    /// most recently idle first.
    fn idle_nodes(&self, n: usize) -> Vec<NodeId> {
        self.pick_idle(n)
    }

    fn idle_count(&self) -> u32 {
        self.cluster.free_units()
    }

    fn reserved_for(&self, node: NodeId) -> Option<JobId> {
        self.holds.reserved.get(&node).copied()
    }

    fn reserved_idle(&self, job: JobId, _: &[NodeId]) -> usize {
        self.holds.reserved_count.get(&job).copied().unwrap_or(0)
    }

    fn running(&self, now: Time) -> Vec<PlannedJob> {
        self.planned_jobs(now)
    }

    fn run(&self, job: JobId) -> Option<RunInfo> {
        self.running.get(&job).map(|r| RunInfo {
            size: r.nodes.len() as u32,
            predicted_end: r.predicted_end,
            started: r.started,
        })
    }

    fn is_queued(&self, job: JobId) -> bool {
        self.cluster.queued_job(job).is_some()
    }

    fn held(&self, job: JobId) -> u32 {
        let h = &self.holds;
        h.lease_of(job, self.leases.len())
            .and_then(|k| h.gathered.get(&k).or_else(|| h.granted.get(&k)))
            .map_or(0, |nodes| nodes.len() as u32)
    }

    fn queue_len(&self) -> usize {
        self.cluster.queue_len()
    }

    fn queue_epoch(&self) -> u64 {
        self.holds.queue_epoch
    }

    fn head_shadow(&self, now: Time) -> Option<Shadow> {
        let head = self.cluster.queue().next()?;
        Some(self.cluster.shadow(now, head.size()))
    }
}

impl Exec {
    /// The lease job `job` stands for, if it waits for nodes.
    fn waiting_lease(&self, job: JobId) -> Result<usize, SiteError> {
        let k = self.lease_of(job).ok_or(SiteError::NotALease(job))?;
        if self.lease_state[k] != LeaseState::Waiting {
            return Err(SiteError::LeaseNotWaiting(self.lease(k).id));
        }
        Ok(k)
    }

    /// Carries out hybrid's commands, in order; the starts of its passes go back to the
    /// policy through `driver` as they happen.
    pub(super) fn apply_hybrid(
        &mut self,
        driver: &mut HybridDriver,
        now: Time,
        commands: &[Command],
    ) -> Result<(), SiteError> {
        for command in commands {
            match command {
                &Command::Preempt { job } => self.preempt(now, job)?,
                &Command::Resize { job, to } => self.resize(now, job, to)?,
                Command::Reserve { job, nodes } => {
                    for &n in nodes {
                        if self.state.nodes.get(n)?.is_batch_idle() {
                            self.reclaim(now, n)?;
                            self.state.holds.reserve(n, Some(*job));
                            self.state.holds.members.entry(*job).or_default().insert(n);
                        }
                    }
                }
                Command::Release { job, nodes } => {
                    for &n in nodes {
                        if self.state.holds.reserved.get(&n) == Some(job) {
                            self.state.holds.reserve(n, None);
                            self.restore(now, n)?;
                        }
                    }
                    self.leave_reservation(now, *job, nodes)?;
                }
                Command::Assign { job, nodes } => {
                    let k = self.waiting_lease(*job)?;
                    for &node in nodes {
                        if self.state.holds.reserved.get(&node) != Some(job) {
                            return Err(SiteError::NotReserved { job: *job, node });
                        }
                        self.state.holds.reserve(node, None);
                    }
                    self.leave_reservation(now, *job, nodes)?;
                    let held = self.state.holds.gathered.entry(k).or_default();
                    held.extend_from_slice(nodes);
                }
                &Command::AssignIdle { job, count } => {
                    let k = self.waiting_lease(job)?;
                    let pick = self.state.pick_idle(count as usize);
                    for &n in &pick {
                        self.reclaim(now, n)?;
                    }
                    self.state.holds.gathered.entry(k).or_default().extend(pick);
                }
                &Command::Unassign { job } => {
                    let k = self.lease_of(job).ok_or(SiteError::NotALease(job))?;
                    for n in self.state.holds.gathered.remove(&k).unwrap_or_default() {
                        self.restore(now, n)?;
                    }
                }
                &Command::StartOnDemand { job } => {
                    let k = self.waiting_lease(job)?;
                    let nodes = self.state.holds.gathered.remove(&k).unwrap_or_default();
                    let needed = self.lease(k).nodes;
                    if nodes.len() != needed as usize {
                        return Err(SiteError::CannotStart {
                            job,
                            held: nodes.len(),
                            needed,
                        });
                    }
                    self.grant(now, k, nodes)?;
                }
                &Command::Submit { job } => {
                    let k = self.lease_of(job).ok_or(SiteError::NotALease(job))?;
                    self.queue_as_batch(k)?;
                }
                Command::Schedule(pass) => self.hybrid_pass(driver, now, pass)?,
            }
        }
        Ok(())
    }

    /// `nodes` leave `job`'s reservation; once it holds none, its guests run on as ordinary
    /// batch jobs (their nodes batch nodes).
    fn leave_reservation(
        &mut self,
        now: Time,
        job: JobId,
        nodes: &[NodeId],
    ) -> Result<(), SiteError> {
        let holds = &mut self.state.holds;
        let Some(members) = holds.members.get_mut(&job) else {
            return Ok(());
        };
        for n in nodes {
            members.remove(n);
        }
        if !members.is_empty() {
            return Ok(());
        }
        holds.members.remove(&job);
        let guests: Vec<JobId> = self
            .guests
            .iter()
            .filter(|&(_, od)| *od == job)
            .map(|(&g, _)| g)
            .collect();
        for g in guests {
            self.guests.remove(&g);
            let nodes = self
                .state
                .running
                .get(&g)
                .map(|r| r.nodes.clone())
                .unwrap_or_default();
            for n in nodes {
                self.set_use(now, n, NodeUse::Batch(g))?;
            }
        }
        Ok(())
    }

    /// Runs a batch pass hybrid's policy asked for and tells it what started.
    fn hybrid_pass(
        &mut self,
        driver: &mut HybridDriver,
        now: Time,
        pass: &BatchPass,
    ) -> Result<(), SiteError> {
        let mut started = std::mem::take(&mut self.started);
        started.clear();
        let guest_of = match pass {
            BatchPass::Site { .. } if !self.batch_dirty => None,
            &BatchPass::Site { resize_malleable } => {
                self.batch_dirty = false;
                let cluster = &mut self.state.cluster;
                if resize_malleable {
                    cluster.schedule(now, &mut MalleableHeads, &mut started);
                }
                cluster.schedule(now, self.batch_policy.as_mut(), &mut started);
                if resize_malleable {
                    cluster.schedule(now, &mut MalleableBackfill, &mut started);
                }
                None
            }
            BatchPass::Listed(jobs) => {
                let listed = &mut StartListed(jobs);
                self.state.cluster.schedule(now, listed, &mut started);
                None
            }
            BatchPass::Guests {
                for_job,
                nodes,
                arrival,
            } => {
                // The reservation's nodes go back to batch, on top of its free nodes: the
                // guests take them first.
                for &node in nodes {
                    if self.state.holds.reserved.get(&node) != Some(for_job) {
                        return Err(SiteError::NotReserved {
                            job: *for_job,
                            node,
                        });
                    }
                    self.state.holds.reserve(node, None);
                    self.restore(now, node)?;
                }
                let mut picker = GuestPicker {
                    budget: nodes.len() as u32,
                    arrival: *arrival,
                };
                self.state.cluster.schedule(now, &mut picker, &mut started);
                Some(*for_job)
            }
        };
        let mut infos = Vec::with_capacity(started.len());
        for &s in &started {
            let job = s.token.job;
            if let Some(od) = guest_of {
                self.guests.insert(job, od);
                self.guest_starts += 1;
            }
            self.on_started(now, s)?;
            let (submit, max_size) = self.state.running.get(&job).map_or((now, None), |r| {
                (r.job.submit, r.job.resizable.map(|z| z.max))
            });
            infos.push(StartInfo {
                job,
                submit,
                size: s.size,
                max_size,
                guest_of,
            });
        }
        self.started = started;
        if let BatchPass::Guests { for_job, nodes, .. } = pass {
            // The nodes no guest took go back to the reservation.
            for &n in nodes {
                if self.state.nodes.get(n)? == NodeUse::Idle {
                    self.reclaim(now, n)?;
                    self.state.holds.reserve(n, Some(*for_job));
                }
            }
        }
        for info in infos {
            driver.observe(now, &Observation::Started(info), self, &mut ())?;
        }
        Ok(())
    }
}
