//! A grid policy written outside `cosched-metasched`, through its public items only: each job
//! goes to the compatible site whose electricity is cheapest at the cycle's hour, with no wait
//! prediction at all (a price-greedy metascheduler). It runs in the crate's simulator on the
//! crate's default workload — the paper's vendored XSEDE sites, June 2014 prices and grid
//! trace — beside the built-in MCMF and BS, with the metrics the built-in policies report.

use cosched_core::policy::Policy;
use cosched_core::{Duration, Time};
use cosched_metasched::policy::{GridCommand, GridObservation, GridView, scaled_estimate};
use cosched_metasched::scenario::{RunResult, Scenario, Strategy};
use cosched_metasched::site::Site;
use cosched_metasched::workload::{paper_grid_trace, paper_xsede_sites};
use serde::{Deserialize, Serialize};

/// The error type the demo returns.
type DemoError = Box<dyn std::error::Error + Send + Sync>;

/// Sends each job to the compatible site with the lowest day-ahead price at the cycle's hour
/// (ties to the lower index); a job no site accepts is unassignable.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheapestNow {
    sites: Vec<Site>,
}

impl Policy for CheapestNow {
    type Observation = GridObservation;
    type Command = GridCommand;
    type View = dyn GridView;
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        now: Time,
        observation: &GridObservation,
        _: &Self::View,
        out: &mut Vec<GridCommand>,
    ) -> Result<(), Self::Error> {
        let GridObservation::Cycle { jobs } = observation else {
            return Ok(());
        };
        let hour = now.secs().div_euclid(3_600);
        let price = |k: usize| self.sites[k].price_usd_per_mwh(hour).unwrap_or(f64::MAX);
        for job in jobs {
            let best = (0..self.sites.len())
                .filter(|&k| {
                    scaled_estimate(&self.sites, job, k)
                        .is_some_and(|e| self.sites[k].accepts(job.cores, e))
                })
                .min_by(|&a, &b| price(a).total_cmp(&price(b)));
            out.push(match best {
                Some(site) => GridCommand::Place {
                    job: job.id,
                    site,
                    predicted_wait: None,
                },
                None => GridCommand::Unassignable { job: job.id },
            });
        }
        Ok(())
    }
}

/// Runs the custom policy beside MCMF and BS on the paper's inputs (quick: the trace's first
/// 600 jobs; else all 4,100), the last 100 measured, and returns the comparison table.
///
/// # Errors
/// The vendored inputs or a simulation failing.
pub fn demo(quick: bool) -> Result<String, DemoError> {
    let sites = paper_xsede_sites()?;
    let mut jobs = paper_grid_trace(sites.len())?;
    if quick {
        jobs.truncate(600);
    }
    let history = jobs.len().saturating_sub(100);
    let scenario = Scenario::new(sites.clone(), jobs, history, Duration(60));
    // The custom policy runs in the environment of an MCMF run: every measured job goes
    // through the metascheduler.
    let ours = scenario.run_policy(
        &scenario.config(Strategy::Mcmf, 1),
        &mut CheapestNow { sites },
    )?;
    let mcmf = scenario.run(&scenario.config(Strategy::Mcmf, 1))?;
    let bs = scenario.run(&scenario.config(Strategy::Bs, 1))?;
    let mut table = String::from(
        "| policy | jobs | migrated | mean response (min) | mean holding (min) | total cost ($) | cost per job ($) | bounded slowdown |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for (name, run) in [
        ("cheapest-now (custom)", &ours),
        ("MCMF (built-in)", &mcmf),
        ("BS (built-in)", &bs),
    ] {
        table.push_str(&row(name, run));
    }
    Ok(table)
}

fn row(name: &str, run: &RunResult) -> String {
    let m = &run.metrics;
    format!(
        "| {name} | {} | {} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} |\n",
        m.completed,
        m.migrated,
        m.mean_response_s / 60.0,
        m.mean_holding_s / 60.0,
        m.total_cost_usd,
        m.cost_per_job_usd,
        m.mean_bounded_slowdown,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_custom_policy_runs_beside_the_built_in_ones() {
        let table = demo(true).unwrap();
        assert_eq!(table.lines().count(), 5, "{table}");
        assert!(table.contains("cheapest-now (custom) | 100 |"), "{table}");
    }
}
