//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Table I's headlines over many weeks: the
//! paper runs one week, the one its §III-A selection calls the most challenging; this runs the
//! same experiment on every week of a trace set, to show where that week's figures sit among
//! the others.
//!
//! For each week present in both `DIR/lcrc` and `DIR/aps` (`WEEK.csv` or `WEEK.csv.gz`; the
//! paper's week 2015-04-05, whose APS file is in no public copy, beside the APS stand-in as in
//! Table I), on the
//! 304 + 68-node cluster, preloaded from the previous week's LCRC file when the set has it:
//! the all-batch bound, the 304 + 68 split, and the Basic Balancer with `W = 0` and the
//! smallest static reserve `R` (searched by bisection in 0..=68) that rejects no request —
//! the paper's "zero rejections with R = 12 (18 % of the on-demand cluster)". Reported per
//! week: that `R`, and the split's batch wait over the Balancer's at that `R` (the paper's
//! "almost an order of magnitude (8x)"); their distributions are the figures.
//!
//! Every week also runs Table I's ten columns and has the paper's observations checked on it
//! (`cosched_examples::balancer_week::check_week`): the robustness table counts the weeks each
//! claim holds on. And the paper's own week-selection rule (§III-A: low batch availability,
//! high on-demand usage) is scored over the weeks with both files: a finding of its own, as
//! Table I runs on the week the paper's artifact replays, not on the rule's pick.
//!
//! `--data` defaults to the vendored set (`examples/data/balancer`: 100 LCRC and 80 APS weeks,
//! 2013-10 to 2015-08), under the same models as Table I (the flags of every Balancer example:
//! `--batch`, `--start-latency`, `--vm-linger`). `--quick` runs the first week.

use std::path::{Path, PathBuf};

use clap::Parser;
use cosched_balancer::method::challenging_week;
use cosched_balancer::report::SimReport;
use cosched_balancer::scenario::{Arm, RealWeek};
use cosched_balancer::traces;
use cosched_core::Duration;
use cosched_examples::balancer::{
    BalancerArgs, PAPER_WEEK, SELECTED_WEEK, STAND_IN_WEEK, vendored_dir,
};
use cosched_examples::balancer_week::{
    BATCH_NODES, COLUMNS, Column, ON_DEMAND_NODES, check_week, robustness_table, wait_min,
    weekly_files,
};
use cosched_examples::{Cell, Claims, CommonArgs, LinePlot, Sweep, Table};

const NAME: &str = "balancer_weeks";
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
    /// The models (`--batch`, `--start-latency`, `--vm-linger`, `--idle-hold`, `--nodes`); the
    /// input files come from `--data`.
    #[command(flatten)]
    inputs: BalancerArgs,
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
    /// Table I's columns on this week, in [`COLUMNS`] order.
    columns: Vec<SimReport>,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
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
    let data = cli.data.clone().unwrap_or_else(vendored_dir);
    // The notes name the input as given, never the checkout's absolute path, so the output
    // does not depend on where the repository lives.
    let data_name = cli.data.as_ref().map_or_else(
        || "examples/data/balancer".to_owned(),
        |d| d.display().to_string(),
    );
    let mut out = cli.common.output(NAME)?;
    let lcrc = weekly_files(&data, "lcrc").map_err(|e| e.to_string())?;
    let aps = weekly_files(&data, "aps").map_err(|e| e.to_string())?;
    // Each week beside its own APS file; the paper's week, whose APS file is in no public
    // copy, beside the stand-in, as in Table I.
    let stand_in = aps.iter().find(|(x, _)| x == STAND_IN_WEEK).map(|(_, p)| p);
    let mut weeks: Vec<(usize, &str, &Path, PathBuf)> = lcrc
        .iter()
        .enumerate()
        .filter_map(|(i, (w, p))| {
            let own = aps.iter().find(|(x, _)| x == w).map(|(_, a)| a);
            let a = own.or(stand_in.filter(|_| w == PAPER_WEEK))?.clone();
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
    let scenario = cli.inputs.scenario();
    let nodes = scenario.nodes;
    let results = Sweep::new(NAME, weeks.clone()).run(|&(i, name, lcrc_path, ref aps_path)| {
        // The previous week's file, if the set has the week before.
        let preload = i
            .checked_sub(1)
            .and_then(|j| lcrc.get(j))
            .filter(|(w, _)| days(w).zip(days(name)).is_some_and(|(a, b)| b - a == 7))
            .map(|(_, p)| p.as_path());
        let week = RealWeek::read_with_linger(i, lcrc_path, aps_path, preload, scenario.vm_linger)?;
        let lease_s: f64 = week.leases.iter().map(|l| l.duration.0 as f64).sum();
        let run = |arm: &Arm| scenario.run_week(arm, &week).map(|o| o.report);
        let columns = COLUMNS
            .iter()
            .map(|c| run(&c.arm(&scenario)))
            .collect::<Result<Vec<_>, _>>()?;
        let (bound, split) = (columns[0].clone(), columns[1].clone());
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
            bound_wait_min: wait_min(&bound),
            split_wait_min: wait_min(&split),
            dynamic_wait_min: zero_r.map(|_| wait_min(&at_hi)),
            split_rejections: split.on_demand.rejected,
            columns,
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
         even R = 68 rejects; the ratio empty when the Balancer's jobs did not wait); {}. The \
         paper's week: 24,177 batch jobs, 141 leases, rho 1.25 %.",
        headlines.len(),
        data_name,
        scenario.idle_hold.secs() / 60,
        cli.inputs.models_note()
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
    // Table I's claims on every week, and how many weeks each holds on.
    let per_week: Vec<(String, Claims)> = headlines
        .iter()
        .map(|h| {
            let mut claims = Claims::new("balancer");
            check_week(&mut claims, &h.week, |c: &Column| {
                COLUMNS
                    .iter()
                    .position(|x| x == c)
                    .and_then(|k| h.columns.get(k).cloned())
            });
            (h.week.clone(), claims)
        })
        .collect();
    out.write_table(&robustness_table(&format!("{NAME}_robustness"), &per_week))?;
    // The selection over the weeks run (with --quick, the first only).
    let run_weeks: Vec<&str> = headlines.iter().map(|h| h.week.as_str()).collect();
    let scored = |files: &[(String, PathBuf)]| -> Vec<(String, PathBuf)> {
        files
            .iter()
            .filter(|(w, _)| run_weeks.contains(&w.as_str()))
            .cloned()
            .collect()
    };
    out.write_table(&selection(&data_name, &scored(&lcrc), &scored(&aps))?)?;
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

/// The paper's week-selection rule (§III-A) scored over the weeks with both files: the
/// finding that its pick is not Table I's week.
fn selection(
    data: &str,
    lcrc: &[(String, PathBuf)],
    aps: &[(String, PathBuf)],
) -> Result<Table, Box<dyn std::error::Error>> {
    let weeks = lcrc
        .iter()
        .filter_map(|(w, l)| aps.iter().find(|(x, _)| x == w).map(|(_, a)| (w, l, a)))
        .map(|(w, l, a)| {
            Ok((
                w.clone(),
                traces::read_lcrc_records(l)?,
                traces::read_aps(a)?,
            ))
        })
        .collect::<Result<Vec<_>, traces::TraceError>>()?;
    let (scores, pick) = challenging_week(&weeks, BATCH_NODES, WEEK_S as i64)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].score.total_cmp(&scores[a].score));
    let picked = pick.map_or_else(|| "-".to_owned(), |p| scores[p].week.clone());
    let paper_has_aps = weeks.iter().any(|(w, _, _)| w == PAPER_WEEK);
    let mut table = Table::new(
        format!("{NAME}_selection"),
        "The paper's week-selection rule (§III-A) over the trace set: its most challenging weeks",
        [
            "rank",
            "week",
            "batch_availability",
            "od_core_hours",
            "score",
            "batch_jobs",
        ],
    )
    .with_notes(format!(
        "{} weeks of `{}` with both an LCRC and an APS file. §III-A: 'low average node \
         availability across 60 second periods' and 'high total resource usage' of the \
         on-demand jobs, 'the highest sum of usage and inverse of availability'; each part \
         divided by its largest value over the weeks, then added (ours: the paper gives no \
         weighting). The rule picks {picked} (expected {SELECTED_WEEK}); Table I runs on \
         {PAPER_WEEK}, the week the paper's artifact replays, which {}.",
        scores.len(),
        data,
        if paper_has_aps {
            "is scored here"
        } else {
            "the rule cannot score: its APS file is in no public copy"
        }
    ));
    for (rank, &i) in order.iter().enumerate().take(10) {
        let s = &scores[i];
        let jobs = weeks
            .iter()
            .find(|(w, _, _)| *w == s.week)
            .map_or(0, |w| w.1.len());
        table.row([
            Cell::from(rank + 1),
            Cell::Text(s.week.clone()),
            Cell::fixed(s.batch_availability, 4),
            Cell::fixed(s.on_demand_core_seconds / 3600.0, 1),
            Cell::fixed(s.score, 3),
            Cell::from(jobs),
        ]);
    }
    Ok(table)
}
