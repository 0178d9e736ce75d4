//! A batch policy written outside `cosched-batch`: shortest estimate first (start the waiting
//! jobs in increasing estimate, then queue order, while they fit; a job that does not fit is
//! passed over), run in `BatchSim` beside the built-in EASY on the crate's default workload
//! (Lublin–Feitelson on 256 units with Tsafrir estimates, offered load 0.9, as
//! `batch_easy_vs_fcfs`).

use cosched_batch::{BatchCluster, BatchCommand, BatchSim, Pass, SchedulingPass, SimOutcome};
use cosched_core::policy::Policy;
use cosched_core::{Duration, Time};
use cosched_workload::{LublinModel, TsafrirEstimates, scale_to_offered_load};

/// Shortest estimate first: no reservation, so a long wide job may wait long.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct ShortestFirst;

impl Policy for ShortestFirst {
    type Observation = SchedulingPass;
    type Command = BatchCommand;
    type View = BatchCluster;
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        now: Time,
        _: &SchedulingPass,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> Result<(), Self::Error> {
        let mut pass = Pass::new(now, view, out);
        let mut waiting = Vec::new();
        let mut pos = 0;
        while let Some(p) = pass.next_queued(pos) {
            waiting.extend(pass.job(p).map(|q| (q.estimate(), p)));
            pos = p + 1;
        }
        waiting.sort_unstable();
        for (_, p) in waiting {
            if pass.free_units() == 0 {
                break;
            }
            // A job that does not fit (or would end past the last second) is passed over.
            let _ = pass.start(p);
        }
        Ok(())
    }
}

const CAPACITY: u32 = 256;
const LOAD: f64 = 0.9;

/// Runs shortest-first and EASY on the same workload and tabulates what `cosched simulate`
/// reports for each.
pub fn demo(quick: bool) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let n_jobs = if quick { 2_000 } else { 20_000 };
    let mut jobs = LublinModel::typeless(CAPACITY)?.generate(n_jobs, 1);
    TsafrirEstimates::new(Duration::from_hours(36))?.assign(&mut jobs, 1);
    scale_to_offered_load(&mut jobs, CAPACITY, LOAD)?;
    let ours = BatchSim::new(CAPACITY)?.run(&mut ShortestFirst, &jobs)?;
    let easy = BatchSim::new(CAPACITY)?.run(&mut cosched_batch::scenario::easy(), &jobs)?;
    let mut table = format!(
        "{n_jobs} Lublin–Feitelson jobs on {CAPACITY} units at offered load {LOAD}\n\n\
         | policy | completed | mean wait (s) | mean bounded slowdown | utilization |\n\
         |---|---:|---:|---:|---:|\n"
    );
    for (name, out) in [
        ("shortest first (custom)", &ours),
        ("EASY (built-in)", &easy),
    ] {
        table.push_str(&row(name, out));
    }
    Ok(table)
}

fn row(name: &str, out: &SimOutcome) -> String {
    let r = &out.report;
    format!(
        "| {name} | {} | {:.0} | {:.2} | {:.3} |\n",
        r.completed, r.overall.mean_wait_s, r.overall.mean_bounded_slowdown, r.utilization
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_custom_batch_policy_runs_beside_easy() {
        let table = super::demo(true).unwrap();
        assert!(
            table.contains("| shortest first (custom) | 2000 |"),
            "{table}"
        );
        assert!(table.contains("| EASY (built-in) | 2000 |"), "{table}");
        assert!(!table.contains("NaN"), "{table}");
    }
}
