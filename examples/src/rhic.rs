//! What the RHIC examples (`rhic_*`, Clay, Shen, Ma, Gu, "Adaptive Cluster Sizing for Residual
//! Resource Harvesting in Interactive Clouds", Table 1 and Figures 9–16) share beyond the
//! crate's [`cosched_rhic::scenario`] (the runs on the paper's testbed, the approaches, the
//! comparisons): their options, the parallel sweep, and the tables and plots.

use cosched_core::seed::replicate_seeds;
use cosched_core::stats::Spread;
use cosched_rhic::env::JobProfile;
use cosched_rhic::scenario::{self, Comparison, Metric, Run, best_worst};
use cosched_rhic::sim::{Outcome, SimError};

use crate::{BarChart, Cell, Claims, CommonArgs, LinePlot, Sweep, Table};

/// The options of every RHIC example: the common ones and how many seeds to average.
#[derive(Debug, Clone, PartialEq, Eq, clap::Parser)]
pub struct RhicArgs {
    /// `--quick`, `--out`, `--seed`.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Seeds averaged, from `--seed` on (wrapping past u64::MAX) [default: the example's;
    /// quick: 2].
    #[arg(long)]
    pub seeds: Option<u64>,
}

impl RhicArgs {
    /// Parses the process's arguments, the help headed by `about`; exits on `--help` or an
    /// error, as clap does.
    pub fn parse_with(about: &'static str) -> Self {
        use clap::{CommandFactory, FromArgMatches};
        let matches = Self::command().about(about).get_matches();
        Self::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }

    /// The seeds: `--seeds` (else `full`, or 2 when quick; at least 1, at most 1,000) from
    /// `--seed` on, wrapping past `u64::MAX`.
    pub fn seeds(&self, full: u64) -> Vec<u64> {
        let n = self
            .seeds
            .unwrap_or(if self.common.quick { 2 } else { full })
            .clamp(1, 1000);
        replicate_seeds(self.common.seed, n).collect()
    }

    /// The jobs: the four Hadoop ones, or `quick_jobs` when quick.
    pub fn jobs(&self, quick_jobs: &[JobProfile]) -> Vec<JobProfile> {
        if self.common.quick {
            quick_jobs.to_vec()
        } else {
            JobProfile::HADOOP.to_vec()
        }
    }
}

/// A bar chart with one group per job and one bar per named series.
pub fn job_chart(
    file: &str,
    title: &str,
    y_label: &str,
    jobs: &[JobProfile],
    series: impl IntoIterator<Item = (String, Vec<f64>)>,
) -> BarChart {
    let mut chart = BarChart::new(file, title, jobs.iter().map(|p| p.name())).y_label(y_label);
    for (name, values) in series {
        chart = chart.series(name, values);
    }
    chart
}

/// The fixed pool sizes of the exhaustive survey: `0..=max` every 2 (the paper's step, §5.2),
/// every 6 when `quick` (and `max`).
pub fn sizes(max: usize, quick: bool) -> Vec<usize> {
    let step = if quick { 6 } else { 2 };
    let mut v: Vec<usize> = (0..=max).step_by(step).collect();
    if v.last() != Some(&max) {
        v.push(max);
    }
    v
}

/// Runs every run (in parallel, results in input order).
///
/// # Errors
/// The first run the simulator rejects.
pub fn run_all(label: &str, runs: Vec<Run>) -> Result<Vec<(Run, Outcome)>, SimError> {
    Sweep::new(label, runs)
        .run(Run::simulate)
        .into_iter()
        .map(|(c, o)| o.map(|o| (c, o)))
        .collect()
}

/// The notes every RHIC table carries: what is the paper's and what is ours.
pub fn assumptions() -> String {
    "Simulated testbed (`cosched_rhic::env`): the paper's 16-core 2 GHz nodes with 8 GB shared by \
     the foreground and volunteer VMs (§5.1), Table 2's foreground CPU rows exactly and its normal \
     session lengths, every node busy at the start, 1-minute profiling and evaluation intervals \
     on 1 s samples (§4.1); Wordcount/Grep BWUtil from §3.2's best ratios, job work and the power \
     model (194 W idle, 328 W busy) fitted on the simulated Pi rows of Table 1. Ours: the burst shape between \
     Table 2's moments, 5-minute gaps between sessions, memory, 30 s VM boot, smooth disk \
     saturation (n = 4), 30 % I/O imbalance, reading noise, task lengths and the straggler tail \
     (a job ends with its last wave of tasks or with backup copies on the dedicated nodes)."
        .to_owned()
}

/// The exhaustive runs (every size of `sizes`, which do not depend on the metric) and one
/// RHIC run per metric, for every job and seed ([`scenario::comparison_runs`]), compared over
/// all seeds.
///
/// # Errors
/// The first run the simulator rejects.
pub fn compare(
    label: &str,
    profiles: &[JobProfile],
    metrics: &[Metric],
    sizes: &[usize],
    quick: bool,
    seeds: &[u64],
) -> Result<Vec<Comparison>, SimError> {
    compare_per_seed(label, profiles, metrics, sizes, quick, seeds).map(|(all, _)| all)
}

/// [`compare`], and the same comparisons on each seed alone (in `seeds` order), for the
/// seed-to-seed spread of a figure.
///
/// # Errors
/// The first run the simulator rejects.
pub fn compare_per_seed(
    label: &str,
    profiles: &[JobProfile],
    metrics: &[Metric],
    sizes: &[usize],
    quick: bool,
    seeds: &[u64],
) -> Result<(Vec<Comparison>, Vec<Vec<Comparison>>), SimError> {
    let runs = run_all(
        label,
        scenario::comparison_runs(profiles, metrics, sizes, quick, seeds),
    )?;
    let per_seed = seeds
        .iter()
        .map(|&seed| {
            let mine: Vec<(Run, Outcome)> = runs
                .iter()
                .filter(|(r, _)| r.config.seed == seed)
                .cloned()
                .collect();
            scenario::comparisons(&mine, profiles, metrics)
        })
        .collect();
    Ok((scenario::comparisons(&runs, profiles, metrics), per_seed))
}

/// The rule for every cost and energy figure of the paper (Table 1's ranges, Figs. 9–10's
/// largest spreads): ours within this share of the paper's value. One rule per quantity: the
/// paper reports each as the mean of two or three runs (§5, §5.2), with no spread, and
/// Table 1's rows are the same costs and energies the spreads are made of.
pub const FIGURE_TOLERANCE: f64 = 0.15;

/// Whether `ours` is within [`FIGURE_TOLERANCE`] of the paper's `theirs`.
pub fn within_figure(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= FIGURE_TOLERANCE * theirs.abs()
}

/// The largest spread (worst over best, %) among `rows`, and the seed-to-seed spread of the
/// largest spread over `per_seed` (what one seed alone would show).
pub fn max_spread(rows: &[Comparison], per_seed: &[Vec<Comparison>]) -> (f64, Option<Spread>) {
    let max = |rows: &[Comparison]| rows.iter().map(Comparison::spread_pct).fold(0.0, f64::max);
    let seeds: Vec<f64> = per_seed.iter().map(|r| max(r)).collect();
    (max(rows), Spread::of(&seeds))
}

/// The table of comparisons: best and worst size, spread, RHIC and its distance from the
/// best with its spread over seeds; the column `variant` holds `label` of each comparison.
pub fn comparison_table(
    (name, title): (&str, &str),
    unit: &str,
    notes: String,
    rows: &[Comparison],
    (variant, label): (&str, impl Fn(&Comparison) -> Cell),
) -> Table {
    let best = format!("best ({unit})");
    let worst = format!("worst ({unit})");
    let rhic = format!("RHIC ({unit})");
    let mut table = Table::new(
        name,
        title,
        [
            "job",
            variant,
            "best size",
            best.as_str(),
            "worst size",
            worst.as_str(),
            "spread (%)",
            rhic.as_str(),
            "RHIC over best (%)",
            "± sd",
            "RHIC mean volunteers",
        ],
    )
    .with_notes(notes);
    for c in rows {
        let Some(((bk, b), (wk, w))) = best_worst(&c.curve) else {
            continue;
        };
        let spread = c.over_best_spread();
        table.row([
            Cell::from(c.profile.name()),
            label(c),
            Cell::from(Some(bk as u64)),
            Cell::fixed(b, 2),
            Cell::from(Some(wk as u64)),
            Cell::fixed(w, 2),
            Cell::fixed(c.spread_pct(), 1),
            Cell::fixed(c.rhic_mean(), 2),
            Cell::fixed(spread.map_or(f64::NAN, |s| s.mean), 1),
            spread
                .and_then(|s| s.sd)
                .map_or(Cell::Empty, |sd| Cell::fixed(sd, 1)),
            Cell::fixed(c.rhic_volunteers, 1),
        ]);
    }
    table
}

/// The per-size curves as a table (and so a CSV): one row per job, variant and size.
pub fn curve_table(
    name: &str,
    unit: &str,
    rows: &[Comparison],
    label: impl Fn(&Comparison) -> String,
) -> Table {
    let value = format!("mean ({unit})");
    let mut t = Table::new(
        format!("{name}_curves"),
        "Exhaustive curves: the metric at every fixed size (mean over seeds)",
        ["job", "variant", "volunteers", value.as_str()],
    );
    for c in rows {
        for &(k, v) in &c.curve {
            t.row([
                Cell::from(c.profile.name()),
                Cell::Text(label(c)),
                Cell::from(Some(k as u64)),
                Cell::fixed(v, 3),
            ]);
        }
    }
    t
}

/// A plot of the curves of `rows`, each with RHIC's mean as a flat line across the sizes.
pub fn comparison_plot(file: &str, title: &str, y_label: &str, rows: &[&Comparison]) -> LinePlot {
    let mut plot = LinePlot::new(file, title)
        .x_label("volunteers")
        .y_label(y_label);
    for c in rows {
        let last = c.curve.last().map_or(0.0, |&(k, _)| k as f64);
        plot = plot
            .series(
                format!("Exh., {}", c.profile.name()),
                c.curve.iter().map(|&(k, v)| (k as f64, v)),
            )
            .series(
                format!("RHIC, {}", c.profile.name()),
                [(0.0, c.rhic_mean()), (last, c.rhic_mean())],
            );
    }
    plot
}

/// `"m ± sd (n)"` of a spread, one decimal (percentages).
pub fn show(s: Option<Spread>) -> String {
    show_with(s, 1)
}

/// `"m ± sd (n)"` of a spread with `decimals` decimals.
pub fn show_with(s: Option<Spread>, decimals: usize) -> String {
    match s {
        Some(s) => match s.sd {
            Some(sd) => format!("{:.d$} ± {:.d$} (n = {})", s.mean, sd, s.n, d = decimals),
            None => format!("{:.d$} (n = 1)", s.mean, d = decimals),
        },
        None => "n/a".to_owned(),
    }
}

/// The checks and calibration targets of an example (invariants, identities, what the testbed
/// was calibrated on), checked on our numbers like the paper's claims but listed apart
/// (`checks.csv` and a table in `table.md`), never counted in "claims reproduced".
pub fn checks_table(checks: &Claims) -> Table {
    let mut table = Table::new(
        "checks",
        format!(
            "Checks and calibration targets (not paper claims): {} of {} hold",
            checks.passed(),
            checks.len()
        ),
        ["kind", "check", "ours", "expected", "verdict", "reason"],
    );
    for c in &checks.claims {
        table.row([
            Cell::Text(c.source.clone()),
            Cell::Text(c.claim.clone()),
            Cell::Text(c.ours.clone()),
            Cell::Text(c.paper.clone()),
            Cell::from(if c.pass { "holds" } else { "FAILS" }),
            c.reason.clone().map_or(Cell::Empty, Cell::Text),
        ]);
    }
    table
}
