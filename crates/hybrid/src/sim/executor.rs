//! The executor: observations to the policy, its commands to the environment.

use super::*;

/// The executor: the environment driven by a policy of the hybrid protocol. It turns the
/// environment's events into the policy's observations and applies the policy's commands.
pub(super) struct Sim<P> {
    pub(super) env: Env,
    pub(super) policy: P,
    /// The command buffer lent to the policy (kept warm between calls).
    pub(super) out: Vec<Command>,
    /// Times of the wake events on the kernel's queue.
    pub(super) wakes: std::collections::BTreeSet<Time>,
}

type Failed<P> = SimError<<P as Policy>::Error>;

impl<P> Sim<P>
where
    P: HybridProtocol,
{
    /// Delivers `observation` at `now` and applies the commands it returns.
    pub(super) fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
    ) -> Result<(), Failed<P>> {
        let mut out = std::mem::take(&mut self.out);
        out.clear();
        self.env.begin_call();
        self.policy
            .observe(now, observation, &self.env, &mut out)
            .map_err(SimError::Policy)?;
        let result = self.apply(now, &out);
        out.clear();
        self.out = out;
        result
    }

    /// Wakes the policy while its next wake is due, applying each call's commands.
    pub(super) fn wake(&mut self, now: Time) -> Result<(), Failed<P>> {
        while self.policy.next_wake().is_some_and(|t| t <= now) {
            let mut out = std::mem::take(&mut self.out);
            out.clear();
            self.env.begin_call();
            self.policy
                .wake(now, &self.env, &mut out)
                .map_err(SimError::Policy)?;
            let result = self.apply(now, &out);
            out.clear();
            self.out = out;
            result?;
        }
        Ok(())
    }

    /// Puts a wake event on the queue for the policy's next wake unless an earlier one is
    /// there (it asks again when that fires).
    pub(super) fn arm_wake(&mut self, now: Time) {
        let Some(at) = self.policy.next_wake() else {
            return;
        };
        let at = at.max(now);
        if self.wakes.first().is_none_or(|&first| at < first) {
            self.wakes.insert(at);
            self.env.schedule(at, Ev::Wake);
        }
    }

    pub(super) fn dispatch(&mut self, now: Time, ev: Ev) -> Result<(), Failed<P>> {
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
                self.wakes.remove(&now);
                self.wake(now)?;
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
            Ev::Submit(i) => {
                self.env.next_entry(i);
                self.env.arm_failures(now);
                self.env.submit(i)?;
            }
        }
        Ok(())
    }

    /// An on-demand job arrives: rejected if larger than the system, else the policy decides.
    pub(super) fn arrive(&mut self, now: Time, i: usize) -> Result<(), Failed<P>> {
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

    pub(super) fn failure(
        &mut self,
        now: Time,
        node: NodeId,
        repair: Duration,
    ) -> Result<(), Failed<P>> {
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

    /// Carries out the policy's commands, in order; the starts of the passes go back to it.
    pub(super) fn apply(&mut self, now: Time, commands: &[Command]) -> Result<(), Failed<P>> {
        for command in commands {
            if self.env.check {
                self.env.audit(now, command);
            }
            match command {
                &Command::Preempt { job } => {
                    let i = self.env.find(job)?;
                    if self.env.jobs[i].run.is_none() {
                        return Err(HybridError::NotRunning(job).into());
                    }
                    self.env.interrupt(now, i, Interruption::Preemption)?;
                }
                &Command::Resize { job, to } => {
                    let i = self.env.find(job)?;
                    if self.env.jobs[i].run.is_none() {
                        return Err(HybridError::NotRunning(job).into());
                    }
                    self.env.resize(now, i, to)?;
                }
                Command::Reserve { job, nodes } => {
                    let idle: Vec<NodeId> = nodes
                        .iter()
                        .copied()
                        .filter(|&n| self.env.idle_in_cluster(n))
                        .collect();
                    self.env.take(&idle, Hold::Reserved(*job))?;
                }
                Command::Release { job, nodes } => {
                    for &node in nodes {
                        if self.env.hold.get(node.index()) == Some(&Hold::Reserved(*job)) {
                            self.env.set_online(node)?;
                        }
                    }
                }
                Command::Assign { job, nodes } => {
                    let job = *job;
                    let i = self.env.find(job)?;
                    for &node in nodes {
                        if self.env.hold.get(node.index()) != Some(&Hold::Reserved(job)) {
                            return Err(HybridError::NotReserved { job, node }.into());
                        }
                        self.env.set_hold(node, Hold::OnDemand(i));
                    }
                    self.env.jobs[i].od_nodes.extend_from_slice(nodes);
                }
                &Command::AssignIdle { job, count } => {
                    let i = self.env.find(job)?;
                    let idle = self.env.idle.top(count as usize);
                    self.env.take(&idle, Hold::OnDemand(i))?;
                    self.env.jobs[i].od_nodes.extend(idle);
                }
                &Command::Unassign { job } => {
                    let i = self.env.find(job)?;
                    for node in std::mem::take(&mut self.env.jobs[i].od_nodes) {
                        self.env.set_online(node)?;
                    }
                }
                &Command::StartOnDemand { job } => {
                    let i = self.env.find(job)?;
                    let (held, size) = (
                        self.env.jobs[i].od_nodes.len(),
                        self.env.jobs[i].spec.size(),
                    );
                    if held != size as usize || self.env.jobs[i].run.is_some() {
                        return Err(HybridError::CannotStart { job, held, size }.into());
                    }
                    self.env.start_od(now, i)?;
                }
                &Command::Submit { job } => {
                    let i = self.env.find(job)?;
                    self.env.od_pending -= 1;
                    self.env.submit(i)?;
                }
                Command::Schedule(pass) => self.run_pass(now, pass)?,
            }
        }
        Ok(())
    }

    /// Runs a batch pass the policy asked for and tells it what started.
    pub(super) fn run_pass(&mut self, now: Time, pass: &BatchPass) -> Result<(), Failed<P>> {
        let env = &mut self.env;
        let guest_of = match pass {
            &BatchPass::Site { .. } if env.cluster.free_units() == 0 && env.site_skips_idle => {
                // Every job needs a unit: no pass can start one. (EASY's and FCFS's schedule
                // is the one a full pass gives whatever passes came before, so they lose
                // nothing by the skip; the malleable passes keep no state.)
                return Ok(());
            }
            &BatchPass::Site { resize_malleable } => {
                if resize_malleable {
                    env.cluster
                        .schedule(now, &mut MalleableHeads, &mut env.started);
                }
                env.cluster.schedule(now, &mut env.site, &mut env.started);
                if resize_malleable {
                    env.cluster
                        .schedule(now, &mut MalleableBackfill, &mut env.started);
                }
                None
            }
            BatchPass::Listed(jobs) => {
                env.cluster
                    .schedule(now, &mut StartListed(jobs), &mut env.started);
                None
            }
            BatchPass::Guests {
                for_job,
                nodes,
                arrival,
            } => {
                let for_job = *for_job;
                for &node in nodes {
                    if env.hold.get(node.index()) != Some(&Hold::Reserved(for_job)) {
                        return Err(HybridError::NotReserved { job: for_job, node }.into());
                    }
                    env.set_online(node)?;
                }
                let mut picker = GuestPicker {
                    budget: nodes.len() as u32,
                    arrival: *arrival,
                };
                env.cluster.schedule(now, &mut picker, &mut env.started);
                let starts = env.register_starts(now, Some(for_job));
                for start in starts {
                    self.observe(now, &Observation::Started(start))?;
                }
                let unused: Vec<NodeId> = nodes
                    .iter()
                    .copied()
                    .filter(|&n| self.env.cluster.node_state(n) == Ok(NodeState::Idle))
                    .collect();
                self.env.take(&unused, Hold::Reserved(for_job))?;
                return Ok(());
            }
        };
        for start in self.env.register_starts(now, guest_of) {
            self.observe(now, &Observation::Started(start))?;
        }
        Ok(())
    }
}

impl<P> Simulation for Sim<P>
where
    P: HybridProtocol,
{
    type Event = Ev;
    type Error = Failed<P>;

    fn handle(
        &mut self,
        now: Time,
        event: Ev,
        queue: &mut EventQueue<Ev>,
    ) -> Result<(), Failed<P>> {
        self.dispatch(now, event)?;
        self.arm_wake(now);
        self.env.flush(queue).map_err(SimError::from)
    }

    fn settle(&mut self, now: Time, queue: &mut EventQueue<Ev>) -> Result<(), Failed<P>> {
        loop {
            let mut out = std::mem::take(&mut self.out);
            out.clear();
            self.env.begin_call();
            self.policy
                .observe(now, &Observation::Settle, &self.env, &mut out)
                .map_err(SimError::Policy)?;
            if out.is_empty() {
                self.out = out;
                break;
            }
            let result = self.apply(now, &out);
            out.clear();
            self.out = out;
            result?;
        }
        if self.env.check {
            self.env.check_nodes(now);
        }
        self.arm_wake(now);
        self.env.flush(queue).map_err(SimError::from)
    }
}
