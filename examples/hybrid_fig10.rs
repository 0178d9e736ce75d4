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
use cosched_examples::hybrid::{
    Comparison, Machine, Runs, Significance, Study, StudyArgs, check_all, mark_no_data,
    per_replicate,
};
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{HybridConfig, HybridReport};

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
    let (lo, hi) = (&results[0], &results[results.len() - 1]);
    let default = ranges.iter().position(|r| *r == (0.05, 0.10)).unwrap_or(0);
    // Per replicate (trace): the six mechanisms' mean, or the three PAA methods'.
    let six = |row: &[Runs], f: fn(&HybridReport) -> f64| per_replicate(row.iter().skip(1), f);
    let paa =
        |row: &[Runs], f: fn(&HybridReport) -> f64| per_replicate([&row[1], &row[3], &row[5]], f);
    let (first, last) = (&labels[0], &labels[labels.len() - 1]);
    let mut claims = Claims::new("hybrid");
    check_all(
        &mut claims,
        "Obs. 16",
        "the lower the rigid setup overhead, the lower the turnaround and the higher the utilisation",
        "better with lower setup: each significant",
        &[
            Comparison::new(
                format!("six-mean turnaround, {first} - {last}, h"),
                &six(lo, |r| r.turnaround_h),
                &six(hi, |r| r.turnaround_h),
                Significance::Lower,
                1.0,
            ),
            Comparison::new(
                format!("six-mean util, {first} - {last}, pp"),
                &six(lo, |r| r.window_utilization),
                &six(hi, |r| r.window_utilization),
                Significance::Higher,
                100.0,
            ),
        ],
        None,
    );
    let rigid: fn(&HybridReport) -> f64 = |r| r.rigid_preempted_ratio;
    let largely: Vec<f64> = paa(&results[default], rigid)
        .iter()
        .map(|p| 1.25 * p)
        .collect();
    check_all(
        &mut claims,
        "Obs. 17",
        "rigid setup 0-5 % (like malleable jobs') largely raises rigid and lowers malleable preemption, especially on PAA",
        "obvious increase (rigid: 'largely', ours more than 1.25x), decrease (malleable): each \
         significant",
        &[
            Comparison::new(
                "PAA methods rigid preempted, 0-5 % - 1.25 x (5-10 %), pp".into(),
                &paa(&results[0], rigid),
                &largely,
                Significance::Higher,
                100.0,
            ),
            Comparison::new(
                "PAA methods malleable preempted, 0-5 % - 5-10 %, pp".into(),
                &paa(&results[0], |r| r.malleable_preempted_ratio),
                &paa(&results[default], |r| r.malleable_preempted_ratio),
                Significance::Lower,
                100.0,
            ),
        ],
        None,
    );
    mark_no_data(&mut claims, results.iter().flatten().flat_map(|m| m.runs()));
    out.write_claims(&claims)?;
    Ok(())
}
