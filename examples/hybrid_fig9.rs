//! Fan et al., "Hybrid Workload Scheduling on HPC Systems" (IPDPS 2022), Figure 9: sensitivity
//! to the malleable jobs' smallest size n_min, 20-80 % of their requested size.
//!
//! Workload: the Theta-like generated trace (or `--trace FILE.swf`, typed anew per seed), W5
//! notice mix, averaged over seeds. A table of
//! every metric per n_min and configuration, and plots of the malleable turnaround and the
//! malleable preemption ratio over n_min. The paper gives no number we can quote for this
//! figure; Observation 15 is checked on ours: a larger n_min leaves SPAA less to shrink, so
//! preemptions rise and utilisation falls, more on SPAA.

use cosched_examples::Claims;
use cosched_examples::hybrid::{
    Comparison, Machine, Runs, Significance, Study, StudyArgs, check_all, mark_no_data,
    per_replicate,
};
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{HybridConfig, HybridReport};

const NAME: &str = "hybrid_fig9";

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = StudyArgs::parse_for("Malleable n_min sensitivity of the hybrid mechanisms");
    let (quick, mut out) = (args.common.quick, args.common.output(NAME)?);
    let study = args.study(NAME, Machine::Theta)?;
    let fractions: &[f64] = if quick {
        &[0.2, 0.8]
    } else {
        &[0.2, 0.4, 0.6, 0.8]
    };
    let results = study.run(
        fractions,
        |&f, types: &mut TypeParams, _: &mut HybridConfig| {
            types.min_fraction = f;
        },
    )?;
    let labels: Vec<String> = fractions
        .iter()
        .map(|f| format!("{:.0} %", 100.0 * f))
        .collect();
    let xs: Vec<f64> = fractions.iter().map(|f| 100.0 * f).collect();
    out.write_table(&study.table(
        NAME,
        "Figure 9: malleable n_min (share of the requested size)",
        "n_min",
        &labels,
        &results,
    ))?;
    out.write_plot(&Study::plot(
        "malleable_turnaround",
        "Malleable turnaround vs n_min",
        "n_min (% of requested size)",
        &xs,
        &results,
        "turnaround malleable (h)",
        |m| m.mean(|r| r.malleable_turnaround_h),
    ))?;
    out.write_plot(&Study::plot(
        "malleable_preempted",
        "Malleable jobs preempted vs n_min",
        "n_min (% of requested size)",
        &xs,
        &results,
        "malleable preempted (%)",
        |m| 100.0 * m.mean(|r| r.malleable_preempted_ratio),
    ))?;
    let (lo, hi) = (&results[0], &results[results.len() - 1]);
    let preempted: fn(&HybridReport) -> f64 =
        |r| r.rigid_preempted_ratio + r.malleable_preempted_ratio;
    // Per replicate (trace): the six mechanisms' mean, or the PAA or SPAA three's.
    let six = |row: &[Runs], f: fn(&HybridReport) -> f64| per_replicate(row.iter().skip(1), f);
    let group = |row: &[Runs], spaa: bool| {
        per_replicate(
            row.iter()
                .skip(1)
                .enumerate()
                .filter(|(k, _)| (k % 2 == 1) == spaa)
                .map(|(_, m)| m),
            preempted,
        )
    };
    let rise = |spaa: bool| -> Vec<f64> {
        group(hi, spaa)
            .iter()
            .zip(group(lo, spaa))
            .map(|(h, l)| h - l)
            .collect()
    };
    let mut claims = Claims::new("hybrid");
    check_all(
        &mut claims,
        "Obs. 15",
        "a narrower malleable size range (n_min 20 % -> 80 %) raises preemptions and lowers utilisation, most on SPAA",
        "preemptions up, utilisation slightly down, especially SPAA: each significant",
        &[
            Comparison::new(
                format!(
                    "six-mean preempted rigid+malleable, {} - {}, pp",
                    labels[labels.len() - 1],
                    labels[0]
                ),
                &six(hi, preempted),
                &six(lo, preempted),
                Significance::Higher,
                100.0,
            ),
            Comparison::new(
                format!(
                    "six-mean util, {} - {}, pp",
                    labels[labels.len() - 1],
                    labels[0]
                ),
                &six(hi, |r| r.window_utilization),
                &six(lo, |r| r.window_utilization),
                Significance::Lower,
                100.0,
            ),
            Comparison::new(
                "rise of preempted, SPAA three - PAA three, pp".into(),
                &rise(true),
                &rise(false),
                Significance::Higher,
                100.0,
            ),
        ],
        None,
    );
    mark_no_data(&mut claims, results.iter().flatten().flat_map(|m| m.runs()));
    out.write_claims(&claims)?;
    Ok(())
}
