//! RHIC (Clay, Shen, Ma, Gu), Figure 13: RHIC against FUZZY hill climbing (step p ∈ {2, 4, 8},
//! start S ∈ {25, 50, 75 %} of the pool) and a residual threshold (θ ∈ {0.25, 0.5, 0.75} of
//! `CPU_max`), under the cost goal at $0.42/h: each approach's cost above the exhaustive
//! optimum, mean and spread over seeds and settings.
//!
//! Workload: our simulated cloud ([`cosched_examples::rhic`]), 6 dedicated + 0–36 volunteers;
//! every approach on the same seeds, the optimum from the fixed-size runs on those seeds.

use cosched_examples::rhic::{
    RhicArgs, assumptions, best_worst, config, curve, job_chart, mean, pct_over, price, run_all,
    sd, sizes,
};
use cosched_examples::{Cell, Table};
use cosched_rhic::Goal;
use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::Strategy;

const NAME: &str = "rhic_fig13_baselines";

/// The approaches compared, each with its settings.
fn approaches(quick: bool) -> Vec<(&'static str, Vec<Strategy>)> {
    let steps: &[usize] = if quick { &[4] } else { &[2, 4, 8] };
    let fuzzy = steps
        .iter()
        .flat_map(|&step| {
            [0.25, 0.5, 0.75].map(|start_fraction| Strategy::Fuzzy {
                step,
                start_fraction,
            })
        })
        .collect();
    vec![
        ("RHIC", vec![Strategy::Rhic]),
        ("FUZZY", fuzzy),
        (
            "Threshold",
            [0.25, 0.5, 0.75].map(Strategy::Threshold).to_vec(),
        ),
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 13: RHIC vs FUZZY vs Threshold");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(3);
    let profiles = args.jobs(&[JobProfile::Wordcount, JobProfile::Grep]);
    let approaches = approaches(quick);
    let goal = Goal::Cost(price(0.42));
    let mut configs = Vec::new();
    for &p in &profiles {
        for &s in &seeds {
            let fixed = sizes(36, quick).into_iter().map(Strategy::Fixed);
            let others = approaches.iter().flat_map(|(_, v)| v.iter().copied());
            for strategy in fixed.chain(others) {
                configs.push(config(p, 6, 36, goal, strategy, quick, s));
            }
        }
    }
    let runs = run_all(NAME, configs)?;

    let mut table = Table::new(
        NAME,
        "Cost above the exhaustive optimum (%), cost goal at $0.42/h",
        [
            "job",
            "approach",
            "runs",
            "mean (%)",
            "sd (%)",
            "min (%)",
            "max (%)",
            "mean volunteers",
        ],
    )
    .with_notes(format!(
        "The optimum: the cheapest fixed size's mean cost on the same seeds {seeds:?}. FUZZY \
         settings: p ∈ {{2, 4, 8}} (quick: 4) × S ∈ {{25, 50, 75 %}}; Threshold: θ ∈ {{0.25, \
         0.5, 0.75}}. Spread (sd, min, max) is over seeds and settings. Paper (the issue's \
         summary of Fig. 13): RHIC near the optimum and more stable than FUZZY. {}",
        assumptions()
    ));
    let mut means = vec![Vec::new(); approaches.len()];
    for &p in &profiles {
        let ((_, best), _) = best_worst(&curve(&runs, p, |o| o.bill.total.usd()));
        for (i, (name, strategies)) in approaches.iter().enumerate() {
            let these: Vec<_> = runs
                .iter()
                .filter(|(c, _)| c.profile == p && strategies.contains(&c.strategy))
                .map(|(_, o)| o)
                .collect();
            let over: Vec<f64> = these
                .iter()
                .map(|o| pct_over(o.bill.total.usd(), best))
                .collect();
            let m = mean(over.iter().copied());
            means[i].push(m);
            table.row([
                Cell::from(p.name()),
                Cell::from(*name),
                Cell::from(Some(over.len() as u64)),
                Cell::fixed(m, 1),
                Cell::fixed(sd(&over), 1),
                Cell::fixed(over.iter().copied().fold(f64::INFINITY, f64::min), 1),
                Cell::fixed(over.iter().copied().fold(f64::NEG_INFINITY, f64::max), 1),
                Cell::fixed(mean(these.iter().map(|o| o.mean_volunteers)), 1),
            ]);
        }
    }
    out.write_table(&table)?;
    out.write_plot(&job_chart(
        "baselines",
        "Cost above the exhaustive optimum (Fig. 13)",
        "mean cost above optimum (%)",
        &profiles,
        approaches.iter().map(|(n, _)| n.to_string()).zip(means),
    ))?;
    Ok(())
}
