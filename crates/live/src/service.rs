//! The Balancer as an HTTP/JSON service, the paper's API (Liu et al., SC18, §II-D) on axum.
//!
//! | call | body | answer |
//! |---|---|---|
//! | `POST /request_nodes` | `{"nodes": N, "wait_s": W}` (`wait_s` defaults to the Balancer's W) | when granted or refused, at most W later: `{"request", "granted", "nodes", "waited_s"}` |
//! | `POST /release_nodes` | `{"nodes": ["n3", …]}` | `{"released": [...]}` |
//! | `POST /add_reserve` | `{"in_s": H, "nodes": N}` | `{}` |
//! | `POST /job_ended` | `{"nodes": "n[1-2]"}` (a Slurm host list; what an epilog sends) | `{}` |
//! | `GET /nodes` | | every node: Balancer state, allocation, availability |
//!
//! Invalid input (bad JSON, a negative W, more nodes than exist, a node not allocated) is a
//! `400` with `{"error": "…"}` and changes nothing. Every call goes through one lock, so
//! concurrent requests reach the policy one at a time. After every change the state is written
//! (atomically) to the state file, from which a restarted service resumes without granting a
//! node twice. A background task polls the cluster every second (job starts and ends, nodes
//! drained or downed by an administrator), reads the epilog's job-end log when one is given,
//! and ticks the policy. Each event (start, request, answer, release, job end, refusal,
//! failure) goes to the configuration's [`Logger`]: one JSON line on stderr by default.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cosched_balancer::policy::BalancerPolicy;
use cosched_core::{Duration, Time};
use cosched_slurm::{JobEndLog, hostlist};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::{Mutex, oneshot};

use crate::engine::{Answer, Engine, LiveCluster, LiveError, NodeView, Persisted};

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
}

/// How the service runs (the policy is passed beside it: any policy of the Balancer's
/// protocol). The default: no state file, no job-end log, a poll every second, events on
/// stderr.
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
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            state_file: None,
            job_end_log: None,
            poll: std::time::Duration::from_secs(1),
            log: Logger::default(),
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

    /// Logs `event` with `fields` at the wall clock's time.
    pub fn log(&self, event: &str, fields: serde_json::Value) {
        (self.0)(&LogEvent {
            t: wall_clock(),
            event: event.to_owned(),
            fields,
        });
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
        let shared = Shared {
            engine,
            waiters: BTreeMap::new(),
            state_file: config.state_file,
            job_ends: config.job_end_log.map(JobEndLog::at_end),
            log: log.clone(),
        };
        let state = Arc::new(Mutex::new(shared));
        Ok(Service {
            state,
            poll: config.poll,
            log,
        })
    }

    /// The HTTP routes.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/request_nodes", post(request_nodes::<C, P>))
            .route("/release_nodes", post(release_nodes::<C, P>))
            .route("/add_reserve", post(add_reserve::<C, P>))
            .route("/job_ended", post(job_ended::<C, P>))
            .route("/nodes", get(nodes::<C, P>))
            .layer(axum::middleware::map_response_with_state(
                self.log.clone(),
                log_refusal,
            ))
            .with_state(self.state.clone())
    }

    /// Serves on `listener` until `shutdown` resolves, polling the cluster meanwhile.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
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
                    s.log.log("poll_error", json!({ "error": e.to_string() }));
                }
                deliver(&mut s);
            }
        });
        let router = self.router();
        let served = axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await;
        poller.abort();
        served
    }

    /// Binds `addr` and serves until the process is interrupted.
    pub async fn run(self, addr: SocketAddr) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        self.log.log(
            "listening",
            json!({ "addr": listener.local_addr()?.to_string() }),
        );
        self.serve(listener, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    }
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
struct ApiError(StatusCode, String);

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
        ApiError(StatusCode::BAD_REQUEST, e.body_text())
    }
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

/// Logs a refused call (every route's error goes through [`ApiError`]).
async fn log_refusal(State(log): State<Logger>, response: Response) -> Response {
    if let Some(Refusal(error)) = response.extensions().get::<Refusal>() {
        log.log(
            "refused",
            json!({ "status": response.status().as_u16(), "error": error }),
        );
    }
    response
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
