//! A deliberately naive FCFS/EASY simulator written straight from the documented semantics
//! (vectors, re-sorting, no shared code with the crate), used as the oracle that the fast
//! simulator must match start for start.

use cosched_core::RigidJob;
use std::collections::BTreeMap;

#[derive(Clone, Copy)]
struct Job {
    id: u64,
    submit: i64,
    size: u32,
    run: i64,
    est: i64,
}

#[derive(Clone, Copy)]
struct Run {
    id: u64,
    end: i64,
    predicted_end: i64,
    size: u32,
}

/// Start time of every valid job (`None` if rejected), by job id.
#[allow(dead_code)] // each test file uses one of the two entry points
pub fn reference_starts(
    capacity: u32,
    jobs: &[RigidJob],
    easy: bool,
) -> BTreeMap<u64, Option<i64>> {
    reference_starts_with_cancellations(capacity, jobs, &[], easy)
}

/// [`reference_starts`] with cancellations: at `(time, id)`, after that instant's completions
/// and before its arrivals, job `id` leaves the queue if it is waiting there (and then never
/// starts: `None`); otherwise the cancellation does nothing. An instant with only
/// cancellations still has its pass.
pub fn reference_starts_with_cancellations(
    capacity: u32,
    jobs: &[RigidJob],
    cancellations: &[(i64, u64)],
    easy: bool,
) -> BTreeMap<u64, Option<i64>> {
    let mut cancellations = cancellations.to_vec();
    cancellations.sort();
    let mut next_cancellation = 0;
    let mut arrivals: Vec<Job> = jobs
        .iter()
        .filter(|j| j.validate().is_ok())
        .map(|j| Job {
            id: j.id.0,
            submit: j.submit.0,
            size: j.size,
            run: j.runtime.0.min(j.estimate.0),
            est: j.estimate.0,
        })
        .collect();
    arrivals.sort_by_key(|j| (j.submit, j.id));
    let mut next_arrival = 0;
    let mut starts = BTreeMap::new();
    let mut queue: Vec<Job> = Vec::new();
    let mut running: Vec<Run> = Vec::new();
    let mut free = capacity;
    loop {
        let next_submit = arrivals.get(next_arrival).map(|j| j.submit);
        let next_end = running.iter().map(|r| r.end).min();
        let next_cancel = cancellations.get(next_cancellation).map(|c| c.0);
        let Some(t) = [next_submit, next_end, next_cancel]
            .into_iter()
            .flatten()
            .min()
        else {
            break;
        };
        let mut first_round = true;
        loop {
            // 1. all completions
            running.retain(|r| {
                if r.end == t {
                    free += r.size;
                    false
                } else {
                    true
                }
            });
            // cancellations
            while first_round
                && next_cancellation < cancellations.len()
                && cancellations[next_cancellation].0 == t
            {
                let id = cancellations[next_cancellation].1;
                next_cancellation += 1;
                if let Some(i) = queue.iter().position(|j| j.id == id) {
                    queue.remove(i);
                    starts.insert(id, None);
                }
            }
            // 2. all arrivals in id order
            while first_round && next_arrival < arrivals.len() && arrivals[next_arrival].submit == t
            {
                let job = arrivals[next_arrival];
                next_arrival += 1;
                if job.size > capacity {
                    starts.insert(job.id, None);
                } else {
                    queue.push(job);
                }
            }
            first_round = false;
            // 3. one scheduling pass
            let mut start = |job: Job, free: &mut u32, running: &mut Vec<Run>| {
                *free -= job.size;
                starts.insert(job.id, Some(t));
                running.push(Run {
                    id: job.id,
                    end: t + job.run,
                    predicted_end: t + job.est,
                    size: job.size,
                });
            };
            while !queue.is_empty() && queue[0].size <= free {
                let job = queue.remove(0);
                start(job, &mut free, &mut running);
            }
            if easy && !queue.is_empty() {
                let head = queue[0];
                let mut by_end = running.clone();
                by_end.sort_by_key(|r| (r.predicted_end, r.id));
                let mut avail = free;
                let mut shadow = None;
                for r in &by_end {
                    avail += r.size;
                    if avail >= head.size {
                        shadow = Some(r.predicted_end);
                        break;
                    }
                }
                let (shadow, mut extra) = match shadow {
                    Some(s) => {
                        let at_shadow: u32 = by_end
                            .iter()
                            .filter(|r| r.predicted_end <= s)
                            .map(|r| r.size)
                            .sum();
                        (s, free + at_shadow - head.size)
                    }
                    None => (i64::MAX, 0),
                };
                let mut i = 1;
                while i < queue.len() {
                    let job = queue[i];
                    let ends_by_shadow = t + job.est <= shadow;
                    if job.size <= free && (ends_by_shadow || job.size <= extra) {
                        if !ends_by_shadow {
                            extra -= job.size;
                        }
                        queue.remove(i);
                        start(job, &mut free, &mut running);
                    } else {
                        i += 1;
                    }
                }
            }
            if !running.iter().any(|r| r.end == t) {
                break;
            }
        }
    }
    starts
}
