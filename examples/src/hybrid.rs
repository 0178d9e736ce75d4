//! What the `hybrid_*` examples share (Fan et al., IPDPS 2022): the two machines and their
//! generated workloads, the seven configurations (baseline and six mechanisms), their runs'
//! reports gathered as [`Runs`] (every mean through [`Replicates`], core's statistics), and the
//! metric columns of the tables.

use crate::{Cell, Claims, CommonArgs, LinePlot, Replicates, Sweep, Table};
use cosched_core::RigidJob;
/// The name of a configuration: `baseline` or e.g. `CUP&SPAA`, as the reports name it.
pub use cosched_hybrid::mechanism_name as configuration_name;
use cosched_hybrid::scenario;
pub use cosched_hybrid::scenario::{
    Machine, PaperBaseline, WorkloadStats, configurations, simulate_trace as simulate, type_params,
    typing_seed,
};
use cosched_hybrid::workload::{TraceParams, TypeParams, assign_types_within, generate};
use cosched_hybrid::{HybridConfig, HybridError, HybridReport};
use cosched_workload::swf::read_rigid_jobs;
use std::path::PathBuf;

/// The most seeds or typings a flag may ask for: every replicate holds a trace, so an
/// unchecked count would allocate without bound.
pub const MAX_REPLICATES: u64 = 1_000;

/// `n` for the flag `--flag` when it lies in `1..=`[`MAX_REPLICATES`], else an error naming
/// the flag.
///
/// ```
/// use cosched_examples::hybrid::replicates;
/// assert_eq!(replicates("seeds", 3), Ok(3));
/// assert!(replicates("seeds", 0).is_err());
/// assert!(replicates("typings", u64::MAX).is_err());
/// ```
pub fn replicates(flag: &str, n: u64) -> Result<u64, String> {
    if (1..=MAX_REPLICATES).contains(&n) {
        Ok(n)
    } else {
        Err(format!(
            "--{flag} must lie in 1..={MAX_REPLICATES}, not {n}"
        ))
    }
}

/// The baseline row of Table III for a trace of `params` generated with `seed`, averaged
/// over `typings` typings (W5 notice mix: the baseline ignores notices).
pub fn baseline_row(params: &TraceParams, seed: u64, typings: u64) -> Result<Runs, HybridError> {
    baseline_of(&generate(params, seed)?, params.nodes, seed, typings)
}

/// The baseline row of Table III for `trace` on `nodes` nodes, averaged over `typings` typings
/// of `seed` (for a trace the caller has altered, e.g. the calibration's estimate models).
pub fn baseline_of(
    trace: &[RigidJob],
    nodes: u32,
    seed: u64,
    typings: u64,
) -> Result<Runs, HybridError> {
    baseline_and_share(trace, nodes, seed, typings).map(|(runs, _)| runs)
}

/// [`baseline_of`] with the typings' mean on-demand share of the capacity (Obs. 9), from the
/// typings the runs used.
pub fn baseline_and_share(
    trace: &[RigidJob],
    nodes: u32,
    seed: u64,
    typings: u64,
) -> Result<(Runs, f64), HybridError> {
    let mut runs = Vec::new();
    let mut shares = Vec::new();
    for t in 0..typings {
        let typing =
            assign_types_within(trace, &TypeParams::default(), nodes, typing_seed(seed, t))?;
        shares.push(typing.on_demand_share);
        runs.push(scenario::simulate(HybridConfig::new(nodes)?, None, &typing.jobs)?.report);
    }
    let share = cosched_core::stats::mean(&shares).unwrap_or(f64::NAN);
    Ok((Replicates::new(runs), share))
}

/// One configuration's runs (over seeds, typings, or configurations pooled with [`pooled`]):
/// any metric's mean or spread through [`Replicates`] (core's statistics), picked from the
/// report by a closure, e.g. `runs.mean(|r| r.instant_start_ratio)`.
pub type Runs = Replicates<HybridReport>;

/// The runs of several configurations as one (their mean is the mean of their means when each
/// holds as many runs, as every grid here does).
pub fn pooled<'a>(groups: impl IntoIterator<Item = &'a Runs>) -> Runs {
    Replicates::new(
        groups
            .into_iter()
            .flat_map(|g| g.runs().iter().cloned())
            .collect(),
    )
}

/// The column names of [`cells`].
pub const COLUMNS: [&str; 14] = [
    "on-demand instant start (%)",
    "turnaround all (h)",
    "turnaround rigid (h)",
    "turnaround malleable (h)",
    "rigid preempted (%)",
    "malleable preempted (%)",
    "malleable evicted as guests (%)",
    "utilisation, makespan (%)",
    "utilisation, arrival window (%)",
    "utilisation without setups and checkpoints, arrival window (%)",
    "held, arrival window (%)",
    "a job waiting, share of the window (%)",
    "nodes waiting, per node",
    "wasted (node-h)",
];

/// The table cells of `runs`' means, in [`COLUMNS`] order.
pub fn cells(runs: &Runs) -> [Cell; 14] {
    let percent = |metric: fn(&HybridReport) -> f64| Cell::fixed(100.0 * runs.mean(metric), 2);
    let hours = |metric: fn(&HybridReport) -> f64| Cell::fixed(runs.mean(metric), 2);
    [
        percent(|r| r.instant_start_ratio),
        hours(|r| r.turnaround_h),
        hours(|r| r.rigid_turnaround_h),
        hours(|r| r.malleable_turnaround_h),
        percent(|r| r.rigid_preempted_ratio),
        percent(|r| r.malleable_preempted_ratio),
        percent(|r| r.malleable_evicted_ratio),
        percent(|r| r.utilization),
        percent(|r| r.window_utilization),
        percent(|r| r.window_work_utilization),
        percent(|r| r.window_held_utilization),
        percent(|r| r.window_queue_share),
        Cell::fixed(runs.mean(|r| r.window_waiting_nodes), 2),
        Cell::fixed(runs.mean(|r| r.wasted_node_hours), 0),
    ]
}

/// A batch trace to run, with the machine it ran on.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Its name in tables (the file name).
    pub name: String,
    /// Nodes of its machine.
    pub nodes: u32,
    /// Its jobs.
    pub jobs: Vec<RigidJob>,
}

/// The `--trace FILE.swf` and `--trace-nodes N` flags.
#[derive(clap::Args, Debug, Default)]
pub struct TraceArgs {
    /// Run this SWF trace (plain or gzip), its group (else user) ids as projects.
    #[arg(long, value_name = "FILE.swf")]
    pub trace: Option<PathBuf>,
    /// Nodes of the trace's machine [default: its header's MaxNodes, else MaxProcs].
    #[arg(long, value_name = "N")]
    pub trace_nodes: Option<u32>,
}

impl TraceArgs {
    /// The trace asked for, if any.
    pub fn load(&self) -> Result<Option<Workload>, Box<dyn std::error::Error>> {
        let Some(path) = &self.trace else {
            return Ok(None);
        };
        let trace = read_rigid_jobs(path)?;
        let values = trace.header.values();
        let nodes = self
            .trace_nodes
            .or_else(|| {
                values
                    .max_nodes
                    .or(values.max_procs)
                    .and_then(|c| u32::try_from(c).ok())
            })
            .ok_or_else(|| {
                format!(
                    "{}: no MaxNodes/MaxProcs; pass --trace-nodes",
                    path.display()
                )
            })?;
        if nodes == 0 {
            return Err(format!("{}: --trace-nodes must be at least 1", path.display()).into());
        }
        // Repeated ids are an error; invalid jobs are left out (the one admission).
        let admitted = cosched_workload::admit::admit(&trace.jobs)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map_or("trace".into(), |n| n.to_string_lossy().into_owned());
        Ok(Some(Workload {
            name,
            nodes,
            jobs: admitted.jobs,
        }))
    }
}

/// The flags of a sensitivity-study example: the common ones and how many seeds to average.
#[derive(clap::Parser, Debug)]
pub struct StudyArgs {
    /// `--quick`, `--out`, `--seed`.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Seeds averaged and paired in the claims' comparisons [default: 5, quick: 3; one seed
    /// gives no interval].
    #[arg(long)]
    pub seeds: Option<u64>,
    /// A trace to study instead of the generated machine.
    #[command(flatten)]
    pub trace: TraceArgs,
}

impl StudyArgs {
    /// Parses the command line of an example described by `about` (exits on bad flags or
    /// `--help`, as clap does).
    pub fn parse_for(about: &'static str) -> StudyArgs {
        use clap::{CommandFactory, FromArgMatches};
        let matches = StudyArgs::command().about(about).get_matches();
        StudyArgs::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }

    /// The study these flags ask for: on `machine`, or on the trace given by `--trace`.
    pub fn study(
        &self,
        name: &'static str,
        machine: Machine,
    ) -> Result<Study, Box<dyn std::error::Error>> {
        let quick = self.common.quick;
        let seeds = replicates("seeds", self.seeds.unwrap_or(if quick { 3 } else { 5 }))?;
        Ok(Study {
            name,
            machine,
            trace: self.trace.load()?,
            quick,
            seed: self.common.seed,
            seeds,
        })
    }
}

/// A sensitivity study (Figures 8-10): one parameter's values x the seven configurations on
/// one machine, averaged over `seeds` generated traces.
pub struct Study {
    /// The example's name (progress bar, table and file names).
    pub name: &'static str,
    /// The machine generated for each seed...
    pub machine: Machine,
    /// ...unless this trace is given: then every seed types it anew.
    pub trace: Option<Workload>,
    /// Quick mode: fewer jobs.
    pub quick: bool,
    /// First seed.
    pub seed: u64,
    /// Traces averaged.
    pub seeds: u64,
}

impl Study {
    /// Runs every value x configuration x seed; `configure` sets the value into the type
    /// parameters and the simulator's configuration (which comes with the seed as failure
    /// seed). Returns the mean metrics per value, then per configuration of
    /// [`configurations`].
    pub fn run<P: Sync>(
        &self,
        values: &[P],
        configure: impl Fn(&P, &mut TypeParams, &mut HybridConfig) + Sync,
    ) -> Result<Vec<Vec<Runs>>, HybridError> {
        let seeds: Vec<u64> = cosched_core::seed::replicate_seeds(self.seed, self.seeds).collect();
        let traces: Vec<Vec<RigidJob>> = seeds
            .iter()
            .map(|&s| match &self.trace {
                Some(w) => Ok(w.jobs.clone()),
                None => self.machine.generate(self.quick, s),
            })
            .collect::<Result<_, HybridError>>()?;
        let nodes = self.nodes();
        let mechanisms = configurations();
        let (n_mechanisms, n_traces) = (mechanisms.len(), traces.len());
        let points: Vec<(usize, usize, usize)> = (0..values.len())
            .flat_map(|v| {
                (0..n_mechanisms).flat_map(move |m| (0..n_traces).map(move |t| (v, m, t)))
            })
            .collect();
        let results = Sweep::new(self.name, points).try_run(|&(v, m, t)| {
            let mut types = type_params(self.trace.is_some());
            let mut config = HybridConfig::new(nodes)?;
            let seed = seeds.get(t).copied().unwrap_or(self.seed);
            config.seed = seed;
            configure(&values[v], &mut types, &mut config);
            simulate(
                &traces[t],
                &types,
                typing_seed(seed, 0),
                config,
                mechanisms[m],
            )
        })?;
        Ok((0..values.len())
            .map(|v| {
                (0..mechanisms.len())
                    .map(|m| {
                        Replicates::new(
                            results
                                .iter()
                                .filter(|((pv, pm, _), _)| *pv == v && *pm == m)
                                .map(|(_, r)| r.clone())
                                .collect(),
                        )
                    })
                    .collect()
            })
            .collect())
    }

    /// Nodes of the system studied.
    pub fn nodes(&self) -> u32 {
        self.trace
            .as_ref()
            .map_or(self.machine.trace(self.quick).nodes, |w| w.nodes)
    }

    /// The table of a study: one row per value and configuration, every metric.
    pub fn table(
        &self,
        file: &str,
        title: &str,
        parameter: &str,
        labels: &[String],
        results: &[Vec<Runs>],
    ) -> Table {
        let mut columns = vec![parameter.to_string(), "mechanism".to_string()];
        columns.extend(COLUMNS.iter().map(|c| c.to_string()));
        let (system, jobs) = match &self.trace {
            Some(w) => (w.name.as_str(), w.jobs.len()),
            None => (self.machine.name(), self.machine.trace(self.quick).jobs),
        };
        let mut table = Table::new(file, title, columns).with_notes(format!(
            "{system}: {} nodes, {} typing(s) of {jobs} jobs averaged (seeds {}..), W5 notice mix.",
            self.nodes(),
            self.seeds,
            self.seed
        ));
        for (label, row) in labels.iter().zip(results) {
            for (mechanism, m) in configurations().into_iter().zip(row) {
                let mut cells = vec![
                    Cell::Text(label.clone()),
                    Cell::Text(configuration_name(mechanism)),
                ];
                cells.extend(self::cells(m));
                table.row(cells);
            }
        }
        table
    }

    /// A line plot of one metric over the parameter's values `xs`, one series per
    /// configuration.
    pub fn plot(
        file: &str,
        title: &str,
        x_label: &str,
        xs: &[f64],
        results: &[Vec<Runs>],
        y_label: &str,
        pick: fn(&Runs) -> f64,
    ) -> LinePlot {
        configurations().into_iter().enumerate().fold(
            LinePlot::new(file, title).x_label(x_label).y_label(y_label),
            |plot, (m, mechanism)| {
                plot.series(
                    configuration_name(mechanism),
                    xs.iter().zip(results).map(|(&x, row)| (x, pick(&row[m]))),
                )
            },
        )
    }
}

/// Claims whose figures include a quantity with no data (a mean over no job, a ratio over no
/// elapsed time: NaN, which Rust prints as `NaN`) show it as `n/a` and fail with why, from
/// `runs`: how many jobs there were, completed, were larger than the machine or invalid, and
/// were on-demand.
pub fn mark_no_data<'a>(claims: &mut Claims, runs: impl IntoIterator<Item = &'a HybridReport>) {
    let (mut n, mut jobs, mut completed, mut rejected, mut invalid, mut on_demand) =
        (0, 0, 0, 0, 0, 0);
    for r in runs {
        n += 1;
        jobs += r.jobs;
        completed += r.completed;
        rejected += r.rejected;
        invalid += r.invalid;
        on_demand += r.on_demand;
    }
    for c in claims.claims.iter_mut().filter(|c| c.ours.contains("NaN")) {
        c.ours = c.ours.replace("NaN", "n/a");
        c.pass = false;
        c.reason = Some(format!(
            "no data: over {n} run(s), {completed} of {jobs} jobs completed ({rejected} larger \
             than the machine, {invalid} invalid), {on_demand} of them on-demand; a mean over \
             no job or a share of no elapsed time is undefined (n/a)"
        ));
    }
}

/// Paired comparisons ([`crate::paired`], no tolerance: one replicate is "no significant
/// difference").
pub use crate::paired::{Paired, Significance};

/// The significance rule of every comparison between mechanisms in the `hybrid_*` examples,
/// printed beside their claims.
pub const SIGNIFICANCE_RULE: &str = "a comparison is decided on paired replicates (same \
    trace, same typing): the first differs from the second when the 95 % Student-t interval \
    of the mean paired difference excludes 0; a claim of order fails otherwise (or with one \
    replicate). A claim of equality holds when that whole interval lies within its stated \
    equivalence margin. Samples nothing pairs (two systems) are compared by Welch's 95 % \
    interval of the difference of their means";

/// One comparison a claim makes: `label` (e.g. `cori N&SPAA - N&PAA util, pp`), the paired
/// difference (`None`: no data) and the order the claim wants.
pub struct Comparison {
    /// What is compared.
    pub label: String,
    /// The paired difference.
    pub paired: Option<Paired>,
    /// The order the claim needs ([`Significance::NoSignificantDifference`] for a claim of equality).
    pub want: Significance,
    /// Scale of the printed difference.
    pub scale: f64,
    /// Whether "no significant difference" satisfies the claim too (a claim of "similar or
    /// even lower").
    pub or_same: bool,
    /// For a claim of equality: the equivalence margin (unscaled) the whole 95 % interval of
    /// the difference must lie within ([`Comparison::equivalent`]).
    pub margin: Option<f64>,
}

impl Comparison {
    /// The comparison of `a` with `b` (paired by index) labelled `label`, wanting `want`,
    /// printed scaled by `scale`.
    pub fn new(label: String, a: &[f64], b: &[f64], want: Significance, scale: f64) -> Comparison {
        Comparison {
            label,
            paired: Paired::new(a, b),
            want,
            scale,
            or_same: false,
            margin: None,
        }
    }

    /// A claim of equality of `a` and `b` (paired by index): it holds when the 95 % Student-t
    /// interval of the mean paired difference lies within `± margin` (an equivalence test:
    /// "not significant" would pass any comparison too noisy to decide). Unscaled margin.
    pub fn equivalent(label: String, a: &[f64], b: &[f64], margin: f64, scale: f64) -> Comparison {
        Comparison {
            margin: Some(margin),
            ..Comparison::new(label, a, b, Significance::NoSignificantDifference, scale)
        }
    }

    /// `a` against `b` from *independent* samples (e.g. two systems: nothing pairs their
    /// replicates): the difference of the means with Welch's 95 % interval, decided as a
    /// paired difference is.
    pub fn independent(
        label: String,
        a: &[f64],
        b: &[f64],
        want: Significance,
        scale: f64,
    ) -> Comparison {
        Comparison {
            label: format!("{label} (independent samples, Welch's 95 % interval)"),
            paired: welch(a, b),
            ..Comparison::new(String::new(), &[], &[], want, scale)
        }
    }

    /// The same comparison, also satisfied by "no significant difference" (a claim of
    /// "similar or even lower").
    pub fn or_same(self) -> Comparison {
        Comparison {
            or_same: true,
            ..self
        }
    }

    /// Whether it holds under [`SIGNIFICANCE_RULE`] (a claim of equality with a margin: the
    /// whole interval within it).
    pub fn holds(&self) -> bool {
        self.paired.is_some_and(|p| match self.margin {
            Some(margin) => p
                .difference
                .ci95_half_width
                .is_some_and(|h| p.difference.mean.abs() + h <= margin),
            None => {
                let order = p.significance();
                order == self.want
                    || (self.or_same && order == Significance::NoSignificantDifference)
            }
        })
    }

    /// `label: difference ± half (n, verdict)`, with the margin of a claim of equality.
    pub fn describe(&self) -> String {
        let margin = self.margin.map_or(String::new(), |m| {
            format!(" [margin ±{:.2}]", self.scale * m)
        });
        match self.paired {
            Some(p) => format!("{}: {}{margin}", self.label, p.describe_scaled(self.scale)),
            None => format!("{}: no data", self.label),
        }
    }
}

/// The difference of the means of independent samples `a` and `b` with Welch's 95 %
/// interval (Welch–Satterthwaite degrees of freedom), as a [`Paired`] for the shared rule;
/// `None` with fewer than two values on either side.
fn welch(a: &[f64], b: &[f64]) -> Option<Paired> {
    use cosched_core::stats::{Spread, mean, sample_sd};
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (va, vb) = (sample_sd(a)?.powi(2) / na, sample_sd(b)?.powi(2) / nb);
    let d = mean(a)? - mean(b)?;
    let se = (va + vb).sqrt();
    let df = (va + vb).powi(2) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    let half = if se > 0.0 && df.is_finite() {
        StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(0.975) * se
    } else {
        0.0
    };
    Some(Paired {
        difference: Spread {
            n: a.len().min(b.len()),
            mean: d,
            sd: None,
            min: d,
            max: d,
            ci95_half_width: Some(half),
        },
        base: mean(b)?,
        tolerance: None,
    })
}

/// Every comparison described, `; `-separated.
pub fn describe_all(comparisons: &[Comparison]) -> String {
    comparisons
        .iter()
        .map(Comparison::describe)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Checks a claim made of `comparisons` (all must hold) and, if given, `extra`: a condition
/// that is not a comparison (e.g. a level against the paper's figure) with its text. Our
/// figures are the comparisons with their intervals; a failure's reason lists what fails.
pub fn check_all(
    claims: &mut Claims,
    source: &str,
    claim: &str,
    paper: &str,
    comparisons: &[Comparison],
    extra: Option<(bool, String)>,
) {
    let (held, why) = failed_comparisons(comparisons);
    let (extra_ok, extra_text) = extra.unwrap_or((true, String::new()));
    let pass = held == comparisons.len() && extra_ok;
    let ours = [extra_text.clone(), describe_all(comparisons)]
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    let checked = claims.check(source, claim, ours, paper, pass);
    if !pass {
        let mut reason = Vec::new();
        if !extra_ok {
            reason.push(extra_text);
        }
        if held < comparisons.len() {
            reason.push(why);
        }
        checked.because(reason.join("; "));
    }
}

/// A level claim on replicates `xs` (e.g. each replicate's six-mechanism mean instant start):
/// whether the 95 % t-interval of their mean reaches `at_least`, i.e. the mean is not
/// significantly below it (our seed-to-seed spread as the tolerance), and its text, e.g.
/// `theta six-mean instant start, % 97.90 ± 0.40 (n 10; needs mean + half-width >= 97.50)`,
/// scaled by `scale`.
///
/// ```
/// use cosched_examples::hybrid::reaches;
/// assert!(reaches("x", &[0.97, 0.98, 0.99], 0.985, 1.0).0);
/// assert!(!reaches("x", &[0.90, 0.91, 0.90], 0.98, 1.0).0);
/// assert!(!reaches("x", &[], 0.98, 1.0).0);
/// ```
pub fn reaches(label: &str, xs: &[f64], at_least: f64, scale: f64) -> (bool, String) {
    match cosched_core::stats::Spread::of(xs).filter(|s| s.mean.is_finite()) {
        Some(s) => {
            let half = s.ci95_half_width.unwrap_or(0.0);
            (
                s.mean + half >= at_least,
                format!(
                    "{label} {:.2} ± {:.2} (n {}; needs mean + half-width >= {:.2})",
                    scale * s.mean,
                    scale * half,
                    s.n,
                    scale * at_least
                ),
            )
        }
        None => (false, format!("{label} n/a")),
    }
}

/// For each replicate of a [`Study`] row (its traces, in order), `f`'s mean over `groups`
/// (e.g. the six mechanisms): the values paired comparisons take.
pub fn per_replicate<'a>(
    groups: impl IntoIterator<Item = &'a Runs>,
    f: impl Fn(&HybridReport) -> f64,
) -> Vec<f64> {
    let groups: Vec<&Runs> = groups.into_iter().collect();
    let n = groups.iter().map(|g| g.runs().len()).min().unwrap_or(0);
    (0..n)
        .map(|i| groups.iter().map(|g| f(&g.runs()[i])).sum::<f64>() / groups.len() as f64)
        .collect()
}

/// How many of `comparisons` hold, and the reason listing those that do not (each with its
/// measured difference and interval), computed from the run.
pub fn failed_comparisons(comparisons: &[Comparison]) -> (usize, String) {
    let held = comparisons.iter().filter(|c| c.holds()).count();
    let failed: Vec<String> = comparisons
        .iter()
        .filter(|c| !c.holds())
        .map(|c| {
            let want = match (c.want, c.or_same) {
                (Significance::Higher, false) => "needs higher",
                (Significance::Lower, false) => "needs lower",
                (Significance::Higher, true) => "needs higher or no significant difference",
                (Significance::Lower, true) => "needs lower or no significant difference",
                (Significance::NoSignificantDifference, _) if c.margin.is_some() => {
                    "needs the 95 % interval within the margin"
                }
                (Significance::NoSignificantDifference, _) => "needs no significant difference",
            };
            format!("{} [{want}]", c.describe())
        })
        .collect();
    (
        held,
        format!(
            "{held}/{} comparisons hold; failing: {}",
            comparisons.len(),
            failed.join("; ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_follow_the_shared_rule() {
        // Equal on every replicate: no difference, which holds for a claim of equality only.
        let same = Paired::new(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        let want = |want| Comparison {
            label: "x".into(),
            paired: Some(same),
            want,
            scale: 1.0,
            or_same: false,
            margin: None,
        };
        let nsd = Significance::NoSignificantDifference;
        assert!(want(nsd).holds() && !want(Significance::Higher).holds());
        assert!(want(Significance::Lower).or_same().holds());
        let (held, why) = failed_comparisons(&[want(nsd), want(Significance::Lower)]);
        assert_eq!(held, 1);
        assert!(why.contains("x: +0.00 ± 0.00 (n 3, no significant difference) [needs lower]"));
        // One replicate: no interval, so no significant difference.
        let one = Comparison::new("y".into(), &[5.0], &[1.0], Significance::Higher, 1.0);
        assert!(!one.holds());
        assert_eq!(
            one.describe(),
            "y: +4.00 (n 1, no interval: no significant difference)"
        );
    }

    #[test]
    fn equivalence_needs_the_whole_interval_inside_the_margin() {
        let (a, b) = ([1.0, 1.2, 0.9, 1.1], [1.0, 1.0, 1.0, 1.0]);
        // Mean difference +0.05, interval about ±0.17: inside ±0.5, not inside ±0.1.
        assert!(Comparison::equivalent("x".into(), &a, &b, 0.5, 1.0).holds());
        assert!(!Comparison::equivalent("x".into(), &a, &b, 0.1, 1.0).holds());
        // One replicate shows nothing.
        assert!(!Comparison::equivalent("x".into(), &[1.0], &[1.0], 0.5, 1.0).holds());
        // Too noisy to decide is not equivalence, though not significant either.
        let noisy = Comparison::equivalent("x".into(), &[0.0, 2.0], &[1.0, 1.0], 0.5, 1.0);
        assert!(!noisy.holds());
        assert!(noisy.describe().ends_with("[margin ±0.50]"));
    }

    #[test]
    fn independent_samples_use_welchs_interval() {
        // Means 10 and 5, each sample's sd 1 over 4 values: the difference 5 ± about 1.7.
        let a = [9.0, 10.0, 11.0, 10.0];
        let b = [4.0, 5.0, 6.0, 5.0];
        let c = Comparison::independent("x".into(), &a, &b, Significance::Higher, 1.0);
        assert!(c.holds());
        let p = c.paired.unwrap();
        assert!((p.difference.mean - 5.0).abs() < 1e-12);
        let half = p.difference.ci95_half_width.unwrap();
        assert!(half > 1.0 && half < 2.0, "{half}");
        // Overlapping samples: no significant difference.
        let d = Comparison::independent(
            "x".into(),
            &a,
            &[8.0, 12.0, 9.0, 11.0],
            Significance::Higher,
            1.0,
        );
        assert!(!d.holds());
    }

    #[test]
    fn seven_configurations_and_pooled_means() {
        let names: Vec<String> = configurations()
            .into_iter()
            .map(configuration_name)
            .collect();
        assert_eq!(names[0], "baseline");
        assert_eq!(names[6], "CUP&SPAA");
        let trace = Machine::Cori.generate(true, 1).unwrap();
        let config = HybridConfig::new(12_076).unwrap();
        // 200 jobs cannot hold Obs. 9's on-demand share: the first typing, whatever its share.
        let params = TypeParams {
            on_demand_share: None,
            ..TypeParams::default()
        };
        let report = simulate(&trace[..200], &params, 1, config, None).unwrap();
        let (mut a, mut b) = (report.clone(), report);
        a.instant_start_ratio = 0.2;
        b.instant_start_ratio = 0.4;
        let one = Replicates::new(vec![a.clone()]);
        let two = Replicates::new(vec![b]);
        let both = pooled([&one, &two]);
        assert!((both.mean(|r| r.instant_start_ratio) - 0.3).abs() < 1e-12);
        assert!(pooled([]).mean(|r| r.turnaround_h).is_nan());
        assert_eq!(cells(&one)[0], Cell::fixed(20.0, 2));
    }
}
