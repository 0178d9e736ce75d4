//! The wait predictor's accuracy on a single machine's trace, as the paper's Fig. 2 measures
//! it (§5.1.1): the trace's schedule is the one its log records ([`logged_runs`]: each job
//! starts after its logged wait) or, for a log without waits, an EASY-backfilling replay on its
//! machine ([`replay_easy`], ours); at every submission the site's predictor predicts the
//! job's wait from the job's features at that instant (§3.1), and it is told every start's
//! actual wait as the start happens. The errors are then grouped by the jobs' actual response
//! times.

use crate::wait::{ClusteredWaitConfig, QueueWaitPredictor, WaitFeatures};
use cosched_batch::{BatchError, BatchSim, Easy};
use cosched_core::{Duration, ParamError, RigidJob};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// One job of a trace's schedule: when it was submitted, started and ended, its size and
/// estimate, and whether it ran (a job cancelled in the queue holds its place there until it
/// leaves at `start = end` and is neither reported as started nor measured).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SiteRun {
    /// Submission, s.
    pub submit: i64,
    /// Start, s.
    pub start: i64,
    /// End, s.
    pub end: i64,
    /// Cores.
    pub cores: f64,
    /// Runtime estimate, s.
    pub estimate: f64,
    /// Whether it ran (false: it left the queue at `start` without running).
    pub ran: bool,
}

/// One prediction: the job's actual wait and response time and the predicted wait, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// The actual wait.
    pub wait: f64,
    /// The actual response time (wait + run).
    pub response: f64,
    /// The predicted wait.
    pub predicted: f64,
}

impl Prediction {
    /// The absolute error of the prediction, seconds.
    pub fn error(&self) -> f64 {
        (self.predicted - self.wait).abs()
    }
}

/// Why a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum AccuracyError {
    /// The predictor's parameters are invalid.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The machine refused the trace.
    #[error(transparent)]
    Batch(#[from] BatchError),
}

/// Job `j`'s point in feature space at its own submission: the jobs submitted before it and
/// not started yet are queued ahead of it, the jobs started and not ended are running. `runs`
/// sorted by submission. Cost: O(n) per job; [`all_submission_features`] gives every job's
/// at once in O(n log n).
pub fn submission_features(runs: &[SiteRun], j: usize) -> WaitFeatures {
    let t = runs[j].submit;
    let mut f = WaitFeatures {
        cores: runs[j].cores,
        estimate: runs[j].estimate,
        ..Default::default()
    };
    for (i, r) in runs.iter().enumerate() {
        let ahead = r.submit < t || (r.submit == t && i < j);
        if ahead && r.start > t {
            f.queued_cores += r.cores;
            f.queued_estimate += r.estimate;
            f.queued_elapsed_wait += (t - r.submit) as f64;
        } else if r.start <= t && t < r.end && i != j {
            f.busy_cores += r.cores;
            f.running_elapsed += (t - r.start) as f64;
            f.running_estimate += r.estimate;
        }
    }
    f
}

/// Every job's [`submission_features`], by one sweep over time: jobs in submission order (ties
/// by index, as "ahead" there), the queued ones ahead leaving at their start, the running ones
/// entering at their start and leaving at their end. O(n log n); equal to
/// [`submission_features`] for runs whose times, sizes and estimates are whole numbers (the
/// sums are then exact in any order).
pub fn all_submission_features(runs: &[SiteRun]) -> Vec<WaitFeatures> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&i| (runs[i].submit, i));
    let mut by_start: Vec<usize> = (0..runs.len()).collect();
    by_start.sort_by_key(|&i| runs[i].start);
    // Queued ahead, leaving at their start; running, leaving at their end.
    let (mut queued, mut running) = (Members::default(), Members::default());
    let mut next_start = 0;
    let mut out = vec![WaitFeatures::default(); runs.len()];
    for &j in &order {
        let t = runs[j].submit;
        queued.leave_by(t, runs, |r| r.submit);
        while let Some(&i) = by_start.get(next_start) {
            if runs[i].start > t {
                break;
            }
            next_start += 1;
            running.join(i, runs[i].end, &runs[i], runs[i].start);
        }
        running.leave_by(t, runs, |r| r.start);
        // The job itself is never part of its own state.
        let r = runs[j];
        let own = if r.start <= t && t < r.end { 1.0 } else { 0.0 };
        let t = t as f64;
        out[j] = WaitFeatures {
            cores: r.cores,
            estimate: r.estimate,
            queued_cores: queued.cores,
            queued_estimate: queued.estimate,
            queued_elapsed_wait: queued.count * t - queued.since,
            busy_cores: running.cores - own * r.cores,
            running_elapsed: (running.count - own) * t - (running.since - own * r.start as f64),
            running_estimate: running.estimate - own * r.estimate,
        };
        queued.join(j, r.start, &r, r.submit);
    }
    out
}

/// A set of runs by the time each leaves it, with the sums [`all_submission_features`] reads:
/// cores, estimates, the times they joined (submission or start) and how many.
#[derive(Default)]
struct Members {
    leaving: BinaryHeap<Reverse<(i64, usize)>>,
    cores: f64,
    estimate: f64,
    since: f64,
    count: f64,
}

impl Members {
    /// Run `i` joins at `since`, to leave at `leaves`.
    fn join(&mut self, i: usize, leaves: i64, run: &SiteRun, since: i64) {
        self.leaving.push(Reverse((leaves, i)));
        self.add(run, since as f64, 1.0);
    }

    /// Every run leaving at or before `t` leaves (`since` gives the time it joined).
    fn leave_by(&mut self, t: i64, runs: &[SiteRun], since: impl Fn(&SiteRun) -> i64) {
        while let Some(&Reverse((leaves, i))) = self.leaving.peek() {
            if leaves > t {
                break;
            }
            self.leaving.pop();
            self.add(&runs[i], since(&runs[i]) as f64, -1.0);
        }
    }

    fn add(&mut self, run: &SiteRun, since: f64, sign: f64) {
        self.cores += sign * run.cores;
        self.estimate += sign * run.estimate;
        self.since += sign * since;
        self.count += sign;
    }
}

/// The schedule a trace's log records: each job (with its logged wait, and whether it ran)
/// starts its wait after its submission and runs its run time; a job that did not run leaves
/// the queue after its wait. Sorted by submission, as [`replay_easy`].
pub fn logged_runs(jobs: impl IntoIterator<Item = (RigidJob, Duration, bool)>) -> Vec<SiteRun> {
    let mut runs: Vec<SiteRun> = jobs
        .into_iter()
        .map(|(job, wait, ran)| {
            let start = job.submit.secs().saturating_add(wait.secs().max(0));
            SiteRun {
                submit: job.submit.secs(),
                start,
                end: if ran {
                    start.saturating_add(job.runtime.secs().max(0))
                } else {
                    start
                },
                cores: f64::from(job.size),
                estimate: job.estimate.secs() as f64,
                ran,
            }
        })
        .collect();
    runs.sort_by_key(|r| (r.submit, r.start));
    runs
}

/// Runs `jobs` on a machine of `cores` cores under EASY and returns each started job's run,
/// sorted by submission.
///
/// # Errors
/// [`BatchError`] for a machine of no cores or a job the machine refuses.
pub fn replay_easy(jobs: &[RigidJob], cores: u32) -> Result<Vec<SiteRun>, BatchError> {
    let out = BatchSim::new(cores)?.run(&mut Easy::default(), jobs)?;
    let estimates: HashMap<_, Duration> = jobs.iter().map(|j| (j.id, j.estimate)).collect();
    let mut runs: Vec<SiteRun> = out
        .records
        .iter()
        .filter_map(|r| {
            Some(SiteRun {
                submit: r.submit.secs(),
                start: r.start?.secs(),
                end: r.end?.secs(),
                cores: f64::from(r.size),
                estimate: estimates.get(&r.id)?.secs() as f64,
                ran: true,
            })
        })
        .collect();
    runs.sort_by_key(|r| (r.submit, r.start));
    Ok(runs)
}

/// The predictions of a fresh predictor built from `config`, asked at every submission of
/// `runs` and told every start of a job that ran, in time order (a start at an instant is
/// known to a prediction at that instant). One prediction per run, in submission order.
///
/// # Errors
/// [`ParamError`] for an invalid `config`.
pub fn predict_online(
    runs: &[SiteRun],
    config: ClusteredWaitConfig,
) -> Result<Vec<Prediction>, ParamError> {
    let points = all_submission_features(runs);
    let mut events: Vec<(i64, u8, usize)> = Vec::with_capacity(2 * runs.len());
    for (j, r) in runs.iter().enumerate() {
        if r.ran {
            events.push((r.start, 0, j));
        }
        events.push((r.submit, 1, j));
    }
    events.sort_unstable();
    let mut predictor = config.build()?;
    let mut out = vec![
        Prediction {
            wait: 0.0,
            response: 0.0,
            predicted: 0.0
        };
        runs.len()
    ];
    for (_, kind, j) in events {
        let r = runs[j];
        let wait = (r.start - r.submit) as f64;
        if kind == 0 {
            predictor.observe(&points[j], Duration(wait as i64));
        } else {
            out[j] = Prediction {
                wait,
                response: (r.end - r.submit) as f64,
                predicted: predictor.predict(&points[j]).secs() as f64,
            };
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::{JobId, Time};
    use proptest::prelude::*;

    fn run(submit: i64, start: i64, end: i64, cores: f64, estimate: f64) -> SiteRun {
        SiteRun {
            submit,
            start,
            end,
            cores,
            estimate,
            ran: true,
        }
    }

    #[test]
    fn a_small_schedule_by_hand() {
        // A runs 0..100 on 4 cores; B waits 10..100 then runs to 150; C, submitted at 50, is
        // queued behind B; D arrives at 100 as A ends and B and C start.
        let runs = [
            run(0, 0, 100, 4.0, 120.0),
            run(10, 100, 150, 2.0, 60.0),
            run(50, 100, 130, 1.0, 40.0),
            run(100, 100, 110, 1.0, 10.0),
        ];
        let f = all_submission_features(&runs);
        // At 50 (C): A running 50 s of 120; B queued 40 s.
        assert_eq!(
            f[2],
            WaitFeatures {
                cores: 1.0,
                estimate: 40.0,
                queued_cores: 2.0,
                queued_estimate: 60.0,
                queued_elapsed_wait: 40.0,
                busy_cores: 4.0,
                running_elapsed: 50.0,
                running_estimate: 120.0,
            }
        );
        // At 100 (D): A has ended; B and C run (elapsed 0); nothing is queued; D itself,
        // starting at 100, is not counted.
        assert_eq!(
            (f[3].queued_cores, f[3].busy_cores, f[3].running_estimate),
            (0.0, 3.0, 100.0)
        );
        for (j, features) in f.iter().enumerate() {
            assert_eq!(*features, submission_features(&runs, j), "job {j}");
        }
    }

    #[test]
    fn the_logged_schedule_and_a_job_cancelled_in_the_queue() {
        let job = |id: u64, submit: i64, runtime: i64| {
            RigidJob::new(JobId(id), Time(submit), 2, Duration(runtime), Duration(100)).unwrap()
        };
        let runs = logged_runs([
            (job(2, 30, 50), Duration(5), true),
            (job(1, 0, 40), Duration(20), true),
            (job(3, 40, 0), Duration(30), false),
        ]);
        assert_eq!(
            runs.iter()
                .map(|r| (r.submit, r.start, r.end, r.ran))
                .collect::<Vec<_>>(),
            [(0, 20, 60, true), (30, 35, 85, true), (40, 70, 70, false)]
        );
        // The cancelled job is queued until it leaves, never running, and never taught.
        let predictions = predict_online(&runs, ClusteredWaitConfig::paper()).unwrap();
        assert_eq!(predictions.len(), 3);
        assert_eq!(predictions[2].wait, 30.0);
    }

    proptest! {
        #[test]
        fn the_sweep_equals_the_per_job_scan(
            jobs in proptest::collection::vec((0i64..50, 0i64..30, 0i64..40, 1u32..5, 1i64..60, any::<bool>()), 0..40)
        ) {
            let mut runs: Vec<SiteRun> = jobs
                .iter()
                .map(|&(submit, wait, len, cores, estimate, ran)| SiteRun {
                    submit,
                    start: submit + wait,
                    end: submit + wait + if ran { len } else { 0 },
                    cores: f64::from(cores),
                    estimate: estimate as f64,
                    ran,
                })
                .collect();
            runs.sort_by_key(|r| (r.submit, r.start));
            let fast = all_submission_features(&runs);
            for (j, features) in fast.iter().enumerate() {
                prop_assert_eq!(*features, submission_features(&runs, j));
            }
        }
    }
}
