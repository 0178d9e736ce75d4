//! One policy per protocol written outside its crate, run in that crate's simulator beside a
//! built-in policy: the six protocols of the workspace (batch, Balancer, metasched, hybrid,
//! RHIC, Albatross) all take a caller's own `cosched_core::policy::Policy`.
//!
//! Each policy lives in `examples/src/custom/` and uses only the crates' public items, as a
//! downstream crate would; this binary runs them in parallel and prints each comparison.

use clap::Parser;
use cosched_examples::CommonArgs;
use cosched_examples::custom;
use rayon::prelude::*;
use std::fmt::Write as _;

const NAME: &str = "custom_policies";

type Demo = fn(bool) -> Result<String, Box<dyn std::error::Error + Send + Sync>>;

/// The protocols, each with the demo that runs a custom policy in its simulator.
const DEMOS: [(&str, Demo); 7] = [
    ("batch (`cosched-batch`)", custom::batch::demo),
    ("Balancer (`cosched-balancer`)", custom::balancer::demo),
    (
        "grid metascheduling (`cosched-metasched`)",
        custom::metasched::demo,
    ),
    ("hybrid workloads (`cosched-hybrid`)", custom::hybrid::demo),
    ("RHIC volunteer pools (`cosched-rhic`)", custom::rhic::demo),
    (
        "Albatross cloud bursting (`cosched-albatross`)",
        custom::albatross::demo,
    ),
    (
        "converged site scavenging role (`cosched-site`)",
        custom::site::demo,
    ),
];

/// Runs one custom policy per protocol beside a built-in one and prints the comparisons.
#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let mut out = cli.common.output(NAME)?;
    let quick = cli.common.quick;
    let tables: Vec<_> = DEMOS
        .par_iter()
        .map(|(protocol, demo)| demo(quick).map(|t| (*protocol, t)))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let mut md = String::new();
    for (protocol, table) in tables {
        let _ = write!(
            md,
            "### Custom policy on the {protocol} protocol\n\n{table}\n"
        );
    }
    cosched_examples::outln!("{md}")?;
    out.write_file(cosched_examples::TABLE_FILE, md.as_bytes())?;
    Ok(())
}
