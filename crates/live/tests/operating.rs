//! Operating the service: its metrics (parsed as Prometheus parses them), its log sinks, its
//! token and its bounds, each refusal with its status. All on the cluster in memory and on
//! loopback.

mod support;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;

use cosched_balancer::policy::RmNodeState::{BatchBusy, BatchIdle};
use cosched_live::http::Unprotected;
use cosched_live::{
    BearerToken, Limits, LogEvent, LogSink, Logger, MemoryCluster, Service, ServiceConfig,
    ServiceError,
};
use support::{Served, TOKEN, agent, basic};

fn quiet() -> ServiceConfig {
    ServiceConfig {
        log: Logger::discard(),
        poll: Duration::from_millis(50),
        ..ServiceConfig::default()
    }
}

/// Grants, a rejection, a waiting request (the queue), a release, a refusal: each counter and
/// gauge reads what happened, and the HTTP histogram counts each call.
#[test]
fn the_metrics_show_the_state_and_counters() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchIdle, BatchIdle, BatchBusy]);
    let served = Served::start(quiet(), basic(60), cluster.clone());
    let client = agent(Duration::from_secs(60));

    let fresh = served.scrape(&client, None);
    assert_eq!(fresh.value("cosched_balancer_requests_total", &[]), 0.0);
    assert_eq!(
        fresh.value("cosched_balancer_nodes", &[("state", "oa_idle")]),
        3.0
    );
    assert_eq!(
        fresh.value("cosched_balancer_nodes", &[("state", "oa_busy")]),
        1.0
    );
    assert_eq!(
        fresh.value("cosched_balancer_nodes", &[("state", "od_alloc")]),
        0.0
    );

    let (status, _, body) = served.call(
        &client,
        "POST",
        "/request_nodes",
        Some(r#"{"nodes": 2}"#),
        None,
    );
    assert_eq!(status, 200, "{body}");
    let granted: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(granted["granted"], true);
    // Refused by the policy: 2 nodes, one idle, the other busy, no wait.
    let (_, _, body) = served.call(
        &client,
        "POST",
        "/request_nodes",
        Some(r#"{"nodes": 2, "wait_s": 0}"#),
        None,
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["granted"],
        false
    );
    let (status, _, _) = served.call(&client, "POST", "/request_nodes", Some("{"), None);
    assert_eq!(status, 400);

    // A request that waits for the busy node: the queue holds it until the job ends.
    let waiting = {
        let served_addr = served.addr;
        std::thread::spawn(move || {
            agent(Duration::from_secs(60))
                .post(&format!("http://{served_addr}/request_nodes"))
                .content_type("application/json")
                .send(r#"{"nodes": 2}"#)
                .unwrap()
                .body_mut()
                .read_to_string()
                .unwrap()
        })
    };
    let queued = served.scrape_until(&client, None, |s| {
        s.value("cosched_balancer_waiting_requests", &[]) == 1.0
    });
    assert_eq!(queued.value("cosched_balancer_requests_total", &[]), 3.0);
    cluster.end_job(3).unwrap();
    let answer: serde_json::Value = serde_json::from_str(&waiting.join().unwrap()).unwrap();
    assert_eq!(answer["granted"], true, "{answer}");

    let mut held: Vec<String> = serde_json::from_value(granted["nodes"].clone()).unwrap();
    held.extend(serde_json::from_value::<Vec<String>>(answer["nodes"].clone()).unwrap());
    let release = serde_json::json!({ "nodes": held }).to_string();
    let (status, _, body) = served.call(&client, "POST", "/release_nodes", Some(&release), None);
    assert_eq!(status, 200, "{body}");

    // With I = 0 the released nodes go back to batch at the next poll.
    let m = served.scrape_until(&client, None, |s| {
        s.value("cosched_balancer_nodes", &[("state", "oa_idle")]) == 4.0
    });
    let counter = |name: &str| m.value(&format!("cosched_balancer_{name}_total"), &[]);
    assert_eq!(counter("requests"), 3.0);
    assert_eq!(counter("grants"), 2.0);
    assert_eq!(counter("granted_nodes"), 4.0);
    assert_eq!(counter("rejections"), 1.0);
    assert_eq!(counter("released_nodes"), 4.0);
    // Every granted node was reclaimed, and every reclaimed one is back.
    assert!(counter("reclaims") >= 4.0, "{}", m.text);
    assert_eq!(counter("restores"), counter("reclaims"), "{}", m.text);
    assert_eq!(
        m.value("cosched_balancer_refusals_total", &[("status", "400")]),
        1.0
    );
    assert_eq!(m.value("cosched_balancer_waiting_requests", &[]), 0.0);
    assert_eq!(m.value("cosched_balancer_held_grants", &[]), 0.0);
    assert_eq!(m.value("cosched_balancer_allocations", &[]), 0.0);
    assert_eq!(
        m.value("cosched_balancer_nodes", &[("state", "oa_idle")]),
        4.0
    );
    assert_eq!(m.value("cosched_balancer_unavailable_nodes", &[]), 0.0);
    let route = |r: &'static str, status: &'static str| {
        m.value(
            "cosched_http_requests_total",
            &[("route", r), ("method", "POST"), ("status", status)],
        )
    };
    assert_eq!(route("/request_nodes", "200"), 3.0);
    assert_eq!(route("/request_nodes", "400"), 1.0);
    assert_eq!(route("/release_nodes", "200"), 1.0);
    assert_eq!(
        m.histogram_count(
            "cosched_http_request_duration_seconds",
            &[("route", "/request_nodes")]
        ),
        4.0
    );
    // Every sample is typed (the parser files a histogram's `_sum` and `_count` apart).
    assert!(
        m.scrape.samples.iter().all(|s| {
            !matches!(s.value, prometheus_parse::Value::Untyped(_))
                || s.metric.ends_with("_sum")
                || s.metric.ends_with("_count")
        }),
        "{}",
        m.text
    );
}

/// `LogSink` as an operator names it, and a file sink: one JSON line per event, appended.
#[test]
fn the_log_goes_to_the_configured_sink() {
    assert_eq!("stderr".parse::<LogSink>(), Ok(LogSink::Stderr));
    assert_eq!("-".parse::<LogSink>(), Ok(LogSink::Stderr));
    assert_eq!("none".parse::<LogSink>(), Ok(LogSink::Discard));
    assert_eq!(
        "./none".parse::<LogSink>(),
        Ok(LogSink::File("./none".into()))
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, "an earlier line\n").unwrap();
    for _ in 0..2 {
        let config = ServiceConfig {
            log: Logger::open(&LogSink::File(path.clone())).unwrap(),
            ..quiet()
        };
        let served = Served::start(config, basic(0), MemoryCluster::new(&[BatchIdle]));
        let (status, _, _) = served.call(
            &agent(Duration::from_secs(30)),
            "POST",
            "/request_nodes",
            Some(r#"{"nodes": 1}"#),
            None,
        );
        assert_eq!(status, 200);
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("an earlier line"));
    let events: Vec<String> = lines
        .map(|l| serde_json::from_str::<LogEvent>(l).unwrap().event)
        .collect();
    assert_eq!(
        events,
        ["start", "request", "answer", "start", "request", "answer"]
    );
    assert!(Logger::open(&LogSink::File(dir.path().join("no/such/dir/log"))).is_err());
}

/// With a token every route, `/metrics` included, needs it; a wrong or missing one is a 401
/// with `WWW-Authenticate: Bearer`, counted and logged as a refusal.
#[test]
fn with_a_token_every_call_must_present_it() {
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::<LogEvent>::new()));
    let sink = events.clone();
    let config = ServiceConfig {
        token: Some(BearerToken::new(TOKEN).unwrap()),
        log: Logger::new(move |e| sink.lock().unwrap().push(e.clone())),
        ..quiet()
    };
    let served = Served::start(
        config,
        basic(0),
        MemoryCluster::new(&[BatchIdle, BatchIdle]),
    );
    let client = agent(Duration::from_secs(30));
    let wrong = format!("{TOKEN}x");
    for (method, path, body) in [
        ("GET", "/nodes", None),
        ("GET", "/metrics", None),
        ("POST", "/request_nodes", Some(r#"{"nodes": 1}"#)),
        ("POST", "/job_ended", Some(r#"{"nodes": "n1"}"#)),
    ] {
        for token in [None, Some(wrong.as_str()), Some(&TOKEN[1..])] {
            let (status, headers, text) = served.call(&client, method, path, body, token);
            assert_eq!(status, 401, "{method} {path} with {token:?}: {text}");
            assert_eq!(
                headers
                    .get("www-authenticate")
                    .and_then(|v| v.to_str().ok()),
                Some("Bearer")
            );
            assert!(text.contains("Authorization: Bearer"), "{text}");
        }
    }
    let (status, _, text) = served.call(
        &client,
        "POST",
        "/request_nodes",
        Some(r#"{"nodes": 1}"#),
        Some(TOKEN),
    );
    assert_eq!(status, 200, "{text}");
    // Nothing refused reached the policy.
    let m = served.scrape(&client, Some(TOKEN));
    assert_eq!(m.value("cosched_balancer_requests_total", &[]), 1.0);
    assert_eq!(
        m.value("cosched_balancer_refusals_total", &[("status", "401")]),
        12.0
    );
    assert_eq!(
        m.value(
            "cosched_http_requests_total",
            &[("route", "/metrics"), ("method", "GET"), ("status", "401")]
        ),
        3.0
    );
    let refused = events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.event == "refused")
        .count();
    assert_eq!(refused, 12);
}

/// Beyond loopback without a token the service does not start, before binding anything.
#[test]
fn beyond_loopback_the_service_refuses_to_start_without_a_token() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let service = Service::new(quiet(), basic(0), MemoryCluster::new(&[BatchIdle])).unwrap();
        let addr = addr.parse().unwrap();
        match rt.block_on(service.run(addr)) {
            Err(ServiceError::Unprotected(Unprotected { addr: refused })) => {
                assert_eq!(refused, addr)
            }
            other => panic!("{addr}: {other:?}"),
        }
    }
}

/// A body over the limit is a 413, whether its length is declared or not; nothing reaches
/// the policy.
#[test]
fn a_body_over_the_limit_is_a_413() {
    let config = ServiceConfig {
        limits: Limits {
            max_body_bytes: 1024,
            ..Limits::default()
        },
        ..quiet()
    };
    let served = Served::start(config, basic(0), MemoryCluster::new(&[BatchIdle]));
    let client = agent(Duration::from_secs(30));
    let names: Vec<String> = (0..200).map(|i| format!("node-{i:04}")).collect();
    let big = serde_json::json!({ "nodes": names }).to_string();
    assert!(big.len() > 1024);
    let (status, _, text) = served.call(&client, "POST", "/release_nodes", Some(&big), None);
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("too large"), "{text}");
    // Streamed (chunked, no length declared): cut off at the limit while it is read.
    let mut stream = TcpStream::connect(served.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!(
        "POST /release_nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{big}\r\n0\r\n\r\n",
        big.len()
    )
    .into_bytes();
    stream.write_all(&request).unwrap();
    request.clear();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let m = served.scrape(&client, None);
    assert_eq!(
        m.value("cosched_balancer_refusals_total", &[("status", "413")]),
        2.0
    );
    assert_eq!(m.value("cosched_balancer_released_nodes_total", &[]), 0.0);
}

/// Headers over the limit are a 431 (hyper's answer, before the router), counted and logged
/// as a refusal as the router's own are.
#[test]
fn headers_over_the_limit_are_a_431() {
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::<LogEvent>::new()));
    let sink = events.clone();
    let config = ServiceConfig {
        limits: Limits {
            max_header_bytes: 4096,
            ..Limits::default()
        },
        log: Logger::new(move |e| sink.lock().unwrap().push(e.clone())),
        ..quiet()
    };
    let served = Served::start(config, basic(0), MemoryCluster::new(&[BatchIdle]));
    let answer = |extra: usize| {
        let mut stream = TcpStream::connect(served.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        // Small enough to be read whole at once: the service closes with nothing unread.
        let filler = "a".repeat(extra);
        write!(
            stream,
            "GET /nodes HTTP/1.1\r\nHost: x\r\nX-Filler: {filler}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        // The server may close before the whole request is read: what it answered counts.
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    assert!(answer(1000).starts_with("HTTP/1.1 200"));
    let refused = answer(6000);
    assert!(refused.starts_with("HTTP/1.1 431"), "{refused}");
    assert!(answer(6000).starts_with("HTTP/1.1 431"));
    let client = agent(Duration::from_secs(30));
    // The connection's end (where the 431 is told) may come just after its answer.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let counted = loop {
        let m = served.scrape(&client, None);
        let n = m.value("cosched_balancer_refusals_total", &[("status", "431")]);
        if n >= 2.0 || std::time::Instant::now() > deadline {
            break n;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(counted, 2.0);
    let logged: Vec<_> = events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.event == "refused")
        .map(|e| e.fields.clone())
        .collect();
    assert_eq!(logged.len(), 2, "{logged:?}");
    assert_eq!(logged[0]["status"], 431);
}

/// With one connection allowed, a second caller is served only once the first closes; a
/// caller that sends no headers is cut off after the header timeout.
#[test]
fn connections_and_slow_callers_are_bounded() {
    let config = ServiceConfig {
        limits: Limits {
            max_connections: 1,
            header_timeout: Duration::from_secs(120),
            ..Limits::default()
        },
        ..quiet()
    };
    let served = Served::start(config, basic(0), MemoryCluster::new(&[BatchIdle]));
    let idle = TcpStream::connect(served.addr).unwrap();
    // Give the service time to accept the first connection: the second must not overtake it.
    std::thread::sleep(Duration::from_millis(200));
    let url = format!("http://{}/nodes", served.addr);
    let blocked = agent(Duration::from_millis(500)).get(&url).call();
    assert!(
        blocked.is_err(),
        "served beyond the connection limit: {blocked:?}"
    );
    drop(idle);
    let (status, _, _) = served.call(&agent(Duration::from_secs(30)), "GET", "/nodes", None, None);
    assert_eq!(status, 200);

    let config = ServiceConfig {
        limits: Limits {
            header_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..quiet()
    };
    let served = Served::start(config, basic(0), MemoryCluster::new(&[BatchIdle]));
    let mut slow = TcpStream::connect(served.addr).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    slow.write_all(b"GET /nodes HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut answer = Vec::new();
    // Closed by the service (with or without a 408) long before the read's own timeout.
    let read = slow.read_to_end(&mut answer);
    assert!(read.is_ok(), "{read:?}");
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 408"),
        "{text}"
    );
}

/// A body that does not arrive within the body timeout is a 408.
#[test]
fn a_body_that_does_not_arrive_is_a_408() {
    let config = ServiceConfig {
        limits: Limits {
            body_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..quiet()
    };
    let served = Served::start(config, basic(0), MemoryCluster::new(&[BatchIdle]));
    let mut stream = TcpStream::connect(served.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /request_nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{{\"nodes\":"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let m = served.scrape(&agent(Duration::from_secs(30)), None);
    assert_eq!(
        m.value("cosched_balancer_refusals_total", &[("status", "408")]),
        1.0
    );
    assert_eq!(m.value("cosched_balancer_requests_total", &[]), 0.0);
}
