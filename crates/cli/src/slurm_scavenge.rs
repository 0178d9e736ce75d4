//! `cosched slurm scavenge`: the site's scavenging role on a live Slurm
//! (`cosched_live::scavenge`).

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration as StdDuration, SystemTime, UNIX_EPOCH};

use clap::{Args, ValueEnum};
use cosched_albatross::policy::NoScaling;
use cosched_core::{Duration, Time};
use cosched_live::scavenge::{
    DEFAULT_PARTITION, ScavengeConfig, ScavengeError, ScavengeEvent, ScavengedTask, Scavenger,
    ScavengerState, SlurmPartition,
};
use cosched_site::{HarvestAll, HtcPool, RhicSizer, RhicSizing, ScavengingPolicy, SiteError};
use cosched_slurm::{Slurm, SlurmError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use thiserror::Error;

/// `cosched slurm scavenge --help`'s closing part.
pub const AFTER_HELP: &str = "\
Each negotiation cycle the pool's policy lends idle batch nodes; the oldest queued task runs on
each as a job of the scavenging partition pinned to it (sbatch -p PARTITION -w NODE). A batch
job that wants the node takes it back at once (Slurm's preempt/partition_prio, REQUEUE); the
task is counted as preempted and queued again, never lost. It prints one line per event and a
summary when every task has completed (or was abandoned after its failed attempts).

Examples:
  cargo xtask slurm up --nodes 8 && source target/slurm/env
  cosched slurm scavenge --pool harvest --tasks 16 --work-s 30 --cycle-s 5 --state scav.json
  cosched slurm scavenge --pool rhic --tasks 40 --work-s 600 --command './task.sh'";

/// How the pool is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PoolSizing {
    /// Every idle node while tasks wait (HTCondor's default).
    Harvest,
    /// RHIC's controller (Clay et al.) on the residual capacity, cost goal.
    Rhic,
}

/// `cosched slurm scavenge`.
#[derive(Args)]
pub struct ScavengeArgs {
    /// How the pool is sized.
    #[arg(long, value_enum)]
    pool: PoolSizing,
    /// Tasks to submit at start (none when resuming from `--state`).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    tasks: u32,
    /// Each task's work, in seconds (what the policy counts; `sleep` runs this long).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(i64).range(1..))]
    work_s: i64,
    /// The shell command each task runs (default: `sleep WORK_S`).
    #[arg(long)]
    command: Option<String>,
    /// The scavenging partition.
    #[arg(long, default_value = DEFAULT_PARTITION)]
    partition: String,
    /// The negotiation cycle, in seconds (HTCondor's default, 60).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(i64).range(1..=86_400))]
    cycle_s: i64,
    /// Failed attempts after which a task is abandoned.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    max_attempts: u32,
    /// How often Slurm is polled, in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(50..=60_000))]
    poll_ms: u64,
    /// Where the state is saved after every step and read at start (resume after a restart).
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// The cluster's slurm.conf (default: Slurm's own lookup, which honours `$SLURM_CONF`).
    #[arg(long, value_name = "PATH")]
    slurm_conf: Option<PathBuf>,
}

/// Why `cosched slurm scavenge` failed.
#[derive(Debug, Error)]
pub enum ScavengeCmdError {
    /// Slurm did not answer.
    #[error(transparent)]
    Slurm(#[from] SlurmError),
    /// The executor failed.
    #[error(transparent)]
    Scavenge(#[from] ScavengeError),
    /// The pool's policy could not be built.
    #[error(transparent)]
    Policy(#[from] SiteError),
    /// The state file could not be read or written.
    #[error("state file `{path}`: {message}")]
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Standard output could not be written.
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] std::io::Error),
}

/// Runs `cosched slurm scavenge`.
pub fn run(args: &ScavengeArgs) -> Result<(), ScavengeCmdError> {
    match args.pool {
        PoolSizing::Harvest => serve(args, HtcPool::new(HarvestAll, NoScaling)),
        PoolSizing::Rhic => {
            let sizing = RhicSizing {
                interval: Duration(args.cycle_s),
                ..RhicSizing::default()
            };
            serve(args, HtcPool::new(RhicSizer::new(sizing)?, NoScaling))
        }
    }
}

fn unix_now() -> Time {
    Time(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
    )
}

fn serve<P>(args: &ScavengeArgs, policy: P) -> Result<(), ScavengeCmdError>
where
    P: ScavengingPolicy + Clone + Serialize + DeserializeOwned,
{
    let slurm = args
        .slurm_conf
        .clone()
        .map_or_else(Slurm::system, Slurm::with_config);
    slurm.ping()?;
    let cluster = SlurmPartition::with_partition(slurm, args.partition.clone());
    let config = ScavengeConfig {
        cycle: Duration(args.cycle_s),
        max_attempts: args.max_attempts,
    };
    let state_error = |path: &PathBuf, e: &dyn std::fmt::Display| ScavengeCmdError::State {
        path: path.clone(),
        message: e.to_string(),
    };
    let saved = match &args.state {
        Some(path) if path.exists() => {
            let text = std::fs::read_to_string(path).map_err(|e| state_error(path, &e))?;
            let saved: ScavengerState<P> = serde_json::from_str(&text)
                .map_err(|e| state_error(path, &format!("{e} (saved under another --pool?)")))?;
            Some(saved)
        }
        _ => None,
    };
    let start = unix_now();
    let mut exec = match saved {
        Some(saved) => Scavenger::resume(start, saved, cluster, config)?,
        None => {
            let mut exec = Scavenger::start(start, policy, cluster, config)?;
            let task = ScavengedTask {
                work: Duration(args.work_s),
                command: args.command.clone(),
            };
            for _ in 0..args.tasks {
                exec.submit(start, task.clone())?;
            }
            exec
        }
    };
    let mut out = std::io::stdout().lock();
    loop {
        let now = unix_now();
        exec.step(now)?;
        if let Some(path) = &args.state {
            exec.save(path).map_err(|e| state_error(path, &e))?;
        }
        for e in exec.take_events() {
            writeln!(out, "{}", event_line(&e)).map_err(ScavengeCmdError::Stdout)?;
        }
        if exec.is_done() {
            break;
        }
        std::thread::sleep(StdDuration::from_millis(args.poll_ms));
    }
    let c = exec.counters();
    let share = if c.idle_node_s > 0 {
        100.0 * c.harvested_node_s as f64 / c.idle_node_s as f64
    } else {
        0.0
    };
    writeln!(
        out,
        "tasks: {} submitted, {} completed, {} abandoned; {} jobs started, {} preempted, {} recalled, {} failed; \
         {} s of work lost; harvested {} of {} idle node-s ({share:.1} %)",
        c.submitted,
        c.completed,
        c.abandoned,
        c.launches,
        c.preempted,
        c.recalled,
        c.failed_attempts,
        c.lost_work_s,
        c.harvested_node_s,
        c.idle_node_s,
    )
    .and_then(|()| out.flush())
    .map_err(ScavengeCmdError::Stdout)
}

fn event_line(e: &ScavengeEvent) -> String {
    match e {
        ScavengeEvent::Launched {
            task,
            job,
            node,
            at,
        } => format!("{} launched task {task} as job {job} on {node}", at.0),
        ScavengeEvent::Completed { task, at } => format!("{} completed task {task}", at.0),
        ScavengeEvent::Evicted {
            task,
            node,
            cause,
            at,
        } => format!("{} evicted task {task} from {node} ({cause:?})", at.0),
    }
}
