//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), §III-A: choosing the "challenging"
//! week over a set of weekly LCRC and APS files. Batch: low average node availability across
//! 60-second periods (304 nodes); on-demand: high total core-seconds of the APS jobs. Prints
//! each week's two scores and the pick (each normalised by its largest value over the weeks
//! and summed: the paper does not say how it adds the two, so the scale is ours).
//!
//! `balancer_weeks --lcrc W1.csv W2.csv … --aps W1.csv W2.csv …` (the same weeks, in order);
//! without files, the weeks of `../shared/data/balancer` (`lcrc/*.csv` with the `aps/` file of
//! the same name), or a printed skip when that folder is absent.

use clap::Parser;
use cosched_balancer::method::challenging_week;
use cosched_balancer::synthetic::WEEK;
use cosched_balancer::traces;
use cosched_examples::{Cell, CommonArgs, Table};
use std::path::PathBuf;

const NAME: &str = "balancer_weeks";

#[derive(Parser)]
#[command(about = "The Balancer, §III-A: pick the challenging week of a set of weekly traces")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// LCRC weekly CSV files.
    #[arg(long, value_name = "FILE.csv", num_args = 1..)]
    lcrc: Vec<PathBuf>,
    /// APS weekly CSV files, one per LCRC file, in the same order.
    #[arg(long, value_name = "FILE.csv", num_args = 1..)]
    aps: Vec<PathBuf>,
    /// Nodes of the batch cluster.
    #[arg(long, default_value_t = 304)]
    batch_nodes: u32,
}

/// The weeks of the shared data folder: each `lcrc/NAME.csv` with `aps/NAME.csv`.
fn shared_weeks() -> Option<(Vec<PathBuf>, Vec<PathBuf>)> {
    let root = std::path::Path::new("../shared/data/balancer");
    let mut lcrc: Vec<PathBuf> = std::fs::read_dir(root.join("lcrc"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| root.join("aps").join(n).exists())
        })
        .collect();
    lcrc.sort();
    let aps = lcrc
        .iter()
        .filter_map(|p| p.file_name().map(|n| root.join("aps").join(n)))
        .collect();
    (!lcrc.is_empty()).then_some((lcrc, aps))
}

fn main() -> std::process::ExitCode {
    cosched_examples::balancer::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut cli = Cli::parse();
    if cli.lcrc.is_empty() && cli.aps.is_empty() {
        let Some((lcrc, aps)) = shared_weeks() else {
            println!("{NAME}: skipped: no --lcrc/--aps files and no ../shared/data/balancer");
            return Ok(());
        };
        (cli.lcrc, cli.aps) = (lcrc, aps);
    }
    if cli.lcrc.len() != cli.aps.len() {
        return Err(format!(
            "--aps needs one file per --lcrc file ({} vs {})",
            cli.aps.len(),
            cli.lcrc.len()
        )
        .into());
    }
    let mut out = cli.common.output(NAME)?;
    let mut weeks = Vec::new();
    for (lcrc, aps) in cli.lcrc.iter().zip(&cli.aps) {
        let name = lcrc.file_stem().map_or_else(
            || lcrc.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        weeks.push((
            name,
            traces::read_lcrc_records(lcrc)?,
            traces::read_aps(aps)?,
        ));
    }
    let (scores, pick) = challenging_week(&weeks, cli.batch_nodes, WEEK.0);
    let mut table = Table::new(
        NAME,
        "§III-A: the challenging week",
        [
            "week",
            "batch_node_availability",
            "od_core_hours",
            "score",
            "pick",
        ],
    )
    .with_notes(format!(
        "Batch availability: mean fraction of the {} nodes free over the week's 60-second \
         periods, from the jobs' recorded start/end. On-demand usage: core-hours of the APS \
         jobs within the week. Score = (1 - availability) / max + usage / max (ours).",
        cli.batch_nodes
    ));
    for (i, s) in scores.iter().enumerate() {
        table.row([
            Cell::Text(s.week.clone()),
            Cell::fixed(s.batch_availability, 4),
            Cell::fixed(s.on_demand_core_seconds / 3600.0, 1),
            Cell::fixed(s.score, 3),
            Cell::Text(if pick == Some(i) {
                "*".into()
            } else {
                String::new()
            }),
        ]);
    }
    out.write_table(&table)?;
    Ok(())
}
