//! A bounded load test of the service on loopback (the cluster in memory): concurrent
//! clients each request nodes (half of them waiting up to W = 2 s, half refusing to wait),
//! hold them a moment and release them, while another scrapes
//! `/metrics`. It checks, from the service's own ordered event log, that no node is ever held
//! by two requests at once and that every request got exactly one answer, and from the
//! clients that every call was answered; it prints the latency percentiles and the
//! throughput.
//!
//! Size: `COSCHED_LOAD_CLIENTS` (default 16, at most 512) clients of `COSCHED_LOAD_CYCLES`
//! (default 40, at most 100,000) cycles each on `COSCHED_LOAD_NODES` (default 32, at most
//! 4,096) nodes. The figures:
//! `COSCHED_LOAD_CLIENTS=64 COSCHED_LOAD_CYCLES=300 cargo test --release -p cosched-live --test load -- --nocapture`.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cosched_balancer::policy::RmNodeState;
use cosched_live::service::RequestAnswer;
use cosched_live::{Answer, LogEvent, Logger, MemoryCluster, ServiceConfig};
use support::{Served, agent, basic};

fn knob(name: &str, default: usize, max: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => {
            let n: usize = v
                .parse()
                .unwrap_or_else(|_| panic!("{name}={v} is not a count"));
            assert!((1..=max).contains(&n), "{name} must be in 1..={max}");
            n
        }
        Err(_) => default,
    }
}

/// What one client saw.
#[derive(Default)]
struct ClientLog {
    request_latency: Vec<Duration>,
    release_latency: Vec<Duration>,
    /// Each answered request: its id and its nodes (empty when rejected).
    answers: Vec<(u64, Vec<String>)>,
    failures: Vec<String>,
}

/// The nearest-rank percentile of sorted `values`.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn summary(name: &str, mut values: Vec<Duration>) -> String {
    values.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "{name}: n={} p50={:.3} ms p90={:.3} ms p99={:.3} ms max={:.3} ms",
        values.len(),
        ms(percentile(&values, 50.0)),
        ms(percentile(&values, 90.0)),
        ms(percentile(&values, 99.0)),
        ms(*values.last().expect("at least one call")),
    )
}

#[test]
fn concurrent_clients_get_no_node_twice_and_every_request_an_answer() {
    let clients = knob("COSCHED_LOAD_CLIENTS", 16, 512);
    let cycles = knob("COSCHED_LOAD_CYCLES", 40, 100_000);
    let nodes = knob("COSCHED_LOAD_NODES", 32, 4096);

    let events = Arc::new(Mutex::new(Vec::<LogEvent>::new()));
    let sink = events.clone();
    let config = ServiceConfig {
        log: Logger::new(move |e| sink.lock().unwrap().push(e.clone())),
        poll: Duration::from_millis(100),
        ..ServiceConfig::default()
    };
    let cluster = MemoryCluster::new(&vec![RmNodeState::BatchIdle; nodes]);
    // W = 2 s: when the nodes are all out a request waits, and past W it is refused.
    let served = Served::start(config, basic(2), cluster);
    let addr = served.addr;

    let stop = Arc::new(AtomicBool::new(false));
    let scraper = {
        let stop = stop.clone();
        let served_addr = served.addr;
        std::thread::spawn(move || {
            let client = agent(Duration::from_secs(60));
            let mut scrapes = 0_u32;
            while !stop.load(Ordering::Relaxed) {
                let mut resp = client
                    .get(&format!("http://{served_addr}/metrics"))
                    .call()
                    .expect("a scrape");
                let text = resp.body_mut().read_to_string().expect("text");
                prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned())))
                    .expect("the exposition parses under load");
                scrapes += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            scrapes
        })
    };

    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            std::thread::spawn(move || {
                let client = agent(Duration::from_secs(120));
                let mut log = ClientLog::default();
                for cycle in 0..cycles {
                    let want = (c + cycle) % 4 + 1;
                    let t = Instant::now();
                    let resp = client
                        .post(&format!("http://{addr}/request_nodes"))
                        .content_type("application/json")
                        .send(match c % 2 {
                            // Half the clients wait up to W, half not at all (refused at once
                            // when the nodes are out).
                            0 => format!(r#"{{"nodes": {want}}}"#),
                            _ => format!(r#"{{"nodes": {want}, "wait_s": 0}}"#),
                        });
                    let answer = match resp {
                        Ok(mut r) if r.status() == 200 => r.body_mut().read_json::<RequestAnswer>(),
                        Ok(mut r) => {
                            let why = r.body_mut().read_to_string().unwrap_or_default();
                            log.failures.push(format!("request: {} {why}", r.status()));
                            continue;
                        }
                        Err(e) => {
                            log.failures.push(format!("request: {e}"));
                            continue;
                        }
                    };
                    log.request_latency.push(t.elapsed());
                    let answer = match answer {
                        Ok(a) => a,
                        Err(e) => {
                            log.failures.push(format!("request body: {e}"));
                            continue;
                        }
                    };
                    log.answers.push((answer.request, answer.nodes.clone()));
                    if !answer.granted {
                        continue;
                    }
                    std::thread::sleep(Duration::from_micros(500 * (cycle % 4) as u64));
                    let t = Instant::now();
                    let body = serde_json::json!({ "nodes": answer.nodes }).to_string();
                    match client
                        .post(&format!("http://{addr}/release_nodes"))
                        .content_type("application/json")
                        .send(body)
                    {
                        Ok(r) if r.status() == 200 => log.release_latency.push(t.elapsed()),
                        Ok(r) => log.failures.push(format!("release: {}", r.status())),
                        Err(e) => log.failures.push(format!("release: {e}")),
                    }
                }
                log
            })
        })
        .collect();
    let logs: Vec<ClientLog> = workers
        .into_iter()
        .map(|w| w.join().expect("a client"))
        .collect();
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let scrapes = scraper.join().expect("the scraper");

    // Every call was answered.
    let failures: Vec<&String> = logs.iter().flat_map(|l| &l.failures).collect();
    assert!(
        failures.is_empty(),
        "{} failed calls: {failures:?}",
        failures.len()
    );
    let answered: Vec<&(u64, Vec<String>)> = logs.iter().flat_map(|l| &l.answers).collect();
    assert_eq!(answered.len(), clients * cycles);
    let granted = answered.iter().filter(|(_, n)| !n.is_empty()).count();

    // The service's log, in the order its lock saw the events: no node held twice, every
    // request answered once, each answer the one its client received.
    let events = events.lock().unwrap().clone();
    let mut held: BTreeSet<String> = BTreeSet::new();
    let mut requests: BTreeSet<u64> = BTreeSet::new();
    let mut answers: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for e in &events {
        match e.event.as_str() {
            "request" => {
                let id = e.fields["request"].as_u64().expect("an id");
                assert!(requests.insert(id), "request {id} registered twice");
            }
            "answer" => {
                let answer: Answer = serde_json::from_value(e.fields.clone()).expect("an answer");
                let (id, nodes) = match answer {
                    Answer::Granted { request, nodes } => (request, nodes),
                    Answer::Rejected { request } => (request, Vec::new()),
                };
                assert!(requests.contains(&id), "answer to an unknown request {id}");
                for n in &nodes {
                    assert!(
                        held.insert(n.clone()),
                        "{n} granted to request {id} while held"
                    );
                }
                assert!(
                    answers.insert(id, nodes).is_none(),
                    "request {id} answered twice"
                );
            }
            "release" => {
                let nodes: Vec<String> = serde_json::from_value(e.fields["nodes"].clone()).unwrap();
                for n in nodes {
                    assert!(held.remove(&n), "{n} released but not held");
                }
            }
            "refused" => panic!("a call was refused: {:?}", e.fields),
            _ => {}
        }
    }
    assert!(held.is_empty(), "still held at the end: {held:?}");
    assert_eq!(requests.len(), clients * cycles, "requests lost on the way");
    assert_eq!(answers.len(), requests.len(), "requests without an answer");
    for (id, nodes) in &answered {
        assert_eq!(
            answers.get(id),
            Some(nodes),
            "request {id}: the client got another answer"
        );
    }

    // The counters agree with the clients.
    let client = agent(Duration::from_secs(60));
    let m = served.scrape(&client, None);
    let total = |name: &str| m.value(&format!("cosched_balancer_{name}_total"), &[]);
    assert_eq!(total("requests") as usize, clients * cycles);
    assert_eq!(total("grants") as usize, granted);
    assert_eq!(total("rejections") as usize, clients * cycles - granted);
    assert_eq!(total("released_nodes"), total("granted_nodes"));
    assert_eq!(m.value("cosched_balancer_waiting_requests", &[]), 0.0);
    assert_eq!(m.value("cosched_balancer_allocations", &[]), 0.0);

    let calls = answered.len() + granted;
    println!(
        "load: {clients} clients x {cycles} cycles on {nodes} nodes (W = 2 s), {:.2} s: {} requests ({} granted, {} rejected), {:.0} requests/s, {:.0} calls/s, {scrapes} scrapes",
        elapsed.as_secs_f64(),
        answered.len(),
        granted,
        answered.len() - granted,
        answered.len() as f64 / elapsed.as_secs_f64(),
        calls as f64 / elapsed.as_secs_f64(),
    );
    let all = |f: fn(&ClientLog) -> &Vec<Duration>| logs.iter().flat_map(f).copied().collect();
    println!("{}", summary("request_nodes", all(|l| &l.request_latency)));
    println!("{}", summary("release_nodes", all(|l| &l.release_latency)));
}
