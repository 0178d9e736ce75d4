//! One site where the papers' mechanisms share the machine (`cosched-site`): batch (EASY,
//! rigid and malleable jobs), on-demand leases (queued as batch jobs, the Balancer, or hybrid's
//! notices and SPAA), and a scavenging pool on lent idle nodes (ClassAd-matched, sized by
//! harvesting every idle node or by RHIC's controller, bursting to the cloud under Albatross),
//! in the configurations `batch`, `balancer`, `hybrid` (SPAA), `scavenging`, `cloud`, `all`
//! (SPAA + scavenging + cloud), and the extra rows `all-balancer`, `rhic`, `all-rhic` (the
//! pool sized by RHIC), `hybrid-cua` and `hybrid-cup` (notices, without guests on reserved
//! nodes).
//!
//! Inputs (the defaults): the SDSC SP2 SWF sample vendored in `examples/data/swf` (128 nodes,
//! from its first valid job), typed by project into rigid and malleable jobs by hybrid's
//! typing; the APS week of `examples/data/balancer/aps` packed into 16-core VM leases and
//! repeated week after week, each asking `--scale` nodes and accepting a `--window` wait; and
//! the scavenged bag-of-tasks generator of `cosched_site::workload` (ours). Seeds vary the
//! typing and the scavenged tasks; every configuration of a seed sees the same environment.
//!
//! These are **our findings, not paper claims**: no paper ran these mechanisms together. Each
//! finding is a paired difference against `batch` (same seed), with its spread.
//!
//! `--nodes` goes up to 1,000,000: the site touches a node's state only when the node changes
//! hands (the negotiator reads its running tasks, RHIC's sizing reads the idle nodes it may
//! lend, not every idle node each cycle), so nodes the workload never uses cost their
//! construction only and the run time follows the work.

use clap::Parser;
use cosched_core::{Duration, Time};
use cosched_examples::converged::{
    ConvergedArgs, Finding, SITE_METRICS, findings_table, site_metrics,
};
use cosched_examples::{Cell, CommonArgs, LinePlot, Replicates, Sweep, Table};
use cosched_site::{Configuration, Inputs, RoleParams, Site, SiteConfig, SiteReport};
use std::path::PathBuf;
use std::process::ExitCode;

const NAME: &str = "converged_site";

/// The configurations of one site sharing batch, on-demand and scavenged work: on-demand
/// service, batch wait and slowdown, malleable turnaround, scavenged work, useful utilisation
/// and cloud cost, with seed-to-seed spreads.
#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// The batch trace (SWF, plain or gzip) [default: the vendored SDSC SP2 sample].
    #[arg(long, value_name = "FILE.swf")]
    swf: Option<PathBuf>,
    /// Processors per node of the SWF trace.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    cores_per_node: u32,
    /// The APS weekly trace (CSV, plain or gzip) [default: the vendored 2015-07-19 week].
    #[arg(long, value_name = "FILE.csv")]
    aps: Option<PathBuf>,
    /// Nodes per on-demand lease (the APS VMs × this).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1024))]
    scale: u32,
    /// Nodes of the site.
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    nodes: u32,
    /// Days simulated [default: 28, quick: 3].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=3660))]
    days: Option<u32>,
    #[command(flatten)]
    converged: ConvergedArgs,
}

fn main() -> ExitCode {
    cosched_examples::main_with(run)
}

/// Our columns after the site's metrics ([`SITE_METRICS`]).
const EXTRAS: [&str; 6] = [
    "goodput_node_h",
    "scavenged_lost_node_h",
    "batch_lost_node_h",
    "rigid_preemptions",
    "malleable_shrinks",
    "energy_kwh",
];

/// The metrics of [`SITE_METRICS`] and [`EXTRAS`], from a report.
fn metrics(r: &SiteReport) -> [f64; 15] {
    let extras = [
        r.goodput_node_h,
        r.revocations.scavenged_lost_s as f64 / 3600.0,
        r.revocations.batch_lost_node_s as f64 / 3600.0,
        r.revocations.rigid_preemptions as f64,
        r.revocations.malleable_shrinks as f64,
        r.energy_kwh,
    ];
    let mut all = [0.0; 15];
    for (a, v) in all
        .iter_mut()
        .zip(site_metrics(r).into_iter().chain(extras))
    {
        *a = v;
    }
    all
}

/// Decimals shown per metric.
const DECIMALS: [usize; 15] = [2, 1, 0, 2, 0, 0, 0, 2, 2, 1, 1, 1, 1, 1, 0];

/// The findings: (metric index, label).
const FINDINGS: [(usize, &str); 6] = [
    (0, "on-demand served (pp)"),
    (2, "batch mean wait (s)"),
    (3, "batch mean bounded slowdown"),
    (4, "malleable mean turnaround (s)"),
    (7, "useful utilisation (pp)"),
    (8, "cloud cost ($)"),
];

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let quick = cli.common.quick;
    let mut out = cli.common.output(NAME)?;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let swf = cli
        .swf
        .clone()
        .unwrap_or_else(|| data.join("swf/SDSC-SP2-sample-4961.swf.gz"));
    let aps = cli
        .aps
        .clone()
        .unwrap_or_else(|| data.join("balancer/aps/2015-07-19.csv.gz"));
    let days = cli.days.unwrap_or(if quick { 3 } else { 28 });
    let span = Duration::from_hours(24 * i64::from(days));
    let window = cli.converged.window();
    let inputs = Inputs::load(&swf, cli.cores_per_node, &aps, cli.scale, span, window)?;
    let seeds = cli.converged.seeds(&cli.common)?;
    let workloads = seeds
        .iter()
        .map(|s| inputs.workload(s).map(|w| (s, w)))
        .collect::<Result<Vec<_>, _>>()?;
    let params = RoleParams {
        window,
        ..RoleParams::default()
    };
    let end = Time(0).saturating_add(span);
    let nodes = cli.nodes;
    let results =
        Sweep::new(NAME, Configuration::ALL.to_vec()).run_replicated(&seeds, |c, seed| {
            let workload = workloads
                .iter()
                .find(|(s, _)| *s == seed)
                .map(|(_, w)| w.clone())
                .ok_or("no workload for the seed")?;
            let roles = c.roles(&params).map_err(|e| e.to_string())?;
            Site::new(SiteConfig::new(nodes, end), roles, workload)
                .and_then(Site::run)
                .map_err(|e| format!("{c}, seed {seed}: {e}"))
        })?;

    let (leases, jobs, tasks) = workloads.first().map_or((0, 0, 0), |(_, w)| {
        (w.leases.len(), w.batch.len(), w.tasks.len())
    });
    let columns = ["configuration"]
        .into_iter()
        .chain(SITE_METRICS)
        .chain(EXTRAS);
    let mut table = Table::new(
        NAME,
        "Converged site: configurations by work class",
        columns,
    )
    .with_notes(format!(
        "Our findings, not paper claims. {nodes} nodes, {days} days, EASY; {jobs} batch jobs \
             from {} (typed rigid/malleable by hybrid's project typing), {leases} on-demand \
             leases of {} nodes (APS VMs, W = {} min), {tasks} scavenged tasks (our \
             bag-of-tasks generator), first seed; Balancer R = {}, hybrid SPAA, Albatross \
             c = {}. Means over {seeds}.",
        swf.file_name().map_or_else(
            || swf.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        ),
        cli.scale,
        cli.converged.window_min,
        params.reserve,
        params.capital.value(),
    ));
    for (c, reps) in &results {
        let mut row = vec![Cell::Text(c.name().to_string())];
        for (i, d) in DECIMALS.iter().enumerate() {
            row.push(Cell::fixed(reps.mean(|r| metrics(r)[i]), *d));
        }
        table.row(row);
    }
    out.write_table(&table)?;
    out.write_table(&findings(&results, seeds.count()))?;

    let point = |reps: &Replicates<SiteReport>, y: usize| {
        (
            reps.mean(|r| r.useful_utilization_pct),
            reps.mean(|r| metrics(r)[y]),
        )
    };
    for (file, title, y_label, y) in [
        (
            "tradeoff_on_demand",
            "Useful utilisation against on-demand service",
            "on-demand leases served (%)",
            0,
        ),
        (
            "tradeoff_batch_wait",
            "Useful utilisation against batch wait",
            "batch mean wait (s)",
            2,
        ),
    ] {
        let mut plot = LinePlot::new(file, title)
            .x_label("useful utilisation (%)")
            .y_label(y_label);
        for (c, reps) in &results {
            plot = plot.series(c.name(), [point(reps, y)]);
        }
        out.write_plot(&plot)?;
    }
    Ok(())
}

/// Each configuration against `batch`, paired by seed.
fn findings(results: &[(Configuration, Replicates<SiteReport>)], seeds: u64) -> Table {
    let base = results
        .iter()
        .find(|(c, _)| *c == Configuration::Batch)
        .map(|(_, r)| r);
    let rows = results
        .iter()
        .filter(|(c, _)| *c != Configuration::Batch)
        .flat_map(|(c, reps)| {
            FINDINGS.iter().filter_map(move |&(i, metric)| {
                Some(Finding {
                    mechanism: c.name(),
                    metric,
                    difference: reps.paired(base?, |r| metrics(r)[i])?,
                    decimals: DECIMALS[i],
                })
            })
        });
    findings_table(
        format!("{NAME}_findings"),
        "Our findings: each configuration minus batch, paired by seed",
        "configuration",
        "batch",
        seeds,
        "",
        rows,
    )
}
