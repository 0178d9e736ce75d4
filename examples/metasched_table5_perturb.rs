//! Murali & Vadhiyar, Table 5 (§5.3): sensitivity of MCMF to wait-time prediction errors on
//! the paper's 10,000 XSEDE jobs. Each job's predicted queue waits (the paper's learned
//! predictor) get one uniform random value in `[−T, T]` added, the same at every site (§5.3:
//! "for each job"), T ∈ {0, 1, 3, 6, 12, 24} hours, the same jobs every time; the table
//! reports the average PPE of the wait predictions, the average response time and the average
//! electricity cost per job, ours (mean ± sd over seeds) beside the paper's, and a second
//! table what the PPE is made of. Each seed is one workload draw and one draw of the errors;
//! every T is paired with T = 0 on the same seed.
//!
//! Workload per seed → T × seeds (in parallel) → table beside the paper's → CSV + plot +
//! claims and checks.

use clap::Parser;
use cosched_core::Duration;
use cosched_examples::metasched::{
    Paired, RunConfig, SweepCli, SweepExample, SweepResult, minutes, paired_metric, spread_text,
};
use cosched_examples::rhic::checks_table;
use cosched_examples::{Cell, Claims, LinePlot, Table};
use cosched_metasched::metrics::{Metrics, WaitErrors};

/// Table 5: (T hours, average PPE %, average response min, average electricity price $/job).
const PAPER: [(f64, f64, f64, f64); 6] = [
    (0.0, 3.0, 458.5, 22.85),
    (1.0, 25.0, 457.9, 22.90),
    (3.0, 62.0, 457.4, 23.05),
    (6.0, 116.0, 462.3, 23.04),
    (12.0, 221.0, 493.6, 23.02),
    (24.0, 386.0, 518.5, 22.98),
];

/// The largest response-time change the paper calls stable (T = 6: 462.3 against 458.5 min),
/// in percent: the equivalence margin of "relatively stable" (its printed 0.1 min is below
/// 0.02 % of it).
const STABLE_RESPONSE_PERCENT: f64 = 100.0 * (462.3 / 458.5 - 1.0);
/// The largest $/job change of the paper's rows (T = 3: 23.05 against 22.85), in percent: the
/// margin of "no impact at all".
const STABLE_COST_PERCENT: f64 = 100.0 * (23.05 / 22.85 - 1.0);
/// Half the last digit of a percentage computed from the paper's rows, in percentage points.
const PRECISION_PP: f64 = 0.05;
/// Seeds outside quick mode: five, as the paper averages five runs elsewhere (§5.6, §5.7.2);
/// the t factor of one more run's 95 % prediction interval falls from 4.30 (3 seeds) to 2.78.
const FULL_SEEDS: u64 = 5;

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = SweepCli::parse();
    let hours: Vec<f64> = PAPER.iter().map(|p| p.0).collect();
    let quick = [0.0, 6.0, 24.0];
    let run = SweepExample {
        name: "metasched_table5_perturb",
        title: "MCMF against the wait-prediction perturbation threshold T (hours)",
        paper: "Table 5 (§5.3)",
        x_label: "T (h)",
        x_decimals: 0,
        full: &hours,
        quick: &quick,
        full_seeds: FULL_SEEDS,
        configure: |t, c| RunConfig {
            wait_perturbation: (t > 0.0).then(|| Duration((t * 3600.0).round() as i64)),
            ..c
        },
    }
    .run(&cli)?;
    let mut out = run.out;
    let mut table = Table::new(
        "metasched_table5",
        "Table 5: MCMF under additive wait-prediction errors, ours beside the paper's",
        [
            "T (h)",
            "PPE (%)",
            "paper PPE (%)",
            "response (min)",
            "paper response (min)",
            "response mean ± sd",
            "$/job",
            "paper $/job",
            "$/job mean ± sd",
        ],
    )
    .with_notes(format!(
        "Paper: Table 5, 10,000 XSEDE jobs. {} Seeds per row: {}. PPE = 100 |predicted − \
         actual| / max(actual, 1 h) of each metascheduled job's queue wait at the site where it \
         ran (the 1-hour floor is ours: the paper does not define PPE for zero waits). The \
         paper's $/job comes from the published code's cost function (see Table 4's notes): \
         compare trends, not levels.",
        run.scenarios.first()?.summary(),
        run.scenarios.seeds()
    ));
    let paper_row = |t: f64| PAPER.iter().find(|p| (p.0 - t).abs() < 1e-9);
    for (t, a) in &run.result.points {
        let p = paper_row(*t);
        table.row([
            Cell::fixed(*t, 0),
            a.ppe_percent.map_or(Cell::Empty, |v| Cell::fixed(v, 0)),
            Cell::paper(p.map(|p| p.1), 0),
            Cell::fixed(minutes(a.response_s), 1),
            Cell::paper(p.map(|p| p.2), 1),
            Cell::Text(spread_text(a.response_spread, 1.0 / 60.0, 1)),
            Cell::fixed(a.cost_per_job_usd, 3),
            Cell::paper(p.map(|p| p.3), 2),
            Cell::Text(spread_text(a.cost_per_job_spread, 1.0, 3)),
        ]);
    }
    out.write_table(&table)?;
    out.write_table(&ppe_table(&run.result))?;
    let base = run.result.points.first().map(|(_, a)| *a);
    let ours_rel = |pick: fn(&cosched_examples::metasched::Averaged) -> f64| {
        let b = base.map_or(f64::NAN, |a| pick(&a));
        run.result
            .points
            .iter()
            .map(move |(t, a)| (*t, pick(a) / b))
            .collect::<Vec<_>>()
    };
    let plot = LinePlot::new(
        "table5",
        "Response time and $/job relative to T = 0, ours and the paper's",
    )
    .x_label("T (h)")
    .y_label("relative to T = 0")
    .series("response (ours)", ours_rel(|a| a.response_s))
    .series(
        "response (paper)",
        PAPER.iter().map(|p| (p.0, p.2 / PAPER[0].2)),
    )
    .series("$/job (ours)", ours_rel(|a| a.cost_per_job_usd))
    .series(
        "$/job (paper)",
        PAPER.iter().map(|p| (p.0, p.3 / PAPER[0].3)),
    );
    out.write_plot(&plot)?;

    let mut claims = Claims::new("metasched");
    let mut checks = Claims::new("metasched");
    let result = &run.result;
    let points = &result.points;
    let at = |t: f64| {
        points
            .iter()
            .find(|(x, _)| (*x - t).abs() < 1e-9)
            .map(|(_, a)| *a)
    };
    let (Some(zero), Some(zero_runs), Some((last_t, last))) = (
        at(0.0),
        result.runs_at(0.0),
        points.last().map(|(t, a)| (*t, *a)),
    ) else {
        out.write_claims(&claims)?;
        return Ok(());
    };
    let ppe: Vec<f64> = points.iter().filter_map(|(_, a)| a.ppe_percent).collect();
    // Adding larger errors to the same predictions raises their error: true by construction.
    checks.check(
        "identity (§5.3, Table 5)",
        "average PPE grows with the threshold T (larger errors added to the same predictions)",
        ppe.iter()
            .map(|v| format!("{v:.0}"))
            .collect::<Vec<_>>()
            .join(", "),
        "3, 25, 62, 116, 221, 386",
        ppe.len() == points.len() && ppe.windows(2).all(|w| w[1] >= w[0]),
    );
    // Every T is paired with T = 0 on the same seed: a two-sided paired t-test at 5 % over the
    // seeds, or with one seed the table's printed precision (0.05 min, $0.0005 per job).
    let response =
        |runs: &[Metrics]| paired_metric(runs, zero_runs, |m| minutes(m.mean_response_s), 0.05);
    let cost = |runs: &[Metrics]| paired_metric(runs, zero_runs, |m| m.cost_per_job_usd, 0.0005);
    // An equality claim: no significant difference, or the interval within the margin.
    let stable = |p: &Paired, percent: f64| !p.lower() && !p.higher() || p.within_percent(percent);
    let perturbed = |keep: &dyn Fn(f64) -> bool| -> Vec<(f64, &[Metrics])> {
        points
            .iter()
            .filter(|(t, _)| *t > 0.0 && keep(*t))
            .filter_map(|(t, _)| Some((*t, result.runs_at(*t)?)))
            .collect()
    };
    let list = |ps: &[(f64, Paired)]| {
        ps.iter()
            .map(|(t, p)| format!("T {t}: {}", p.describe_percent()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let moderate: Vec<(f64, Paired)> = perturbed(&|t| t <= 6.0)
        .into_iter()
        .filter_map(|(t, runs)| Some((t, response(runs)?)))
        .collect();
    claims
        .check(
            "§5.3, Table 5",
            format!(
                "response time stable for T up to 6 h (no significant difference, or the \
                 interval within {STABLE_RESPONSE_PERCENT:.2} %: the largest change the paper \
                 calls stable, T = 6)"
            ),
            list(&moderate),
            "+0.8 % (462.3 vs 458.5)",
            !moderate.is_empty()
                && moderate
                    .iter()
                    .all(|(_, p)| stable(p, STABLE_RESPONSE_PERCENT)),
        )
        .because(format!(
            "{}; mean response at T = 0: {:.1} min",
            ppe_finding(zero_runs),
            zero.response_s / 60.0
        ));
    // "A noticeable increase" at T = 24: the paper's +13.1 %, tested as that magnitude.
    let paper_rise = 100.0 * (PAPER[5].2 / PAPER[0].2 - 1.0);
    let rise = result.runs_at(last_t).and_then(response);
    claims
        .check(
            "§5.3, Table 5",
            format!(
                "response time rises noticeably at the largest T (T = 24: {paper_rise:+.1} %; the \
                 paper's figure within our one-run 95 % prediction interval)"
            ),
            format!(
                "T {last_t}: {}",
                rise.map_or("n/a".into(), |p| p
                    .describe_against_percent(paper_rise, PRECISION_PP))
            ),
            format!("{paper_rise:+.1} % (518.5 vs 458.5)"),
            last_t == PAPER[5].0
                && rise.is_some_and(|p| p.reproduces_percent(paper_rise, PRECISION_PP)),
        )
        .because(format!(
            "order: {}; {}; PPE at T = {last_t}: {:.0} %",
            rise.map_or("n/a".into(), |p| p.describe_percent()),
            ppe_finding(zero_runs),
            last.ppe_percent.unwrap_or(0.0)
        ));
    let costs: Vec<(f64, Paired)> = perturbed(&|_| true)
        .into_iter()
        .filter_map(|(t, runs)| Some((t, cost(runs)?)))
        .collect();
    claims.check(
        "§5.3, Table 5",
        format!(
            "prediction errors have no real impact on the electricity cost per job (no \
             significant difference, or the interval within {STABLE_COST_PERCENT:.2} %: the \
             largest change of the paper's rows, T = 3)"
        ),
        list(&costs),
        "0.9 % (23.05 vs 22.85)",
        !costs.is_empty() && costs.iter().all(|(_, p)| stable(p, STABLE_COST_PERCENT)),
    );
    out.write_table(&checks_table(&checks))?;
    out.write_claims(&claims)?;
    Ok(())
}

/// The mean of `pick` over the runs' wait errors (NaN without any).
fn mean_error(runs: &[Metrics], pick: fn(&WaitErrors) -> f64) -> f64 {
    let xs: Vec<f64> = runs
        .iter()
        .filter_map(|m| m.wait_errors.as_ref().map(pick))
        .collect();
    cosched_core::stats::mean(&xs).unwrap_or(f64::NAN)
}

/// Per T, what the PPE is made of (means over the seeds), beside the paper's PPE: our PPE
/// (over max(actual, 1 h)), the same errors over the response time, the mean absolute error
/// and mean actual wait, and the shares of jobs that waited and were predicted to.
fn ppe_table(result: &SweepResult) -> Table {
    let mut table = Table::new(
        "metasched_table5_ppe",
        "Table 5's PPE: what it is made of (MCMF's metascheduled jobs at the site where they ran)",
        [
            "T (h)",
            "PPE (%)",
            "paper PPE (%)",
            "PPE over response (%)",
            "mean |error| (h)",
            "mean wait (h)",
            "did not wait (%)",
            "predicted a wait (%)",
        ],
    )
    .with_notes(
        "PPE = 100 |predicted − actual| / max(actual, 1 h) per job (the floor is ours); 'over \
         response' divides the same error by the job's response time instead. The perturbation \
         is one draw per job, the same at every site (§5.3).",
    );
    for (t, runs) in result.points.iter().map(|(t, _)| *t).zip(&result.runs) {
        let paper = PAPER.iter().find(|p| (p.0 - t).abs() < 1e-9).map(|p| p.1);
        table.row([
            Cell::fixed(t, 0),
            Cell::fixed(
                cosched_core::stats::mean(
                    &runs
                        .iter()
                        .filter_map(|m| m.mean_ppe_percent)
                        .collect::<Vec<_>>(),
                )
                .unwrap_or(f64::NAN),
                0,
            ),
            Cell::paper(paper, 0),
            Cell::fixed(mean_error(runs, |e| e.ppe_over_response_percent), 0),
            Cell::fixed(mean_error(runs, |e| e.mean_abs_error_s) / 3_600.0, 2),
            Cell::fixed(mean_error(runs, |e| e.mean_actual_s) / 3_600.0, 2),
            Cell::fixed(100.0 * mean_error(runs, |e| e.zero_actual_share), 0),
            Cell::fixed(100.0 * mean_error(runs, |e| e.positive_predicted_share), 0),
        ]);
    }
    table
}

/// Why the unperturbed PPE is far above the paper's 3 %, computed from the T = 0 runs.
fn ppe_finding(zero_runs: &[Metrics]) -> String {
    let ppe: Vec<f64> = zero_runs
        .iter()
        .filter_map(|m| m.mean_ppe_percent)
        .collect();
    format!(
        "unperturbed PPE {:.0} % (paper: 3 %; {:.0} % over the response time instead): the \
         learned predictor errs by {:.2} h per job on waits of {:.2} h mean; {:.0} % of the \
         jobs did not wait but {:.0} % were predicted to",
        cosched_core::stats::mean(&ppe).unwrap_or(f64::NAN),
        mean_error(zero_runs, |e| e.ppe_over_response_percent),
        mean_error(zero_runs, |e| e.mean_abs_error_s) / 3_600.0,
        mean_error(zero_runs, |e| e.mean_actual_s) / 3_600.0,
        100.0 * mean_error(zero_runs, |e| e.zero_actual_share),
        100.0 * mean_error(zero_runs, |e| e.positive_predicted_share),
    )
}
