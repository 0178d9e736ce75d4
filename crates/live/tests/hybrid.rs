//! The hybrid executor on the in-memory platform decides as the simulator does: the same
//! workload under the same policy gives the same starts, ends, preemptions, resizes and
//! node-seconds, and the platform never holds a node twice.

use cosched_core::{Duration, JobId, MalleableJob, OnDemandJob, RigidJob, Time};
use cosched_hybrid::notice::Notice;
use cosched_hybrid::sim::Action;
use cosched_hybrid::{Composite, HybridConfig, HybridJob, HybridOutcome, HybridSim, scenario};
use cosched_live::{HybridExecutor, HybridJournal, MemoryBatch};
use proptest::prelude::*;

#[path = "hybrid_support/mod.rs"]
mod hybrid_support;
use hybrid_support::scenario_jobs;

/// Runs `jobs` on `platform`'s `nodes` nodes under `policy`, stepping at every instant where
/// the executor or the platform has something to do.
fn live_on(
    platform: MemoryBatch,
    nodes: u32,
    policy: &mut cosched_hybrid::HybridPolicy,
    jobs: &[HybridJob],
) -> (HybridOutcome, Vec<Action>, MemoryBatch) {
    let config = HybridConfig::new(nodes).unwrap();
    let mut exec = HybridExecutor::new(config, policy, jobs, platform.clone(), "j").unwrap();
    let mut steps = 0;
    while !exec.is_done() {
        let due = [exec.next_due(), platform.next_end()]
            .into_iter()
            .flatten()
            .min()
            .expect("a run not done has something due");
        platform.advance(due);
        exec.step(due).unwrap();
        steps += 1;
        assert!(steps < 100_000, "the run does not end");
    }
    let actions = exec.applied().iter().map(|a| a.action.clone()).collect();
    (exec.finish(), actions, platform)
}

fn simulated(
    nodes: u32,
    policy: &mut cosched_hybrid::HybridPolicy,
    jobs: &[HybridJob],
) -> HybridOutcome {
    let sim = HybridSim::new(HybridConfig::new(nodes).unwrap())
        .unwrap()
        .with_label("live")
        .check_invariants();
    let out = sim.run(policy, jobs).unwrap();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    out
}

fn policies() -> Vec<cosched_hybrid::HybridPolicy> {
    let mut all = vec![scenario::baseline()];
    all.extend(Composite::ALL.map(scenario::mechanism));
    all
}

/// The report's Debug text (NaN, for a class with no job, is unequal to itself).
fn report(out: &HybridOutcome) -> String {
    format!("{:?}", out.report)
}

fn assert_same(live: &HybridOutcome, sim: &HybridOutcome) {
    assert_eq!(live.records, sim.records);
    assert_eq!(live.accounts, sim.accounts);
    assert_eq!(report(live), report(sim));
}

#[test]
fn spaa_shrinks_preempts_and_starts_on_demand_as_simulated() {
    let jobs = scenario_jobs();
    let mut policy = scenario::mechanism(Composite::ALL[1]); // N&SPAA
    let sim = simulated(8, &mut policy.clone(), &jobs);
    // Slurm's shrink: the job keeps its first nodes (n5, n6), not those the environment
    // kept (n8, n7); the executor relabels, and job 4 starts on nodes that are free.
    let platform = MemoryBatch::new(8);
    platform.set_keeps_first(true);
    let (out, actions, platform) = live_on(platform, 8, &mut policy, &jobs);
    assert_same(&out, &sim);
    assert!(
        actions.contains(&Action::Preempt { job: JobId(1) }),
        "{actions:?}"
    );
    assert!(
        !actions.contains(&Action::Preempt { job: JobId(2) }),
        "{actions:?}"
    );
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, Action::Resize { job: JobId(2), nodes, .. } if nodes.len() == 2)),
        "{actions:?}"
    );
    for (id, at) in [(3, 40), (4, 220)] {
        let od = sim.records.iter().find(|r| r.id == JobId(id)).unwrap();
        assert_eq!(
            od.start,
            Some(Time(at)),
            "on-demand job {id} starts at its arrival"
        );
    }
    let requeues = platform.requeues();
    assert_eq!(
        requeues.iter().find(|(n, _)| n == "j1").map(|r| r.1),
        Some(1)
    );
    let starts = platform.starts();
    assert_eq!(starts.iter().find(|(n, _)| n == "j1").map(|r| r.1), Some(2));
    for a in &out.accounts {
        assert_eq!(a.completions, 1, "{a:?}");
        assert!(
            (a.delivered - a.wasted - a.required).abs() <= a.rounding_slack,
            "{a:?}"
        );
    }
}

/// The policy learns of an end when the platform reports it; the job's record ends when its
/// run did.
#[test]
fn a_platform_end_reported_late_completes_the_job_at_its_own_end() {
    let job = RigidJob::new(JobId(1), Time(0), 2, Duration(50), Duration(60)).unwrap();
    let jobs = [HybridJob::Rigid {
        job,
        setup: Duration(0),
    }];
    let mut policy = scenario::baseline();
    let platform = MemoryBatch::new(2);
    let mut exec = HybridExecutor::new(
        HybridConfig::new(2).unwrap(),
        &mut policy,
        &jobs,
        platform.clone(),
        "j",
    )
    .unwrap();
    exec.step(Time(0)).unwrap();
    let end = platform.next_end().unwrap();
    exec.step(end).unwrap();
    assert!(!exec.is_done(), "the platform has not reported the end yet");
    platform.advance(end + Duration(3));
    exec.step(end + Duration(3)).unwrap();
    assert!(exec.is_done());
    let out = exec.finish();
    assert_eq!(out.records[0].end, Some(end));
    let account = out.accounts[0];
    assert_eq!(account.delivered, 2 * 50, "{account:?}");
}

#[test]
fn a_platform_of_other_nodes_is_refused() {
    let mut policy = scenario::baseline();
    let e = HybridExecutor::new(
        HybridConfig::new(4).unwrap(),
        &mut policy,
        &[],
        MemoryBatch::new(3),
        "j",
    );
    assert!(matches!(
        e,
        Err(cosched_live::HybridLiveError::OtherNodes {
            config: 4,
            found: 3
        })
    ));
}

/// `default` cases, or as many as `PROPTEST_CASES` says (a longer search).
fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(cases)
}

/// Random job specs for [`jobs`]: (kind, submit, two sizes, run).
fn specs(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<(u8, i64, u32, u32, i64)>> {
    proptest::collection::vec((0u8..3, 0i64..600, 0u32..16, 0u32..16, 1i64..400), len)
}

/// The jobs of `specs`, numbered from 1 in order (see [`job`]).
fn jobs(specs: impl IntoIterator<Item = (u8, i64, u32, u32, i64)>, nodes: u32) -> Vec<HybridJob> {
    specs
        .into_iter()
        .enumerate()
        .map(|(k, s)| job(k as u64 + 1, s, nodes))
        .collect()
}

fn job(k: u64, (kind, submit, a, b, run): (u8, i64, u32, u32, i64), nodes: u32) -> HybridJob {
    let id = JobId(k);
    let submit = Time(submit);
    let size = 1 + a % nodes;
    match kind % 3 {
        0 => HybridJob::Rigid {
            job: RigidJob::new(id, submit, size, Duration(run), Duration(run + 30)).unwrap(),
            setup: Duration(run / 10),
        },
        1 => {
            let min = 1 + b % size;
            let job = MalleableJob::new(
                id,
                submit,
                min,
                size,
                Duration(run * i64::from(size)),
                Duration(5),
            )
            .unwrap();
            HybridJob::Malleable {
                job,
                estimate: job.runtime_on(size).unwrap() + Duration(20),
            }
        }
        _ => {
            let od = OnDemandJob::new(id, size, Duration(run), Duration(run + 10), submit).unwrap();
            let od = if b % 2 == 0 {
                let notice = Time((submit.0 - 60).max(0));
                od.with_notice(notice, submit).unwrap()
            } else {
                od
            };
            HybridJob::OnDemand(od)
        }
    }
}

proptest! {
    #![proptest_config(cases(24))]

    /// Every policy of the catalogue, on random small workloads: the live run on the
    /// in-memory platform is the simulated run (records, accounts, report), and the platform
    /// never refused a start or a resize (no node held twice: a refusal fails the run).
    #[test]
    fn the_live_run_is_the_simulated_run(
        nodes in 2u32..10,
        specs in specs(1..14),
    ) {
        let jobs = jobs(specs, nodes);
        for policy in policies() {
            let sim = simulated(nodes, &mut policy.clone(), &jobs);
            // A platform that shrinks as asked, and one that keeps the first nodes (Slurm):
            // the executor relabels its nodes, and no node is ever held twice.
            for keeps_first in [false, true] {
                let platform = MemoryBatch::new(nodes);
                platform.set_keeps_first(keeps_first);
                let (out, _, _) = live_on(platform, nodes, &mut policy.clone(), &jobs);
                prop_assert_eq!(&out.records, &sim.records);
                prop_assert_eq!(&out.accounts, &sim.accounts);
                prop_assert_eq!(report(&out), report(&sim));
            }
        }
    }
}

/// Runs the batch workload `batch` on `platform` with the on-demand jobs `api` given from
/// outside as the service gives them: each notice ([`HybridExecutor::notice`]) and arrival
/// ([`HybridExecutor::arrive`]) at its instant, before the step there. With `restart`
/// `(k, fresh)`, the executor is dropped after its `k`-th step and resumed from its journal
/// (through JSON) with the policy `fresh`.
fn live_with_api<'p>(
    platform: MemoryBatch,
    nodes: u32,
    policy: &'p mut cosched_hybrid::HybridPolicy,
    batch: &[HybridJob],
    api: &[OnDemandJob],
    mut restart: Option<(usize, &'p mut cosched_hybrid::HybridPolicy)>,
) -> HybridOutcome {
    let config = HybridConfig::new(nodes).unwrap();
    let mut exec =
        HybridExecutor::new(config.clone(), policy, batch, platform.clone(), "j").unwrap();
    // (time, notice before arrival, job): the order the service receives them in.
    let mut events: Vec<(Time, u8, usize)> = Vec::new();
    for (k, job) in api.iter().enumerate() {
        if let Some(at) = job.notice {
            events.push((at, 0, k));
        }
        events.push((job.arrival, 1, k));
    }
    events.sort_unstable();
    let mut events = events.into_iter().peekable();
    let mut steps = 0;
    while !exec.is_done() || events.peek().is_some() {
        let due = [
            exec.next_due(),
            platform.next_end(),
            events.peek().map(|e| e.0),
        ]
        .into_iter()
        .flatten()
        .min()
        .expect("a run not done has something due");
        platform.advance(due);
        while let Some(&(_, kind, k)) = events.peek().filter(|e| e.0 == due) {
            let job = api[k];
            if kind == 0 {
                let notice = Notice {
                    job: job.id,
                    size: job.size,
                    at: due,
                    estimated_arrival: job.estimated_arrival.unwrap(),
                };
                exec.notice(notice).unwrap();
            } else {
                exec.arrive(job).unwrap();
            }
            events.next();
        }
        exec.step(due).unwrap();
        steps += 1;
        if restart.as_ref().is_some_and(|(k, _)| *k == steps)
            && let Some((_, fresh)) = restart.take()
        {
            let saved = serde_json::to_string(exec.journal()).unwrap();
            drop(exec);
            let journal: HybridJournal = serde_json::from_str(&saved).unwrap();
            exec = HybridExecutor::resume(
                journal,
                config.clone(),
                fresh,
                batch,
                platform.clone(),
                None,
            )
            .unwrap();
        }
        assert!(steps < 100_000, "the run does not end");
    }
    exec.finish()
}

fn by_id(
    out: &HybridOutcome,
) -> (
    Vec<cosched_core::JobRecord>,
    Vec<cosched_hybrid::JobAccount>,
) {
    let mut records = out.records.clone();
    records.sort_by_key(|r| r.id);
    let mut accounts = out.accounts.clone();
    accounts.sort_by_key(|a| a.id);
    (records, accounts)
}

/// An on-demand job's spec: arrival, size, run, and a notice's lead and estimate error.
type ApiSpec = (i64, u32, i64, Option<(i64, i64)>);

/// The service's on-demand jobs from random specs, numbered from `first`, no notice before
/// `start`; no two notices in one second (the simulator orders same-second notices by
/// arrival, the service by receipt).
fn api_jobs(specs: &[ApiSpec], first: u64, nodes: u32, start: Time) -> Vec<OnDemandJob> {
    let mut taken = std::collections::BTreeSet::new();
    specs
        .iter()
        .enumerate()
        .map(|(k, &(arrival, size, run, notice))| {
            let od = OnDemandJob::new(
                JobId(first + k as u64),
                1 + size % (nodes + 1),
                Duration(run),
                Duration(run + 10),
                Time(arrival),
            )
            .unwrap();
            match notice {
                Some((lead, error)) => {
                    let mut at = (arrival - lead).max(start.0);
                    while taken.contains(&at) {
                        at += 1;
                    }
                    if at > arrival {
                        return od;
                    }
                    taken.insert(at);
                    let estimated = Time((arrival + error).max(at));
                    od.with_notice(Time(at), estimated).unwrap()
                }
                None => od,
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(cases(24))]

    /// On-demand jobs and their notices given from outside, as the service gives them, are
    /// decided as the simulator decides the workload with them in it: the same records,
    /// accounts and report, under the baseline and all six mechanisms (CUA and CUP reserve
    /// on the notices), on a platform that shrinks as asked and on one that keeps the first
    /// nodes.
    #[test]
    fn notices_and_arrivals_from_outside_are_decided_as_simulated(
        nodes in 2u32..10,
        specs in proptest::collection::vec((0u8..2, 0i64..600, 0u32..16, 0u32..16, 1i64..400), 1..10),
        api in proptest::collection::vec(
            (0i64..700, 0u32..16, 1i64..300, proptest::option::of((0i64..200, -60i64..60))),
            1..6,
        ),
        restart_after in 1usize..12,
    ) {
        let batch = jobs(specs, nodes);
        // Nothing comes from outside before the run's start (its first submission).
        let first = batch.iter().map(HybridJob::submit).min().unwrap_or(Time::ZERO);
        let api: Vec<_> = api.into_iter().map(|(a, s, r, n)| (a + first.0, s, r, n)).collect();
        let api = api_jobs(&api, batch.len() as u64 + 1, nodes, first);
        let mut all = batch.clone();
        all.extend(api.iter().copied().map(HybridJob::OnDemand));
        for policy in policies() {
            let sim = simulated(nodes, &mut policy.clone(), &all);
            for keeps_first in [false, true] {
                let platform = MemoryBatch::new(nodes);
                platform.set_keeps_first(keeps_first);
                let out = live_with_api(platform, nodes, &mut policy.clone(), &batch, &api, None);
                prop_assert_eq!(by_id(&out), by_id(&sim));
                // The API's jobs come last in the live records, so the report's sums run in
                // another order: equal to 9 decimals.
                prop_assert_eq!(format!("{:.9?}", out.report), format!("{:.9?}", sim.report));
            }
            // Dropped after a step and resumed from its journal with a fresh policy: the
            // same run, every job started on the platform once per run (none twice, none
            // lost).
            let platform = MemoryBatch::new(nodes);
            let (mut first, mut fresh) = (policy.clone(), policy.clone());
            let out = live_with_api(
                platform.clone(),
                nodes,
                &mut first,
                &batch,
                &api,
                Some((restart_after, &mut fresh)),
            );
            prop_assert_eq!(by_id(&out), by_id(&sim));
            if let Err(e) = started_once_per_run(&out, &platform) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}

/// Whether the platform started each job once per run the outcome gives it (none twice, none
/// lost); the first job that was not, if any.
fn started_once_per_run(out: &HybridOutcome, platform: &MemoryBatch) -> Result<(), String> {
    for (name, starts) in platform.starts() {
        let id: u64 = name.trim_start_matches('j').parse().unwrap();
        let a = out.accounts.iter().find(|a| a.id == JobId(id)).unwrap();
        let ran = out
            .records
            .iter()
            .any(|r| r.id == JobId(id) && r.start.is_some());
        let runs = if ran {
            1 + a.preemptions + a.evictions
        } else {
            0
        };
        if starts != runs {
            return Err(format!(
                "{name} started {starts} times in {runs} runs: {a:?}"
            ));
        }
    }
    Ok(())
}

/// Where [`crashing_run`] crashes: at the job call (start, requeue, resize) made after `n`
/// calls (the step's journal saved, its call not made), just after the platform moved to the
/// `n`-th step's instant (the ends there logged, unread), or just after the `n`-th step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Crash {
    Call(u32),
    BeforeStep(usize),
    AfterStep(usize),
}

/// What [`crashing_run`] gives: the outcome, the platform, and the steps and job calls of
/// the run.
struct Crashed {
    out: HybridOutcome,
    platform: MemoryBatch,
    steps: usize,
    calls: u32,
}

/// Runs `jobs` under `policy` on the double, journaling to a state file, stepping at every
/// instant where something is due (with `poll`: at the first multiple of `poll` from then),
/// and crashing once at `crash`: the executor is dropped, its reader of the platform's ends
/// restarted ([`MemoryBatch::drop_unread_ends`]), and the run resumed from the state file
/// with a fresh policy, stepping at once.
fn crashing_run(
    nodes: u32,
    policy: &cosched_hybrid::HybridPolicy,
    jobs: &[HybridJob],
    crash: Option<Crash>,
    poll: Option<i64>,
) -> Crashed {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let config = HybridConfig::new(nodes).unwrap();
    let platform = MemoryBatch::new(nodes);
    let calls_at_most = match crash {
        Some(Crash::Call(n)) => n,
        _ => u32::MAX,
    };
    platform.fail_after(Some(calls_at_most));
    let (mut first, mut second) = (policy.clone(), policy.clone());
    let mut fresh = Some(&mut second);
    let mut exec = HybridExecutor::new(config.clone(), &mut first, jobs, platform.clone(), "j")
        .unwrap()
        .with_state_file(state.clone(), None)
        .unwrap();
    let mut made = 0;
    let mut restart = || {
        made = calls_at_most - platform.calls_left().unwrap_or(0);
        platform.fail_after(None);
        platform.drop_unread_ends();
        let journal: HybridJournal =
            serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
        HybridExecutor::resume(
            journal,
            config.clone(),
            fresh.take().expect("one crash"),
            jobs,
            platform.clone(),
            Some(state.clone()),
        )
        .unwrap()
    };
    let mut steps = 0;
    while !exec.is_done() {
        let due = [exec.next_due(), platform.next_end()]
            .into_iter()
            .flatten()
            .min()
            .expect("a run not done has something due");
        let due = match poll {
            Some(p) => Time((due.0 + p - 1).div_euclid(p) * p).max(exec.last_step().unwrap_or(due)),
            None => due,
        };
        platform.advance(due);
        steps += 1;
        if crash == Some(Crash::BeforeStep(steps)) {
            drop(exec);
            exec = restart();
        }
        if let Err(e) = exec.step(due) {
            assert!(matches!(crash, Some(Crash::Call(_))), "{e}");
            drop(exec);
            exec = restart();
            exec.step(due)
                .unwrap_or_else(|e| panic!("resumed after the crash at {crash:?}: {e}"));
        }
        if crash == Some(Crash::AfterStep(steps)) {
            drop(exec);
            exec = restart();
        }
        assert!(steps < 100_000, "the run does not end");
    }
    let calls = match crash {
        None => u32::MAX - platform.calls_left().unwrap_or(0),
        Some(_) => made,
    };
    Crashed {
        out: exec.finish(),
        platform,
        steps,
        calls,
    }
}

/// Every crash point of a run (the uncrashed run's `steps` and `calls`).
fn crash_points(steps: usize, calls: u32) -> Vec<Crash> {
    (0..=calls)
        .map(Crash::Call)
        .chain((1..=steps).flat_map(|s| [Crash::BeforeStep(s), Crash::AfterStep(s)]))
        .collect()
}

/// N&SPAA preempts rigid job 1 at 220 (its requeue's end logged at the next instant, as
/// Slurm's epilog logs it after the call) and restarts it at 300. Crashed at every job call,
/// before every step and after every step — between the requeue's save and its call,
/// between the call and its logged end, between that and the restart — the resumed run is
/// the simulated one: no job ends early (a requeue's logged end is told from the job's own
/// by the platform's requeue count and the ends logged before the restart), and every job
/// starts once per run.
#[test]
fn a_crash_anywhere_around_a_requeue_ends_no_job_early_and_starts_none_twice() {
    let jobs = scenario_jobs();
    let policy = scenario::mechanism(Composite::ALL[1]); // N&SPAA
    let sim = simulated(8, &mut policy.clone(), &jobs);
    let run = crashing_run(8, &policy, &jobs, None, None);
    assert_same(&run.out, &sim);
    assert!(run.platform.requeues().contains(&("j1".to_owned(), 1)));
    let points = crash_points(run.steps, run.calls);
    assert!(points.len() > 20, "{points:?}");
    for crash in points {
        let crashed = crashing_run(8, &policy, &jobs, Some(crash), None);
        assert_eq!(by_id(&crashed.out), by_id(&sim), "crashed at {crash:?}");
        assert_eq!(report(&crashed.out), report(&sim), "crashed at {crash:?}");
        started_once_per_run(&crashed.out, &crashed.platform)
            .unwrap_or_else(|e| panic!("crashed at {crash:?}: {e}"));
    }
}

/// Each job's node-seconds are its own (required plus wasted, as the simulator accounts a
/// run), though the executor learns of the ends only at polls 7 s apart and once after a
/// restart that missed them: each run is accounted until its end on the platform.
#[test]
fn node_seconds_are_the_platforms_across_slow_polls_and_a_restart() {
    let jobs = scenario_jobs();
    let policy = scenario::mechanism(Composite::ALL[1]); // N&SPAA
    let sim = simulated(8, &mut policy.clone(), &jobs);
    for a in &sim.accounts {
        assert_eq!(a.delivered - a.wasted - a.required, 0, "{a:?}");
    }
    let uncrashed = crashing_run(8, &policy, &jobs, None, Some(7));
    for crash in (1..=uncrashed.steps).map(Crash::BeforeStep) {
        let run = crashing_run(8, &policy, &jobs, Some(crash), Some(7));
        for a in &run.out.accounts {
            assert_eq!(
                a.delivered - a.wasted - a.required,
                0,
                "crashed at {crash:?}: {a:?}"
            );
        }
        for r in &run.out.records {
            let ended = platform_end(&run.platform, r.id);
            assert_eq!(r.end, ended, "crashed at {crash:?}: {r:?}");
        }
        started_once_per_run(&run.out, &run.platform).unwrap();
    }
}

/// When job `job`'s last run ended on the double.
fn platform_end(platform: &MemoryBatch, job: JobId) -> Option<Time> {
    use cosched_live::BatchPlatform;
    let name = format!("j{}", job.0);
    let index = platform.starts().iter().position(|(n, _)| *n == name)?;
    platform.end_time(&index.to_string()).unwrap()
}

proptest! {
    #![proptest_config(cases(24))]

    /// Random workloads under every policy, crashed once at a random point (a job call, just
    /// before or just after a step): the resumed run is the simulated one and every job
    /// starts once per run.
    #[test]
    fn a_crash_at_any_point_resumes_into_the_simulated_run(
        nodes in 2u32..10,
        specs in specs(1..12),
        pick in 0usize..10_000,
    ) {
        let jobs = jobs(specs, nodes);
        for policy in policies() {
            let sim = simulated(nodes, &mut policy.clone(), &jobs);
            let run = crashing_run(nodes, &policy, &jobs, None, None);
            let points = crash_points(run.steps, run.calls);
            let crash = points[pick % points.len()];
            let crashed = crashing_run(nodes, &policy, &jobs, Some(crash), None);
            prop_assert_eq!(by_id(&crashed.out), by_id(&sim), "crashed at {:?}", crash);
            if let Err(e) = started_once_per_run(&crashed.out, &crashed.platform) {
                prop_assert!(false, "crashed at {:?}: {}", crash, e);
            }
        }
    }
}

/// CUP&PAA, on notice of on-demand job 1 at 45, preempts malleable job 4 (on nodes 1, 0)
/// and starts it again at once on nodes 2, 0 (found by the proptest below). Crashed at
/// every point, the crash before the requeue above all (the old run still on node 1, which
/// rigid job 2 takes next), the resumed run is the simulated one: the platform's requeue
/// count, below the journal's, tells the old run from the new.
#[test]
fn a_crash_between_a_preemption_and_its_restart_in_one_step_leaves_no_old_run() {
    let nodes = 3;
    let specs = [
        (2, 105, 1, 6, 147),
        (0, 46, 0, 0, 1),
        (0, 48, 0, 0, 1),
        (1, 22, 13, 8, 226),
        (1, 193, 13, 3, 67),
        (2, 251, 8, 7, 227),
    ];
    let jobs = jobs(specs, nodes);
    let policy = scenario::mechanism(Composite::ALL[4]); // CUP&PAA
    let sim = simulated(nodes, &mut policy.clone(), &jobs);
    let mut exec_policy = policy.clone();
    let (_, actions, _) = live_on(MemoryBatch::new(nodes), nodes, &mut exec_policy, &jobs);
    let preempt = actions
        .iter()
        .position(|a| *a == Action::Preempt { job: JobId(4) })
        .expect("job 4 is preempted");
    assert!(
        matches!(&actions[preempt + 1], Action::Start { job: JobId(4), .. }),
        "{actions:?}"
    );
    let run = crashing_run(nodes, &policy, &jobs, None, None);
    for crash in crash_points(run.steps, run.calls) {
        let crashed = crashing_run(nodes, &policy, &jobs, Some(crash), None);
        assert_eq!(by_id(&crashed.out), by_id(&sim), "crashed at {crash:?}");
        started_once_per_run(&crashed.out, &crashed.platform)
            .unwrap_or_else(|e| panic!("crashed at {crash:?}: {e}"));
    }
}
