//! RHIC (Clay, Shen, Ma, Gu), Figure 14 (§5.3): deadline enforcement by RHIC, FUZZY (p = 4,
//! S ∈ {25, 50, 75 %}, measuring the distance from the rate that finishes 5 % early) and
//! Threshold (θ ∈ {0.25, 0.5, 0.75}); (14b) the pool sizes chosen over time for Pi.
//!
//! Deadlines (ours): `T_36 + f · (T_0 − T_36)`, `f` = 0.2, 0.5, 0.8, from the fixed-size runs.

use cosched_core::Time;
use cosched_core::stats::Spread;
use cosched_examples::rhic::{RhicArgs, assumptions, run_all, show_with};
use cosched_examples::{Cell, Claims, LinePlot, Table};
use cosched_rhic::Goal;
use cosched_rhic::completion::STRAGGLER_PADDING_TASKS;
use cosched_rhic::env::JobProfile;
use cosched_rhic::scenario::{Approach, Run, curve};

const NAME: &str = "rhic_fig14_deadline_baselines";
const FRACTIONS: [f64; 3] = [0.2, 0.5, 0.8];

fn approaches() -> Vec<(&'static str, Vec<Approach>)> {
    vec![
        ("rhic", vec![Approach::RHIC]),
        (
            "fuzzy",
            [0.25, 0.5, 0.75]
                .map(|start_fraction| Approach::Fuzzy {
                    step: 4,
                    start_fraction,
                })
                .to_vec(),
        ),
        (
            "threshold",
            [0.25, 0.5, 0.75].map(Approach::Threshold).to_vec(),
        ),
    ]
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 14: deadlines, RHIC vs FUZZY vs Threshold");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(5);
    let profiles = args.jobs(&[JobProfile::Pi]);
    let any = Goal::Deadline(Time(0));
    let extremes: Vec<_> = profiles
        .iter()
        .flat_map(|&p| {
            seeds.iter().flat_map(move |&s| {
                [0, 36].map(|k| Run::paper(p, any, Approach::Fixed(k), quick, s))
            })
        })
        .collect();
    let extremes = run_all(NAME, extremes)?;
    let mut deadlines = Vec::new();
    for &p in &profiles {
        let t = curve(&extremes, p, |o| o.completion.0 as f64);
        if let (Some(&(_, t0)), Some(&(_, t36))) = (t.first(), t.last()) {
            for f in FRACTIONS {
                deadlines.push((p, f, Time((t36 + f * (t0 - t36)).round() as i64)));
            }
        }
    }
    let approaches = approaches();
    let configs = deadlines
        .iter()
        .flat_map(|&(p, _, d)| {
            let approaches = &approaches;
            seeds.iter().flat_map(move |&s| {
                approaches
                    .iter()
                    .flat_map(|(_, v)| v.iter().copied())
                    .map(move |st| Run::paper(p, Goal::Deadline(d), st, quick, s))
            })
        })
        .collect();
    let runs = run_all(NAME, configs)?;

    let mut table = Table::new(
        NAME,
        "Finish / deadline (Fig. 14a), mean ± sd over seeds and settings",
        [
            "job",
            "strategy",
            "finish / deadline",
            "deadlines met",
            "worst",
        ],
    )
    .with_notes(format!(
        "Seeds {seeds:?}, three deadlines per job. Paper (§5.3): RHIC finishes within 4 % of \
         the deadline; FUZZY and Threshold are too conservative or too aggressive (almost \
         doubling the time), with much higher variance. {}",
        assumptions()
    ));
    let mut spread = Vec::new();
    for &p in &profiles {
        for (name, strategies) in &approaches {
            let these: Vec<_> = runs
                .iter()
                .filter(|(c, _)| c.job.profile == p && strategies.contains(&c.approach))
                .collect();
            let ratio: Vec<f64> = these
                .iter()
                .map(|(c, o)| match c.config.goal {
                    Goal::Deadline(d) => o.completion.0 as f64 / d.0 as f64,
                    _ => f64::NAN,
                })
                .collect();
            let met = these
                .iter()
                .filter(|(_, o)| o.deadline_met == Some(true))
                .count();
            let worst = ratio.iter().map(|r| (r - 1.0).abs()).fold(0.0, f64::max);
            let s = Spread::of(&ratio);
            table.row([
                Cell::from(p.name()),
                Cell::from(*name),
                Cell::Text(show_with(s, 3)),
                Cell::Text(format!("{met} / {}", these.len())),
                Cell::fixed(worst, 3),
            ]);
            spread.push((p, *name, s, worst));
        }
    }
    out.write_table(&table)?;

    // 14b: Pi's pool over time at its middle deadline, first seed.
    let mut choices = Table::new(
        format!("{NAME}_pi_choices"),
        "Pi: volunteers in the pool per minute at the middle deadline (Fig. 14b)",
        ["strategy", "minute", "volunteers"],
    );
    let mut plot = LinePlot::new("pi_choices", "Pi: pool size over time (Fig. 14b)")
        .x_label("minute")
        .y_label("volunteers");
    if let Some(&(_, _, d)) = deadlines
        .iter()
        .find(|x| x.0 == JobProfile::Pi && x.1 == 0.5)
    {
        for (name, st) in [
            ("rhic", Approach::RHIC),
            ("fuzzy S=50%", approaches[1].1[1]),
            ("threshold 0.5", approaches[2].1[1]),
        ] {
            if let Some((_, o)) = runs.iter().find(|(c, _)| {
                c.job.profile == JobProfile::Pi
                    && c.config.goal == Goal::Deadline(d)
                    && c.approach == st
                    && Some(&c.config.seed) == seeds.first()
            }) {
                let pts: Vec<(f64, f64)> = o
                    .trace
                    .iter()
                    .map(|s| (s.at.0 as f64 / 60.0, s.in_pool as f64))
                    .collect();
                for &(m, v) in &pts {
                    choices.row([Cell::from(name), Cell::fixed(m, 0), Cell::fixed(v, 0)]);
                }
                plot = plot.series(name, pts);
            }
        }
        plot = plot.series(
            "deadline",
            [(d.0 as f64 / 60.0, 0.0), (d.0 as f64 / 60.0, 36.0)],
        );
    }
    out.write_table(&choices)?;
    out.write_plot(&plot)?;

    let mut claims = Claims::new("rhic");
    let rhic: Vec<_> = spread.iter().filter(|s| s.1 == "rhic").collect();
    let outside: Vec<String> = rhic
        .iter()
        .filter_map(|s| {
            let m = s.2?.mean;
            ((m - 1.0).abs() > 0.04).then(|| {
                format!(
                    "{} {:.1} % {} (straggler padding {:.0} s: {STRAGGLER_PADDING_TASKS} of its \
                     {:.0} s tasks)",
                    s.0.name(),
                    100.0 * (m - 1.0).abs(),
                    if m < 1.0 { "early" } else { "late" },
                    STRAGGLER_PADDING_TASKS * s.0.task_s(),
                    s.0.task_s()
                )
            })
        })
        .collect();
    let check = claims.check(
        "§5.3, Fig. 14a",
        "RHIC finishes close to the deadline (within 4 % on average)",
        rhic.iter()
            .map(|s| format!("{} {}", s.0.name(), show_with(s.2, 3)))
            .collect::<Vec<_>>()
            .join("; "),
        "within 4 %",
        outside.is_empty(),
    );
    if !outside.is_empty() {
        check.because(format!(
            "mean finish / deadline outside 4 % for {}; RHIC's deadline score prefers an early \
             finish (§4.3)",
            outside.join(", ")
        ));
    }
    let sd = |name: &str| {
        spread
            .iter()
            .filter(|s| s.1 == name)
            .map(|s| s.2.and_then(|x| x.sd).unwrap_or(0.0))
            .fold(0.0, f64::max)
    };
    claims.check(
        "§5.3, Fig. 14a",
        "FUZZY and Threshold vary much more than RHIC",
        format!(
            "largest sd: RHIC {:.3}, FUZZY {:.3}, Threshold {:.3}",
            sd("rhic"),
            sd("fuzzy"),
            sd("threshold")
        ),
        "higher variance",
        sd("rhic") < sd("fuzzy") && sd("rhic") < sd("threshold"),
    );
    out.write_claims(&claims)?;
    Ok(())
}
