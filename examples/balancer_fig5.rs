//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 5: the Predictive algorithm
//! (§II-C3, §III-B5). An out-of-band predictor splits each day into four 6-hour slots and at
//! each slot's start has the Balancer reserve the **peak** number of requested nodes of the
//! same slot over the last month, week and day, held for that slot. As the paper, the
//! predictor is first trained offline on earlier weeks of the on-demand source (five weeks
//! before the experiment, drawn from their own seed stream; none with a file), then the week
//! is run. Compared with Basic (`R = W = 0`) and the Hint algorithm (`H = 30 min`) over
//! ρ = 1.25 % × {1, 2, 4, 8, 16, 24} on the synthetic batch workloads, 372 nodes, preloaded.

use clap::Parser;
use cosched_balancer::predictor::{Combine, PredictiveHold};
use cosched_balancer::synthetic::RHO_SCALES;
use cosched_core::Duration;
use cosched_examples::balancer::{
    BATCH_WAIT, BalancerArgs, Curves, FigureOutput, GridResult, HISTORY_WEEKS, Plots, Prepared,
    REJECT_RATE, RESERVE_IDLE, Variant, cell, prepare, rho_percent, run_grid,
};
use cosched_examples::{Claims, CommonArgs};

const NAME: &str = "balancer_fig5";

#[derive(Parser)]
#[command(about = "The Balancer, Figure 5: the Predictive reserve against Basic and Hint")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    inputs: BalancerArgs,
    /// Seeds averaged (replicates of every synthetic input) [default: 3, quick: 1].
    #[arg(long, value_name = "N")]
    seeds: Option<u32>,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let (common, inputs) = (&cli.common, &cli.inputs);
    let scenario = inputs.scenario();
    let mut p = prepare(NAME, common, &scenario, 1, 1, cli.seeds)?;
    let scales: &[u32] = if common.quick { &[2, 8] } else { &RHO_SCALES };
    let mut variants = vec![
        Variant {
            label: "Basic R=W=0".to_owned(),
            configuration: scenario.basic(0, Duration::ZERO),
            notice: None,
        },
        Variant {
            label: "Hint H=30 min".to_owned(),
            configuration: scenario.hint(Duration::ZERO),
            notice: Some(Duration::from_mins(30)),
        },
    ];
    for (name, rule, hold) in [
        ("max", Combine::Max, PredictiveHold::Idle),
        ("mean", Combine::Mean, PredictiveHold::Idle),
        (
            "max, held for its slot (ours)",
            Combine::Max,
            PredictiveHold::Slot,
        ),
    ] {
        variants.push(Variant {
            label: format!("Predictive ({name})"),
            configuration: scenario.predictive(rule, hold, Duration::ZERO, scenario.idle_hold),
            notice: None,
        });
    }
    let results = run_grid(NAME, &scenario, &p, scales, &variants)?;
    let figure = FigureOutput {
        title: format!(
            "Figure 5: predictive reserve, W = 0, {} nodes, one week",
            inputs.nodes
        ),
        notes: format!(
            "6-hour slots; the peaks of the same slot a month (30 days), a week and a day before \
             (§II-C3) combined by their largest (max, ours) or mean; trained on {HISTORY_WEEKS} \
             earlier weeks; the reserve is add_reserve(0, N) at the slot's start, its nodes \
             released after I unused (§II-C2/3), or (last variant, ours) held to the slot's \
             end; I = {} min; curves of {}.",
            inputs.idle_hold, p.labels[0]
        ),
        plots: Plots {
            prefix: "fig5",
            title: &format!("Figure 5, predictive ({})", p.labels[0]),
            curves: Curves::PerVariant { workload: 0 },
            x_label: "on-demand load rho (%)",
            x: &rho_percent,
        },
        metrics: &[REJECT_RATE, RESERVE_IDLE, BATCH_WAIT],
    };
    p.write(NAME, scales, &figure, &variants, &results)?;
    let claims = check(&p, scales, &results);
    p.write_claims(&claims)?;
    Ok(())
}

/// §III-B5's observations about Figure 5 (variants: 0 Basic, 1 H30, 2 Predictive max).
fn check(p: &Prepared, scales: &[u32], results: &[GridResult]) -> Claims {
    let mut claims = Claims::new("balancer");
    let source = "§III-B5, Fig. 5";
    let Some(main) = p.workload("U66-Main") else {
        return claims;
    };
    let mean = |scale, variant, metric| {
        cell(results, main, scale, variant).map(|r: &GridResult| r.spread(metric).mean)
    };
    let show = |scale, variant, metric, d| {
        cell(results, main, scale, variant).map_or("-".to_owned(), |r| r.show(metric, d))
    };
    // Reject rates as good as the hint's (within 1 point) at every rho.
    let close: Vec<bool> = scales
        .iter()
        .map(|&s| {
            mean(s, 2, &REJECT_RATE)
                .zip(mean(s, 1, &REJECT_RATE))
                .is_some_and(|(pr, h)| pr <= h + 0.01)
        })
        .collect();
    claims.check(
        source,
        "Predictive rejects about as little as Hint H = 30 (within 1 point) at every rho",
        scales
            .iter()
            .map(|&s| {
                format!(
                    "x{s}: {} vs {}",
                    show(s, 2, &REJECT_RATE, 3),
                    show(s, 1, &REJECT_RATE, 3)
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
        "performs equally well",
        close.iter().all(|&c| c),
    );
    // Better than Basic.
    if let Some(&hi) = scales.last() {
        let (pr, basic) = (mean(hi, 2, &REJECT_RATE), mean(hi, 0, &REJECT_RATE));
        claims.check(
            source,
            format!("Predictive rejects less than Basic (x{hi})"),
            format!(
                "{} vs {}",
                show(hi, 2, &REJECT_RATE, 3),
                show(hi, 0, &REJECT_RATE, 3)
            ),
            "better than Basic",
            pr.zip(basic).is_some_and(|(a, b)| a < b),
        );
    }
    // Batch wait: comparable to the hint's for rho < 5 %, 1-4x it above.
    for &s in scales {
        let (Some(pw), Some(hw)) = (mean(s, 2, &BATCH_WAIT), mean(s, 1, &BATCH_WAIT)) else {
            continue;
        };
        let ratio = pw / hw.max(1e-9);
        let (claim, paper, pass) = if s < 4 {
            (
                "batch wait comparable to Hint's at rho < 5 % (within 1.5x)",
                "comparable",
                ratio <= 1.5,
            )
        } else {
            (
                "batch wait 1-4x Hint's at higher rho",
                "1-4x",
                (0.9..=4.0).contains(&ratio),
            )
        };
        claims.check(
            source,
            format!("x{s}: {claim}"),
            format!(
                "{} h vs {} h ({ratio:.2}x)",
                show(s, 2, &BATCH_WAIT, 2),
                show(s, 1, &BATCH_WAIT, 2)
            ),
            paper,
            pass,
        );
    }
    // Over-reserving: more unused reserve than the hint.
    if let Some(&hi) = scales.last()
        && let (Some(pr), Some(h)) = (mean(hi, 2, &RESERVE_IDLE), mean(hi, 1, &RESERVE_IDLE))
    {
        claims.check(
            source,
            format!("Predictive over-reserves: more unused reserve than Hint (x{hi})"),
            format!("{pr:.0} vs {h:.0} node-h"),
            "over-reserves",
            pr > h,
        );
    }
    claims
}
