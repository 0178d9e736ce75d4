//! RHIC (Clay, Shen, Ma, Gu), Figure 9: monetary cost against the number of volunteers
//! (exhaustive fixed-size runs, 6 dedicated + 0–36 volunteers) and RHIC's result under the
//! cost goal, per Hadoop job and volunteer price ($0.20, 0.42, 0.60, 0.80 per hour; dedicated
//! $1.00).
//!
//! Workload: our simulated cloud ([`cosched_examples::rhic`]); every fixed size and RHIC run
//! on the same seeds. Output: best and worst fixed size and their cost, the spread between
//! them, RHIC's cost and its distance from the exhaustive optimum.

use cosched_examples::Cell;
use cosched_examples::rhic::{
    Metric, PRICES, RhicArgs, assumptions, compare, comparison_plot, comparison_table, price,
    sizes, spread_table,
};
use cosched_rhic::env::JobProfile;

const NAME: &str = "rhic_fig9_cost";
/// The paper's largest cost spread between the best and the worst size, percent (the
/// issue's summary of Figure 9).
const PAPER_SPREAD_PCT: f64 = 72.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 9: cost against pool size, and RHIC's choice");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(3);
    let profiles = args.jobs(&[JobProfile::Wordcount, JobProfile::Pi]);
    let prices: Vec<f64> = if quick { vec![0.42] } else { PRICES.to_vec() };
    let metrics: Vec<Metric> = prices.iter().map(|&p| Metric::Cost(price(p))).collect();
    let rows = compare(
        NAME,
        &profiles,
        &metrics,
        (6, 36),
        &sizes(36, quick),
        quick,
        &seeds,
    )?;

    let notes = format!(
        "Variant: the volunteer price, $/h (dedicated $1.00/h). Spread = (worst − best) / worst. \
         Paper (the issue's summary of Fig. 9): RHIC near the exhaustive optimum; up to \
         {PAPER_SPREAD_PCT:.0} % cost spread between the best and worst sizes. Means over seeds \
         {seeds:?}. {}",
        assumptions()
    );
    let table = comparison_table(
        (
            NAME,
            "Cost of the job: exhaustive fixed sizes vs RHIC (cost goal), 6 dedicated + 0–36 volunteers",
        ),
        "$",
        notes,
        &rows,
        ("volunteer $/h", |c| match c.metric {
            Metric::Cost(m) => Cell::fixed(m.usd_per_s(0, 1) * 3600.0, 2),
            Metric::Energy => Cell::Empty,
        }),
    );
    out.write_table(&table)?;
    out.write_table(&spread_table(NAME, "cost", &rows, PAPER_SPREAD_PCT))?;
    let at_042: Vec<_> = rows
        .iter()
        .filter(|c| c.metric == Metric::Cost(price(0.42)))
        .collect();
    out.write_plot(&comparison_plot(
        "cost_042",
        "Cost against volunteers at $0.42/h (Fig. 9)",
        "cost ($)",
        &at_042,
    ))?;
    Ok(())
}
