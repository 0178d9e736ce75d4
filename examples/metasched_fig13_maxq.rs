//! Murali & Vadhiyar, Figure 13 (§5.7.3): MCMF against `MaxQ`, the jobs one site takes per
//! scheduling cycle (a large value stands for the paper's "no limit"), on the paper's 10,000
//! XSEDE jobs (a loaded set: its sites queue under BS), with the paper's observations on XSEDE
//! checked over paired replicates.
//!
//! Workload per seed → `MaxQ` sweep (in parallel) → table (relative to BS) → CSV + plot →
//! claims.

use clap::Parser;
use cosched_examples::Claims;
use cosched_examples::metasched::{
    Paired, RunConfig, SweepCli, SweepExample, minutes, paired_metric, queueing_reason,
};
use cosched_metasched::metrics::Metrics;

/// The tolerance of a paired difference when the runs do not vary (one seed): the table's
/// printed precision, half its last digit (response 0.1 min, bounded slowdown 0.01; ours:
/// Fig. 13 is a plot with no printed values).
const PRECISION_MIN: f64 = 0.05;
const PRECISION_SLOWDOWN: f64 = 0.005;

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
        full: &[1.0, 2.0, 5.0, 10.0, 1000.0],
        quick: &[1.0, 2.0, 10.0],
        full_seeds: 5,
        // The x values are small whole numbers.
        configure: |max_q, c| RunConfig {
            max_q: max_q as u32,
            ..c
        },
    }
    .run(&SweepCli::parse())?;
    let mut out = run.out;
    let result = &run.result;
    let mut claims = Claims::new("metasched");
    let response = |a: &[Metrics], b: &[Metrics]| {
        paired_metric(a, b, |m| minutes(m.mean_response_s), PRECISION_MIN)
    };
    let slowdown = |a: &[Metrics], b: &[Metrics]| {
        paired_metric(a, b, |m| m.mean_bounded_slowdown, PRECISION_SLOWDOWN)
    };
    let largest = result.points.last().map(|(x, _)| *x);
    let (Some(one), Some(two), Some(last), Some(q)) = (
        result.runs_at(1.0),
        result.runs_at(2.0),
        largest.and_then(|x| result.runs_at(x)),
        largest,
    ) else {
        out.write_claims(&claims)?;
        return Ok(());
    };
    let at = |x: f64| result.points.iter().find(|(p, _)| *p == x).map(|(_, a)| *a);
    let holding = |x: f64| at(x).map_or(f64::NAN, |a| minutes(a.holding_s));
    let loaded = queueing_reason(
        result.baseline.bounded_slowdown,
        "more jobs per cycle find no queue to lengthen",
    );
    // MaxQ acts only on the jobs it holds back: the holding time says how often it binds.
    let binds = format!(
        "{loaded}; mean time in the holding layer {:.2} min at MaxQ 1, {:.2} at 2, {:.2} at \
         {q} (one 60 s cycle sees {:.2} arrivals on average)",
        holding(1.0),
        holding(2.0),
        holding(q),
        arrivals_per_cycle(&run.scenarios)
    );
    // MaxQ 2 against 1: the change from 1 to 2, in percent of MaxQ 1's response. Its reason
    // splits the change into the holding layer's part and the sites' (queue and run), and
    // says how MaxQ moves jobs between sites: the busiest site's share of the placements.
    if let Some(p) = response(two, one) {
        let falls = p.lower();
        let claim = claims.check(
            "§5.7.3, Fig. 13",
            "response time falls from MaxQ 1 to 2 (jobs no longer held; significantly, \
             paired)",
            format!("MaxQ 2 against 1: {}", p.describe_percent()),
            "falls",
            falls,
        );
        if !falls {
            let mean = |runs: &[Metrics], f: &dyn Fn(&Metrics) -> f64| {
                runs.iter().map(f).sum::<f64>() / runs.len().max(1) as f64
            };
            let change = |f: &dyn Fn(&Metrics) -> f64| mean(two, f) - mean(one, f);
            let held = change(&|m| minutes(m.mean_holding_s));
            let total = change(&|m| minutes(m.mean_response_s));
            let (busiest_one, busiest_two) = (mean(one, &busiest_share), mean(two, &busiest_share));
            let how = if busiest_two > busiest_one {
                "the placements are a little more concentrated at MaxQ 2"
            } else {
                "the placements are no more concentrated at MaxQ 2"
            };
            claim.because(format!(
                "{total:+.1} min of response from MaxQ 1 to 2: {held:+.2} min in the holding \
                 layer (one 60 s cycle sees {:.2} arrivals on average) and {:+.1} min at the \
                 sites; the busiest site runs {:.1} % of the jobs at MaxQ 1 and {:.1} % at 2: \
                 {how} (BS's bounded slowdown {:.2})",
                arrivals_per_cycle(&run.scenarios),
                total - held,
                100.0 * busiest_one,
                100.0 * busiest_two,
                result.baseline.bounded_slowdown
            ));
        }
    }
    let grows = |p: Option<Paired>, what: &str, paper: &str, claims: &mut Claims| {
        if let Some(p) = p {
            let check = claims.check(
                "§5.7.3, Fig. 13",
                format!(
                    "beyond MaxQ 2 the {what} grows (MaxQ {q} against 2, significantly, paired)"
                ),
                format!("MaxQ {q} against 2: {}", p.describe_percent()),
                paper,
                p.higher(),
            );
            if !p.higher() {
                check.because(binds.clone());
            }
        }
    };
    grows(
        slowdown(last, two),
        "bounded slowdown",
        "increases (more pronounced)",
        &mut claims,
    );
    grows(
        response(last, two),
        "average response time",
        "increases",
        &mut claims,
    );
    out.write_claims(&claims)?;
    Ok(())
}

/// The share of a run's completed jobs that ran at its busiest site.
fn busiest_share(m: &Metrics) -> f64 {
    let most = m.sites.iter().map(|s| s.ran).max().unwrap_or(0);
    most as f64 / m.completed.max(1) as f64
}

/// Mean arrivals per 60-second cycle over the first seed's trace span.
fn arrivals_per_cycle(scenarios: &cosched_examples::metasched::SeedScenarios) -> f64 {
    scenarios.first().map_or(f64::NAN, |s| {
        let first = s.jobs.iter().map(|j| j.submit.secs()).min().unwrap_or(0);
        let last = s.jobs.iter().map(|j| j.submit.secs()).max().unwrap_or(0);
        s.jobs.len() as f64 * s.cycle.secs() as f64 / ((last - first).max(1) as f64)
    })
}
