//! The Balancer as an HTTP/JSON service, the paper's API (Liu et al., SC18, §II-D) on axum.
//!
//! | call | body | answer |
//! |---|---|---|
//! | `POST /request_nodes` | `{"nodes": N, "wait_s": W}` (`wait_s` defaults to the Balancer's W) | when granted or refused, at most W later: `{"request", "granted", "nodes", "waited_s"}` |
//! | `POST /release_nodes` | `{"nodes": ["n3", …]}` | `{"released": [...]}` |
//! | `POST /add_reserve` | `{"in_s": H, "nodes": N}` | `{}` |
//! | `POST /job_ended` | `{"nodes": "n[1-2]"}` (a Slurm host list; what an epilog sends) | `{}` |
//! | `GET /nodes` | | every node: Balancer state, allocation, availability |
//! | `GET /metrics` | | the state and counters in Prometheus's text format (below) |
//!
//! Invalid input (bad JSON, a negative W, more nodes than exist, a node not allocated) is a
//! `400` with `{"error": "…"}` and changes nothing. Every call goes through one lock, so
//! concurrent requests reach the policy one at a time. After every change the state is written
//! (atomically) to the state file, from which a restarted service resumes without granting a
//! node twice. A background task polls the cluster every second (job starts and ends, nodes
//! drained or downed by an administrator), reads the epilog's job-end log when one is given,
//! and ticks the policy. Each event (start, request, answer, release, job end, refusal,
//! failure) goes to the configuration's [`Logger`]: one JSON line on stderr by default, or to a
//! file ([`LogSink`]).
//!
//! Beyond loopback the service needs a bearer token ([`ServiceConfig::token`]) and refuses to
//! start without one; bodies, headers, connections and slow callers are bounded
//! ([`ServiceConfig::limits`]); see [`crate::http`].
//!
//! `GET /metrics` (see [`crate::metrics`]): under `cosched_balancer_`, the counters
//! `requests`, `grants`, `granted_nodes`, `rejections` (the policy's: no nodes within the
//! wait), `released_nodes`, `reclaims` and `restores` (nodes taken from and given back to
//! batch), `refusals{status}` (calls refused as invalid, unauthorised or too large),
//! `job_end_notices{via}`, `poll_errors`, `save_errors` (each `…_total`); the gauges
//! `waiting_requests` (the queue), `held_grants` (grants waiting for their nodes to drain),
//! `allocations`, `nodes{state}` (`od_reserve`, `od_alloc`, `oa_idle`, `oa_busy`: §II-C1) and
//! `unavailable_nodes`; and `cosched_http_requests_total{route, method, status}` and the
//! latency histogram `cosched_http_request_duration_seconds{route}`.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cosched_balancer::policy::{BalancerNodeState, BalancerPolicy};
use cosched_core::{Duration, Time};
use cosched_slurm::{JobEndLog, hostlist};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::{Mutex, oneshot};

use crate::engine::{Answer, Engine, LiveCluster, LiveError, NodeView, Persisted};
use crate::http::{self, BearerToken, Limits, Unprotected};
use crate::metrics::{Counter, Family, Gauge, HttpMetrics, Metrics, NodeGauge, Section, advance};

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The state file could not be read.
    #[error("cannot read `{path}`: {source}")]
    ReadState {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        source: std::io::Error,
    },
    /// The state file is not a saved state of this policy.
    #[error("`{path}` is not a saved state: {source}")]
    StateFormat {
        /// The file.
        path: PathBuf,
        /// The decoder's error.
        source: serde_json::Error,
    },
    /// The engine could not start.
    #[error(transparent)]
    Engine(#[from] LiveError),
    /// The address is beyond loopback and no token was given.
    #[error(transparent)]
    Unprotected(#[from] Unprotected),
    /// The executor behind the service could not start, or stopped on an error.
    #[error("executor: {0}")]
    Executor(String),
    /// The address could not be bound or served.
    #[error("cannot serve on {addr}: {source}")]
    Serve {
        /// The address.
        addr: String,
        /// The error.
        source: std::io::Error,
    },
}

/// How the service runs (the policy is passed beside it: any policy of the Balancer's
/// protocol). The default: no state file, no job-end log, a poll every second, events on
/// stderr, no token (loopback only), the default [`Limits`].
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Where the state is saved after every change, and read at start.
    pub state_file: Option<PathBuf>,
    /// The epilog's job-end log to follow (see `cosched_slurm::notify`).
    pub job_end_log: Option<PathBuf>,
    /// How often the cluster is polled.
    pub poll: std::time::Duration,
    /// Where the service's events go.
    pub log: Logger,
    /// The token every call must present; required beyond loopback.
    pub token: Option<BearerToken>,
    /// Bounds on bodies, headers, connections and slow callers.
    pub limits: Limits,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            state_file: None,
            job_end_log: None,
            poll: std::time::Duration::from_secs(1),
            log: Logger::default(),
            token: None,
            limits: Limits::default(),
        }
    }
}

/// One event of the service: when, what, and its details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEvent {
    /// Wall-clock seconds.
    pub t: Time,
    /// What happened: `start`, `listening`, `request`, `answer`, `release`, `add_reserve`,
    /// `job_end`, `refused`, `poll_error` or `save_error`.
    pub event: String,
    /// Its details (the request's id and size, the nodes, the error, …).
    pub fields: serde_json::Value,
}

/// The JSON line `{"t": …, "event": …, "fields": {…}}`.
impl fmt::Display for LogEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&line)
    }
}

/// Where the service's events go: a function of each [`LogEvent`], called under the service's
/// lock, so it must be quick (hand the event to a channel or a buffered writer to do more).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use cosched_balancer::policy::{Balancer, BalancerConfig, RmNodeState, Strategy};
/// use cosched_live::{Logger, MemoryCluster, Service, ServiceConfig};
///
/// let events = Arc::new(Mutex::new(Vec::new()));
/// let sink = events.clone();
/// let config = ServiceConfig {
///     log: Logger::new(move |e| sink.lock().unwrap().push(e.event.clone())),
///     ..ServiceConfig::default()
/// };
/// let basic = Balancer::new(BalancerConfig::new(Strategy::Basic { static_reserve: 0 }));
/// let cluster = MemoryCluster::new(&[RmNodeState::BatchIdle]);
/// let _service = Service::new(config, basic, cluster)?;
/// assert_eq!(*events.lock().unwrap(), ["start"]);
/// # Ok::<(), cosched_live::ServiceError>(())
/// ```
#[derive(Clone)]
pub struct Logger(Arc<dyn Fn(&LogEvent) + Send + Sync>);

impl Logger {
    /// Events to `sink`.
    pub fn new(sink: impl Fn(&LogEvent) + Send + Sync + 'static) -> Logger {
        Logger(Arc::new(sink))
    }

    /// Each event as one JSON line on stderr (the default).
    pub fn stderr() -> Logger {
        Logger::new(|e| eprintln!("{e}"))
    }

    /// Events dropped.
    pub fn discard() -> Logger {
        Logger::new(|_| {})
    }

    /// Each event as one JSON line appended to `path` (created if absent): one write per line,
    /// so lines stay whole, and a log rotated by copy-and-truncate goes on at its start. An
    /// event that cannot be written goes to stderr with the reason.
    pub fn file(path: &Path) -> std::io::Result<Logger> {
        use std::io::Write as _;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        let file = std::sync::Mutex::new(file);
        Ok(Logger::new(move |e| {
            let line = format!("{e}\n");
            let mut file = file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Err(error) = file.write_all(line.as_bytes()) {
                eprint!("cannot write the log ({error}): {line}");
            }
        }))
    }

    /// The logger of `sink`.
    pub fn open(sink: &LogSink) -> std::io::Result<Logger> {
        match sink {
            LogSink::Stderr => Ok(Logger::stderr()),
            LogSink::Discard => Ok(Logger::discard()),
            LogSink::File(path) => Logger::file(path),
        }
    }

    /// Logs `event` with `fields` at the wall clock's time.
    pub fn log(&self, event: &str, fields: serde_json::Value) {
        (self.0)(&LogEvent {
            t: wall_clock(),
            event: event.to_owned(),
            fields,
        });
    }
}

/// Where a service's events go, as an operator names it: `stderr` (or `-`), `none`, or a file's
/// path (`./none` for a file of that name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogSink {
    /// One JSON line per event on stderr.
    Stderr,
    /// Nowhere.
    Discard,
    /// One JSON line per event appended to the file.
    File(PathBuf),
}

impl std::str::FromStr for LogSink {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "stderr" | "-" => LogSink::Stderr,
            "none" => LogSink::Discard,
            path => LogSink::File(PathBuf::from(path)),
        })
    }
}

impl Default for Logger {
    fn default() -> Self {
        Logger::stderr()
    }
}

impl fmt::Debug for Logger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Logger(..)")
    }
}

/// Wall-clock seconds: the policy's clock in a live service.
pub fn wall_clock() -> Time {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Time(i64::try_from(secs).unwrap_or(i64::MAX))
}

struct Shared<C: LiveCluster, P: BalancerPolicy> {
    engine: Engine<C, P>,
    /// Callers waiting for their answer (one lock covers a request's registration and its
    /// waiter, so every answer finds its waiter or has no caller: a request cancelled at a
    /// restart).
    waiters: BTreeMap<u64, oneshot::Sender<Answer>>,
    state_file: Option<PathBuf>,
    job_ends: Option<JobEndLog>,
    log: Logger,
    counters: BalancerMetrics,
    metrics: Arc<Metrics>,
}

/// The Balancer's counters and gauges (listed in the [module docs](self)); those the engine
/// tallies are brought up to date at each scrape.
#[derive(Debug, Clone)]
struct BalancerMetrics {
    requests: Counter,
    grants: Counter,
    granted_nodes: Counter,
    rejections: Counter,
    released_nodes: Counter,
    reclaims: Counter,
    restores: Counter,
    refusals: Family<StatusLabel, Counter>,
    job_end_notices: Family<ViaLabel, Counter>,
    poll_errors: Counter,
    save_errors: Counter,
    waiting: Gauge,
    held: Gauge,
    allocations: Gauge,
    nodes: NodeGauge,
    unavailable: Gauge,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, prometheus_client::encoding::EncodeLabelSet)]
pub(crate) struct StatusLabel {
    pub(crate) status: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, prometheus_client::encoding::EncodeLabelSet)]
struct ViaLabel {
    via: &'static str,
}

/// The label of each Balancer state (§II-C1's OD-Reserve, OD-Alloc, OA-Idle, OA-Busy).
fn state_label(state: BalancerNodeState) -> &'static str {
    match state {
        BalancerNodeState::OdReserve => "od_reserve",
        BalancerNodeState::OdAlloc => "od_alloc",
        BalancerNodeState::OaIdle => "oa_idle",
        BalancerNodeState::OaBusy => "oa_busy",
    }
}

impl BalancerMetrics {
    fn register(section: &mut Section) -> BalancerMetrics {
        let states = BalancerNodeState::ALL.map(state_label);
        let m = BalancerMetrics {
            requests: Counter::default(),
            grants: Counter::default(),
            granted_nodes: Counter::default(),
            rejections: Counter::default(),
            released_nodes: Counter::default(),
            reclaims: Counter::default(),
            restores: Counter::default(),
            refusals: Family::default(),
            job_end_notices: Family::default(),
            poll_errors: Counter::default(),
            save_errors: Counter::default(),
            waiting: Gauge::default(),
            held: Gauge::default(),
            allocations: Gauge::default(),
            nodes: NodeGauge::register(section, &states),
            unavailable: Gauge::default(),
        };
        let counters = [
            ("requests", "On-demand requests registered", &m.requests),
            ("grants", "Requests granted their nodes", &m.grants),
            (
                "granted_nodes",
                "Nodes handed over by grants",
                &m.granted_nodes,
            ),
            (
                "rejections",
                "Requests the policy refused: no nodes within the wait",
                &m.rejections,
            ),
            (
                "released_nodes",
                "Nodes released by their holders",
                &m.released_nodes,
            ),
            (
                "reclaims",
                "Nodes reclaimed from batch (drained; a running job finishes)",
                &m.reclaims,
            ),
            ("restores", "Nodes restored to batch", &m.restores),
            (
                "poll_errors",
                "Failed polls of the resource manager",
                &m.poll_errors,
            ),
            (
                "save_errors",
                "Failed writes of the state file",
                &m.save_errors,
            ),
        ];
        for (name, help, counter) in counters {
            section.register(name, help, counter.clone());
        }
        section.register(
            "refusals",
            "Calls refused (invalid, unauthorised, too large), by HTTP status",
            m.refusals.clone(),
        );
        section.register(
            "job_end_notices",
            "Job ends notified, by the epilog's log or a notify call",
            m.job_end_notices.clone(),
        );
        let gauges = [
            (
                "waiting_requests",
                "Requests waiting for an answer",
                &m.waiting,
            ),
            (
                "held_grants",
                "Grants waiting for their nodes to drain of batch work",
                &m.held,
            ),
            (
                "allocations",
                "Granted requests holding nodes",
                &m.allocations,
            ),
            (
                "unavailable_nodes",
                "Nodes an administrator took out of use",
                &m.unavailable,
            ),
        ];
        for (name, help, gauge) in gauges {
            section.register(name, help, gauge.clone());
        }
        m
    }

    /// Brings the engine's tallies and the state's gauges up to date.
    fn refresh<C: LiveCluster, P: ServicePolicy>(&self, engine: &Engine<C, P>) {
        let t = engine.tally();
        for (counter, total) in [
            (&self.requests, t.requests),
            (&self.grants, t.grants),
            (&self.granted_nodes, t.granted_nodes),
            (&self.rejections, t.rejections),
            (&self.released_nodes, t.released_nodes),
            (&self.reclaims, t.reclaims),
            (&self.restores, t.restores),
        ] {
            advance(counter, total);
        }
        let gauge = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let (waiting, held) = engine.queue();
        self.waiting.set(gauge(waiting));
        self.held.set(gauge(held));
        let view = engine.view();
        let counts = BalancerNodeState::ALL.map(|state| {
            (
                state_label(state),
                view.iter().filter(|v| v.balancer == state).count(),
            )
        });
        self.nodes.set(&counts);
        self.unavailable
            .set(gauge(view.iter().filter(|v| v.unavailable).count()));
        let holders: std::collections::BTreeSet<u64> =
            view.iter().filter_map(|v| v.request).collect();
        self.allocations.set(gauge(holders.len()));
    }

    fn job_end_notice(&self, via: &'static str) {
        self.job_end_notices.get_or_create(&ViaLabel { via }).inc();
    }
}

type AppState<C, P> = Arc<Mutex<Shared<C, P>>>;

/// What a policy run by the service must be: of the Balancer's protocol, its state saved in
/// JSON, its error a standard one.
pub trait ServicePolicy:
    BalancerPolicy<Error: std::error::Error + Send + Sync + 'static>
    + Clone
    + Serialize
    + DeserializeOwned
    + Send
    + 'static
{
}

impl<P> ServicePolicy for P where
    P: BalancerPolicy<Error: std::error::Error + Send + Sync + 'static>
        + Clone
        + Serialize
        + DeserializeOwned
        + Send
        + 'static
{
}

/// A running service's handle.
pub struct Service<C: LiveCluster, P: BalancerPolicy> {
    state: AppState<C, P>,
    poll: std::time::Duration,
    log: Logger,
    http: HttpMetrics,
    refusals: Family<StatusLabel, Counter>,
    token: Option<BearerToken>,
    limits: Limits,
}

impl<C, P> Service<C, P>
where
    C: LiveCluster + Send + 'static,
    P: ServicePolicy,
{
    /// Starts `policy` on `cluster`, or resumes the saved policy from the state file if it
    /// exists.
    pub fn new(config: ServiceConfig, policy: P, cluster: C) -> Result<Self, ServiceError> {
        let persisted = match &config.state_file {
            Some(path) if path.exists() => {
                let text =
                    std::fs::read_to_string(path).map_err(|source| ServiceError::ReadState {
                        path: path.clone(),
                        source,
                    })?;
                Some(
                    serde_json::from_str::<Persisted<P>>(&text).map_err(|source| {
                        ServiceError::StateFormat {
                            path: path.clone(),
                            source,
                        }
                    })?,
                )
            }
            _ => None,
        };
        let resumed = persisted.is_some();
        let engine = match persisted {
            Some(saved) => Engine::resume(wall_clock(), saved, cluster)?,
            None => Engine::start(wall_clock(), policy, cluster)?,
        };
        let log = config.log;
        log.log(
            "start",
            json!({ "resumed": resumed, "nodes": engine.view().len() }),
        );
        let mut metrics = Metrics::new();
        let http = HttpMetrics::register(&mut metrics);
        let counters = BalancerMetrics::register(metrics.section("balancer"));
        let refusals = counters.refusals.clone();
        let shared = Shared {
            engine,
            waiters: BTreeMap::new(),
            state_file: config.state_file,
            job_ends: config.job_end_log.map(JobEndLog::at_end),
            log: log.clone(),
            counters,
            metrics: Arc::new(metrics),
        };
        let state = Arc::new(Mutex::new(shared));
        Ok(Service {
            state,
            poll: config.poll,
            log,
            http,
            refusals,
            token: config.token,
            limits: config.limits,
        })
    }

    /// The HTTP routes, behind the token (if any) and the body limits, every call counted.
    pub fn router(&self) -> Router {
        let routes = Router::new()
            .route("/request_nodes", post(request_nodes::<C, P>))
            .route("/release_nodes", post(release_nodes::<C, P>))
            .route("/add_reserve", post(add_reserve::<C, P>))
            .route("/job_ended", post(job_ended::<C, P>))
            .route("/nodes", get(nodes::<C, P>))
            .route("/metrics", get(metrics::<C, P>))
            .with_state(self.state.clone());
        edge(
            routes,
            self.token.clone(),
            &self.limits,
            &self.log,
            &self.refusals,
            &self.http,
        )
    }

    /// Serves on `listener` until `shutdown` resolves, polling the cluster meanwhile; refuses
    /// a listener beyond loopback without a token.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServiceError> {
        let addr = exposed(&listener, self.token.as_ref())?;
        let state = self.state.clone();
        let poll = self.poll;
        let poller = tokio::spawn(async move {
            let mut interval = tokio::time::interval(poll);
            loop {
                interval.tick().await;
                let mut s = state.lock().await;
                let now = wall_clock();
                let result = follow_job_end_log(&mut s, now).and_then(|()| s.engine.sync(now));
                if let Err(e) = result {
                    s.counters.poll_errors.inc();
                    s.log.log("poll_error", json!({ "error": e.to_string() }));
                }
                deliver(&mut s);
            }
        });
        let router = self.router();
        let (log, refusals) = (self.log.clone(), self.refusals.clone());
        let edge: http::EdgeRefusal =
            Arc::new(move |status, error| count_refusal(&log, &refusals, status, error));
        let served = http::serve_with(listener, router, &self.limits, edge, shutdown).await;
        poller.abort();
        served.map_err(|source| ServiceError::Serve {
            addr: addr.to_string(),
            source,
        })
    }

    /// Binds `addr` and serves until the process is interrupted (SIGINT or SIGTERM, then the
    /// open calls finish); refuses an address beyond
    /// loopback without a token before binding it.
    pub async fn run(self, addr: SocketAddr) -> Result<(), ServiceError> {
        let listener = bind(addr, self.token.as_ref(), &self.log).await?;
        self.serve(listener, http::interrupted()).await
    }
}

/// `routes` as every service serves them: behind the token (if any) and the body limits,
/// each refusal logged and counted, every call counted.
pub(crate) fn edge(
    routes: Router,
    token: Option<BearerToken>,
    limits: &Limits,
    log: &Logger,
    refusals: &Family<StatusLabel, Counter>,
    http: &HttpMetrics,
) -> Router {
    let protected = http::protect(routes, token, limits, refused);
    let logged = protected.layer(axum::middleware::map_response_with_state(
        (log.clone(), refusals.clone()),
        log_refusal,
    ));
    http.instrument(logged)
}

/// The address of `listener`, refused beyond loopback without a token.
pub(crate) fn exposed(
    listener: &tokio::net::TcpListener,
    token: Option<&BearerToken>,
) -> Result<SocketAddr, ServiceError> {
    let addr = listener
        .local_addr()
        .map_err(|source| ServiceError::Serve {
            addr: "the listener".into(),
            source,
        })?;
    http::check_exposure(&addr, token)?;
    Ok(addr)
}

/// A listener on `addr` (refused beyond loopback without a token, before binding), logged.
pub(crate) async fn bind(
    addr: SocketAddr,
    token: Option<&BearerToken>,
    log: &Logger,
) -> Result<tokio::net::TcpListener, ServiceError> {
    http::check_exposure(&addr, token)?;
    let cannot = |source| ServiceError::Serve {
        addr: addr.to_string(),
        source,
    };
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(cannot)?;
    let bound = listener.local_addr().map_err(cannot)?;
    log.log(
        "listening",
        json!({ "addr": bound.to_string(), "token": token.is_some() }),
    );
    Ok(listener)
}

fn follow_job_end_log<C: LiveCluster, P: ServicePolicy>(
    s: &mut Shared<C, P>,
    now: Time,
) -> Result<(), LiveError> {
    let Some(reader) = s.job_ends.as_mut() else {
        return Ok(());
    };
    let ends = reader
        .read_new()
        .map_err(|e| LiveError::Cluster(Box::new(e)))?;
    for end in ends {
        s.log.log(
            "job_end",
            json!({ "job": end.job_id, "nodes": end.nodes, "via": "epilog" }),
        );
        s.counters.job_end_notice("epilog");
        s.engine.job_ended(now, &end.nodes)?;
    }
    Ok(())
}

/// Hands answers to their waiting callers, and saves the state.
fn deliver<C: LiveCluster, P: ServicePolicy>(s: &mut Shared<C, P>) {
    for answer in s.engine.take_answers() {
        s.log
            .log("answer", serde_json::to_value(&answer).unwrap_or_default());
        if let Some(tx) = s.waiters.remove(&answer.request()) {
            let _ = tx.send(answer);
        }
    }
    if let Some(Err(e)) = s
        .state_file
        .as_ref()
        .map(|path| save(path, &s.engine.persisted()))
    {
        s.counters.save_errors.inc();
        s.log.log("save_error", json!({ "error": e.to_string() }));
    }
}

/// Writes the state atomically: a temporary file of a fresh name beside it (never a file of
/// the operator's, as a fixed `STATE.tmp` could be), synced, then renamed over the old one.
pub(crate) fn save<T: Serialize>(path: &std::path::Path, state: &T) -> std::io::Result<()> {
    use std::io::Write as _;
    let json = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".state.")
        .tempfile_in(dir)?;
    tmp.write_all(&json)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

/// An error response: 400 for the caller's mistakes, 502 for the resource manager's, 500 else.
pub(crate) struct ApiError(pub(crate) StatusCode, pub(crate) String);

impl From<LiveError> for ApiError {
    fn from(e: LiveError) -> Self {
        let status = match e {
            LiveError::Invalid(_) | LiveError::Policy(_) => StatusCode::BAD_REQUEST,
            LiveError::Cluster(_) | LiveError::Command { .. } => StatusCode::BAD_GATEWAY,
            LiveError::PolicyNode(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError(status, e.to_string())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> Self {
        ApiError(http::rejection_status(&e), e.body_text())
    }
}

/// A refusal of the HTTP edge (token, limits) as the service's error answer.
fn refused(status: StatusCode, error: String) -> Response {
    ApiError(status, error).into_response()
}

/// The error text of a refused call, carried on its response for [`log_refusal`].
#[derive(Clone)]
struct Refusal(String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.0, Json(json!({ "error": self.1 }))).into_response();
        response.extensions_mut().insert(Refusal(self.1));
        response
    }
}

/// Logs and counts a refused call (every route's error goes through [`ApiError`], and so do
/// the HTTP edge's refusals).
async fn log_refusal(
    State((log, refusals)): State<(Logger, Family<StatusLabel, Counter>)>,
    response: Response,
) -> Response {
    if let Some(Refusal(error)) = response.extensions().get::<Refusal>() {
        count_refusal(&log, &refusals, response.status(), error);
    }
    response
}

/// Counts a refusal by its status and logs it.
fn count_refusal(
    log: &Logger,
    refusals: &Family<StatusLabel, Counter>,
    status: StatusCode,
    error: &str,
) {
    let status = status.as_u16();
    refusals.get_or_create(&StatusLabel { status }).inc();
    log.log("refused", json!({ "status": status, "error": error }));
}

/// `request_nodes` body.
#[derive(Debug, Deserialize, Serialize)]
pub struct RequestBody {
    /// Nodes wanted.
    pub nodes: u32,
    /// How long to wait at most, seconds; the policy caps it at its own `W` (default: `W`).
    pub wait_s: Option<i64>,
}

/// `request_nodes` answer.
#[derive(Debug, Deserialize, Serialize, PartialEq)]
pub struct RequestAnswer {
    /// The request's id.
    pub request: u64,
    /// Whether it got its nodes.
    pub granted: bool,
    /// The nodes (empty when refused).
    pub nodes: Vec<String>,
    /// Seconds from the call to the answer.
    pub waited_s: f64,
}

async fn request_nodes<C, P>(
    State(state): State<AppState<C, P>>,
    body: Result<Json<RequestBody>, JsonRejection>,
) -> Result<Json<RequestAnswer>, ApiError>
where
    C: LiveCluster + Send + 'static,
    P: ServicePolicy,
{
    let Json(body) = body?;
    let started = std::time::Instant::now();
    let rx = {
        let mut s = state.lock().await;
        let request = s
            .engine
            .request(wall_clock(), body.nodes, body.wait_s.map(Duration))?;
        s.log.log(
            "request",
            json!({ "request": request, "nodes": body.nodes, "wait_s": body.wait_s }),
        );
        let (tx, rx) = oneshot::channel();
        s.waiters.insert(request, tx);
        deliver(&mut s);
        rx
    };
    let answer = rx.await.map_err(|_| {
        ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the service stopped before answering".into(),
        )
    })?;
    Ok(Json(answer_body(answer, started)))
}

fn answer_body(answer: Answer, started: std::time::Instant) -> RequestAnswer {
    let waited_s = started.elapsed().as_secs_f64();
    match answer {
        Answer::Granted { request, nodes } => RequestAnswer {
            request,
            granted: true,
            nodes,
            waited_s,
        },
        Answer::Rejected { request } => RequestAnswer {
            request,
            granted: false,
            nodes: Vec::new(),
            waited_s,
        },
    }
}

/// `release_nodes` body.
#[derive(Debug, Deserialize, Serialize)]
pub struct ReleaseBody {
    /// The nodes' hostnames.
    pub nodes: Vec<String>,
}

async fn release_nodes<C, P>(
    State(state): State<AppState<C, P>>,
    body: Result<Json<ReleaseBody>, JsonRejection>,
) -> Result<Json<serde_json::Value>, ApiError>
where
    C: LiveCluster + Send + 'static,
    P: ServicePolicy,
{
    let Json(body) = body?;
    let mut s = state.lock().await;
    s.engine.release(wall_clock(), &body.nodes)?;
    s.log.log("release", json!({ "nodes": body.nodes }));
    deliver(&mut s);
    Ok(Json(json!({ "released": body.nodes })))
}

/// `add_reserve` body.
#[derive(Debug, Deserialize, Serialize)]
pub struct ReserveBody {
    /// `H`, seconds from now.
    pub in_s: i64,
    /// `N`.
    pub nodes: u32,
}

async fn add_reserve<C, P>(
    State(state): State<AppState<C, P>>,
    body: Result<Json<ReserveBody>, JsonRejection>,
) -> Result<Json<serde_json::Value>, ApiError>
where
    C: LiveCluster + Send + 'static,
    P: ServicePolicy,
{
    let Json(body) = body?;
    if body.in_s < 0 {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "in_s must be >= 0".into(),
        ));
    }
    let mut s = state.lock().await;
    let now = wall_clock();
    s.engine
        .add_reserve(now, now.saturating_add(Duration(body.in_s)), body.nodes)?;
    s.log.log(
        "add_reserve",
        json!({ "in_s": body.in_s, "nodes": body.nodes }),
    );
    deliver(&mut s);
    Ok(Json(json!({})))
}

/// `job_ended` body.
#[derive(Debug, Deserialize, Serialize)]
pub struct JobEndedBody {
    /// The job's nodes, as a Slurm host list (`n[1-2]`).
    pub nodes: String,
}

async fn job_ended<C, P>(
    State(state): State<AppState<C, P>>,
    body: Result<Json<JobEndedBody>, JsonRejection>,
) -> Result<Json<serde_json::Value>, ApiError>
where
    C: LiveCluster + Send + 'static,
    P: ServicePolicy,
{
    let Json(body) = body?;
    let names = hostlist::expand(&body.nodes)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, e.to_string()))?;
    let mut s = state.lock().await;
    s.log
        .log("job_end", json!({ "nodes": names, "via": "notify" }));
    s.counters.job_end_notice("notify");
    s.engine.job_ended(wall_clock(), &names)?;
    deliver(&mut s);
    Ok(Json(json!({})))
}

async fn nodes<C, P>(State(state): State<AppState<C, P>>) -> Json<Vec<NodeView>>
where
    C: LiveCluster + Send + 'static,
    P: ServicePolicy,
{
    Json(state.lock().await.engine.view())
}

async fn metrics<C, P>(State(state): State<AppState<C, P>>) -> Response
where
    C: LiveCluster + Send + 'static,
    P: ServicePolicy,
{
    let s = state.lock().await;
    s.counters.refresh(&s.engine);
    s.metrics.response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Saving `balancer.json` neither touches a `balancer.tmp` of the operator's nor leaves a
    /// temporary file behind.
    #[test]
    fn saving_the_state_replaces_only_the_state_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("balancer.json");
        let theirs = dir.path().join("balancer.tmp");
        std::fs::write(&theirs, "the operator's").unwrap();
        let state = Persisted {
            policy: 7_u32,
            names: vec!["n1".into()],
            records: Vec::new(),
            allocations: BTreeMap::new(),
            waiting: Default::default(),
            held: Vec::new(),
            next_request: 3,
        };
        save(&path, &state).unwrap();
        save(&path, &state).unwrap();
        let back: Persisted<u32> =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back, state);
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "the operator's");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
