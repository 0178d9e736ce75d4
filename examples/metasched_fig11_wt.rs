//! Murali & Vadhiyar, Figure 11: the trade-off between response time and electricity cost as
//! the weight `w_t` of response time goes from 0 (cost only) to 1 (response time only), MCMF
//! with the scenario's predictors (by default the paper's: learned waits, forecast prices).
//!
//! Workload → `w_t` sweep (in parallel) → table (relative to BS) → CSV + two plots: the
//! relative curves against `w_t` and the cost/response trade-off curve.

use clap::Parser;
use cosched_examples::LinePlot;
use cosched_examples::metasched::{RunConfig, SweepCli, SweepExample, minutes};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (result, out) = SweepExample {
        name: "metasched_fig11_wt",
        title: "MCMF against w_t (weight of response time)",
        paper: "Figure 11 (a curve)",
        x_label: "w_t",
        x_decimals: 1,
        full: &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        quick: &[0.0, 0.5, 1.0],
        configure: |w_t, c| RunConfig { w_t, ..c },
    }
    .run(&SweepCli::parse())?;
    let point = |response_s: f64, cost_usd: f64| (cost_usd, minutes(response_s));
    let tradeoff = LinePlot::new(
        "tradeoff",
        "Response time against electricity cost, w_t from 0 to 1",
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
    Ok(())
}
