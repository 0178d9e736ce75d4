//! RHIC (Clay, Shen, Ma, Gu), Figure 16: the HBase-style jobs (Compress, I/O-heavy;
//! Raytrace, CPU-bound) on 3 dedicated nodes + 0–18 volunteers: cost and energy against the
//! number of volunteers, and RHIC's result under each goal.
//!
//! Workload: our simulated cloud ([`cosched_examples::rhic`]) with 18 interactive nodes;
//! every fixed size and RHIC run on the same seeds.

use cosched_examples::Cell;
use cosched_examples::rhic::{
    Metric, RhicArgs, assumptions, compare, comparison_plot, comparison_table, price, sizes,
};
use cosched_rhic::env::JobProfile;

const NAME: &str = "rhic_fig16_hbase";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args =
        RhicArgs::parse_with("RHIC Figure 16: HBase-style jobs, 3 dedicated + 0-18 volunteers");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(3);
    let metrics = [Metric::Cost(price(0.42)), Metric::Energy];
    let rows = compare(
        NAME,
        &JobProfile::HBASE,
        &metrics,
        (3, 18),
        &sizes(18, quick),
        quick,
        &seeds,
    )?;
    let notes = format!(
        "Cost in $ at $1.00/h dedicated, $0.42/h volunteer; energy in MJ. The paper gives no \
         number for this figure in the issue; its claim is that RHIC stays near the exhaustive \
         optimum on these jobs too. Means over seeds {seeds:?}. {}",
        assumptions()
    );
    let table = comparison_table(
        (
            NAME,
            "HBase-style jobs, 3 dedicated + 0–18 volunteers: exhaustive fixed sizes vs RHIC",
        ),
        "$ or MJ",
        notes,
        &rows,
        ("metric", |c| match c.metric {
            Metric::Cost(_) => Cell::from("cost ($)"),
            Metric::Energy => Cell::from("energy (MJ)"),
        }),
    );
    out.write_table(&table)?;
    for (file, metric, y) in [
        ("cost", metrics[0], "cost ($)"),
        ("energy", metrics[1], "energy (MJ)"),
    ] {
        let picked: Vec<_> = rows.iter().filter(|c| c.metric == metric).collect();
        out.write_plot(&comparison_plot(
            file,
            &format!("HBase-style jobs: {y} against volunteers (Fig. 16)"),
            y,
            &picked,
        ))?;
    }
    Ok(())
}
