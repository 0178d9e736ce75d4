//! `cosched slurm hybrid`: a hybrid mechanism (Fan et al., IPDPS 2022) or its baseline
//! running a Slurm cluster, on-demand jobs and their notices arriving through the service
//! (`cosched_live::hybrid_service`).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration as StdDuration;

use clap::Args;
use cosched_core::Time;
use cosched_hybrid::workload::assign_types;
use cosched_hybrid::{Composite, HybridConfig, HybridJob, HybridOutcome, scenario};
use cosched_live::http::{BearerToken, TokenError, check_exposure};
use cosched_live::{
    HybridClock, HybridJournal, HybridRun, HybridService, HybridServiceConfig, LogSink, Logger,
    ScaledClock, ServiceError, SlurmBatch,
};
use cosched_slurm::{JobEndLog, Slurm, SlurmError};
use thiserror::Error;

use crate::input::{self, InputError};
use crate::output::{self, Clash, OutputError, Outputs, Plan};

/// `cosched slurm hybrid --help`'s closing part.
pub const AFTER_HELP: &str = "\
The batch workload (a trace, SWF or Batsim JSON, typed into rigid, malleable and on-demand
jobs as the paper types its logs, §IV-B) is submitted held, each job at its submit time
divided by --scale; the mechanism decides, and the executor applies its decisions: a start
pins a job to its nodes and releases it, a preemption is scontrol requeuehold, a shrink
scontrol update NumNodes=k, an expansion a second allocation merged into the job
(--dependency=expand:). Jobs end at the deadlines the executor writes; their ends come from
the epilog's log, and each record ends at the time the epilog logged.

On-demand jobs also arrive through the service, their advance notices ahead of them:
  curl -H 'Content-Type: application/json' -d '{\"nodes\": 2, \"arrives_in_s\": 900}' \\
      127.0.0.1:8643/notice      -> {\"job\": 7, ...}
  curl -H 'Content-Type: application/json' \\
      -d '{\"nodes\": 2, \"duration_s\": 600, \"notice\": 7, \"wait_s\": 10}' 127.0.0.1:8643/ondemand
The answer says where and when the job started, or why it waits; GET /ondemand/ID says it
again, GET /metrics counts notices, starts, preemptions, shrinks and the queue.

With --state every notice, arrival and step is journaled before its decisions reach Slurm; a
restarted command with the same arguments resumes from it: no job starts twice, none is lost,
and a requeued run's end in the epilog's log is told from the job's own by Slurm's restart
count, whenever the command stopped.
With --until-done it stops once every job completed and prints each job's record as CSV.

Examples:
  cargo xtask slurm up --nodes 8 && . target/slurm/env
  cosched slurm hybrid --mechanism 'CUA&SPAA' --workload trace.swf --scale 60 \\
      --job-end-log target/slurm/log/job-ends.log --state hybrid.json";

/// `cosched slurm hybrid`.
#[derive(Args)]
pub struct HybridArgs {
    /// The mechanism: `baseline`, or a notice strategy and an on-arrival mechanism
    /// (`N&PAA`, `N&SPAA`, `CUA&PAA`, `CUA&SPAA`, `CUP&PAA`, `CUP&SPAA`).
    #[arg(long)]
    mechanism: String,
    /// The batch workload (SWF or Batsim JSON), typed by the paper's shares (§IV-B); without
    /// it, jobs come through the service only.
    #[arg(long, value_name = "FILE")]
    workload: Option<PathBuf>,
    /// The seed of the workload's typing.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Workload seconds per wall-clock second.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=3600))]
    scale: u32,
    /// The cluster's slurm.conf (default: Slurm's own lookup, which honours `$SLURM_CONF`).
    #[arg(long, value_name = "PATH")]
    slurm_conf: Option<PathBuf>,
    /// The job-end log the controller's epilog appends to (as `cargo xtask slurm up` sets up).
    #[arg(long, value_name = "FILE")]
    job_end_log: PathBuf,
    /// The partition jobs are submitted to; default: Slurm's default.
    #[arg(long)]
    partition: Option<String>,
    /// The directory of the jobs' deadline files (default: beside --state, else the
    /// system's temporary directory); every node must see it.
    #[arg(long, value_name = "DIR")]
    deadlines: Option<PathBuf>,
    /// Where the journal is saved, and resumed from if it exists.
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// The name of each submitted job: this prefix, then its id.
    #[arg(long, default_value = "cosched-hybrid-")]
    prefix: String,
    /// Address the service listens on; beyond loopback it needs a bearer token
    /// (`--token-file`, or `$COSCHED_TOKEN`).
    #[arg(long, default_value = "127.0.0.1:8643")]
    listen: SocketAddr,
    /// A file holding the bearer token every call must present.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Where the service's events go, one JSON line each: `stderr`, `none`, or a file.
    #[arg(long, value_name = "stderr|none|FILE", default_value = "stderr")]
    log: LogSink,
    /// How often the executor steps between calls, in milliseconds.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    poll_ms: u64,
    /// Stop once every job completed (else: run until interrupted).
    #[arg(long)]
    until_done: bool,
    /// Write the records CSV here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Why `cosched slurm hybrid` failed.
#[derive(Debug, Error)]
pub enum HybridCmdError {
    /// The mechanism is not one of the paper's.
    #[error(
        "--mechanism: `{0}` is not baseline or one of N&PAA, N&SPAA, CUA&PAA, CUA&SPAA, CUP&PAA, CUP&SPAA"
    )]
    Mechanism(String),
    /// The workload could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The workload could not be typed, or the configuration made.
    #[error("the workload: {0}")]
    Workload(String),
    /// Slurm did not answer.
    #[error(transparent)]
    Slurm(#[from] SlurmError),
    /// The service could not start, or stopped with an error.
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The token could not be had.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// The log or the deadlines' directory could not be opened.
    #[error("cannot open `{path}`: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The async runtime could not start.
    #[error("cannot start: {0}")]
    Runtime(#[source] std::io::Error),
    /// The records could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An output would overwrite an input.
    #[error(transparent)]
    Clash(#[from] Clash),
}

/// The mechanism named `name`: `None` for the baseline.
fn mechanism(name: &str) -> Result<Option<Composite>, HybridCmdError> {
    if name.eq_ignore_ascii_case("baseline") {
        return Ok(None);
    }
    Composite::ALL
        .into_iter()
        .find(|m| m.to_string().eq_ignore_ascii_case(name))
        .map(Some)
        .ok_or_else(|| HybridCmdError::Mechanism(name.to_owned()))
}

/// Runs `cosched slurm hybrid`.
pub fn run(args: &HybridArgs) -> Result<(), HybridCmdError> {
    let configuration = mechanism(&args.mechanism)?;
    if let Some(out) = &args.out {
        let mut plan = Plan::default();
        plan.input("--job-end-log", &args.job_end_log);
        if let Some(w) = &args.workload {
            plan.input("--workload", w);
        }
        if let Some(state) = &args.state {
            plan.output("--state", state);
        }
        plan.output("--out", out);
        plan.check()?;
    }
    let token = BearerToken::configured(args.token_file.as_deref())?;
    check_exposure(&args.listen, token.as_ref()).map_err(ServiceError::from)?;
    let open = |path: PathBuf| move |source| HybridCmdError::Open { path, source };
    let log = match &args.log {
        LogSink::File(path) => Logger::open(&args.log).map_err(open(path.clone()))?,
        sink => Logger::open(sink).map_err(open("stderr".into()))?,
    };
    let slurm = args
        .slurm_conf
        .as_ref()
        .map_or_else(Slurm::system, Slurm::with_config);
    slurm.ping()?;
    let nodes = u32::try_from(slurm.nodes()?.len()).unwrap_or(u32::MAX);
    let jobs: Vec<HybridJob> = match &args.workload {
        Some(path) => {
            let read = input::read(path)?;
            assign_types(&read.jobs, &scenario::type_params(true), args.seed)
                .map_err(|e| HybridCmdError::Workload(e.to_string()))?
        }
        None => Vec::new(),
    };
    let config = HybridConfig::new(nodes).map_err(|e| HybridCmdError::Workload(e.to_string()))?;
    let deadlines = match (&args.deadlines, &args.state) {
        (Some(dir), _) => dir.clone(),
        (None, Some(state)) => {
            let mut dir = state.clone().into_os_string();
            dir.push(".deadlines");
            PathBuf::from(dir)
        }
        (None, None) => std::env::temp_dir().join(format!("{}deadlines", args.prefix)),
    };
    std::fs::create_dir_all(&deadlines).map_err(open(deadlines.clone()))?;
    let platform = SlurmBatch::new(
        slurm,
        JobEndLog::at_end(&args.job_end_log),
        args.scale,
        args.partition.clone(),
    )
    .with_deadlines(deadlines);
    // A resumed run keeps its clock: the journal's instants stay where they were.
    let saved: Option<HybridJournal> = args
        .state
        .as_ref()
        .filter(|p| p.exists())
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let start = jobs
        .iter()
        .map(HybridJob::submit)
        .min()
        .unwrap_or(Time::ZERO);
    let clock = saved
        .and_then(|j| j.clock)
        .unwrap_or_else(|| ScaledClock::starting_now(start, args.scale));
    let service = HybridService::start(
        HybridServiceConfig {
            poll: StdDuration::from_millis(args.poll_ms),
            state_file: args.state.clone(),
            log,
            token,
            stop_when_done: args.until_done,
            ..HybridServiceConfig::default()
        },
        HybridRun {
            config,
            policy: scenario::policy(configuration),
            jobs,
            platform,
            prefix: args.prefix.clone(),
            clock: HybridClock::Scaled(clock),
        },
    )?;
    let runtime = tokio::runtime::Runtime::new().map_err(HybridCmdError::Runtime)?;
    let outcome = runtime.block_on(service.run(args.listen))?;
    let csv = records_csv(&outcome);
    match &args.out {
        Some(path) => {
            let mut outputs = Outputs::default();
            outputs.write(path, csv.as_bytes())?;
            outputs.commit()?;
        }
        None => output::stdout(&csv).map_err(|e| OutputError::new(std::path::Path::new("-"), e))?,
    }
    Ok(())
}

/// `job,class,size,submit,start,end,delivered_node_s,wasted_node_s,preemptions,shrinks`, one
/// row per job in id order, times in workload seconds (empty where a job has none); a job's
/// end is its run's end on the platform (the epilog's time).
fn records_csv(out: &HybridOutcome) -> String {
    let t = |t: Option<Time>| t.map_or(String::new(), |t| t.secs().to_string());
    let mut csv = String::from(
        "job,class,size,submit,start,end,delivered_node_s,wasted_node_s,preemptions,shrinks\n",
    );
    let mut records: Vec<_> = out.records.iter().collect();
    records.sort_by_key(|r| r.id);
    for r in records {
        let account = out.accounts.iter().find(|a| a.id == r.id);
        let _ = writeln!(
            csv,
            "{},{:?},{},{},{},{},{},{},{},{}",
            r.id.0,
            r.class,
            r.size,
            r.submit.secs(),
            t(r.start),
            t(r.end),
            account.map_or(0, |a| a.delivered),
            account.map_or(0, |a| a.wasted),
            account.map_or(0, |a| a.preemptions),
            account.map_or(0, |a| a.shrinks),
        );
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mechanism_and_the_baseline_are_named_as_the_paper_names_them() {
        assert_eq!(mechanism("baseline").unwrap(), None);
        for m in Composite::ALL {
            assert_eq!(mechanism(&m.to_string()).unwrap(), Some(m));
            assert_eq!(mechanism(&m.to_string().to_lowercase()).unwrap(), Some(m));
        }
        assert!(matches!(
            mechanism("CUA"),
            Err(HybridCmdError::Mechanism(_))
        ));
    }
}
