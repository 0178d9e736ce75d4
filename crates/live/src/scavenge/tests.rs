use super::*;
use std::sync::Mutex;

use cosched_albatross::policy::NoScaling;
use cosched_core::policy::Policy;
use cosched_core::{JobId, RigidJob};
use cosched_hybrid::workload::HybridJob;
use cosched_site::{
    HarvestAll, HtcPool, OnDemandRole, QueueAsBatch, RhicSizer, RhicSizing, Roles, Site,
    SiteConfig, SiteWorkload, Task,
};
use proptest::prelude::*;

/// Each cycle the policy saw and what it answered.
type Log = Arc<Mutex<Vec<(Time, PoolCycle, Vec<ScavengingCommand>)>>>;

/// A scavenging policy that records its cycles and answers.
#[derive(Clone)]
struct Recording<P> {
    inner: P,
    log: Log,
}

impl<P: ScavengingPolicy> Policy for Recording<P> {
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = SiteError;

    fn start(
        &mut self,
        now: Time,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        self.inner.start(now, view, out)
    }

    fn observe(
        &mut self,
        now: Time,
        cycle: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        let from = out.len();
        self.inner.observe(now, cycle, view, out)?;
        let answer = out[from..].to_vec();
        self.log.lock().unwrap().push((now, cycle.clone(), answer));
        Ok(())
    }
}

/// The inputs both executors run: tasks `(submit, work)` and whole-cluster batch jobs
/// `(submit, run)` on `nodes` nodes, negotiating every `cycle` seconds, until `end`.
#[derive(Clone, Debug)]
struct Inputs {
    nodes: u32,
    cycle: i64,
    tasks: Vec<(i64, i64)>,
    batch: Vec<(i64, i64)>,
    end: i64,
}

#[derive(Clone, Copy, Debug)]
enum Sizing {
    Harvest,
    Rhic,
}

fn policy(sizing: Sizing, cycle: i64) -> Box<dyn ScavengingPolicy + Send> {
    match sizing {
        Sizing::Harvest => Box::new(HtcPool::new(HarvestAll, NoScaling)),
        Sizing::Rhic => {
            let sizing = RhicSizing {
                interval: Duration(cycle),
                ..RhicSizing::default()
            };
            Box::new(HtcPool::new(RhicSizer::new(sizing).unwrap(), NoScaling))
        }
    }
}

/// The site's simulator on the inputs: its cycles and answers, and the tasks completed.
fn simulate(
    inputs: &Inputs,
    sizing: Sizing,
) -> (Vec<(Time, PoolCycle, Vec<ScavengingCommand>)>, usize) {
    let log = Log::default();
    let recording = Recording {
        inner: policy(sizing, inputs.cycle),
        log: Arc::clone(&log),
    };
    let tasks = inputs
        .tasks
        .iter()
        .enumerate()
        .map(|(i, &(submit, work))| Task {
            id: i as u64,
            bag: 0,
            submit: Time(submit),
            work: Duration(work),
            ad: 0,
        })
        .collect();
    let batch = inputs
        .batch
        .iter()
        .enumerate()
        .map(|(i, &(submit, run))| HybridJob::Rigid {
            job: RigidJob::new(
                JobId(i as u64),
                Time(submit),
                inputs.nodes,
                Duration(run),
                Duration(run),
            )
            .unwrap(),
            setup: Duration::ZERO,
        })
        .collect();
    let workload = SiteWorkload {
        tasks,
        batch,
        ..SiteWorkload::default()
    };
    let mut config = SiteConfig::new(inputs.nodes, Time(inputs.end));
    config.cycle = Duration(inputs.cycle);
    config.checkpoint = Duration(1 << 40);
    config.instance_types = Vec::new();
    let roles = Roles {
        batch: Box::new(cosched_batch::scenario::fcfs()),
        on_demand: OnDemandRole::site(QueueAsBatch),
        scavenging: Some(Box::new(recording)),
    };
    let report = Site::new(config, roles, workload).unwrap().run().unwrap();
    (normalised(&log), report.scavenged_completed)
}

/// The log with each cycle's revoked nodes in node order: the site lists them in the order
/// its batch cluster took them, the live executor in the order the cluster reports its nodes.
fn normalised(log: &Log) -> Vec<(Time, PoolCycle, Vec<ScavengingCommand>)> {
    let mut log = log.lock().unwrap().clone();
    for (_, cycle, _) in &mut log {
        cycle.revoked.sort_unstable();
    }
    log
}

type Exec<P> = Scavenger<MemoryPartitions, P>;

fn live_start<P: ScavengingPolicy>(inputs: &Inputs, policy: P) -> Exec<P> {
    let mut cluster = MemoryPartitions::new(inputs.nodes);
    for &(submit, run) in &inputs.batch {
        cluster.submit_batch(Time(submit), inputs.nodes, Duration(run));
    }
    let config = ScavengeConfig {
        cycle: Duration(inputs.cycle),
        ..ScavengeConfig::default()
    };
    Scavenger::start(Time(0), policy, cluster, config).unwrap()
}

/// Steps the executor through `from..=to`, one second at a time, submitting the tasks due.
fn live_steps<P: ScavengingPolicy>(exec: &mut Exec<P>, inputs: &Inputs, from: i64, to: i64) {
    for t in from..=to {
        exec.cluster_mut().advance(Time(t));
        for &(submit, work) in &inputs.tasks {
            if submit == t {
                exec.submit(Time(t), ScavengedTask::sleep(Duration(work)))
                    .unwrap();
            }
        }
        exec.step(Time(t)).unwrap();
    }
}

fn live(
    inputs: &Inputs,
    sizing: Sizing,
) -> (Vec<(Time, PoolCycle, Vec<ScavengingCommand>)>, usize) {
    let log = Log::default();
    let recording = Recording {
        inner: policy(sizing, inputs.cycle),
        log: Arc::clone(&log),
    };
    let mut exec = live_start(inputs, recording);
    live_steps(&mut exec, inputs, 0, inputs.end);
    (normalised(&log), exec.counters().completed as usize)
}

fn inputs(batch: bool) -> impl Strategy<Value = Inputs> {
    let jobs = if batch { 0..4usize } else { 0..1 };
    (
        1u32..7,
        1i64..12,
        proptest::collection::vec((0i64..150, 1i64..60), 1..25),
        proptest::collection::vec((1i64..200, 1i64..60), jobs),
    )
        .prop_map(|(nodes, cycle, mut tasks, mut batch)| {
            tasks.sort();
            batch.sort();
            Inputs {
                nodes,
                cycle,
                tasks,
                batch,
                end: 600,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On the same tasks, the live executor over the test double hands the policy the cycles
    /// the site's simulator hands it, at the same times, and the policy answers the same:
    /// harvesting and RHIC's sizing alike; the same tasks complete.
    #[test]
    fn the_live_pool_decides_as_the_site_simulator(inputs in inputs(false), rhic in any::<bool>()) {
        let sizing = if rhic { Sizing::Rhic } else { Sizing::Harvest };
        let (sim, sim_done) = simulate(&inputs, sizing);
        let (live, live_done) = live(&inputs, sizing);
        prop_assert!(!sim.is_empty());
        prop_assert_eq!(&live, &sim);
        prop_assert_eq!(live_done, sim_done);
    }

    /// With whole-cluster batch jobs arriving (each takes every node back, preempting every
    /// task), harvesting every idle node decides as in the simulator too (the revoked nodes
    /// compared by number).
    #[test]
    fn preempted_pools_decide_as_the_site_simulator(inputs in inputs(true)) {
        let (sim, sim_done) = simulate(&inputs, Sizing::Harvest);
        let (live, live_done) = live(&inputs, Sizing::Harvest);
        // Which nodes come back first when a batch job ends together is the resource manager's
        // order (the site's: its batch cluster's): the nodes revoked are compared by number.
        let count = |log: Vec<(Time, PoolCycle, Vec<ScavengingCommand>)>| {
            log.into_iter()
                .map(|(t, mut c, cmds)| {
                    c.revoked = vec![NodeId(0); c.revoked.len()];
                    (t, c, cmds)
                })
                .collect::<Vec<_>>()
        };
        prop_assert_eq!(count(live), count(sim));
        prop_assert_eq!(live_done, sim_done);
    }
}

/// What the property below does to the double, besides tasks arriving.
#[derive(Clone, Debug)]
enum Act {
    Batch { nodes: u32, run: i64 },
    Drain { node: usize, back_after: i64 },
    Fail,
}

fn act() -> impl Strategy<Value = (i64, Act)> {
    (
        0i64..300,
        prop_oneof![
            4 => (1u32..8, 1i64..80).prop_map(|(nodes, run)| Act::Batch { nodes, run }),
            1 => (0usize..8, 1i64..60).prop_map(|(node, back_after)| Act::Drain { node, back_after }),
            1 => Just(Act::Fail),
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever batch jobs, drains and failures meet it, no scavenged task is lost: at every
    /// step each is queued, running (on a node lent to it, its job alone there and no batch
    /// job with it), completed or abandoned, and once the cluster is quiet every task has
    /// completed or been abandoned after its attempts. Each requeue by a batch job is one
    /// preemption counted; the pool harvests no more than the idle node-seconds.
    #[test]
    fn no_scavenged_task_is_lost(
        nodes in 1u32..8,
        cycle in 1i64..10,
        tasks in proptest::collection::vec((0i64..200, 1i64..50), 1..30),
        acts in proptest::collection::vec(act(), 0..12),
        rhic in any::<bool>(),
    ) {
        let mut cluster = MemoryPartitions::new(nodes);
        let mut drains = Vec::new();
        for (at, a) in &acts {
            match a {
                Act::Batch { nodes: k, run } => {
                    cluster.submit_batch(Time(*at), (*k).min(nodes), Duration(*run));
                }
                Act::Drain { node, back_after } => drains.push((*at, *node % nodes as usize, *at + back_after)),
                Act::Fail => {}
            }
        }
        let config = ScavengeConfig { cycle: Duration(cycle), ..ScavengeConfig::default() };
        let sizing = if rhic { Sizing::Rhic } else { Sizing::Harvest };
        let mut exec = Scavenger::start(Time(0), policy(sizing, cycle), cluster, config).unwrap();
        let end = 3_000;
        for t in 0..=end {
            exec.cluster_mut().advance(Time(t));
            for &(at, node, back) in &drains {
                if at == t { exec.cluster_mut().set_out(node, true); }
                if back == t { exec.cluster_mut().set_out(node, false); }
            }
            for (at, a) in &acts {
                if *at == t && matches!(a, Act::Fail)
                    && let Some(job) = exec.book().attempts.values().next().map(|a| a.job.clone())
                {
                    exec.cluster_mut().fail(&job);
                }
            }
            for &(submit, work) in &tasks {
                if submit == t {
                    exec.submit(Time(t), ScavengedTask::sleep(Duration(work))).unwrap();
                }
            }
            exec.step(Time(t)).unwrap();
            let book = exec.book();
            let c = book.counters;
            let done = book.tasks.iter().filter(|r| r.completed.is_some()).count() as u64;
            let abandoned = book.tasks.iter().filter(|r| r.abandoned).count() as u64;
            prop_assert_eq!(done, c.completed);
            prop_assert_eq!(abandoned, c.abandoned);
            prop_assert_eq!(
                book.queue.len() as u64 + book.attempts.len() as u64 + done + abandoned,
                c.submitted
            );
            for (&task, a) in &book.attempts {
                prop_assert!(!book.queue.contains(&task));
                prop_assert_eq!(exec.view().node_uses()[a.node.index()], NodeUse::Lent(Some(task)));
            }
            let mut running = exec.cluster().running_scavengers();
            let before = running.len();
            running.sort_unstable();
            running.dedup();
            prop_assert_eq!(running.len(), before, "two scavenging jobs on one node");
            prop_assert!(c.harvested_node_s <= c.idle_node_s);
        }
        prop_assert!(exec.is_done(), "tasks left: {:?}", exec.book().queue);
        let c = exec.counters();
        prop_assert_eq!(c.completed + c.abandoned, tasks.len() as u64);
        if drains.is_empty() && !acts.iter().any(|(_, a)| matches!(a, Act::Fail)) {
            prop_assert_eq!(c.preempted, exec.cluster().preemptions());
            prop_assert_eq!(c.abandoned, 0);
        }
    }

    /// A restart from the saved state (through JSON) at any step goes on exactly as the run
    /// that never stopped.
    #[test]
    fn a_restart_from_the_state_file_changes_nothing(
        inputs in inputs(true),
        stop in 0i64..300,
        rhic in any::<bool>(),
    ) {
        type Pool = HtcPool<RhicSizer, NoScaling>;
        type Harvest = HtcPool<HarvestAll, NoScaling>;
        fn run<P>(inputs: &Inputs, policy: P, stop: i64) -> (Book, Book)
        where
            P: ScavengingPolicy + Clone + Serialize + serde::de::DeserializeOwned,
        {
            let mut straight = live_start(inputs, policy.clone());
            live_steps(&mut straight, inputs, 0, inputs.end);
            let mut first = live_start(inputs, policy);
            live_steps(&mut first, inputs, 0, stop);
            let text = serde_json::to_string(&first.state()).unwrap();
            let saved: ScavengerState<P> = serde_json::from_str(&text).unwrap_or_else(|e| {
                let c = e.column();
                panic!("{e}: …{}…", &text[c.saturating_sub(300)..(c + 50).min(text.len())])
            });
            let config = ScavengeConfig { cycle: Duration(inputs.cycle), ..ScavengeConfig::default() };
            let (_, cluster) = (first.driver, first.pool.cluster);
            let mut resumed = Scavenger::resume(Time(stop), saved, cluster, config).unwrap();
            live_steps(&mut resumed, inputs, stop + 1, inputs.end);
            (straight.book().clone(), resumed.book().clone())
        }
        let (straight, resumed) = if rhic {
            let sizing = RhicSizing { interval: Duration(inputs.cycle), ..RhicSizing::default() };
            run::<Pool>(&inputs, HtcPool::new(RhicSizer::new(sizing).unwrap(), NoScaling), stop)
        } else {
            run::<Harvest>(&inputs, HtcPool::new(HarvestAll, NoScaling), stop)
        };
        prop_assert_eq!(straight, resumed);
    }
}

/// A policy that asks for the cloud.
struct Cloudy;

impl Policy for Cloudy {
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = SiteError;

    fn observe(
        &mut self,
        _: Time,
        _: &PoolCycle,
        _: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        out.push(ScavengingCommand::CloudStop(NodeId(0)));
        Ok(())
    }
}

#[test]
fn a_cloud_command_and_a_task_of_no_work_are_refused() {
    let mut exec = Scavenger::start(
        Time(0),
        Cloudy,
        MemoryPartitions::new(2),
        ScavengeConfig::default(),
    )
    .unwrap();
    assert!(matches!(
        exec.submit(Time(0), ScavengedTask::sleep(Duration(0))),
        Err(ScavengeError::NoWork(0))
    ));
    exec.submit(Time(0), ScavengedTask::sleep(Duration(5)))
        .unwrap();
    assert!(matches!(
        exec.step(Time(0)),
        Err(ScavengeError::NoCloud(ScavengingCommand::CloudStop(_)))
    ));
}

#[test]
fn a_saved_state_of_other_nodes_is_refused() {
    let pool = HtcPool::new(HarvestAll, NoScaling);
    let exec = Scavenger::start(
        Time(0),
        pool,
        MemoryPartitions::new(3),
        ScavengeConfig::default(),
    )
    .unwrap();
    let saved = exec.state();
    let other = Scavenger::resume(
        Time(1),
        saved,
        MemoryPartitions::new(4),
        ScavengeConfig::default(),
    );
    assert!(matches!(other, Err(ScavengeError::OtherNodes)));
}

/// The double's preemption: a batch job takes free nodes first, then requeues scavenging
/// jobs, which wait out Slurm's requeue delay.
#[test]
fn the_double_preempts_as_slurm_does() {
    let mut c = MemoryPartitions::new(3);
    let task = ScavengedTask::sleep(Duration(100));
    let a = c.launch(0, &task, "n1").unwrap();
    c.launch(1, &task, "n2").unwrap();
    c.submit_batch(Time(5), 2, Duration(10));
    c.advance(Time(5));
    let r = c.report().unwrap();
    let holders: Vec<&Holder> = r.nodes.iter().map(|n| &n.holder).collect();
    assert_eq!(holders[2], &Holder::Batch("3".into()));
    assert_eq!(holders[0], &Holder::Batch("3".into()));
    assert_eq!(r.jobs[&a].phase, Phase::Pending);
    assert_eq!(r.jobs[&a].restarts, 1);
    assert_eq!(c.preemptions(), 1);
    c.advance(Time(5 + MemoryPartitions::REQUEUE_DELAY.0));
    assert_eq!(
        c.report().unwrap().jobs[&a].phase,
        Phase::Running("n1".into())
    );
    assert!(c.launch(2, &task, "n9").is_err());
}
