//! Albatross (Mathur, Aleksonis), §V Figs. 1–4: ten desktops whose owners use them throughout
//! the day, a job every 5 minutes, 100,000 s, without Albatross (capital 0) and with capital
//! 0.25 / 0.5 / 0.75.
//!
//! The environment is calibrated on Fig. 1 only (`albatross_calibrate`); Figs. 2–4 are
//! predictions of the paper's mechanism on it, reported as they come out. Files:
//! `albatross_capital.csv` (one row per capital, seed `--seed`), `albatross_capital_seeds.csv`
//! (mean ± sd over `--seeds` seeds), `albatross_progress.csv` (every submission and
//! completion), `progress_fig1.svg` … `progress_fig4.svg`, and the paper's claims checked.

use clap::Parser;
use cosched_albatross::policy::{AlbatrossConfig, Capital, STALL_THRESHOLD};
use cosched_albatross::pool::{DESKTOP_SPEED, INSTANCE_SPIN_UP, InstanceType};
use cosched_albatross::scenario::{self, PAPER, Run};
use cosched_albatross::sim::SimConfig;
use cosched_albatross::workload::WorkloadModel;
use cosched_core::seed::replicate_seeds;
use cosched_core::stats::Spread;
use cosched_core::{Duration, ParamError};
use cosched_examples::albatross::write_progress_csv;
use cosched_examples::{Cell, Claims, CommonArgs, LinePlot, Sweep, Table};

const NAME: &str = "albatross_capital";

#[derive(Parser)]
#[command(about = "Albatross: progress, job run time and cloud cost against capital")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// Seeds for the claims' spread [default: 8, quick: 3].
    #[arg(long, value_parser = cosched_examples::parse_seed_count)]
    seeds: Option<u64>,
    /// Albatross's stall threshold, seconds (the paper gives none; ours is the library's
    /// `STALL_THRESHOLD`).
    #[arg(long, default_value_t = STALL_THRESHOLD.secs(), value_parser = clap::value_parser!(i64).range(1..=86_400))]
    stall_threshold: i64,
}

fn main() -> std::process::ExitCode {
    cosched_examples::main_with(run)
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let mut out = cli.common.output(NAME)?;
    let n = cli.seeds.unwrap_or(if cli.common.quick { 3 } else { 8 });
    let configs: Vec<(usize, u64)> = (0..PAPER.len())
        .flat_map(|f| replicate_seeds(cli.common.seed, n).map(move |s| (f, s)))
        .collect();
    let model = WorkloadModel::paper();
    let runs = Sweep::new(NAME, configs).run(|&(f, seed)| {
        let capital = Capital::new(PAPER[f].capital)?;
        let mut policy = scenario::for_capital(AlbatrossConfig {
            stall_threshold: Duration(cli.stall_threshold),
            ..AlbatrossConfig::paper(capital)
        })?;
        scenario::run(&SimConfig::paper(), &model, seed, &mut policy)
    });
    let mut by_fig: Vec<Vec<Run>> = vec![Vec::new(); PAPER.len()];
    for ((f, _), run) in runs {
        by_fig[f].push(run?);
    }
    let spread = |f: usize, pick: fn(&Run) -> f64| {
        Spread::of(&by_fig[f].iter().map(pick).collect::<Vec<_>>())
    };

    let mut table = Table::new(
        NAME,
        format!(
            "Figs. 1–4 on seed {}: ours beside the paper's (§V)",
            cli.common.seed
        ),
        [
            "capital",
            "jobs_dispatched",
            "jobs_completed",
            "progress_at_end",
            "mean_s",
            "sd_s",
            "cost_usd",
            "paper_progress",
            "paper_mean_s",
            "paper_sd_s",
            "jobs_on_cloud",
            "cloud_nodes",
            "nodes_out_of_credit",
        ],
    )
    .with_notes(
        "Job metric: run time of the stay that completed the job (CompletionDate − \
         JobCurrentStartDate), jobs completed within 100,000 s; progress = completed / \
         dispatched (submitted). Capital 0 is the calibration baseline; 0.25–0.75 are \
         predictions. Paper progress: \"approximately 1/8th\" (Fig. 1), \"around 3/8ths\" \
         (Fig. 2), not stated for Figs. 3–4.",
    );
    let mut seeds_table = Table::new(
        format!("{NAME}_seeds"),
        format!(
            "Figs. 1–4 over {n} seeds from {}: mean ± sd [min, max]",
            cli.common.seed
        ),
        [
            "capital",
            "progress_at_end",
            "mean_s",
            "sd_s",
            "cost_usd",
            "completion_gap_s",
        ],
    );
    let fmt = |s: Option<Spread>| {
        s.map_or("-".into(), |s| {
            let sd = s.sd.map_or(String::new(), |sd| format!(" ± {sd:.3}"));
            format!("{:.3}{sd} [{:.3}, {:.3}]", s.mean, s.min, s.max)
        })
    };
    for (f, paper) in PAPER.iter().enumerate() {
        let r = &by_fig[f][0];
        table.row([
            Cell::fixed(paper.capital, 2),
            Cell::from(Some(r.dispatched as u64)),
            Cell::from(Some(r.completed as u64)),
            Cell::fixed(r.progress_at_end, 4),
            Cell::fixed(r.mean_s, 2),
            Cell::fixed(r.sd_s, 2),
            Cell::fixed(r.cost_usd, 4),
            Cell::paper((!paper.progress.is_nan()).then_some(paper.progress), 3),
            Cell::paper(Some(paper.mean_s), 2),
            Cell::paper(Some(paper.sd_s), 2),
            Cell::from(Some(r.completed_on_cloud as u64)),
            Cell::from(Some(r.outcome.cloud_nodes.len() as u64)),
            Cell::from(Some(r.nodes_out_of_credit as u64)),
        ]);
        seeds_table.row([
            Cell::fixed(paper.capital, 2),
            Cell::Text(fmt(spread(f, |r| r.progress_at_end))),
            Cell::Text(fmt(spread(f, |r| r.mean_s))),
            Cell::Text(fmt(spread(f, |r| r.sd_s))),
            Cell::Text(fmt(spread(f, |r| r.cost_usd))),
            Cell::Text(fmt(spread(f, |r| r.mean_gap_s))),
        ]);
        let plot = LinePlot::new(
            format!("progress_fig{}", paper.figure),
            format!(
                "Fig. {}: progress, capital {:.2} (seed {})",
                paper.figure, paper.capital, cli.common.seed
            ),
        )
        .x_label("time (s)")
        .y_label("completed / dispatched")
        .series(
            "ours",
            r.outcome
                .progress
                .iter()
                .filter_map(|p| Some((p.time.secs() as f64, p.progress()?))),
        )
        .series("paper, end point", [(100_000.0, paper.progress)]);
        out.write_plot(&plot)?;
    }
    out.write_table(&table)?;
    out.write_table(&seeds_table)?;
    let firsts: Vec<(f64, _)> = PAPER
        .iter()
        .zip(&by_fig)
        .map(|(p, r)| (p.capital, &r[0].outcome))
        .collect();
    write_progress_csv(&mut out, &firsts)?;
    out.write_table(&desktop_speed_sensitivity(cli.common.seed, n)?)?;
    out.write_table(&checks(&by_fig, n))?;
    out.write_table(&fig2_sensitivity(cli.common.seed, n)?)?;
    out.write_claims(&claims(&by_fig, n))?;
    Ok(())
}

/// Figs. 2–4 under other desktop speeds: a desktop of speed `s` with job work scaled by `s`
/// gives the same baseline (Fig. 1) exactly, so the baseline cannot fix `s`; the library's
/// is a loaded t2 VM's documented baseline ([`DESKTOP_SPEED`]), the others are shown beside.
fn desktop_speed_sensitivity(seed: u64, n: u64) -> Result<Table, Box<dyn std::error::Error>> {
    let speeds = [DESKTOP_SPEED, 0.5, 1.0];
    let configs: Vec<(f64, usize, u64)> = speeds
        .iter()
        .flat_map(|&s| {
            (0..PAPER.len()).flat_map(move |f| replicate_seeds(seed, n).map(move |r| (s, f, r)))
        })
        .collect();
    let runs = Sweep::new(format!("{NAME} desktop speed"), configs).run(|&(speed, f, r)| {
        let capital = Capital::new(PAPER[f].capital)?;
        let mut config = SimConfig::paper();
        for d in &mut config.desktops {
            d.speed = speed;
        }
        let base = WorkloadModel::paper();
        let model = WorkloadModel {
            mean_work_s: base.mean_work_s * speed / DESKTOP_SPEED,
            ..base
        };
        let mut policy = scenario::for_capital(AlbatrossConfig::paper(capital))?;
        scenario::run(&config, &model, r, &mut policy)
    });
    let mut table = Table::new(
        format!("{NAME}_desktop_speed"),
        format!("Sensitivity: desktop speed relative to a t2 vCPU with credits ({n} seeds, means)"),
        [
            "desktop_speed",
            "capital",
            "progress_at_end",
            "mean_s",
            "sd_s",
            "paper_mean_s",
            "paper_sd_s",
        ],
    )
    .with_notes(
        "The paper's desktops are VMs that run other processes \"programmatically\" beside \
         HTCondor (§V); how fast they run a job relative to a t2 vCPU is not stated. Speed s \
         with job work × s leaves Fig. 1 unchanged, so the baseline cannot identify s. The \
         library's 0.20 is a t2.medium VM held at its documented baseline by its background \
         load (AWS: 20 % per vCPU); 0.5 and 1.0 (a desktop as fast as a cloud vCPU) are shown \
         beside it, not fitted.",
    );
    for &speed in &speeds {
        for (f, paper) in PAPER.iter().enumerate() {
            let mine: Vec<&Run> = runs
                .iter()
                .filter(|((s, g, _), _)| *s == speed && *g == f)
                .filter_map(|(_, r)| r.as_ref().ok())
                .collect();
            let avg = |pick: fn(&Run) -> f64| {
                Spread::of(&mine.iter().map(|r| pick(r)).collect::<Vec<_>>())
                    .map_or(f64::NAN, |s| s.mean)
            };
            table.row([
                Cell::fixed(speed, 2),
                Cell::fixed(paper.capital, 2),
                Cell::fixed(avg(|r| r.progress_at_end), 3),
                Cell::fixed(avg(|r| r.mean_s), 1),
                Cell::fixed(avg(|r| r.sd_s), 1),
                Cell::paper(Some(paper.mean_s), 2),
                Cell::paper(Some(paper.sd_s), 2),
            ]);
        }
    }
    if let Some((_, Err(e))) = runs.iter().find(|(_, r)| r.is_err()) {
        return Err(e.to_string().into());
    }
    Ok(table)
}

/// Completed jobs at `t` (the last progress point at or before it).
fn completed_at(run: &Run, t: i64) -> f64 {
    run.outcome
        .progress
        .iter()
        .take_while(|p| p.time.secs() <= t)
        .last()
        .map_or(0.0, |p| p.completed as f64)
}

/// Completions per 1,000 s between `from` and `to`.
fn rate(run: &Run, from: i64, to: i64) -> f64 {
    (completed_at(run, to) - completed_at(run, from)) * 1000.0 / (to - from) as f64
}

/// vCPU-hours of cloud capacity in the pool (joined to stopped).
fn cloud_vcpu_hours(run: &Run) -> f64 {
    cloud_hours(run, |t| f64::from(t.slots))
}

/// The sustained (baseline) CPU the cloud nodes had, vCPU-hours: a burstable type's credits
/// earned per hour over 60 (one credit is one vCPU-minute), a fixed type's vCPUs.
fn cloud_baseline_hours(run: &Run) -> f64 {
    cloud_hours(run, |t| {
        t.credits
            .map_or(f64::from(t.slots), |c| c.earned_per_hour / 60.0)
    })
}

/// `capacity(type) × hours in the pool`, summed over the run's cloud nodes.
fn cloud_hours(run: &Run, capacity: impl Fn(&InstanceType) -> f64) -> f64 {
    let o = &run.outcome;
    o.cloud_nodes
        .iter()
        .filter_map(|n| {
            let up = n.stopped.checked_since(n.ready?)?;
            Some(capacity(&o.instance_types[n.instance]) * up.secs() as f64 / 3600.0)
        })
        .sum()
}

/// The paired difference `b − a` over seeds (the runs are paired: run k of every capital has
/// seed k, so owners and jobs are the same): its mean and 95 % CI half-width.
fn paired(a: &[f64], b: &[f64]) -> Option<Spread> {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    Spread::of(&d)
}

/// The significance rule of every sign claim: the paired mean difference lies outside its
/// 95 % confidence interval around 0 (Student's t over the seeds); `Some(sign)` then, `None`
/// for "no significant difference".
fn significant_sign(d: &Spread) -> Option<f64> {
    let h = d.ci95_half_width?;
    (d.mean.abs() > h).then(|| d.mean.signum())
}

fn show_paired(d: &Option<Spread>) -> String {
    match d {
        Some(s) => format!(
            "{:+.3} ± {:.3}",
            s.mean,
            s.ci95_half_width.unwrap_or(f64::NAN)
        ),
        None => "n/a (no runs)".into(),
    }
}

/// The paper's statements about Figs. 1–4, checked on the seeds (signs against seed-to-seed
/// noise, paired by seed), and the calibration targets, identities and configuration checks,
/// reported apart ([`checks`]).
fn claims(by_fig: &[Vec<Run>], n: u64) -> Claims {
    let col = |f: usize, pick: &dyn Fn(&Run) -> f64| by_fig[f].iter().map(pick).collect::<Vec<_>>();
    let mean = |f: usize, pick: &dyn Fn(&Run) -> f64| {
        Spread::of(&col(f, pick)).map_or(f64::NAN, |s| s.mean)
    };
    let series =
        |pick: &dyn Fn(&Run) -> f64| (0..PAPER.len()).map(|f| mean(f, pick)).collect::<Vec<_>>();
    let show = |xs: &[f64], d: usize| {
        xs.iter()
            .map(|x| format!("{x:.d$}"))
            .collect::<Vec<_>>()
            .join(" → ")
    };
    // Each step between successive capitals, paired by seed: `sign` of every step significant.
    let steps = |pick: &dyn Fn(&Run) -> f64, sign: f64| {
        let diffs: Vec<Option<Spread>> = (1..PAPER.len())
            .map(|f| paired(&col(f - 1, pick), &col(f, pick)))
            .collect();
        let pass = diffs
            .iter()
            .all(|d| d.as_ref().and_then(significant_sign) == Some(sign));
        let text = diffs.iter().map(show_paired).collect::<Vec<_>>().join("; ");
        (pass, text)
    };
    let progress = series(&|r| r.progress_at_end);
    let means = series(&|r| r.mean_s);
    let sds = series(&|r| r.sd_s);
    let mut c = Claims::new("albatross");
    let noise = format!(
        "steps paired by seed ({n} seeds), mean ± 95 % CI half-width; a step counts when its \
         CI excludes 0"
    );
    let up = series(&|r| r.cloud_up_hours);
    let on_cloud = series(&|r| r.completed_on_cloud as f64);
    let completed = series(&|r| r.completed as f64);
    // The paper shows one run per capital: its figure reproduces when one more of our runs
    // could give it, inside the 95 % prediction interval of one run over the seeds (Student's
    // t: the mean's CI half-width × √(n + 1)), widened by the paper's precision.
    let one_run = |f: usize, pick: &dyn Fn(&Run) -> f64, paper: f64, precision: f64| {
        Spread::of(&col(f, pick)).map_or((false, "-".to_owned()), |s| {
            let half = s
                .ci95_half_width
                .map_or(0.0, |h| h * ((s.n + 1) as f64).sqrt());
            let widened = half + precision;
            (
                (paper - s.mean).abs() <= widened,
                format!(
                    "{:.3} (one run: {:.3} .. {:.3})",
                    s.mean,
                    s.mean - half,
                    s.mean + half
                ),
            )
        })
    };
    let (pass, ours) = one_run(1, &|r| r.progress_at_end, 0.375, 1.0 / 16.0);
    c.check(
        "§V, Fig. 2",
        format!(
            "low capital (0.25): progress around 3/8 at 27 h (the paper's one run inside our \
             one-run 95 % prediction interval over {n} seeds, widened by ±1/16: the paper \
             states progress in eighths)"
        ),
        ours,
        "≈ 0.375",
        pass,
    )
    .because(format!(
        "one t2.micro per stall, 15 min each, was in the pool {:.1} of 27.8 h and completed \
         {:.0} of {:.0} jobs; which unstated parameters decide this: \
         albatross_capital_fig2_sensitivity",
        up[1], on_cloud[1], completed[1]
    ));
    let (pass, text) = steps(&|r| r.progress_at_end, 1.0);
    c.check(
        "§VII",
        "progress (throughput) rises with capital, each step significant",
        format!("{} ({text})", show(&progress, 3)),
        "0.125 → 0.375 → … (rising)",
        pass,
    )
    .because(noise.clone());
    let cloud = series(&|r| r.mean_cloud_s);
    let desktop = series(&|r| r.mean_desktop_s);
    let share = series(&|r| r.completed_on_cloud as f64 / r.completed.max(1) as f64);
    let why = format!(
        "cloud-completed jobs take {} s, desktop-completed {} s, the cloud's share of \
         completions {} (capitals 0.25 → 0.75)",
        show(&cloud[1..], 0),
        show(&desktop[1..], 0),
        show(&share[1..], 2)
    );
    let (pass, text) = steps(&|r| r.mean_s, -1.0);
    c.check(
        "§V",
        "mean run time falls with capital, each step significant",
        format!("{} s ({text})", show(&means, 1)),
        "261.15 → 72.21 → 53.64 → 34.20 s",
        pass,
    )
    .because(format!("{noise}; {why}"));
    let (pass, text) = steps(&|r| r.sd_s, -1.0);
    c.check(
        "§V, §VII",
        "sd of run time falls with capital (variance tightens), each step significant",
        format!("{} s ({text})", show(&sds, 1)),
        "170.82 → 47.63 → 35.23 → 20.96 s",
        pass,
    )
    .because(format!("{noise}; {why}"));
    for (f, p) in PAPER.iter().enumerate().skip(1) {
        let (mean_ok, mean_ours) = one_run(f, &|r| r.mean_s, p.mean_s, 0.005);
        let (sd_ok, sd_ours) = one_run(f, &|r| r.sd_s, p.sd_s, 0.005);
        let claim = c.check(
            format!("§V, Fig. {}", p.figure),
            format!(
                "capital {:.2}: mean and sd of run time as one run gives them (the paper's one \
                 run inside our one-run 95 % prediction interval over {n} seeds, widened by its \
                 two-decimal precision)",
                p.capital
            ),
            format!("mean {mean_ours} s; sd {sd_ours} s"),
            format!("{:.2} / {:.2} s", p.mean_s, p.sd_s),
            mean_ok && sd_ok,
        );
        if !(mean_ok && sd_ok) {
            claim.because(why.clone());
        }
    }
    let late = paired(
        &col(1, &|r| r.progress_at_90ks),
        &col(1, &|r| r.progress_at_end),
    );
    c.check(
        "§V, Fig. 2",
        "low capital: progress is steadily decreasing at the end (90,000 → 100,000 s)",
        show_paired(&late),
        "decreasing",
        late.as_ref().and_then(significant_sign) == Some(-1.0),
    )
    .because(format!(
        "change of completed / dispatched over the last 10,000 s, {n} seeds, mean ± 95 % CI; \
         decreasing when the CI excludes 0"
    ));
    // Single-run shapes: the paper reports one run per figure, so each seed's run is one
    // observation of the shape; it is what a single run shows when most runs show it.
    let runs = by_fig[0].len();
    let shape_count = |shows: &dyn Fn(usize) -> bool| (0..runs).filter(|&k| shows(k)).count();
    let gap_shape = |k: usize| {
        let m = |f: usize| by_fig[f][k].mean_s;
        let (low_mid, mid_high) = (m(1) - m(2), m(2) - m(3));
        low_mid > 0.0 && mid_high > low_mid
    };
    let first_gap = (
        by_fig[1][0].mean_s - by_fig[2][0].mean_s,
        by_fig[2][0].mean_s - by_fig[3][0].mean_s,
    );
    let k = shape_count(&gap_shape);
    c.check(
        "§V",
        "low → mid capital improves the mean less than mid → high (one run's shape)",
        format!(
            "{k} of {runs} single runs show 0 < low→mid < mid→high; first seed: {:.2} s vs {:.2} s",
            first_gap.0, first_gap.1
        ),
        "18.57 s vs 19.44 s (one run)",
        2 * k > runs,
    )
    .because(
        "the paper's two gaps come from one run per capital: each seed's run is one such \
         observation; reproduced when a majority of single runs show the shape",
    );
    let bump = |k: usize| {
        let r = &by_fig[0][k];
        rate(r, 40_000, 60_000) > (rate(r, 20_000, 40_000) + rate(r, 60_000, 80_000)) / 2.0
    };
    let k = shape_count(&bump);
    c.not_exercised(
        "§V, Fig. 1",
        "without Albatross the progress line's slope rises between 40,000 and 60,000 s",
        format!(
            "{k} of {runs} single runs complete more per 1,000 s in 40–60 ks than the mean of \
             20–40 and 60–80 ks"
        ),
        "a slight increase in the slope, then back down (one run)",
        format!(
            "not testable: the paper explains the bump by owners who happened to leave then (one \
             run's chance), no mechanism ties it to 40–60 ks, and its setup states no daily \
             cycle; with owners whose behaviour does not depend on the hour, a single run shows \
             it by chance ({k} of {runs} here), so no run can confirm or refute it"
        ),
    );
    c
}

/// What the report keeps apart from the paper's claims: calibration targets (what the
/// environment was fitted to), identities (true by construction) and configuration checks.
fn checks(by_fig: &[Vec<Run>], n: u64) -> Table {
    let mean = |f: usize, pick: fn(&Run) -> f64| {
        Spread::of(&by_fig[f].iter().map(pick).collect::<Vec<_>>()).map_or(f64::NAN, |s| s.mean)
    };
    let series =
        |pick: fn(&Run) -> f64| (0..PAPER.len()).map(|f| mean(f, pick)).collect::<Vec<_>>();
    let show = |xs: &[f64], d: usize| {
        xs.iter()
            .map(|x| format!("{x:.d$}"))
            .collect::<Vec<_>>()
            .join(" → ")
    };
    let near = |ours: f64, paper: f64, tol: f64| (ours - paper).abs() <= tol * paper;
    let verdict = |ok: bool| Cell::Text(if ok { "holds" } else { "DOES NOT HOLD" }.into());
    let mut t = Table::new(
        format!("{NAME}_checks"),
        format!(
            "Calibration targets, identities and configuration checks ({n} seeds; not paper claims)"
        ),
        ["kind", "source", "check", "ours", "paper", "verdict"],
    );
    let mut row = |kind: &str, source: &str, check: &str, ours: String, paper: &str, ok: bool| {
        t.row([
            Cell::Text(kind.into()),
            Cell::Text(source.into()),
            Cell::Text(check.into()),
            Cell::Text(ours),
            Cell::Text(paper.into()),
            verdict(ok),
        ]);
    };
    let progress = series(|r| r.progress_at_end);
    let (means, sds) = (series(|r| r.mean_s), series(|r| r.sd_s));
    row(
        "calibration target",
        "§V, Fig. 1",
        "without Albatross progress ≈ 1/8 at 100,000 s (fitted by albatross_calibrate; ±25 %)",
        format!("{:.3}", progress[0]),
        "≈ 0.125",
        near(progress[0], 0.125, 0.25),
    );
    row(
        "calibration target",
        "§V, Fig. 1",
        "without Albatross mean / sd run time (fitted; ±15 %)",
        format!("{:.1} / {:.1}", means[0], sds[0]),
        "261.15 / 170.82",
        near(means[0], 261.15, 0.15) && near(sds[0], 170.82, 0.15),
    );
    let costs = series(|r| r.cost_usd);
    row(
        "identity",
        "§IV-F",
        "cost rises with capital (each row's price and lifetime are higher by construction)",
        format!("$ {}", show(&costs, 3)),
        "rising",
        costs.windows(2).all(|w| w[1] > w[0]),
    );
    let first = mean(0, |r| r.first_completion_s);
    row(
        "identity",
        "§V, Fig. 1",
        "an initial lag (every owner at the desk at t = 0, START after 15 idle minutes)",
        format!("first completion at {first:.0} s"),
        "a flat start",
        first > 900.0,
    );
    let gaps = series(|r| r.mean_gap_s);
    row(
        "identity",
        "§V",
        "the saw-tooth compresses (mean time between completions; restates progress)",
        format!("{} s", show(&gaps, 0)),
        "compressed",
        gaps.windows(2).all(|w| w[1] < w[0]),
    );
    let types = cosched_albatross::pool::default_instance_types();
    let table = cosched_albatross::policy::CapitalTable::paper();
    let at = |c: f64| {
        Capital::new(c)
            .ok()
            .and_then(|c| table.tier(c))
            .and_then(|row| types.get(row.instance))
    };
    if let (Some(low), Some(mid)) = (at(0.25), at(0.5)) {
        let baseline = |t: &cosched_albatross::pool::InstanceType| {
            t.credits.map_or(f64::NAN, |c| c.earned_per_hour)
        };
        let mid_over_low = |measure: fn(&Run) -> f64| {
            let ratios: Vec<f64> = by_fig[1]
                .iter()
                .zip(&by_fig[2])
                .filter(|&(l, _)| measure(l) > 0.0)
                .map(|(l, m)| measure(m) / measure(l))
                .collect();
            Spread::of(&ratios).map_or("n/a".into(), |s| format!("{:.2}", s.mean))
        };
        row(
            "configuration",
            "§IV-F, §V",
            "the ladder: low → mid doubles the resources (§V's \"approximately doubled\" \
             describes the configuration; memory and sustained CPU credits per hour double, \
             vCPUs are not stated)",
            format!(
                "{} → {}: memory ×{:.1}, credits/h ×{:.1}, vCPUs ×{:.1}; in the runs, cloud \
                 vCPU-hours mid / low {}, sustained-baseline CPU-hours {}",
                low.name,
                mid.name,
                f64::from(mid.memory_mb) / f64::from(low.memory_mb),
                baseline(mid) / baseline(low),
                f64::from(mid.slots) / f64::from(low.slots),
                mid_over_low(cloud_vcpu_hours),
                mid_over_low(cloud_baseline_hours)
            ),
            "≈ 2×",
            mid.memory_mb == 2 * low.memory_mb && baseline(mid) == 2.0 * baseline(low),
        );
    }
    t
}

/// One unstated parameter of Fig. 2's run and how to set it.
type Knob = (
    &'static str,
    f64,
    Vec<f64>,
    fn(&mut AlbatrossConfig, &mut SimConfig, f64) -> Result<(), ParamError>,
);

/// Edits the capital table's first row (capital ≤ 0.25, Fig. 2's).
fn edit_low_row(
    p: &mut AlbatrossConfig,
    edit: impl FnOnce(&mut cosched_albatross::policy::CapitalTier),
) -> Result<(), ParamError> {
    let mut rows = p.table.tiers().to_vec();
    if let Some(row) = rows.first_mut() {
        edit(row);
    }
    p.table = cosched_albatross::policy::CapitalTable::new(rows, p.instance_types.len())?;
    Ok(())
}

/// Fig. 2's progress (capital 0.25) under each parameter the paper does not state, one at a
/// time, the others at the library's values: which ones decide the 0.375 the paper reports and
/// what each would have to be. Nothing here is adopted (no value is fitted to Fig. 2).
fn fig2_sensitivity(seed: u64, n: u64) -> Result<Table, Box<dyn std::error::Error>> {
    let knobs: Vec<Knob> = vec![
        (
            "stall threshold (s)",
            STALL_THRESHOLD.secs() as f64,
            vec![60.0, 300.0, 1800.0, STALL_THRESHOLD.secs() as f64],
            |p, _, v| {
                p.stall_threshold = Duration(v as i64);
                Ok(())
            },
        ),
        (
            "node lifetime at c = 0.25 (min)",
            15.0,
            vec![15.0, 30.0, 60.0],
            |p, _, v| edit_low_row(p, |row| row.lifetime = Duration::from_mins(v as i64)),
        ),
        (
            "nodes per stall = most nodes at c = 0.25",
            1.0,
            vec![1.0, 2.0, 4.0],
            |p, _, v| {
                edit_low_row(p, |row| {
                    row.nodes_per_stall = v as u32;
                    row.max_nodes = v as u32;
                })
            },
        ),
        (
            "cloud spin-up (s)",
            INSTANCE_SPIN_UP.secs() as f64,
            vec![60.0, 157.0, 600.0],
            |_, s, v| {
                for t in &mut s.instance_types {
                    t.spin_up = Duration(v as i64);
                }
                Ok(())
            },
        ),
        (
            "cloud vCPU speed (full cores; a desktop runs at 0.2)",
            1.0,
            vec![DESKTOP_SPEED, 0.5, 1.0],
            |p, s, v| {
                for t in s.instance_types.iter_mut().chain(&mut p.instance_types) {
                    t.speed = v;
                }
                Ok(())
            },
        ),
    ];
    let configs: Vec<(usize, usize, u64)> = knobs
        .iter()
        .enumerate()
        .flat_map(|(k, knob)| (0..knob.2.len()).map(move |i| (k, i)))
        .flat_map(|(k, i)| replicate_seeds(seed, n).map(move |r| (k, i, r)))
        .collect();
    let model = WorkloadModel::paper();
    let runs = Sweep::new(format!("{NAME} Fig. 2 sensitivity"), configs).run(|&(k, i, r)| {
        let capital = Capital::new(PAPER[1].capital)?;
        let (mut policy, mut sim) = (AlbatrossConfig::paper(capital), SimConfig::paper());
        (knobs[k].3)(&mut policy, &mut sim, knobs[k].2[i])?;
        scenario::run(&sim, &model, r, &mut scenario::for_capital(policy)?)
    });
    let mut rows = Vec::new();
    let mut reach = Vec::new();
    for (k, (name, ours, values, _)) in knobs.iter().enumerate() {
        let mut hits = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let mine: Vec<&Run> = runs
                .iter()
                .filter(|((kk, ii, _), _)| *kk == k && *ii == i)
                .filter_map(|(_, r)| r.as_ref().ok())
                .collect();
            let p = Spread::of(&mine.iter().map(|r| r.progress_at_end).collect::<Vec<_>>());
            let m = Spread::of(&mine.iter().map(|r| r.mean_s).collect::<Vec<_>>());
            if let Some(p) = p
                && (p.mean - 0.375).abs() <= p.ci95_half_width.unwrap_or(0.0).max(0.375 * 0.25)
            {
                hits.push(format!("{v}"));
            }
            rows.push([
                Cell::Text((*name).into()),
                Cell::Text(format!("{v}{}", if v == ours { " (ours)" } else { "" })),
                Cell::Text(p.map_or("-".into(), |p| {
                    format!(
                        "{:.3} ± {:.3}",
                        p.mean,
                        p.ci95_half_width.unwrap_or(f64::NAN)
                    )
                })),
                Cell::fixed(m.map_or(f64::NAN, |m| m.mean), 1),
            ]);
        }
        reach.push(format!(
            "{name}: {}",
            if hits.is_empty() {
                "no value tried gives ≈ 0.375".to_owned()
            } else {
                format!("≈ 0.375 (±25 %) at {}", hits.join(", "))
            }
        ));
    }
    if let Some((_, Err(e))) = runs.iter().find(|(_, r)| r.is_err()) {
        return Err(e.to_string().into());
    }
    let mut table = Table::new(
        format!("{NAME}_fig2_sensitivity"),
        format!("Fig. 2 (capital 0.25): progress at 100,000 s under each unstated parameter ({n} seeds, mean ± 95 % CI)"),
        ["parameter", "value", "progress_at_end", "mean_s"],
    )
    .with_notes(format!(
        "The paper states none of these; one varies at a time, the others at the library's \
         values. Paper: ≈ 0.375. What each would have to be — {}. Reported, not adopted: no \
         value is fitted to Fig. 2.",
        reach.join("; ")
    ));
    for r in rows {
        table.row(r);
    }
    Ok(table)
}
