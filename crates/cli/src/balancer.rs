//! `cosched balancer serve|notify|weeks`: the Balancer policy as a live service in front of
//! Slurm, and the paper's choice of the challenging week (§III-A).

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration as StdDuration;

use clap::{Args, Subcommand};
use cosched_balancer::method::{MethodError, challenging_week};
use cosched_balancer::policy::{Balancer, BalancerConfig, DEFAULT_IDLE_HOLD, Strategy};
use cosched_balancer::synthetic::WEEK;
use cosched_balancer::traces;
use cosched_core::Duration;
use cosched_live::http::check_exposure;
use cosched_live::{
    BearerToken, Limits, LogSink, Logger, Service, ServiceConfig, ServiceError, SlurmOarm,
    TokenError,
};
use cosched_slurm::{Slurm, SlurmError};
use thiserror::Error;

/// `cosched balancer …`.
#[derive(Args)]
pub struct BalancerArgs {
    #[command(subcommand)]
    command: BalancerCommand,
}

#[derive(Subcommand)]
enum BalancerCommand {
    /// Serve the Balancer's HTTP/JSON API (request_nodes, release_nodes, add_reserve,
    /// job_ended, nodes) in front of a Slurm cluster.
    Serve(ServeArgs),
    /// Pick the "challenging" week of a set of weekly LCRC and APS files (§III-A): each week's
    /// batch node availability over 60-second periods and on-demand core-hours, and the pick.
    Weeks(WeeksArgs),
    /// Tell a running service that a job ended on some nodes (what a Slurm epilog runs:
    /// `cosched balancer notify --url http://127.0.0.1:8642 --nodes "$SLURM_JOB_NODELIST"`).
    Notify(NotifyArgs),
}

/// `cosched balancer serve`.
#[derive(Args)]
struct ServeArgs {
    /// Drive the Slurm cluster of the system (or of `--slurm-conf`); the only backend today.
    #[arg(long, required = true)]
    slurm: bool,
    /// The cluster's slurm.conf (default: Slurm's own lookup, which honours `$SLURM_CONF`).
    #[arg(long, value_name = "PATH")]
    slurm_conf: Option<PathBuf>,
    /// Address to listen on. Beyond loopback (`0.0.0.0` included) the service needs a bearer
    /// token (`--token-file`, or `$COSCHED_TOKEN`) and refuses to start without one.
    #[arg(long, default_value = "127.0.0.1:8642")]
    listen: SocketAddr,
    /// A file holding the bearer token every call must present (`Authorization: Bearer …`);
    /// at least 32 visible ASCII characters (`openssl rand -hex 32`). Without it the token is
    /// read from `$COSCHED_TOKEN`, if set.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Where the service's events go, one JSON line each: `stderr`, `none`, or a file to
    /// append to.
    #[arg(long, value_name = "stderr|none|FILE", default_value = "stderr")]
    log: LogSink,
    /// The largest request body accepted, bytes (a larger one is a 413).
    #[arg(long, default_value_t = Limits::default().max_body_bytes as u64,
          value_parser = clap::value_parser!(u64).range(1024..=64 << 20))]
    max_body_bytes: u64,
    /// The largest request line and headers accepted, bytes (larger ones are a 431).
    #[arg(long, default_value_t = Limits::default().max_header_bytes as u64,
          value_parser = clap::value_parser!(u64).range(1024..=1 << 20))]
    max_header_bytes: u64,
    /// Connections served at once; further ones wait until one closes.
    #[arg(long, default_value_t = Limits::default().max_connections as u64,
          value_parser = clap::value_parser!(u64).range(1..=65_536))]
    max_connections: u64,
    /// `R`: the static reserve, in nodes.
    #[arg(long, default_value_t = 0)]
    reserve: u32,
    /// `W`: how long a request may wait for nodes, in seconds (the paper's default, 0).
    #[arg(long, default_value_t = BalancerConfig::new(Strategy::Hinted).window.secs(),
          value_parser = clap::value_parser!(i64).range(0..))]
    window_s: i64,
    /// `I`: how long an unused on-demand node stays reserved before it goes back to batch, s.
    #[arg(long, default_value_t = DEFAULT_IDLE_HOLD.secs(),
          value_parser = clap::value_parser!(i64).range(0..))]
    idle_hold_s: i64,
    /// Where the state is saved after every change and read at start (resume after restart).
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// A job-end log written by the controller's epilog to follow (as `cargo xtask slurm up`
    /// sets up); without it job ends are seen by polling and `notify` calls.
    #[arg(long, value_name = "FILE")]
    job_end_log: Option<PathBuf>,
    /// How often Slurm is polled, in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(50..=60_000))]
    poll_ms: u64,
}

/// `cosched balancer notify`.
#[derive(Args)]
struct NotifyArgs {
    /// The service's base URL.
    #[arg(long, default_value = "http://127.0.0.1:8642")]
    url: String,
    /// The job's nodes, as a Slurm host list (`n[1-3]`).
    #[arg(long)]
    nodes: String,
    /// A file holding the service's bearer token (default: `$COSCHED_TOKEN`, if set).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
}

/// `cosched balancer weeks`.
#[derive(Args)]
struct WeeksArgs {
    /// LCRC weekly CSV files.
    #[arg(long, value_name = "FILE.csv", num_args = 1.., required = true)]
    lcrc: Vec<PathBuf>,
    /// APS weekly CSV files, one per LCRC file, in the same order.
    #[arg(long, value_name = "FILE.csv", num_args = 1.., required = true)]
    aps: Vec<PathBuf>,
    /// Nodes of the batch cluster.
    #[arg(long, default_value_t = 304, value_parser = clap::value_parser!(u32).range(1..))]
    batch_nodes: u32,
}

/// Why `cosched balancer …` failed.
#[derive(Debug, Error)]
pub enum BalancerCmdError {
    /// `--lcrc` and `--aps` lists differ in length.
    #[error("--aps needs one file per --lcrc file ({aps} vs {lcrc})")]
    UnpairedWeeks {
        /// `--aps` files.
        aps: usize,
        /// `--lcrc` files.
        lcrc: usize,
    },
    /// A trace could not be read.
    #[error(transparent)]
    Trace(#[from] traces::TraceError),
    /// The weeks could not be scored.
    #[error(transparent)]
    Method(#[from] MethodError),
    /// Standard output could not be written.
    #[error("cannot write the table to standard output: {0}")]
    Stdout(#[source] std::io::Error),
    /// Slurm did not answer.
    #[error(transparent)]
    Slurm(#[from] SlurmError),
    /// The service could not be set up, or stopped with an error.
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The async runtime could not start.
    #[error("cannot start: {0}")]
    Runtime(#[source] std::io::Error),
    /// The token could not be had.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// The log file could not be opened.
    #[error("cannot open the log `{path}`: {source}")]
    Log {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The service could not be reached.
    #[error("cannot reach {url}: {source}")]
    Unreachable {
        /// The URL.
        url: String,
        /// The client's error.
        source: Box<ureq::Error>,
    },
    /// The service refused the notice.
    #[error("{url} answered {status}: {body}")]
    Refused {
        /// The URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The answer's body, trimmed.
        body: String,
    },
}

/// Runs `cosched balancer …`.
pub fn run(args: &BalancerArgs) -> Result<(), BalancerCmdError> {
    match &args.command {
        BalancerCommand::Serve(a) => serve(a),
        BalancerCommand::Weeks(a) => weeks(a),
        BalancerCommand::Notify(a) => notify(a),
    }
}

/// Scores every week and prints the table (§III-A; the sum of the two normalised scores is
/// ours: the paper does not say how it weighs them).
fn weeks(args: &WeeksArgs) -> Result<(), BalancerCmdError> {
    if args.lcrc.len() != args.aps.len() {
        return Err(BalancerCmdError::UnpairedWeeks {
            aps: args.aps.len(),
            lcrc: args.lcrc.len(),
        });
    }
    let mut weeks = Vec::with_capacity(args.lcrc.len());
    for (lcrc, aps) in args.lcrc.iter().zip(&args.aps) {
        let name = traces::week_name(lcrc);
        weeks.push((
            name,
            traces::read_lcrc_records(lcrc)?,
            traces::read_aps(aps)?,
        ));
    }
    let (scores, pick) = challenging_week(&weeks, args.batch_nodes, WEEK.0)?;
    let mut table = String::from("week,batch_node_availability,od_core_hours,score,pick\n");
    for (i, s) in scores.iter().enumerate() {
        table.push_str(&format!(
            "{},{:.4},{:.1},{:.3},{}\n",
            s.week,
            s.batch_availability,
            s.on_demand_core_seconds / 3600.0,
            s.score,
            if pick == Some(i) { "*" } else { "" }
        ));
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(table.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(BalancerCmdError::Stdout)
}

fn serve(args: &ServeArgs) -> Result<(), BalancerCmdError> {
    let token = BearerToken::configured(args.token_file.as_deref())?;
    check_exposure(&args.listen, token.as_ref()).map_err(ServiceError::from)?;
    let log = Logger::open(&args.log).map_err(|source| BalancerCmdError::Log {
        path: match &args.log {
            LogSink::File(path) => path.clone(),
            _ => PathBuf::from("stderr"),
        },
        source,
    })?;
    let slurm = args
        .slurm_conf
        .clone()
        .map_or_else(Slurm::system, Slurm::with_config);
    slurm.ping()?;
    let policy = Balancer::new(
        BalancerConfig::new(Strategy::Basic {
            static_reserve: args.reserve,
        })
        .with_window(Duration(args.window_s))
        .with_idle_hold(Duration(args.idle_hold_s)),
    );
    let config = ServiceConfig {
        poll: StdDuration::from_millis(args.poll_ms),
        log,
        token,
        limits: Limits {
            // Within usize: clap bounds each to at most 64 MiB.
            max_body_bytes: usize::try_from(args.max_body_bytes).unwrap_or(usize::MAX),
            max_header_bytes: usize::try_from(args.max_header_bytes).unwrap_or(usize::MAX),
            max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
            ..Limits::default()
        },
        state_file: args.state.clone(),
        job_end_log: args.job_end_log.clone(),
    };
    let service = Service::new(config, policy, SlurmOarm::new(slurm))?;
    let runtime = tokio::runtime::Runtime::new().map_err(BalancerCmdError::Runtime)?;
    Ok(runtime.block_on(service.run(args.listen))?)
}

fn notify(args: &NotifyArgs) -> Result<(), BalancerCmdError> {
    let url = format!("{}/job_ended", args.url.trim_end_matches('/'));
    let body = serde_json::json!({ "nodes": args.nodes }).to_string();
    let secret = cosched_live::http::secret(args.token_file.as_deref())?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(StdDuration::from_secs(10)))
        .build()
        .into();
    let mut call = agent.post(&url).content_type("application/json");
    if let Some(secret) = &secret {
        call = call.header("Authorization", &format!("Bearer {secret}"));
    }
    let mut resp = call.send(body).map_err(|e| BalancerCmdError::Unreachable {
        url: url.clone(),
        source: Box::new(e),
    })?;
    if resp.status().is_success() {
        Ok(())
    } else {
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        Err(BalancerCmdError::Refused {
            status: resp.status().as_u16(),
            body: text.trim().to_owned(),
            url,
        })
    }
}
