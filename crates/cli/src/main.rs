//! `cosched`: the command-line front end of the cosched workspace.
//!
//! - `cosched simulate --trace FILE --policy easy,fcfs,conservative --out DIR` runs batch
//!   policies in parallel on a Standard Workload Format trace (plain or gzip) or a Batsim JSON
//!   workload, prints one comparison table, and writes per policy `DIR/P_jobs.csv` (Batsim's
//!   `_jobs.csv` columns, which evalys reads), `DIR/summary.csv`, a self-describing
//!   `DIR/report.json` and time series; `--plots DIR` draws the figures (SVG and PNG);
//!   `--jobs-csv` and `--report` write single files as before; `--trace -` reads standard
//!   input.
//! - `cosched generate lublin --jobs N --capacity C --seed S [--load L] [--out F]` writes a
//!   synthetic trace (Lublin–Feitelson model, Tsafrir runtime estimates).
//! - `cosched convert IN OUT` converts between SWF and Batsim JSON (by OUT's extension).
//! - `cosched experiment FILE.toml` runs policies × traces (or generated workloads at offered
//!   loads) × seeds in parallel and writes one summary CSV and plots; `--slurm` writes it as a
//!   Slurm job array.
//! - `cosched classad eval 'EXPR' [--my AD] [--target AD]` evaluates a ClassAd expression with
//!   HTCondor's semantics and prints its value in ClassAd notation; `cosched classad match
//!   JOB_AD MACHINE_AD` prints whether the ads match and both ranks, and exits with status 1
//!   when no machine matches. Ads are ClassAd text (`[ a = 1; b = "x" ]`) or `@FILE` (also
//!   `condor_status -long` / `condor_q -long` / `-json` output of several ads).
//! - `cosched albatross decide --status STATUS.txt --queue QUEUE.txt --state STATE.json
//!   --capital C` runs the Albatross policy once on a pool's `condor_status -long` and
//!   `condor_q -long` output, prints its decisions and keeps its state for the next call.
//! - `cosched mcmf --dimacs FILE.min` solves a DIMACS minimum-cost-flow problem by the network
//!   simplex and prints `status …`, `cost …`, `flow …` and `time … s`.
//!
//! - `cosched balancer serve --slurm --listen 127.0.0.1:8642` runs the Balancer (Liu et al.,
//!   SC18) as an HTTP/JSON service in front of a Slurm cluster; `cosched balancer notify
//!   --nodes LIST` is what a Slurm epilog runs to report a job end.
//! - `cosched slurm schedule --policy NAME --workload FILE|--queued --job-end-log LOG` makes a
//!   batch policy of the catalogue a Slurm cluster's scheduler (held jobs, ReqNodeList and
//!   release), resuming from `--state` after a restart.
//! - `cosched slurm scavenge --pool harvest|rhic --tasks N --work-s S` runs the site's
//!   scavenging role on a live Slurm: scavenged tasks in the preemptible `scavenger`
//!   partition, as many and where the pool's policy decides.
//! - `cosched completions bash|zsh|fish|elvish|powershell` prints a completion script.
//!
//! Outputs never destroy inputs or earlier results: every file is written beside its target
//! and moved into place only when the command has succeeded (a failed run leaves the previous
//! files whole), and an output that is one of the inputs (also through `..` or a link) or
//! another output is refused, naming both flags, before anything is opened.
//!
//! Every failure prints one line `error: …` naming what is wrong and exits with status 1
//! (status 2 for command-line usage errors); every write to standard output is checked, and a
//! closed pipe downstream (`cosched generate … | head`) ends the program quietly.

mod albatross;
mod balancer;
mod classad;
mod convert;
mod experiment;

mod mcmf;
mod plots;
mod simulate;
mod slurm_cmd;
mod slurm_hybrid;
mod slurm_scavenge;

use cosched_cli::{batch_run, generate, input, jobs_csv, output, summary, timeseries, units};

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// `cosched --help`'s closing part.
const AFTER_HELP: &str = "\
Examples:
  cosched simulate --trace examples/data/swf/SDSC-SP2-sample-4961.swf.gz \\
      --policy easy,fcfs,conservative --out results --plots results/plots
  cosched experiment crates/cli/experiments/easy_fcfs_conservative.toml
  cosched generate lublin --jobs 10000 --capacity 256 --seed 7 --load 0.85 > lublin.swf
  cosched completions bash > ~/.local/share/bash-completion/completions/cosched

`cosched COMMAND --help` shows each command's options, examples and metric definitions.";

#[derive(Parser)]
#[command(
    name = "cosched",
    version,
    about = "Composable cluster scheduling: simulate and generate workloads, solve min-cost flows, evaluate ClassAds",
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate and compare batch scheduling policies on an SWF or Batsim trace.
    #[command(after_help = simulate::AFTER_HELP)]
    Simulate(simulate::SimulateArgs),
    /// Generate a synthetic workload as SWF on standard output.
    #[command(after_help = generate::AFTER_HELP)]
    Generate(generate::GenerateArgs),
    /// Convert a workload between SWF and Batsim's JSON format.
    #[command(after_help = convert::AFTER_HELP)]
    Convert(convert::ConvertArgs),
    /// Run an experiment file: policies × traces (or generated workloads) × loads × seeds.
    #[command(after_help = experiment::AFTER_HELP, after_long_help = experiment::FORMAT)]
    Experiment(experiment::ExperimentArgs),
    /// Evaluate ClassAd expressions and match job and machine ads (HTCondor semantics).
    Classad(classad::ClassadArgs),
    /// Solve a DIMACS minimum-cost-flow problem (network simplex).
    Mcmf(mcmf::McmfArgs),
    /// Run the Albatross scaling policy on a live pool's condor_status / condor_q output.
    Albatross(albatross::AlbatrossArgs),
    /// The Balancer as a live service in front of a Slurm cluster.
    Balancer(balancer::BalancerArgs),
    /// cosched policies running a Slurm cluster: a batch policy of the catalogue as its
    /// scheduler, the site's scavenging pool in a preemptible partition.
    Slurm(slurm_cmd::SlurmArgs),
    /// Print a shell completion script for cosched (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_HELP)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `cosched completions --help`'s closing part: where each shell looks for the script.
const COMPLETIONS_HELP: &str = "\
Examples:
  cosched completions bash > ~/.local/share/bash-completion/completions/cosched
  cosched completions zsh > ~/.zfunc/_cosched     # with fpath+=~/.zfunc before compinit
  cosched completions fish > ~/.config/fish/completions/cosched.fish";

/// How a command failed: quietly (a closed pipe downstream, as Unix tools end) or with one
/// `error:` line.
enum Failure {
    Quiet,
    Message(String),
}

impl<E: std::error::Error + 'static> From<E> for Failure {
    fn from(e: E) -> Failure {
        if output::is_broken_pipe(&e) {
            Failure::Quiet
        } else {
            Failure::Message(e.to_string())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), Failure> = match cli.command {
        Command::Simulate(args) => simulate::run(&args).map_err(Failure::from),
        Command::Generate(args) => generate::run(&args).map_err(Failure::from),
        Command::Convert(args) => convert::run(&args).map_err(Failure::from),
        Command::Experiment(args) => experiment::run(&args).map_err(Failure::from),

        Command::Classad(args) => match classad::run(&args) {
            Ok(out) => match classad::deliver(&out.stdout, &mut std::io::stdout().lock()) {
                Err(e) => Err(Failure::from(e)),
                Ok(()) if !out.success => return ExitCode::FAILURE,
                Ok(()) => Ok(()),
            },
            Err(e) => Err(Failure::from(e)),
        },
        Command::Mcmf(args) => mcmf::run(&args).map_err(Failure::from),
        Command::Albatross(args) => {
            albatross::run(&args, &mut std::io::stdout().lock()).map_err(Failure::from)
        }
        Command::Balancer(args) => balancer::run(&args).map_err(Failure::from),
        Command::Slurm(args) => slurm_cmd::run(&args).map_err(Failure::from),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "cosched", &mut script);
            output::stdout(&String::from_utf8_lossy(&script)).map_err(Failure::from)
        }
    };
    match result {
        Ok(()) | Err(Failure::Quiet) => ExitCode::SUCCESS,
        Err(Failure::Message(e)) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
