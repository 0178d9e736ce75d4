//! The executor: the environment's events as the policy's observations (through core's
//! [`Driver`]), and the policy's commands applied to the environment ([`Executor`]).

use super::*;
use cosched_batch::{ClusterPass, SchedulingPass};
use cosched_core::driver::{Driver, Executor};

/// The environment driven by a policy of the hybrid protocol.
pub(super) struct Sim<'p, P: HybridWorkloadPolicy + ?Sized> {
    pub(super) env: Env,
    pub(super) driver: Driver<&'p mut P>,
}

type Failed<P> = SimError<<P as Policy>::Error>;

impl<P: HybridWorkloadPolicy + ?Sized> Sim<'_, P> {
    /// Delivers `observation` at `now` and applies the commands it returns.
    fn observe(&mut self, now: Time, observation: &Observation) -> Result<(), Failed<P>> {
        self.driver
            .observe(now, observation, &mut self.env, &mut ())
            .map(drop)
    }

    fn dispatch(&mut self, now: Time, ev: Ev) -> Result<(), Failed<P>> {
        match ev {
            Ev::BatchEnd(token) => {
                if let Some(job) = self.env.batch_end(now, token)? {
                    self.observe(now, &Observation::Completed { job })?;
                }
            }
            Ev::OdEnd(i, epoch) => {
                let current = self.env.jobs[i].od_epoch == epoch && self.env.jobs[i].run.is_some();
                if current {
                    let job = self.env.od_end(now, i)?;
                    self.observe(now, &Observation::OnDemandEnded { job })?;
                }
            }
            Ev::Failure(node, repair) => {
                self.env.failure_armed = false;
                self.failure(now, node, repair)?;
                if !self.env.machine_empty() {
                    // Strictly after `now`: the next draw of the process.
                    self.env
                        .arm_failures(now.try_add(Duration(1)).map_err(HybridError::from)?);
                }
            }
            Ev::Repair(node) => self.env.set_online(node)?,
            Ev::Wake => {
                self.driver.wake_due(now, &mut self.env, &mut ())?;
            }
            Ev::SiteWake => {
                // The site scheduler's own timer: its starts are reported like a pass's.
                let env = &mut self.env;
                let mut pass = ClusterPass {
                    cluster: &mut env.cluster,
                    started: &mut env.started,
                };
                env.site
                    .wake_due(now, &mut pass, &mut ())
                    .map_err(|e| HybridError::Batch(e.into()))?;
                for start in self.env.register_starts(now, None) {
                    self.observe(now, &Observation::Started(start))?;
                }
            }
            Ev::Notice(i) => {
                self.env.next_notice();
                if let Some(notice) = self.env.notice(i) {
                    self.observe(now, &Observation::Notice(notice))?;
                }
            }
            Ev::Arrive(i) => {
                self.env.next_entry(i);
                self.env.arm_failures(now);
                self.arrive(now, i)?;
            }
            Ev::LateNotice(notice) => self.observe(now, &Observation::Notice(notice))?,
            Ev::Late(i) => {
                self.env.arm_failures(now);
                self.arrive(now, i)?;
            }
            Ev::Submit(i) => {
                self.env.next_entry(i);
                self.env.arm_failures(now);
                self.env.submit(i)?;
            }
        }
        Ok(())
    }

    /// An on-demand job arrives: rejected if larger than the system, else the policy decides.
    fn arrive(&mut self, now: Time, i: usize) -> Result<(), Failed<P>> {
        let (job, size) = (self.env.jobs[i].spec.id(), self.env.jobs[i].spec.size());
        if size > self.env.config.nodes {
            self.env.rejected += 1;
            self.env.outstanding -= 1;
            return Ok(());
        }
        self.env.od_pending += 1;
        self.env.arriving = Some(job);
        let result = self.observe(now, &Observation::Arrival { job, size });
        self.env.arriving = None;
        result
    }

    fn failure(&mut self, now: Time, node: NodeId, repair: Duration) -> Result<(), Failed<P>> {
        match self.env.hold[node.index()] {
            Hold::Failed => return Ok(()),
            Hold::Cluster => {
                if let NodeState::Busy(job) = self
                    .env
                    .cluster
                    .node_state(node)
                    .map_err(HybridError::from)?
                {
                    let j = self.env.find(job)?;
                    self.env.interrupt(now, j, Interruption::Failure)?;
                    self.observe(now, &Observation::Interrupted { job })?;
                }
                if let Hold::Reserved(_) = self.env.hold[node.index()] {
                    // A guest's node, back with its reservation: it leaves it.
                    self.observe(now, &Observation::NodeLost { node })?;
                } else {
                    self.env
                        .cluster
                        .set_offline(node)
                        .map_err(HybridError::from)?;
                    self.env.idle.remove(node);
                }
            }
            Hold::Reserved(_) => self.observe(now, &Observation::NodeLost { node })?,
            Hold::OnDemand(i) => {
                self.env.set_hold(node, Hold::Failed);
                if let Some(run) = self.env.jobs[i].run.take() {
                    // The running job restarts at once from scratch on fresh nodes.
                    self.env.od_killed(now, i, run)?;
                    let (job, size) = (self.env.jobs[i].spec.id(), self.env.jobs[i].spec.size());
                    self.observe(now, &Observation::OnDemandFailed { job, size })?;
                } else {
                    self.env.jobs[i].od_nodes.retain(|&n| n != node);
                }
            }
        }
        self.env.set_hold(node, Hold::Failed);
        self.env.node_failures += 1;
        let back = now.try_add(repair).map_err(HybridError::from)?;
        self.env.schedule(back, Ev::Repair(node));
        Ok(())
    }

    /// Puts the policies' wake events and the events decided since on the kernel's queue.
    pub(super) fn flush(&mut self, now: Time, queue: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        self.driver.arm(now, queue, Ev::Wake)?;
        self.env.site.arm(now, queue, Ev::SiteWake)?;
        self.env.flush(queue).map_err(SimError::from)
    }
}

/// The environment as the executor of the hybrid protocol: the policy's commands carried out
/// in order; the starts of the batch passes they ask for go back to the policy.
impl<'p, P: HybridWorkloadPolicy + ?Sized> Executor<&'p mut P> for Env {
    type Context = ();
    type Error = Failed<P>;

    fn view(&mut self, _now: Time) -> &(dyn PlatformView + 'static) {
        self.begin_call();
        self
    }

    fn apply(
        &mut self,
        driver: &mut Driver<&'p mut P>,
        cx: &mut (),
        now: Time,
        commands: &[Command],
    ) -> Result<(), Failed<P>> {
        for command in commands {
            if self.check {
                self.audit(now, command);
            }
            match command {
                &Command::Preempt { job } => {
                    let i = self.find(job)?;
                    if self.jobs[i].run.is_none() {
                        return Err(HybridError::NotRunning(job).into());
                    }
                    self.interrupt(now, i, Interruption::Preemption)?;
                }
                &Command::Resize { job, to } => {
                    let i = self.find(job)?;
                    if self.jobs[i].run.is_none() {
                        return Err(HybridError::NotRunning(job).into());
                    }
                    self.resize(now, i, to)?;
                }
                Command::Reserve { job, nodes } => {
                    let idle: Vec<NodeId> = nodes
                        .iter()
                        .copied()
                        .filter(|&n| self.idle_in_cluster(n))
                        .collect();
                    self.take(&idle, Hold::Reserved(*job))?;
                }
                Command::Release { job, nodes } => {
                    for &node in nodes {
                        if self.hold.get(node.index()) == Some(&Hold::Reserved(*job)) {
                            self.set_online(node)?;
                        }
                    }
                }
                Command::Assign { job, nodes } => {
                    let job = *job;
                    let i = self.find(job)?;
                    for &node in nodes {
                        if self.hold.get(node.index()) != Some(&Hold::Reserved(job)) {
                            return Err(HybridError::NotReserved { job, node }.into());
                        }
                        self.set_hold(node, Hold::OnDemand(i));
                    }
                    self.jobs[i].od_nodes.extend_from_slice(nodes);
                }
                &Command::AssignIdle { job, count } => {
                    let i = self.find(job)?;
                    let idle = self.idle.top(count as usize);
                    self.take(&idle, Hold::OnDemand(i))?;
                    self.jobs[i].od_nodes.extend(idle);
                }
                &Command::Unassign { job } => {
                    let i = self.find(job)?;
                    for node in std::mem::take(&mut self.jobs[i].od_nodes) {
                        self.set_online(node)?;
                    }
                }
                &Command::StartOnDemand { job } => {
                    let i = self.find(job)?;
                    let (held, size) = (self.jobs[i].od_nodes.len(), self.jobs[i].spec.size());
                    if held != size as usize || self.jobs[i].run.is_some() {
                        return Err(HybridError::CannotStart { job, held, size }.into());
                    }
                    self.start_od(now, i)?;
                }
                &Command::Submit { job } => {
                    let i = self.find(job)?;
                    self.od_pending -= 1;
                    self.submit(i)?;
                }
                Command::Schedule(pass) => self.run_pass(driver, cx, now, pass)?,
            }
        }
        Ok(())
    }
}

impl Env {
    /// Runs a batch pass the policy asked for and tells it what started.
    fn run_pass<P: HybridWorkloadPolicy + ?Sized>(
        &mut self,
        driver: &mut Driver<&mut P>,
        cx: &mut (),
        now: Time,
        pass: &BatchPass,
    ) -> Result<(), Failed<P>> {
        let guest_of = match pass {
            &BatchPass::Site { .. } if self.cluster.free_units() == 0 && self.site_skips_idle => {
                // Every job needs a unit: no pass can start one. (EASY's and FCFS's schedule
                // is the one a full pass gives whatever passes came before, so they lose
                // nothing by the skip; the malleable passes keep no state.)
                return Ok(());
            }
            &BatchPass::Site { resize_malleable } => {
                if resize_malleable {
                    self.cluster
                        .schedule(now, &mut MalleableHeads, &mut self.started);
                }
                let mut site = ClusterPass {
                    cluster: &mut self.cluster,
                    started: &mut self.started,
                };
                self.site
                    .observe(now, &SchedulingPass, &mut site, &mut ())
                    .map_err(|e| HybridError::Batch(e.into()))?;
                if resize_malleable {
                    self.cluster
                        .schedule(now, &mut MalleableBackfill, &mut self.started);
                }
                None
            }
            BatchPass::Listed(jobs) => {
                self.cluster
                    .schedule(now, &mut StartListed(jobs), &mut self.started);
                None
            }
            BatchPass::Guests {
                for_job,
                nodes,
                arrival,
            } => {
                let for_job = *for_job;
                for &node in nodes {
                    if self.hold.get(node.index()) != Some(&Hold::Reserved(for_job)) {
                        return Err(HybridError::NotReserved { job: for_job, node }.into());
                    }
                    self.set_online(node)?;
                }
                let mut picker = GuestPicker {
                    budget: nodes.len() as u32,
                    arrival: *arrival,
                };
                self.cluster.schedule(now, &mut picker, &mut self.started);
                let starts = self.register_starts(now, Some(for_job));
                for start in starts {
                    driver.observe(now, &Observation::Started(start), self, cx)?;
                }
                let unused: Vec<NodeId> = nodes
                    .iter()
                    .copied()
                    .filter(|&n| self.cluster.node_state(n) == Ok(NodeState::Idle))
                    .collect();
                self.take(&unused, Hold::Reserved(for_job))?;
                return Ok(());
            }
        };
        for start in self.register_starts(now, guest_of) {
            driver.observe(now, &Observation::Started(start), self, cx)?;
        }
        Ok(())
    }
}

impl<P: HybridWorkloadPolicy + ?Sized> Simulation for Sim<'_, P> {
    type Event = Ev;
    type Error = Failed<P>;

    fn handle(
        &mut self,
        now: Time,
        event: Ev,
        queue: &mut EventQueue<Ev>,
    ) -> Result<(), Failed<P>> {
        self.dispatch(now, event)?;
        self.flush(now, queue)
    }

    fn settle(&mut self, now: Time, queue: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        // Settle rounds until the policy asks for nothing more, numbered and bounded by the
        // driver's round limit.
        self.driver.observe_until_quiet(
            now,
            |round| Observation::Settle { round },
            &mut self.env,
            &mut (),
        )?;
        if self.env.check {
            self.env.check_nodes(now);
        }
        self.flush(now, queue)
    }
}
