//! Fan et al., "Hybrid Workload Scheduling on HPC Systems" (IPDPS 2022), Table III (the
//! FCFS/EASY baseline) and Figures 3–5 (size mix, job types, on-demand jobs per week) for the
//! generated Theta-like and Cori-like workloads, and the calibration that fixed them.
//!
//! The workload is calibrated on the baseline only: the arrival rate is the
//! real log's (Theta 2019: 37,298 jobs a year; Cori Apr–Jul 2018: 2,607,054 jobs in 122 days,
//! Table I); the run-time scale and the project sessions (bursts) are chosen on Table III's
//! baseline row — turnaround, utilisation and on-demand instant start together. `--calibrate`
//! prints the grid the choice was made on. The six mechanisms' rows (`hybrid_fig6_7`) are
//! then predictions.
//!
//! What this example checks are calibration targets, not paper claims (the brief): Table III's
//! baseline row and Obs. 9's on-demand share of the capacity (3–15 %), each within a stated
//! tolerance, listed under "Checks and calibration targets" and never counted in "claims
//! reproduced".

use clap::Parser;
use cosched_core::RigidJob;
use cosched_core::seed::replicate_seeds;
use cosched_core::stats::Spread;
use cosched_examples::hybrid::{
    Machine, PaperBaseline, Runs, WorkloadStats, baseline_and_share, baseline_row, pooled,
    replicates,
};
use cosched_examples::paired::Paired;
use cosched_examples::rhic::checks_table;
use cosched_examples::{BarChart, Cell, Claims, CommonArgs, Sweep, Table};
use cosched_hybrid::workload::{ArrivalCycle, Sessions, TraceParams, generate};
use cosched_workload::lublin::LublinParams;

const NAME: &str = "hybrid_table3";

#[derive(Parser)]
#[command(about = "Table III baseline and Figures 3-5 of the generated hybrid workloads")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// Typings averaged per trace (the paper: 10) [default: 10, quick: 2].
    #[arg(long)]
    typings: Option<u64>,
    /// Generated traces per system (seeds S, S+1, ...), reported with their spread
    /// [default: 3, quick: 2].
    #[arg(long)]
    seeds: Option<u64>,
    /// Also print the calibration grid of the baseline (Theta: run-time scale × sessions, and
    /// estimates at the limit; Cori: run-time scale × share of estimates at the limit).
    #[arg(long)]
    calibrate: bool,
}

/// How close a calibrated baseline must come to Table III to count as reproduced (ours:
/// turnaround within 25 %, utilisation within 3 points, instant start within 5 points).
const TOLERANCE: (f64, f64, f64) = (0.25, 0.03, 0.05);

/// Obs. 9: "on-demand jobs represent 3%-15% of total capacity" (the paper's range).
const ON_DEMAND_CAPACITY: (f64, f64) = (0.03, 0.15);

/// A queue stands when some job waits for its first start during most of the arrival window
/// (ours).
const STANDING_QUEUE: f64 = 0.5;

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

/// A figure's mean ± the half-width of its 95 % confidence interval, then the seeds' values.
fn spread_cell(values: &[f64], scale: f64) -> Cell {
    let text = match Spread::of(values) {
        Some(s) => {
            let each = values
                .iter()
                .map(|v| format!("{:.2}", scale * v))
                .collect::<Vec<_>>()
                .join(" / ");
            match s.ci95_half_width {
                Some(h) => format!("{:.2} ± {:.2} ({each})", scale * s.mean, scale * h),
                None => format!("{:.2} ({each})", scale * s.mean),
            }
        }
        None => "n/a".into(),
    };
    Cell::Text(text)
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let quick = cli.common.quick;
    let mut out = cli.common.output(NAME)?;
    let typings = replicates("typings", cli.typings.unwrap_or(if quick { 2 } else { 10 }))?;
    let n_seeds = replicates("seeds", cli.seeds.unwrap_or(if quick { 2 } else { 3 }))?;
    let seed = cli.common.seed;
    let seeds: Vec<u64> = replicate_seeds(seed, n_seeds).collect();

    let points: Vec<(Machine, u64)> = Machine::ALL
        .iter()
        .flat_map(|&m| seeds.iter().map(move |&s| (m, s)))
        .collect();
    let rows = Sweep::new(format!("{NAME} baseline"), points)
        .try_run(|&(machine, s)| baseline_row(&machine.trace(quick), s, typings))?;
    let per_machine = |machine: Machine| -> Vec<Runs> {
        rows.iter()
            .filter(|((m, _), _)| *m == machine)
            .map(|(_, r)| r.clone())
            .collect()
    };

    let mut table = Table::new(
        NAME,
        "Table III: the FCFS/EASY baseline, ours beside the paper's",
        [
            "system",
            "jobs",
            "turnaround (h)",
            "paper turnaround (h)",
            "utilisation (%)",
            "paper utilisation (%)",
            "instant start (%)",
            "paper instant start (%)",
            "offered load (%)",
            "a job waiting (% of window)",
        ],
    )
    .with_notes(format!(
        "Ours: mean ± 95 % CI half-width over {n_seeds} generated trace(s) per system (seeds \
         {seed}..; each seed's value in brackets), each averaged over {typings} typing(s) by \
         project (the paper: 10). Theta-like: the 2019 log's year; Cori-like: the 2018 log's \
         four months (Table I: 2,607,054 jobs in 122 days). Utilisation over the arrival window (useful node-hours / elapsed \
         node-hours, §IV-D); turnaround over all jobs."
    ));
    let mut stats_table = Table::new(
        format!("{NAME}_fig3_5"),
        "Figures 3-5: the generated workloads (the paper's figures give no numbers but Cori's \
         76 % single-node jobs)",
        [
            "system",
            "single-node jobs (%)",
            "jobs <= 128 nodes (%)",
            "node-h of jobs > 1,024 nodes (%)",
            "on-demand jobs (%)",
            "rigid jobs (%)",
            "malleable jobs (%)",
            "on-demand / week: mean",
            "max",
            "CV",
            "on-demand share of capacity (%): mean",
            "range over typings",
            "paper (Obs. 9)",
        ],
    );
    let mut checks = Claims::new("hybrid");
    let mut ours = Vec::new();
    let mut workloads = Vec::new();
    for machine in Machine::ALL {
        let params = machine.trace(quick);
        let runs = per_machine(machine);
        let pick = |f: fn(&Runs) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
        let (turnaround, utilisation, instant) = (
            pick(|m| m.mean(|r| r.turnaround_h)),
            pick(|m| m.mean(|r| r.window_utilization)),
            pick(|m| m.mean(|r| r.instant_start_ratio)),
        );
        let ours_mean = pooled(&runs);
        let paper = machine.paper_baseline();
        table.row([
            Cell::Text(machine.name().into()),
            Cell::Text(params.jobs.to_string()),
            spread_cell(&turnaround, 1.0),
            Cell::fixed(paper.turnaround_hours, 2),
            spread_cell(&utilisation, 100.0),
            Cell::fixed(100.0 * paper.utilization, 2),
            spread_cell(&instant, 100.0),
            Cell::fixed(100.0 * paper.instant_start, 2),
            spread_cell(&pick(|m| m.mean(|r| r.offered_load)), 100.0),
            spread_cell(&pick(|m| m.mean(|r| r.window_queue_share)), 100.0),
        ]);
        check_baseline(&mut checks, machine, &ours_mean, &paper);
        check_queue(&mut checks, machine, &ours_mean);
        ours.push((ours_mean, paper));
        let st = WorkloadStats::of(&params, seed, typings)?;
        stats_table.row([
            Cell::Text(machine.name().into()),
            Cell::fixed(100.0 * st.single_node, 1),
            Cell::fixed(100.0 * st.small, 1),
            Cell::fixed(100.0 * st.large_node_hours, 1),
            Cell::fixed(100.0 * st.types[0], 1),
            Cell::fixed(100.0 * st.types[1], 1),
            Cell::fixed(100.0 * st.types[2], 1),
            Cell::fixed(st.weekly_mean, 1),
            Cell::fixed(st.weekly_max, 0),
            Cell::fixed(st.weekly_cv, 2),
            Cell::fixed(100.0 * st.on_demand_capacity, 1),
            Cell::Text(format!(
                "{:.1}-{:.1}",
                100.0 * st.on_demand_capacity_range.0,
                100.0 * st.on_demand_capacity_range.1
            )),
            Cell::Text("3-15".into()),
        ]);
        check_capacity(&mut checks, machine, &st, typings);
        check_facts(&mut checks, machine, &st, quick);
        workloads.push((machine, st));
        if cli.calibrate {
            // One typing a point on the Cori-like log's length (a run there costs about 10
            // CPU-seconds), two on Theta-like.
            let per_point = if machine == Machine::Cori {
                1
            } else {
                typings.min(2)
            };
            for t in calibration(machine, quick, &seeds, per_point)? {
                out.write_table(&t)?;
            }
        }
    }
    check_types(&mut checks, &workloads);
    out.write_table(&table)?;
    out.write_table(&stats_table)?;
    let systems = Machine::ALL.map(Machine::name);
    let instant = BarChart::new(
        "baseline_instant_start",
        "Table III: baseline on-demand instant start, ours vs the paper's",
        systems,
    )
    .y_label("instant start (%)")
    .series(
        "ours",
        ours.iter()
            .map(|(o, _)| 100.0 * o.mean(|r| r.instant_start_ratio)),
    )
    .series("paper", ours.iter().map(|(_, p)| 100.0 * p.instant_start));
    out.write_plot(&instant)?;
    let utilisation = BarChart::new(
        "baseline_utilisation",
        "Table III: baseline utilisation, ours (arrival window) vs the paper's",
        systems,
    )
    .y_label("utilisation (%)")
    .series(
        "ours",
        ours.iter()
            .map(|(o, _)| 100.0 * o.mean(|r| r.window_utilization)),
    )
    .series("paper", ours.iter().map(|(_, p)| 100.0 * p.utilization));
    out.write_plot(&utilisation)?;
    let turnaround = BarChart::new(
        "baseline_turnaround",
        "Table III: baseline mean turnaround, ours vs the paper's",
        systems,
    )
    .y_label("turnaround (h)")
    .series("ours", ours.iter().map(|(o, _)| o.mean(|r| r.turnaround_h)))
    .series("paper", ours.iter().map(|(_, p)| p.turnaround_hours));
    out.write_plot(&turnaround)?;
    out.write_table(&checks_table(&checks))?;
    Ok(())
}

/// Obs. 9's on-demand share of the capacity: the typings' mean within the paper's range.
fn check_capacity(checks: &mut Claims, machine: Machine, st: &WorkloadStats, typings: u64) {
    let (lo, hi) = ON_DEMAND_CAPACITY;
    let share = st.on_demand_capacity;
    let ok = (lo..=hi).contains(&share);
    let check = checks.check(
        format!("calibration, Obs. 9, {}", machine.slug()),
        format!(
            "on-demand jobs' runs take 3-15 % of the capacity (nodes x arrival window, each run \
             clipped to the window as if started at arrival) on \
             {} (tolerance: the paper's range, on the mean of {typings} typing(s))",
            machine.name()
        ),
        format!(
            "{:.1} % (typings {:.1}-{:.1} %)",
            100.0 * share,
            100.0 * st.on_demand_capacity_range.0,
            100.0 * st.on_demand_capacity_range.1
        ),
        "3-15 %",
        ok,
    );
    if !ok {
        check.because(format!(
            "{:.1} % lies {} the paper's range",
            100.0 * share,
            if share < lo { "below" } else { "above" }
        ));
    }
}

/// What Table I and §IV-A state of a log: jobs, days, the longest job (hours), the share of
/// single-node jobs where stated.
struct Facts {
    jobs: usize,
    days: f64,
    max_runtime_h: f64,
    single_node: Option<f64>,
}

/// Table I (Theta: 2019, 37,298 jobs, at most 1 day; Cori: Apr-Jul 2018, 122 days, 2,607,054
/// jobs, at most 7 days) and §IV-A ("Cori log contains 76% of single-node jobs").
fn facts(machine: Machine) -> Facts {
    match machine {
        Machine::Theta => Facts {
            jobs: 37_298,
            days: 365.0,
            max_runtime_h: 24.0,
            single_node: None,
        },
        Machine::Cori => Facts {
            jobs: 2_607_054,
            days: 122.0,
            max_runtime_h: 168.0,
            single_node: Some(0.76),
        },
    }
}

/// The generated trace meets the log's stated facts ([`facts`]): its job count, its span
/// within 1 % of the log's days (the arrival rate's rescaling), no job longer than the
/// log's limit, the single-node share within 1 point (ours: job arrays copy one job's size).
fn check_facts(checks: &mut Claims, machine: Machine, st: &WorkloadStats, quick: bool) {
    let f = facts(machine);
    let paper = format!(
        "{} jobs in {:.0} days, at most {:.0} h{}",
        f.jobs,
        f.days,
        f.max_runtime_h,
        f.single_node.map_or(String::new(), |s| format!(
            ", {:.0} % single-node",
            100.0 * s
        ))
    );
    let ours = format!(
        "{} jobs in {:.1} days, at most {:.1} h, {:.1} % single-node",
        st.jobs,
        st.span_days,
        st.max_runtime_h,
        100.0 * st.single_node
    );
    let source = format!("calibration, Table I, {}", machine.slug());
    let claim = format!(
        "the generated {} trace has the log's length and job count, its longest job and \
         (Cori) its single-node share (a stated fact; tolerance: span 1 %, share 1 point)",
        machine.name()
    );
    if quick {
        checks.not_exercised(
            source,
            claim,
            ours,
            paper,
            format!("quick mode generates {} jobs", st.jobs),
        );
        return;
    }
    let mut missed = Vec::new();
    if st.jobs != f.jobs {
        missed.push(format!("{} jobs, not {}", st.jobs, f.jobs));
    }
    if (st.span_days / f.days - 1.0).abs() > 0.01 {
        missed.push(format!("{:.1} days, not {:.0}", st.span_days, f.days));
    }
    if st.max_runtime_h > f.max_runtime_h {
        missed.push(format!("a job of {:.1} h", st.max_runtime_h));
    }
    if let Some(single) = f.single_node
        && (st.single_node - single).abs() > 0.01
    {
        missed.push(format!("{:.1} % single-node", 100.0 * st.single_node));
    }
    let check = checks.check(source, claim, ours, paper, missed.is_empty());
    if !missed.is_empty() {
        check.because(missed.join("; "));
    }
}

/// §IV-A on the typed traces (Fig. 4): "Cori has a higher percentage of rigid jobs and a lower
/// percentage of malleable jobs compared to Theta", and "Cori's malleable jobs are, on average,
/// larger in size than rigid and [on-demand]" jobs (the sentence says "malleable"; we read the
/// other type).
fn check_types(checks: &mut Claims, workloads: &[(Machine, WorkloadStats)]) {
    let find = |m: Machine| workloads.iter().find(|(w, _)| *w == m).map(|(_, st)| st);
    let (Some(theta), Some(cori)) = (find(Machine::Theta), find(Machine::Cori)) else {
        return;
    };
    let shares = |st: &WorkloadStats| {
        format!(
            "rigid {:.1} %, malleable {:.1} %",
            100.0 * st.types[1],
            100.0 * st.types[2]
        )
    };
    let ok = cori.types[1] > theta.types[1] && cori.types[2] < theta.types[2];
    let check = checks.check(
        "calibration, Fig. 4, types",
        "Cori-like has more rigid and fewer malleable jobs than Theta-like (§IV-A, a stated \
         fact of the typing)",
        format!("Cori-like {}; Theta-like {}", shares(cori), shares(theta)),
        "Cori more rigid, fewer malleable",
        ok,
    );
    if !ok {
        check.because(format!(
            "Cori-like {} against Theta-like {}",
            shares(cori),
            shares(theta)
        ));
    }
    let [od, rigid, malleable] = cori.mean_size;
    let ok = malleable > rigid && malleable > od;
    let sizes =
        format!("mean size: malleable {malleable:.1}, rigid {rigid:.1}, on-demand {od:.1} nodes");
    let check = checks.check(
        "calibration, Fig. 4, sizes",
        "Cori-like's malleable jobs are on average larger than its rigid and on-demand jobs \
         (§IV-A, a stated fact of the typing)",
        sizes.clone(),
        "malleable the largest",
        ok,
    );
    if !ok {
        check.because(sizes);
    }
}

/// The baseline keeps a standing queue ([`STANDING_QUEUE`]), and how much of the offered work
/// it leaves undone in the window: over a window the trace starts empty, utilisation is the
/// offered load less the work still queued or running at its end, so that gap bounds what any
/// mechanism can add to the baseline's utilisation.
fn check_queue(checks: &mut Claims, machine: Machine, ours: &Runs) {
    let share = ours.mean(|r| r.window_queue_share);
    let offered = ours.mean(|r| r.offered_load);
    let util = ours.mean(|r| r.window_utilization);
    let ok = share >= STANDING_QUEUE;
    let check = checks.check(
        format!("calibration, standing queue, {}", machine.slug()),
        format!(
            "the FCFS/EASY baseline on {} keeps a queue: some job waits for its first start in \
             at least half the arrival window (ours)",
            machine.name()
        ),
        format!(
            "a job waiting in {:.1} % of the window; offered load {:.2} %, utilisation {:.2} %: \
             {:.2} pp of the offered work undone at the window's end (the most a mechanism \
             can add)",
            100.0 * share,
            100.0 * offered,
            100.0 * util,
            100.0 * (offered - util)
        ),
        "a standing queue (Table III's utilisation with a queue)",
        ok,
    );
    if !ok {
        check.because(format!(
            "a job waits in only {:.1} % of the window",
            100.0 * share
        ));
    }
}

/// Table III's baseline row on our calibrated workload, within [`TOLERANCE`].
fn check_baseline(checks: &mut Claims, machine: Machine, ours: &Runs, paper: &PaperBaseline) {
    let (dt, du, di) = TOLERANCE;
    let t_ok = (ours.mean(|r| r.turnaround_h) / paper.turnaround_hours - 1.0).abs() <= dt;
    let u_ok = (ours.mean(|r| r.window_utilization) - paper.utilization).abs() <= du;
    let i_ok = (ours.mean(|r| r.instant_start_ratio) - paper.instant_start).abs() <= di;
    let claim = checks.check(
        format!("calibration, Table III, {}", machine.slug()),
        format!(
            "the FCFS/EASY baseline on {} (calibrated: turnaround within 25 %, utilisation \
             within 3 points, instant start within 5 points)",
            machine.name()
        ),
        format!(
            "{:.2} h, {:.2} %, {:.2} %",
            ours.mean(|r| r.turnaround_h),
            100.0 * ours.mean(|r| r.window_utilization),
            100.0 * ours.mean(|r| r.instant_start_ratio)
        ),
        format!(
            "{:.2} h, {:.2} %, {:.2} %",
            paper.turnaround_hours,
            100.0 * paper.utilization,
            100.0 * paper.instant_start
        ),
        t_ok && u_ok && i_ok,
    );
    let ours_t = ours.mean(|r| r.turnaround_h);
    let ours_u = ours.mean(|r| r.window_utilization);
    let ours_i = ours.mean(|r| r.instant_start_ratio);
    let mut missed = Vec::new();
    if !t_ok {
        missed.push(format!(
            "turnaround {ours_t:.2} h is {:+.0} % from {:.2} h (tolerance 25 %)",
            100.0 * (ours_t / paper.turnaround_hours - 1.0),
            paper.turnaround_hours
        ));
    }
    if !u_ok {
        missed.push(format!(
            "utilisation {:.2} % is {:+.2} points from {:.2} % (tolerance 3)",
            100.0 * ours_u,
            100.0 * (ours_u - paper.utilization),
            100.0 * paper.utilization
        ));
    }
    if !i_ok {
        missed.push(format!(
            "instant start {:.2} % is {:+.2} points from {:.2} % (tolerance 5)",
            100.0 * ours_i,
            100.0 * (ours_i - paper.instant_start),
            100.0 * paper.instant_start
        ));
    }
    if !missed.is_empty() {
        claim.because(format!(
            "{}; the calibration grid (--calibrate) and the workload module docs say what \
             was tried",
            missed.join("; ")
        ));
    }
}

/// How the calibration grid sets the jobs' run-time estimates, which gate EASY's backfilling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Estimates {
    /// Tsafrir's model of user estimates (the default workloads').
    Tsafrir,
    /// Every estimate at the machine's job-length limit (Table I; backfilling only into nodes
    /// the head job's reservation leaves over).
    Limit,
}

impl Estimates {
    fn name(self) -> &'static str {
        match self {
            Estimates::Tsafrir => "Tsafrir",
            Estimates::Limit => "limit",
        }
    }

    /// Sets the estimates of `trace` (generated with `limit` as its longest run time).
    fn apply(self, trace: &mut [RigidJob], limit: cosched_core::Duration) {
        for job in trace {
            match self {
                Estimates::Tsafrir => {}
                Estimates::Limit => job.estimate = limit.max(job.runtime),
            }
        }
    }
}

/// One point of the calibration grid: a run-time scale, the sessions, the share of parallel
/// jobs in the large-size tail (Cori-like only), the estimates, the arrival swings and the
/// trace's length.
#[derive(Clone, Copy, PartialEq)]
struct Knobs {
    scale: f64,
    sessions: Sessions,
    tail: f64,
    estimates: Estimates,
    /// Tsafrir's share of estimates at the limit (`None`: the model's own).
    at_limit: Option<f64>,
    cycle: Option<ArrivalCycle>,
    jobs: usize,
}

impl Knobs {
    /// The same point (the tail share computed from the model's parameters carries rounding).
    fn same(&self, other: &Knobs) -> bool {
        Knobs {
            tail: other.tail,
            ..*self
        } == *other
            && (self.tail - other.tail).abs() < 1e-9
    }

    /// Eligible to be the workload's point: Tsafrir's model of estimates (at any share at the
    /// limit, one of the model's inputs) at the length Table I states and with the workload's
    /// arrival swings (the rest are diagnostics).
    fn eligible(&self, base: &TraceParams) -> bool {
        self.estimates == Estimates::Tsafrir && self.jobs == base.jobs && self.cycle == base.cycle
    }
}

/// The name of a point's arrival swings in the grid's tables.
fn swing_name(cycle: Option<ArrivalCycle>) -> String {
    match cycle {
        None => "none (the model's clock rescaled)".into(),
        Some(c) if (c.weekend - 1.0).abs() < 1e-12 => format!("day {:.0} %", 100.0 * c.day),
        Some(c) => format!("day {:.0} %, weekends x {:.2}", 100.0 * c.day, c.weekend),
    }
}

/// The Cori-like grid's run-time scales (ours): around the point where the baseline's
/// utilisation meets Table III's 80.27 %.
const CORI_SCALES: [f64; 3] = [0.475, 0.50, 0.525];
/// The Cori-like grid's shares of run-time estimates at the 7-day limit (Table I's longest
/// job). In Tsafrir's model the maximum allowed estimate is the single most popular value,
/// and the share of jobs using it is one of the model's two inputs (with the maximum itself;
/// `None`: the share the model's fitted head gives, about 21.7 %). The model takes it from the
/// log it stands for; Fan et al. state no estimates, so the shares 40–80 % are ours.
const CORI_SHARES: [Option<f64>; 4] = [None, Some(0.4), Some(0.6), Some(0.8)];

/// The baseline row over a grid (Theta-like: run-time scale × sessions; Cori-like: run-time
/// scale × share of estimates at the limit), averaged over `seeds` (the same seeds at every
/// point: the points are paired by trace), and for the Cori-like grid the 2-D table of the fit
/// and the estimates' paired effect.
fn calibration(
    machine: Machine,
    quick: bool,
    seeds: &[u64],
    typings: u64,
) -> Result<Vec<Table>, cosched_hybrid::HybridError> {
    let base = machine.trace(quick);
    let tail = 1.0 - base.model.uprob;
    let with = |scale: f64, mean_jobs: f64, shape: f64, spacing: i64| Knobs {
        scale,
        sessions: Sessions {
            mean_jobs,
            shape,
            spacing: cosched_core::Duration(spacing),
            ..base.sessions
        },
        tail,
        estimates: Estimates::Tsafrir,
        at_limit: base.max_estimate_share,
        cycle: base.cycle,
        jobs: base.jobs,
    };
    let chosen = with(
        base.runtime_scale,
        base.sessions.mean_jobs,
        base.sessions.shape,
        base.sessions.spacing.0,
    );
    let estimated = |scale: f64, estimates: Estimates| Knobs {
        scale,
        estimates,
        ..chosen
    };
    let s = base.sessions;
    let grid: Vec<Knobs> = match machine {
        Machine::Theta => {
            let mut g: Vec<Knobs> = [0.65, 0.7, 0.75]
                .iter()
                .flat_map(|&scale| [1.0, 3.0].map(|mean| with(scale, mean, s.shape, s.spacing.0)))
                .collect();
            g.extend([0.55, 0.6, 0.65, 0.7].map(|scale| estimated(scale, Estimates::Limit)));
            g
        }
        Machine::Cori => {
            let mut g: Vec<Knobs> = CORI_SHARES
                .iter()
                .flat_map(|&at_limit| {
                    CORI_SCALES.map(|scale| Knobs {
                        at_limit,
                        ..with(scale, s.mean_jobs, s.shape, s.spacing.0)
                    })
                })
                .collect();
            if !g.iter().any(|k| k.same(&chosen)) {
                g.push(chosen);
            }
            g
        }
    };
    let points: Vec<(usize, u64)> = (0..grid.len())
        .flat_map(|g| seeds.iter().map(move |&s| (g, s)))
        .collect();
    let results = Sweep::new(format!("{NAME} calibration {}", machine.name()), points).try_run(
        |&(g, seed)| {
            let knobs = grid.get(g).copied().unwrap_or(chosen);
            let params = TraceParams {
                jobs: knobs.jobs,
                runtime_scale: knobs.scale,
                sessions: knobs.sessions,
                model: LublinParams {
                    uprob: 1.0 - knobs.tail,
                    ..base.model
                },
                cycle: knobs.cycle,
                max_estimate_share: knobs.at_limit,
                ..base
            };
            let mut trace = generate(&params, seed)?;
            knobs.estimates.apply(&mut trace, params.max_runtime);
            baseline_and_share(&trace, params.nodes, seed, typings)
        },
    )?;
    let paper = machine.paper_baseline();
    let mut table = Table::new(
        format!("{NAME}_calibration_{}", machine.slug()),
        format!(
            "Calibration grid, {}: baseline row per run-time scale and sessions, mean of {} \
             trace(s) x {typings} typing(s) (paper: {:.2} h, {:.2} %, {:.2} %; on-demand \
             share of capacity 3-15 %, Obs. 9)",
            machine.name(),
            seeds.len(),
            paper.turnaround_hours,
            100.0 * paper.utilization,
            100.0 * paper.instant_start
        ),
        [
            "jobs",
            "runtime scale",
            "mean session (jobs)",
            "session shape",
            "spacing (s)",
            "upper size stage (% of parallel jobs)",
            "estimates",
            "arrival swings",
            "turnaround (h)",
            "utilisation (%)",
            "instant start (%)",
            "on-demand share of capacity (%)",
            "offered load (%)",
            "a job waiting (% of window)",
            "distance",
            "",
        ],
    )
    .with_notes(
        "distance: the sum over the three baseline figures of (miss / tolerance)^2 with the \
         tolerances of the Table III check (turnaround 25 %, utilisation 3 points, instant \
         start 5 points); the workload's point ('ours') is the grid's smallest distance among \
         the points with Tsafrir's estimates (at any share at the 7-day limit: the model \
         takes the share as an input; the model's own is about 21.7 %, the others ours) at \
         Table I's length ('nearest'; other estimates are diagnostics). Arrival swings: in \
         real days and weeks, the Lublin-Feitelson model's fitted day (cited) and a weekend \
         factor (ours). Every typing keeps Obs. 9's 3-15 % on-demand \
         share. offered load: the jobs' work over the window's capacity; the baseline's \
         utilisation is that less the work still queued or running at the window's end. \
         Every point runs the same seeds (paired by trace).",
    );
    let mut rows = Vec::new();
    for (g, knobs) in grid.iter().enumerate() {
        let point: Vec<&(Runs, f64)> = results
            .iter()
            .filter(|((pg, _), _)| *pg == g)
            .map(|(_, r)| r)
            .collect();
        let runs: Vec<Runs> = point.iter().map(|(r, _)| r.clone()).collect();
        let shares: Vec<f64> = point.iter().map(|(_, s)| *s).collect();
        let row = pooled(&runs);
        let share = cosched_core::stats::mean(&shares).unwrap_or(f64::NAN);
        let distance = distance(&row, &paper);
        rows.push((*knobs, row, share, distance));
    }
    let nearest = rows
        .iter()
        .filter(|(k, ..)| k.eligible(&base))
        .min_by(|a, b| a.3.total_cmp(&b.3))
        .map(|(k, ..)| *k);
    let mark = |knobs: &Knobs| match (knobs.same(&chosen), nearest.is_some_and(|n| knobs.same(&n)))
    {
        (true, true) => "ours, nearest",
        (true, false) => "ours",
        (false, true) => "nearest",
        (false, false) => "",
    };
    for (knobs, row, share, distance) in &rows {
        table.row([
            Cell::Text(knobs.jobs.to_string()),
            Cell::fixed(knobs.scale, 3),
            Cell::fixed(knobs.sessions.mean_jobs, 0),
            Cell::fixed(knobs.sessions.shape, 1),
            Cell::Text(knobs.sessions.spacing.0.to_string()),
            Cell::fixed(100.0 * knobs.tail, 1),
            Cell::Text(match knobs.at_limit {
                Some(share) => format!(
                    "{}, {:.0} % at the limit",
                    knobs.estimates.name(),
                    100.0 * share
                ),
                None => knobs.estimates.name().into(),
            }),
            Cell::Text(swing_name(knobs.cycle)),
            Cell::fixed(row.mean(|r| r.turnaround_h), 2),
            Cell::fixed(100.0 * row.mean(|r| r.window_utilization), 2),
            Cell::fixed(100.0 * row.mean(|r| r.instant_start_ratio), 2),
            Cell::fixed(100.0 * share, 1),
            Cell::fixed(100.0 * row.mean(|r| r.offered_load), 2),
            Cell::fixed(100.0 * row.mean(|r| r.window_queue_share), 1),
            Cell::fixed(*distance, 2),
            Cell::from(mark(knobs)),
        ]);
    }
    let mut tables = vec![table];
    if machine == Machine::Cori {
        tables.push(fit_table(machine, &base, &rows, mark, seeds.len(), typings));
        tables.push(share_effects(machine, &grid, &results, seeds));
    }
    Ok(tables)
}

/// A share of estimates at the limit as the grid's tables name it.
fn share_name(at_limit: Option<f64>) -> String {
    match at_limit {
        None => "the model's (about 21.7 %)".into(),
        Some(share) => format!("{:.0} %", 100.0 * share),
    }
}

/// The Cori-like grid as a 2-D table: run-time scale (rows) × share of estimates at the limit
/// (columns), each cell the baseline's utilisation / instant start / turnaround at Table I's
/// length with the workload's arrival swings.
fn fit_table(
    machine: Machine,
    base: &TraceParams,
    rows: &[(Knobs, Runs, f64, f64)],
    mark: impl Fn(&Knobs) -> &'static str,
    seeds: usize,
    typings: u64,
) -> Table {
    let paper = machine.paper_baseline();
    let mut table = Table::new(
        format!("{NAME}_calibration_{}_fit", machine.slug()),
        format!(
            "The fit, {} at Table I's length ({} jobs, sessions of {:.0}, swings: {}): \
             utilisation % / instant start % / turnaround h per run-time scale and share of \
             estimates at the 7-day limit, {seeds} trace(s) x {typings} typing(s) (paper: \
             {:.2} % / {:.2} % / {:.2} h)",
            machine.name(),
            base.jobs,
            base.sessions.mean_jobs,
            swing_name(base.cycle),
            100.0 * paper.utilization,
            100.0 * paper.instant_start,
            paper.turnaround_hours
        ),
        std::iter::once("runtime scale".to_string()).chain(
            CORI_SHARES
                .iter()
                .map(|&s| format!("at the limit: {}", share_name(s))),
        ),
    );
    for scale in CORI_SCALES {
        let cells = CORI_SHARES.iter().map(|&at_limit| {
            rows.iter()
                .find(|(k, ..)| {
                    k.eligible(base)
                        && (k.scale - scale).abs() < 1e-9
                        && (k.sessions.mean_jobs - base.sessions.mean_jobs).abs() < 1e-9
                        && k.at_limit == at_limit
                })
                .map_or(Cell::Empty, |(k, row, _, d)| {
                    let m = mark(k);
                    Cell::Text(format!(
                        "{:.2} / {:.2} / {:.2} (d {d:.1}){}",
                        100.0 * row.mean(|r| r.window_utilization),
                        100.0 * row.mean(|r| r.instant_start_ratio),
                        row.mean(|r| r.turnaround_h),
                        if m.is_empty() {
                            String::new()
                        } else {
                            format!(" {m}")
                        }
                    ))
                })
        });
        table.row(std::iter::once(Cell::fixed(scale, 3)).chain(cells));
    }
    table
}

/// One calibration run: (grid point, seed), and its runs with the typings' mean on-demand
/// share of the capacity.
type PointResult = ((usize, u64), (Runs, f64));
/// A baseline figure of a point's runs and the factor it prints with.
type Metric = (fn(&Runs) -> f64, f64);

/// What a larger share of estimates at the limit does at each run-time scale of the Cori-like
/// grid, paired by trace against the model's own share at the same scale: the mean per-trace
/// difference, the 95 % half-width and the verdict of the examples' paired rule
/// ([`Paired`]).
fn share_effects(
    machine: Machine,
    grid: &[Knobs],
    results: &[PointResult],
    seeds: &[u64],
) -> Table {
    let mut table = Table::new(
        format!("{NAME}_calibration_{}_estimates", machine.slug()),
        format!(
            "{}: a share of estimates at the 7-day limit against the model's own share at the \
             same run-time scale, paired by trace over {} trace(s) (difference mean ± 95 % \
             half-width, verdict: the interval excludes 0)",
            machine.name(),
            seeds.len()
        ),
        [
            "runtime scale",
            "at the limit",
            "turnaround (h)",
            "utilisation (points)",
            "instant start (points)",
        ],
    );
    let per_seed = |g: usize, metric: fn(&Runs) -> f64| -> Vec<f64> {
        seeds
            .iter()
            .map(|&seed| {
                results
                    .iter()
                    .find(|((pg, ps), _)| *pg == g && *ps == seed)
                    .map_or(f64::NAN, |(_, (runs, _))| metric(runs))
            })
            .collect()
    };
    let metrics: [Metric; 3] = [
        (|r| r.mean(|x| x.turnaround_h), 1.0),
        (|r| r.mean(|x| x.window_utilization), 100.0),
        (|r| r.mean(|x| x.instant_start_ratio), 100.0),
    ];
    for scale in CORI_SCALES {
        let at = |share: Option<f64>| {
            grid.iter()
                .position(|k| (k.scale - scale).abs() < 1e-9 && k.at_limit == share)
        };
        let Some(model) = at(None) else { continue };
        for share in CORI_SHARES.into_iter().flatten() {
            let Some(g) = at(Some(share)) else { continue };
            let cells = metrics.map(|(metric, unit)| {
                let paired = Paired::new(&per_seed(g, metric), &per_seed(model, metric));
                match paired.map(|p| (p, p.threshold())) {
                    Some((p, Some(h))) => Cell::Text(format!(
                        "{:+.2} ± {:.2} ({})",
                        unit * p.difference.mean,
                        unit * h,
                        p.significance().as_str()
                    )),
                    Some((p, None)) => Cell::Text(format!(
                        "{:+.2} (one trace: not assessed)",
                        unit * p.difference.mean
                    )),
                    None => Cell::Empty,
                }
            });
            let [t, u, i] = cells;
            table.row([
                Cell::fixed(scale, 3),
                Cell::Text(share_name(Some(share))),
                t,
                u,
                i,
            ]);
        }
    }
    table
}

/// How far a baseline row lies from Table III's in units of [`TOLERANCE`]: the sum of the
/// squared misses of turnaround (relative), utilisation and instant start.
fn distance(ours: &Runs, paper: &PaperBaseline) -> f64 {
    let (dt, du, di) = TOLERANCE;
    let t = (ours.mean(|r| r.turnaround_h) / paper.turnaround_hours - 1.0) / dt;
    let u = (ours.mean(|r| r.window_utilization) - paper.utilization) / du;
    let i = (ours.mean(|r| r.instant_start_ratio) - paper.instant_start) / di;
    t * t + u * u + i * i
}
