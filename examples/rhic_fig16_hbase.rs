//! RHIC (Clay, Shen, Ma, Gu), Figure 16 (§5.5): the HBasePCF jobs Compress (I/O-intensive) and
//! Raytrace (CPU-intensive) on 3 dedicated nodes and 0–18 volunteers: cost ($1.00/h, $0.42/h)
//! and energy of the exhaustive survey (every 2 volunteers) beside RHIC's.

use cosched_core::stats::Spread;
use cosched_examples::rhic::{
    RhicArgs, assumptions, compare, comparison_plot, comparison_table, curve_table, show, sizes,
};
use cosched_examples::{Cell, Claims};
use cosched_rhic::env::JobProfile;
use cosched_rhic::scenario::{Comparison, Metric, price};

const NAME: &str = "rhic_fig16_hbase";

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 16: HBasePCF jobs, 3 dedicated + 0-18 volunteers");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(3);
    let metrics = [Metric::Cost(price(0.42)), Metric::Energy];
    let rows = compare(
        NAME,
        &JobProfile::HBASE,
        &metrics,
        &sizes(18, quick),
        quick,
        &seeds,
    )?;
    let notes = format!(
        "Cost in $, energy in Wh. The paper gives no numbers for this figure; Compress and \
         Raytrace's I/O and work are ours. Seeds {seeds:?}. {}",
        assumptions()
    );
    let table = comparison_table(
        (
            NAME,
            "HBasePCF jobs, 3 dedicated + 0–18 volunteers: exhaustive fixed sizes vs RHIC",
        ),
        "$ or Wh",
        notes,
        &rows,
        ("goal", |c| Cell::from(c.metric.name())),
    );
    out.write_table(&table)?;
    out.write_table(&curve_table(NAME, "$ or Wh", &rows, |c| {
        c.metric.name().to_owned()
    }))?;
    for (metric, y) in [(metrics[0], "cost ($)"), (metrics[1], "energy (Wh)")] {
        let picked: Vec<_> = rows.iter().filter(|c| c.metric == metric).collect();
        out.write_plot(&comparison_plot(
            metric.name(),
            &format!("HBasePCF jobs: {y} against volunteers (Fig. 16)"),
            y,
            &picked,
        ))?;
    }
    let mut claims = Claims::new("rhic");
    let over: Vec<f64> = rows.iter().flat_map(Comparison::over_best).collect();
    let worst = rows
        .iter()
        .map(|c| {
            (
                c.profile.name(),
                c.metric.name(),
                Spread::of(&c.over_best()).map_or(f64::NAN, |s| s.mean),
            )
        })
        .fold(
            ("", "", f64::NEG_INFINITY),
            |a, b| if b.2 > a.2 { b } else { a },
        );
    claims.check(
        "§5.5, Fig. 16",
        "RHIC achieves near-minimum cost and energy on both HBasePCF jobs (within 5 %)",
        format!(
            "over best {}; worst {} {}: {:.1} %",
            show(Spread::of(&over)),
            worst.0,
            worst.1,
            worst.2
        ),
        "near-minimum",
        worst.2 <= 5.0,
    );
    out.write_claims(&claims)?;
    Ok(())
}
