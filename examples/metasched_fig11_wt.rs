//! Murali & Vadhiyar, Figures 4 and 11 (§5.2, §5.7.1): the trade-off between response time and
//! electricity cost as the weight `w_t` of response time goes from 0 (cost only) to 1
//! (response time only), MCMF with the scenario's predictors (by default the paper's: learned
//! waits, forecast prices) against BS; the paper's observations checked.
//!
//! Workload → `w_t` sweep (in parallel) → table (relative to BS) → CSV + two plots: the
//! relative curves against `w_t` and the cost/response trade-off curve (Fig. 4) → claims.

use clap::Parser;
use cosched_core::stats;
use cosched_examples::metasched::{RunConfig, Scenario, Strategy, SweepCli, SweepExample, minutes};
use cosched_examples::{Claims, LinePlot};

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = SweepCli::parse();
    let run = SweepExample {
        name: "metasched_fig11_wt",
        title: "MCMF against w_t (weight of response time)",
        paper: "Figure 11 and Figure 4 (curves; §5.7.1 states their trends)",
        x_label: "w_t",
        x_decimals: 2,
        full: &[0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        quick: &[0.0, 0.25, 1.0],
        configure: |w_t, c| RunConfig { w_t, ..c },
    }
    .run(&cli)?;
    let (result, mut out) = (&run.result, run.out);
    let point = |response_s: f64, cost_usd: f64| (cost_usd, minutes(response_s));
    let tradeoff = LinePlot::new(
        "tradeoff",
        "Response time against electricity cost, w_t from 0 to 1 (Fig. 4)",
    )
    .x_label("total cost ($)")
    .y_label("mean response (min)")
    .series(
        "MCMF",
        result
            .points
            .iter()
            .map(|(_, a)| point(a.response_s, a.cost_usd)),
    )
    .series(
        "BS",
        [point(result.baseline.response_s, result.baseline.cost_usd)],
    );
    out.write_plot(&tradeoff)?;

    let base = result.baseline;
    let mut claims = Claims::new("metasched");
    let points = &result.points;
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Ok(());
    };
    let series = |pick: fn(&cosched_examples::metasched::Averaged) -> f64| {
        points
            .iter()
            .map(|(x, a)| format!("{x}:{:.3}", pick(a)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Monotone trends, allowing 2 % noise between neighbours.
    let rt_falls = points
        .windows(2)
        .all(|w| w[1].1.response_s <= 1.02 * w[0].1.response_s);
    let cost_rises = points
        .windows(2)
        .all(|w| w[1].1.cost_usd >= 0.98 * w[0].1.cost_usd);
    claims.check(
        "§5.7.1, Fig. 11",
        "raising w_t lowers response time (monotone within 2 %)",
        series(|a| a.response_s / 60.0),
        "monotone decrease",
        rt_falls,
    );
    claims.check(
        "§5.7.1, Fig. 11",
        "raising w_t raises electricity cost (monotone within 2 %)",
        series(|a| a.cost_usd),
        "monotone increase",
        cost_rises,
    );
    claims.check(
        "§5.7.1, Fig. 11",
        "w_t = 1 lowers response time below BS",
        format!("{:.3} of BS", last.1.response_s / base.response_s),
        "below 1",
        last.1.response_s < base.response_s,
    );
    claims.check(
        "§5.7.1, Fig. 11",
        "w_t = 0 lowers cost below BS",
        format!("{:.3} of BS", first.1.cost_usd / base.cost_usd),
        "below 1 (−18.9 %, Table 4)",
        first.1.cost_usd < base.cost_usd,
    );
    let band: Vec<_> = points
        .iter()
        .filter(|(x, _)| (0.2..=0.4).contains(x))
        .collect();
    let both = band
        .iter()
        .all(|(_, a)| a.response_s < base.response_s && a.cost_usd < base.cost_usd);
    claims.check(
        "§5.7.1, Fig. 11",
        "for w_t in 20–40 % both response and cost beat BS",
        band.iter()
            .map(|(x, a)| {
                format!(
                    "{x}: {:.2}/{:.2}",
                    a.response_s / base.response_s,
                    a.cost_usd / base.cost_usd
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        "both below 1",
        !band.is_empty() && both,
    );
    fig8(&mut claims, &run.scenario, cli.common.seed)?;
    out.write_claims(&claims)?;
    Ok(())
}

/// Fig. 8 (§5.5): per-site utilisation of MCMF at w_t 0 and 1 (one run each, the sweep's first
/// seed): as w_t rises jobs move from the slow systems (Lonestar, Blacklight) to the fast ones
/// (Gordon, Darter); Gordon (lower SUC) is used more than Darter; Blacklight stays low.
fn fig8(
    claims: &mut Claims,
    scenario: &Scenario,
    seed: u64,
) -> Result<(), Box<dyn std::error::Error>> {
    let index = |name: &str| scenario.sites.iter().position(|s| s.name() == name);
    let (Some(gordon), Some(darter), Some(lonestar), Some(blacklight)) = (
        index("Gordon"),
        index("Darter"),
        index("Lonestar"),
        index("Blacklight"),
    ) else {
        return Ok(());
    };
    let utilisation = |w_t: f64| -> Result<Vec<f64>, Box<dyn std::error::Error>> {
        let config = RunConfig {
            w_t,
            ..scenario.config(Strategy::Mcmf, seed)
        };
        Ok(scenario
            .run(&config)?
            .metrics
            .sites
            .iter()
            .map(|s| s.utilization)
            .collect())
    };
    let (low, high) = (utilisation(0.0)?, utilisation(1.0)?);
    let pair = |u: &[f64], a: usize, b: usize| u[a] + u[b];
    let fast = (pair(&low, gordon, darter), pair(&high, gordon, darter));
    let slow = (
        pair(&low, lonestar, blacklight),
        pair(&high, lonestar, blacklight),
    );
    // With the paper's trace the two runs draw nothing at random (one run each); a change
    // counts beyond 0.001, the utilisation's printed precision (ours: Fig. 8 is a plot).
    const TOLERANCE: f64 = 0.001;
    let change = |k: usize| high.get(k).zip(low.get(k)).map_or(0.0, |(h, l)| h - l);
    claims
        .check(
            "§5.5, Fig. 8",
            "raising w_t moves utilisation from Lonestar and Blacklight to Gordon and Darter \
             (beyond ±0.001)",
            format!(
                "w_t 0 -> 1: Gordon + Darter {:.3} -> {:.3}, Lonestar + Blacklight {:.3} -> {:.3}",
                fast.0, fast.1, slow.0, slow.1
            ),
            "fast systems rise, slow ones fall (plot)",
            fast.1 > fast.0 + TOLERANCE && slow.1 < slow.0 - TOLERANCE,
        )
        .because(format!(
            "utilisation change from w_t 0 to 1: Gordon {:+.3}, Darter {:+.3}, Lonestar {:+.3}, \
             Blacklight {:+.3}",
            change(gordon),
            change(darter),
            change(lonestar),
            change(blacklight)
        ));
    claims.check(
        "§5.5, Fig. 8",
        "Gordon (lower SUC) is used more than Darter",
        format!(
            "w_t 0: {:.3} vs {:.3}; w_t 1: {:.3} vs {:.3}",
            low[gordon], low[darter], high[gordon], high[darter]
        ),
        "Gordon above Darter (plot)",
        low[gordon] > low[darter] && high[gordon] > high[darter],
    );
    let median = |u: &[f64]| stats::quantile(u, 0.5).unwrap_or(0.0);
    claims
        .check(
            "§5.5, Fig. 8",
            "Blacklight's utilisation is low in all configurations (below the sites' median)",
            format!(
                "w_t 0: {:.3} (median {:.3}); w_t 1: {:.3} (median {:.3})",
                low[blacklight],
                median(&low),
                high[blacklight],
                median(&high)
            ),
            "low (plot)",
            low[blacklight] < median(&low) && high[blacklight] < median(&high),
        )
        .because(format!(
            "Blacklight ranks {} and {} of {} sites by utilisation at w_t 0 and 1",
            rank(&low, blacklight),
            rank(&high, blacklight),
            low.len()
        ));
    Ok(())
}

/// Site `k`'s rank by utilisation, 1 = most used.
fn rank(u: &[f64], k: usize) -> usize {
    1 + u.iter().filter(|&&x| x > u[k]).count()
}
