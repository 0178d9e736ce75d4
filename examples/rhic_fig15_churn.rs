//! RHIC (Clay, Shen, Ma, Gu), Figure 15: churn — interactive sessions x1, x2 and x8 as short
//! (mean and stdev of the session length halved, divided by 8): RHIC's cost against the
//! exhaustive optimum at each churn level, cost goal at $0.42/h.
//!
//! Workload: our simulated cloud ([`cosched_examples::rhic`]), 6 dedicated + 0–36 volunteers;
//! the optimum from fixed-size runs at the same churn and seeds.

use cosched_examples::rhic::{
    RhicArgs, assumptions, best_worst, config, curve, job_chart, mean, pct_over, price, run_all,
    sizes,
};
use cosched_examples::{Cell, Table};
use cosched_rhic::Goal;
use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::{Outcome, SimConfig, Strategy};

const NAME: &str = "rhic_fig15_churn";
const CHURN: [f64; 3] = [1.0, 2.0, 8.0];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 15: churn x1, x2, x8");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(3);
    let profiles = args.jobs(&[JobProfile::Wordcount]);
    let goal = Goal::Cost(price(0.42));
    let mut configs = Vec::new();
    for &p in &profiles {
        for &churn in &CHURN {
            for &s in &seeds {
                let fixed = sizes(36, quick).into_iter().map(Strategy::Fixed);
                for strategy in fixed.chain([Strategy::Rhic]) {
                    let mut c = config(p, 6, 36, goal, strategy, quick, s);
                    c.env.churn = churn;
                    configs.push(c);
                }
            }
        }
    }
    let runs = run_all(NAME, configs)?;

    let mut table = Table::new(
        NAME,
        "RHIC under churn: cost against the exhaustive optimum at the same churn",
        [
            "job",
            "churn",
            "best size",
            "best ($)",
            "RHIC ($)",
            "RHIC over best (%)",
            "RHIC mean volunteers",
        ],
    )
    .with_notes(format!(
        "Churn xN divides the mean and stdev of every session length by N. Means over seeds \
         {seeds:?}. Paper (the issue): RHIC tolerates high instability (no number quoted). {}",
        assumptions()
    ));
    let mut over_by_churn = vec![Vec::new(); CHURN.len()];
    for &p in &profiles {
        for (i, &churn) in CHURN.iter().enumerate() {
            let at: Vec<(SimConfig, Outcome)> = runs
                .iter()
                .filter(|(c, _)| c.profile == p && c.env.churn == churn)
                .cloned()
                .collect();
            let ((bk, best), _) = best_worst(&curve(&at, p, |o| o.bill.total.usd()));
            let rhic: Vec<_> = at
                .iter()
                .filter(|(c, _)| c.strategy == Strategy::Rhic)
                .map(|(_, o)| o)
                .collect();
            let cost = mean(rhic.iter().map(|o| o.bill.total.usd()));
            over_by_churn[i].push(pct_over(cost, best));
            table.row([
                Cell::from(p.name()),
                Cell::Text(format!("x{churn:.0}")),
                Cell::from(Some(bk as u64)),
                Cell::fixed(best, 2),
                Cell::fixed(cost, 2),
                Cell::fixed(pct_over(cost, best), 1),
                Cell::fixed(mean(rhic.iter().map(|o| o.mean_volunteers)), 1),
            ]);
        }
    }
    out.write_table(&table)?;
    out.write_plot(&job_chart(
        "churn",
        "RHIC's cost above the optimum under churn (Fig. 15)",
        "cost above optimum (%)",
        &profiles,
        CHURN.iter().map(|c| format!("x{c:.0}")).zip(over_by_churn),
    ))?;
    Ok(())
}
