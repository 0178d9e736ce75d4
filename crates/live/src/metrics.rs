//! What a live service exposes at `GET /metrics`: its state and counters in Prometheus's text
//! exposition format (version 0.0.4), through the Prometheus project's own Rust client,
//! [`prometheus_client`] (typed label sets, no global state, one registry per service, so two
//! services in one process, or a test, never share counters).
//!
//! Every executor registers its metrics the same way, at construction, in its own
//! sub-registry of the service's [`Metrics`]: `metrics.section("balancer")` names them
//! `cosched_balancer_…`. Two pieces are common to every service:
//! - [`HttpMetrics`]: calls by route, method and status, and each route's latency histogram
//!   (`cosched_http_…`), recorded by [`HttpMetrics::instrument`] around a router;
//! - [`NodeGauge`]: nodes by state, every state reported (a state no node is in reads 0).
//!
//! ```
//! use cosched_live::metrics::{Counter, Metrics, NodeGauge};
//!
//! let mut metrics = Metrics::new();
//! let section = metrics.section("batch");
//! let starts: Counter = Counter::default();
//! section.register("job_starts", "Jobs started", starts.clone());
//! let nodes = NodeGauge::register(section, &["idle", "busy"]);
//! starts.inc();
//! nodes.set(&[("busy", 3)]);
//! let text = metrics.encode()?;
//! assert!(text.contains("cosched_batch_job_starts_total 1\n"));
//! assert!(text.contains("cosched_batch_nodes{state=\"idle\"} 0\n"));
//! assert!(text.contains("cosched_batch_nodes{state=\"busy\"} 3\n"));
//! # Ok::<(), std::fmt::Error>(())
//! ```

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::histogram::exponential_buckets;
use prometheus_client::registry::Registry;

pub use prometheus_client::metrics::counter::Counter;
pub use prometheus_client::metrics::family::Family;
pub use prometheus_client::metrics::gauge::Gauge;
pub use prometheus_client::metrics::histogram::Histogram;
pub use prometheus_client::registry::Registry as Section;

/// The content type of the Prometheus text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A service's metrics, every name under `cosched_`; see the [module docs](self).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// An empty registry: names under `cosched_`.
    pub fn new() -> Metrics {
        Metrics {
            registry: Registry::with_prefix("cosched"),
        }
    }

    /// The sub-registry of one part of the service (`balancer`, `batch`, `http`, …): its
    /// metrics are named `cosched_<name>_…`. A counter's name takes no `_total`: the encoder
    /// adds it.
    pub fn section(&mut self, name: &str) -> &mut Section {
        self.registry.sub_registry_with_prefix(name)
    }

    /// The exposition in the Prometheus text format.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry)?;
        Ok(text)
    }

    /// The exposition as an HTTP response, with its content type.
    pub fn response(&self) -> Response {
        match self.encode() {
            Ok(text) => (
                [(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))],
                text,
            )
                .into_response(),
            Err(_) => (
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "cannot encode the metrics",
            )
                .into_response(),
        }
    }
}

/// The latency buckets, seconds: 0.5 ms to about 4.4 minutes by doubling (a grant on
/// loopback takes well under a millisecond; a call may wait up to the policy's window).
pub fn latency_buckets() -> impl Iterator<Item = f64> {
    exponential_buckets(0.0005, 2.0, 20)
}

fn latency_histogram() -> Histogram {
    Histogram::new(latency_buckets())
}

/// One call's labels.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct CallLabels {
    /// The matched route (`unmatched` for none: the label's values stay bounded).
    route: String,
    method: String,
    status: u16,
}

/// One route's label.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RouteLabel {
    route: String,
}

type LatencyFamily = Family<RouteLabel, Histogram, fn() -> Histogram>;

/// The HTTP calls of a service: `cosched_http_requests_total{route, method, status}` and
/// `cosched_http_request_duration_seconds{route}` (from the call's arrival at the router to
/// its answer, so a request that waits for nodes counts its wait).
#[derive(Debug, Clone)]
pub struct HttpMetrics {
    calls: Family<CallLabels, Counter>,
    latency: LatencyFamily,
}

impl HttpMetrics {
    /// Registers the HTTP metrics in `metrics`' `http` section.
    pub fn register(metrics: &mut Metrics) -> HttpMetrics {
        let http = HttpMetrics {
            calls: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
        };
        let section = metrics.section("http");
        section.register("requests", "HTTP calls answered", http.calls.clone());
        section.register(
            "request_duration_seconds",
            "HTTP call latency in seconds, arrival to answer",
            http.latency.clone(),
        );
        http
    }

    /// `router` with every call recorded (add it after the routes and inner layers, so that it
    /// sees every answer, refusals included).
    pub fn instrument(&self, router: Router) -> Router {
        router.layer(middleware::from_fn_with_state(self.clone(), record))
    }

    /// Records one answered call.
    fn observe(&self, route: &str, method: &str, status: u16, seconds: f64) {
        self.calls
            .get_or_create(&CallLabels {
                route: route.to_owned(),
                method: method.to_owned(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabel {
                route: route.to_owned(),
            })
            .observe(seconds);
    }
}

async fn record(State(http): State<HttpMetrics>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = match request.method().as_str() {
        m @ ("GET" | "POST" | "PUT" | "DELETE" | "HEAD") => m.to_owned(),
        _ => "other".to_owned(),
    };
    let started = Instant::now();
    let response = next.run(request).await;
    http.observe(
        &route,
        &method,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

/// A node state's label.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct StateLabel {
    state: &'static str,
}

/// Nodes by state, `<section>_nodes{state}`: every state of the executor's vocabulary is
/// reported, a state no node is in as 0.
#[derive(Debug, Clone)]
pub struct NodeGauge {
    states: Arc<[&'static str]>,
    family: Family<StateLabel, Gauge>,
}

impl NodeGauge {
    /// Registers `nodes` in `section` with the executor's `states`.
    pub fn register(section: &mut Section, states: &[&'static str]) -> NodeGauge {
        let gauge = NodeGauge {
            states: states.into(),
            family: Family::default(),
        };
        section.register("nodes", "Nodes by state", gauge.family.clone());
        gauge.set(&[]);
        gauge
    }

    /// Sets the counts: each state of `counts` to its count, every other state to 0.
    pub fn set(&self, counts: &[(&'static str, usize)]) {
        for &state in self.states.iter() {
            let n = counts
                .iter()
                .filter(|(s, _)| *s == state)
                .map(|&(_, n)| n)
                .sum::<usize>();
            self.family
                .get_or_create(&StateLabel { state })
                .set(i64::try_from(n).unwrap_or(i64::MAX));
        }
    }
}

/// Sets a counter that mirrors a cumulative count kept elsewhere (an executor's tally) to
/// `total`; a counter never goes down, so a smaller `total` leaves it as it is.
pub fn advance(counter: &Counter, total: u64) {
    counter.inc_by(total.saturating_sub(counter.get()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_metrics_encode_calls_and_latency() {
        let mut metrics = Metrics::new();
        let http = HttpMetrics::register(&mut metrics);
        http.observe("/nodes", "GET", 200, 0.0007);
        http.observe("/nodes", "GET", 200, 0.3);
        let text = metrics.encode().unwrap();
        assert!(
            text.contains(
                "cosched_http_requests_total{route=\"/nodes\",method=\"GET\",status=\"200\"} 2\n"
            ),
            "{text}"
        );
        assert!(text.contains(
            "cosched_http_request_duration_seconds_bucket{route=\"/nodes\",le=\"0.001\"} 1\n"
        ));
        assert!(text.contains("cosched_http_request_duration_seconds_count{route=\"/nodes\"} 2\n"));
    }

    #[test]
    fn a_mirrored_counter_never_goes_down() {
        let c = Counter::default();
        advance(&c, 5);
        advance(&c, 3);
        assert_eq!(c.get(), 5);
        advance(&c, 9);
        assert_eq!(c.get(), 9);
    }
}
