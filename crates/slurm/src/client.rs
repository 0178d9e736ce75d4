//! The client: one Slurm command per call, typed results and errors.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::NodeState;
use crate::queue::{Detected, JobReader};

/// Longest excerpt of a command's stderr or of an unparsable line kept in an error.
const EXCERPT: usize = 400;

/// A failed Slurm call.
#[derive(Debug, Error)]
pub enum SlurmError {
    /// The command could not be started (not installed, not on `PATH`).
    #[error(
        "cannot run `{command}`: {source} (is Slurm's client installed? `apt-get install slurm-client`)"
    )]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The command ran and failed.
    #[error("`{command}` failed ({status}): {stderr}")]
    Failed {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
        /// The start of its stderr.
        stderr: String,
    },
    /// Its output was not what the format asked for.
    #[error("`{command}` printed a line this client cannot read ({reason}): `{line}`")]
    Parse {
        /// The command line.
        command: String,
        /// The line (at most 80 characters).
        line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A node the cluster does not have.
    #[error("Slurm has no node `{0}`")]
    UnknownNode(String),
    /// A file beside the cluster (a job's deadline) could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A job the controller does not list.
    #[error("Slurm lists no job `{0}`")]
    UnknownJob(String),
}

/// One node, as `sinfo -N` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// Its name.
    pub name: String,
    /// Its base state.
    pub state: NodeState,
    /// Whether Slurm marks it not responding (`*`).
    pub not_responding: bool,
    /// The reason an administrator (or a balancer) gave for draining or downing it.
    pub reason: Option<String>,
}

/// A Slurm cluster, reached through its command-line tools.
///
/// With a configuration path, every command runs with `SLURM_CONF` set to it (a cluster whose
/// configuration is not in `/etc/slurm`, such as the one `cargo xtask slurm up` starts);
/// without, the tools find the system's configuration as usual.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slurm {
    conf: Option<PathBuf>,
    /// The directory of the Slurm commands (`PATH` if `None`).
    #[serde(default)]
    pub(crate) programs: Option<PathBuf>,
    #[serde(default)]
    pub(crate) reader: JobReader,
    #[serde(skip)]
    pub(crate) detected: Detected,
}

impl Slurm {
    /// The cluster of the system's default configuration.
    pub fn system() -> Self {
        Slurm::default()
    }

    /// The cluster configured by `slurm_conf`.
    pub fn with_config(slurm_conf: impl Into<PathBuf>) -> Self {
        Slurm {
            conf: Some(slurm_conf.into()),
            ..Slurm::default()
        }
    }

    /// This client running the Slurm commands of `dir` (an installation off `PATH`, such as
    /// `/opt/slurm/bin`).
    pub fn with_programs(mut self, dir: impl Into<PathBuf>) -> Self {
        self.programs = Some(dir.into());
        self
    }

    /// The configuration file, if one was given.
    pub fn config(&self) -> Option<&Path> {
        self.conf.as_deref()
    }

    /// Whether the controller answers (`scontrol ping`).
    pub fn ping(&self) -> Result<(), SlurmError> {
        let out = self.run("scontrol", ["ping"])?;
        if out.contains("UP") {
            Ok(())
        } else {
            Err(SlurmError::Failed {
                command: "scontrol ping".into(),
                status: "controller not up".into(),
                stderr: excerpt(&out, EXCERPT),
            })
        }
    }

    /// Every node, once each, in `sinfo`'s order.
    pub fn nodes(&self) -> Result<Vec<NodeInfo>, SlurmError> {
        let out = self.run("sinfo", ["-h", "-N", "-o", "%N|%T|%E"])?;
        let mut nodes: Vec<NodeInfo> = Vec::new();
        for line in out.lines().filter(|l| !l.trim().is_empty()) {
            let node = parse_node(line).map_err(|reason| parse_error("sinfo", line, reason))?;
            // A node in several partitions is listed once per partition.
            if !nodes.iter().any(|n| n.name == node.name) {
                nodes.push(node);
            }
        }
        Ok(nodes)
    }

    /// The nodes whose state carries Slurm's `PLANNED` flag (`scontrol show node -o`:
    /// `State=IDLE+PLANNED`, where `sinfo`'s state column may print plain `idle`): idle nodes
    /// the backfill scheduler holds for a job it planned, which start no other job until its
    /// next cycle clears the plan, even when the planned job is gone.
    pub fn planned_nodes(&self) -> Result<Vec<String>, SlurmError> {
        let out = self.run("scontrol", ["show", "node", "-o"])?;
        Ok(out.lines().filter_map(planned_node).collect())
    }

    /// One node.
    pub fn node(&self, name: &str) -> Result<NodeInfo, SlurmError> {
        self.nodes()?
            .into_iter()
            .find(|n| n.name == name)
            .ok_or_else(|| SlurmError::UnknownNode(name.to_owned()))
    }

    /// Drains `node`: a node running a job finishes it and then takes no more; an idle node
    /// is drained at once. The reclaim of a balancer.
    pub fn drain(&self, node: &str, reason: &str) -> Result<(), SlurmError> {
        let reason = format!("reason={reason}");
        self.run(
            "scontrol",
            [
                "update",
                &format!("nodename={node}"),
                "state=drain",
                &reason,
            ],
        )
        .map(drop)
    }

    /// Returns `node` to service (`state=resume`). The restore of a balancer.
    pub fn resume(&self, node: &str) -> Result<(), SlurmError> {
        self.run(
            "scontrol",
            ["update", &format!("nodename={node}"), "state=resume"],
        )
        .map(drop)
    }

    /// Submits a batch job with `sbatch --parsable ARGS`; returns its id.
    pub fn submit<I, S>(&self, args: I) -> Result<String, SlurmError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut all: Vec<std::ffi::OsString> = vec!["--parsable".into()];
        all.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        let out = self.run("sbatch", all)?;
        // `--parsable` prints `id` or `id;cluster`.
        let id = out.trim().split(';').next().unwrap_or("").to_owned();
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
            return Err(parse_error("sbatch", out.trim(), "expected a job id"));
        }
        Ok(id)
    }

    /// Cancels job `id`.
    pub fn cancel(&self, id: &str) -> Result<(), SlurmError> {
        self.run("scancel", [id]).map(drop)
    }

    /// Runs `program ARGS` with this cluster's configuration; its stdout.
    pub(crate) fn run<I, S>(&self, program: &str, args: I) -> Result<String, SlurmError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.run_with_env(program, args, ("", ""))
    }

    /// As [`Slurm::run`], with one more variable set (none if its name is empty).
    pub(crate) fn run_with_env<I, S>(
        &self,
        program: &str,
        args: I,
        (var, value): (&str, &str),
    ) -> Result<String, SlurmError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<std::ffi::OsString> =
            args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let command = std::iter::once(program.to_owned())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        let mut cmd = match &self.programs {
            Some(dir) => Command::new(dir.join(program)),
            None => Command::new(program),
        };
        cmd.args(&args);
        if let Some(conf) = &self.conf {
            cmd.env("SLURM_CONF", conf);
        }
        if !var.is_empty() {
            cmd.env(var, value);
        }
        let output = cmd.output().map_err(|source| SlurmError::Spawn {
            command: command.clone(),
            source,
        })?;
        if !output.status.success() {
            return Err(SlurmError::Failed {
                command,
                status: output.status.to_string(),
                stderr: excerpt(&String::from_utf8_lossy(&output.stderr), EXCERPT),
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// `name|state|reason`.
/// The node of one `scontrol show node -o` line if its `State=` has the `PLANNED` flag.
fn planned_node(line: &str) -> Option<String> {
    let field = |key: &str| {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .map(str::to_owned)
    };
    let state = field("State=")?;
    state
        .split('+')
        .any(|flag| {
            flag.trim_end_matches(['*', '~', '#', '!', '%', '$', '@', '^', '-']) == "PLANNED"
        })
        .then(|| field("NodeName="))
        .flatten()
}

fn parse_node(line: &str) -> Result<NodeInfo, String> {
    let mut f = line.splitn(3, '|');
    let (Some(name), Some(state)) = (f.next(), f.next()) else {
        return Err("expected `name|state|reason`".into());
    };
    let reason = f
        .next()
        .map(str::trim)
        .filter(|r| !r.is_empty() && *r != "none");
    let name = name.trim();
    if name.is_empty() {
        return Err("empty node name".into());
    }
    Ok(NodeInfo {
        name: name.to_owned(),
        state: state.parse().unwrap_or(NodeState::Unknown),
        not_responding: state.trim_end().ends_with('*'),
        reason: reason.map(str::to_owned),
    })
}

pub(crate) fn parse_error(command: &str, line: &str, reason: impl Into<String>) -> SlurmError {
    SlurmError::Parse {
        command: command.to_owned(),
        line: excerpt(line, 80),
        reason: reason.into(),
    }
}

/// At most `n` characters of `s`, trimmed.
pub(crate) fn excerpt(s: &str, n: usize) -> String {
    s.trim().chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn planned_nodes_from_scontrol_lines() {
        let line = |state: &str| {
            format!(
                "NodeName=n7 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 State={state} ThreadsPerCore=1"
            )
        };
        assert_eq!(
            super::planned_node(&line("IDLE+PLANNED")),
            Some("n7".into())
        );
        assert_eq!(
            super::planned_node(&line("IDLE*+PLANNED")),
            Some("n7".into())
        );
        assert_eq!(super::planned_node(&line("IDLE")), None);
        assert_eq!(super::planned_node(&line("ALLOCATED+DRAIN")), None);
        assert_eq!(super::planned_node("State=IDLE+PLANNED"), None, "no name");
    }

    use super::*;

    #[test]
    fn sinfo_rows() {
        let n = parse_node("n1|draining|cosched: lease 7").unwrap();
        assert_eq!(n.state, NodeState::Draining);
        assert_eq!(n.reason.as_deref(), Some("cosched: lease 7"));
        let n = parse_node("n4|idle*|none").unwrap();
        assert!(n.not_responding && n.reason.is_none());
        assert!(parse_node("garbage").is_err());
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let s = Slurm::with_config("/nonexistent/slurm.conf");
        match s.run("cosched-no-such-program", ["x"]) {
            Err(SlurmError::Spawn { command, .. }) => {
                assert_eq!(command, "cosched-no-such-program x")
            }
            other => panic!("{other:?}"),
        }
    }
}
