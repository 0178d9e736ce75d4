//! A service of the test's on a loopback port, and a client for it.

#![allow(dead_code)] // each test file uses its own part of the support

use std::net::SocketAddr;
use std::time::Duration;

use cosched_balancer::policy::{Balancer, BalancerConfig, Strategy};
use cosched_live::{LiveCluster, Service, ServiceConfig, ServicePolicy};

/// A token long enough for the service.
pub const TOKEN: &str = "test-token-0123456789abcdef-0123456789";

/// A service on an ephemeral loopback port in a thread of its own, stopped when dropped.
pub struct Served {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Served {
    /// `policy` on `cluster` with `config`, on `127.0.0.1`.
    pub fn start<P: ServicePolicy, C: LiveCluster + Send + 'static>(
        config: ServiceConfig,
        policy: P,
        cluster: C,
    ) -> Served {
        let service = Service::new(config, policy, cluster).expect("the service starts");
        Served::spawn(move |listener, stopped| async move {
            service
                .serve(listener, async move {
                    let _ = stopped.await;
                })
                .await
                .expect("serve");
        })
    }

    /// `serve` on a listener on `127.0.0.1`, told to stop by its receiver.
    pub fn spawn<F, Fut>(serve: F) -> Served
    where
        F: FnOnce(tokio::net::TcpListener, tokio::sync::oneshot::Receiver<()>) -> Fut
            + Send
            + 'static,
        Fut: std::future::Future<Output = ()>,
    {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                addr_tx
                    .send(listener.local_addr().expect("addr"))
                    .expect("send");
                serve(listener, stopped).await;
            });
        });
        Served {
            addr: addr_rx.recv().expect("the service's address"),
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `method path` with `body` (JSON) and the token if given: status, headers, body.
    pub fn call(
        &self,
        agent: &ureq::Agent,
        method: &str,
        path: &str,
        body: Option<&str>,
        token: Option<&str>,
    ) -> (u16, ureq::http::HeaderMap, String) {
        let url = format!("http://{}{path}", self.addr);
        let auth = token.map(|t| format!("Bearer {t}"));
        let result = match (method, body) {
            ("GET", _) => {
                let mut req = agent.get(&url);
                if let Some(a) = &auth {
                    req = req.header("Authorization", a);
                }
                req.call()
            }
            (_, body) => {
                let mut req = agent.post(&url).content_type("application/json");
                if let Some(a) = &auth {
                    req = req.header("Authorization", a);
                }
                req.send(body.unwrap_or("{}"))
            }
        };
        let mut resp = result.expect("the service answers");
        let headers = resp.headers().clone();
        let text = resp.body_mut().read_to_string().expect("a text body");
        (resp.status().as_u16(), headers, text)
    }

    /// `GET /metrics`, parsed.
    pub fn scrape(&self, agent: &ureq::Agent, token: Option<&str>) -> Scraped {
        let (status, headers, text) = self.call(agent, "GET", "/metrics", None, token);
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            headers.get("content-type").and_then(|v| v.to_str().ok()),
            Some(cosched_live::metrics::CONTENT_TYPE)
        );
        let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned())))
            .expect("the exposition parses");
        Scraped { text, scrape }
    }
}

impl Served {
    /// Scrapes until `done` holds (at most a minute).
    pub fn scrape_until(
        &self,
        agent: &ureq::Agent,
        token: Option<&str>,
        done: impl Fn(&Scraped) -> bool,
    ) -> Scraped {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let scraped = self.scrape(agent, token);
            if done(&scraped) {
                return scraped;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "never reached:\n{}",
                scraped.text
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A parsed exposition.
pub struct Scraped {
    pub text: String,
    pub scrape: prometheus_parse::Scrape,
}

impl Scraped {
    /// The value of the counter or gauge `metric` with `labels`; panics if it is absent.
    pub fn value(&self, metric: &str, labels: &[(&str, &str)]) -> f64 {
        let sample = self
            .scrape
            .samples
            .iter()
            .find(|s| s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
            .unwrap_or_else(|| panic!("no {metric}{labels:?} in\n{}", self.text));
        match sample.value {
            prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Gauge(v) => v,
            ref other => panic!("{metric} is {other:?}, not a counter or gauge"),
        }
    }

    /// The `+Inf` bucket (the count) of the histogram `metric` with `labels`.
    pub fn histogram_count(&self, metric: &str, labels: &[(&str, &str)]) -> f64 {
        self.scrape
            .samples
            .iter()
            .filter(|s| {
                s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v))
            })
            .find_map(|s| match &s.value {
                prometheus_parse::Value::Histogram(buckets) => buckets
                    .iter()
                    .find(|b| b.less_than == f64::INFINITY)
                    .map(|b| b.count),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no histogram {metric}{labels:?} in\n{}", self.text))
    }
}

/// A client that reads every status as an answer.
pub fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .build()
        .into()
}

/// The Basic Balancer: R = 0, I = 0, the window `w_s`.
pub fn basic(w_s: i64) -> Balancer {
    Balancer::new(
        BalancerConfig::new(Strategy::Basic { static_reserve: 0 })
            .with_window(cosched_core::Duration(w_s))
            .with_idle_hold(cosched_core::Duration::ZERO),
    )
}
