//! Snapshot of a small deterministic scenario: Grep (I/O-bound) on 2 dedicated nodes beside 8
//! interactive ones, RHIC under the cost goal, seed 5 — its report, with the pool over time.

use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::{BackgroundJob, RhicSim, SimConfig};
use cosched_rhic::{CostModel, Goal, scenario};
use std::fmt::Write;

#[test]
fn small_scenario_report() {
    let mut c = SimConfig::new(Goal::Cost(CostModel::default()));
    let mut job = BackgroundJob::new(JobProfile::Grep);
    job.dedicated = 2;
    job.work = 32.0 * 1200.0;
    c.env.interactive_nodes = 8;
    c.seed = 5;
    let mut rhic = scenario::rhic(&c, &job).expect("valid config");
    let o = RhicSim::new(c)
        .expect("valid config")
        .run(&mut rhic, &job)
        .expect("valid config");
    let mut report = format!(
        "finished {} in {} s\ncost ${:.6} (dedicated {} x {} s, volunteers {:?})\n\
         energy {:.1} J (dedicated {:.1} J)\nmean volunteers {:.4}, joins {}\n",
        o.finished,
        o.completion.0,
        o.bill.total.usd(),
        o.bill.dedicated.len(),
        o.completion.0,
        o.volunteer_s
            .iter()
            .map(|&(n, s)| (n.0, s))
            .collect::<Vec<_>>(),
        o.energy_j,
        o.dedicated_j,
        o.mean_volunteers,
        o.joins,
    );
    for t in &o.trace {
        writeln!(
            report,
            "t={:>5} pool={:>2} available={:>2} completed={:.1}",
            t.at.0, t.in_pool, t.available, t.completed
        )
        .expect("write to a String");
    }
    insta::assert_snapshot!(report);
}
