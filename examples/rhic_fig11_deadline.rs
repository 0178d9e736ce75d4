//! RHIC (Clay, Shen, Ma, Gu), Figure 11 (§5.2): soft deadlines. Three deadlines per Hadoop
//! job across its achievable completion times, each run on five seeds (the paper: twice, 6
//! points per job, 24 in all; more seeds here for the spread); RHIC's completion over the deadline beside the exhaustive bar (the fixed
//! size finishing closest to the deadline without missing it), and (11b) each job's range of
//! completion times over 0–36 volunteers.
//!
//! Deadlines (ours; the paper does not list them): `T_36 + f · (T_0 − T_36)`, `f` = 0.2, 0.5,
//! 0.8, with `T_k` the mean fixed-size completion on the same seeds.

use cosched_core::Time;
use cosched_core::stats::Spread;
use cosched_examples::rhic::{RhicArgs, assumptions, job_chart, run_all, show, show_with, sizes};
use cosched_examples::{Cell, Claims, Table};
use cosched_rhic::Goal;
use cosched_rhic::env::JobProfile;
use cosched_rhic::scenario::{Approach, Run, curve, mean};

const NAME: &str = "rhic_fig11_deadline";
const FRACTIONS: [f64; 3] = [0.2, 0.5, 0.8];

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 11: meeting deadlines");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(5);
    let profiles = args.jobs(&[JobProfile::Wordcount, JobProfile::Pi]);
    let any = Goal::Deadline(Time(0));
    let survey: Vec<_> = profiles
        .iter()
        .flat_map(|&p| {
            seeds.iter().flat_map(move |&s| {
                sizes(36, quick)
                    .into_iter()
                    .map(move |k| Run::paper(p, any, Approach::Fixed(k), quick, s))
            })
        })
        .collect();
    let survey = run_all(NAME, survey)?;
    let times: Vec<(JobProfile, Vec<(usize, f64)>)> = profiles
        .iter()
        .map(|&p| (p, curve(&survey, p, |o| o.completion.0 as f64)))
        .collect();
    let mut deadlines = Vec::new();
    for (p, t) in &times {
        let (Some(&(_, t0)), Some(&(_, t36))) = (t.first(), t.last()) else {
            continue;
        };
        for f in FRACTIONS {
            deadlines.push((*p, f, (t36 + f * (t0 - t36)).round() as i64));
        }
    }
    let configs = deadlines
        .iter()
        .flat_map(|&(p, _, d)| {
            seeds
                .iter()
                .map(move |&s| Run::paper(p, Goal::Deadline(Time(d)), Approach::RHIC, quick, s))
        })
        .collect();
    let runs = run_all(NAME, configs)?;

    let mut table = Table::new(
        NAME,
        "RHIC under the deadline goal: completion / deadline (Fig. 11a)",
        [
            "job",
            "f",
            "deadline (min)",
            "met",
            "RHIC finish / deadline (mean ± sd)",
            "exhaustive bar",
            "mean volunteers",
        ],
    )
    .with_notes(format!(
        "Seeds {seeds:?}. Exhaustive bar: the fixed size whose mean completion is closest to the \
         deadline without passing it, over the deadline. Paper (§5.2): RHIC misses 5 of 24 \
         deadlines, by less than 3 % on average. {}",
        assumptions()
    ));
    let (mut misses, mut total, mut lateness) = (0usize, 0usize, Vec::new());
    let mut ratios = Vec::new();
    for &(p, f, d) in &deadlines {
        let these: Vec<_> = runs
            .iter()
            .filter(|(c, _)| c.job.profile == p && c.config.goal == Goal::Deadline(Time(d)))
            .map(|(_, o)| o)
            .collect();
        let met = these
            .iter()
            .filter(|o| o.deadline_met == Some(true))
            .count();
        total += these.len();
        misses += these.len() - met;
        for o in &these {
            let r = o.completion.0 as f64 / d as f64;
            if r > 1.0 {
                lateness.push(100.0 * (r - 1.0));
            }
        }
        let per_seed: Vec<f64> = these
            .iter()
            .map(|o| o.completion.0 as f64 / d as f64)
            .collect();
        let ratio = mean(per_seed.iter().copied());
        ratios.push(ratio);
        let bar = times.iter().find(|(q, _)| *q == p).and_then(|(_, t)| {
            t.iter()
                .filter(|&&(_, x)| x <= d as f64)
                .map(|&(_, x)| x / d as f64)
                .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
        });
        table.row([
            Cell::from(p.name()),
            Cell::fixed(f, 1),
            Cell::fixed(d as f64 / 60.0, 1),
            Cell::Text(format!("{met} / {}", these.len())),
            Cell::Text(show_with(Spread::of(&per_seed), 3)),
            bar.map_or(Cell::Empty, |b| Cell::fixed(b, 3)),
            Cell::fixed(mean(these.iter().map(|o| o.mean_volunteers)), 1),
        ]);
    }
    out.write_table(&table)?;
    let mut range = Table::new(
        format!("{NAME}_range"),
        "Range of completion times over 0–36 volunteers (Fig. 11b), minutes",
        ["job", "fastest", "slowest"],
    );
    for (p, t) in &times {
        let lo = t.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
        let hi = t.iter().map(|x| x.1).fold(0.0, f64::max);
        range.row([
            Cell::from(p.name()),
            Cell::fixed(lo / 60.0, 1),
            Cell::fixed(hi / 60.0, 1),
        ]);
    }
    out.write_table(&range)?;
    let series = FRACTIONS.iter().enumerate().map(|(i, f)| {
        let by_job = (0..profiles.len()).map(|j| {
            ratios
                .get(j * FRACTIONS.len() + i)
                .copied()
                .unwrap_or(f64::NAN)
        });
        (format!("f = {f:.1}"), by_job.collect())
    });
    out.write_plot(&job_chart(
        "deadline",
        "RHIC finish / deadline (Fig. 11a; 1.0 = the deadline)",
        "finish / deadline",
        &profiles,
        series,
    ))?;

    let mut claims = Claims::new("rhic");
    let rate = misses as f64 / total.max(1) as f64;
    // The miss rate of each seed (over its 3 deadlines × jobs), for the spread.
    let seed_rates: Vec<f64> = seeds
        .iter()
        .map(|&s| {
            let mine: Vec<_> = runs.iter().filter(|(c, _)| c.config.seed == s).collect();
            let missed = mine
                .iter()
                .filter(|(_, o)| o.deadline_met != Some(true))
                .count();
            100.0 * missed as f64 / mine.len().max(1) as f64
        })
        .collect();
    claims
        .check(
            "§5.2, Fig. 11",
            "RHIC misses few deadlines (paper: 5 of 24)",
            format!(
                "{misses} of {total}; per-seed miss rate (%) {}",
                show(Spread::of(&seed_rates))
            ),
            "5 of 24",
            rate <= 0.35,
        )
        .because("pass at a miss rate of at most 35 %");
    let late = Spread::of(&lateness);
    claims
        .check(
            "§5.2, Fig. 11",
            "missed deadlines are missed by less than 3 % on average",
            format!("lateness (%) {}", show(late)),
            "< 3 %",
            late.is_none_or(|s| s.mean < 3.0),
        )
        .because("mean lateness of the missed runs, % of the deadline");
    out.write_claims(&claims)?;
    Ok(())
}
