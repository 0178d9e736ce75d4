//! Fan et al., "Hybrid Workload Scheduling on HPC Systems" (IPDPS 2022), Figure 8: sensitivity
//! to the rigid jobs' checkpoint interval (50-200 % of Daly's optimum) under node failures at
//! a system MTBF of 5 h and 50 h (repairs: exponential, mean 6 h).
//!
//! Workload: the Theta-like generated trace (or `--trace FILE.swf`, typed anew per seed), W5
//! notice mix, averaged over seeds. For every
//! MTBF, a table of every metric per interval and configuration (baseline and the six
//! mechanisms), and plots of the rigid turnaround and the useful utilisation over the
//! interval. Checkpoints cost δ each (600 / 1,200 s), so intervals below the optimum cost
//! checkpoint time and intervals above it lose more to preemptions and failures. The paper
//! gives no number for this figure; Observations 13 and 14 are checked on ours.

use cosched_core::Duration;
use cosched_examples::Claims;
use cosched_examples::hybrid::{
    Comparison, Machine, Runs, Significance, Study, StudyArgs, check_all, mark_no_data,
    per_replicate,
};
use cosched_hybrid::checkpoint::CheckpointPolicy;
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{Failures, HybridConfig, HybridReport};
use std::sync::{Mutex, PoisonError};

const NAME: &str = "hybrid_fig8";

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args =
        StudyArgs::parse_for("Checkpoint interval x MTBF sensitivity of the hybrid mechanisms");
    let (quick, mut out) = (args.common.quick, args.common.output(NAME)?);
    let study = args.study(NAME, Machine::Theta)?;
    let factors: &[f64] = if quick {
        &[0.5, 1.0, 2.0]
    } else {
        &[0.5, 0.75, 1.0, 1.5, 2.0]
    };
    let mut by_mtbf: Vec<Vec<Vec<Runs>>> = Vec::new();
    for hours in [5, 50] {
        let mtbf = Duration::from_hours(hours);
        // A refused checkpoint configuration (no nodes, a factor that is not positive) stops
        // the run with its error once the study returns.
        let refused = Mutex::new(None);
        let results = study.run(
            factors,
            |&factor, _: &mut TypeParams, config: &mut HybridConfig| {
                // Daly's interval for each job's own MTBF under the same failures.
                match CheckpointPolicy::new(mtbf, config.nodes).and_then(|c| c.with_scale(factor)) {
                    Ok(checkpoint) => config.checkpoint = checkpoint,
                    Err(e) => {
                        *refused.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                    }
                }
                config.failures = Some(Failures {
                    mtbf,
                    mean_repair: cosched_hybrid::sim::DEFAULT_REPAIR,
                });
            },
        )?;
        if let Some(e) = refused.into_inner().unwrap_or_else(PoisonError::into_inner) {
            return Err(e.into());
        }
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
            |m| m.mean(|r| r.rigid_turnaround_h),
        ))?;
        out.write_plot(&Study::plot(
            &format!("utilisation_mtbf_{hours}h"),
            &format!("Useful utilisation (arrival window) vs checkpoint interval, MTBF {hours} h"),
            "checkpoint interval (% of optimum)",
            &xs,
            &results,
            "useful utilisation, arrival window (%)",
            |m| 100.0 * m.mean(|r| r.window_utilization),
        ))?;
        by_mtbf.push(results);
    }
    let mut claims = Claims::new("hybrid");
    let optimum = factors.iter().position(|&f| f == 1.0).unwrap_or(0);
    let (lo, hi) = (0, factors.len() - 1);
    // Per replicate (trace), the six mechanisms' mean at MTBF `m` and interval factor `v`.
    let at = |m: usize, v: usize, f: fn(&HybridReport) -> f64| {
        per_replicate(by_mtbf[m][v].iter().skip(1), f)
    };
    let turn: fn(&HybridReport) -> f64 = |r| r.rigid_turnaround_h;
    let util: fn(&HybridReport) -> f64 = |r| r.window_utilization;
    let pct = |f: f64| 100.0 * f;
    let mut c13 = Vec::new();
    for (m, mtbf) in ["MTBF 5 h", "MTBF 50 h"].iter().enumerate() {
        let span = format!(
            "{:.0} % - {:.0} % of the optimum",
            pct(factors[lo]),
            pct(factors[hi])
        );
        c13.push(Comparison::new(
            format!("{mtbf} six-mean rigid turnaround, {span}, h"),
            &at(m, lo, turn),
            &at(m, hi, turn),
            Significance::Lower,
            1.0,
        ));
        c13.push(Comparison::new(
            format!("{mtbf} six-mean util, {span}, pp"),
            &at(m, lo, util),
            &at(m, hi, util),
            Significance::Higher,
            100.0,
        ));
    }
    check_all(
        &mut claims,
        "Obs. 13",
        "checkpointing more often than the optimum lowers rigid turnaround and raises utilisation",
        "all methods benefit from more frequent checkpoints: each significant",
        &c13,
        None,
    );
    let preempted: fn(&HybridReport) -> f64 =
        |r| r.rigid_preempted_ratio + r.malleable_preempted_ratio;
    let failures = |label: &str, f: fn(&HybridReport) -> f64, want: Significance, scale: f64| {
        Comparison::new(
            format!("six-mean {label}, MTBF 5 h - 50 h"),
            &at(0, optimum, f),
            &at(1, optimum, f),
            want,
            scale,
        )
    };
    check_all(
        &mut claims,
        "Obs. 14",
        "failures (MTBF 50 h -> 5 h) lower utilisation and instant start, raise preemption and rigid turnaround",
        "each moves the stated way: each significant",
        &[
            failures("util, pp", util, Significance::Lower, 100.0),
            failures(
                "instant start, pp",
                |r| r.instant_start_ratio,
                Significance::Lower,
                100.0,
            ),
            failures(
                "preempted rigid+malleable, pp",
                preempted,
                Significance::Higher,
                100.0,
            ),
            failures("rigid turnaround, h", turn, Significance::Higher, 1.0),
        ],
        None,
    );
    mark_no_data(
        &mut claims,
        by_mtbf.iter().flatten().flatten().flat_map(|m| m.runs()),
    );
    out.write_claims(&claims)?;
    Ok(())
}
