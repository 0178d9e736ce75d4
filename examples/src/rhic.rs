//! What the RHIC examples (`rhic_*`, Clay, Shen, Ma, Gu, "Adaptive Cluster Sizing for Residual
//! Resource Harvesting in Interactive Clouds", Table 1 and Figures 9–16) share: the runs on the
//! paper's testbed ([`cosched_rhic::env`]: Table 2, 16-core nodes, 1-minute control on 1 s
//! samples), the exhaustive survey over fixed sizes, RHIC and the baselines on the same seeds,
//! and the comparisons, with the paper's numbers beside ours.

use cosched_core::seed::replicate_seeds;
use cosched_core::stats::{self, Spread};
use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::{Outcome, SimConfig, SimError, Strategy, simulate};
use cosched_rhic::{CostModel, Goal, PowerModel};

use crate::{BarChart, Cell, CommonArgs, LinePlot, Sweep, Table};

/// The paper's volunteer prices, dollars per hour (dedicated: $1.00/h), Fig. 9.
pub const PRICES: [f64; 4] = [0.20, 0.42, 0.60, 0.80];

/// Table 1 of the paper: per job, (cost min, max in $; energy min, max in Wh) over 0–36
/// volunteers beside 6 dedicated nodes.
pub fn table1(profile: JobProfile) -> Option<[f64; 4]> {
    match profile {
        JobProfile::Wordcount => Some([4.42, 6.38, 1273.0, 1957.0]),
        JobProfile::Grep => Some([2.40, 5.83, 710.0, 894.0]),
        JobProfile::Pi => Some([9.25, 16.63, 2963.0, 5461.0]),
        JobProfile::WordCooccurrence => Some([7.72, 11.41, 2230.0, 3987.0]),
        _ => None,
    }
}

/// The paper's prices with the volunteer at `usd_per_hour`.
pub fn price(usd_per_hour: f64) -> CostModel {
    CostModel::new(1_000_000, (usd_per_hour * 1e6).round() as u64)
}

/// Interactive nodes beside the job: 36 for Hadoop (§5.2), 18 for HBasePCF (§5.5).
pub fn interactive(profile: JobProfile) -> usize {
    if JobProfile::HBASE.contains(&profile) {
        18
    } else {
        36
    }
}

/// A run of `profile` on the paper's testbed sized by `strategy` under `goal`; `quick` runs a
/// quarter of the job's work.
pub fn config(
    profile: JobProfile,
    goal: Goal,
    strategy: Strategy,
    quick: bool,
    seed: u64,
) -> SimConfig {
    let mut c = SimConfig::new(profile, goal, strategy);
    if let Goal::Cost(m) = goal {
        c.cost = m;
    }
    if quick {
        c.work /= 4.0;
    }
    c.env.interactive_nodes = interactive(profile);
    c.seed = seed;
    c
}

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

/// Runs every configuration (in parallel, results in input order).
///
/// # Errors
/// The first configuration the simulator rejects.
pub fn run_all(
    label: &str,
    configs: Vec<SimConfig>,
) -> Result<Vec<(SimConfig, Outcome)>, SimError> {
    Sweep::new(label, configs)
        .run(simulate)
        .into_iter()
        .map(|(c, o)| o.map(|o| (c, o)))
        .collect()
}

/// The mean of `xs` (NaN when empty), by `cosched_core::stats`.
pub fn mean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.into_iter().collect();
    stats::mean(&v).unwrap_or(f64::NAN)
}

/// An exhaustive curve: for each fixed size, the mean of `metric` over the seeds, among the
/// `runs` of `profile` under [`Strategy::Fixed`] with churn `churn`.
pub fn curve(
    runs: &[(SimConfig, Outcome)],
    profile: JobProfile,
    metric: impl Fn(&Outcome) -> f64,
) -> Vec<(usize, f64)> {
    let mut sizes: Vec<usize> = runs
        .iter()
        .filter_map(|(c, _)| match c.strategy {
            Strategy::Fixed(k) if c.profile == profile => Some(k),
            _ => None,
        })
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
        .into_iter()
        .map(|k| {
            let m = mean(
                runs.iter()
                    .filter(|(c, _)| c.profile == profile && c.strategy == Strategy::Fixed(k))
                    .map(|(_, o)| metric(o)),
            );
            (k, m)
        })
        .collect()
}

/// The best (lowest) and worst points of a curve, `None` when it is empty.
pub fn best_worst(curve: &[(usize, f64)]) -> Option<((usize, f64), (usize, f64))> {
    let by = |a: &&(usize, f64), b: &&(usize, f64)| a.1.total_cmp(&b.1);
    Some((*curve.iter().min_by(by)?, *curve.iter().max_by(by)?))
}

/// `100 · (a − b) / b`.
pub fn pct_over(a: f64, b: f64) -> f64 {
    100.0 * (a - b) / b
}

/// The notes every RHIC table carries: what is the paper's and what is ours.
pub fn assumptions() -> String {
    "Simulated testbed (`cosched_rhic::env`): the paper's 16-core 2 GHz nodes with 8 GB shared by \
     the foreground and volunteer VMs (§5.1), Table 2's foreground CPU rows exactly and its normal \
     session lengths, every node busy at the start, 1-minute profiling and evaluation intervals \
     on 1 s samples (§4.1); Wordcount/Grep BWUtil from §3.2's best ratios, job work and the power \
     model (175 W idle, 328 W busy) from Table 1's exhaustive rows. Ours: the burst shape between \
     Table 2's moments, 5-minute gaps between sessions, memory, 30 s VM boot, smooth disk \
     saturation (n = 4), 30 % I/O imbalance, reading noise, task lengths and the straggler tail \
     (a job ends with its last wave of tasks or with backup copies on the dedicated nodes)."
        .to_owned()
}

/// What an exhaustive-vs-RHIC comparison measures, and hence RHIC's goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// Dollars at these prices (goal: cost).
    Cost(CostModel),
    /// Watt-hours billed to the job (goal: energy).
    Energy,
}

impl Metric {
    /// The metric of one run.
    pub fn of(&self, o: &Outcome) -> f64 {
        match self {
            Metric::Cost(m) => o.bill_at(m).total.usd(),
            Metric::Energy => o.energy_j / 3600.0,
        }
    }

    /// RHIC's goal for this metric.
    pub fn goal(&self) -> Goal {
        match *self {
            Metric::Cost(m) => Goal::Cost(m),
            Metric::Energy => Goal::Energy(PowerModel::arc()),
        }
    }

    /// `cost` or `energy`.
    pub fn name(&self) -> &'static str {
        match self {
            Metric::Cost(_) => "cost",
            Metric::Energy => "energy",
        }
    }
}

/// One job under one metric: the exhaustive curve over fixed sizes and RHIC's results on the
/// same seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The job.
    pub profile: JobProfile,
    /// The metric (and RHIC's goal).
    pub metric: Metric,
    /// `(size, mean metric)` for every fixed size.
    pub curve: Vec<(usize, f64)>,
    /// RHIC's metric, one per seed.
    pub rhic: Vec<f64>,
    /// RHIC's mean number of volunteers in the pool.
    pub rhic_volunteers: f64,
}

impl Comparison {
    /// `100 · (worst − best) / worst` over the curve.
    pub fn spread_pct(&self) -> f64 {
        best_worst(&self.curve).map_or(f64::NAN, |((_, b), (_, w))| 100.0 * (w - b) / w)
    }

    /// RHIC's mean metric.
    pub fn rhic_mean(&self) -> f64 {
        mean(self.rhic.iter().copied())
    }

    /// RHIC's percent above the exhaustive best, per seed.
    pub fn over_best(&self) -> Vec<f64> {
        let best = best_worst(&self.curve).map_or(f64::NAN, |((_, b), _)| b);
        self.rhic.iter().map(|&r| pct_over(r, best)).collect()
    }

    /// The spread of [`Comparison::over_best`] over the seeds.
    pub fn over_best_spread(&self) -> Option<Spread> {
        Spread::of(&self.over_best())
    }
}

/// The exhaustive runs (every size of `sizes`, which do not depend on the metric) and one
/// RHIC run per metric, for every job and seed.
///
/// # Errors
/// The first configuration the simulator rejects.
pub fn compare(
    label: &str,
    profiles: &[JobProfile],
    metrics: &[Metric],
    sizes: &[usize],
    quick: bool,
    seeds: &[u64],
) -> Result<Vec<Comparison>, SimError> {
    let mut configs = Vec::new();
    for &p in profiles {
        for &seed in seeds {
            for &k in sizes {
                let goal = Goal::Cost(price(0.42)); // a fixed size ignores the goal
                configs.push(config(p, goal, Strategy::Fixed(k), quick, seed));
            }
            for m in metrics {
                configs.push(config(p, m.goal(), Strategy::Rhic, quick, seed));
            }
        }
    }
    let runs = run_all(label, configs)?;
    let mut out = Vec::new();
    for &p in profiles {
        for m in metrics {
            let rhic: Vec<&Outcome> = runs
                .iter()
                .filter(|(c, _)| {
                    c.profile == p && c.strategy == Strategy::Rhic && c.goal == m.goal()
                })
                .map(|(_, o)| o)
                .collect();
            out.push(Comparison {
                profile: p,
                metric: *m,
                curve: curve(&runs, p, |o| m.of(o)),
                rhic: rhic.iter().map(|o| m.of(o)).collect(),
                rhic_volunteers: mean(rhic.iter().map(|o| o.mean_volunteers)),
            });
        }
    }
    Ok(out)
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
