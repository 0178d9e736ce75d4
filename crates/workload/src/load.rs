//! Offered load, and rescaling a workload's arrivals to a target offered load.
//!
//! The offered load of a workload on a machine of `P` units is the work it brings per unit
//! of machine time over its submission span,
//!
//! ```text
//!            sum(size_i × min(runtime_i, estimate_i))
//! load = ------------------------------------------------
//!         P × (last submit - first submit)
//! ```
//!
//! the `load = sum(ri * ni) / (P * max(ai))` of `m_lublin99.c`'s header comment, with the
//! run time a simulator executes (a job is killed at its estimate). The usual way to sweep
//! load with a synthetic workload, as Lublin and Feitelson suggest, is to keep sizes and
//! runtimes and stretch or compress the inter-arrival times: [`scale_to_offered_load`]
//! multiplies every submit offset from the first submit by one factor. (Rescaled arrivals no
//! longer line up with the model's time of day; the daily cycle's *shape* is stretched
//! along.)
//!
//! ```
//! use cosched_workload::{load, lublin::LublinModel};
//! let mut jobs = LublinModel::new(256).unwrap().generate(10_000, 3);
//! load::scale_to_offered_load(&mut jobs, 256, 0.7).unwrap();
//! assert!((load::offered_load(&jobs, 256) - 0.7).abs() < 1e-6);
//! ```

use cosched_core::{ParamError, RigidJob, Time};

/// The offered load of `jobs` on a machine of `capacity` units (see the module docs).
///
/// The span runs from the earliest to the latest submit time, so `jobs` need not be sorted.
/// An empty workload has load 0; a workload whose jobs all arrive at once, or a machine of
/// 0 units, has infinite load (unless the work is 0).
pub fn offered_load(jobs: &[RigidJob], capacity: u32) -> f64 {
    let mut tally = LoadTally::default();
    jobs.iter().for_each(|j| tally.add(j));
    tally.offered_load(capacity)
}

/// Rescales submit times so that [`offered_load`] becomes `target`: every submit time `s`
/// becomes `first + round((s - first) × f)` with `f = current load / target`, keeping the
/// jobs' order (rounding is monotone; jobs may come to share a second).
///
/// **Tolerance.** Submit times are whole seconds, so the new span is `round(S)`, the integer
/// nearest to the exact span `S = work / (capacity × target)`; the achieved load
/// `target × S / round(S)` is within a relative `0.5 / round(S)` of `target` (below 1e-5
/// for any span over 14 hours), and no integer span does better.
///
/// Errors when `target` is not finite and positive, `capacity` is 0, the workload has no
/// work or a zero span (nothing to scale), or the target is so high that the whole workload
/// would have to arrive within the same second, or so low that times overflow.
pub fn scale_to_offered_load(
    jobs: &mut [RigidJob],
    capacity: u32,
    target: f64,
) -> Result<(), ParamError> {
    let mut tally = LoadTally::default();
    jobs.iter().for_each(|j| tally.add(j));
    let scaling = tally.scaling(capacity, target)?;
    for job in jobs.iter_mut() {
        job.submit = scaling.apply(job.submit);
    }
    Ok(())
}

/// The work and submission span of a workload, accumulated job by job, so that a stream
/// too long to hold (`cosched generate --load`) can be scaled in two passes: tally, then
/// [`LoadScaling::apply`] to each job of a second identical pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadTally {
    work: f64,
    jobs: usize,
    span: Option<(Time, Time)>,
}

impl LoadTally {
    /// Counts one job.
    pub fn add(&mut self, job: &RigidJob) {
        self.work += f64::from(job.size) * job.simulated_runtime().0.max(0) as f64;
        self.jobs += 1;
        self.span = Some(match self.span {
            None => (job.submit, job.submit),
            Some((a, b)) => (a.min(job.submit), b.max(job.submit)),
        });
    }

    /// The offered load of the jobs counted (see [`offered_load`]).
    pub fn offered_load(&self, capacity: u32) -> f64 {
        if self.work == 0.0 {
            return 0.0;
        }
        let span = self
            .span
            .map_or(0.0, |(first, last)| seconds_between(first, last));
        self.work / (f64::from(capacity) * span)
    }

    /// The rescaling of submit times that brings the load to `target` (rules and errors of
    /// [`scale_to_offered_load`]).
    pub fn scaling(&self, capacity: u32, target: f64) -> Result<LoadScaling, ParamError> {
        ParamError::check(
            target.is_finite() && target > 0.0,
            "target",
            target,
            "must be finite and > 0",
        )?;
        ParamError::check(
            capacity >= 1,
            "capacity",
            capacity,
            "a machine needs >= 1 unit",
        )?;
        ParamError::check(
            self.work > 0.0,
            "jobs",
            self.jobs,
            "a workload without work has no load to scale",
        )?;
        let (first, last) = match self.span {
            Some((first, last)) if last > first => (first, last),
            _ => {
                return Err(ParamError::new(
                    "jobs",
                    self.jobs,
                    "submit times span zero seconds: inter-arrival times cannot be scaled",
                ));
            }
        };
        let old_span = seconds_between(first, last);
        let new_span = self.work / (f64::from(capacity) * target);
        ParamError::check(
            new_span.round() >= 1.0,
            "target",
            target,
            "so high that all jobs would arrive within one second",
        )?;
        ParamError::check(
            first.0 as f64 + new_span < 2f64.powi(62),
            "target",
            target,
            "so low that submit times would overflow",
        )?;
        Ok(LoadScaling {
            first,
            factor: new_span / old_span,
        })
    }
}

/// A rescaling of submit offsets from the first submit ([`LoadTally::scaling`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadScaling {
    first: Time,
    factor: f64,
}

impl LoadScaling {
    /// The submit time `submit` becomes: `first + round((submit - first) × factor)`.
    pub fn apply(&self, submit: Time) -> Time {
        let offset = seconds_between(self.first, submit);
        Time(self.first.0 + (offset * self.factor).round() as i64)
    }
}

/// `to - from` in seconds, exact in `i128` (any two `i64` times, no overflow) then rounded.
fn seconds_between(from: Time, to: Time) -> f64 {
    (i128::from(to.0) - i128::from(from.0)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lublin::LublinModel;
    use cosched_core::{Duration, JobId};
    use proptest::prelude::*;

    fn job(id: u64, submit: i64, size: u32, runtime: i64, estimate: i64) -> RigidJob {
        RigidJob::new(
            JobId(id),
            Time(submit),
            size,
            Duration(runtime),
            Duration(estimate),
        )
        .unwrap()
    }

    /// Hostile input: submit times at both ends of `i64` neither panic nor wrap.
    #[test]
    fn extreme_submit_times_do_not_overflow() {
        let mut jobs = vec![
            job(1, i64::MIN + 1, 1, 10, 10),
            job(2, i64::MAX - 1, 1, 10, 10),
        ];
        let load = offered_load(&jobs, 4);
        assert!(load > 0.0 && load < 1e-15, "{load}");
        // Scaling up the load shrinks the span: fine; every submit stays in order.
        scale_to_offered_load(&mut jobs, 4, 1e-12).unwrap();
        assert!(jobs[0].submit < jobs[1].submit);
    }

    #[test]
    fn offered_load_uses_the_simulated_runtime() {
        // work = 2 × 100 + 4 × min(300, 200) = 1000 unit-s over 100 s on 10 units
        let jobs = [job(1, 50, 2, 100, 120), job(2, 150, 4, 300, 200)];
        assert!((offered_load(&jobs, 10) - 1.0).abs() < 1e-12);
        assert_eq!(offered_load(&[], 10), 0.0);
        assert_eq!(offered_load(&jobs[..1], 10), f64::INFINITY);
    }

    #[test]
    fn scaling_keeps_order_and_first_submit() {
        let mut jobs = [
            job(1, 50, 2, 100, 120),
            job(2, 150, 4, 300, 200),
            job(3, 151, 1, 10, 10),
        ];
        scale_to_offered_load(&mut jobs, 10, 0.5).unwrap();
        let submits: Vec<i64> = jobs.iter().map(|j| j.submit.0).collect();
        // work 1010 over span 101 at 0.5 on 10 units: new span 202, factor 2
        assert_eq!(submits, vec![50, 250, 252]);
        assert!((offered_load(&jobs, 10) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn impossible_scalings_are_rejected() {
        let mut jobs = [job(1, 0, 1, 10, 10), job(2, 100, 1, 10, 10)];
        assert!(scale_to_offered_load(&mut jobs, 1, 0.0).is_err());
        assert!(scale_to_offered_load(&mut jobs, 1, f64::NAN).is_err());
        assert!(scale_to_offered_load(&mut jobs, 0, 0.5).is_err());
        assert!(scale_to_offered_load(&mut jobs, 1, 1e6).is_err()); // 20 unit-s in < 1 s
        assert!(scale_to_offered_load(&mut jobs, 1, 1e-300).is_err());
        assert!(scale_to_offered_load(&mut jobs[..1], 1, 0.5).is_err());
        assert!(scale_to_offered_load(&mut [], 1, 0.5).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn scaling_hits_the_target_within_the_rounding_bound(
            capacity in 1u32..=4_096,
            target in 0.05f64..2.0,
            n in 2usize..2_000,
            seed: u64,
        ) {
            let mut jobs = LublinModel::new(capacity).unwrap().generate(n, seed);
            let before: Vec<u64> = jobs.iter().map(|j| j.id.0).collect();
            let first = jobs[0].submit;
            let work: f64 = jobs
                .iter()
                .map(|j| f64::from(j.size) * j.simulated_runtime().0 as f64)
                .sum();
            let result = scale_to_offered_load(&mut jobs, capacity, target);
            let exact_span = work / (f64::from(capacity) * target);
            if jobs.iter().all(|j| j.submit == first) || exact_span.round() < 1.0 {
                prop_assert!(result.is_err());
            } else {
                prop_assert!(result.is_ok());
                let load = offered_load(&jobs, capacity);
                prop_assert!((load / target - 1.0).abs() <= 0.5 / exact_span.round() + 1e-9,
                    "load {} target {} span {}", load, target, exact_span);
                prop_assert_eq!(jobs[0].submit, first);
                prop_assert!(jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
                prop_assert_eq!(jobs.iter().map(|j| j.id.0).collect::<Vec<_>>(), before);
            }
        }
    }
}
