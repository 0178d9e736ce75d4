//! The environment's operations (submissions, runs, interruptions, resizes, on-demand jobs,
//! the ledger), the view it lends the policy, and its invariant checks.

use super::*;

impl Env {
    pub(super) fn new(
        config: &HybridConfig,
        specs: &[HybridJob],
        check: bool,
        notices: bool,
    ) -> Result<Self, HybridError> {
        let index = JobIndex::new(specs);
        let mut jobs = Vec::with_capacity(specs.len());
        let mut accounts = Vec::with_capacity(specs.len());
        let mut records = Vec::with_capacity(specs.len());
        let mut pending = Vec::new();
        let mut notice_order = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let (state, account, record) = job_entry(config, spec)?;
            jobs.push(state);
            accounts.push(account);
            records.push(record);
            if let HybridJob::OnDemand(job) = spec
                && let (true, Some(at), Some(_)) = (notices, job.notice, job.estimated_arrival)
            {
                notice_order.push((at, i));
            }
        }
        // Arrivals and notices are put on the queue one at a time, each by the one before it
        // (a heap of every future submission would make every pop slower). The notices go in
        // (time, job) order, the order their sequence numbers gave them when all were queued
        // at once.
        notice_order.sort_unstable();
        pending.extend(notice_order.first().map(|&(at, i)| (at, Ev::Notice(i))));
        pending.extend(specs.first().map(|spec| (spec.submit(), entry(spec, 0))));
        let failures = config
            .failures
            .map(|f| FailureProcess::new(SeedStreams::new(config.seed), f, config.nodes))
            .transpose()?;
        Ok(Env {
            config: config.clone(),
            cluster: BatchCluster::new(config.nodes)?,
            site: Driver::new(config.site.make()),
            site_skips_idle: matches!(
                config.site.builtin(),
                Some(BuiltinPolicy::Easy | BuiltinPolicy::Fcfs)
            ),
            pending,
            notice_order,
            notices_queued: 1,
            workload_len: jobs.len(),
            outstanding: jobs.len(),
            jobs,
            accounts,
            records,
            index,
            hold: vec![Hold::Cluster; config.nodes as usize],
            reserved_unknown: FxHashMap::default(),
            reserved_version: 0,
            idle: IdleStack::new(config.nodes),
            running: BTreeMap::new(),
            od_running: 0,
            od_pending: 0,
            invalid: 0,
            rejected: 0,
            node_failures: 0,
            guest_starts: 0,
            failures,
            failure_armed: false,
            queue_epoch: 0,
            started: Vec::new(),
            usage: UsageLedger::with_windows(),
            overhead: UsageLedger::with_windows(),
            arriving: None,
            check,
            violations: Vec::new(),
            transcript: None,
            external: None,
        })
    }

    /// Admits on-demand job `job` while the run is stepped (it was not in the workload):
    /// validated, its id new, its longest run within the horizon; its arrival is queued
    /// after every entry of the workload's at that instant ([`Ev::Late`]). Returns its
    /// position.
    pub(super) fn admit_late(&mut self, job: OnDemandJob) -> Result<usize, HybridError> {
        let spec = HybridJob::OnDemand(job);
        spec.validate()?;
        if self.index.get(job.id).is_some() {
            return Err(HybridError::DuplicateJob(job.id));
        }
        let longest = job.estimate.max(job.runtime);
        job.arrival
            .try_add(longest.checked_mul(2).unwrap_or(Duration(i64::MAX)))?;
        let (mut state, account, record) = job_entry(&self.config, &spec)?;
        // Nodes a policy reserved for the id before the job was admitted.
        state.reserved_idle = self.reserved_unknown.remove(&job.id).unwrap_or(0);
        self.reserved_version += 1;
        let i = self.jobs.len();
        self.index
            .push(job.id, i, self.jobs.iter().map(|st| st.spec.id()));
        self.jobs.push(state);
        self.accounts.push(account);
        self.records.push(record);
        self.outstanding += 1;
        self.schedule(job.arrival, Ev::Late(i));
        Ok(i)
    }

    /// The workload position of `job`, or the typed error for a command naming a job the
    /// workload does not have.
    pub(super) fn find(&self, job: JobId) -> Result<usize, HybridError> {
        self.index.get(job).ok_or(HybridError::UnknownJob(job))
    }

    pub(super) fn schedule(&mut self, at: Time, ev: Ev) {
        self.pending.push((at, ev));
    }

    /// Puts the events decided since the last flush on the kernel's queue.
    pub(super) fn flush(&mut self, queue: &mut EventQueue<Ev>) -> Result<(), HybridError> {
        for (at, ev) in self.pending.drain(..) {
            let ended = match ev {
                _ if self.external.is_none() => None,
                Ev::BatchEnd(token) => Some(token.job),
                Ev::OdEnd(i, _) => Some(self.jobs[i].spec.id()),
                _ => None,
            };
            if let (Some(external), Some(job)) = (&mut self.external, ended) {
                // A stepped run's ends come from its platform.
                external.queued += 1;
                external.ends.insert(job, (external.queued, ev));
                continue;
            }
            queue.schedule(at, ev).map_err(engine::EngineError::from)?;
        }
        Ok(())
    }

    pub(super) fn busy(&mut self, from: Time, to: Time, units: u32) {
        // Run segments never end before they start.
        let _ = self
            .usage
            .record(Pool::Batch, UsageKind::Busy, from, to, u64::from(units));
    }

    pub(super) fn wasted(&mut self, from: Time, to: Time, units: u32) {
        let _ = self
            .usage
            .record(Pool::Batch, UsageKind::Wasted, from, to, u64::from(units));
    }

    /// Records setup or checkpoint-write node-seconds that were not lost (overhead).
    pub(super) fn overhead_held(&mut self, from: Time, to: Time, units: u32) {
        let _ = self
            .overhead
            .record(Pool::Batch, UsageKind::Busy, from, to, u64::from(units));
    }

    /// Whether no job runs, waits or is queued: failures then harm nothing.
    pub(super) fn machine_empty(&self) -> bool {
        self.running.is_empty()
            && self.od_running == 0
            && self.od_pending == 0
            && self.cluster.queue_len() == 0
    }

    /// Schedules the first failure at or after `now` if the process is paused.
    pub(super) fn arm_failures(&mut self, now: Time) {
        if self.failure_armed || self.outstanding == 0 {
            return;
        }
        let Some(process) = self.failures.as_mut() else {
            return;
        };
        if let Some((at, node, repair)) = process.next_at_or_after(now) {
            self.failure_armed = true;
            self.schedule(at, Ev::Failure(node, repair));
        }
    }

    /// Schedules the entry of the job after job `i` (the jobs enter in workload order).
    pub(super) fn next_entry(&mut self, i: usize) {
        // The workload's jobs only: those admitted later enter by their own events.
        if i + 1 >= self.workload_len {
            return;
        }
        if let Some(spec) = self.jobs.get(i + 1).map(|st| st.spec) {
            self.schedule(spec.submit(), entry(&spec, i + 1));
        }
    }

    /// Schedules the notice after the one that just fired (the notices fire in time order).
    pub(super) fn next_notice(&mut self) {
        if let Some(&(at, i)) = self.notice_order.get(self.notices_queued) {
            self.notices_queued += 1;
            self.schedule(at, Ev::Notice(i));
        }
    }

    /// Job `i`'s advance notice, if it has one.
    pub(super) fn notice(&self, i: usize) -> Option<Notice> {
        let HybridJob::OnDemand(job) = self.jobs.get(i)?.spec else {
            return None;
        };
        Some(Notice {
            job: job.id,
            size: job.size,
            at: job.notice?,
            estimated_arrival: job.estimated_arrival?,
        })
    }

    pub(super) fn submit(&mut self, i: usize) -> Result<(), HybridError> {
        let st = &self.jobs[i];
        let job = match st.spec {
            HybridJob::Rigid { job, .. } => {
                let runtime = self.rigid_runtime(i)?;
                BatchJob {
                    runtime,
                    estimate: job.estimate.max(runtime),
                    ..BatchJob::rigid(&job)
                }
            }
            HybridJob::Malleable { job, estimate } => {
                BatchJob::malleable(&job, job.max_size, estimate)?
            }
            HybridJob::OnDemand(job) => BatchJob {
                id: job.id,
                submit: job.arrival,
                size: job.size,
                runtime: job.runtime,
                estimate: job.estimate.max(job.runtime),
                class: JobClass::OnDemand,
                resizable: None,
            },
        };
        self.queue_epoch += 1;
        if self.cluster.submit(job)? == Submitted::Rejected {
            self.rejected += 1;
            self.outstanding -= 1;
        }
        Ok(())
    }

    /// The run time of rigid job `i`'s next run: setup, its work left, its checkpoints.
    pub(super) fn rigid_runtime(&self, i: usize) -> Result<Duration, HybridError> {
        let st = &self.jobs[i];
        let wall = match st.checkpoints {
            Some(ck) => ck.wall_time(st.work_left),
            None => Some(st.work_left),
        };
        wall.and_then(|w| w.checked_add(st.setup))
            .ok_or_else(|| ParamError::new("runtime", st.work_left.0, "overflows").into())
    }

    /// A batch run's end: the job that completed, if `token` was its current run.
    pub(super) fn batch_end(
        &mut self,
        now: Time,
        token: RunToken,
    ) -> Result<Option<JobId>, HybridError> {
        let i = self.find(token.job)?;
        let reported = self.platform_end(token.job);
        let Some(run) = self.jobs[i].run.filter(|r| r.token == token) else {
            return Ok(None);
        };
        let end = reported.map_or(now, |at| at.clamp(run.anchor, now));
        for &node in self.cluster.job_nodes(token.job)? {
            self.idle.push(node);
        }
        self.running.remove(&i);
        let Some(record) = self.cluster.complete(now, token) else {
            return Ok(None);
        };
        let st = &mut self.jobs[i];
        self.accounts[i].delivered += i64::from(run.size) * (end - run.anchor).0;
        self.accounts[i].held += (end - run.start).0;
        self.accounts[i].completions += 1;
        st.run = None;
        self.records[i] = JobRecord {
            runtime: self.records[i].runtime,
            end: Some(end),
            ..record
        };
        self.busy(run.anchor, end, run.size);
        let st = &self.jobs[i];
        let checkpoints = match (st.spec, st.checkpoints) {
            (HybridJob::Rigid { .. }, Some(ck)) if st.work_left.0 > 0 => {
                (st.work_left.0 - 1) / ck.interval.0.max(1)
            }
            _ => 0,
        };
        // A rigid run's setup is its own; a malleable job's first setup only (a resumed
        // run's setup is waste).
        if matches!(st.spec, HybridJob::Rigid { .. }) {
            self.overhead(i, &run, end, true, checkpoints);
        } else {
            self.book_setup(i, &run, end);
        }
        self.outstanding -= 1;
        Ok(Some(token.job))
    }

    /// In a stepped run, when the platform says `job`'s run ended, if it said
    /// ([`Stepped::step_ended_at`]).
    fn platform_end(&mut self, job: JobId) -> Option<Time> {
        self.external.as_mut()?.ended_at.remove(&job)
    }

    /// Books job `i`'s run `run` setup (if `with_setup`) and its first `checkpoints`
    /// checkpoint writes as overhead: part of the job's execution (§IV-D excludes only the
    /// waste of preemptions), kept apart in the overhead ledger and the job's account.
    pub(super) fn overhead(
        &mut self,
        i: usize,
        run: &Run,
        by: Time,
        with_setup: bool,
        checkpoints: i64,
    ) {
        let st = &self.jobs[i];
        // A run stopped during its setup did only part of it.
        let (setup, ck) = (st.setup.min(by - run.start), st.checkpoints);
        let mut total = 0;
        if with_setup {
            total += self.setup_held(i, run, by, false);
        }
        if let Some(ck) = ck.filter(|ck| ck.cost.0 > 0) {
            let period = ck.interval.0.saturating_add(ck.cost.0);
            for k in 0..checkpoints {
                let at = run
                    .start
                    .saturating_add(setup)
                    .saturating_add(Duration(k.saturating_mul(period)))
                    .saturating_add(ck.interval);
                self.overhead_held(at, at.saturating_add(ck.cost), run.size);
                total += i64::from(run.size) * ck.cost.0;
            }
        }
        self.accounts[i].overhead += total;
    }

    /// The node-seconds run `run` of job `i` held in its setup from its last anchor (start or
    /// resize) to `by`, in the ledger as waste (`waste`: a setup paid again after an
    /// interruption) or as overhead. A setup lasts the same whatever the size (§III-A), so a
    /// run resized during it holds it on more or fewer nodes.
    fn setup_held(&mut self, i: usize, run: &Run, by: Time, waste: bool) -> i64 {
        let setup_end = run.start.saturating_add(self.jobs[i].setup).min(by);
        if setup_end <= run.anchor {
            return 0;
        }
        if waste {
            self.wasted(run.anchor, setup_end, run.size);
        } else {
            self.overhead_held(run.anchor, setup_end, run.size);
        }
        i64::from(run.size) * (setup_end - run.anchor).0
    }

    /// Books the setup run `run` of malleable job `i` held since its last anchor up to `by`:
    /// overhead on its first run, waste on a resumed one (the setup it pays again).
    fn book_setup(&mut self, i: usize, run: &Run, by: Time) {
        let a = &self.accounts[i];
        let resumed = a.preemptions + a.failures + a.evictions > 0;
        let held = self.setup_held(i, run, by, resumed);
        let account = &mut self.accounts[i];
        if resumed {
            account.wasted += held;
        } else {
            account.overhead += held;
        }
    }

    /// Stops running batch job `i` (a preemption or a node failure) and requeues it.
    pub(super) fn interrupt(
        &mut self,
        now: Time,
        i: usize,
        why: Interruption,
    ) -> Result<(), HybridError> {
        let id = self.jobs[i].spec.id();
        for &node in self.cluster.job_nodes(id)? {
            self.idle.push(node);
        }
        self.running.remove(&i);
        let Some(run) = self.jobs[i].run.take() else {
            return Ok(());
        };
        let segment = i64::from(run.size) * (now - run.anchor).0;
        self.accounts[i].delivered += segment;
        self.accounts[i].held += (now - run.start).0;
        self.busy(run.anchor, now, run.size);
        let size = self.jobs[i].spec.size();
        let resume = match self.jobs[i].spec {
            HybridJob::Malleable { .. } => {
                // Its first setup was overhead; a resumed run's setup is waste. The cluster
                // requeues it with its work left and its setup to pay again (§III-A).
                self.book_setup(i, &run, now);
                self.accounts[i].rounding_slack += i64::from(size);
                Resume::Remaining
            }
            _ => {
                let st = &mut self.jobs[i];
                let elapsed = now - run.start;
                let (lost, saved) =
                    preemption_cost(elapsed, st.setup, st.work_left, st.checkpoints);
                st.work_left -= saved;
                self.accounts[i].wasted += i64::from(size) * lost.0;
                // The run's setup and what followed its last checkpoint are lost; with
                // nothing saved, the whole run.
                let setup = st.setup;
                if saved > Duration::ZERO {
                    // The checkpoints written before it stopped saved the work: overhead.
                    let written = st
                        .checkpoints
                        .map_or(0, |ck| saved.0 / ck.interval.0.max(1));
                    self.overhead(i, &run, now, false, written);
                    self.wasted(run.start, run.start + setup, size);
                    self.wasted(now - (lost - setup), now, size);
                } else {
                    self.wasted(run.start, now, size);
                }
                Resume::WithRuntime(self.rigid_runtime(i)?)
            }
        };
        match why {
            // A guest stopped at its host's arrival (§III-B1) is counted apart.
            Interruption::Preemption if run.guest_of.is_some() && run.guest_of == self.arriving => {
                self.accounts[i].evictions += 1;
            }
            Interruption::Preemption => self.accounts[i].preemptions += 1,
            Interruption::Failure => self.accounts[i].failures += 1,
        }
        self.cluster.preempt(now, id, resume)?;
        self.queue_epoch += 1;
        self.act(now, Action::Preempt { job: id });
        Ok(())
    }

    /// Resizes running malleable job `i` to `to` nodes (a shrink's nodes go idle).
    pub(super) fn resize(&mut self, now: Time, i: usize, to: u32) -> Result<(), HybridError> {
        let id = self.jobs[i].spec.id();
        let before = self.cluster.job_nodes(id)?;
        let old = before.len();
        for &node in before.get(to as usize..).unwrap_or_default() {
            self.idle.push(node);
        }
        let started = self.cluster.resize(now, id, to)?;
        // An expansion pops idle nodes off the top, in the order the job lists them.
        for &node in self.cluster.job_nodes(id)?.get(old..).unwrap_or_default() {
            self.idle.remove(node);
        }
        let Some(run) = self.jobs[i].run else {
            return Ok(());
        };
        self.book_setup(i, &run, now);
        self.busy(run.anchor, now, run.size);
        let st = &mut self.jobs[i];
        self.accounts[i].delivered += i64::from(run.size) * (now - run.anchor).0;
        self.accounts[i].rounding_slack += i64::from(to);
        if to > run.size {
            self.accounts[i].expansions += 1;
        } else if to < run.size {
            self.accounts[i].shrinks += 1;
        }
        st.run = Some(Run {
            anchor: now,
            size: to,
            predicted_end: started.predicted_end,
            token: started.token,
            ..run
        });
        let view = planned(st);
        self.running.insert(i, view);
        self.schedule(started.end, Ev::BatchEnd(started.token));
        if self.external.is_some() {
            let nodes = self.cluster.job_nodes(id)?.to_vec();
            let run = started.end - now;
            self.act(
                now,
                Action::Resize {
                    job: id,
                    nodes,
                    run,
                },
            );
        }
        Ok(())
    }

    /// Books the runs the last pass started; what the policy hears of them.
    pub(super) fn register_starts(&mut self, now: Time, guest_of: Option<JobId>) -> Vec<StartInfo> {
        let mut starts = Vec::with_capacity(self.started.len());
        // The pass buffer keeps its capacity for the next pass.
        let mut passed = std::mem::take(&mut self.started);
        for started in passed.drain(..) {
            let Some(i) = self.index.get(started.token.job) else {
                continue;
            };
            // A start takes the top of the idle stack: remove from the top down.
            if let Ok(nodes) = self.cluster.job_nodes(started.token.job) {
                for &node in nodes.iter().rev() {
                    self.idle.remove(node);
                }
            }
            let st = &mut self.jobs[i];
            st.run = Some(Run {
                start: now,
                anchor: now,
                size: started.size,
                predicted_end: started.predicted_end,
                token: started.token,
                guest_of,
            });
            self.running.insert(i, planned(st));
            let st = &mut self.jobs[i];
            if self.records[i].start.is_none() {
                self.records[i].start = Some(now);
            }
            let max_size = match st.spec {
                HybridJob::Malleable { job, .. } => Some(job.max_size),
                _ => None,
            };
            if started.size < st.spec.size() {
                // Started below its largest size: the spread work rounds up per node.
                self.accounts[i].rounding_slack += i64::from(started.size);
            }
            starts.push(StartInfo {
                job: started.token.job,
                submit: st.spec.submit(),
                size: started.size,
                max_size,
                guest_of,
            });
            self.pending
                .push((started.end, Ev::BatchEnd(started.token)));
            if let Some(external) = &mut self.external
                && let Ok(nodes) = self.cluster.job_nodes(started.token.job)
            {
                let start = Action::Start {
                    job: started.token.job,
                    nodes: nodes.to_vec(),
                    run: started.end - now,
                };
                external.actions.push((now, start));
            }
        }
        self.started = passed;
        if guest_of.is_some() {
            self.guest_starts += starts.len();
        }
        starts
    }

    /// Hands `action` to a stepped run's platform.
    fn act(&mut self, now: Time, action: Action) {
        if let Some(external) = &mut self.external {
            external.actions.push((now, action));
        }
    }

    /// Gives a held node back to the batch cluster.
    pub(super) fn set_online(&mut self, node: NodeId) -> Result<(), HybridError> {
        self.cluster.set_online(node)?;
        self.set_hold(node, Hold::Cluster);
        self.idle.push(node);
        Ok(())
    }

    /// Takes idle `nodes` from the batch cluster for `hold`.
    pub(super) fn take(&mut self, nodes: &[NodeId], hold: Hold) -> Result<(), HybridError> {
        // From the top of the free stack down, where removals are cheapest.
        let mut nodes = nodes.to_vec();
        self.idle.sort_top_first(&mut nodes);
        for node in nodes {
            self.cluster.set_offline(node)?;
            self.idle.remove(node);
            self.set_hold(node, hold);
        }
        Ok(())
    }

    /// Sets who holds `node`, keeping the count of each reservation's idle nodes.
    pub(super) fn set_hold(&mut self, node: NodeId, hold: Hold) {
        let Some(slot) = self.hold.get_mut(node.index()) else {
            return;
        };
        if let Hold::Reserved(job) = std::mem::replace(slot, hold) {
            let count = self.reserved_count(job);
            *count = count.saturating_sub(1);
            self.reserved_version += 1;
        }
        if let Hold::Reserved(job) = hold {
            *self.reserved_count(job) += 1;
            self.reserved_version += 1;
        }
    }

    /// The count of nodes held [`Hold::Reserved`] for `job`.
    fn reserved_count(&mut self, job: JobId) -> &mut u32 {
        match self.index.get(job) {
            Some(i) => &mut self.jobs[i].reserved_idle,
            None => self.reserved_unknown.entry(job).or_default(),
        }
    }

    /// Whether `node` is idle in the batch cluster and held by no one.
    pub(super) fn idle_in_cluster(&self, node: NodeId) -> bool {
        self.hold.get(node.index()) == Some(&Hold::Cluster)
            && self.cluster.node_state(node) == Ok(NodeState::Idle)
    }

    pub(super) fn start_od(&mut self, now: Time, i: usize) -> Result<(), HybridError> {
        let st = &mut self.jobs[i];
        st.od_epoch += 1;
        let end = now.try_add(st.work_left)?;
        st.run = Some(Run {
            start: now,
            anchor: now,
            size: st.spec.size(),
            predicted_end: end,
            token: RunToken {
                job: st.spec.id(),
                epoch: st.od_epoch,
            },
            guest_of: None,
        });
        if self.records[i].start.is_none() {
            self.records[i].start = Some(now);
        }
        let epoch = st.od_epoch;
        let (id, size) = (st.spec.id(), st.spec.size());
        // The site's scheduler sees the run end at its estimate, as it sees a batch job's.
        let expected = self.od_expected_end(i, now)?;
        self.cluster.expect_return(expected, id, size)?;
        let st = &mut self.jobs[i];
        if let Some(external) = &mut self.external {
            let start = Action::StartOnDemand {
                job: st.spec.id(),
                nodes: st.od_nodes.clone(),
                run: st.work_left,
            };
            external.actions.push((now, start));
        }
        self.od_running += 1;
        self.od_pending -= 1;
        self.schedule(end, Ev::OdEnd(i, epoch));
        Ok(())
    }

    /// When the site's scheduler expects on-demand job `i`'s run started at `start` to end: at
    /// its estimate, the walltime a resource manager knows of any running job (EASY's
    /// reservation for the queue head counts its nodes coming back then).
    fn od_expected_end(&self, i: usize, start: Time) -> Result<Time, HybridError> {
        let estimate = match self.jobs[i].spec {
            HybridJob::OnDemand(job) => job.estimate,
            _ => self.jobs[i].work_left,
        };
        Ok(start.try_add(estimate)?)
    }

    /// Withdraws the end the site's scheduler expects of on-demand job `i`'s `run`.
    fn od_forget(&mut self, i: usize, run: &Run) -> Result<(), HybridError> {
        let expected = self.od_expected_end(i, run.start)?;
        self.cluster.cancel_return(expected, self.jobs[i].spec.id());
        Ok(())
    }

    /// Gives on-demand job `i`'s nodes (but the failed ones) back.
    pub(super) fn release_od(&mut self, i: usize) -> Result<(), HybridError> {
        for node in std::mem::take(&mut self.jobs[i].od_nodes) {
            if self.hold[node.index()] == Hold::Failed {
                continue;
            }
            self.set_online(node)?;
        }
        Ok(())
    }

    /// On-demand job `i` completed: its nodes go back.
    pub(super) fn od_end(&mut self, now: Time, i: usize) -> Result<JobId, HybridError> {
        let reported = self.platform_end(self.jobs[i].spec.id());
        if let Some(run) = self.jobs[i].run.take() {
            self.od_forget(i, &run)?;
            let end = reported.map_or(now, |at| at.clamp(run.anchor, now));
            self.accounts[i].delivered += i64::from(run.size) * (end - run.anchor).0;
            self.accounts[i].held += (end - run.start).0;
            self.accounts[i].completions += 1;
            self.records[i].end = Some(end);
            self.busy(run.anchor, end, run.size);
            self.od_running -= 1;
            self.outstanding -= 1;
        }
        self.release_od(i)?;
        Ok(self.jobs[i].spec.id())
    }

    /// A failure killed running on-demand job `i`: its run is wasted and its other nodes go
    /// back; it is pending again.
    pub(super) fn od_killed(&mut self, now: Time, i: usize, run: Run) -> Result<(), HybridError> {
        self.od_forget(i, &run)?;
        let lost = i64::from(run.size) * (now - run.anchor).0;
        self.accounts[i].delivered += lost;
        self.accounts[i].wasted += lost;
        self.accounts[i].held += (now - run.start).0;
        self.accounts[i].failures += 1;
        self.busy(run.anchor, now, run.size);
        self.wasted(run.anchor, now, run.size);
        self.od_running -= 1;
        self.od_pending += 1;
        self.release_od(i)
    }

    /// The running batch jobs as the mechanisms see them (on-demand jobs left out), in
    /// workload order (the mechanisms break ties by job id).
    pub(super) fn running_views(&self, now: Time) -> Vec<PlannedJob> {
        // Sized once: a flattened iterator gives no size hint, and thousands of jobs run.
        let mut views = Vec::with_capacity(self.running.len());
        views.extend(self.running.values().flatten().map(|&planned| {
            let mut planned = planned;
            if let RunningKind::Rigid { elapsed, .. } = &mut planned.view.kind {
                // A stepped run's job may outlive its computed end until the platform
                // reports it: it has then done its whole run.
                *elapsed = now.min(planned.predicted_end) - planned.run_start;
            }
            planned
        }));
        views
    }

    pub(super) fn finish(self, label: &str) -> HybridOutcome {
        let (records, accounts) = (self.records, self.accounts);
        let counts = Counts {
            invalid: self.invalid,
            rejected: self.rejected,
            node_failures: self.node_failures,
            guest_starts: self.guest_starts,
        };
        let report = report(
            &self.config,
            label,
            &records,
            &accounts,
            (&self.usage, &self.overhead),
            counts,
        );
        HybridOutcome {
            report,
            records,
            accounts,
            usage: self.usage,
            overhead: self.overhead,
            violations: self.violations,
        }
    }
}

impl Env {
    /// Keeps `answer` to `query` in the transcript, if one is kept.
    pub(super) fn noted<T>(
        &self,
        query: impl FnOnce() -> Query,
        answer: T,
        as_answer: impl FnOnce(&T) -> Answer,
    ) -> T {
        if let Some(transcript) = &self.transcript {
            transcript.borrow_mut().push((query(), as_answer(&answer)));
        }
        answer
    }

    /// A policy call begins: the transcript starts afresh.
    pub(super) fn begin_call(&self) {
        if let Some(transcript) = &self.transcript {
            transcript.borrow_mut().clear();
        }
    }
}

impl PlatformView for Env {
    fn idle_nodes(&self, n: usize) -> Vec<NodeId> {
        self.noted(
            || Query::IdleNodes(n),
            self.idle.top(n),
            |a| Answer::Nodes(a.clone()),
        )
    }

    fn idle_count(&self) -> u32 {
        let count = self.cluster.free_units();
        self.noted(|| Query::IdleCount, count, |&a| Answer::Count(u64::from(a)))
    }

    fn reserved_for(&self, node: NodeId) -> Option<JobId> {
        let job = match self.hold.get(node.index()) {
            Some(&Hold::Reserved(job)) => Some(job),
            _ => None,
        };
        self.noted(|| Query::ReservedFor(node), job, |&a| Answer::Job(a))
    }

    fn reserved_idle(&self, job: JobId, _nodes: &[NodeId]) -> usize {
        let count = match self.index.get(job) {
            Some(i) => self.jobs.get(i).map_or(0, |st| st.reserved_idle),
            None => self.reserved_unknown.get(&job).copied().unwrap_or(0),
        } as usize;
        self.noted(
            || Query::ReservedIdle(job),
            count,
            |&a| Answer::Count(a as u64),
        )
    }

    fn running(&self, now: Time) -> Vec<PlannedJob> {
        self.noted(
            || Query::Running(now),
            self.running_views(now),
            |a| Answer::Running(a.clone()),
        )
    }

    fn run(&self, job: JobId) -> Option<RunInfo> {
        let info = self
            .index
            .get(job)
            .and_then(|i| self.jobs.get(i))
            .and_then(|st| st.run)
            .map(|run| RunInfo {
                size: run.size,
                predicted_end: run.predicted_end,
                started: run.start,
            });
        self.noted(|| Query::Run(job), info, |&a| Answer::Run(a))
    }

    fn is_queued(&self, job: JobId) -> bool {
        let queued = self.index.get(job).is_some_and(|i| {
            self.jobs.get(i).is_some_and(|st| st.run.is_none())
                && self.accounts.get(i).is_some_and(|a| a.completions == 0)
        });
        self.noted(|| Query::IsQueued(job), queued, |&a| Answer::Flag(a))
    }

    fn held(&self, job: JobId) -> u32 {
        let held = self
            .index
            .get(job)
            .and_then(|i| self.jobs.get(i))
            .map_or(0, |st| st.od_nodes.len() as u32);
        self.noted(|| Query::Held(job), held, |&a| Answer::Count(u64::from(a)))
    }

    fn queue_len(&self) -> usize {
        let len = self.cluster.queue_len();
        self.noted(|| Query::QueueLen, len, |&a| Answer::Count(a as u64))
    }

    fn queue_epoch(&self) -> u64 {
        self.noted(
            || Query::QueueEpoch,
            self.queue_epoch,
            |&a| Answer::Count(a),
        )
    }

    fn reserved_version(&self) -> Option<u64> {
        let version = self.reserved_version;
        Some(self.noted(|| Query::ReservedVersion, version, |&a| Answer::Count(a)))
    }

    fn head_shadow(&self, now: Time) -> Option<Shadow> {
        let shadow = self
            .cluster
            .queue()
            .next()
            .map(|head| self.cluster.shadow(now, head.size()));
        self.noted(
            || Query::HeadShadow(now),
            shadow,
            |a| Answer::Shadow(a.map(|s| (s.time, s.extra))),
        )
    }

    fn guest_could_start(&self, now: Time, budget: u32, arrival: Time) -> bool {
        // A read-only pass over the queue's indexes: no node moves for a pass that would start
        // nothing.
        let mut none = Vec::new();
        let pass = cosched_batch::Pass::new(now, &self.cluster, &mut none);
        let could = GuestPicker { budget, arrival }.finds_candidate(&pass);
        self.noted(
            || Query::GuestCouldStart(now, budget, arrival),
            could,
            |&a| Answer::Flag(a),
        )
    }

    fn transcript(&self) -> Option<Transcript> {
        self.transcript.as_ref().map(|t| t.borrow().clone())
    }
}

impl Env {
    /// Records a violation if `command` names a job that has finished (checked with
    /// [`HybridSim::check_invariants`]).
    pub(super) fn audit(&mut self, now: Time, command: &Command) {
        let named: &[JobId] = match command {
            Command::Preempt { job }
            | Command::Resize { job, .. }
            | Command::Reserve { job, .. }
            | Command::Release { job, .. }
            | Command::Assign { job, .. }
            | Command::AssignIdle { job, .. }
            | Command::Unassign { job }
            | Command::StartOnDemand { job }
            | Command::Submit { job }
            | Command::Schedule(BatchPass::Guests { for_job: job, .. }) => {
                std::slice::from_ref(job)
            }
            Command::Schedule(BatchPass::Listed(jobs)) => jobs,
            Command::Schedule(BatchPass::Site { .. }) => &[],
        };
        for job in named {
            let finished = self
                .index
                .get(*job)
                .is_none_or(|i| self.accounts.get(i).is_none_or(|a| a.completions > 0));
            if finished {
                self.violations.push(format!(
                    "t={now}: {command:?} names {job}, finished or unknown"
                ));
            }
        }
    }

    pub(super) fn check_nodes(&mut self, now: Time) {
        let env = self;
        let mut held = 0u32;
        for (k, hold) in env.hold.iter().enumerate() {
            let node = NodeId(k as u32);
            let Ok(state) = env.cluster.node_state(node) else {
                env.violations
                    .push(format!("t={now}: {node} unknown to the cluster"));
                continue;
            };
            let ok = match hold {
                Hold::Cluster => !matches!(state, NodeState::Offline | NodeState::Draining(_)),
                _ => state == NodeState::Offline,
            };
            if !ok {
                env.violations.push(format!(
                    "t={now}: {node} held {hold:?} but {state:?} in the cluster"
                ));
            }
            held += u32::from(*hold != Hold::Cluster);
            if env.idle.contains(node) != (state == NodeState::Idle) {
                env.violations.push(format!(
                    "t={now}: {node} is {state:?} but the idle mirror disagrees"
                ));
            }
        }
        if held != env.cluster.offline_units() {
            env.violations.push(format!(
                "t={now}: {held} nodes held but {} offline",
                env.cluster.offline_units()
            ));
        }
        let mut idle: FxHashMap<JobId, u32> = FxHashMap::default();
        for hold in &env.hold {
            if let Hold::Reserved(job) = *hold {
                *idle.entry(job).or_default() += 1;
            }
        }
        let counted = env
            .jobs
            .iter()
            .map(|st| (st.spec.id(), st.reserved_idle))
            .chain(
                env.reserved_unknown
                    .iter()
                    .map(|(&job, &count)| (job, count)),
            );
        for (job, count) in counted {
            let idle = idle.get(&job).copied().unwrap_or(0);
            if idle != count {
                env.violations.push(format!(
                    "t={now}: {job} has {idle} idle reserved nodes, counted {count}"
                ));
            }
        }
        for (i, st) in env.jobs.iter().enumerate() {
            for &node in &st.od_nodes {
                if env.hold[node.index()] != Hold::OnDemand(i) {
                    env.violations.push(format!(
                        "t={now}: {node} of {} held otherwise",
                        st.spec.id()
                    ));
                }
            }
            if let (Some(run), HybridJob::Malleable { job, .. }) = (st.run, st.spec)
                && !(job.min_size..=job.max_size).contains(&run.size)
            {
                env.violations
                    .push(format!("t={now}: {} runs on {} nodes", job.id, run.size));
            }
        }
        // On-demand jobs run in the batch cluster only when queued there (the baseline).
        let busy: u32 = env
            .jobs
            .iter()
            .filter(|st| st.spec.class() != JobClass::OnDemand || st.od_nodes.is_empty())
            .filter_map(|st| st.run.map(|r| r.size))
            .sum();
        if busy != env.cluster.busy_units() {
            env.violations.push(format!(
                "t={now}: batch jobs hold {busy} nodes, the cluster says {}",
                env.cluster.busy_units()
            ));
        }
    }
}

/// Job `spec`'s state, account and record as it enters the environment.
fn job_entry(
    config: &HybridConfig,
    spec: &HybridJob,
) -> Result<(JobState, JobAccount, JobRecord), HybridError> {
    let (work_left, setup, checkpoints, required) = match *spec {
        HybridJob::Rigid { job, setup } => {
            let runtime = job.simulated_runtime();
            let work = config.checkpoint.work(job.size, runtime - setup);
            let wall = config
                .checkpoint
                .run_time(job.size, work)
                .and_then(|w| w.checked_add(setup))
                .ok_or_else(|| {
                    ParamError::new("runtime", runtime.0, "overflows with checkpoints")
                })?;
            let required = i64::from(job.size).saturating_mul(wall.0);
            (
                work,
                setup,
                config.checkpoint.checkpointing(job.size, work),
                required,
            )
        }
        HybridJob::Malleable { job, estimate } => {
            let runtime = job.runtime_on(job.max_size)?;
            let required = i64::from(job.max_size).saturating_mul(runtime.min(estimate).0);
            (Duration::ZERO, job.setup, None, required)
        }
        HybridJob::OnDemand(job) => {
            let required = i64::from(job.size).saturating_mul(job.runtime.0);
            (job.runtime, Duration::ZERO, None, required)
        }
    };
    let id = spec.id();
    let state = JobState {
        spec: *spec,
        work_left,
        setup,
        checkpoints,
        run: None,
        od_nodes: Vec::new(),
        od_epoch: 0,
        reserved_idle: 0,
    };
    let account = JobAccount {
        id,
        class: spec.class(),
        required,
        delivered: 0,
        wasted: 0,
        held: 0,
        completions: 0,
        preemptions: 0,
        evictions: 0,
        shrinks: 0,
        expansions: 0,
        failures: 0,
        rounding_slack: 0,
        overhead: 0,
    };
    let record = JobRecord {
        id,
        class: spec.class(),
        submit: spec.submit(),
        start: None,
        end: None,
        size: spec.size(),
        runtime: Duration(required / i64::from(spec.size().max(1))),
    };
    Ok((state, account, record))
}
