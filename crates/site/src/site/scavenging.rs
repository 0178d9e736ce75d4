//! The scavenging role in the executor: the scavenged tasks, the negotiator matching them to
//! lent nodes and cloud slots, the cycle its policy is told of, and the commands it answers
//! with (lend, recall, start and stop cloud instances).

use std::collections::BTreeSet;
use std::sync::Arc;

use cosched_albatross::policy::{CloudNodeState, CloudNodeView};
use cosched_classad::ClassAd;
use cosched_core::{Duration, NodeId, Time};

use super::{Ev, Exec, WAITING_ADS};
use crate::SiteError;
use crate::nodes::NodeUse;
use crate::scavenging::{PoolCycle, ScavengingCommand, ScavengingPolicy};
use crate::workload::Task;
use cosched_core::driver::Driver;

/// Where a task runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    Site(NodeId),
    Cloud(usize),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct TaskState {
    /// Work saved by checkpoints.
    pub(super) saved: i64,
    pub(super) run: Option<(Slot, Time, f64)>,
    pub(super) epoch: u32,
    pub(super) done: bool,
}

#[derive(Clone, Debug)]
pub(super) struct CloudNode {
    pub(super) instance: usize,
    pub(super) requested: Time,
    pub(super) lifetime: Duration,
    pub(super) up: bool,
    pub(super) stopped: Option<Time>,
    pub(super) tasks: Vec<u64>,
}

/// The scavenging pool's state in the executor.
#[derive(Debug)]
pub(super) struct Pool {
    pub(super) tasks: Vec<TaskState>,
    /// Queued tasks by ad, in submission order.
    pub(super) task_queues: Vec<BTreeSet<u64>>,
    /// Lent nodes running no task.
    pub(super) lent_free: BTreeSet<NodeId>,
    /// matches[ad][kind]: kind 0 a site node, 1 + i cloud instance type i.
    matches: Vec<Vec<bool>>,
    ads: Vec<Arc<ClassAd>>,
    pub(super) cloud: Vec<CloudNode>,
    cycle_scheduled: bool,
    cycle_due: bool,
    dispatched: usize,
    /// Lent nodes taken back by their owners since the last cycle.
    pub(super) revoked: Vec<NodeId>,
    pub(super) work_done: i128,
    /// Checkpointed work of the tasks not completed.
    work_saved: i128,
    work_submitted: i128,
    pub(super) cloud_cost: f64,
    /// Scavenged tasks running.
    tasks_running: usize,
    /// The tasks running on site nodes: when each would have done all its work left (its
    /// start plus that work; a site node runs at reference speed), and the sum of their
    /// starts, s.
    pub(super) site_ends: BTreeSet<(i64, u64)>,
    pub(super) site_starts: i128,
}

impl Pool {
    pub(super) fn new(tasks: &[Task], ads: Vec<Arc<ClassAd>>, matches: Vec<Vec<bool>>) -> Pool {
        Pool {
            tasks: vec![
                TaskState {
                    saved: 0,
                    run: None,
                    epoch: 0,
                    done: false,
                };
                tasks.len()
            ],
            task_queues: vec![BTreeSet::new(); ads.len()],
            lent_free: BTreeSet::new(),
            matches,
            ads,
            cloud: Vec::new(),
            cycle_scheduled: false,
            cycle_due: false,
            dispatched: 0,
            revoked: Vec::new(),
            work_done: 0,
            work_saved: 0,
            work_submitted: 0,
            cloud_cost: 0.0,
            tasks_running: 0,
            site_ends: BTreeSet::new(),
            site_starts: 0,
        }
    }

    /// The negotiator's timer fired.
    pub(super) fn cycle_due(&mut self) {
        self.cycle_scheduled = false;
        self.cycle_due = true;
    }

    pub(super) fn queued(&self) -> usize {
        self.task_queues.iter().map(BTreeSet::len).sum()
    }

    /// Task `task` starts (`true`) or stops running on a site node at `start`, with `left`
    /// seconds of work left when it started.
    fn site_run(&mut self, task: u64, start: Time, left: i64, running: bool) {
        let end = (start.0.saturating_add(left), task);
        if running {
            self.site_ends.insert(end);
            self.site_starts += i128::from(start.0);
        } else if self.site_ends.remove(&end) {
            self.site_starts -= i128::from(start.0);
        }
    }

    /// The work the tasks running on site nodes did since their last start, each at most
    /// its work left, `Σ min(now − start, left)` = `Σ min(now, end) − Σ start`, in O(log n)
    /// (plus the tasks past their end, none while each ends by its own event); `None` above
    /// 2^53 s, where a float sum might round.
    fn site_partial(&self, now: Time) -> Option<f64> {
        let past = self.site_ends.iter().take_while(|&&(end, _)| end <= now.0);
        let (mut ended, mut sum) = (0usize, 0i128);
        for &(end, _) in past {
            ended += 1;
            sum += i128::from(end);
        }
        let at_now = (self.site_ends.len() - ended) as i128 * i128::from(now.0);
        let total = sum + at_now - self.site_starts;
        (total.abs() < 1 << 53).then_some(total as f64)
    }
}

impl Exec {
    /// The next scavenged task arrives.
    pub(super) fn task_arrival(&mut self, now: Time, i: usize) -> Result<(), SiteError> {
        let t = self.workload.tasks[i];
        let pool = &mut self.pool;
        pool.work_submitted += i128::from(t.work.0);
        pool.task_queues[t.ad].insert(i as u64);
        if !pool.cycle_scheduled {
            pool.cycle_due = true;
        }
        if let Some(next) = self.workload.tasks.get(i + 1) {
            self.queue
                .schedule(next.submit.max(now), Ev::TaskArrival(i + 1))?;
        }
        Ok(())
    }

    /// A cloud node booted: it joins the pool, its lifetime running from then.
    pub(super) fn cloud_up(&mut self, i: usize) -> Result<(), SiteError> {
        if let Some(c) = self.pool.cloud.get_mut(i)
            && c.stopped.is_none()
        {
            c.up = true;
            let lifetime = c.lifetime;
            self.queue.schedule_in(lifetime, Ev::CloudDown(i))?;
        }
        Ok(())
    }

    /// Stops running `task`: an owner took its node back (`owner`: its work since its last
    /// checkpoint is lost) or its cloud node stopped (checkpointed, nothing lost); requeued.
    pub(super) fn evict(&mut self, now: Time, task: u64, owner: bool) -> Result<(), SiteError> {
        let pool = &mut self.pool;
        let Some(t) = usize::try_from(task)
            .ok()
            .and_then(|i| pool.tasks.get_mut(i))
        else {
            return Ok(());
        };
        let Some((slot, start, speed)) = t.run.take() else {
            return Ok(());
        };
        let left = self.workload.tasks[task as usize].work.0 - t.saved;
        pool.tasks_running -= 1;
        let ran = (now.checked_since(start).unwrap_or(Duration::ZERO).0 as f64 * speed) as i64;
        let (saved, lost) = if owner {
            let c = self.config.checkpoint.0;
            let saved = ran / c * c;
            (saved, ran - saved)
        } else {
            (ran, 0)
        };
        t.saved += saved;
        pool.work_saved += i128::from(saved);
        t.epoch = t.epoch.wrapping_add(1);
        if let Slot::Site(_) = slot {
            pool.site_run(task, start, left, false);
        }
        if owner {
            self.revocations.scavenged_evictions += 1;
            self.revocations.scavenged_lost_s += i128::from(lost);
        } else {
            self.revocations.cloud_requeues += 1;
        }
        let ad = self.workload.tasks[task as usize].ad;
        pool.task_queues[ad].insert(task);
        if let Slot::Site(n) = slot
            && self.state.nodes.get(n)? == NodeUse::Lent(Some(task))
            && !owner
        {
            self.set_use(now, n, NodeUse::Lent(None))?;
        }
        Ok(())
    }

    fn start_task(&mut self, now: Time, task: u64, slot: Slot) -> Result<(), SiteError> {
        let speed = match slot {
            Slot::Site(n) => {
                self.set_use(now, n, NodeUse::Lent(Some(task)))?;
                1.0
            }
            Slot::Cloud(c) => {
                self.pool.cloud[c].tasks.push(task);
                self.config.instance_types[self.pool.cloud[c].instance].speed
            }
        };
        let left = self.workload.tasks[task as usize].work.0 - self.pool.tasks[task as usize].saved;
        if let Slot::Site(_) = slot {
            self.pool.site_run(task, now, left, true);
        }
        let secs = ((left.max(0) as f64) / speed).ceil() as i64;
        let t = &mut self.pool.tasks[task as usize];
        t.run = Some((slot, now, speed));
        let epoch = t.epoch;
        self.pool.tasks_running += 1;
        self.queue
            .schedule_in(Duration(secs), Ev::TaskEnd(task, epoch))?;
        self.pool.dispatched += 1;
        Ok(())
    }

    pub(super) fn task_end(&mut self, now: Time, task: u64, epoch: u32) -> Result<(), SiteError> {
        let pool = &mut self.pool;
        let t = &mut pool.tasks[task as usize];
        if t.epoch != epoch || t.done {
            return Ok(());
        }
        let Some((slot, start, _)) = t.run.take() else {
            return Ok(());
        };
        let left = self.workload.tasks[task as usize].work.0 - t.saved;
        t.done = true;
        pool.work_saved -= i128::from(t.saved);
        pool.tasks_running -= 1;
        pool.work_done += i128::from(self.workload.tasks[task as usize].work.0);
        match slot {
            Slot::Site(n) => {
                self.pool.site_run(task, start, left, false);
                self.set_use(now, n, NodeUse::Lent(None))?;
            }
            Slot::Cloud(c) => pool.cloud[c].tasks.retain(|&x| x != task),
        }
        Ok(())
    }

    /// The negotiator: queued tasks, oldest first, to free matching slots (site nodes first,
    /// then cloud slots).
    fn dispatch(&mut self, now: Time) -> Result<(), SiteError> {
        loop {
            let pool = &self.pool;
            let mut best: Option<(u64, usize, Slot)> = None;
            for (ad, q) in pool.task_queues.iter().enumerate() {
                let Some(&head) = q.first() else { continue };
                if best.is_some_and(|(b, _, _)| b < head) {
                    continue;
                }
                let slot = if pool.matches[ad][0] {
                    pool.lent_free.first().map(|&n| Slot::Site(n))
                } else {
                    None
                };
                let slot = slot.or_else(|| {
                    pool.cloud
                        .iter()
                        .position(|c| {
                            c.up && c.stopped.is_none()
                                && (c.tasks.len() as u32)
                                    < self.config.instance_types[c.instance].slots
                                && pool.matches[ad][1 + c.instance]
                        })
                        .map(Slot::Cloud)
                });
                if let Some(slot) = slot {
                    best = Some((head, ad, slot));
                }
            }
            let Some((task, ad, slot)) = best else {
                return Ok(());
            };
            self.pool.task_queues[ad].remove(&task);
            self.start_task(now, task, slot)?;
        }
    }

    /// The end of an instant: the negotiation cycle's observation if a cycle is due (tasks
    /// waiting, new or requeued by an eviction, restart the negotiator), after dispatching;
    /// else dispatch to freed lent nodes and `None`.
    pub(super) fn begin_cycle(&mut self, now: Time) -> Result<Option<PoolCycle>, SiteError> {
        let pool = &mut self.pool;
        if !pool.cycle_scheduled && pool.task_queues.iter().any(|q| !q.is_empty()) {
            pool.cycle_due = true;
        }
        if !pool.cycle_due {
            if !pool.lent_free.is_empty() {
                self.dispatch(now)?;
            }
            return Ok(None);
        }
        pool.cycle_due = false;
        self.dispatch(now)?;
        let pool = &mut self.pool;
        let queued = pool.queued();
        // The first queued tasks in submission order: a merge of the ads' queues (each in
        // order, no task in two), O(WAITING_ADS · ads).
        self.state.waiting_ads.clear();
        let mut heads: Vec<_> = pool
            .task_queues
            .iter()
            .enumerate()
            .filter_map(|(ad, q)| {
                let mut rest = q.iter();
                rest.next().map(|&t| (t, ad, rest))
            })
            .collect();
        while self.state.waiting_ads.len() < WAITING_ADS {
            let Some(i) = (0..heads.len()).min_by_key(|&i| heads[i].0) else {
                break;
            };
            let head = &mut heads[i];
            self.state.waiting_ads.push(Arc::clone(&pool.ads[head.1]));
            match head.2.next() {
                Some(&t) => head.0 = t,
                None => {
                    let _ = heads.swap_remove(i);
                }
            }
        }
        self.state.rotate_idle_flips();
        let nodes = &self.state.nodes;
        let lent = nodes.idle_count().saturating_sub(nodes.unlent_count());
        Ok(Some(PoolCycle {
            instance_types: self.config.instance_types.clone(),
            dispatched: std::mem::take(&mut pool.dispatched),
            queued,
            running: pool.tasks_running,
            lendable: nodes.unlent_count() as u32,
            lent: lent as u32,
            lent_free: pool.lent_free.len() as u32,
            revoked: std::mem::take(&mut pool.revoked),
            cloud_nodes: pool
                .cloud
                .iter()
                .enumerate()
                .filter(|(_, c)| c.stopped.is_none())
                .map(|(i, c)| CloudNodeView {
                    node: NodeId(i as u32),
                    instance: c.instance,
                    state: if !c.up {
                        CloudNodeState::Booting
                    } else if c.tasks.is_empty() {
                        CloudNodeState::Idle
                    } else {
                        CloudNodeState::Busy {
                            jobs: c.tasks.len() as u32,
                        }
                    },
                })
                .collect(),
            work_done_s: pool.work_done as f64,
            work_left_s: (pool.work_submitted - pool.work_done) as f64,
            work_partial_s: self.work_partial(now),
        }))
    }

    /// After the pool's policy answered the cycle: dispatch to what it lent, and the next
    /// cycle while work waits, cloud nodes live or nodes are lent.
    pub(super) fn end_cycle(&mut self, now: Time) -> Result<(), SiteError> {
        self.dispatch(now)?;
        let pool = &self.pool;
        let alive = pool.cloud.iter().any(|c| c.stopped.is_none());
        let lent_any = self.state.nodes.idle_count() > self.state.nodes.unlent_count();
        if pool.queued() > 0 || alive || lent_any {
            self.queue.schedule_in(self.config.cycle, Ev::Cycle)?;
            self.pool.cycle_scheduled = true;
        }
        Ok(())
    }

    /// Reference seconds of work the unfinished tasks hold: their checkpoints, and what the
    /// running ones did since their last start. The site nodes' share is a sum of whole
    /// seconds, exact in any order, kept incrementally ([`Pool::site_partial`]); the cloud
    /// tasks', O(cloud tasks), are added after it in their order, as a scan of every running
    /// task adds them.
    fn work_partial(&self, now: Time) -> f64 {
        let pool = &self.pool;
        let done = |t: u64| {
            let state = pool.tasks.get(usize::try_from(t).ok()?)?;
            let work = self.workload.tasks.get(usize::try_from(t).ok()?)?.work.0 as f64;
            let (_, start, speed) = state.run?;
            let ran = now.checked_since(start).unwrap_or(Duration::ZERO).0 as f64 * speed;
            Some(ran.min(work - state.saved as f64))
        };
        let cloud = pool
            .cloud
            .iter()
            .filter(|c| c.stopped.is_none())
            .flat_map(|c| c.tasks.iter().copied())
            .filter_map(done);
        let site = match pool.site_partial(now) {
            Some(sum) => sum,
            None => {
                let nodes = &self.state.nodes;
                nodes
                    .running_recent_first()
                    .filter_map(|n| match nodes.get(n) {
                        Ok(NodeUse::Lent(Some(t))) => Some(t),
                        _ => None,
                    })
                    .filter_map(done)
                    .sum::<f64>()
            }
        };
        cloud.fold(site, |sum, w| sum + w) + pool.work_saved as f64
    }

    /// Carries out the scavenging policy's commands, in order.
    pub(super) fn apply_scavenging(
        &mut self,
        _: &mut Driver<Box<dyn ScavengingPolicy + Send>>,
        now: Time,
        commands: &[ScavengingCommand],
    ) -> Result<(), SiteError> {
        for c in commands {
            match *c {
                ScavengingCommand::Lend { count } => {
                    let pick: Vec<NodeId> = self
                        .state
                        .nodes
                        .unlent_longest_first()
                        .take(count as usize)
                        .collect();
                    for n in pick {
                        self.set_use(now, n, NodeUse::Lent(None))?;
                    }
                }
                ScavengingCommand::LendNode(n) => {
                    if self.state.nodes.get(n)? == NodeUse::Idle {
                        self.set_use(now, n, NodeUse::Lent(None))?;
                    }
                }
                ScavengingCommand::Recall { count } => {
                    let pick: Vec<NodeId> = self
                        .pool
                        .lent_free
                        .iter()
                        .rev()
                        .take(count as usize)
                        .copied()
                        .collect();
                    for n in pick {
                        self.set_use(now, n, NodeUse::Idle)?;
                    }
                }
                ScavengingCommand::RecallNode(n) => {
                    if let NodeUse::Lent(task) = self.state.nodes.get(n)? {
                        if let Some(task) = task {
                            self.evict(now, task, true)?;
                        }
                        self.set_use(now, n, NodeUse::Idle)?;
                    }
                }
                ScavengingCommand::CloudStart {
                    instance,
                    count,
                    lifetime,
                } => {
                    let Some(t) = self.config.instance_types.get(instance) else {
                        return Err(cosched_core::ParamError::new(
                            "instance",
                            instance,
                            "no such instance type",
                        )
                        .into());
                    };
                    let (spin_up, count) = (t.spin_up, count.min(1024));
                    for _ in 0..count {
                        let i = self.pool.cloud.len();
                        self.pool.cloud.push(CloudNode {
                            instance,
                            requested: now,
                            lifetime: lifetime.max(Duration::ZERO),
                            up: false,
                            stopped: None,
                            tasks: Vec::new(),
                        });
                        self.queue.schedule_in(spin_up, Ev::CloudUp(i))?;
                    }
                }
                ScavengingCommand::CloudStop(node) => self.stop_cloud(now, node.index())?,
            }
        }
        Ok(())
    }

    /// Stops cloud node `i`: billed for its time, its tasks requeued (checkpointed).
    pub(super) fn stop_cloud(&mut self, now: Time, i: usize) -> Result<(), SiteError> {
        let Some(c) = self.pool.cloud.get_mut(i) else {
            return Ok(());
        };
        if c.stopped.is_some() {
            return Ok(());
        }
        c.stopped = Some(now);
        let held = now.checked_since(c.requested).unwrap_or(Duration::ZERO);
        self.pool.cloud_cost += self.config.instance_types[c.instance].cost(held);
        for task in std::mem::take(&mut c.tasks) {
            self.evict(now, task, false)?;
        }
        Ok(())
    }
}
