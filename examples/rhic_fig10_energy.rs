//! RHIC (Clay, Shen, Ma, Gu), Figure 10: energy against the number of volunteers
//! (exhaustive fixed-size runs, 6 dedicated + 0–36 volunteers) and RHIC's result under the
//! energy goal, per Hadoop job. Dedicated nodes are billed in full, volunteers only for the
//! energy they add to their hosts.
//!
//! Workload: our simulated cloud ([`cosched_examples::rhic`]); every fixed size and RHIC run
//! on the same seeds.

use cosched_examples::Cell;
use cosched_examples::rhic::{
    Metric, RhicArgs, assumptions, compare, comparison_plot, comparison_table, sizes, spread_table,
};
use cosched_rhic::env::JobProfile;

const NAME: &str = "rhic_fig10_energy";
/// The paper's largest energy spread between the best and the worst size, percent (the
/// issue's summary of Figure 10).
const PAPER_SPREAD_PCT: f64 = 47.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 10: energy against pool size, and RHIC's choice");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(3);
    let profiles = args.jobs(&[JobProfile::Grep, JobProfile::Pi]);
    let metrics = [Metric::Energy];
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
        "Energy in MJ: dedicated nodes in full, volunteers their hosts' increment (dynamic power \
         of the job's CPU plus the VM's overhead). Spread = (worst − best) / worst. Paper (the \
         issue's summary of Fig. 10): RHIC near the exhaustive optimum; up to \
         {PAPER_SPREAD_PCT:.0} % energy spread between the best and worst sizes. Means over \
         seeds {seeds:?}. {}",
        assumptions()
    );
    let table = comparison_table(
        (
            NAME,
            "Energy of the job: exhaustive fixed sizes vs RHIC (energy goal), 6 dedicated + 0–36 volunteers",
        ),
        "MJ",
        notes,
        &rows,
        ("goal", |_| Cell::from("energy")),
    );
    out.write_table(&table)?;
    out.write_table(&spread_table(NAME, "energy", &rows, PAPER_SPREAD_PCT))?;
    let all: Vec<_> = rows.iter().collect();
    out.write_plot(&comparison_plot(
        "energy",
        "Energy against volunteers (Fig. 10)",
        "energy (MJ)",
        &all,
    ))?;
    Ok(())
}
