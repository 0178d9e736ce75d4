//! The one place the CLI touches cosched-batch's scheduler API: a policy chosen by name, and
//! one simulation of it on a workload. Everything else (`simulate`, `experiment`, the outputs)
//! works on [`PolicyChoice`] and [`cosched_batch::SimOutcome`] only, so a change of how batch
//! names and builds its policies is a change of this module alone.

use cosched_batch::catalogue::PolicySpec;
use cosched_batch::{BatchError, BatchSim, SimOutcome};
use cosched_core::RigidJob;
use serde::Deserialize;
use std::fmt;

/// A batch policy of the catalogue chosen by name (`ORDER[+RULE][@ESTIMATES]`, see
/// [`cosched_batch::catalogue`]), with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyChoice {
    spec: PolicySpec,
    name: String,
}

impl PolicyChoice {
    /// The policy named `name` (case-insensitive), or an error listing the catalogue.
    pub fn parse(name: &str) -> Result<PolicyChoice, String> {
        let spec: PolicySpec = name.trim().parse().map_err(|e| format!("{e}"))?;
        Ok(PolicyChoice {
            name: spec.to_string(),
            spec,
        })
    }

    /// The policy's name, as parsed (canonical: `easy`, `sjf+easy`, ...).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name as a file name (`easy_jobs.csv`): characters other than letters, digits and
    /// `+ - = , . ( )` become `_` ([`crate::output::file_name`]).
    pub fn file_stem(&self) -> String {
        crate::output::file_name(&self.name, "+-=,.()")
    }

    /// The policy's parameters as `(name, value)` pairs for the report.
    pub fn parameters(&self) -> Vec<(&'static str, String)> {
        vec![
            ("order", self.spec.order.to_string()),
            ("backfill", self.spec.backfill.to_string()),
            ("estimates", self.spec.estimates.to_string()),
        ]
    }

    /// Simulates `jobs` on `capacity` units under this policy (with its estimates), calling
    /// `progress(arrived, total)` now and then; `reader_invalid` records skipped by the trace
    /// reader are added to the report's invalid count.
    pub fn simulate(
        &self,
        capacity: u32,
        jobs: &[RigidJob],
        reader_invalid: usize,
        progress: impl FnMut(usize, usize),
    ) -> Result<SimOutcome, BatchError> {
        let jobs = self.spec.estimates.apply(jobs)?;
        let mut outcome =
            BatchSim::new(capacity)?.run_with_progress(&mut self.spec.build(), &jobs, progress)?;
        outcome.report.invalid += reader_invalid;
        Ok(outcome)
    }
}

impl fmt::Display for PolicyChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A comma-separated list of policies (commas inside parentheses belong to a policy).
#[derive(Clone, Debug)]
pub struct PolicyList(pub Vec<PolicyChoice>);

impl PolicyList {
    /// The policies of `list`.
    pub fn parse(list: &str) -> Result<PolicyList, String> {
        let mut out = Vec::new();
        let (mut depth, mut from) = (0i64, 0);
        for (i, c) in list.char_indices().chain([(list.len(), ',')]) {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(PolicyChoice::parse(&list[from..i])?);
                    from = i + 1;
                }
                _ => {}
            }
        }
        Ok(PolicyList(out))
    }
}

/// A sweep of an experiment file (`[[sweep]]`): every order × backfilling × estimates named.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// Orders (`["sjf", "wfp3"]`) [default: fcfs].
    #[serde(default)]
    orders: Vec<String>,
    /// Backfilling rules with their parameters (`["easy", "bounded(depth=50)",
    /// "bounded(depth=500)"]`) [default: easy].
    #[serde(default)]
    backfill: Vec<String>,
    /// Estimate sources (`["requests", "exact"]`) [default: requests].
    #[serde(default)]
    estimates: Vec<String>,
}

impl Sweep {
    /// The policies the sweep names, in order.
    pub fn policies(&self) -> Result<Vec<PolicyChoice>, String> {
        let or = |v: &[String], d: &str| {
            if v.is_empty() {
                vec![d.to_string()]
            } else {
                v.to_vec()
            }
        };
        let mut out = Vec::new();
        for order in or(&self.orders, "fcfs") {
            for rule in or(&self.backfill, "easy") {
                for estimates in or(&self.estimates, "requests") {
                    out.push(PolicyChoice::parse(&format!("{order}+{rule}@{estimates}"))?);
                }
            }
        }
        Ok(out)
    }
}

/// The policies of a list, refusing one given twice (each policy's files would overwrite
/// each other's).
pub fn distinct(list: &[PolicyChoice]) -> Result<Vec<PolicyChoice>, String> {
    let mut out: Vec<PolicyChoice> = Vec::with_capacity(list.len());
    for policy in list {
        if out.contains(policy) {
            return Err(format!("policy `{policy}` is given twice"));
        }
        if let Some(other) = out.iter().find(|p| p.file_stem() == policy.file_stem()) {
            return Err(format!(
                "policies `{other}` and `{policy}` would write the same files ({})",
                policy.file_stem()
            ));
        }
        out.push(policy.clone());
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
        let names: Vec<_> = distinct(&list)
            .unwrap()
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(names, ["easy", "fcfs", "conservative"]);
        assert!(
            distinct(&parse(&["easy", "easy"]).unwrap())
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse(&["lottery"]).unwrap_err().contains("lottery"));
        assert!(distinct(&[]).is_err());
        // The catalogue's names, canonical.
        let list = parse(&["SJF+Easy", "wfp3+bounded(depth=50,window=1h)@exact"]).unwrap();
        let names: Vec<_> = list.iter().map(|p| p.name().to_string()).collect();
        assert_eq!(
            names,
            ["sjf+easy", "wfp3+bounded(depth=50,window=1h)@exact"]
        );
        // Expressions with a slash write safe file names, and clashes are refused.
        let a = PolicyChoice::parse("expr(estimate/size)+easy").unwrap();
        assert_eq!(a.file_stem(), "expr(estimate_size)+easy");
        let b = PolicyChoice::parse("expr(estimate*size)+easy").unwrap();
        assert!(distinct(&[a, b]).unwrap_err().contains("same files"));
        let list = PolicyList::parse("easy,sjf+bounded(depth=5,window=1h),f1").unwrap();
        assert_eq!(list.0.len(), 3);
        let sweep: Sweep = toml::from_str(
            "orders = [\"sjf\", \"f1\"]\nbackfill = [\"easy\", \"bounded(depth=5)\"]",
        )
        .unwrap();
        let names: Vec<_> = sweep
            .policies()
            .unwrap()
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "sjf+easy",
                "sjf+bounded(depth=5,window=1d)",
                "f1+easy",
                "f1+bounded(depth=5,window=1d)"
            ]
        );
    }
}
