//! `cargo xtask slurm up|down|status`: a real multi-node Slurm cluster on this machine.
//!
//! Debian's Slurm 22.05 runs several nodes on one host when each node has its own port
//! (`NodeName=n[1-N] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[17001-…]`) and each
//! `slurmd` is started with `-N <node>`. Everything the cluster writes (configuration, state,
//! spool, logs, pid files) lives under `target/slurm/`; it listens on loopback only, on ports
//! other than Slurm's defaults so it never meets a system cluster. `down` stops exactly the
//! daemons `up` started, by their pid files. munged is shared with the system: `up` starts it
//! only if none answers, and `down` stops it only if `up` did.
//!
//! Two partitions cover every node: `batch`, the default, and `scavenger`, a lower
//! `PriorityTier` with `PreemptType=preempt/partition_prio` and `PreemptMode=REQUEUE`
//! (`GraceTime=0`): a batch job that needs a node running a scavenger job takes it at once,
//! and the scavenger job goes back to the queue (`cosched_live::scavenge` runs a pool policy's
//! scavenged tasks there). Batch jobs are never preempted (`PreemptMode=OFF` on `batch`).
//!
//! Every slurmctld-side job end runs `etc/epilog.sh` (Slurm's `EpilogSlurmctld`), which appends
//! `job_id|node_list|exit_code|unix_time` to `log/job-ends.log`: the notifier through which a
//! policy observes job ends without polling.

use crate::say;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use crate::Result;

/// The default slurmctld port of the local cluster.
const CTLD_PORT: u16 = 16817;
/// How far above the slurmctld port node `n1` listens; node `nK` listens on
/// `port + NODE_PORT_OFFSET + K − 1`.
const NODE_PORT_OFFSET: u16 = 184;
/// Most nodes `up` starts (each is a slurmd process).
const MAX_NODES: u32 = 64;
/// How long `up` waits for every node to report idle.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// The default partition: batch work, never preempted.
const BATCH_PARTITION: &str = "batch";
/// The low-priority partition over the same nodes, for scavenged work: Slurm requeues its
/// jobs when a batch job wants their nodes.
const SCAVENGER_PARTITION: &str = "scavenger";
/// Debian's packages of the cluster.
const PACKAGES: [&str; 4] = ["slurmctld", "slurmd", "slurm-client", "munge"];

/// The `slurm` task's actions.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Start a local cluster (installing Debian's Slurm and munge first when missing, as root).
    Up(UpOptions),
    /// Stop the daemons `up` started.
    Down,
    /// Print the daemons' and nodes' state.
    Status,
}

/// Options of `slurm up`.
#[derive(Debug, Args)]
pub struct UpOptions {
    /// Nodes in the cluster (`n1` … `nN`).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_NODES)))]
    pub nodes: u32,
    /// The slurmctld port; the nodes listen from this port + 184 up. Two checkouts on one
    /// machine run two clusters on different ports.
    #[arg(long, env = "COSCHED_SLURM_PORT", default_value_t = CTLD_PORT,
          value_parser = clap::value_parser!(u16).range(1024..=i64::from(u16::MAX - NODE_PORT_OFFSET - MAX_NODES as u16)))]
    pub port: u16,
}

/// Runs `action` for the workspace at `root`.
pub fn run(root: &Path, action: &Action) -> Result {
    let dirs = Dirs::new(root);
    match action {
        Action::Up(options) => up(&dirs, options.nodes, options.port),
        Action::Down => down(&dirs),
        Action::Status => status(&dirs),
    }
}

/// The cluster's files under `target/slurm`.
struct Dirs {
    base: PathBuf,
}

impl Dirs {
    fn new(root: &Path) -> Self {
        Dirs {
            base: root.join("target").join("slurm"),
        }
    }
    fn conf(&self) -> PathBuf {
        self.base.join("etc").join("slurm.conf")
    }
    fn run_dir(&self) -> PathBuf {
        self.base.join("run")
    }
    fn log(&self) -> PathBuf {
        self.base.join("log")
    }
}

fn up(dirs: &Dirs, nodes: u32, port: u16) -> Result {
    if live_pids(dirs)?
        .iter()
        .any(|(name, _)| name.starts_with("slurmctld"))
    {
        return Err(format!(
            "a local cluster is already up (pid files in `{}`); run `cargo xtask slurm down` first",
            dirs.run_dir().display()
        )
        .into());
    }
    ensure_installed()?;
    if dirs.base.exists() {
        fs::remove_dir_all(&dirs.base)
            .map_err(|e| format!("cannot clear `{}`: {e}", dirs.base.display()))?;
    }
    for sub in ["etc", "state", "log", "run"] {
        mkdir(&dirs.base.join(sub))?;
    }
    for k in 1..=nodes {
        mkdir(&dirs.base.join("spool").join(format!("n{k}")))?;
    }
    let epilog = dirs.base.join("etc").join("epilog.sh");
    write_file(&epilog, &epilog_script(&dirs.log().join("job-ends.log")))?;
    make_executable(&epilog)?;
    write_file(&dirs.conf(), &slurm_conf(&dirs.base, nodes, port))?;

    ensure_munge(dirs)?;
    let conf = dirs.conf();
    let conf = conf.to_string_lossy();
    daemon("slurmctld", &["-f", &conf])?;
    for k in 1..=nodes {
        daemon("slurmd", &["-f", &conf, "-N", &format!("n{k}")])?;
    }
    wait_ready(dirs, nodes)?;
    write_file(&dirs.base.join("env"), &env_lines(dirs))?;
    say!("local Slurm cluster up: {nodes} nodes, n1-n{nodes}")?;
    say!("{}", env_lines(dirs).trim_end())?;
    say!("(also in {})", dirs.base.join("env").display())?;
    Ok(())
}

fn down(dirs: &Dirs) -> Result {
    let pids = live_pids(dirs)?;
    if pids.is_empty() {
        say!("no local cluster daemon is running")?;
    }
    // Nodes first, then the controller, then munged if `up` started it.
    let mut ordered = pids.clone();
    ordered.sort_by_key(|(name, _)| match name.as_str() {
        n if n.starts_with("slurmd") => 0,
        n if n.starts_with("slurmctld") => 1,
        _ => 2,
    });
    for (name, pid) in &ordered {
        let _ = Command::new("kill").arg(pid.to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(15);
        while alive(*pid) && Instant::now() < deadline {
            sleep(Duration::from_millis(100));
        }
        if alive(*pid) {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        say!("stopped {name} (pid {pid})")?;
    }
    if let Ok(entries) = fs::read_dir(dirs.run_dir()) {
        for e in entries.flatten() {
            let _ = fs::remove_file(e.path());
        }
    }
    Ok(())
}

fn status(dirs: &Dirs) -> Result {
    let pids = live_pids(dirs)?;
    if pids.is_empty() {
        say!(
            "local cluster: down (no daemon from `{}` runs)",
            dirs.run_dir().display()
        )?;
        return Ok(());
    }
    let mut text = String::new();
    for (name, pid) in &pids {
        let _ = writeln!(text, "{name}: running (pid {pid})");
    }
    let out = Command::new("sinfo")
        .args(["-N", "-o", "%N %T %E"])
        .env("SLURM_CONF", dirs.conf())
        .output()
        .map_err(|e| format!("cannot run sinfo: {e}"))?;
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    text.push_str(&env_lines(dirs));
    // A reader that stops early (`| head`) is not an error of ours.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    Ok(())
}

/// Installs Debian's packages when a daemon is missing: as root with apt-get, otherwise an
/// error naming the command to run.
fn ensure_installed() -> Result {
    let missing = [
        "/usr/sbin/slurmctld",
        "/usr/sbin/slurmd",
        "/usr/bin/sinfo",
        "/usr/sbin/munged",
    ]
    .iter()
    .any(|p| !Path::new(p).exists());
    if !missing {
        return Ok(());
    }
    let install = format!("apt-get install -y {}", PACKAGES.join(" "));
    if !is_root() {
        return Err(
            format!("Slurm is not installed; as root run: apt-get update && {install}").into(),
        );
    }
    eprintln!("==> installing {}", PACKAGES.join(" "));
    let ok = |c: &mut Command| {
        c.env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    if !ok(Command::new("apt-get").args(["update", "-qq"])) {
        return Err("`apt-get update` failed".into());
    }
    if !ok(Command::new("apt-get")
        .args(["install", "-y", "-qq"])
        .args(PACKAGES))
    {
        return Err(format!("`{install}` failed").into());
    }
    Ok(())
}

/// Starts munged (as the munge user) unless one already answers; records it if `up` started it.
fn ensure_munge(dirs: &Dirs) -> Result {
    if munge_answers() {
        return Ok(());
    }
    if !is_root() {
        return Err(
            "munged is not running and only root can start it: run `cargo xtask slurm up` as root"
                .into(),
        );
    }
    let run = Path::new("/run/munge");
    mkdir(run)?;
    let chown = Command::new("chown")
        .args(["munge:munge", "/run/munge"])
        .status();
    if !chown.is_ok_and(|s| s.success()) {
        return Err("cannot give /run/munge to the munge user (does the user exist?)".into());
    }
    if !Path::new("/etc/munge/munge.key").exists() {
        daemon(
            "runuser",
            &["-u", "munge", "--", "/usr/sbin/mungekey", "--create"],
        )?;
    }
    daemon("runuser", &["-u", "munge", "--", "/usr/sbin/munged"])?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !munge_answers() {
        if Instant::now() > deadline {
            return Err("munged did not start (see /var/log/munge/munged.log)".into());
        }
        sleep(Duration::from_millis(100));
    }
    if let Ok(pid) = fs::read_to_string(run.join("munged.pid")) {
        write_file(&dirs.run_dir().join("munged.pid"), pid.trim())?;
    }
    Ok(())
}

fn munge_answers() -> bool {
    Command::new("sh")
        .args(["-c", "munge -n 2>/dev/null | unmunge >/dev/null 2>&1"])
        .status()
        .is_ok_and(|s| s.success())
}

/// Waits until `sinfo` lists every node idle.
fn wait_ready(dirs: &Dirs, nodes: u32) -> Result {
    let deadline = Instant::now() + READY_TIMEOUT;
    let mut last = String::new();
    while Instant::now() < deadline {
        if let Ok(out) = Command::new("sinfo")
            .args(["-h", "-N", "-o", "%N %T"])
            .env("SLURM_CONF", dirs.conf())
            .output()
        {
            last = String::from_utf8_lossy(&out.stdout).into_owned();
            // A node is listed once per partition it is in: count names, not lines.
            let idle: std::collections::BTreeSet<&str> = last
                .lines()
                .filter_map(|l| l.strip_suffix(" idle"))
                .collect();
            if idle.len() == nodes as usize {
                return Ok(());
            }
        }
        sleep(Duration::from_millis(250));
    }
    Err(format!(
        "the cluster did not come up within {} s; sinfo said:\n{last}see the logs in `{}`",
        READY_TIMEOUT.as_secs(),
        dirs.log().display()
    )
    .into())
}

/// Runs a command that daemonises itself; fails if it exits non-zero.
fn daemon(program: &str, args: &[&str]) -> Result {
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")).into())
    }
}

/// The daemons of `run/*.pid` that are alive, by file stem.
fn live_pids(dirs: &Dirs) -> Result<Vec<(String, u32)>> {
    let mut pids = Vec::new();
    let Ok(entries) = fs::read_dir(dirs.run_dir()) else {
        return Ok(pids);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "pid") {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let pid = fs::read_to_string(&path)
                .ok()
                .and_then(|s| s.trim().parse::<u32>().ok());
            if let Some(pid) = pid.filter(|&p| alive(p)) {
                pids.push((stem, pid));
            }
        }
    }
    pids.sort();
    Ok(pids)
}

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().chars().next())
        })
        .flatten()
        .is_some_and(|state| state != 'Z' && state != 'X')
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The cluster's `slurm.conf`.
fn slurm_conf(base: &Path, nodes: u32, port: u16) -> String {
    let b = base.display();
    let first_port = port + NODE_PORT_OFFSET;
    let last_port = first_port + nodes as u16 - 1;
    let mut c = String::new();
    let _ = writeln!(
        c,
        "# Written by `cargo xtask slurm up`: a local test cluster."
    );
    for line in [
        "ClusterName=cosched".to_owned(),
        "SlurmctldHost=localhost(127.0.0.1)".to_owned(),
        format!("SlurmctldPort={port}"),
        "SlurmUser=root".to_owned(),
        "SlurmdUser=root".to_owned(),
        "AuthType=auth/munge".to_owned(),
        "CryptoType=crypto/munge".to_owned(),
        format!("StateSaveLocation={b}/state"),
        format!("SlurmdSpoolDir={b}/spool/%n"),
        format!("SlurmctldPidFile={b}/run/slurmctld.pid"),
        format!("SlurmdPidFile={b}/run/slurmd-%n.pid"),
        format!("SlurmctldLogFile={b}/log/slurmctld.log"),
        format!("SlurmdLogFile={b}/log/slurmd-%n.log"),
        format!("EpilogSlurmctld={b}/etc/epilog.sh"),
        "ProctrackType=proctrack/linuxproc".to_owned(),
        "TaskPlugin=task/none".to_owned(),
        "SelectType=select/linear".to_owned(),
        "SchedulerType=sched/backfill".to_owned(),
        // permit_job_expansion: a running job grows by merging a second allocation into it
        // (`--dependency=expand:`), how a shrunk malleable job gets its nodes back.
        "SchedulerParameters=sched_interval=1,permit_job_expansion".to_owned(),
        "ReturnToService=2".to_owned(),
        "MpiDefault=none".to_owned(),
        "SwitchType=switch/none".to_owned(),
        "JobCompType=jobcomp/filetxt".to_owned(),
        format!("JobCompLoc={b}/log/jobcomp.txt"),
        "AccountingStorageType=accounting_storage/none".to_owned(),
        "JobAcctGatherType=jobacct_gather/none".to_owned(),
        "MinJobAge=600".to_owned(),
        format!(
            "NodeName=n[1-{nodes}] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[{first_port}-{last_port}] CPUs=1 RealMemory=500 State=UNKNOWN"
        ),
        // Scavenged work runs in `scavenger`, over the same nodes: a job of `batch` (the
        // higher tier) requeues a scavenger job at once to take its node (GraceTime 0).
        "PreemptType=preempt/partition_prio".to_owned(),
        "PreemptMode=REQUEUE".to_owned(),
        format!(
            "PartitionName={BATCH_PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP PriorityTier=10 PreemptMode=OFF"
        ),
        format!(
            "PartitionName={SCAVENGER_PARTITION} Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE GraceTime=0"
        ),
    ] {
        let _ = writeln!(c, "{line}");
    }
    c
}

/// The EpilogSlurmctld notifier: one line per job end.
fn epilog_script(log: &Path) -> String {
    format!(
        "#!/bin/sh\n# Written by `cargo xtask slurm up`: Slurm runs it on the controller when a job ends.\n\
         echo \"${{SLURM_JOB_ID}}|${{SLURM_JOB_NODELIST}}|${{SLURM_JOB_EXIT_CODE}}|$(date +%s.%3N)\" >> '{}'\n",
        log.display()
    )
}

/// The environment a user (or the live tests) needs to reach the cluster.
fn env_lines(dirs: &Dirs) -> String {
    let conf = dirs.conf();
    format!(
        "export SLURM_CONF={0}\nexport COSCHED_SLURM={0}\n",
        conf.display()
    )
}

fn mkdir(p: &Path) -> Result {
    fs::create_dir_all(p).map_err(|e| format!("cannot create `{}`: {e}", p.display()).into())
}

fn write_file(p: &Path, text: &str) -> Result {
    fs::write(p, text).map_err(|e| format!("cannot write `{}`: {e}", p.display()).into())
}

fn make_executable(p: &Path) -> Result {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make `{}` executable: {e}", p.display()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_names_every_node_on_its_own_port() {
        let conf = slurm_conf(Path::new("/w/target/slurm"), 4, CTLD_PORT);
        assert!(conf.contains(
            "NodeName=n[1-4] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[17001-17004]"
        ));
        assert!(conf.contains("SlurmctldPort=16817\n"));
        let other = slurm_conf(Path::new("/w/target/slurm"), 2, 20000);
        assert!(other.contains("SlurmctldPort=20000\n"));
        assert!(other.contains("Port=[20184-20185]"));
        assert!(conf.contains("StateSaveLocation=/w/target/slurm/state\n"));
        assert!(conf.contains("EpilogSlurmctld=/w/target/slurm/etc/epilog.sh\n"));
        assert!(conf.contains("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"));
        assert!(conf.contains(
            "PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP PriorityTier=10 PreemptMode=OFF\n"
        ));
        assert!(conf.contains(
            "PartitionName=scavenger Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE GraceTime=0\n"
        ));
    }

    #[test]
    fn this_process_is_alive_and_a_bogus_pid_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX));
    }
}
