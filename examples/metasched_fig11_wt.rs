//! Murali & Vadhiyar, Figures 4, 8 and 11 (§5.2, §5.5, §5.7.1): the trade-off between response
//! time and electricity cost as the weight `w_t` of response time goes from 0 (cost only) to 1
//! (response time only), MCMF with the scenario's predictors (by default the paper's: learned
//! waits, forecast prices) against BS on the paper's 10,000 XSEDE jobs ("using 10000 jobs",
//! §5.7.1), and the sites' utilisation at both ends (Fig. 8); the paper's observations checked
//! over paired replicates (one workload draw per seed).
//!
//! Workload per seed → `w_t` sweep (in parallel) → table (relative to BS) → CSV + two plots:
//! the relative curves against `w_t` and the cost/response trade-off curve (Fig. 4) → claims.

use clap::Parser;
use cosched_core::stats;
use cosched_examples::metasched::{
    Paired, RunConfig, SeedScenarios, SweepCli, SweepExample, SweepResult, minutes, paired_metric,
};
use cosched_metasched::metrics::Metrics;

/// Half the printed digit of the table's response (0.1 min) and cost ($0.01): the tolerance
/// of a paired difference when the runs do not vary (one seed).
const PRECISION_MIN: f64 = 0.05;
const PRECISION_USD: f64 = 0.005;
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
        // Fig. 11's range with §5.7.1's 20–40 % band in full (ours: run time).
        full: &[0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0],
        quick: &[0.0, 0.25, 1.0],
        full_seeds: 3,
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

    let mut claims = Claims::new("metasched");
    let points = &result.points;
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Ok(());
    };
    let paired = |a: &[Metrics], b: &[Metrics], pick: fn(&Metrics) -> f64, tolerance: f64| {
        paired_metric(a, b, pick, tolerance)
    };
    let response = |m: &Metrics| minutes(m.mean_response_s);
    let cost = |m: &Metrics| m.total_cost_usd;
    let bs = &result.baseline_runs;
    let at = |x: f64| result.runs_at(x);
    // The paper's monotone curves: the ends differ significantly in the stated direction and
    // no step between neighbouring w_t goes significantly the other way (each paired over the
    // seeds; with one seed the table's printed precision decides).
    let trend = |pick: fn(&Metrics) -> f64, tolerance: f64, rises: bool| {
        let against: Vec<String> = result
            .runs
            .windows(2)
            .zip(points.windows(2))
            .filter_map(|(r, x)| {
                let p = paired(&r[1], &r[0], pick, tolerance)?;
                let wrong = if rises { p.lower() } else { p.higher() };
                wrong.then(|| format!("{} -> {}: {}", x[0].0, x[1].0, p.describe_percent()))
            })
            .collect();
        let ends = at(last.0)
            .zip(at(first.0))
            .and_then(|(l, f)| paired(l, f, pick, tolerance));
        let ends_hold = ends
            .as_ref()
            .is_some_and(|p| if rises { p.higher() } else { p.lower() });
        let ends = ends.map_or("n/a".to_owned(), |p| p.describe_percent());
        (ends_hold && against.is_empty(), ends, against)
    };
    for (what, pick, tolerance, rises, paper, unit) in [
        (
            "lowers response time",
            response as fn(&Metrics) -> f64,
            PRECISION_MIN,
            false,
            "monotone decrease",
            "min",
        ),
        (
            "raises electricity cost",
            cost,
            PRECISION_USD,
            true,
            "monotone increase",
            "$",
        ),
    ] {
        let (pass, ends, against) = trend(pick, tolerance, rises);
        let claim = claims.check(
            "§5.7.1, Fig. 11",
            format!(
                "raising w_t {what}: w_t {} against {} significantly so, and no step between \
                 neighbours significantly the other way (paired)",
                last.0, first.0
            ),
            format!(
                "{} ({unit}); w_t {} against {}: {ends}",
                points
                    .iter()
                    .zip(&result.runs)
                    .map(|((x, _), r)| format!(
                        "{x}:{:.3}",
                        r.iter().map(pick).sum::<f64>() / r.len().max(1) as f64
                    ))
                    .collect::<Vec<_>>()
                    .join(" "),
                last.0,
                first.0
            ),
            paper,
            pass,
        );
        if !against.is_empty() {
            claim.because(format!("steps the other way: {}", against.join("; ")));
        }
    }
    if let Some(p) = at(last.0).and_then(|r| paired(r, bs, response, PRECISION_MIN)) {
        claims.check(
            "§5.7.1, Fig. 11",
            "w_t = 1 lowers response time below BS (significantly, paired)",
            p.describe_percent(),
            "below BS (the text's figure is lost)",
            p.lower(),
        );
    }
    if let Some(p) = at(first.0).and_then(|r| paired(r, bs, cost, PRECISION_USD)) {
        claims.check(
            "§5.7.1, Fig. 11",
            "w_t = 0 lowers cost below BS (significantly, paired; Table 4's row tests its \
             magnitude)",
            p.describe_percent(),
            "below BS (the text's figure is lost)",
            p.lower(),
        );
    }
    let band: Vec<(f64, Option<Paired>, Option<Paired>)> = points
        .iter()
        .filter(|(x, _)| (0.2..=0.4).contains(x))
        .map(|(x, _)| {
            let runs = at(*x);
            (
                *x,
                runs.and_then(|r| paired(r, bs, response, PRECISION_MIN)),
                runs.and_then(|r| paired(r, bs, cost, PRECISION_USD)),
            )
        })
        .collect();
    let both = band
        .iter()
        .all(|(_, rt, c)| rt.is_some_and(|p| p.lower()) && c.is_some_and(|p| p.lower()));
    let describe = |p: &Option<Paired>| p.map_or("n/a".into(), |p| p.describe_percent());
    claims.check(
        "§5.7.1, Fig. 11",
        "for w_t in 20–40 % both response and cost beat BS (significantly, paired)",
        band.iter()
            .map(|(x, rt, c)| format!("{x}: response {}, cost {}", describe(rt), describe(c)))
            .collect::<Vec<_>>()
            .join("; "),
        "both below BS",
        !band.is_empty() && both,
    );
    fig8(&mut claims, result, &run.scenarios)?;
    out.write_claims(&claims)?;
    Ok(())
}

/// Fig. 8 (§5.5): per-site utilisation of MCMF at w_t 0 and 1 (the sweep's end points, every
/// seed): as w_t rises jobs move from the slow systems (Lonestar, Blacklight) to the fast ones
/// (Gordon, Darter); Gordon (lower SUC) is used more than Darter; Blacklight stays low. Each a
/// paired comparison over the seeds; the tolerance when runs do not vary is half the printed
/// digit of a utilisation (0.0005; ours: Fig. 8 is a plot).
fn fig8(
    claims: &mut Claims,
    result: &SweepResult,
    scenarios: &SeedScenarios,
) -> Result<(), Box<dyn std::error::Error>> {
    const TOLERANCE: f64 = 0.0005;
    let sites = &scenarios.first()?.sites;
    let index = |name: &str| sites.iter().position(|s| s.name() == name);
    let (Some(gordon), Some(darter), Some(lonestar), Some(blacklight), Some(low), Some(high)) = (
        index("Gordon"),
        index("Darter"),
        index("Lonestar"),
        index("Blacklight"),
        result.runs_at(0.0),
        result.runs_at(1.0),
    ) else {
        return Ok(());
    };
    let util = |runs: &[Metrics], ks: &[usize]| -> Vec<f64> {
        runs.iter()
            .map(|m| {
                ks.iter()
                    .filter_map(|&k| m.sites.get(k).map(|s| s.utilization))
                    .sum()
            })
            .collect()
    };
    let pair = |a: Vec<f64>, b: Vec<f64>| Paired::tolerant(&a, &b, TOLERANCE);
    let mean = |xs: &[f64]| stats::mean(xs).unwrap_or(0.0);
    let (fast, slow) = ([gordon, darter], [lonestar, blacklight]);
    if let (Some(f), Some(sl)) = (
        pair(util(high, &fast), util(low, &fast)),
        pair(util(high, &slow), util(low, &slow)),
    ) {
        let change = |k: usize| mean(&util(high, &[k])) - mean(&util(low, &[k]));
        claims
            .check(
                "§5.5, Fig. 8",
                "raising w_t from 0 to 1 moves utilisation from Lonestar and Blacklight to \
                 Gordon and Darter (significantly, paired)",
                format!(
                    "Gordon + Darter {:.3} -> {:.3} ({}), Lonestar + Blacklight {:.3} -> {:.3} \
                     ({})",
                    mean(&util(low, &fast)),
                    mean(&util(high, &fast)),
                    f.describe_percent(),
                    mean(&util(low, &slow)),
                    mean(&util(high, &slow)),
                    sl.describe_percent()
                ),
                "fast systems rise, slow ones fall (plot)",
                f.higher() && sl.lower(),
            )
            .because(format!(
                "utilisation change from w_t 0 to 1: Gordon {:+.3}, Darter {:+.3}, Lonestar \
                 {:+.3}, Blacklight {:+.3}",
                change(gordon),
                change(darter),
                change(lonestar),
                change(blacklight)
            ));
    }
    let gordon_darter = |runs: &[Metrics]| pair(util(runs, &[gordon]), util(runs, &[darter]));
    if let (Some(l), Some(h)) = (gordon_darter(low), gordon_darter(high)) {
        claims.check(
            "§5.5, Fig. 8",
            "Gordon (lower SUC) is used more than Darter (significantly, paired)",
            format!(
                "w_t 0: {:.3} vs {:.3} ({}); w_t 1: {:.3} vs {:.3} ({})",
                mean(&util(low, &[gordon])),
                mean(&util(low, &[darter])),
                l.describe_percent(),
                mean(&util(high, &[gordon])),
                mean(&util(high, &[darter])),
                h.describe_percent()
            ),
            "Gordon above Darter (plot)",
            l.higher() && h.higher(),
        );
    }
    // "Low": below the median site's utilisation in every run.
    let mean_util = |runs: &[Metrics]| -> Vec<f64> {
        (0..sites.len()).map(|k| mean(&util(runs, &[k]))).collect()
    };
    let below_median = |runs: &[Metrics]| {
        runs.iter().all(|m| {
            let u: Vec<f64> = m.sites.iter().map(|s| s.utilization).collect();
            u.get(blacklight)
                .is_some_and(|b| *b < stats::quantile(&u, 0.5).unwrap_or(0.0))
        })
    };
    let (lo, hi) = (mean_util(low), mean_util(high));
    let median = |u: &[f64]| stats::quantile(u, 0.5).unwrap_or(0.0);
    claims
        .check(
            "§5.5, Fig. 8",
            "Blacklight's utilisation is low in all configurations (below the sites' median in \
             every run at w_t 0 and 1)",
            format!(
                "w_t 0: {:.3} (median {:.3}); w_t 1: {:.3} (median {:.3})",
                lo[blacklight],
                median(&lo),
                hi[blacklight],
                median(&hi)
            ),
            "low (plot)",
            below_median(low) && below_median(high),
        )
        .because(format!(
            "Blacklight ranks {} and {} of {} sites by mean utilisation at w_t 0 and 1",
            rank(&lo, blacklight),
            rank(&hi, blacklight),
            lo.len()
        ));
    Ok(())
}

/// Site `k`'s rank by utilisation, 1 = most used.
fn rank(u: &[f64], k: usize) -> usize {
    1 + u.iter().filter(|&&x| x > u[k]).count()
}
