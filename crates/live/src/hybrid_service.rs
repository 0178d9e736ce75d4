//! The hybrid executor as an operator runs it (Fan et al., IPDPS 2022): an HTTP/JSON service
//! through which on-demand jobs arrive and their advance notices (CUA, CUP) come ahead of
//! them, in front of a [`HybridExecutor`] that runs the batch workload on the platform.
//!
//! | call | body | answer |
//! |---|---|---|
//! | `POST /notice` | `{"nodes": N, "arrives_in_s": S}` | `{"job", "at", "estimated_arrival"}`: the id the job is to arrive under |
//! | `POST /ondemand` | `{"nodes": N, "duration_s": D, "estimate_s": E, "notice": id, "wait_s": W}` (`estimate_s` defaults to `D`; `notice` and `wait_s` are optional) | `{"job", "arrival", "status", "started", "reason"}`, once the job runs on the platform or `W` wall seconds have passed |
//! | `GET /ondemand/{id}` | | the same answer, now |
//! | `GET /metrics` | | the state and counters in Prometheus's text format (below) |
//!
//! A notice is the paper's (§III-B: "Mechanisms"): the job's size and the arrival it
//! announces, given when it is posted; the policy's notice strategy decides what to set aside
//! (N nothing, CUA the idle nodes and those freed until the arrival, CUP also planned
//! preemptions before it; [`cosched_hybrid::notice`]). The arrival names its notice, so the
//! job arrives with it (a notice whose job never comes is released by the policy after its
//! grace). Times are the run's (workload) seconds on the service's [`HybridClock`]: a notice
//! or an arrival is at the clock's second when it is posted (after the executor's last step).
//! The answer to an arrival says where and when the job started (`started`: the instant, the
//! wall time and the platform's nodes), or why it waits (`status`: holding some of its
//! nodes, queued as a batch job, rejected as larger than the system; `reason` in words).
//!
//! The executor runs on a thread of its own (it owns the policy and makes the platform's
//! blocking calls); calls reach it in order through a channel, so notices and arrivals are
//! decided one at a time, exactly as [`cosched_hybrid::HybridSim`] decides the workload with
//! them added (the API's jobs numbered above the workload's). Between calls it steps every
//! [`HybridServiceConfig::poll`]. With a state file the executor journals (see
//! [`HybridExecutor::with_state_file`]) and a restarted service resumes from it. Token,
//! limits and logging are the other services' ([`crate::http`], [`crate::service::Logger`]).
//!
//! `GET /metrics`, under `cosched_hybrid_`: the counters `notices`, `on_demand_arrivals`,
//! `on_demand_starts`, `preemptions`, `shrinks`, `expansions`, `rejections` (on-demand jobs
//! larger than the system), `refusals{status}` and `step_errors` (each `…_total`); the gauges
//! `queue_depth` (batch jobs queued and on-demand jobs waiting) and `running_jobs`; the
//! histogram `on_demand_start_seconds` (arrival to the platform's start, wall); and the HTTP
//! calls (`cosched_http_…`).

use std::collections::{BTreeMap, HashMap};
use std::error::Error as StdError;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use axum::Json;
use axum::Router;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use cosched_core::{Duration, JobId, OnDemandJob, Time};
use cosched_hybrid::notice::Notice;
use cosched_hybrid::sim::{Action, OnDemandStatus};
use cosched_hybrid::{HybridConfig, HybridJob, HybridOutcome, HybridWorkloadPolicy};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::oneshot;

use crate::batch::ScaledClock;
use crate::http::{self, BearerToken, Limits};
use crate::hybrid::{
    HybridExecutor, HybridJournal, HybridLiveError, HybridPlatform, OnDemandStart,
};
use crate::metrics::{Counter, Family, Gauge, Histogram, HttpMetrics, Metrics, latency_buckets};
use crate::service::{ApiError, Logger, ServiceError, StatusLabel, bind, edge, exposed};

/// The run's clock: the wall clock time-scaled, or one the caller sets (tests, replays).
#[derive(Debug, Clone)]
pub enum HybridClock {
    /// Workload second `t` is wall time `origin + t / scale`.
    Scaled(ScaledClock),
    /// The second the caller last set ([`HybridClock::set`]).
    Manual(Arc<AtomicI64>),
}

impl HybridClock {
    /// A manual clock at `t`.
    pub fn manual(t: Time) -> HybridClock {
        HybridClock::Manual(Arc::new(AtomicI64::new(t.0)))
    }

    /// Sets a manual clock to `t` (a scaled clock is left alone).
    pub fn set(&self, t: Time) {
        if let HybridClock::Manual(at) = self {
            at.store(t.0, Ordering::SeqCst);
        }
    }

    /// The run's second now.
    pub fn now(&self) -> Time {
        match self {
            HybridClock::Scaled(clock) => clock.now(),
            HybridClock::Manual(at) => Time(at.load(Ordering::SeqCst)),
        }
    }

    fn scaled(&self) -> Option<ScaledClock> {
        match self {
            HybridClock::Scaled(clock) => Some(*clock),
            HybridClock::Manual(_) => None,
        }
    }
}

/// How the service runs (the policy, configuration, workload and platform are passed beside
/// it). The default: a step every 100 ms, no state file, events on stderr, no token
/// (loopback only), the default [`Limits`].
#[derive(Debug, Clone)]
pub struct HybridServiceConfig {
    /// How often the executor steps between calls.
    pub poll: std::time::Duration,
    /// Where the executor's journal is saved, and resumed from when it exists.
    pub state_file: Option<PathBuf>,
    /// Where the service's events go.
    pub log: Logger,
    /// The token every call must present; required beyond loopback.
    pub token: Option<BearerToken>,
    /// Bounds on bodies, headers, connections and slow callers.
    pub limits: Limits,
    /// Whether the executor stops once every job completed (the workload's and the API's),
    /// rather than waiting for more calls.
    pub stop_when_done: bool,
}

impl Default for HybridServiceConfig {
    fn default() -> Self {
        HybridServiceConfig {
            poll: std::time::Duration::from_millis(100),
            state_file: None,
            log: Logger::default(),
            token: None,
            limits: Limits::default(),
            stop_when_done: false,
        }
    }
}

/// `POST /notice`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct NoticeBody {
    /// Nodes the job will need.
    pub nodes: u32,
    /// Seconds from now to the arrival announced.
    pub arrives_in_s: i64,
}

/// The answer to a notice.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NoticeAnswer {
    /// The id the job is to arrive under (`"notice"` of its arrival).
    pub job: JobId,
    /// When the notice was given.
    pub at: Time,
    /// The arrival it announces.
    pub estimated_arrival: Time,
}

/// `POST /ondemand`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct OnDemandBody {
    /// Nodes it needs.
    pub nodes: u32,
    /// How long it runs, seconds.
    pub duration_s: i64,
    /// Its runtime estimate, seconds (default: the duration).
    #[serde(default)]
    pub estimate_s: Option<i64>,
    /// The id its notice was given under, if any.
    #[serde(default)]
    pub notice: Option<JobId>,
    /// How long (wall seconds) the call may wait for the job to run on the platform before
    /// it answers (default 0: once the policy decided).
    #[serde(default)]
    pub wait_s: f64,
}

/// The answer about an on-demand job.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct OnDemandAnswer {
    /// Its id.
    pub job: JobId,
    /// When it arrived.
    pub arrival: Time,
    /// Where it is in the environment.
    pub status: OnDemandStatus,
    /// Where and when it started on the platform, if it did.
    pub started: Option<OnDemandStart>,
    /// Why it waits, in words (none once started).
    pub reason: Option<String>,
}

impl OnDemandAnswer {
    /// Whether a caller waiting for a start has its answer.
    fn is_final(&self) -> bool {
        self.started.is_some()
            || matches!(
                self.status,
                OnDemandStatus::Rejected | OnDemandStatus::Completed { .. }
            )
    }
}

/// Why a job waits, in words.
fn reason(status: &OnDemandStatus, started: bool) -> Option<String> {
    Some(match status {
        _ if started => return None,
        OnDemandStatus::Announced => "announced, not arrived yet".into(),
        OnDemandStatus::Rejected => "larger than the system".into(),
        OnDemandStatus::Waiting { held, size } => format!(
            "holds {held} of its {size} nodes: the others run jobs the mechanism may not \
             preempt or shrink, or are reserved for earlier notices"
        ),
        OnDemandStatus::QueuedAsBatch => {
            "queued as a batch job: the policy runs on-demand jobs through the batch scheduler"
                .into()
        }
        OnDemandStatus::Running { .. } => {
            "decided: waiting for the platform to free its nodes".into()
        }
        OnDemandStatus::Completed { .. } => return None,
    })
}

/// A call to the executor's thread.
enum Call {
    Notice(NoticeBody, oneshot::Sender<Result<NoticeAnswer, ApiError>>),
    Arrive(
        OnDemandBody,
        oneshot::Sender<Result<OnDemandAnswer, ApiError>>,
    ),
    Status(JobId, oneshot::Sender<Result<OnDemandAnswer, ApiError>>),
}

/// The hybrid section of the metrics (listed in the [module docs](self)).
#[derive(Debug, Clone)]
struct HybridMetrics {
    notices: Counter,
    arrivals: Counter,
    od_starts: Counter,
    preemptions: Counter,
    shrinks: Counter,
    expansions: Counter,
    rejections: Counter,
    refusals: Family<StatusLabel, Counter>,
    step_errors: Counter,
    queue_depth: Gauge,
    running: Gauge,
    start_latency: Histogram,
}

impl HybridMetrics {
    fn register(metrics: &mut Metrics) -> HybridMetrics {
        let m = HybridMetrics {
            notices: Counter::default(),
            arrivals: Counter::default(),
            od_starts: Counter::default(),
            preemptions: Counter::default(),
            shrinks: Counter::default(),
            expansions: Counter::default(),
            rejections: Counter::default(),
            refusals: Family::default(),
            step_errors: Counter::default(),
            queue_depth: Gauge::default(),
            running: Gauge::default(),
            start_latency: Histogram::new(latency_buckets()),
        };
        let s = metrics.section("hybrid");
        s.register("notices", "Advance notices given", m.notices.clone());
        s.register(
            "on_demand_arrivals",
            "On-demand jobs arrived",
            m.arrivals.clone(),
        );
        s.register(
            "on_demand_starts",
            "On-demand jobs started on the platform",
            m.od_starts.clone(),
        );
        s.register(
            "preemptions",
            "Running jobs requeued",
            m.preemptions.clone(),
        );
        s.register("shrinks", "Malleable jobs shrunk", m.shrinks.clone());
        s.register(
            "expansions",
            "Malleable jobs expanded",
            m.expansions.clone(),
        );
        s.register(
            "rejections",
            "On-demand jobs larger than the system",
            m.rejections.clone(),
        );
        s.register("refusals", "Calls refused, by status", m.refusals.clone());
        s.register(
            "step_errors",
            "Steps the platform failed",
            m.step_errors.clone(),
        );
        s.register(
            "queue_depth",
            "Batch jobs queued and on-demand jobs waiting",
            m.queue_depth.clone(),
        );
        s.register("running_jobs", "Jobs running", m.running.clone());
        s.register(
            "on_demand_start_seconds",
            "Wall seconds from an on-demand job's arrival to its start on the platform",
            m.start_latency.clone(),
        );
        m
    }
}

/// A running service's handle: its routes, and the executor's thread.
pub struct HybridService {
    calls: mpsc::Sender<Call>,
    executor: std::thread::JoinHandle<Result<HybridOutcome, String>>,
    stopped: Arc<tokio::sync::Notify>,
    metrics: Arc<Metrics>,
    http: HttpMetrics,
    refusals: Family<StatusLabel, Counter>,
    log: Logger,
    token: Option<BearerToken>,
    limits: Limits,
}

#[derive(Clone)]
struct AppState {
    calls: mpsc::Sender<Call>,
    metrics: Arc<Metrics>,
}

/// What the executor's thread runs on.
pub struct HybridRun<P, C> {
    /// The environment's configuration (its node count the platform's).
    pub config: HybridConfig,
    /// The policy.
    pub policy: P,
    /// The batch workload (and any on-demand jobs known ahead), run from its submit times.
    pub jobs: Vec<HybridJob>,
    /// The platform.
    pub platform: C,
    /// The platform names of submitted jobs: `prefix<job id>`.
    pub prefix: String,
    /// The run's clock.
    pub clock: HybridClock,
}

impl HybridService {
    /// Starts the executor of `run` on its own thread (resuming from the state file if it
    /// exists), ready to serve.
    pub fn start<P, C>(
        config: HybridServiceConfig,
        run: HybridRun<P, C>,
    ) -> Result<Self, ServiceError>
    where
        P: HybridWorkloadPolicy + Send + 'static,
        P::Error: StdError + Send + Sync + 'static,
        C: HybridPlatform + Send + 'static,
    {
        let resume = match &config.state_file {
            Some(path) if path.exists() => {
                let text =
                    std::fs::read_to_string(path).map_err(|source| ServiceError::ReadState {
                        path: path.clone(),
                        source,
                    })?;
                Some(
                    serde_json::from_str::<HybridJournal>(&text).map_err(|source| {
                        ServiceError::StateFormat {
                            path: path.clone(),
                            source,
                        }
                    })?,
                )
            }
            _ => None,
        };
        let mut metrics = Metrics::new();
        let http = HttpMetrics::register(&mut metrics);
        let counters = HybridMetrics::register(&mut metrics);
        let refusals = counters.refusals.clone();
        let (calls, inbox) = mpsc::channel();
        let (ready_tx, ready) = mpsc::channel();
        let log = config.log.clone();
        let thread_config = config.clone();
        let stopped = Arc::new(tokio::sync::Notify::new());
        let notify = stopped.clone();
        let executor = std::thread::Builder::new()
            .name("hybrid-executor".into())
            .spawn(move || {
                let result = executor_thread(thread_config, run, resume, inbox, counters, ready_tx);
                notify.notify_one();
                result
            })
            .map_err(|source| ServiceError::Serve {
                addr: "the executor's thread".into(),
                source,
            })?;
        match ready.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(ServiceError::Executor(e)),
            Err(_) => {
                let e = match executor.join() {
                    Ok(Err(e)) => e,
                    _ => "the executor's thread stopped".into(),
                };
                return Err(ServiceError::Executor(e));
            }
        }
        Ok(HybridService {
            calls,
            executor,
            stopped,
            metrics: Arc::new(metrics),
            http,
            refusals,
            log,
            token: config.token,
            limits: config.limits,
        })
    }

    /// The HTTP routes, behind the token (if any) and the body limits, every call counted.
    pub fn router(&self) -> Router {
        let state = AppState {
            calls: self.calls.clone(),
            metrics: self.metrics.clone(),
        };
        let routes = Router::new()
            .route("/notice", post(notice))
            .route("/ondemand", post(ondemand))
            .route("/ondemand/{id}", get(status))
            .route("/metrics", get(metrics))
            .with_state(state);
        edge(
            routes,
            self.token.clone(),
            &self.limits,
            &self.log,
            &self.refusals,
            &self.http,
        )
    }

    /// Serves on `listener` until `shutdown` resolves or the executor stops (with
    /// [`HybridServiceConfig::stop_when_done`], once the run completed), refusing a listener
    /// beyond loopback without a token; then stops the executor and returns its run as the
    /// simulator reports one.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<HybridOutcome, ServiceError> {
        let addr = exposed(&listener, self.token.as_ref())?;
        let router = self.router();
        let stopped = self.stopped.clone();
        let shutdown = async move {
            tokio::select! {
                () = shutdown => {}
                () = stopped.notified() => {}
            }
        };
        let served = http::serve(listener, router, &self.limits, shutdown).await;
        served.map_err(|source| ServiceError::Serve {
            addr: addr.to_string(),
            source,
        })?;
        self.stop()
    }

    /// Binds `addr` and serves until the process is interrupted or, with
    /// [`HybridServiceConfig::stop_when_done`], the run completed.
    pub async fn run(self, addr: SocketAddr) -> Result<HybridOutcome, ServiceError> {
        let listener = bind(addr, self.token.as_ref(), &self.log).await?;
        self.serve(listener, http::interrupted()).await
    }

    /// Stops the executor and returns its run.
    pub fn stop(self) -> Result<HybridOutcome, ServiceError> {
        drop(self.calls);
        match self.executor.join() {
            Ok(result) => result.map_err(ServiceError::Executor),
            Err(_) => Err(ServiceError::Executor(
                "the executor's thread panicked".into(),
            )),
        }
    }
}

/// Where the executor's thread keeps a caller waiting for its job's start.
struct Waiter {
    job: JobId,
    until: Instant,
    reply: oneshot::Sender<Result<OnDemandAnswer, ApiError>>,
}

fn bad(e: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, e.to_string())
}

fn executor_thread<P, C>(
    config: HybridServiceConfig,
    run: HybridRun<P, C>,
    resume: Option<HybridJournal>,
    inbox: mpsc::Receiver<Call>,
    counters: HybridMetrics,
    ready: mpsc::Sender<Result<(), String>>,
) -> Result<HybridOutcome, String>
where
    P: HybridWorkloadPolicy,
    P::Error: StdError + Send + Sync + 'static,
    C: HybridPlatform,
{
    let HybridRun {
        config: hybrid,
        mut policy,
        jobs,
        platform,
        prefix,
        clock,
    } = run;
    let mut next_id = jobs.iter().map(|j| j.id().0).max().unwrap_or(0) + 1;
    let resumed = resume.is_some();
    let started =
        match resume {
            Some(journal) => HybridExecutor::resume(
                journal,
                hybrid,
                &mut policy,
                &jobs,
                platform,
                config.state_file.clone(),
            ),
            None => HybridExecutor::new(hybrid, &mut policy, &jobs, platform, &prefix).and_then(
                |exec| match &config.state_file {
                    Some(path) => exec.with_state_file(path.clone(), clock.scaled()),
                    None => Ok(exec.with_clock(clock.scaled())),
                },
            ),
        };
    let mut exec = match started {
        Ok(exec) => exec,
        Err(e) => {
            let _ = ready.send(Err(e.to_string()));
            return Err(e.to_string());
        }
    };
    // The API's jobs and notices so far (a resumed run's from its journal).
    let mut notices: HashMap<JobId, Notice> = HashMap::new();
    let mut arrivals: BTreeMap<JobId, Time> = BTreeMap::new();
    for event in &exec.journal().events {
        match event {
            crate::hybrid::HybridEvent::Notice { notice } => {
                notices.insert(notice.job, *notice);
                next_id = next_id.max(notice.job.0 + 1);
            }
            crate::hybrid::HybridEvent::Arrive { job } => {
                arrivals.insert(job.id, job.arrival);
                next_id = next_id.max(job.id.0 + 1);
            }
            _ => {}
        }
    }
    config
        .log
        .log("start", json!({ "resumed": resumed, "jobs": jobs.len() }));
    let _ = ready.send(Ok(()));
    let mut waiters: Vec<Waiter> = Vec::new();
    let mut seen_applied = 0;
    let mut sizes: HashMap<JobId, usize> = HashMap::new();
    let mut arrival_wall: HashMap<JobId, Instant> = HashMap::new();
    let answer = |exec: &HybridExecutor<'_, P, C>, job: JobId, arrival: Time| {
        let status = exec.on_demand(job)?;
        let started = exec.on_demand_start(job).cloned();
        let reason = reason(&status, started.is_some());
        Some(OnDemandAnswer {
            job,
            arrival,
            status,
            started,
            reason,
        })
    };
    let outcome = loop {
        let call = inbox.recv_timeout(config.poll);
        let now = clock.now().max(exec.last_step().unwrap_or(Time(i64::MIN)));
        let result = match call {
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ok(()),
            Err(mpsc::RecvTimeoutError::Timeout) => exec.step(now),
            Ok(Call::Status(job, reply)) => {
                let found = arrivals
                    .get(&job)
                    .and_then(|&at| answer(&exec, job, at))
                    .ok_or_else(|| {
                        ApiError(StatusCode::NOT_FOUND, format!("no on-demand job {job}"))
                    });
                let _ = reply.send(found);
                exec.step(now)
            }
            Ok(Call::Notice(body, reply)) => {
                let at = now.max(exec.earliest_event());
                let notice = match body.arrives_in_s {
                    s if s < 0 => Err(bad("arrives_in_s must be >= 0")),
                    s => at
                        .try_add(Duration(s))
                        .map_err(bad)
                        .map(|estimated_arrival| Notice {
                            job: JobId(next_id),
                            size: body.nodes,
                            at,
                            estimated_arrival,
                        }),
                };
                match notice.and_then(|n| exec.notice(n).map(|()| n).map_err(bad)) {
                    Ok(notice) => {
                        next_id += 1;
                        notices.insert(notice.job, notice);
                        counters.notices.inc();
                        config.log.log("notice", json!(notice));
                        let _ = reply.send(Ok(NoticeAnswer {
                            job: notice.job,
                            at: notice.at,
                            estimated_arrival: notice.estimated_arrival,
                        }));
                        exec.step(at)
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                        Ok(())
                    }
                }
            }
            Ok(Call::Arrive(body, reply)) => {
                let at = now.max(exec.earliest_event());
                let job = on_demand_job(&body, at, next_id, &notices, &arrivals);
                match job.and_then(|job| exec.arrive(job).map(|()| job).map_err(bad)) {
                    Ok(job) => {
                        if body.notice.is_none() {
                            next_id += 1;
                        }
                        arrivals.insert(job.id, at);
                        arrival_wall.insert(job.id, Instant::now());
                        counters.arrivals.inc();
                        if job.size > exec.node_count() {
                            counters.rejections.inc();
                        }
                        config.log.log("arrival", json!(job));
                        let stepped = exec.step(at);
                        let wait = std::time::Duration::try_from_secs_f64(body.wait_s.max(0.0))
                            .unwrap_or(std::time::Duration::ZERO);
                        waiters.push(Waiter {
                            job: job.id,
                            until: Instant::now() + wait,
                            reply,
                        });
                        stepped
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                        Ok(())
                    }
                }
            }
        };
        if let Err(e) = result {
            counters.step_errors.inc();
            config
                .log
                .log("step_error", json!({ "error": e.to_string() }));
            if !matches!(e, HybridLiveError::Platform(_)) {
                break Err(e.to_string());
            }
        }
        // Counters from what the executor carried out since.
        for applied in &exec.applied()[seen_applied..] {
            match &applied.action {
                Action::Start { job, nodes, .. } => {
                    sizes.insert(*job, nodes.len());
                }
                Action::StartOnDemand { job, .. } => {
                    counters.od_starts.inc();
                    if let Some(t) = arrival_wall.remove(job) {
                        counters.start_latency.observe(t.elapsed().as_secs_f64());
                    }
                    config.log.log(
                        "on_demand_start",
                        json!({ "job": job, "at": applied.applied }),
                    );
                }
                Action::Preempt { job } => {
                    counters.preemptions.inc();
                    config
                        .log
                        .log("preempt", json!({ "job": job, "at": applied.applied }));
                }
                Action::Resize { job, nodes, .. } => {
                    let before = sizes.insert(*job, nodes.len()).unwrap_or(nodes.len());
                    if nodes.len() < before {
                        counters.shrinks.inc();
                    } else if nodes.len() > before {
                        counters.expansions.inc();
                    }
                    config.log.log(
                        "resize",
                        json!({ "job": job, "nodes": nodes.len(), "at": applied.applied }),
                    );
                }
            }
        }
        seen_applied = exec.applied().len();
        counters
            .queue_depth
            .set(i64::try_from(exec.queue_depth()).unwrap_or(i64::MAX));
        counters
            .running
            .set(i64::try_from(exec.running_jobs()).unwrap_or(i64::MAX));
        // Answer the callers whose job started, or whose wait is over.
        let (due, still): (Vec<Waiter>, Vec<Waiter>) =
            std::mem::take(&mut waiters).into_iter().partition(|w| {
                Instant::now() >= w.until
                    || answer(&exec, w.job, Time::ZERO).is_none_or(|a| a.is_final())
            });
        waiters = still;
        for w in due {
            let at = arrivals.get(&w.job).copied().unwrap_or(Time::ZERO);
            let reply = answer(&exec, w.job, at).ok_or_else(|| {
                ApiError(StatusCode::NOT_FOUND, format!("no on-demand job {}", w.job))
            });
            let _ = w.reply.send(reply);
        }
        if config.stop_when_done && exec.is_done() {
            break Ok(());
        }
    };
    drop(inbox);
    outcome.map(|()| exec.finish())
}

/// The on-demand job of an arrival at `at`: under its notice's id (with the notice), or
/// `fresh`.
fn on_demand_job(
    body: &OnDemandBody,
    at: Time,
    fresh: u64,
    notices: &HashMap<JobId, Notice>,
    arrivals: &BTreeMap<JobId, Time>,
) -> Result<OnDemandJob, ApiError> {
    let estimate = Duration(body.estimate_s.unwrap_or(body.duration_s));
    let id = body.notice.unwrap_or(JobId(fresh));
    let job =
        OnDemandJob::new(id, body.nodes, Duration(body.duration_s), estimate, at).map_err(bad)?;
    match body.notice {
        None => Ok(job),
        Some(id) => {
            if arrivals.contains_key(&id) {
                return Err(bad(format!("the job of notice {id} has arrived already")));
            }
            let notice = notices
                .get(&id)
                .ok_or_else(|| bad(format!("no notice {id}")))?;
            if notice.size != body.nodes {
                return Err(bad(format!(
                    "notice {id} announced {} nodes, the arrival asks {}",
                    notice.size, body.nodes
                )));
            }
            job.with_notice(notice.at, notice.estimated_arrival)
                .map_err(bad)
        }
    }
}

async fn call<T>(
    calls: &mpsc::Sender<Call>,
    make: impl FnOnce(oneshot::Sender<Result<T, ApiError>>) -> Call,
) -> Result<T, ApiError> {
    let (tx, rx) = oneshot::channel();
    let stopped = || {
        ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "the executor has stopped".into(),
        )
    };
    calls.send(make(tx)).map_err(|_| stopped())?;
    rx.await.map_err(|_| stopped())?
}

async fn notice(
    State(state): State<AppState>,
    body: Result<Json<NoticeBody>, JsonRejection>,
) -> Result<Json<NoticeAnswer>, ApiError> {
    let Json(body) = body?;
    call(&state.calls, |tx| Call::Notice(body, tx))
        .await
        .map(Json)
}

async fn ondemand(
    State(state): State<AppState>,
    body: Result<Json<OnDemandBody>, JsonRejection>,
) -> Result<Json<OnDemandAnswer>, ApiError> {
    let Json(body) = body?;
    if !body.wait_s.is_finite() || body.wait_s < 0.0 {
        return Err(bad("wait_s must be a number >= 0"));
    }
    call(&state.calls, |tx| Call::Arrive(body, tx))
        .await
        .map(Json)
}

async fn status(
    State(state): State<AppState>,
    Path(id): Path<u64>,
) -> Result<Json<OnDemandAnswer>, ApiError> {
    call(&state.calls, |tx| Call::Status(JobId(id), tx))
        .await
        .map(Json)
}

async fn metrics(State(state): State<AppState>) -> Response {
    state.metrics.response().into_response()
}
