//! `cosched`: the command-line front end of the cosched workspace.
//!
//! - `cosched simulate --trace FILE.swf --policy easy` runs a batch policy on a Standard
//!   Workload Format trace (plain or gzip) and prints a summary; `--jobs-csv` and `--report`
//!   write the per-job table and the JSON report.
//! - `cosched generate lublin --jobs N --capacity C --seed S > out.swf` writes a synthetic trace
//!   (Lublin–Feitelson model, Tsafrir runtime estimates).
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
//!
//! Every failure prints one line `error: …` naming what is wrong and exits with status 1
//! (status 2 for command-line usage errors).

mod albatross;
mod balancer;
mod classad;
mod generate;
mod mcmf;
mod simulate;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cosched",
    version,
    about = "Composable cluster scheduling: simulate and generate workloads, solve min-cost flows, evaluate ClassAds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a batch scheduling policy on an SWF trace.
    Simulate(simulate::SimulateArgs),
    /// Generate a synthetic workload as SWF on standard output.
    Generate(generate::GenerateArgs),
    /// Evaluate ClassAd expressions and match job and machine ads (HTCondor semantics).
    Classad(classad::ClassadArgs),
    /// Solve a DIMACS minimum-cost-flow problem (network simplex).
    Mcmf(mcmf::McmfArgs),
    /// Run the Albatross scaling policy on a live pool's condor_status / condor_q output.
    Albatross(albatross::AlbatrossArgs),
    /// The Balancer as a live service in front of a Slurm cluster.
    Balancer(balancer::BalancerArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(args) => simulate::run(&args).map_err(|e| e.to_string()),
        Command::Generate(args) => generate::run(&args).map_err(|e| e.to_string()),
        Command::Classad(args) => match classad::run(&args) {
            Ok(out) => match classad::deliver(&out.stdout, &mut std::io::stdout().lock()) {
                Err(e) => Err(e.to_string()),
                Ok(()) if !out.success => return ExitCode::FAILURE,
                Ok(()) => Ok(()),
            },
            Err(e) => Err(e.to_string()),
        },
        Command::Mcmf(args) => mcmf::run(&args).map_err(|e| e.to_string()),
        Command::Albatross(args) => {
            albatross::run(&args, &mut std::io::stdout().lock()).map_err(|e| e.to_string())
        }
        Command::Balancer(args) => balancer::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
