//! `cosched slurm schedule`: any policy of the batch catalogue as a Slurm cluster's scheduler.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration as StdDuration;

use clap::{Args, Subcommand};
use cosched_batch::catalogue::PolicySpec;
use cosched_batch::{BatchJob, BatchPolicy, BatchSim, SimError, admit};
use cosched_core::{Duration, JobId, JobRecord, Time};
use cosched_live::{
    BatchExecutor, BatchLiveError, Journal, Paced, ScaledClock, SlurmBatch, run_paced,
};
use cosched_slurm::{JobEndLog, Slurm, SlurmError};
use thiserror::Error;

use crate::input::{self, InputError};
use crate::output::{self, Clash, OutputError, Outputs, Plan};

/// `cosched slurm …`.
#[derive(Args)]
pub struct SlurmArgs {
    #[command(subcommand)]
    command: SlurmCommand,
}

#[derive(Subcommand)]
enum SlurmCommand {
    /// Schedule a Slurm cluster with a batch policy of the catalogue.
    #[command(after_help = SCHEDULE_HELP)]
    Schedule(ScheduleArgs),
    /// Run scavenged tasks in a preemptible partition over the batch nodes, as many and where
    /// the site's scavenging policy decides (harvest every idle node, or RHIC's sizing).
    #[command(after_help = crate::slurm_scavenge::AFTER_HELP)]
    Scavenge(crate::slurm_scavenge::ScavengeArgs),
    /// Run a hybrid mechanism of Fan et al. (or its baseline) on the cluster: on-demand jobs
    /// and their notices arrive through its service and start at once by requeueing rigid
    /// jobs and shrinking malleable ones.
    #[command(after_help = crate::slurm_hybrid::AFTER_HELP)]
    Hybrid(crate::slurm_hybrid::HybridArgs),
}

const SCHEDULE_HELP: &str = "\
Every job is held in Slurm (sbatch --hold: Slurm's own scheduler never starts it); the policy
sees the cluster exactly as `cosched simulate` shows it and starts a job by pinning it to the
nodes it chose (scontrol update JobId=… ReqNodeList=…) and releasing it. Job ends come from
the controller's epilog log.

Jobs come from one of two sources:
  --workload FILE   the command submits the trace's jobs (SWF or Batsim JSON) held, each at
                    its submit time divided by --scale, as `sleep RUNTIME/SCALE`; the
                    schedule it prints sets the simulator's start and end of each job beside
                    the live ones.
  --queued          the command adopts the jobs already queued held in Slurm (sbatch --hold),
                    with their node count and time limit (the estimate); it runs until
                    interrupted, or with --until-idle until nothing is held or running.

With --state FILE every instant is saved before its starts reach Slurm; a restarted command
with the same --state resumes where it stopped: no job starts twice and none is lost.

Examples:
  cargo xtask slurm up --nodes 8 && . target/slurm/env
  cosched slurm schedule --policy easy --workload small.swf --scale 10 \\
      --job-end-log target/slurm/log/job-ends.log --state sched.json
  cosched slurm schedule --policy sjf+conservative --queued --until-idle \\
      --job-end-log target/slurm/log/job-ends.log";

/// `cosched slurm schedule`.
#[derive(Args)]
struct ScheduleArgs {
    /// The policy, a catalogue name as `cosched simulate --policy` takes (`easy`,
    /// `sjf+conservative`, `wfp3+easy@exact`, …).
    #[arg(long)]
    policy: String,
    /// Submit this trace's jobs (SWF or Batsim JSON), time-scaled by --scale.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "queued",
        required_unless_present = "queued"
    )]
    workload: Option<PathBuf>,
    /// Adopt the jobs already queued held in Slurm instead.
    #[arg(long)]
    queued: bool,
    /// With --queued: stop once nothing is held, queued or running.
    #[arg(long, requires = "queued")]
    until_idle: bool,
    /// With --queued: the estimate of a held job without a time limit, in wall seconds.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(i64).range(1..))]
    default_estimate_s: i64,
    /// Workload seconds per wall-clock second.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=3600))]
    scale: u32,
    /// The cluster's slurm.conf (default: Slurm's own lookup, which honours `$SLURM_CONF`).
    #[arg(long, value_name = "PATH")]
    slurm_conf: Option<PathBuf>,
    /// The job-end log the controller's epilog appends to (as `cargo xtask slurm up` sets up).
    #[arg(long, value_name = "FILE")]
    job_end_log: PathBuf,
    /// The partition jobs are submitted to (and adopted from); default: Slurm's default.
    #[arg(long)]
    partition: Option<String>,
    /// Where the journal is saved after every instant, and resumed from if it exists.
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// The name of each submitted job: this prefix, then its trace id.
    #[arg(long, default_value = "cosched-")]
    prefix: String,
    /// How often Slurm is polled, in milliseconds.
    #[arg(long, default_value_t = 250, value_parser = clap::value_parser!(u64).range(50..=60_000))]
    poll_ms: u64,
    /// Write the schedule CSV here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Why `cosched slurm …` failed.
#[derive(Debug, Error)]
pub enum SlurmCmdError {
    /// The policy name is not in the catalogue.
    #[error("--policy: {0}")]
    Policy(String),
    /// The workload could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The workload's estimates could not be applied, or a job is malformed.
    #[error("the workload: {0}")]
    Workload(String),
    /// Slurm did not answer.
    #[error(transparent)]
    Slurm(#[from] SlurmError),
    /// The executor stopped.
    #[error(transparent)]
    Live(#[from] BatchLiveError),
    /// The state file could not be read.
    #[error("`{path}` is not a saved schedule: {reason}")]
    State {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The schedule could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An output would overwrite an input.
    #[error(transparent)]
    Clash(#[from] Clash),
    /// `cosched slurm scavenge` failed.
    #[error(transparent)]
    Scavenge(#[from] crate::slurm_scavenge::ScavengeCmdError),
    /// `cosched slurm hybrid` failed.
    #[error(transparent)]
    Hybrid(#[from] crate::slurm_hybrid::HybridCmdError),
}

/// Runs `cosched slurm …`.
pub fn run(args: &SlurmArgs) -> Result<(), SlurmCmdError> {
    match &args.command {
        SlurmCommand::Schedule(a) => schedule(a),
        SlurmCommand::Scavenge(a) => Ok(crate::slurm_scavenge::run(a)?),
        SlurmCommand::Hybrid(a) => Ok(crate::slurm_hybrid::run(a)?),
    }
}

fn schedule(args: &ScheduleArgs) -> Result<(), SlurmCmdError> {
    let spec: PolicySpec = args
        .policy
        .parse()
        .map_err(|e: cosched_batch::catalogue::PolicyError| SlurmCmdError::Policy(e.to_string()))?;
    let slurm = args
        .slurm_conf
        .as_ref()
        .map_or_else(Slurm::system, Slurm::with_config);
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
    slurm.ping()?;
    let jobs = match &args.workload {
        Some(path) => {
            let read = input::read(path)?;
            spec.estimates
                .apply(&read.jobs)
                .map_err(|e| SlurmCmdError::Workload(e.to_string()))?
                .into_owned()
        }
        None => Vec::new(),
    };
    let (workload, _invalid) = admit(&jobs).map_err(|e| SlurmCmdError::Workload(e.to_string()))?;
    let platform = SlurmBatch::new(
        slurm.clone(),
        JobEndLog::at_end(&args.job_end_log),
        args.scale,
        args.partition.clone(),
    );
    let saved = match &args.state {
        Some(path) if path.exists() => Some(read_state(path)?),
        _ => None,
    };
    let start = workload.first().map_or(Time::ZERO, |j| j.submit);
    let (mut exec, clock) = match saved {
        Some(journal) => {
            let clock = journal
                .clock
                .unwrap_or_else(|| ScaledClock::starting_now(start, args.scale));
            eprintln!("resuming from {} instants saved", journal.instants.len());
            let exec = BatchExecutor::resume(journal, spec.build(), platform, args.state.clone())?;
            (exec, clock)
        }
        None => {
            let clock = ScaledClock::starting_now(start, args.scale);
            let mut exec = BatchExecutor::start(
                start,
                spec.build(),
                platform,
                &args.prefix,
                args.state.clone(),
            )?;
            exec.set_clock(clock)?;
            (exec, clock)
        }
    };
    let poll = StdDuration::from_millis(args.poll_ms);
    // `--default-estimate-s` is in wall seconds, as a time limit is.
    let default_estimate = Duration(
        args.default_estimate_s
            .saturating_mul(i64::from(args.scale)),
    );
    let adopt = |now: Time, exec: &mut BatchExecutor<_, SlurmBatch>| {
        if !args.queued {
            return Ok(false);
        }
        let held = exec
            .platform()
            .held_jobs(now, default_estimate, |id| exec.knows(id))
            .map_err(platform_error)?;
        let found = !held.is_empty();
        for (job, id) in held {
            exec.adopt(job, id)?;
        }
        Ok(found || !args.until_idle)
    };
    let outcome = run_paced(&mut exec, &workload, clock, poll, adopt, |_, _| false)?;
    debug_assert_eq!(outcome, Paced::Done);
    let simulated = if args.workload.is_some() {
        Some(simulate(&spec, &jobs, exec.cluster().capacity())?)
    } else {
        None
    };
    // Where Slurm itself started and ended each job (whole wall seconds), for comparing.
    let observed: Vec<(String, Option<Time>, Option<Time>)> = slurm
        .job_details()?
        .into_iter()
        .map(|j| {
            let at = |unix: i64| (unix > 0).then(|| clock.at(unix.saturating_mul(1000)));
            (j.id.to_string(), at(j.start_unix), at(j.end_unix))
        })
        .collect();
    let csv = schedule_csv(&exec, &workload, simulated.as_deref(), &observed);
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

fn platform_error(e: SlurmError) -> BatchLiveError {
    BatchLiveError::Platform(Box::new(e))
}

fn read_state(path: &std::path::Path) -> Result<Journal, SlurmCmdError> {
    let bad = |reason: String| SlurmCmdError::State {
        path: path.to_owned(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))
}

/// BatchSim's schedule of the same jobs on as many units as the cluster has nodes.
fn simulate(
    spec: &PolicySpec,
    jobs: &[cosched_core::RigidJob],
    nodes: u32,
) -> Result<Vec<JobRecord>, SlurmCmdError> {
    let mut policy = spec.build();
    BatchSim::new(nodes)
        .and_then(|sim| {
            sim.run(&mut policy, jobs)
                .map_err(|e: SimError<_>| cosched_batch::BatchError::from(e))
        })
        .map(|out| out.records)
        .map_err(|e| SlurmCmdError::Workload(e.to_string()))
}

/// `job,slurm_id,size,submit,start,end,slurm_start,slurm_end[,sim_start,sim_end]`, one row
/// per job in (submit, id) order: `start` is when the policy started it and `end` the job's own
/// end as the platform logged it (ms), `slurm_*` what Slurm recorded (whole wall seconds, scaled),
/// `sim_*` the simulator's; times in workload seconds, empty where a job has none.
fn schedule_csv<P: BatchPolicy>(
    exec: &BatchExecutor<P, SlurmBatch>,
    workload: &[BatchJob],
    simulated: Option<&[JobRecord]>,
    observed: &[(String, Option<Time>, Option<Time>)],
) -> String {
    let t = |t: Option<Time>| t.map_or(String::new(), |t| t.secs().to_string());
    let mut csv = String::from("job,slurm_id,size,submit,start,end,slurm_start,slurm_end");
    if simulated.is_some() {
        csv.push_str(",sim_start,sim_end");
    }
    csv.push('\n');
    let mut records: Vec<&JobRecord> = exec.records().iter().collect();
    records.sort_by_key(|r| (r.submit, r.id));
    let ids: Vec<JobId> = if workload.is_empty() {
        records.iter().map(|r| r.id).collect()
    } else {
        workload.iter().map(|j| j.id).collect()
    };
    for id in ids {
        let live = records.iter().find(|r| r.id == id);
        let slurm_id = exec.platform_id(id).unwrap_or("");
        let seen = observed.iter().find(|o| o.0 == slurm_id);
        let _ = write!(
            csv,
            "{},{},{},{},{},{},{},{}",
            id.0,
            slurm_id,
            live.map_or(String::new(), |r| r.size.to_string()),
            t(live.map(|r| r.submit)),
            t(live.and_then(|r| r.start)),
            t(live.and_then(|r| r.end)),
            t(seen.and_then(|o| o.1)),
            t(seen.and_then(|o| o.2)),
        );
        if let Some(sim) = simulated {
            let s = sim.iter().find(|r| r.id == id);
            let _ = write!(
                csv,
                ",{},{}",
                t(s.and_then(|r| r.start)),
                t(s.and_then(|r| r.end))
            );
        }
        csv.push('\n');
    }
    csv
}
