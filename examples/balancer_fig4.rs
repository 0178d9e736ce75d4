//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 4: the Hint strategy. Every
//! on-demand request is announced `H` = 15 or 30 minutes ahead, which the Balancer turns into
//! `add_reserve(H, N)`: a dynamic reserve built in advance (by claiming idle nodes, or busy
//! ones whose jobs end by then), with no static reserve; unused reserve returns to batch after
//! `I`. Compared with the Basic Balancer without hints (`R = W = 0`) over ρ = 1.25 % × {1, 2,
//! 4, 8, 16, 24} on the five synthetic batch workloads, 372 nodes, one week, preloaded.
//!
//! Expected shape: hints cut the reject rate against Basic, more with the longer notice, at a
//! small cost in batch wait and unused reserve. The paper shows curves and gives no numbers
//! for this figure, so none are printed beside ours.

use cosched_balancer::synthetic::RHO_SCALES;
use cosched_examples::balancer::{
    BATCH_UTIL, BATCH_WAIT, COMBINED_UTIL, FigureCli, FigureOutput, GridResult, MECHANISM_SEEDS,
    OD_UTIL, Prepared, REJECT_RATE, RESERVE_IDLE, Variant, cell, prepare, run_grid, show_paired,
};
use cosched_examples::{Cell, Claims, Table};

const NAME: &str = "balancer_fig4";

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = FigureCli::parse_about(
        "The Balancer, Figure 4: reserve hints H = 15 and 30 min against Basic",
    );
    let (common, inputs) = (&cli.common, &cli.inputs);
    let scenario = inputs.scenario();
    let mut p = prepare(NAME, common, &scenario, 1, 1, cli.seeds, MECHANISM_SEEDS)?;
    let scales: &[u32] = if common.quick { &[2, 8] } else { &RHO_SCALES };
    let variants = [
        Variant::basic(&scenario),
        Variant::hint(&scenario, 15),
        Variant::hint(&scenario, 30),
    ];
    let results = run_grid(NAME, &scenario, &p, scales, &variants)?;
    let plot_title = format!("Figure 4, hints ({})", p.labels[0]);
    let figure = FigureOutput::rho_curves(
        format!(
            "Figure 4: reserve hints, W = 0, {} nodes, one week",
            inputs.nodes
        ),
        format!(
            "every request announced H ahead under Hint; I = {} min; curves of {}.",
            inputs.idle_hold, p.labels[0]
        ),
        "fig4",
        &plot_title,
        &[REJECT_RATE, BATCH_WAIT, RESERVE_IDLE],
    );
    p.write(NAME, scales, &figure, &variants, &results)?;
    p.write_claims(&check(&p, scales, &results))?;
    let checks = checks(&p, &results, inputs.idle_hold);
    p.write_table(&checks)?;
    Ok(())
}

/// Checks, not paper claims: H30's unused reserve is bounded by the requests' nodes (each
/// gathered up to H before its request, then held I after its lease or rejection), so the
/// paper's 578 node-h at rho = 10 % is set by its lease count (141 leases x 8 nodes x 0.5 h =
/// 564 node-h with no hold), not by the mechanism.
fn checks(p: &Prepared, results: &[GridResult], idle_hold_min: i64) -> Table {
    let mut table = Table::new(
        format!("{NAME}_checks"),
        "Checks (accounting bounds, not counted as paper claims)",
        ["check", "ours", "bound", "paper"],
    );
    if let Some(r) = p.workload("U66-Main").and_then(|w| cell(results, w, 8, 2)) {
        let (requests, nodes) = p.replicates.first().map_or((0, 0), |rep| {
            (
                rep.base.len(),
                rep.base.iter().map(|l| u64::from(l.nodes) * 8).sum::<u64>(),
            )
        });
        let hold_h = idle_hold_min as f64 / 60.0;
        table.row([
            Cell::Text(format!(
                "U66-Main, rho = 10 %, H = 30: unused reserve (node-h) <= requests' nodes x \
                 (H + I) ({requests} requests, {nodes} nodes at x8, I = {:.0} min)",
                60.0 * hold_h
            )),
            Cell::Text(r.show(&RESERVE_IDLE, 0)),
            Cell::fixed(nodes as f64 * (0.5 + hold_h), 0),
            Cell::Text("578 (141 leases x 8 x 0.5 h = 564, §III-B4)".to_owned()),
        ]);
    }
    table
}

/// §III-B4's observations about Figure 4 (variants: 0 Basic, 1 H15, 2 H30). Comparisons
/// with Basic are paired by replicate under
/// [`SIGNIFICANCE_RULE`](cosched_examples::balancer::SIGNIFICANCE_RULE).
fn check(p: &Prepared, scales: &[u32], results: &[GridResult]) -> Claims {
    let mut claims = Claims::new("balancer");
    let source = "§III-B4, Fig. 4";
    let get = |label: &str, scale: u32, variant: usize| {
        p.workload(label)
            .and_then(|w| cell(results, w, scale, variant))
    };
    // rho = 10 %: x8. The paper's words are the tolerance: "zero" is no rejection in any
    // replicate, "< 1 %" and "< 4 %" are the replicates' mean.
    for (variant, label, limit, paper) in [
        (2, "U66-Main", 0.0, "0"),
        (2, "U66-Wide", 0.0, "0"),
        (2, "U66-Narrow", 0.0, "0"),
        (2, "U77-Main", 0.0, "0"),
        (2, "U88-Main", 0.01, "< 1 %"),
        (1, "U66-Main", 0.01, "< 1 %"),
        (1, "U77-Main", 0.04, "< 4 %"),
        (1, "U88-Main", 0.04, "< 4 %"),
    ] {
        let Some(r) = get(label, 8, variant) else {
            continue;
        };
        let h = if variant == 2 { 30 } else { 15 };
        let rate = r.spread(&REJECT_RATE);
        let pass = if limit == 0.0 {
            rate.max == 0.0
        } else {
            rate.mean < limit
        };
        let claim = claims.check(
            source,
            format!(
                "H = {h} min, rho = 10 %: {label} reject rate {paper} (tolerance: the paper's \
                 words; 0 = none in any replicate)"
            ),
            r.show(&REJECT_RATE, 4),
            paper,
            pass,
        );
        if !pass {
            let basic = get(label, 8, 0).and_then(|b| r.paired(b, &REJECT_RATE, 0.001));
            claim.because(format!(
                "rejects {:.2} % (worst replicate {:.2} %); against Basic R = W = 0: {}",
                100.0 * rate.mean,
                100.0 * rate.max,
                show_paired(basic.as_ref(), 100.0, "points")
            ));
        }
    }
    if let Some(r) = get("U66-Main", 8, 2) {
        // "Merely" bounds the wait from above; the paper's 50 is rounded to tens of minutes.
        let wait = r.spread(&BATCH_WAIT).mean;
        let claim = claims.check(
            source,
            "H = 30: U66-Main batch wait 'merely 50 minutes' (one-sided; tolerance the \
             paper's rounding to tens of minutes: at most 55 min)",
            format!("{:.0} min", 60.0 * wait),
            "50 min",
            wait <= 55.0 / 60.0,
        );
        if wait > 55.0 / 60.0 {
            claim.because(format!("{:.0} min over 55", 60.0 * wait - 55.0));
        }
    }
    if let Some(&hi) = scales.last()
        && let (Some(h30), Some(basic)) = (get("U66-Main", hi, 2), get("U66-Main", hi, 0))
    {
        // Tolerance with one replicate: the paper's 0.1-point precision.
        let up = h30.paired(basic, &COMBINED_UTIL, 0.001);
        claims.check(
            source,
            format!(
                "hints raise the combined utilisation over Basic (U66-Main, x{hi}; paired, \
                 significantly)"
            ),
            show_paired(up.as_ref(), 100.0, "points"),
            "up (+5.1 points OD at rho = 30 %)",
            up.is_some_and(|d| d.higher()),
        );
        // §III-B4's utilisation sentences are about rho = 30 % (x24): only a run that reaches
        // it checks them.
        if hi == 24 {
            // The paper states a size (+5.1 points), so the test is two-sided: its value must
            // lie within our paired 95 % interval, widened to its 0.1-point precision (with
            // one replicate, that precision alone), and the interval must exclude 0 (an
            // interval holding both 0 and 5.1 does not resolve the size).
            let od = h30.paired(basic, &OD_UTIL, 0.001);
            let (mean, half) = od.map_or((f64::NAN, f64::NAN), |d| {
                (d.difference.mean, d.threshold().unwrap_or(0.001).max(0.001))
            });
            let near = (mean - 0.051).abs() <= half + 0.0005;
            let resolved = mean - half > 0.0;
            let claim = claims.check(
                "§III-B4",
                "U66-Main, rho = 30 %: H30's on-demand utilisation +5.1 points over Basic's \
                 (two-sided: 5.1 within our paired 95 % interval, at the paper's 0.1-point \
                 precision, and 0 outside it)",
                show_paired(od.as_ref(), 100.0, "points"),
                "+5.1 points",
                near && resolved,
            );
            if !near {
                claim.because(format!(
                    "ours {:+.2} points, {:.2} points {} the paper's",
                    100.0 * mean,
                    100.0 * (mean - 0.051).abs(),
                    if mean > 0.051 { "above" } else { "below" }
                ));
            } else if !resolved {
                claim.because(format!(
                    "the interval [{:+.2}, {:+.2}] points holds 0: the size is not resolved",
                    100.0 * (mean - half),
                    100.0 * (mean + half)
                ));
            }
            let a = h30.spread(&COMBINED_UTIL).mean;
            claims.check(
                "§III-B4",
                "U66-Main, rho = 30 %, H30: the combined utilisation goes above 85 %",
                format!("{:.1} %", 100.0 * a),
                "> 85 %",
                a > 0.85,
            );
            // "Approximately the same": within the spread of batch utilisation itself between
            // replicates (one workload and request draw each, as the paper's one run): the
            // standard deviation of Basic's over the seeds, measured; with one replicate the
            // paper's 0.1-point precision.
            let spread = basic.spread(&BATCH_UTIL).sd.unwrap_or(0.001);
            let batch = h30.paired(basic, &BATCH_UTIL, 0.005);
            let (mean, half) = batch.as_ref().map_or((f64::NAN, f64::NAN), |d| {
                (d.difference.mean, d.threshold().unwrap_or(f64::NAN))
            });
            let same = mean.abs() + half <= spread;
            let claim = claims.check(
                "§III-B4",
                format!(
                    "batch utilisation stays approximately the same with hints (U66-Main, rho = \
                     30 %; the paired difference and its interval within ±{:.2} points: Basic's \
                     batch utilisation's standard deviation over the replicates, measured)",
                    100.0 * spread
                ),
                show_paired(batch.as_ref(), 100.0, "points"),
                "approximately the same",
                same,
            );
            if !same {
                claim.because(format!(
                    "the paired interval [{:+.2}, {:+.2}] points reaches past ±{:.2}",
                    100.0 * (mean - half),
                    100.0 * (mean + half),
                    100.0 * spread
                ));
            }
        }
    }
    claims
}
