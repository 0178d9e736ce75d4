//! The hybrid service over HTTP on the in-memory platform: a notice then its job's arrival
//! through the API are decided as the simulator decides the workload with that job in it;
//! the answers say where and when a job started or why it waits; the metrics count it.

#[path = "support/mod.rs"]
mod support;
use support::{Served, TOKEN, agent};

use std::time::Duration as StdDuration;

use cosched_core::{Duration, JobId, MalleableJob, OnDemandJob, RigidJob, Time};
use cosched_hybrid::{Composite, HybridConfig, HybridJob, HybridOutcome, HybridSim, scenario};
use cosched_live::http::BearerToken;
use cosched_live::{
    HybridClock, HybridRun, HybridService, HybridServiceConfig, Logger, MemoryBatch,
};
use serde_json::Value;

/// Rigid job 1 and malleable job 2 (4 nodes each, job 2 down to 2) fill 8 nodes from t=0.
fn workload() -> Vec<HybridJob> {
    let rigid = RigidJob::new(JobId(1), Time(0), 4, Duration(900), Duration(950)).unwrap();
    let malleable =
        MalleableJob::new(JobId(2), Time(0), 2, 4, Duration(3200), Duration(5)).unwrap();
    vec![
        HybridJob::Rigid {
            job: rigid,
            setup: Duration(5),
        },
        HybridJob::Malleable {
            job: malleable,
            estimate: Duration(900),
        },
    ]
}

/// A service of `mechanism` over 8 nodes in memory on a manual clock that only the calls
/// step (the poll is an hour), its run's outcome sent back when it stops.
fn serve(
    mechanism: Composite,
    token: Option<&str>,
) -> (
    Served,
    HybridClock,
    std::sync::mpsc::Receiver<HybridOutcome>,
) {
    let clock = HybridClock::manual(Time(0));
    let config = HybridServiceConfig {
        poll: StdDuration::from_secs(3600),
        log: Logger::discard(),
        token: token.map(|t| BearerToken::new(t).unwrap()),
        ..HybridServiceConfig::default()
    };
    let run = HybridRun {
        config: HybridConfig::new(8).unwrap(),
        policy: scenario::mechanism(mechanism),
        jobs: workload(),
        platform: MemoryBatch::new(8),
        prefix: "svc-".into(),
        clock: clock.clone(),
    };
    let service = HybridService::start(config, run).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let served = Served::spawn(move |listener, stopped| async move {
        let out = service
            .serve(listener, async move {
                let _ = stopped.await;
            })
            .await
            .expect("serve");
        let _ = tx.send(out);
    });
    (served, clock, rx)
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_notice_then_its_arrival_through_the_api_decide_as_simulated() {
    let mechanism = Composite::ALL[3]; // CUA&SPAA
    let (served, clock, outcome) = serve(mechanism, None);
    let client = agent(StdDuration::from_secs(30));
    // t=0: a call steps the executor: the workload starts.
    let (status, _, text) = served.call(&client, "GET", "/ondemand/99", None, None);
    assert_eq!(status, 404, "{text}");

    // t=10: a notice of a 2-node job arriving in 30 s.
    clock.set(Time(10));
    let (status, _, text) = served.call(
        &client,
        "POST",
        "/notice",
        Some(r#"{"nodes": 2, "arrives_in_s": 30}"#),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let notice = json(&text);
    assert_eq!(notice["job"], 3);
    assert_eq!(
        (notice["at"].as_i64(), notice["estimated_arrival"].as_i64()),
        (Some(10), Some(40))
    );

    // t=40: the job arrives under its notice; SPAA shrinks job 2 and it starts at once.
    clock.set(Time(40));
    let (status, _, text) = served.call(
        &client,
        "POST",
        "/ondemand",
        Some(r#"{"nodes": 2, "duration_s": 100, "notice": 3, "wait_s": 5}"#),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let answer = json(&text);
    assert_eq!(answer["status"]["status"], "running", "{text}");
    assert_eq!(answer["status"]["start"], 40);
    assert_eq!(answer["started"]["at"], 40);
    assert_eq!(answer["started"]["nodes"].as_array().map(Vec::len), Some(2));
    assert!(answer["reason"].is_null(), "{text}");

    // t=50: a job larger than the system is rejected, and says so.
    clock.set(Time(50));
    let (status, _, text) = served.call(
        &client,
        "POST",
        "/ondemand",
        Some(r#"{"nodes": 9, "duration_s": 5}"#),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let rejected = json(&text);
    assert_eq!(rejected["job"], 4);
    assert_eq!(rejected["status"]["status"], "rejected", "{text}");
    assert_eq!(rejected["reason"], "larger than the system");

    // What the API refuses changes nothing.
    for (path, body) in [
        (
            "/ondemand",
            r#"{"nodes": 2, "duration_s": 100, "notice": 3}"#,
        ),
        (
            "/ondemand",
            r#"{"nodes": 2, "duration_s": 100, "notice": 77}"#,
        ),
        ("/ondemand", r#"{"nodes": 0, "duration_s": 100}"#),
        (
            "/ondemand",
            r#"{"nodes": 1, "duration_s": 10, "wait_s": -1}"#,
        ),
        ("/notice", r#"{"nodes": 0, "arrives_in_s": 10}"#),
        ("/notice", r#"{"nodes": 2, "arrives_in_s": -5}"#),
    ] {
        let (status, _, text) = served.call(&client, "POST", path, Some(body), None);
        assert_eq!(status, 400, "{body}: {text}");
        assert!(json(&text)["error"].is_string(), "{text}");
    }
    let (status, _, _) = served.call(&client, "POST", "/ondemand", Some("{"), None);
    assert_eq!(status, 400);

    // The job's state now, by its id.
    let (status, _, text) = served.call(&client, "GET", "/ondemand/3", None, None);
    assert_eq!(status, 200, "{text}");
    assert_eq!(json(&text)["status"]["status"], "running");

    let m = served.scrape(&client, None);
    assert_eq!(m.value("cosched_hybrid_notices_total", &[]), 1.0);
    assert_eq!(m.value("cosched_hybrid_on_demand_arrivals_total", &[]), 2.0);
    assert_eq!(m.value("cosched_hybrid_on_demand_starts_total", &[]), 1.0);
    assert_eq!(m.value("cosched_hybrid_shrinks_total", &[]), 1.0);
    assert_eq!(m.value("cosched_hybrid_preemptions_total", &[]), 0.0);
    assert_eq!(m.value("cosched_hybrid_rejections_total", &[]), 1.0);
    assert_eq!(m.value("cosched_hybrid_queue_depth", &[]), 0.0);
    assert_eq!(m.value("cosched_hybrid_running_jobs", &[]), 3.0);
    assert_eq!(
        m.value("cosched_hybrid_refusals_total", &[("status", "400")]),
        7.0
    );
    assert_eq!(
        m.histogram_count("cosched_hybrid_on_demand_start_seconds", &[]),
        1.0
    );
    drop(served);
    let live = outcome.recv().unwrap();

    // The simulator on the workload with the API's jobs in it decides the same.
    let od = OnDemandJob::new(JobId(3), 2, Duration(100), Duration(100), Time(40))
        .unwrap()
        .with_notice(Time(10), Time(40))
        .unwrap();
    let big = OnDemandJob::new(JobId(4), 9, Duration(5), Duration(5), Time(50)).unwrap();
    let mut jobs = workload();
    jobs.extend([HybridJob::OnDemand(od), HybridJob::OnDemand(big)]);
    let sim = HybridSim::new(HybridConfig::new(8).unwrap())
        .unwrap()
        .run(&mut scenario::mechanism(mechanism), &jobs)
        .unwrap();
    let start = |out: &HybridOutcome, id| {
        out.records
            .iter()
            .find(|r| r.id == JobId(id))
            .unwrap()
            .start
    };
    assert_eq!(start(&sim, 3), Some(Time(40)));
    assert_eq!(start(&live, 3), start(&sim, 3));
    let shrinks = |out: &HybridOutcome| out.accounts.iter().map(|a| a.shrinks).sum::<u32>();
    assert_eq!(shrinks(&live), 1);
    assert_eq!(shrinks(&sim), 1);
    assert_eq!(sim.report.rejected, 1);
    assert_eq!(live.report.rejected, 1);
}

/// With a token every route, `/metrics` included, needs it; the refusals are counted.
#[test]
fn with_a_token_every_call_needs_it() {
    let (served, _clock, _) = serve(Composite::ALL[0], Some(TOKEN));
    let client = agent(StdDuration::from_secs(30));
    for (method, path) in [
        ("POST", "/notice"),
        ("POST", "/ondemand"),
        ("GET", "/ondemand/3"),
        ("GET", "/metrics"),
    ] {
        let (status, _, text) = served.call(&client, method, path, Some("{}"), None);
        assert_eq!(status, 401, "{method} {path}: {text}");
    }
    let (status, _, text) = served.call(
        &client,
        "POST",
        "/notice",
        Some(r#"{"nodes": 1, "arrives_in_s": 0}"#),
        Some(TOKEN),
    );
    assert_eq!(status, 200, "{text}");
    let m = served.scrape(&client, Some(TOKEN));
    assert_eq!(
        m.value("cosched_hybrid_refusals_total", &[("status", "401")]),
        4.0
    );
    assert_eq!(m.value("cosched_hybrid_notices_total", &[]), 1.0);
}
