//! A custom policy of the Albatross protocol, written here through `cosched_albatross`'s
//! public items only, run in its simulator on the paper's pool and workload (§V) beside the
//! built-in Albatross policy at capital 0.25 and the no-Albatross baseline.

use cosched_albatross::policy::{Capital, CloudNodeState, Command, Observation, WaitingJobs};
use cosched_albatross::scenario::{self, Run};
use cosched_albatross::sim::SimConfig;
use cosched_albatross::workload::WorkloadModel;
use cosched_core::policy::Policy;
use cosched_core::{Duration, Time};
use std::fmt::Write as _;

/// Scales on queue depth instead of a stall timer: when more than `depth` jobs wait and no
/// cloud node is booting, start one t2.micro (found by name among the instance types the
/// observation says the cloud offers) for `lifetime`; stop idle cloud nodes as soon as the
/// queue is empty.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct QueueDepth {
    /// Waiting jobs that trigger a start.
    pub depth: usize,
    /// Most cloud nodes alive at once.
    pub max_nodes: usize,
    /// How long each node stays after joining the pool.
    pub lifetime: Duration,
}

impl Policy for QueueDepth {
    type Observation = Observation;
    type Command = Command;
    type View = WaitingJobs;
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        _now: Time,
        obs: &Observation,
        waiting: &WaitingJobs,
        out: &mut Vec<Command>,
    ) -> Result<(), Self::Error> {
        if waiting.is_empty() {
            out.extend(
                obs.cloud_nodes
                    .iter()
                    .filter(|n| n.state == CloudNodeState::Idle)
                    .map(|n| Command::Stop { node: n.node }),
            );
            return Ok(());
        }
        let booting = obs
            .cloud_nodes
            .iter()
            .any(|n| n.state == CloudNodeState::Booting);
        let micro = obs.instance_types.iter().position(|t| t.name == "t2.micro");
        if let Some(instance) = micro
            && waiting.len() > self.depth
            && !booting
            && obs.cloud_nodes.len() < self.max_nodes
        {
            out.push(Command::Start {
                instance,
                count: 1,
                lifetime: self.lifetime,
            });
        }
        Ok(())
    }
}

/// Runs the custom policy, the paper's Albatross at capital 0.25 and the baseline on the
/// paper's pool (seed 1; 30,000 s when `quick`, else the paper's 100,000 s) and returns the
/// paper's metrics as a Markdown table.
///
/// # Errors
/// The simulator's.
pub fn demo(quick: bool) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let mut config = SimConfig::paper();
    if quick {
        config.horizon = Time(30_000);
    }
    let model = WorkloadModel::paper();
    let mut custom = QueueDepth {
        depth: 3,
        max_nodes: 1,
        lifetime: Duration::from_mins(15),
    };
    let runs: [(&str, Run); 3] = [
        (
            "custom: queue depth > 3 (ours)",
            scenario::run(&config, &model, 1, &mut custom)?,
        ),
        (
            "built-in: Albatross, capital 0.25",
            scenario::run(
                &config,
                &model,
                1,
                &mut scenario::albatross(Capital::new(0.25)?)?,
            )?,
        ),
        (
            "built-in: no Albatross",
            scenario::run(&config, &model, 1, &mut scenario::no_albatross())?,
        ),
    ];
    let mut table = format!(
        "Albatross protocol, paper's pool, {} s, seed 1\n\n\
         | policy | dispatched | completed | progress | mean run time (s) | sd (s) | cloud cost ($) |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
        config.horizon.secs()
    );
    let fmt = |x: f64, d: usize| {
        if x.is_finite() {
            format!("{x:.d$}")
        } else {
            "n/a (no completed job)".to_owned()
        }
    };
    for (name, r) in &runs {
        let _ = writeln!(
            table,
            "| {name} | {} | {} | {:.3} | {} | {} | {:.4} |",
            r.dispatched,
            r.completed,
            r.progress_at_end,
            fmt(r.mean_s, 1),
            fmt(r.sd_s, 1),
            r.cost_usd
        );
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_custom_policy_runs_beside_the_built_in_ones() {
        let table = super::demo(true).unwrap();
        assert_eq!(table.lines().filter(|l| l.starts_with("| ")).count(), 4);
        assert!(table.contains("custom: queue depth"));
    }
}
