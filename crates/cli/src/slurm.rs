//! `cosched slurm …`: cosched policies running a real Slurm cluster.

use clap::{Args, Subcommand};

use crate::slurm_scavenge as scavenge;
pub use scavenge::ScavengeCmdError;

/// `cosched slurm …`.
#[derive(Args)]
pub struct SlurmArgs {
    #[command(subcommand)]
    command: SlurmCommand,
}

#[derive(Subcommand)]
enum SlurmCommand {
    /// Run scavenged tasks in a preemptible partition over the batch nodes, as many and where
    /// the site's scavenging policy decides (harvest every idle node, or RHIC's sizing).
    #[command(after_help = scavenge::AFTER_HELP)]
    Scavenge(scavenge::ScavengeArgs),
}

/// How `cosched slurm …` failed.
#[derive(Debug, thiserror::Error)]
pub enum SlurmCmdError {
    /// `scavenge` failed.
    #[error(transparent)]
    Scavenge(#[from] ScavengeCmdError),
}

/// Runs `cosched slurm …`.
pub fn run(args: &SlurmArgs) -> Result<(), SlurmCmdError> {
    match &args.command {
        SlurmCommand::Scavenge(a) => Ok(scavenge::run(a)?),
    }
}
