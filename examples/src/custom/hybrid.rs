//! A custom policy on the hybrid protocol (Fan et al., IPDPS 2022), written through
//! `cosched-hybrid`'s public items only: **idle-or-shrink**. An on-demand job starts on the
//! idle nodes if they suffice; otherwise it shrinks running malleable jobs (each to its
//! smallest size, oldest first) until it fits, and never preempts; if even that is not enough
//! it queues like a batch job. It runs in the crate's simulator on the Theta-like workload
//! beside the baseline and CUA&SPAA.

use cosched_core::Time;
use cosched_core::policy::Policy;
use cosched_hybrid::mechanism::RunningKind;
use cosched_hybrid::policy::{BatchPass, Command, Observation, PlatformView};
use cosched_hybrid::scenario::{self, Machine};
use cosched_hybrid::workload::{TypeParams, assign_types};
use cosched_hybrid::{Composite, HybridConfig, HybridError, HybridReport, HybridSim};
use std::fmt::Write;

/// Shrinks malleable jobs rather than preempt anything; see the [module docs](self).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct IdleOrShrink;

impl Policy for IdleOrShrink {
    type Observation = Observation;
    type Command = Command;
    type View = dyn PlatformView;
    type Error = HybridError;

    fn observe(
        &mut self,
        now: Time,
        obs: &Observation,
        view: &dyn PlatformView,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        match *obs {
            Observation::Arrival { job, size } => {
                let idle = view.idle_count();
                let mut freed = 0;
                let mut shrinks = Vec::new();
                for running in view.running(now) {
                    if idle + freed >= size {
                        break;
                    }
                    if let RunningKind::Malleable { min_size, .. } = running.view.kind
                        && running.view.size > min_size
                    {
                        freed += running.view.size - min_size;
                        shrinks.push(Command::Resize {
                            job: running.view.id,
                            to: min_size,
                        });
                    }
                }
                if idle + freed >= size {
                    out.extend(shrinks);
                    out.push(Command::AssignIdle { job, count: size });
                    out.push(Command::StartOnDemand { job });
                } else {
                    out.push(Command::Submit { job });
                }
            }
            // One pass per instant, in the first settle round: malleable jobs start at the
            // size that fits (and so may be shrunk).
            Observation::Settle { round: 0 } => {
                out.push(Command::Schedule(BatchPass::Site {
                    resize_malleable: true,
                }));
            }
            _ => {}
        }
        Ok(())
    }
}

/// Runs idle-or-shrink, the baseline and CUA&SPAA on one Theta-like trace (3,000 jobs quick,
/// 10,000 otherwise) and returns their metrics as a Markdown table.
pub fn demo(quick: bool) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let trace = Machine::Theta.generate(true, 1)?;
    let jobs = if quick { 1_000 } else { trace.len() };
    let jobs = assign_types(&trace[..jobs.min(trace.len())], &TypeParams::default(), 1)?;
    let config = HybridConfig::new(Machine::Theta.nodes())?;
    let ours = HybridSim::new(config.clone())?
        .with_label("idle-or-shrink (custom)")
        .run(&mut IdleOrShrink, &jobs)?
        .report;
    let baseline = scenario::simulate(config.clone(), None, &jobs)?.report;
    let cua_spaa = scenario::simulate(config, Some(Composite::ALL[3]), &jobs)?.report;
    let mut table = String::from(
        "| policy | on-demand instant start (%) | turnaround (h) | rigid preempted (%) | malleable preempted (%) | utilisation (%) |\n|---|---|---|---|---|---|\n",
    );
    for r in [&ours, &baseline, &cua_spaa] {
        row(&mut table, r)?;
    }
    Ok(table)
}

fn row(table: &mut String, r: &HybridReport) -> std::fmt::Result {
    writeln!(
        table,
        "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
        r.mechanism,
        100.0 * r.instant_start_ratio,
        r.turnaround_h,
        100.0 * r.rigid_preempted_ratio,
        100.0 * r.malleable_preempted_ratio,
        100.0 * r.utilization
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_custom_policy_runs_beside_the_built_ins() {
        let table = super::demo(true).unwrap();
        assert_eq!(table.lines().count(), 5, "{table}");
        assert!(table.contains("idle-or-shrink (custom)"));
        assert!(table.contains("| baseline |"));
        assert!(!table.contains("NaN"));
    }
}
