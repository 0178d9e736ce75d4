//! `cosched albatross decide`: the Albatross policy (`cosched_albatross::policy`) run once
//! against a live pool, from what HTCondor's tools print — the operator's path, runnable from
//! cron after each negotiation cycle:
//!
//! ```text
//! condor_status -long > status.txt; condor_q -allusers -long > queue.txt
//! cosched albatross decide --status status.txt --queue queue.txt --state albatross.json --capital 0.5
//! ```
//!
//! It prints the policy's commands, one per line (`start INSTANCE count=N lifetime=Ss` and
//! `stop MACHINE`), after `#` comment lines describing what it saw, and then, only once the
//! output has been delivered, writes the state the next call needs (`--state`; created on the
//! first call): a call whose output could not be written leaves the state as it was. What the
//! policy observes and how the pool is read is `cosched-htcondor`'s (its crate docs); the
//! state file holds that driver's state and the stall timer (the policy's only memory), so
//! successive calls behave as one long-running policy would.

use crate::output::{Clash, Plan};
use clap::{Args, Subcommand};
use cosched_albatross::policy::{Albatross, AlbatrossConfig, Capital, STALL_THRESHOLD};
use cosched_core::{Duration, ParamError, Time};
use cosched_htcondor::{
    self as htcondor, DriverConfig, HtcondorError, Saved, Snapshot, check_duration, check_time,
};
use cosched_live::service::wall_clock;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use thiserror::Error;

/// Arguments of `cosched albatross`.
#[derive(Args)]
pub struct AlbatrossArgs {
    #[command(subcommand)]
    command: AlbatrossCommand,
}

#[derive(Subcommand)]
enum AlbatrossCommand {
    /// Run the Albatross policy once on a pool's condor_status / condor_q output; print its
    /// decisions and write the state for the next call.
    #[command(
        after_help = "Output: `#` lines describe what was seen; then one decision per line:\n  \
        start INSTANCE_TYPE count=N lifetime=SECONDSs   start N cloud nodes that stay SECONDS after joining\n  \
        stop MACHINE                                 stop this idle cloud node\n\
        Cloud nodes are the machines whose slots advertise AnnexName or IsCloud = true.\n\
        Run it after each negotiation cycle, e.g. from cron:\n  \
        condor_status -long > status.txt; condor_q -allusers -long > queue.txt\n  \
        cosched albatross decide --status status.txt --queue queue.txt --state albatross.json --capital 0.5"
    )]
    Decide(DecideArgs),
}

#[derive(Args)]
struct DecideArgs {
    /// `condor_status -long` (or `-json`) output: the pool's slots.
    #[arg(long, value_name = "FILE")]
    status: PathBuf,
    /// `condor_q -long` (or `-json`) output: the queued jobs.
    #[arg(long, value_name = "FILE")]
    queue: PathBuf,
    /// The policy's state between calls (JSON; created if missing, rewritten on success).
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// The capital c in [0, 1]: how much cloud capacity Albatross may buy.
    #[arg(long, value_name = "C")]
    capital: f64,
    /// The current time, seconds since the Unix epoch [default: the system clock].
    #[arg(long, value_name = "SECONDS")]
    now: Option<i64>,
    /// How long the matchmaker may go without a dispatch while jobs wait, seconds [default:
    /// the library's `STALL_THRESHOLD`].
    #[arg(long, value_name = "SECONDS", default_value_t = STALL_THRESHOLD.secs())]
    stall_threshold: i64,
    /// How long a requested node may take to join the pool before it is forgotten, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 900)]
    boot_timeout: i64,
}

/// What can go wrong in `cosched albatross decide`.
#[derive(Debug, Error)]
pub enum AlbatrossError {
    /// Reading the pool or the state, or the policy's call.
    #[error(transparent)]
    Pool(#[from] HtcondorError),
    /// A parameter of the policy out of range.
    #[error("{0}")]
    Param(#[from] ParamError),
    /// The state file is one of the pool's files.
    #[error(transparent)]
    Clash(#[from] Clash),
    /// The commands could not be delivered; the state file was left as it was.
    #[error("cannot write the commands to standard output: {0} (the state was not updated)")]
    Output(std::io::Error),
}

/// What the command keeps of the policy beside the driver's state: when the stall timer last
/// restarted.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
struct Timer {
    timer_start: Option<Time>,
}

/// Runs the command, writing its output to `out`; state is committed only once the output has
/// been written and flushed.
pub fn run(args: &AlbatrossArgs, out: &mut dyn Write) -> Result<(), AlbatrossError> {
    match &args.command {
        AlbatrossCommand::Decide(a) => {
            // The state is read and rewritten; the pool's files must not be it.
            Plan::default()
                .input("--status", &a.status)
                .input("--queue", &a.queue)
                .output("--state", &a.state)
                .check()?;
            let (text, state) = decide(a)?;
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(AlbatrossError::Output)?;
            Ok(state.write(&a.state)?)
        }
    }
}

/// One call of the policy: what to print, and the state to keep once it has been printed.
fn decide(args: &DecideArgs) -> Result<(String, Saved<Timer>), AlbatrossError> {
    let capital = Capital::new(args.capital)?;
    let now = args.now.map_or_else(wall_clock, Time);
    let stall_threshold = check_duration("--stall-threshold", Duration(args.stall_threshold))?;
    let boot_timeout = check_duration("--boot-timeout", Duration(args.boot_timeout))?;
    let config = AlbatrossConfig {
        stall_threshold,
        ..AlbatrossConfig::paper(capital)
    };
    let driver = DriverConfig::new(config.instance_types.clone(), boot_timeout)?;
    let pool = Snapshot::read(&args.status, &args.queue)?;
    let saved = Saved::<Timer>::read(&args.state)?;
    // The policy, with its timer where the previous call left it.
    let saved_timer = saved
        .policy
        .timer_start
        .map(|t| check_time("timer_start", t));
    let timer_start = saved_timer.transpose()?.unwrap_or(now).min(now);
    let mut policy = Albatross::new(config, timer_start)?;
    let decision = htcondor::decide(&mut policy, &saved.pool, &pool, &driver, now)?;
    let stalled = policy.stalled_for(now);
    let waited = if decision.dispatched > 0 || decision.waiting == 0 {
        0
    } else {
        now.checked_since(timer_start).map_or(0, |d| d.secs())
    };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "# now {}: {} slots, {} jobs ({} waiting), {} dispatched since the previous call",
        now.secs(),
        decision.slots,
        decision.jobs,
        decision.waiting,
        decision.dispatched
    );
    let _ = writeln!(
        out,
        "# cloud nodes: {} up, {} booting; no dispatch for {waited} s (stall threshold {} s); capital {}",
        decision.cloud_up, decision.booting, args.stall_threshold, args.capital
    );
    for action in &decision.actions {
        let _ = writeln!(out, "{action}");
    }
    let timer = Timer {
        timer_start: Some(Time(now.secs().saturating_sub(stalled.secs()))),
    };
    Ok((
        out,
        Saved {
            pool: decision.state,
            policy: timer,
        },
    ))
}
