//! Fan et al., "Hybrid Workload Scheduling on HPC Systems" (IPDPS 2022), Figure 10:
//! sensitivity to the rigid jobs' setup overhead, drawn uniformly in a range of their run
//! time: 0-5 %, 5-10 % (the default), 10-20 % and 20-30 % (our choice of ranges).
//!
//! Workload: the Theta-like generated trace (or `--trace FILE.swf`, typed anew per seed), W5
//! notice mix, averaged over seeds. A table of
//! every metric per range and configuration, and plots of the rigid turnaround and the
//! useful utilisation over the range's midpoint. The paper gives no number we can quote for
//! this figure; the expected shape is that a larger setup makes every rigid preemption
//! dearer, so the PAA mechanisms lose more than the SPAA ones.

use cosched_examples::hybrid::{Machine, Study, StudyArgs};
use cosched_hybrid::HybridConfig;
use cosched_hybrid::workload::TypeParams;

const NAME: &str = "hybrid_fig10";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = StudyArgs::parse_for("Rigid setup overhead sensitivity of the hybrid mechanisms");
    let (quick, mut out) = (args.common.quick, args.common.output(NAME)?);
    let study = args.study(NAME, Machine::Theta)?;
    let ranges: &[(f64, f64)] = if quick {
        &[(0.0, 0.05), (0.20, 0.30)]
    } else {
        &[(0.0, 0.05), (0.05, 0.10), (0.10, 0.20), (0.20, 0.30)]
    };
    let results = study.run(
        ranges,
        |&range, types: &mut TypeParams, _: &mut HybridConfig| {
            types.rigid_setup = range;
        },
    );
    let labels: Vec<String> = ranges
        .iter()
        .map(|(lo, hi)| format!("{:.0}-{:.0} %", 100.0 * lo, 100.0 * hi))
        .collect();
    let xs: Vec<f64> = ranges.iter().map(|(lo, hi)| 50.0 * (lo + hi)).collect();
    out.write_table(&study.table(
        NAME,
        "Figure 10: rigid setup overhead (share of the run time)",
        "setup",
        &labels,
        &results,
    ))?;
    out.write_plot(&Study::plot(
        "rigid_turnaround",
        "Rigid turnaround vs setup overhead",
        "setup (midpoint, % of run time)",
        &xs,
        &results,
        "turnaround rigid (h)",
        |m| m.rigid_turnaround_h,
    ))?;
    out.write_plot(&Study::plot(
        "utilisation",
        "Useful utilisation (arrival window) vs setup overhead",
        "setup (midpoint, % of run time)",
        &xs,
        &results,
        "useful utilisation, arrival window (%)",
        |m| 100.0 * m.window_utilization,
    ))?;
    Ok(())
}
