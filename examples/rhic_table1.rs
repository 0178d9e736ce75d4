//! RHIC (Clay, Shen, Ma, Gu), Table 1: the range of cost ($1.00/h dedicated, $0.42/h
//! volunteer) and energy over the exhaustive survey (6 dedicated + 0–36 volunteers), per
//! Hadoop job, ours beside the paper's.

use cosched_core::Time;
use cosched_examples::rhic::checks_table;
use cosched_examples::rhic::{
    FIGURE_TOLERANCE, RhicArgs, assumptions, run_all, sizes, within_figure,
};
use cosched_examples::{BarChart, Cell, Claims, Table};
use cosched_rhic::env::JobProfile;
use cosched_rhic::scenario::{Approach, Metric, Run, best_worst, curve, mean, price, table1};
use cosched_rhic::{Goal, PowerModel};

const NAME: &str = "rhic_table1";

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Table 1: cost and energy ranges over pool sizes");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(3);
    let profiles = JobProfile::HADOOP;
    let mut configs = Vec::new();
    for &p in &profiles {
        for &s in &seeds {
            for k in sizes(36, quick) {
                configs.push(Run::paper(
                    p,
                    Goal::Deadline(Time(0)),
                    Approach::Fixed(k),
                    false,
                    s,
                ));
            }
        }
    }
    let runs = run_all(NAME, configs)?;
    let mut table = Table::new(
        NAME,
        "Cost and energy ranges over 0–36 volunteers beside 6 dedicated nodes (Table 1)",
        [
            "job",
            "cost min ($)",
            "paper",
            "cost max ($)",
            "paper",
            "energy min (Wh)",
            "paper",
            "energy max (Wh)",
            "paper",
        ],
    )
    .with_notes(format!(
        "Means over seeds {seeds:?} of each fixed size. Calibrated on this table (so not \
         predictions): the job work from Wordcount's, Pi's and Word co-occurrence's cost max and \
         Grep's cost min, the power model from Pi's energy min and max. {}",
        assumptions()
    ));
    let mut claims = Claims::new("rhic");
    let mut bars: Vec<(&str, [f64; 4], [f64; 4])> = Vec::new();
    for &p in &profiles {
        let cost = curve(&runs, p, |o| Metric::Cost(price(0.42)).of(o));
        let energy = curve(&runs, p, |o| Metric::Energy.of(o));
        let (Some(((_, cmin), (_, cmax))), Some(((_, emin), (_, emax)))) =
            (best_worst(&cost), best_worst(&energy))
        else {
            continue;
        };
        let paper = table1(p).unwrap_or([f64::NAN; 4]);
        bars.push((p.name(), [cmin, cmax, emin, emax], paper));
        table.row([
            Cell::from(p.name()),
            Cell::fixed(cmin, 2),
            Cell::paper(Some(paper[0]), 2),
            Cell::fixed(cmax, 2),
            Cell::paper(Some(paper[1]), 2),
            Cell::fixed(emin, 0),
            Cell::paper(Some(paper[2]), 0),
            Cell::fixed(emax, 0),
            Cell::paper(Some(paper[3]), 0),
        ]);
        let uncalibrated: Vec<(&str, f64, f64)> = match p {
            JobProfile::Grep => vec![
                ("cost max", cmax, paper[1]),
                ("energy min", emin, paper[2]),
                ("energy max", emax, paper[3]),
            ],
            JobProfile::Pi => vec![("cost min", cmin, paper[0])],
            _ => vec![
                ("cost min", cmin, paper[0]),
                ("energy min", emin, paper[2]),
                ("energy max", emax, paper[3]),
            ],
        };
        for (what, ours, theirs) in uncalibrated {
            claims
                .check(
                    "Table 1",
                    format!("{} {what}", p.name()),
                    format!("{ours:.2}"),
                    format!("{theirs:.2}"),
                    within_figure(ours, theirs),
                )
                .because(format!(
                    "{:+.1} % from the paper's (pass: within {:.0} %)",
                    100.0 * (ours - theirs) / theirs,
                    100.0 * FIGURE_TOLERANCE
                ));
        }
    }
    out.write_table(&table)?;
    let (idle_w, max_w) = fit_power(&seeds)?;
    let arc = PowerModel::arc();
    let arc_max = arc.idle_w() + arc.dynamic_w(1.0, 1.0);
    let mut checks = Claims::new("rhic");
    checks
        .check(
            "calibration target (Table 1)",
            "the power model bills the simulator's Pi at 0 and 36 volunteers Table 1's Pi \
             energy max and min",
            format!("fit {idle_w:.1} W idle, {max_w:.1} W busy per node"),
            format!("library {:.1} / {arc_max:.1} W", arc.idle_w()),
            (idle_w - arc.idle_w()).abs() <= 1.0 && (max_w - arc_max).abs() <= 1.0,
        )
        .because(format!(
            "Table 1's Pi rows, {:.0} and {:.0} Wh, solved on the simulated runs' node-seconds \
             and busy node-seconds (seeds {seeds:?}); holds within 1 W",
            PI_ENERGY_WH[0], PI_ENERGY_WH[1]
        ));
    out.write_table(&checks_table(&checks))?;
    let names: Vec<&str> = bars.iter().map(|b| b.0).collect();
    out.write_plot(
        &BarChart::new(
            "table1_cost",
            "Cost range over pool sizes, ours and the paper's (Table 1)",
            names,
        )
        .y_label("cost ($)")
        .series("min, ours", bars.iter().map(|b| b.1[0]))
        .series("min, paper", bars.iter().map(|b| b.2[0]))
        .series("max, ours", bars.iter().map(|b| b.1[1]))
        .series("max, paper", bars.iter().map(|b| b.2[1])),
    )?;
    out.write_claims(&claims)?;
    Ok(())
}

/// Table 1's Pi energy max (0 volunteers) and min (36), Wh.
const PI_ENERGY_WH: [f64; 2] = [5461.0, 2963.0];

/// The power model (idle, full-load watts per node) under which the simulator's Pi runs at 0
/// and 36 volunteers bill Table 1's Pi energy max and min (means over `seeds`, the full job
/// even in quick mode). Energy is
/// linear in the two: each run is simulated under 1 W idle and busy (its dedicated
/// node-seconds, `a`) and under 0 W idle, 1 W busy (its busy node-seconds, dedicated and
/// volunteer increments, `b`), then `idle · a + (max − idle) · b = E` is solved for both rows.
fn fit_power(seeds: &[u64]) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let mut configs = Vec::new();
    for (idle, max) in [(1.0, 1.0), (0.0, 1.0)] {
        for k in [0, 36] {
            for &s in seeds {
                let mut run = Run::paper(
                    JobProfile::Pi,
                    Goal::Deadline(Time(0)),
                    Approach::Fixed(k),
                    false,
                    s,
                );
                run.config.power = PowerModel::new(idle, max)?;
                configs.push(run);
            }
        }
    }
    let runs = run_all(&format!("{NAME} power fit"), configs)?;
    let n = seeds.len();
    let joules = |block: usize| {
        mean(
            runs[block * n..(block + 1) * n]
                .iter()
                .map(|(_, o)| o.energy_j),
        )
    };
    let (a0, a36, b0, b36) = (joules(0), joules(1), joules(2), joules(3));
    let (e0, e36) = (PI_ENERGY_WH[0] * 3600.0, PI_ENERGY_WH[1] * 3600.0);
    let dynamic = (e36 * a0 - e0 * a36) / (b36 * a0 - b0 * a36);
    let idle = (e0 - dynamic * b0) / a0;
    Ok((idle, idle + dynamic))
}
