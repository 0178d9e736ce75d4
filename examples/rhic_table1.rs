//! RHIC (Clay, Shen, Ma, Gu), Table 1: the range of cost ($1.00/h dedicated, $0.42/h
//! volunteer) and energy over the exhaustive survey (6 dedicated + 0–36 volunteers), per
//! Hadoop job, ours beside the paper's.

use cosched_core::Time;
use cosched_examples::rhic::{RhicArgs, assumptions, run_all, sizes};
use cosched_examples::{BarChart, Cell, Claims, Table};
use cosched_rhic::Goal;
use cosched_rhic::env::JobProfile;
use cosched_rhic::scenario::{Approach, Metric, Run, best_worst, curve, price, table1};

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
        let within = |ours: f64, theirs: f64| (ours - theirs).abs() <= 0.15 * theirs;
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
                    within(ours, theirs),
                )
                .because(format!(
                    "{:+.1} % from the paper's (pass: within 15 %)",
                    100.0 * (ours - theirs) / theirs
                ));
        }
    }
    out.write_table(&table)?;
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
