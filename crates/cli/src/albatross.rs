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
//! first call): a call whose output could not be written leaves the state as it was. Starting and stopping instances is
//! left to the operator's script (e.g. `condor_annex`), which must make the nodes' startds
//! advertise `AnnexName` (as `condor_annex` does) or `IsCloud = true`.
//!
//! What the policy observes, and where it comes from:
//! - **waiting jobs**: the idle jobs (`JobStatus == 1`) in the queue output, in its order;
//! - **dispatched**: jobs whose `JobCurrentStartDate` is later than the previous call (every
//!   start, claim reuse included, sets it), plus jobs that were idle at the previous call and
//!   have left the queue since (they ran and finished in between). The negotiator's
//!   `LastNegotiationCycleMatches` would miss starts on reused claims;
//! - **cloud nodes**: machines with a slot advertising `AnnexName` or `IsCloud = true`; a
//!   node is busy if any of its slots is `Claimed`, else idle since the latest
//!   `EnteredCurrentState` of its slots; nodes this command asked for that have not joined
//!   yet are booting (until `--boot-timeout`).
//!
//! The stall timer (the policy's only memory) is kept in the state file, so successive calls
//! behave as one long-running policy would.

use clap::{Args, Subcommand};
use cosched_albatross::classad::read::{self, ReadError};
use cosched_albatross::classad::{ClassAd, Value};
use cosched_albatross::policy::{
    Albatross, AlbatrossConfig, Capital, CloudNodeState, CloudNodeView, Command, Observation,
    STALL_THRESHOLD,
};
use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId, Time};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
    /// An input file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// condor_status / condor_q output that does not parse.
    #[error("{path}: {source}")]
    Ads {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: Box<ReadError>,
    },
    /// A state file that is not this command's JSON.
    #[error("{path}: not an albatross state file: {message}")]
    State {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A parameter out of range.
    #[error("{0}")]
    Param(String),
    /// Every node id has been given: ids never wrap, so two machines never share one.
    #[error(
        "{path}: every cloud node id up to {last} has been given; remove old nodes from the state file"
    )]
    IdsExhausted {
        /// The state file.
        path: PathBuf,
        /// The last id.
        last: u32,
    },
    /// The commands could not be delivered; the state file was left as it was.
    #[error("cannot write the commands to standard output: {0} (the state was not updated)")]
    Output(std::io::Error),
}

/// Times accepted from flags, ads and the state file: within ±10^11 s of the epoch (about
/// ±3000 years), so that no difference of two of them overflows.
const TIME_LIMIT: i64 = 100_000_000_000;

/// Node ids from here to `u32::MAX` name the nodes requested and not yet seen (counted down
/// from `u32::MAX`, at most [`MAX_BOOTING`] of them); machines get ids below it.
const BOOTING_IDS_FROM: u32 = u32::MAX - MAX_BOOTING as u32 + 1;

/// The most requested-but-unseen nodes the policy is shown (more have timed out in practice).
const MAX_BOOTING: usize = 1 << 16;

/// A cloud machine the command has seen.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct NodeRecord {
    /// Its node id for the policy.
    id: u32,
    /// The instance type it was requested as (empty if it joined without a request).
    instance: String,
}

/// The state kept between calls (missing fields take their defaults).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
struct State {
    /// When the previous call ran.
    last_call: Option<i64>,
    /// When the stall timer last restarted.
    timer_start: Option<i64>,
    /// Jobs (`cluster.proc`) idle at the previous call.
    idle_jobs: BTreeSet<String>,
    /// The cloud machines seen, by `Machine` name.
    nodes: BTreeMap<String, NodeRecord>,
    /// Nodes requested and not yet seen: (instance type name, request time).
    booting: Vec<(String, i64)>,
    /// The next node id to give.
    next_node: u32,
}

fn io_error(path: &Path, e: &std::io::Error) -> AlbatrossError {
    AlbatrossError::Io {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn read_ads(path: &Path) -> Result<Vec<ClassAd>, AlbatrossError> {
    let file = std::fs::File::open(path).map_err(|e| io_error(path, &e))?;
    read::read_ads(std::io::BufReader::new(file)).map_err(|source| AlbatrossError::Ads {
        path: path.to_owned(),
        source: Box::new(source),
    })
}

fn read_state(path: &Path) -> Result<State, AlbatrossError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
        Err(e) => return Err(io_error(path, &e)),
    };
    let state: State = serde_json::from_str(&text).map_err(|e| AlbatrossError::State {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let times = state
        .last_call
        .iter()
        .chain(&state.timer_start)
        .chain(state.booting.iter().map(|(_, t)| t));
    for t in times {
        if t.unsigned_abs() > TIME_LIMIT.unsigned_abs() {
            return Err(AlbatrossError::State {
                path: path.to_owned(),
                message: format!("time {t} is out of range"),
            });
        }
    }
    Ok(state)
}

/// Writes the state through a temporary file, so a crash never leaves half a file.
fn write_state(path: &Path, state: &State) -> Result<(), AlbatrossError> {
    let text = serde_json::to_string_pretty(state).map_err(|e| AlbatrossError::State {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text + "\n").map_err(|e| io_error(&tmp, &e))?;
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, &e))
}

fn int_attr(ad: &ClassAd, name: &str) -> Option<i64> {
    ad.eval_attr(name, None).as_int()
}

fn str_attr(ad: &ClassAd, name: &str) -> Option<String> {
    ad.eval_attr(name, None).as_str().map(str::to_owned)
}

/// A job's `cluster.proc`.
fn job_id(job: &ClassAd) -> String {
    let part = |name| int_attr(job, name).map_or_else(|| "?".to_owned(), |i| i.to_string());
    format!("{}.{}", part("ClusterId"), part("ProcId"))
}

/// Whether a slot belongs to a cloud node Albatross manages.
fn is_cloud_slot(slot: &ClassAd) -> bool {
    !matches!(slot.eval_attr("AnnexName", None), Value::Undefined)
        || slot.eval_attr("IsCloud", None) == Value::Bool(true)
}

fn check_time(what: &str, t: i64) -> Result<i64, AlbatrossError> {
    if t.unsigned_abs() > TIME_LIMIT.unsigned_abs() {
        return Err(AlbatrossError::Param(format!(
            "{what} {t} is out of range (|t| <= {TIME_LIMIT})"
        )));
    }
    Ok(t)
}

/// Runs the command, writing its output to `out`; state is committed only once the output has
/// been written and flushed.
pub fn run(args: &AlbatrossArgs, out: &mut dyn Write) -> Result<(), AlbatrossError> {
    match &args.command {
        AlbatrossCommand::Decide(a) => {
            let (text, state) = decide(a)?;
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(AlbatrossError::Output)?;
            write_state(&a.state, &state)
        }
    }
}

/// One call of the policy: what to print, and the state to keep once it has been printed.
fn decide(args: &DecideArgs) -> Result<(String, State), AlbatrossError> {
    let capital = Capital::new(args.capital).map_err(|e| AlbatrossError::Param(e.to_string()))?;
    let now = match args.now {
        Some(t) => t,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0)),
    };
    let now = check_time("--now", now)?;
    for (flag, v) in [
        ("--stall-threshold", args.stall_threshold),
        ("--boot-timeout", args.boot_timeout),
    ] {
        if !(1..=TIME_LIMIT).contains(&v) {
            return Err(AlbatrossError::Param(format!(
                "{flag} {v} must be in 1..={TIME_LIMIT} s"
            )));
        }
    }
    let slots = read_ads(&args.status)?;
    let jobs = read_ads(&args.queue)?;
    let mut state = read_state(&args.state)?;
    if let Some(last) = state.last_call
        && last > now
    {
        return Err(AlbatrossError::Param(format!(
            "--now {now} is before the previous call at {last} (state {})",
            args.state.display()
        )));
    }

    // Jobs: the waiting ones, and the dispatches since the previous call.
    let status = |job: &ClassAd| int_attr(job, "JobStatus");
    let waiting: Vec<&ClassAd> = jobs.iter().filter(|j| status(j) == Some(1)).collect();
    let in_queue: BTreeSet<String> = jobs.iter().map(job_id).collect();
    let started_since =
        |job: &&ClassAd| match (state.last_call, int_attr(job, "JobCurrentStartDate")) {
            (Some(last), Some(start)) => start > last,
            _ => false,
        };
    let started = jobs.iter().filter(started_since).count();
    let finished_unseen = state
        .idle_jobs
        .iter()
        .filter(|id| !in_queue.contains(*id))
        .count();
    let dispatched = started + finished_unseen;

    // Cloud nodes: the machines of cloud slots, and the requested nodes not yet seen.
    let config = AlbatrossConfig {
        stall_threshold: Duration::from_secs(args.stall_threshold),
        ..AlbatrossConfig::paper(capital)
    };
    let type_index = |name: &str| {
        config
            .instance_types
            .iter()
            .position(|t| t.name == name)
            .unwrap_or(0)
    };
    let mut machines: BTreeMap<String, Vec<&ClassAd>> = BTreeMap::new();
    for slot in slots.iter().filter(|s| is_cloud_slot(s)) {
        let machine = str_attr(slot, "Machine")
            .or_else(|| str_attr(slot, "Name"))
            .unwrap_or_default();
        machines.entry(machine).or_default().push(slot);
    }
    let mut views = Vec::new();
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    for (machine, machine_slots) in &machines {
        let record = match state.nodes.get(machine) {
            Some(record) => record.clone(),
            None => {
                // A new machine: the oldest of the nodes requested earlier, if any.
                let instance = if state.booting.is_empty() {
                    String::new()
                } else {
                    state.booting.remove(0).0
                };
                let id = state.next_node;
                // The ids counted down from u32::MAX name booting nodes (below).
                if id >= BOOTING_IDS_FROM {
                    return Err(AlbatrossError::IdsExhausted {
                        path: args.state.clone(),
                        last: BOOTING_IDS_FROM - 1,
                    });
                }
                let record = NodeRecord { id, instance };
                state.next_node = id + 1;
                state.nodes.insert(machine.clone(), record.clone());
                record
            }
        };
        let id = record.id;
        names.insert(id, machine.clone());
        let claimed = machine_slots
            .iter()
            .filter(|s| str_attr(s, "State").as_deref() == Some("Claimed"))
            .count();
        views.push(CloudNodeView {
            node: NodeId(id),
            instance: type_index(&record.instance),
            state: if claimed > 0 {
                CloudNodeState::Busy {
                    jobs: u32::try_from(claimed).unwrap_or(u32::MAX),
                }
            } else {
                CloudNodeState::Idle
            },
        });
    }
    state.nodes.retain(|m, _| machines.contains_key(m));
    state
        .booting
        .retain(|(_, requested)| now - requested < args.boot_timeout);
    for (k, (name, _)) in state.booting.iter().enumerate().take(MAX_BOOTING) {
        views.push(CloudNodeView {
            node: NodeId(u32::MAX - k as u32),
            instance: type_index(name),
            state: CloudNodeState::Booting,
        });
    }

    // Desktop slots free for a job: what lets the policy spin idle cloud nodes down.
    let free_desktop_slots = slots
        .iter()
        .filter(|s| !is_cloud_slot(s) && str_attr(s, "State").as_deref() == Some("Unclaimed"))
        .count();

    // The policy, with its timer where the previous call left it.
    let timer_start = state.timer_start.unwrap_or(now).min(now);
    let mut policy = Albatross::new(config.clone(), Time(timer_start))
        .map_err(|e| AlbatrossError::Param(e.to_string()))?;
    let waiting_ads: Vec<Arc<ClassAd>> = waiting.iter().map(|&j| Arc::new(j.clone())).collect();
    let mut commands = Vec::new();
    let observation = Observation {
        dispatched,
        cloud_nodes: views,
        free_desktop_slots,
        instance_types: config.instance_types.clone(),
    };
    let Ok(()) = policy.observe(Time(now), &observation, &waiting_ads, &mut commands);
    let stalled = policy.stalled_for(Time(now)).secs();
    let waited = if dispatched > 0 || waiting.is_empty() {
        0
    } else {
        now - timer_start
    };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "# now {now}: {} slots, {} jobs ({} waiting), {dispatched} dispatched since the previous call",
        slots.len(),
        jobs.len(),
        waiting.len()
    );
    let _ = writeln!(
        out,
        "# cloud nodes: {} up, {} booting; no dispatch for {waited} s (stall threshold {} s); capital {}",
        machines.len(),
        state.booting.len(),
        args.stall_threshold,
        args.capital
    );
    for c in &commands {
        match *c {
            Command::Start {
                instance,
                count,
                lifetime,
            } => {
                let name = config
                    .instance_types
                    .get(instance)
                    .map_or_else(|| instance.to_string(), |t| t.name.clone());
                let _ = writeln!(
                    out,
                    "start {name} count={count} lifetime={}s",
                    lifetime.secs()
                );
                for _ in 0..count {
                    state.booting.push((name.clone(), now));
                }
            }
            Command::Stop { node } => match names.get(&node.0) {
                Some(machine) => {
                    let _ = writeln!(out, "stop {machine}");
                }
                None => {
                    let _ = writeln!(out, "# (a stop of a node not yet in the pool was skipped)");
                }
            },
        }
    }

    state.last_call = Some(now);
    state.timer_start = Some(now - stalled);
    state.idle_jobs = waiting.iter().map(|j| job_id(j)).collect();
    Ok((out, state))
}
