//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Table I's headlines over many weeks: the
//! paper runs one week, the one its §III-A selection calls the most challenging; this runs the
//! same experiment on every week of a trace set, to show where that week's figures sit among
//! the others.
//!
//! For each week present in both `DIR/lcrc` and `DIR/aps` (`WEEK.csv` or `WEEK.csv.gz`), on the
//! 304 + 68-node cluster, preloaded from the previous week's LCRC file when the set has it:
//! the all-batch bound, the 304 + 68 split, and the Basic Balancer with `W = 0` and the
//! smallest static reserve `R` (searched by bisection in 0..=68) that rejects no request —
//! the paper's "zero rejections with R = 12 (18 % of the on-demand cluster)". Reported per
//! week: that `R`, and the split's batch wait over the Balancer's at that `R` (the paper's
//! "almost an order of magnitude (8x)"); their distributions are the figures.
//!
//! `--data` defaults to the vendored weeks (`examples/data/balancer`: the challenging week
//! only); the whole set (97 LCRC and 79 APS weeks, 2013-10 to 2015-08) is not vendored, pass
//! its directory. `--quick` runs the first week.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Parser;
use cosched_balancer::scenario::{Arm, RealWeek, Scenario};
use cosched_balancer::traces::week_name;
use cosched_balancer::workload::Workload;
use cosched_core::Duration;
use cosched_examples::{Cell, CommonArgs, LinePlot, Sweep, Table};

const NAME: &str = "balancer_weeks";
const BATCH_NODES: u32 = 304;
const ON_DEMAND_NODES: u32 = 68;
/// A week, seconds.
const WEEK_S: f64 = 604_800.0;

#[derive(Parser)]
#[command(about = "The Balancer: Table I's headlines on every week of a trace set")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// The trace set: a directory with `lcrc/` and `aps/` weekly files.
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Seconds an APS VM stays up once no longer needed (ours; 0 is §III-A's text).
    #[arg(long, default_value_t = 0, value_name = "SECS",
          value_parser = clap::value_parser!(i64).range(0..=604_800))]
    vm_linger: i64,
}

/// One week's headlines.
struct Headline {
    week: String,
    jobs: usize,
    leases: usize,
    /// The VM leases' mean duration, hours.
    lease_mean_h: f64,
    /// Their node-seconds over the cluster's node-seconds in the week, percent (the paper's ρ).
    rho_pct: f64,
    /// The smallest R with no rejection (None: even R = 68 rejects).
    zero_r: Option<u32>,
    bound_wait_min: f64,
    split_wait_min: f64,
    dynamic_wait_min: Option<f64>,
    split_rejections: usize,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

/// The weekly files of `dir/kind`, by week name.
fn files(dir: &Path, kind: &str) -> Result<Vec<(String, PathBuf)>, Box<dyn std::error::Error>> {
    let dir = dir.join(kind);
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".csv") || n.ends_with(".csv.gz")
        })
        .map(|p| (week_name(&p), p))
        .collect();
    out.sort();
    Ok(out)
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` week name (the civil-from-days inverse of Howard
/// Hinnant's algorithm); `None` for another name.
fn days(name: &str) -> Option<i64> {
    let mut parts = name.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let data = cli
        .data
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("data/balancer"));
    // The notes name the input as given, never the checkout's absolute path, so the output
    // does not depend on where the repository lives.
    let data_name = cli.data.as_ref().map_or_else(
        || "examples/data/balancer".to_owned(),
        |d| d.display().to_string(),
    );
    let mut out = cli.common.output(NAME)?;
    let lcrc = files(&data, "lcrc")?;
    let aps = files(&data, "aps")?;
    let aps_weeks: BTreeSet<&str> = aps.iter().map(|(w, _)| w.as_str()).collect();
    let mut weeks: Vec<(usize, &str, &Path, PathBuf)> = lcrc
        .iter()
        .enumerate()
        .filter(|(_, (w, _))| aps_weeks.contains(w.as_str()))
        .filter_map(|(i, (w, p))| {
            let a = aps.iter().find(|(x, _)| x == w)?.1.clone();
            Some((i, w.as_str(), p.as_path(), a))
        })
        .collect();
    if cli.common.quick {
        weeks.truncate(1);
    }
    if weeks.is_empty() {
        return Err(format!(
            "no week of `{}` has both an LCRC and an APS file",
            data.display()
        )
        .into());
    }
    let scenario = Scenario::synthetic(BATCH_NODES + ON_DEMAND_NODES);
    let nodes = scenario.nodes;
    let results = Sweep::new(NAME, weeks.clone()).run(|&(i, name, lcrc_path, ref aps_path)| {
        // The previous week's file, if the set has the week before.
        let preload = i
            .checked_sub(1)
            .and_then(|j| lcrc.get(j))
            .filter(|(w, _)| days(w).zip(days(name)).is_some_and(|(a, b)| b - a == 7))
            .map(|(_, p)| p.as_path());
        let week =
            RealWeek::read_with_linger(i, lcrc_path, aps_path, preload, Duration(cli.vm_linger))?;
        let lease_s: f64 = week.leases.iter().map(|l| l.duration.0 as f64).sum();
        let run = |arm: &Arm| {
            arm.run(
                nodes,
                &Workload::new(&week.jobs, &week.leases).with_preload(&week.preload),
                &[],
            )
            .map(|o| o.report)
        };
        let wait = |r: &cosched_balancer::report::SimReport| r.batch.overall.mean_wait_s / 60.0;
        let bound = run(&Arm::all_batch())?;
        let split = run(&Arm::dedicated(ON_DEMAND_NODES, Duration::ZERO))?;
        // Bisection for the smallest R in 0..=68 with no rejection.
        let (mut lo, mut hi) = (0_u32, ON_DEMAND_NODES);
        let mut at_hi = run(&scenario.basic(hi, Duration::ZERO))?;
        let zero_r = if at_hi.on_demand.rejected > 0 {
            None
        } else {
            while lo < hi {
                let mid = (lo + hi) / 2;
                let r = run(&scenario.basic(mid, Duration::ZERO))?;
                if r.on_demand.rejected == 0 {
                    (hi, at_hi) = (mid, r);
                } else {
                    lo = mid + 1;
                }
            }
            Some(hi)
        };
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(Headline {
            week: name.to_owned(),
            jobs: week.jobs.len(),
            leases: week.leases.len(),
            lease_mean_h: lease_s / 3600.0 / week.leases.len().max(1) as f64,
            rho_pct: 100.0 * lease_s / (f64::from(nodes) * WEEK_S),
            zero_r,
            bound_wait_min: wait(&bound),
            split_wait_min: wait(&split),
            dynamic_wait_min: zero_r.map(|_| wait(&at_hi)),
            split_rejections: split.on_demand.rejected,
        })
    });
    let mut headlines = Vec::new();
    for (_, r) in results {
        headlines.push(r.map_err(|e| e.to_string())?);
    }
    // Undefined (empty) when the Balancer's batch jobs did not wait at all.
    let ratio = |h: &Headline| {
        h.dynamic_wait_min
            .filter(|&d| d > 0.0)
            .map(|d| h.split_wait_min / d)
    };
    let mut table = Table::new(
        NAME,
        "Table I's headlines on every week (the paper: one week, R = 12, 1002.8 / 130.0 min = 7.7x)",
        [
            "week",
            "batch_jobs",
            "vm_requests",
            "vm_lease_mean_h",
            "od_rho_pct",
            "zero_rejection_R",
            "all_batch_wait_min",
            "split_wait_min",
            "split_rejections",
            "dynamic_wait_min",
            "split_over_dynamic",
        ],
    )
    .with_notes(format!(
        "{} weeks of `{}`; {nodes} nodes (304 batch + 68 on-demand); W = 0; I = {} min; the \
         Basic Balancer at the smallest R with no rejection (bisection on 0..=68, empty when \
         even R = 68 rejects; the ratio empty when the Balancer's jobs did not wait). APS VMs \
         linger {} s once unneeded (0: §III-A's text). The paper's week: 24,177 batch jobs, \
         141 leases, rho 1.25 %.",
        headlines.len(),
        data_name,
        scenario.idle_hold.secs() / 60,
        cli.vm_linger
    ));
    for h in &headlines {
        table.row([
            Cell::Text(h.week.clone()),
            Cell::from(h.jobs),
            Cell::from(h.leases),
            Cell::fixed(h.lease_mean_h, 2),
            Cell::fixed(h.rho_pct, 2),
            Cell::from(h.zero_r.map(u64::from)),
            Cell::fixed(h.bound_wait_min, 1),
            Cell::fixed(h.split_wait_min, 1),
            Cell::from(h.split_rejections),
            h.dynamic_wait_min
                .map_or(Cell::Empty, |d| Cell::fixed(d, 1)),
            ratio(h).map_or(Cell::Empty, |r| Cell::fixed(r, 2)),
        ]);
    }
    out.write_table(&table)?;
    // The distributions: each headline's values sorted, against the fraction of weeks.
    let sorted = |values: Vec<f64>| {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        let n = v.len().max(1) as f64;
        v.into_iter()
            .enumerate()
            .map(move |(i, x)| ((i + 1) as f64 / n, x))
            .collect::<Vec<_>>()
    };
    let zero_r = LinePlot::new(
        "weeks_zero_rejection_r",
        "Smallest static reserve with no rejection, over the weeks (paper: R = 12)",
    )
    .x_label("fraction of weeks")
    .y_label("R (nodes)")
    .series(
        "ours",
        sorted(
            headlines
                .iter()
                .filter_map(|h| h.zero_r.map(f64::from))
                .collect(),
        ),
    )
    .series("paper (its week)", [(0.0, 12.0), (1.0, 12.0)]);
    out.write_plot(&zero_r)?;
    let ratios = LinePlot::new(
        "weeks_wait_ratio",
        "Split batch wait over the Balancer's at that R, over the weeks (paper: 7.7x)",
    )
    .x_label("fraction of weeks")
    .y_label("split / dynamic batch wait")
    .log_y()
    .series("ours", sorted(headlines.iter().filter_map(ratio).collect()))
    .series("paper (its week)", [(0.0, 7.7), (1.0, 7.7)]);
    out.write_plot(&ratios)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn week_names_are_days() {
        assert_eq!(super::days("1970-01-01"), Some(0));
        assert_eq!(
            super::days("2015-07-19")
                .zip(super::days("2015-07-12"))
                .map(|(a, b)| a - b),
            Some(7)
        );
        assert_eq!(
            super::days("2016-03-01")
                .zip(super::days("2016-02-28"))
                .map(|(a, b)| a - b),
            Some(2)
        );
        assert_eq!(super::days("week"), None);
    }
}
