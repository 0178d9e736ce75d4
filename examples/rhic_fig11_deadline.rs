//! RHIC (Clay, Shen, Ma, Gu), Figure 11: the deadline goal — three deadlines per Hadoop job,
//! whether RHIC meets them and by what margin, on 6 dedicated + up to 36 volunteers.
//!
//! Workload: our simulated cloud ([`cosched_examples::rhic`]). The deadlines (ours: the paper's
//! own values are not in the issue) lie between the job's time on all 36 volunteers
//! (`T_36`, measured on the same seeds) and its time on the dedicated nodes alone (`T_0`):
//! `T_36 + f · (T_0 − T_36)` for `f` = 0.2, 0.5, 0.8.

use cosched_core::Time;
use cosched_examples::rhic::{RhicArgs, assumptions, config, job_chart, mean, run_all};
use cosched_examples::{Cell, Table};
use cosched_rhic::Goal;
use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::Strategy;

const NAME: &str = "rhic_fig11_deadline";
const FRACTIONS: [f64; 3] = [0.2, 0.5, 0.8];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 11: meeting deadlines");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(5);
    let profiles = args.jobs(&[JobProfile::Wordcount, JobProfile::Pi]);
    let any_goal = Goal::Deadline(Time(0));
    let extremes: Vec<_> = profiles
        .iter()
        .flat_map(|&p| {
            seeds.iter().flat_map(move |&s| {
                [0, 36].map(|k| config(p, 6, 36, any_goal, Strategy::Fixed(k), quick, s))
            })
        })
        .collect();
    let extremes = run_all(NAME, extremes)?;
    let time_at = |p: JobProfile, k: usize| {
        mean(
            extremes
                .iter()
                .filter(|(c, _)| c.profile == p && c.strategy == Strategy::Fixed(k))
                .map(|(_, o)| o.completion.0 as f64),
        )
    };
    let deadlines: Vec<(JobProfile, f64, i64)> = profiles
        .iter()
        .flat_map(|&p| {
            let (t0, t36) = (time_at(p, 0), time_at(p, 36));
            FRACTIONS.map(|f| (p, f, (t36 + f * (t0 - t36)).round() as i64))
        })
        .collect();
    let configs = deadlines
        .iter()
        .flat_map(|&(p, _, d)| {
            seeds
                .iter()
                .map(move |&s| config(p, 6, 36, Goal::Deadline(Time(d)), Strategy::Rhic, quick, s))
        })
        .collect();
    let runs = run_all(NAME, configs)?;

    let mut table = Table::new(
        NAME,
        "RHIC under the deadline goal: three deadlines per job",
        [
            "job",
            "f",
            "deadline (s)",
            "met",
            "mean finish (s)",
            "margin (%)",
            "worst miss (%)",
            "mean volunteers",
        ],
    )
    .with_notes(format!(
        "Deadline = T_36 + f · (T_0 − T_36) (ours). Margin = (deadline − finish) / deadline, \
         mean over seeds {seeds:?} (positive: early); worst miss = the largest lateness as a \
         share of the deadline (0 when all are met). Paper (the issue's summary of Fig. 11): \
         deadlines met within a few percent. {}",
        assumptions()
    ));
    let mut margins = Vec::new();
    for &(p, f, d) in &deadlines {
        let these: Vec<_> = runs
            .iter()
            .filter(|(c, _)| c.profile == p && c.goal == Goal::Deadline(Time(d)))
            .map(|(_, o)| o)
            .collect();
        let met = these
            .iter()
            .filter(|o| o.deadline_met == Some(true))
            .count();
        let finish = mean(these.iter().map(|o| o.completion.0 as f64));
        let margin = mean(
            these
                .iter()
                .map(|o| 100.0 * (d - o.completion.0) as f64 / d as f64),
        );
        let worst_miss = these
            .iter()
            .map(|o| 100.0 * (o.completion.0 - d) as f64 / d as f64)
            .fold(0.0, f64::max);
        margins.push(margin);
        table.row([
            Cell::from(p.name()),
            Cell::fixed(f, 1),
            Cell::from(Some(d as u64)),
            Cell::Text(format!("{met} / {}", these.len())),
            Cell::fixed(finish, 0),
            Cell::fixed(margin, 1),
            Cell::fixed(worst_miss, 1),
            Cell::fixed(mean(these.iter().map(|o| o.mean_volunteers)), 1),
        ]);
    }
    out.write_table(&table)?;
    let series = FRACTIONS.iter().enumerate().map(|(i, f)| {
        let by_job = (0..profiles.len()).map(|j| margins[j * FRACTIONS.len() + i]);
        (format!("f = {f:.1}"), by_job.collect())
    });
    out.write_plot(&job_chart(
        "margin",
        "Deadline margin, % of the deadline (Fig. 11)",
        "margin (%)",
        &profiles,
        series,
    ))?;
    Ok(())
}
