//! The Balancer service in front of a real Slurm cluster, over HTTP: `cargo xtask slurm up`
//! (8 nodes), then `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test`. Without
//! `COSCHED_SLURM` the test prints why it skips; with it, a cluster that does not answer fails.
//!
//! The service's own behaviour (HTTP answers, refusals, its log) is also checked on the
//! cluster in memory ([`MemoryCluster`]), which needs no Slurm and always runs.
//!
//! One scenario, in order, on the whole cluster (seconds stand for the paper's minutes): batch
//! jobs submitted with `sbatch`, on-demand requests over HTTP; after each step the service's view
//! and Slurm's agree.

mod support;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::thread::sleep;
use std::time::{Duration, Instant};

use cosched_balancer::baseline::StaticSplit;
use cosched_balancer::policy::RmNodeState;
use cosched_balancer::policy::{Balancer, BalancerConfig, BalancerNodeState, RmNode, Strategy};
use cosched_balancer::predictor::{Combine, Predictive, Predictor};
use cosched_balancer::workload::LeaseRequest;
use cosched_core::policy::{Recorder, replay};
use cosched_core::{LeaseId, Time};
use cosched_live::service::{RequestAnswer, wall_clock};
use cosched_live::{
    Answer, DEFAULT_REASON, Engine, LiveCluster, LogEvent, Logger, MemoryCluster, NodeView,
    ServiceConfig, ServicePolicy, SlurmOarm,
};
use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobState, NodeState, Slurm};
use serde_json::{Value, json};

const NODES: usize = 8;

/// The cluster of `COSCHED_SLURM` held for one test (quiet at the start, cleaned when the
/// hold drops), with its epilog's log; `None` (the reason printed) without `COSCHED_SLURM`.
fn cluster(test: &str) -> Option<(Slurm, PathBuf, TestCluster)> {
    let Some(held) = TestCluster::acquire(test, env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"))
    else {
        println!("skipping {test}: {}", env::SKIP_REASON);
        return None;
    };
    println!("{test}: cluster clean after {:?}", held.cleaned());
    let slurm = held.slurm().clone();
    let log = env::xtask_job_end_log(&slurm).expect("a cluster of `cargo xtask slurm up`");
    Some((slurm, log, held))
}

/// A service on an ephemeral loopback port, stopped when dropped.
type Running = support::Served;

/// The Basic Balancer of the main scenario: R = 0, W = 20 s, I = 0.
fn basic() -> Balancer {
    Balancer::new(
        BalancerConfig::new(Strategy::Basic { static_reserve: 0 })
            .with_window(cosched_core::Duration(20))
            .with_idle_hold(cosched_core::Duration::ZERO),
    )
}

fn start<P: ServicePolicy>(
    slurm: &Slurm,
    policy: P,
    state_file: Option<PathBuf>,
    log: PathBuf,
) -> Running {
    let config = ServiceConfig {
        state_file,
        job_end_log: Some(log),
        poll: Duration::from_millis(500),
        ..ServiceConfig::default()
    };
    serve(config, policy, SlurmOarm::new(slurm.clone()))
}

/// `policy` on `cluster` served on an ephemeral port.
fn serve<P: ServicePolicy, C: LiveCluster + Send + 'static>(
    config: ServiceConfig,
    policy: P,
    cluster: C,
) -> Running {
    support::Served::start(config, policy, cluster)
}

fn agent() -> ureq::Agent {
    support::agent(Duration::from_secs(60))
}

fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, Value) {
    let mut resp = agent()
        .post(&format!("http://{addr}{path}"))
        .content_type("application/json")
        .send(body)
        .expect("http");
    let status = resp.status().as_u16();
    let value = resp.body_mut().read_json::<Value>().unwrap_or(Value::Null);
    (status, value)
}

fn view(addr: SocketAddr) -> Vec<NodeView> {
    agent()
        .get(&format!("http://{addr}/nodes"))
        .call()
        .expect("http")
        .body_mut()
        .read_json()
        .expect("json")
}

fn wait_for(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        sleep(Duration::from_millis(250));
    }
}

/// The service's view and Slurm's agree: a node is on-demand exactly when Slurm shows it
/// drained (or draining) by the Balancer.
fn assert_agree(slurm: &Slurm, addr: SocketAddr) {
    let nodes = slurm.nodes().expect("sinfo");
    for v in view(addr) {
        let n = nodes.iter().find(|n| n.name == v.name).expect("same nodes");
        let ours = n.state.is_reclaimed() && n.reason.as_deref() == Some(DEFAULT_REASON);
        assert_eq!(
            v.balancer.is_on_demand(),
            ours,
            "{}: service says {:?}, Slurm says {} ({:?})",
            v.name,
            v.balancer,
            n.state,
            n.reason
        );
    }
}

/// Every node idle in Slurm, after resuming drains a failed run may have left behind (the
/// Balancer's, or another live test's).
fn all_idle(slurm: &Slurm) {
    for n in slurm.nodes().expect("sinfo") {
        if n.reason
            .as_deref()
            .is_some_and(|r| r.starts_with("cosched"))
        {
            slurm.resume(&n.name).expect("resume a leftover drain");
        }
    }
    wait_for("every node idle", Duration::from_secs(60), || {
        slurm
            .nodes()
            .expect("sinfo")
            .iter()
            .filter(|n| n.state == NodeState::Idle)
            .count()
            == NODES
    });
}

/// The cluster (if configured), held for this test, every node idle.
fn idle_cluster(test: &str) -> Option<(Slurm, PathBuf, TestCluster)> {
    let (slurm, log, held) = cluster(test)?;
    all_idle(&slurm);
    Some((slurm, log, held))
}

#[test]
fn the_balancer_drives_a_real_slurm_cluster() {
    let t0 = Instant::now();
    let Some((slurm, log, held)) = idle_cluster("the-balancer") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let state_file = dir.path().join("balancer.json");
    let service = start(&slurm, basic(), Some(state_file.clone()), log.clone());
    let addr = service.addr;

    // Six batch jobs hold n1..n6 for 6 s; n7 and n8 stay idle.
    let jobs: Vec<String> = (1..=6)
        .map(|k| {
            slurm
                .submit([
                    "-N1",
                    "-J",
                    &format!("{}batch", held.prefix()),
                    "-w",
                    &format!("n{k}"),
                    "-o",
                    "/dev/null",
                    "--wrap",
                    "sleep 6",
                ])
                .expect("sbatch")
        })
        .collect();
    wait_for(
        "the service to see the batch jobs",
        Duration::from_secs(30),
        || {
            view(addr)
                .iter()
                .filter(|v| v.balancer == BalancerNodeState::OaBusy)
                .count()
                == 6
        },
    );

    // Invalid calls: 400 with a message, nothing changes.
    let before = view(addr);
    for (path, body) in [
        ("/request_nodes", "{not json"),
        ("/request_nodes", r#"{"nodes": 100}"#),
        ("/request_nodes", r#"{"nodes": 1, "wait_s": -5}"#),
        ("/release_nodes", r#"{"nodes": ["n1"]}"#),
        ("/job_ended", r#"{"nodes": "n[1-"}"#),
        ("/add_reserve", r#"{"in_s": -1, "nodes": 1}"#),
    ] {
        let (status, value) = post(addr, path, body);
        assert_eq!(status, 400, "{path} {body}: {value}");
        assert!(
            value["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{value}"
        );
    }
    assert_eq!(view(addr), before);

    // Four nodes within W = 20 s: n7, n8 at once, two more as batch jobs actually end.
    let started = Instant::now();
    let (status, value) = post(addr, "/request_nodes", &json!({"nodes": 4}).to_string());
    assert_eq!(status, 200, "{value}");
    let granted: RequestAnswer = serde_json::from_value(value).expect("answer");
    assert!(granted.granted && granted.nodes.len() == 4, "{granted:?}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "granted within W"
    );
    assert!(
        granted.waited_s >= 3.0,
        "it had to wait for batch jobs to end: {granted:?}"
    );
    for name in &granted.nodes {
        let n = slurm.node(name).expect("node");
        assert_eq!(n.state, NodeState::Drained, "{name} is out of batch");
    }
    assert_agree(&slurm, addr);
    wait_for("every batch job to end", Duration::from_secs(30), || {
        let all = slurm.job_details().expect("squeue");
        jobs.iter().all(|id| {
            all.iter()
                .any(|j| j.id.to_string() == *id && j.state == JobState::Completed)
        })
    });

    // A restart loses nothing: the allocation is still there, and not granted again.
    drop(service);
    let service = start(&slurm, basic(), Some(state_file.clone()), log.clone());
    let addr = service.addr;
    let mut allocated: Vec<String> = view(addr)
        .into_iter()
        .filter(|v| v.request == Some(granted.request))
        .map(|v| v.name)
        .collect();
    let mut want = granted.nodes.clone();
    allocated.sort();
    want.sort();
    assert_eq!(allocated, want);
    assert_agree(&slurm, addr);

    // Five more with W = 3 s: only four nodes are left, so it is refused at W, and the nodes
    // gathered for it go back to batch.
    let started = Instant::now();
    let (status, value) = post(
        addr,
        "/request_nodes",
        &json!({"nodes": 5, "wait_s": 3}).to_string(),
    );
    assert_eq!(status, 200, "{value}");
    let refused: RequestAnswer = serde_json::from_value(value).expect("answer");
    assert!(!refused.granted);
    // The policy's clock counts whole seconds, so W = 3 s ends 2 to 3 s after the call.
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(10),
        "{took:?}"
    );
    wait_for(
        "the gathered nodes back in batch",
        Duration::from_secs(10),
        || {
            view(addr)
                .iter()
                .filter(|v| v.balancer == BalancerNodeState::OaIdle)
                .count()
                == 4
        },
    );
    assert_agree(&slurm, addr);

    // Release: the nodes go back to Slurm.
    let (status, value) = post(
        addr,
        "/release_nodes",
        &json!({"nodes": granted.nodes}).to_string(),
    );
    assert_eq!(status, 200, "{value}");
    wait_for("every node idle in Slurm", Duration::from_secs(15), || {
        slurm
            .nodes()
            .expect("sinfo")
            .iter()
            .filter(|n| n.state == NodeState::Idle)
            .count()
            == NODES
    });
    assert_agree(&slurm, addr);
    // An epilog's notification of a job end the poller already saw is harmless.
    assert_eq!(post(addr, "/job_ended", r#"{"nodes": "n[1-2]"}"#).0, 200);
    drop(service);
    println!("live service scenario: {:.1} s", t0.elapsed().as_secs_f64());
}

/// Predictive in front of Slurm: trained on yesterday's peak of 3 nodes in this slot, it
/// drains 3 idle nodes at start (add_reserve(0, 3)), grants from them at once, and holds them I.
#[test]
fn predictive_drives_a_real_slurm_cluster() {
    let Some((slurm, log, _one)) = idle_cluster("predictive") else {
        return;
    };
    let yesterday = wall_clock().secs() - 86_400;
    let history = [LeaseRequest {
        id: LeaseId(0),
        submit: Time(yesterday),
        nodes: 3,
        duration: cosched_core::Duration(60),
        notice: None,
    }];
    let policy = Predictive::new(
        BalancerConfig::new(Strategy::Hinted),
        Predictor::train(Combine::Max, &history),
    )
    .expect("hinted");
    let service = start(&slurm, policy, None, log);
    let addr = service.addr;
    wait_for("the slot's reserve", Duration::from_secs(10), || {
        view(addr)
            .iter()
            .filter(|v| v.balancer == BalancerNodeState::OdReserve)
            .count()
            == 3
    });
    assert_agree(&slurm, addr);
    let (status, value) = post(addr, "/request_nodes", &json!({"nodes": 2}).to_string());
    assert_eq!(status, 200, "{value}");
    let granted: RequestAnswer = serde_json::from_value(value).expect("answer");
    assert!(granted.granted && granted.nodes.len() == 2, "{granted:?}");
    assert_agree(&slurm, addr);
    let (status, value) = post(
        addr,
        "/release_nodes",
        &json!({"nodes": granted.nodes}).to_string(),
    );
    assert_eq!(status, 200, "{value}");
    // Held for the slot (the paper's rule, the default hold): still three reserve nodes,
    // drained in Slurm.
    sleep(Duration::from_secs(2));
    assert_eq!(
        view(addr)
            .iter()
            .filter(|v| v.balancer == BalancerNodeState::OdReserve)
            .count(),
        3
    );
    assert_agree(&slurm, addr);
    drop(service);
    all_idle(&slurm);
}

/// The 6 + 2 static split in front of Slurm: the pool is drained at start, a request that fits
/// is granted, one that does not is refused at once (W = 0), and batch nodes are never taken.
#[test]
fn the_static_split_drives_a_real_slurm_cluster() {
    let Some((slurm, log, _one)) = idle_cluster("the-static-split") else {
        return;
    };
    let service = start(
        &slurm,
        StaticSplit::new(2, cosched_core::Duration::ZERO),
        None,
        log,
    );
    let addr = service.addr;
    assert_agree(&slurm, addr);
    let (status, value) = post(addr, "/request_nodes", &json!({"nodes": 2}).to_string());
    assert_eq!(status, 200, "{value}");
    let granted: RequestAnswer = serde_json::from_value(value).expect("answer");
    assert!(granted.granted, "{granted:?}");
    let (_, value) = post(addr, "/request_nodes", &json!({"nodes": 1}).to_string());
    let refused: RequestAnswer = serde_json::from_value(value).expect("answer");
    assert!(!refused.granted, "{refused:?}");
    assert_eq!(
        view(addr)
            .iter()
            .filter(|v| v.balancer.is_on_demand())
            .count(),
        2
    );
    assert_agree(&slurm, addr);
    drop(service);
    all_idle(&slurm);
}

/// The engine on Slurm with its policy wrapped in a recorder: the recording replays into a
/// fresh Balancer with the same commands at every step.
#[test]
fn a_live_slurm_recording_replays_identically() {
    let Some((slurm, _log, _one)) = idle_cluster("a-live-slurm-recording-replays-identically")
    else {
        return;
    };
    let recorder = Recorder::with_view_snapshot(basic(), Vec::new(), |_, v: &[RmNode]| {
        Some(serde_json::to_value(v).unwrap_or_default())
    });
    let mut engine =
        Engine::start(wall_clock(), recorder, SlurmOarm::new(slurm.clone())).expect("start");
    let a = engine.request(wall_clock(), 3, None).expect("request");
    let answers = engine.take_answers();
    let names = match &answers[..] {
        [Answer::Granted { request, nodes }] if *request == a => nodes.clone(),
        other => panic!("{other:?}"),
    };
    engine.sync(wall_clock()).expect("sync");
    engine.release(wall_clock(), &names).expect("release");
    engine.sync(wall_clock()).expect("sync");
    let (recorder, _) = engine.into_parts();
    let (_, lines) = recorder.into_parts();
    let outcome = replay(&mut basic(), lines.as_slice(), |snap| {
        serde_json::from_value::<Vec<RmNode>>(snap.cloned().unwrap_or_default())
    })
    .expect("the recording replays");
    assert!(outcome.steps >= 4 && outcome.commands >= 4, "{outcome:?}");
    all_idle(&slurm);
}

/// The service on the cluster in memory, its events to a [`Logger`] of the test's: a grant,
/// a refusal (logged with its status), and a failing resource manager (a poll error, then a
/// 502), all seen in the log and nowhere on stderr.
#[test]
fn the_service_logs_its_events_to_the_configured_logger() {
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::<LogEvent>::new()));
    let sink = events.clone();
    let config = ServiceConfig {
        poll: Duration::from_millis(50),
        log: Logger::new(move |e| sink.lock().unwrap().push(e.clone())),
        ..ServiceConfig::default()
    };
    let cluster = MemoryCluster::new(&[RmNodeState::BatchIdle, RmNodeState::BatchBusy]);
    let service = serve(config, basic(), cluster.clone());
    let logged = |event: &str| -> Vec<LogEvent> {
        let events = events.lock().unwrap();
        events
            .iter()
            .filter(|e| e.event == event)
            .cloned()
            .collect()
    };
    assert_eq!(logged("start")[0].fields["nodes"], 2);
    let (status, body) = post(service.addr, "/request_nodes", r#"{"nodes": 1}"#);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["nodes"], json!(["n1"]));
    assert_eq!(cluster.state(0), Some(RmNodeState::OnDemandFree));
    assert_eq!(logged("request")[0].fields["nodes"], 1);
    assert!(logged("answer")[0].fields.to_string().contains("n1"));
    let (status, _) = post(service.addr, "/request_nodes", r#"{"nodes": 9}"#);
    assert_eq!(status, 400);
    let refused = logged("refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].fields["status"], 400);
    assert!(
        refused[0].fields["error"]
            .as_str()
            .is_some_and(|e| e.contains("9 nodes")),
        "{}",
        refused[0]
    );
    // Each event is one JSON line that reads back as the event.
    let line = refused[0].to_string();
    assert_eq!(serde_json::from_str::<LogEvent>(&line).unwrap(), refused[0]);
    // n1 back (I = 0: at the next poll), then the resource manager fails: the poller logs it,
    // and a request whose drain fails is a 502.
    let (status, _) = post(service.addr, "/release_nodes", r#"{"nodes": ["n1"]}"#);
    assert_eq!(status, 200);
    wait_for("n1 back to batch", Duration::from_secs(10), || {
        cluster.state(0) == Some(RmNodeState::BatchIdle)
    });
    cluster.set_failing(true);
    wait_for("a poll error", Duration::from_secs(10), || {
        !logged("poll_error").is_empty()
    });
    let (status, _) = post(service.addr, "/request_nodes", r#"{"nodes": 1}"#);
    assert_eq!(status, 502);
    assert!(
        logged("poll_error")[0].fields["error"]
            .as_str()
            .is_some_and(|e| e.contains("failing"))
    );
}
