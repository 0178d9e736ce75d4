//! Job control for an external scheduler: jobs submitted held, started on the nodes the
//! scheduler chose, requeued, resized, and read back in full from `squeue --json`.
//!
//! A held job (`sbatch --hold`) has priority 0, so Slurm's own scheduler never starts it; an
//! executor starts it by pinning it to nodes (`scontrol update JobId=… ReqNodeList=…`) and
//! releasing it (`scontrol release`), after which Slurm starts it on those nodes as soon as
//! they are free (at once when the executor's record of them is right). On Slurm 22.05 with
//! select/linear (`cargo xtask slurm up`):
//! - a released job usually runs within a second (0.07-1.4 s measured; 8.6 s once, just after
//!   jobs on its nodes had been cancelled);
//! - `scontrol update JobId=… NumNodes=k` shrinks a running job in place: the nodes past its
//!   first `k` are idle at once, and its record shows the new size and a `ResizeTime`
//!   (`NodeList=<a subset>` instead is refused, "Invalid node name", for a job started with a
//!   `ReqNodeList`);
//! - `scontrol requeue` and `scontrol requeuehold` end the run (the epilog reports that end:
//!   a reader must tell it from a job's end by the job's state) and set the job's begin time
//!   about two minutes ahead (`scontrol update JobId=… StartTime=now` clears it). Restarted
//!   before its old nodes have finished completing, the run fails at once; a shrunk job keeps
//!   its CPU count through a requeue, and restarting one on its submitted nodes did not start
//!   within 60 s in one of two tries on a loaded machine.
//! - a running job grows ([`Slurm::expand`]) by a second allocation on the extra nodes
//!   (`salloc --no-shell -w … --dependency=expand:<job>`, 70-120 ms) whose nodes
//!   `scontrol update JobId=<it> NumNodes=0` merges into the job (90-140 ms): the job's record
//!   shows the nodes and a `ResizeTime`, and its end frees them all. It needs
//!   `SchedulerParameters=permit_job_expansion` (without it the allocation is refused,
//!   "Requested operation not supported on this system"); an expansion job with a step (a
//!   batch job's script) cannot give its nodes away ("Job step already exists"), and the
//!   `NumNodes=ALL` the Slurm FAQ adds on the job afterwards is not needed (it fails for
//!   seconds, "the DB index is being set", without accounting).
//! - `squeue --json` ignores `-j`: [`Slurm::job_details`] lists every job.
//!
//! Jobs are read by the one reader, [`Slurm::job_details`] (`crate::queue`).

use serde::{Deserialize, Serialize};

use crate::client::parse_error;
use crate::hostlist;
use crate::{JobState, Slurm, SlurmError};

/// One job as `squeue --json` describes it (the fields a scheduler needs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobDetail {
    /// Its id.
    pub id: u64,
    /// Its name.
    pub name: String,
    /// Its state.
    pub state: JobState,
    /// Why it is pending (`JobHeldUser`, `Resources`, `BeginTime`, …; `None` when running).
    pub reason: String,
    /// Nodes it asks for or holds.
    pub node_count: u32,
    /// The nodes it runs (or ran) on.
    pub nodes: Vec<String>,
    /// Its time limit in minutes (`None`: unlimited).
    pub time_limit_min: Option<u64>,
    /// Its partition.
    pub partition: String,
    /// Submission, start and end, Unix seconds (0 when not yet).
    pub submit_unix: i64,
    /// When it started (0 if it has not).
    pub start_unix: i64,
    /// When it ended or is expected to end (0 if unknown).
    pub end_unix: i64,
    /// How often it has been requeued.
    pub restarts: u32,
}

impl JobDetail {
    /// Whether it waits held (by a user or an administrator): Slurm will not start it.
    pub fn is_held(&self) -> bool {
        self.state == JobState::Pending && self.reason.starts_with("JobHeld")
    }

    /// Whether it has ended for good (not pending, running or completing).
    pub fn is_finished(&self) -> bool {
        !matches!(
            self.state,
            JobState::Pending | JobState::Running | JobState::Completing
        )
    }
}

/// The part of `squeue --json` read here (Slurm 22.05's OpenAPI v0.0.38 layout).
#[derive(Deserialize)]
struct Listing {
    jobs: Vec<RawJob>,
}

#[derive(Deserialize)]
struct RawJob {
    job_id: u64,
    #[serde(default)]
    name: String,
    job_state: String,
    #[serde(default)]
    state_reason: String,
    #[serde(default)]
    node_count: u32,
    #[serde(default)]
    nodes: String,
    #[serde(default)]
    time_limit: Option<u64>,
    #[serde(default)]
    partition: String,
    #[serde(default)]
    submit_time: i64,
    #[serde(default)]
    start_time: i64,
    #[serde(default)]
    end_time: i64,
    #[serde(default)]
    restart_cnt: u32,
}

/// Parses `squeue --json` output.
pub fn parse_squeue_json(text: &str) -> Result<Vec<JobDetail>, SlurmError> {
    let listing: Listing = serde_json::from_str(text)
        .map_err(|e| parse_error("squeue --json", text, e.to_string()))?;
    listing
        .jobs
        .into_iter()
        .map(|j| {
            let nodes = match j.nodes.trim() {
                "" | "(null)" => Vec::new(),
                list => hostlist::expand(list)
                    .map_err(|e| parse_error("squeue --json", list, e.to_string()))?,
            };
            Ok(JobDetail {
                id: j.job_id,
                name: j.name,
                state: j
                    .job_state
                    .parse()
                    .unwrap_or(JobState::Other(String::new())),
                reason: j.state_reason,
                node_count: j.node_count,
                nodes,
                time_limit_min: j.time_limit,
                partition: j.partition,
                submit_unix: j.submit_time,
                start_unix: j.start_time,
                end_unix: j.end_time,
                restarts: j.restart_cnt,
            })
        })
        .collect()
}

impl Slurm {
    /// Submits a held batch job (`sbatch --hold ARGS`): Slurm's own scheduler leaves it
    /// alone until [`Slurm::start_on`]. Returns its id.
    pub fn submit_held<I, S>(&self, args: I) -> Result<String, SlurmError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut all: Vec<std::ffi::OsString> = vec!["--hold".into()];
        all.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self.submit(all)
    }

    /// Starts the held job `id` on `nodes`: `scontrol update JobId=id ReqNodeList=…
    /// NumNodes=n`, then `scontrol release id`.
    pub fn start_on(&self, id: &str, nodes: &[String]) -> Result<(), SlurmError> {
        let list = nodes.join(",");
        self.run(
            "scontrol",
            [
                "update",
                &format!("JobId={id}"),
                &format!("ReqNodeList={list}"),
                &format!("NumNodes={}", nodes.len()),
            ],
        )?;
        self.run("scontrol", ["release", id]).map(drop)
    }

    /// Starts the held job `id` again on `nodes` after a requeue: as [`Slurm::start_on`],
    /// with `StartTime=now` clearing the begin time the requeue set.
    pub fn restart_on(&self, id: &str, nodes: &[String]) -> Result<(), SlurmError> {
        self.run(
            "scontrol",
            ["update", &format!("JobId={id}"), "StartTime=now"],
        )?;
        self.start_on(id, nodes)
    }

    /// Requeues the running job `id` held (`scontrol requeuehold`): its run ends (the epilog
    /// reports it) and it waits, held, for its scheduler to start it again (once its begin
    /// time, about two minutes ahead, has passed).
    pub fn requeue_held(&self, id: &str) -> Result<(), SlurmError> {
        self.run("scontrol", ["requeuehold", id]).map(drop)
    }

    /// Resizes the running job `id` to `nodes` nodes (`scontrol update JobId=… NumNodes=…`):
    /// a shrink frees the nodes past the first `nodes` at once.
    pub fn resize(&self, id: &str, nodes: u32) -> Result<(), SlurmError> {
        self.run(
            "scontrol",
            [
                "update",
                &format!("JobId={id}"),
                &format!("NumNodes={nodes}"),
            ],
        )
        .map(drop)
    }
}

impl Slurm {
    /// Grows the running job `id` onto the idle `nodes`: an allocation of them without a
    /// shell that depends on `id` by `expand` (named `<id>-expand`), merged into `id` by
    /// `scontrol update JobId=<allocation> NumNodes=0`. Needs
    /// `SchedulerParameters=permit_job_expansion` (`cargo xtask slurm up` sets it).
    pub fn expand(&self, id: &str, nodes: &[String]) -> Result<(), SlurmError> {
        if nodes.is_empty() {
            return Ok(());
        }
        let name = format!("{id}-expand");
        self.run(
            "salloc",
            [
                "--no-shell".to_owned(),
                format!("--job-name={name}"),
                format!("--nodes={}", nodes.len()),
                format!("--nodelist={}", nodes.join(",")),
                format!("--dependency=expand:{id}"),
                "--immediate=30".to_owned(),
            ],
        )?;
        let allocation = self
            .job_details()?
            .into_iter()
            .find(|j| j.name == name && j.state == JobState::Running)
            .ok_or_else(|| SlurmError::UnknownJob(name.clone()))?;
        self.resize(&allocation.id.to_string(), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = r#"{"meta":{},"errors":[],"jobs":[
        {"job_id":2,"name":"cosched-7","job_state":"PENDING","state_reason":"JobHeldUser",
         "node_count":2,"nodes":"","time_limit":3,"partition":"batch","submit_time":100,
         "start_time":0,"end_time":0,"restart_cnt":0,"priority":0},
        {"job_id":3,"name":"x","job_state":"COMPLETED","state_reason":"None","node_count":2,
         "nodes":"n[3,5]","time_limit":null,"partition":"batch","submit_time":100,
         "start_time":101,"end_time":105,"restart_cnt":1}]}"#;

    #[test]
    fn squeue_json_rows() {
        let jobs = parse_squeue_json(LISTING).unwrap();
        assert_eq!(jobs.len(), 2);
        assert!(jobs[0].is_held() && !jobs[0].is_finished());
        assert_eq!(jobs[0].time_limit_min, Some(3));
        assert_eq!(jobs[1].nodes, ["n3", "n5"]);
        assert_eq!((jobs[1].time_limit_min, jobs[1].restarts), (None, 1));
        assert!(jobs[1].is_finished() && !jobs[1].is_held());
        assert!(parse_squeue_json("{\"jobs\":[{}]}").is_err());
        assert!(parse_squeue_json("not json").is_err());
        let bad = LISTING.replace("n[3,5]", "n[5-");
        assert!(parse_squeue_json(&bad).is_err());
    }
}
