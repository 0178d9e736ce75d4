//! # cosched-slurm
//!
//! A typed client of a real Slurm cluster, through the commands every Slurm installation has
//! (`scontrol`, `sinfo`, `squeue`, `sbatch`, `scancel`), in their machine-readable output
//! formats. It is the edge at which a cosched policy meets a real resource manager: a policy
//! returns commands ("reclaim node n3", "restore node n3"), an executor applies them here, and
//! the node and job states read here become the policy's observations — the Balancer paper's
//! `pbsnodes -o/-c` and prologue/epilogue notifiers (Liu et al., SC18, §II-D), on Slurm.
//!
//! - [`Slurm`]: the client; every call runs one command with the cluster's `SLURM_CONF` and
//!   returns typed values or a [`SlurmError`] naming the command, its exit status and stderr.
//! - [`NodeInfo`] / [`NodeState`]: `sinfo -N` rows.
//! - [`JobDetail`] / [`JobState`]: every job the controller lists, from the one job reader
//!   [`Slurm::job_details`] (`squeue --json` where Slurm has it, `squeue -O` else:
//!   [`JobReader`]), what every executor reads.
//! - [`hostlist::expand`]: Slurm's compressed host lists (`n[1-3,7]`).
//! - [`JobEndLog`]: job ends as the controller's epilog reports them (the notifier channel;
//!   [`Slurm::job_details`] is the polling one).
//!
//! Reclaiming a node is a drain: a node running a job finishes it first (`draining`, then
//! `drained`), an idle node is drained at once; no batch job is ever killed. Restoring is a
//! resume.
//!
//! ```
//! use cosched_slurm::{hostlist, NodeState};
//! assert_eq!(hostlist::expand("n[1-3],gpu07").unwrap(), ["n1", "n2", "n3", "gpu07"]);
//! assert_eq!("draining".parse::<NodeState>().unwrap(), NodeState::Draining);
//! assert!(NodeState::Drained.is_reclaimed());
//! ```

mod client;
pub mod env;
pub mod hostlist;
pub mod jobs;
pub mod notify;
mod queue;
mod state;

pub use client::{NodeInfo, Slurm, SlurmError};
pub use jobs::JobDetail;
pub use notify::{JobEnd, JobEndLog, find_end};
pub use queue::JobReader;
pub use state::{JobState, NodeState};
