//! What the RHIC examples (`rhic_fig*`, Clay, Shen, Ma, Gu, "Adaptive Cluster Sizing for
//! Residual Resource Harvesting in Interactive Clouds", Figures 9–16) share: the job and
//! cloud setup, the sweep over simulated runs, and the averages over seeds.
//!
//! Our setup, the same in every figure unless it says otherwise: 6 dedicated 4-core nodes and
//! 36 interactive ones (the paper's 6 + 0–36), a job of two hours of dedicated-only work (one
//! in `--quick`), the default environment of [`EnvConfig`] and the assumed Table 2 and job
//! I/O profiles of [`cosched_rhic::env`] — [`assumptions`] prints them into every table's
//! notes.

use cosched_rhic::CostModel;
use cosched_rhic::env::{JobProfile, Workload};
use cosched_rhic::sim::{EnvConfig, Outcome, SimConfig, Strategy, simulate};
use cosched_rhic::{Goal, PowerModel};

use crate::{BarChart, Cell, CommonArgs, LinePlot, Sweep, Table};

/// The paper's volunteer prices, dollars per hour (dedicated: $1.00/h).
pub const PRICES: [f64; 4] = [0.20, 0.42, 0.60, 0.80];

/// `CPU_max` of every node in our setup.
pub const CORES: u32 = 4;

/// The paper's prices with the volunteer at `usd_per_hour`.
pub fn price(usd_per_hour: f64) -> CostModel {
    CostModel::new(1_000_000, (usd_per_hour * 1e6).round() as u64)
}

/// Our node power model: 100 W idle, 200 W at full load.
pub fn power() -> PowerModel {
    PowerModel::new(100.0, 200.0).expect("100 <= 200")
}

/// A run of `profile` on `dedicated` nodes beside `interactive` ones, sized by `strategy`
/// under `goal`: two hours of dedicated-only work (one hour when `quick`).
pub fn config(
    profile: JobProfile,
    dedicated: u32,
    interactive: usize,
    goal: Goal,
    strategy: Strategy,
    quick: bool,
    seed: u64,
) -> SimConfig {
    let hours = if quick { 1.0 } else { 2.0 };
    let work = f64::from(dedicated * CORES) * hours * 3600.0;
    let mut c = SimConfig::new(profile, dedicated, work, goal, strategy);
    c.env = EnvConfig {
        cores: CORES,
        interactive_nodes: interactive,
        ..EnvConfig::default()
    };
    c.power = power();
    c.seed = seed;
    c
}

/// The options of every RHIC example: the common ones and how many seeds to average.
#[derive(Debug, Clone, PartialEq, Eq, clap::Parser)]
pub struct RhicArgs {
    /// `--quick`, `--out`, `--seed`.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Seeds averaged, from `--seed` on [default: the example's; quick: 1].
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

    /// The seeds averaged: `--seeds` (else `full`, or 1 when quick) from `--seed` on.
    pub fn seeds(&self, full: u64) -> Vec<u64> {
        let n = self
            .seeds
            .unwrap_or(if self.common.quick { 1 } else { full })
            .max(1);
        (self.common.seed..self.common.seed + n).collect()
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

/// The fixed pool sizes of an exhaustive curve: `0..=max`, every 6th when `quick` (and `max`).
pub fn sizes(max: usize, quick: bool) -> Vec<usize> {
    let step = if quick { 6 } else { 1 };
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
) -> Result<Vec<(SimConfig, Outcome)>, cosched_core::ParamError> {
    Sweep::new(label, configs)
        .run(simulate)
        .into_iter()
        .map(|(c, o)| o.map(|o| (c, o)))
        .collect()
}

/// The mean of `xs` (NaN when empty).
pub fn mean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = xs
        .into_iter()
        .fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    sum / n as f64
}

/// The population standard deviation of `xs` (NaN when empty).
pub fn sd(xs: &[f64]) -> f64 {
    let m = mean(xs.iter().copied());
    mean(xs.iter().map(|x| (x - m).powi(2))).sqrt()
}

/// An exhaustive curve: for each fixed size, the mean of `metric` over the seeds, among the
/// `runs` of `profile` under [`Strategy::Fixed`].
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

/// The best (lowest) and worst points of a curve: `((size, value), (size, value))`.
pub fn best_worst(curve: &[(usize, f64)]) -> ((usize, f64), (usize, f64)) {
    let by = |a: &&(usize, f64), b: &&(usize, f64)| a.1.total_cmp(&b.1);
    let best = *curve.iter().min_by(by).expect("a curve has points");
    let worst = *curve.iter().max_by(by).expect("a curve has points");
    (best, worst)
}

/// `100 · (a − b) / b`.
pub fn pct_over(a: f64, b: f64) -> f64 {
    100.0 * (a - b) / b
}

/// The notes every RHIC table carries: what is ours rather than the paper's.
pub fn assumptions() -> String {
    let table2: Vec<String> = Workload::ALL
        .iter()
        .map(|w| {
            let s = w.stats();
            format!(
                "{} {:.0}±{:.0} % CPU, bursts {:.0} % for {:.0} s, sessions {:.0}±{:.0} min, \
                 {:.1} GiB ±50 %",
                w.name(),
                s.mean_pct,
                s.sd_pct,
                s.burst_pct,
                s.burst_len_s,
                s.session_mean_s / 60.0,
                s.session_sd_s / 60.0,
                s.memory_mb as f64 / 1024.0
            )
        })
        .collect();
    let profiles: Vec<String> = JobProfile::HADOOP
        .iter()
        .chain(&JobProfile::HBASE)
        .map(|p| format!("{} {:.2}", p.name(), p.bw_util()))
        .collect();
    let e = EnvConfig::default();
    format!(
        "Simulated (ours), not the paper's testbed. OUR ASSUMPTIONS, not the paper's Table 2 \
         (which we could not consult): {}. Job BWUtil (ours): {}. {CORES}-core 8 GiB nodes, \
         1 GiB VMs, 100 W idle / 200 W busy, {:.0} % I/O imbalance across dedicated nodes, VM \
         setup {} s, drain ≤ {} s, {:.0} core-s tasks, noise: CPU {:.1} cores, progress {:.0} %, \
         bandwidth {:.0} %; 5-minute evaluation intervals, 10 s samples, 1 min profiling.",
        table2.join("; "),
        profiles.join(", "),
        e.imbalance * 100.0,
        e.setup.0,
        e.max_drain.0,
        e.task_work,
        e.cpu_noise,
        e.progress_noise * 100.0,
        e.bw_noise * 100.0
    )
}

/// What an exhaustive-vs-RHIC comparison measures, and hence RHIC's goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// Dollars at these prices (goal: cost).
    Cost(CostModel),
    /// Megajoules ([`Outcome::energy_j`]): the dedicated nodes in full, the volunteers by
    /// what they add to their hosts (goal: energy).
    Energy,
}

impl Metric {
    /// The metric of one run.
    pub fn of(&self, o: &Outcome) -> f64 {
        match self {
            Metric::Cost(m) => o.bill_at(m).total.usd(),
            Metric::Energy => o.energy_j / 1e6,
        }
    }

    /// RHIC's goal for this metric.
    pub fn goal(&self) -> Goal {
        match *self {
            Metric::Cost(m) => Goal::Cost(m),
            Metric::Energy => Goal::Energy(power()),
        }
    }
}

/// One job under one metric: the exhaustive curve over fixed sizes and RHIC's result, each a
/// mean over the same seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The job.
    pub profile: JobProfile,
    /// The metric (and RHIC's goal).
    pub metric: Metric,
    /// `(size, mean metric)` for every fixed size.
    pub curve: Vec<(usize, f64)>,
    /// RHIC's mean metric.
    pub rhic: f64,
    /// RHIC's mean number of volunteers in the pool.
    pub rhic_volunteers: f64,
}

impl Comparison {
    /// `100 · (worst − best) / worst` over the curve.
    pub fn spread_pct(&self) -> f64 {
        let ((_, best), (_, worst)) = best_worst(&self.curve);
        100.0 * (worst - best) / worst
    }
}

/// The exhaustive runs (every size of `sizes`, which runs do not depend on the metric) and
/// one RHIC run per metric, for every job and seed; `dedicated` + `interactive` nodes.
///
/// # Errors
/// The first configuration the simulator rejects.
pub fn compare(
    label: &str,
    profiles: &[JobProfile],
    metrics: &[Metric],
    (dedicated, interactive): (u32, usize),
    sizes: &[usize],
    quick: bool,
    seeds: &[u64],
) -> Result<Vec<Comparison>, cosched_core::ParamError> {
    let mut configs = Vec::new();
    for &p in profiles {
        for &seed in seeds {
            for &k in sizes {
                let goal = Goal::Cost(price(0.42)); // a fixed size ignores the goal
                let c = config(
                    p,
                    dedicated,
                    interactive,
                    goal,
                    Strategy::Fixed(k),
                    quick,
                    seed,
                );
                configs.push(c);
            }
            for m in metrics {
                let mut c = config(
                    p,
                    dedicated,
                    interactive,
                    m.goal(),
                    Strategy::Rhic,
                    quick,
                    seed,
                );
                if let Metric::Cost(model) = m {
                    c.cost = *model;
                }
                configs.push(c);
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
                rhic: mean(rhic.iter().map(|o| m.of(o))),
                rhic_volunteers: mean(rhic.iter().map(|o| o.mean_volunteers)),
            });
        }
    }
    Ok(out)
}

/// The table of comparisons: best and worst size, spread, RHIC and its distance from the
/// best; the column `variant` holds `label` of each comparison (e.g. its price).
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
            "RHIC mean volunteers",
        ],
    )
    .with_notes(notes);
    for c in rows {
        let ((bk, b), (wk, w)) = best_worst(&c.curve);
        table.row([
            Cell::from(c.profile.name()),
            label(c),
            Cell::from(Some(bk as u64)),
            Cell::fixed(b, 2),
            Cell::from(Some(wk as u64)),
            Cell::fixed(w, 2),
            Cell::fixed(c.spread_pct(), 1),
            Cell::fixed(c.rhic, 2),
            Cell::fixed(pct_over(c.rhic, b), 1),
            Cell::fixed(c.rhic_volunteers, 1),
        ]);
    }
    table
}

/// A plot of the curves of `rows`, each with RHIC's result as a flat line across the sizes.
pub fn comparison_plot(file: &str, title: &str, y_label: &str, rows: &[&Comparison]) -> LinePlot {
    let mut plot = LinePlot::new(file, title)
        .x_label("volunteers")
        .y_label(y_label);
    for c in rows {
        let last = c.curve.last().map_or(0.0, |&(k, _)| k as f64);
        plot = plot
            .series(
                c.profile.name(),
                c.curve.iter().map(|&(k, v)| (k as f64, v)),
            )
            .series(
                format!("RHIC, {}", c.profile.name()),
                [(0.0, c.rhic), (last, c.rhic)],
            );
    }
    plot
}

/// The table comparing our largest best-to-worst spread with the paper's.
pub fn spread_table(name: &str, what: &str, rows: &[Comparison], paper_pct: f64) -> Table {
    let ours = rows.iter().map(Comparison::spread_pct).fold(0.0, f64::max);
    let mut t = Table::new(
        format!("{name}_spread"),
        format!("Largest best-to-worst {what} spread over the sizes"),
        ["", "ours (%)", "paper (%)"],
    );
    t.row([
        Cell::from("max spread"),
        Cell::fixed(ours, 1),
        Cell::paper(Some(paper_pct), 0),
    ]);
    t
}
