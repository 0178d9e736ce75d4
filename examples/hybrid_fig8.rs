//! Fan et al., "Hybrid Workload Scheduling on HPC Systems" (IPDPS 2022), Figure 8: sensitivity
//! to the rigid jobs' checkpoint interval (50-200 % of Daly's optimum) under node failures at
//! a system MTBF of 5 h and 50 h (repairs: exponential, mean 6 h).
//!
//! Workload: the Theta-like generated trace (or `--trace FILE.swf`, typed anew per seed), W5
//! notice mix, averaged over seeds. For every
//! MTBF, a table of every metric per interval and configuration (baseline and the six
//! mechanisms), and plots of the rigid turnaround and the useful utilisation over the
//! interval. The paper gives no number we can quote for this figure; the expected shape is
//! that intervals away from the optimum waste more work (lower useful utilisation), more so
//! at the 5-hour MTBF.

use cosched_core::Duration;
use cosched_examples::hybrid::{Machine, Study, StudyArgs};
use cosched_hybrid::checkpoint::CheckpointPolicy;
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{Failures, HybridConfig};

const NAME: &str = "hybrid_fig8";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args =
        StudyArgs::parse_for("Checkpoint interval x MTBF sensitivity of the hybrid mechanisms");
    let (quick, mut out) = (args.common.quick, args.common.output(NAME)?);
    let study = args.study(NAME, Machine::Theta)?;
    let factors: &[f64] = if quick {
        &[0.5, 1.0, 2.0]
    } else {
        &[0.5, 0.75, 1.0, 1.5, 2.0]
    };
    for hours in [5, 50] {
        let mtbf = Duration::from_hours(hours);
        let results = study.run(
            factors,
            |&factor, _: &mut TypeParams, config: &mut HybridConfig| {
                config.checkpoint = CheckpointPolicy::new(mtbf)
                    .and_then(|c| c.with_scale(factor))
                    .expect("positive MTBF and factor");
                config.failures = Some(Failures {
                    mtbf,
                    mean_repair: cosched_hybrid::sim::DEFAULT_REPAIR,
                });
            },
        );
        let labels: Vec<String> = factors
            .iter()
            .map(|f| format!("{:.0} %", 100.0 * f))
            .collect();
        let xs: Vec<f64> = factors.iter().map(|f| 100.0 * f).collect();
        out.write_table(&study.table(
            &format!("{NAME}_mtbf_{hours}h"),
            &format!("Figure 8: checkpoint interval (share of Daly's optimum), MTBF {hours} h"),
            "interval",
            &labels,
            &results,
        ))?;
        out.write_plot(&Study::plot(
            &format!("rigid_turnaround_mtbf_{hours}h"),
            &format!("Rigid turnaround vs checkpoint interval, MTBF {hours} h"),
            "checkpoint interval (% of optimum)",
            &xs,
            &results,
            "turnaround rigid (h)",
            |m| m.rigid_turnaround_h,
        ))?;
        out.write_plot(&Study::plot(
            &format!("utilisation_mtbf_{hours}h"),
            &format!("Useful utilisation (arrival window) vs checkpoint interval, MTBF {hours} h"),
            "checkpoint interval (% of optimum)",
            &xs,
            &results,
            "useful utilisation, arrival window (%)",
            |m| 100.0 * m.window_utilization,
        ))?;
    }
    Ok(())
}
