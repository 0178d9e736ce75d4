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

use cosched_examples::Claims;
use cosched_examples::hybrid::{Machine, Runs, Study, StudyArgs, mark_no_data, pooled, six_mean};
use cosched_hybrid::HybridConfig;
use cosched_hybrid::workload::TypeParams;

const NAME: &str = "hybrid_fig10";

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = StudyArgs::parse_for("Rigid setup overhead sensitivity of the hybrid mechanisms");
    let (quick, mut out) = (args.common.quick, args.common.output(NAME)?);
    let study = args.study(NAME, Machine::Theta)?;
    let ranges: &[(f64, f64)] = if quick {
        &[(0.0, 0.05), (0.05, 0.10), (0.20, 0.30)]
    } else {
        &[(0.0, 0.05), (0.05, 0.10), (0.10, 0.20), (0.20, 0.30)]
    };
    let results = study.run(
        ranges,
        |&range, types: &mut TypeParams, _: &mut HybridConfig| {
            types.rigid_setup = range;
        },
    )?;
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
        |m| m.mean(|r| r.rigid_turnaround_h),
    ))?;
    out.write_plot(&Study::plot(
        "utilisation",
        "Useful utilisation (arrival window) vs setup overhead",
        "setup (midpoint, % of run time)",
        &xs,
        &results,
        "useful utilisation, arrival window (%)",
        |m| 100.0 * m.mean(|r| r.window_utilization),
    ))?;
    let (lo, hi) = (six_mean(&results[0]), six_mean(&results[results.len() - 1]));
    let default = ranges.iter().position(|r| *r == (0.05, 0.10)).unwrap_or(0);
    let paa = |row: &[Runs]| pooled([&row[1], &row[3], &row[5]]);
    let (p_lo, p_def) = (paa(&results[0]), paa(&results[default]));
    let mut claims = Claims::new("hybrid");
    let pass16 = lo.mean(|r| r.turnaround_h) < hi.mean(|r| r.turnaround_h)
        && lo.mean(|r| r.window_utilization) > hi.mean(|r| r.window_utilization);
    let claim16 = claims.check(
        "Obs. 16",
        "the lower the rigid setup overhead, the lower the turnaround and the higher the utilisation",
        format!(
            "{} vs {}: turnaround {:.2} vs {:.2} h, util {:.1} vs {:.1} %",
            labels[0],
            labels[labels.len() - 1],
            lo.mean(|r| r.turnaround_h),
            hi.mean(|r| r.turnaround_h),
            100.0 * lo.mean(|r| r.window_utilization),
            100.0 * hi.mean(|r| r.window_utilization)
        ),
        "better with lower setup",
        pass16,
    );
    if !pass16 {
        let (t_lo, t_hi) = (lo.mean(|r| r.turnaround_h), hi.mean(|r| r.turnaround_h));
        let (u_lo, u_hi) = (
            lo.mean(|r| r.window_utilization),
            hi.mean(|r| r.window_utilization),
        );
        let mut failed = Vec::new();
        if t_lo >= t_hi {
            failed.push(format!(
                "turnaround is not lower with the lower setup ({t_lo:.2} vs {t_hi:.2} h)"
            ));
        }
        if u_lo <= u_hi {
            failed.push(format!(
                "utilisation is not higher with the lower setup ({:.1} vs {:.1} %)",
                100.0 * u_lo,
                100.0 * u_hi
            ));
        }
        claim16.because(failed.join("; "));
    }
    claims.check(
        "Obs. 17",
        "rigid setup 0-5 % (like malleable jobs') largely raises rigid and lowers malleable preemption, especially on PAA",
        format!(
            "PAA methods, 5-10 % -> 0-5 %: rigid preempted {:.1}->{:.1} %, malleable {:.1}->{:.1} %",
            100.0 * p_def.mean(|r| r.rigid_preempted_ratio),
            100.0 * p_lo.mean(|r| r.rigid_preempted_ratio),
            100.0 * p_def.mean(|r| r.malleable_preempted_ratio),
            100.0 * p_lo.mean(|r| r.malleable_preempted_ratio)
        ),
        "obvious increase (rigid), decrease (malleable)",
        p_lo.mean(|r| r.rigid_preempted_ratio) > 1.25 * p_def.mean(|r| r.rigid_preempted_ratio)
            && p_lo.mean(|r| r.malleable_preempted_ratio) < p_def.mean(|r| r.malleable_preempted_ratio),
    );
    if let Some(c) = claims.claims.last_mut().filter(|c| !c.pass) {
        c.reason = Some(
            "most preempted rigid jobs have no completed checkpoint: their overhead is the \
             elapsed time, which the setup range does not change"
                .into(),
        );
    }
    mark_no_data(&mut claims, results.iter().flatten().flat_map(|m| m.runs()));
    out.write_claims(&claims)?;
    Ok(())
}
