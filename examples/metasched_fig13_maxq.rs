//! Murali & Vadhiyar, Figure 13 (§5.7.3): MCMF against `MaxQ`, the jobs one site takes per
//! scheduling cycle (a large value stands for the paper's "no limit"), with the paper's
//! observations on XSEDE checked.
//!
//! Workload → `MaxQ` sweep (in parallel) → table (relative to BS) → CSV + plot → claims.

use clap::Parser;
use cosched_examples::Claims;
use cosched_examples::metasched::{Averaged, RunConfig, SweepCli, SweepExample, queueing_reason};

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let run = SweepExample {
        name: "metasched_fig13_maxq",
        title: "MCMF against MaxQ (jobs per site per cycle)",
        paper: "Figure 13 (a curve; §5.7.3 states its trend)",
        x_label: "MaxQ",
        x_decimals: 0,
        full: &[1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 1000.0],
        quick: &[1.0, 2.0, 10.0],
        // The x values are small whole numbers.
        configure: |max_q, c| RunConfig {
            max_q: max_q as u32,
            ..c
        },
    }
    .run(&SweepCli::parse())?;
    let mut out = run.out;
    let points = &run.result.points;
    let at = |q: f64| points.iter().find(|(x, _)| *x == q).map(|(_, a)| *a);
    let mut claims = Claims::new("metasched");
    // With the paper's trace nothing is drawn at random: every point is one deterministic
    // run (more seeds would repeat it), so a difference counts only beyond a stated tolerance:
    // 0.5 % (ours; Fig. 13 is a plot with no printed precision). Replicates take over when
    // the scenario draws (--wait-perturb-h, --power, generated jobs): then the tolerance
    // applies to the means over seeds.
    let beyond_tolerance = |a: f64, b: f64| a > 1.005 * b;
    if let (Some(one), Some(two)) = (at(1.0), at(2.0)) {
        claims.check(
            "§5.7.3, Fig. 13",
            "response time falls from MaxQ 1 to 2 (jobs no longer held; by > 0.5 %, ours)",
            format!(
                "{:.1} -> {:.1} min",
                one.response_s / 60.0,
                two.response_s / 60.0
            ),
            "falls",
            beyond_tolerance(one.response_s, two.response_s),
        );
        let beyond: Vec<_> = points.iter().filter(|(x, _)| *x > 2.0).collect();
        let listing = |pick: fn(&Averaged) -> f64, scale: f64| {
            beyond
                .iter()
                .map(|(x, a)| format!("{x}: {:.2}", pick(a) * scale))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // "Grows": the largest MaxQ more than 0.5 % above MaxQ 2.
        let grows = |pick: fn(&Averaged) -> f64| {
            beyond
                .last()
                .is_some_and(|(_, a)| beyond_tolerance(pick(a), pick(&two)))
        };
        let flat_reason = queueing_reason(
            run.result.baseline.bounded_slowdown,
            "more jobs per cycle find no queue to lengthen",
        );
        let check = claims.check(
            "§5.7.3, Fig. 13",
            "beyond MaxQ 2 the bounded slowdown grows (by > 0.5 %, ours)",
            listing(|a| a.bounded_slowdown, 1.0)
                + &format!(" (MaxQ 2: {:.2})", two.bounded_slowdown),
            "increases",
            grows(|a| a.bounded_slowdown),
        );
        if !grows(|a| a.bounded_slowdown) {
            check.because(flat_reason.clone());
        }
        let check = claims.check(
            "§5.7.3, Fig. 13",
            "beyond MaxQ 2 the average response time grows (by > 0.5 %, ours)",
            listing(|a| a.response_s, 1.0 / 60.0)
                + &format!(" min (MaxQ 2: {:.2})", two.response_s / 60.0),
            "increases",
            grows(|a| a.response_s),
        );
        if !grows(|a| a.response_s) {
            check.because(flat_reason);
        }
    }
    out.write_claims(&claims)?;
    Ok(())
}
