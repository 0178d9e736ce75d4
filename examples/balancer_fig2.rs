//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 2: the Basic Balancer with no
//! static reserve and no wait window (`R = W = 0`) on the five synthetic batch workloads
//! (U66-Main, U66-Wide, U66-Narrow, U77-Main, U88-Main) against on-demand loads
//! ρ = 1.25 % × {1, 2, 4, 8, 16, 24} on the 372-node cluster, one week, preloaded.
//!
//! Per cell: the mean batch wait beside the all-batch lower bound (every on-demand request
//! rejected), the on-demand reject rate and the utilisations. Expected shape: the reject rate
//! grows with ρ and with the batch load (the Balancer can only take idle nodes when `W = 0`),
//! and the batch wait stays near its lower bound. The paper's observations (§III-B3) are
//! checked on our numbers, over several seeds.

use cosched_balancer::scenario::Arm;
use cosched_balancer::synthetic::RHO_SCALES;
use cosched_core::Duration;
use cosched_core::stats;
use cosched_examples::balancer::{
    BATCH_WAIT, Curves, FIGURE_SEEDS, FigureCli, FigureOutput, GridResult, Plots, Prepared,
    REJECT_RATE, Variant, cell, prepare, rho_percent, run_grid, show_paired,
};
use cosched_examples::{Cell, Claims, Table};

const NAME: &str = "balancer_fig2";

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = FigureCli::parse_about(
        "The Balancer, Figure 2: Basic (R = W = 0) over 5 batch workloads x 6 rho",
    );
    let (common, inputs) = (&cli.common, &cli.inputs);
    let scenario = inputs.scenario();
    let mut p = prepare(NAME, common, &scenario, 2, 1, cli.seeds, FIGURE_SEEDS)?;
    let scales: &[u32] = if common.quick { &[1, 8] } else { &RHO_SCALES };
    let variants = [
        Variant {
            label: "Basic R=W=0".to_owned(),
            configuration: scenario.basic(0, Duration::ZERO),
            notice: None,
        },
        Variant {
            label: "all-batch".to_owned(),
            configuration: Arm::all_batch(),
            notice: None,
        },
    ];
    let results = run_grid(NAME, &scenario, &p, scales, &variants)?;
    let figure = FigureOutput {
        title: format!(
            "Figure 2: Basic Balancer (R = W = 0), {} nodes, one week",
            inputs.nodes
        ),
        notes: format!(
            "I = {} min. rho: offered on-demand load over the week. all-batch: the same \
             batch week with every request rejected (the wait's lower bound; it does not \
             depend on rho).",
            inputs.idle_hold
        ),
        plots: Plots {
            prefix: "fig2",
            title: "Figure 2, Basic R = W = 0",
            curves: Curves::PerWorkload { variant: Some(0) },
            x_label: "on-demand load rho (%)",
            x: &rho_percent,
        },
        metrics: &[REJECT_RATE, BATCH_WAIT],
    };
    p.write(NAME, scales, &figure, &variants, &results)?;
    let table2 = table_ii(&p);
    p.write_table(&table2)?;
    let claims = check(&p, scales, &results);
    p.write_claims(&claims)?;
    Ok(())
}

/// The paper's Table II (§III-B1): nodes and run time (minutes) of the five workloads.
const PAPER_TABLE_II: [(&str, [f64; 4]); 5] = [
    ("U66-Narrow", [1.6, 3.4, 62.6, 293.6]),
    ("U66-Main", [2.9, 6.6, 64.1, 303.1]),
    ("U66-Wide", [5.7, 12.7, 60.8, 299.2]),
    ("U77-Main", [2.9, 6.5, 64.8, 310.7]),
    ("U88-Main", [2.9, 6.2, 65.4, 302.1]),
];

/// Table II for the workloads we generated (first seed), beside the paper's.
fn table_ii(p: &Prepared) -> Table {
    let mut t = Table::new(
        "balancer_table2",
        "Table II: job statistics of the synthetic batch workloads (ours / paper)",
        [
            "workload",
            "jobs",
            "avg nodes",
            "paper",
            "std nodes",
            "paper",
            "avg runtime (min)",
            "paper",
            "std runtime (min)",
            "paper",
        ],
    )
    .with_notes(
        "Ours: the first seed's week; sample standard deviations. Paper: Table II, from 1 % \
         of two years of LCRC jobs (ours: from --sample-lcrc files, else a generated trace).",
    );
    for (w, label) in p.labels.iter().enumerate() {
        let Some(jobs) = p
            .replicates
            .first()
            .and_then(|r| r.batch.get(w))
            .map(|b| &b.jobs)
        else {
            continue;
        };
        let nodes: Vec<f64> = jobs.iter().map(|j| f64::from(j.size)).collect();
        let mins: Vec<f64> = jobs.iter().map(|j| j.runtime.0 as f64 / 60.0).collect();
        let paper = PAPER_TABLE_II
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, v)| *v);
        let theirs = |k: usize| Cell::paper(paper.map(|v| v[k]), 1);
        t.row([
            Cell::Text(label.clone()),
            Cell::from(Some(jobs.len() as u64)),
            Cell::fixed(stats::mean(&nodes).unwrap_or(f64::NAN), 1),
            theirs(0),
            Cell::fixed(stats::sample_sd(&nodes).unwrap_or(f64::NAN), 1),
            theirs(1),
            Cell::fixed(stats::mean(&mins).unwrap_or(f64::NAN), 1),
            theirs(2),
            Cell::fixed(stats::sample_sd(&mins).unwrap_or(f64::NAN), 1),
            theirs(3),
        ]);
    }
    t
}

/// §III-B3's observations about Figure 2; comparisons (between loads, between workloads)
/// paired by replicate under
/// [`SIGNIFICANCE_RULE`](cosched_examples::balancer::SIGNIFICANCE_RULE).
fn check(p: &Prepared, scales: &[u32], results: &[GridResult]) -> Claims {
    let mut claims = Claims::new("balancer");
    let source = "§III-B3, Fig. 2";
    let get = |label: &str, scale: u32, variant: usize| {
        p.workload(label)
            .and_then(|w| cell(results, w, scale, variant))
    };
    // U66-Narrow: no rejections up to rho = 10 % (x8): none in any replicate.
    let narrow: Vec<(u32, &GridResult)> = scales
        .iter()
        .filter(|&&s| s <= 8)
        .filter_map(|&s| get("U66-Narrow", s, 0).map(|r| (s, r)))
        .collect();
    if !narrow.is_empty() {
        let worst = narrow
            .iter()
            .map(|(_, r)| r.spread(&REJECT_RATE).max)
            .fold(0.0, f64::max);
        let claim = claims.check(
            source,
            "U66-Narrow: no rejections for rho up to 10 % (tolerance: none in any replicate, \
             the paper's 'zero')",
            narrow
                .iter()
                .map(|(s, r)| format!("x{s}: {}", r.show(&REJECT_RATE, 3)))
                .collect::<Vec<_>>()
                .join("; "),
            "0 up to rho = 10 %",
            worst == 0.0,
        );
        if worst > 0.0 {
            claim.because(format!("worst replicate rejects {:.2} %", 100.0 * worst));
        }
    }
    // Main, U77, U88: rejections above zero at every rho, in every replicate.
    for label in ["U66-Main", "U77-Main", "U88-Main"] {
        let all: Vec<(u32, &GridResult)> = scales
            .iter()
            .filter_map(|&s| get(label, s, 0).map(|r| (s, r)))
            .collect();
        if all.is_empty() {
            continue;
        }
        let zero: Vec<String> = all
            .iter()
            .filter(|(_, r)| r.spread(&REJECT_RATE).min <= 0.0)
            .map(|(s, _)| format!("x{s}"))
            .collect();
        let claim = claims.check(
            source,
            format!(
                "{label}: reject rate firmly above zero at every rho (tolerance: above 0 in \
                 every replicate)"
            ),
            all.iter()
                .map(|(s, r)| format!("x{s}: {}", r.show(&REJECT_RATE, 3)))
                .collect::<Vec<_>>()
                .join("; "),
            "> 0 for every rho",
            zero.is_empty(),
        );
        if !zero.is_empty() {
            claim.because(format!(
                "a replicate rejects nothing at {}",
                zero.join(", ")
            ));
        }
    }
    // Rejections grow with rho and with the batch load (paired; tolerance with one replicate
    // 0.1 point, ours).
    if let (Some(&lo), Some(&hi)) = (scales.first(), scales.last()) {
        if let (Some(a), Some(b)) = (get("U66-Main", lo, 0), get("U66-Main", hi, 0)) {
            let d = b.paired(a, &REJECT_RATE, 0.001);
            claims.check(
                source,
                format!("U66-Main: the reject rate grows with rho (x{hi} against x{lo}, paired)"),
                format!(
                    "x{lo}: {} -> x{hi}: {}; {}",
                    a.show(&REJECT_RATE, 3),
                    b.show(&REJECT_RATE, 3),
                    show_paired(d.as_ref(), 100.0, "points")
                ),
                "rises with rho",
                d.is_some_and(|d| d.higher()),
            );
        }
        if let (Some(a), Some(b)) = (get("U66-Main", hi, 0), get("U88-Main", hi, 0)) {
            let d = b.paired(a, &REJECT_RATE, 0.001);
            claims.check(
                source,
                format!("denser batch (U88) rejects more than U66-Main (x{hi}, paired)"),
                format!(
                    "U66 {} vs U88 {}; {}",
                    a.show(&REJECT_RATE, 3),
                    b.show(&REJECT_RATE, 3),
                    show_paired(d.as_ref(), 100.0, "points")
                ),
                "rises with batch utilisation",
                d.is_some_and(|d| d.higher()),
            );
        }
        // Batch wait ordered by job width (tolerance with one replicate: 0.05 h, ours).
        if let (Some(n), Some(m)) = (get("U66-Narrow", hi, 0), get("U66-Main", hi, 0)) {
            let d = n.paired(m, &BATCH_WAIT, 0.05);
            let lower = d.as_ref().is_some_and(|d| d.lower());
            let claim = claims.check(
                source,
                format!("mean batch wait lower for narrower jobs (Narrow < Main, x{hi}, paired)"),
                format!(
                    "{} h vs {} h; {}",
                    n.show(&BATCH_WAIT, 2),
                    m.show(&BATCH_WAIT, 2),
                    show_paired(d.as_ref(), 1.0, "h")
                ),
                "Narrow < Main",
                lower,
            );
            if let (false, Some(d)) = (lower, &d) {
                claim.because(format!(
                    "Narrow - Main {:+.2} ± {:.2} h: not significantly lower",
                    d.difference.mean,
                    d.threshold().unwrap_or(f64::NAN)
                ));
            }
        }
    }
    claims
}
