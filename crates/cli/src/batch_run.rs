//! The one place the CLI touches cosched-batch's scheduler API: a policy chosen by name, and
//! one simulation of it on a workload. Everything else (`simulate`, `experiment`, the outputs)
//! works on [`PolicyChoice`] and [`cosched_batch::SimOutcome`] only, so a change of how batch
//! names and builds its policies is a change of this module alone.

use cosched_batch::scenario::BuiltinPolicy;
use cosched_batch::{BatchError, BatchSim, SimOutcome};
use cosched_core::RigidJob;
use std::fmt;

/// A batch policy chosen by name, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyChoice(BuiltinPolicy);

impl PolicyChoice {
    /// The policy named `name` (case-insensitive), or an error listing the names.
    pub fn parse(name: &str) -> Result<PolicyChoice, String> {
        name.trim()
            .parse::<BuiltinPolicy>()
            .map(PolicyChoice)
            .map_err(|e| e.to_string())
    }

    /// The policy's name, as parsed and as used in file names (`easy_jobs.csv`).
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The policy's parameters as `(name, value)` pairs for the report (the built-in batch
    /// policies have none beyond their name).
    pub fn parameters(self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Simulates `jobs` on `capacity` units under this policy, calling `progress(arrived,
    /// total)` now and then; `reader_invalid` records skipped by the trace reader are added to
    /// the report's invalid count.
    pub fn simulate(
        self,
        capacity: u32,
        jobs: &[RigidJob],
        reader_invalid: usize,
        progress: impl FnMut(usize, usize),
    ) -> Result<SimOutcome, BatchError> {
        let mut outcome =
            BatchSim::new(capacity)?.run_with_progress(&mut self.0.build(), jobs, progress)?;
        outcome.report.invalid += reader_invalid;
        Ok(outcome)
    }
}

impl fmt::Display for PolicyChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The policies of a list, refusing one given twice (each policy's files would overwrite
/// each other's).
pub fn distinct(list: &[PolicyChoice]) -> Result<Vec<PolicyChoice>, String> {
    let mut out: Vec<PolicyChoice> = Vec::with_capacity(list.len());
    for &policy in list {
        if out.contains(&policy) {
            return Err(format!("policy `{policy}` is given twice"));
        }
        out.push(policy);
    }
    if out.is_empty() {
        return Err("no policy given".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_repeats_are_refused() {
        let parse = |names: &[&str]| -> Result<Vec<PolicyChoice>, String> {
            names.iter().map(|n| PolicyChoice::parse(n)).collect()
        };
        let list = parse(&["easy", "FCFS", " conservative"]).unwrap();
        let names: Vec<_> = distinct(&list).unwrap().iter().map(|p| p.name()).collect();
        assert_eq!(names, ["easy", "fcfs", "conservative"]);
        assert!(
            distinct(&parse(&["easy", "easy"]).unwrap())
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse(&["lottery"]).unwrap_err().contains("lottery"));
        assert!(distinct(&[]).is_err());
    }
}
