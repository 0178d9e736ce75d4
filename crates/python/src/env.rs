//! The stepping core of `cosched.gym`'s environment: the batch simulator, unchanged, run as a
//! coroutine (its own stack, on the caller's thread) with a policy that suspends it to ask the
//! agent: a step costs a stack switch, not a thread handoff.
//!
//! Each decision is the agent's pick of which waiting job goes next among the first `K` in
//! queue order (submit time, then id). The pick starts as soon as it fits; until then, with
//! `backfill`, other waiting jobs start around it under EASY's rule (they fit now and either
//! end by the pick's predicted start or use only the units it leaves spare); without, the
//! machine waits for it (RLScheduler's two modes). A new decision is asked when the pick has
//! started and jobs still wait. The episode ends when its jobs have all ended; its reward is
//! the negative mean of the chosen metric over them.
//!
//! Observations (`K × F` float32, row per visible job, padding rows for empty slots):
//! - `rlscheduler` (F = 8), RLScheduler's layout: wait / 12 h, requested time / the
//!   workload's largest, size / capacity, requested memory, user, group and executable
//!   (each 1, "absent", as RLScheduler sets a field the trace lacks: the user and group are
//!   given when the trace has them, divided by the largest), can start now (1 − 1e-5 or 1e-5);
//!   each capped at 1 − 1e-5; padding `[0, 1, 1, 1, 1, 1, 1, 0]`.
//! - `compact` (F = 4): wait / 12 h, requested time / the largest, size / capacity, can start
//!   now (1 or 0), capped at 1; padding zeros.

use crate::workload::Workload;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use cosched_batch::{BatchCluster, BatchCommand, BatchSim, Pass, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, JobId, RigidJob, Time};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::collections::HashMap;
use std::convert::Infallible;

/// RLScheduler's normaliser of the waiting time (12 hours).
const MAX_WAIT_S: f64 = 12.0 * 3600.0;
/// RLScheduler's cap: normalised features stay below 1.
const CAP: f32 = 1.0 - 1e-5;

/// The observation layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    RlScheduler,
    Compact,
}

impl Layout {
    fn features(self) -> usize {
        match self {
            Layout::RlScheduler => 8,
            Layout::Compact => 4,
        }
    }
}

/// The metric an episode's reward is the negative mean of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Metric {
    BoundedSlowdown,
    Wait,
    Turnaround,
    Utilization,
}

/// What the simulation asks the agent: pick one of the first `visible` waiting jobs.
struct Decision {
    now: Time,
    features: Vec<f32>,
    visible: usize,
    waiting: usize,
}

/// The end of an episode: its metric, and the schedule's facts.
struct Finished {
    value: f64,
    makespan_s: i64,
    completed: usize,
}

/// An episode: the simulation suspended at a decision, resumed with the agent's action.
type Episode = Coroutine<usize, Decision, Result<Finished, String>>;

/// Normalisers fixed per workload, so observations compare across episodes.
#[derive(Clone, Copy, Debug)]
struct Scale {
    capacity: u32,
    max_estimate: i64,
    max_user: Option<u32>,
    max_group: Option<u32>,
}

/// The policy of the simulation: it asks the agent (suspending the run), then applies the pick.
struct AgentPolicy<'y> {
    agent: &'y Yielder<usize, Decision>,
    queue_size: usize,
    layout: Layout,
    scale: Scale,
    backfill: bool,
    /// User and group of each job of the episode.
    owners: HashMap<JobId, (Option<u32>, Option<u32>)>,
    /// The pick not yet started.
    pick: Option<JobId>,
}

impl AgentPolicy<'_> {
    fn features(&self, now: Time, pass: &Pass<'_>, visible: &[usize]) -> Vec<f32> {
        let f = self.layout.features();
        let mut out = Vec::with_capacity(self.queue_size * f);
        let capped = |x: f64, cap: f32| (x as f32).clamp(0.0, cap);
        for &pos in visible {
            let Some(q) = pass.job(pos) else { continue };
            let wait = (now.0 - q.job.submit.0) as f64 / MAX_WAIT_S;
            let estimate = q.estimate().0 as f64 / self.scale.max_estimate.max(1) as f64;
            let size = f64::from(q.size()) / f64::from(self.scale.capacity);
            let fits = q.size() <= pass.free_units();
            match self.layout {
                Layout::RlScheduler => {
                    let (user, group) = self.owners.get(&q.job.id).copied().unwrap_or_default();
                    let norm = |v: Option<u32>, max: Option<u32>| match (v, max) {
                        (Some(v), Some(m)) if m > 0 => capped(f64::from(v) / f64::from(m), CAP),
                        _ => 1.0,
                    };
                    out.extend([
                        capped(wait, CAP),
                        capped(estimate, CAP),
                        capped(size, CAP),
                        1.0,
                        norm(user, self.scale.max_user),
                        norm(group, self.scale.max_group),
                        1.0,
                        if fits { CAP } else { 1e-5 },
                    ]);
                }
                Layout::Compact => out.extend([
                    capped(wait, 1.0),
                    capped(estimate, 1.0),
                    capped(size, 1.0),
                    if fits { 1.0 } else { 0.0 },
                ]),
            }
        }
        let pad: &[f32] = match self.layout {
            Layout::RlScheduler => &[0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
            Layout::Compact => &[0.0; 4],
        };
        while out.len() < self.queue_size * f {
            out.extend_from_slice(pad);
        }
        out
    }

    /// Asks the agent for the next pick among the first `queue_size` waiting jobs.
    fn ask(&mut self, now: Time, pass: &Pass<'_>) -> Option<JobId> {
        let mut visible = Vec::with_capacity(self.queue_size);
        let mut from = 0;
        while visible.len() < self.queue_size {
            let Some(pos) = pass.next_queued(from) else {
                break;
            };
            visible.push(pos);
            from = pos + 1;
        }
        if visible.is_empty() {
            return None;
        }
        let waiting = pass.view().queue_len() - pass.starts();
        let features = self.features(now, pass, &visible);
        let action = self.agent.suspend(Decision {
            now,
            features,
            visible: visible.len(),
            waiting,
        });
        let pos = visible[action.min(visible.len() - 1)];
        pass.job(pos).map(|q| q.job.id)
    }
}

impl Policy for AgentPolicy<'_> {
    type Observation = SchedulingPass;
    type Command = BatchCommand;
    type View = BatchCluster;
    type Error = Infallible;

    fn observe(
        &mut self,
        now: Time,
        _: &SchedulingPass,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> Result<(), Infallible> {
        let mut pass = Pass::new(now, view, out);
        loop {
            let pick = match self.pick {
                Some(job) => job,
                None => match self.ask(now, &pass) {
                    Some(job) => job,
                    None => break,
                },
            };
            self.pick = Some(pick);
            let Some(pos) = pass.position_of(pick) else {
                // Not waiting any more (cannot happen: only this policy starts jobs).
                self.pick = None;
                continue;
            };
            let size = pass.job(pos).map_or(0, |q| q.size());
            if size <= pass.free_units() && pass.start(pos).is_ok() {
                self.pick = None;
                continue;
            }
            if self.backfill {
                let shadow = pass.shadow(size);
                let mut extra = shadow.extra;
                let mut from = 0;
                loop {
                    let until = Duration(shadow.time.0.saturating_sub(now.0));
                    let Some(at) = pass.next_candidate(from, pass.free_units(), extra, until)
                    else {
                        break;
                    };
                    from = at + 1;
                    let Some(q) = pass.job(at).filter(|_| at != pos) else {
                        continue;
                    };
                    let (units, estimate) = (q.size(), q.estimate());
                    if pass.start(at).is_ok() && estimate > until {
                        extra = extra.saturating_sub(units);
                    }
                }
            }
            break;
        }
        // A refused start (an end past the last second) surfaces as the run's error.
        let _ = pass.finish();
        Ok(())
    }
}

/// The environment's core: `reset(seed)` starts an episode and returns the first
/// observation; `step(action)` applies a pick and returns the next one, or the end.
#[pyclass(unsendable, module = "cosched")]
pub struct BatchEnv {
    jobs: Vec<RigidJob>,
    capacity: u32,
    episode_jobs: usize,
    queue_size: usize,
    layout: Layout,
    metric: Metric,
    backfill: bool,
    scale: Scale,
    episode: Option<Episode>,
    /// Jobs visible at the pending decision.
    visible: usize,
}

impl BatchEnv {
    /// Resumes the episode with `action` and returns what it says next as a dict:
    /// `{"done": False, "obs": bytes (float32), "visible": n, "waiting": n, "now": t}` or
    /// `{"done": True, "value": metric, "makespan": s, "completed": n}`.
    fn resume<'py>(&mut self, py: Python<'py>, action: usize) -> PyResult<Bound<'py, PyDict>> {
        let episode = self
            .episode
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("call reset() before step()"))?;
        let out = PyDict::new(py);
        match episode.resume(action) {
            CoroutineResult::Yield(d) => {
                self.visible = d.visible;
                let bytes: Vec<u8> = d.features.iter().flat_map(|f| f.to_le_bytes()).collect();
                out.set_item("done", false)?;
                out.set_item("obs", PyBytes::new(py, &bytes))?;
                out.set_item("visible", d.visible)?;
                out.set_item("waiting", d.waiting)?;
                out.set_item("now", d.now.0)?;
            }
            CoroutineResult::Return(result) => {
                self.episode = None;
                let f = result.map_err(crate::CoschedError::new_err)?;
                out.set_item("done", true)?;
                out.set_item("value", f.value)?;
                out.set_item("makespan", f.makespan_s)?;
                out.set_item("completed", f.completed)?;
            }
        }
        Ok(out)
    }
}

#[pymethods]
impl BatchEnv {
    /// An environment over `workload` on `capacity` units: episodes of `episode_jobs`
    /// consecutive jobs, the first `queue_size` waiting jobs visible.
    #[new]
    #[pyo3(signature = (workload, capacity, *, episode_jobs=256, queue_size=128, backfill=false, metric="bsld", layout="rlscheduler"))]
    fn new(
        workload: &Workload,
        capacity: u32,
        episode_jobs: usize,
        queue_size: usize,
        backfill: bool,
        metric: &str,
        layout: &str,
    ) -> PyResult<BatchEnv> {
        let mut jobs: Vec<RigidJob> = workload
            .jobs
            .iter()
            .filter(|j| j.size <= capacity)
            .copied()
            .collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
        if capacity == 0 {
            return Err(PyValueError::new_err("capacity must be at least 1"));
        }
        if episode_jobs == 0 || episode_jobs > jobs.len() {
            return Err(PyValueError::new_err(format!(
                "episode_jobs must be between 1 and the {} jobs that fit on {capacity} units",
                jobs.len()
            )));
        }
        if queue_size == 0 || queue_size > 4096 {
            return Err(PyValueError::new_err(
                "queue_size must be between 1 and 4096",
            ));
        }
        let metric = match metric {
            "bsld" => Metric::BoundedSlowdown,
            "wait" => Metric::Wait,
            "turnaround" => Metric::Turnaround,
            "utilization" => Metric::Utilization,
            other => {
                return Err(PyValueError::new_err(format!(
                    "metric {other:?}: expected bsld, wait, turnaround or utilization"
                )));
            }
        };
        let layout = match layout {
            "rlscheduler" => Layout::RlScheduler,
            "compact" => Layout::Compact,
            other => {
                return Err(PyValueError::new_err(format!(
                    "layout {other:?}: expected rlscheduler or compact"
                )));
            }
        };
        let scale = Scale {
            capacity,
            max_estimate: jobs.iter().map(|j| j.estimate.0).max().unwrap_or(1),
            max_user: jobs.iter().filter_map(|j| j.user).max(),
            max_group: jobs.iter().filter_map(|j| j.group).max(),
        };
        Ok(BatchEnv {
            jobs,
            capacity,
            episode_jobs,
            queue_size,
            layout,
            metric,
            backfill,
            scale,
            episode: None,
            visible: 0,
        })
    }

    /// Floats per observation (`queue_size × features`).
    #[getter]
    fn observation_len(&self) -> usize {
        self.queue_size * self.layout.features()
    }

    /// Starts the episode of `seed`: jobs `start .. start + episode_jobs` of the workload
    /// (in submit order), `start` drawn from the seed. Returns the first decision.
    fn reset<'py>(&mut self, py: Python<'py>, seed: u64) -> PyResult<Bound<'py, PyDict>> {
        self.episode = None;
        let span = self.jobs.len() - self.episode_jobs;
        // SplitMix64 of the seed: a start index a seed always gives.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let start = usize::try_from(z % (span as u64 + 1)).unwrap_or(0);
        let jobs = self.jobs[start..start + self.episode_jobs].to_vec();
        let (queue_size, layout, scale, backfill) =
            (self.queue_size, self.layout, self.scale, self.backfill);
        let (capacity, metric) = (self.capacity, self.metric);
        self.episode = Some(Coroutine::new(
            move |agent: &Yielder<usize, Decision>, _| {
                let mut policy = AgentPolicy {
                    agent,
                    queue_size,
                    layout,
                    scale,
                    backfill,
                    owners: jobs.iter().map(|j| (j.id, (j.user, j.group))).collect(),
                    pick: None,
                };
                let outcome = BatchSim::new(capacity)
                    .map_err(|e| e.to_string())?
                    .run(&mut policy, &jobs)
                    .map_err(|e| e.to_string())?;
                let records = &outcome.records;
                let mean = |f: &dyn Fn(&cosched_core::JobRecord) -> Option<f64>| {
                    let v: Vec<f64> = records.iter().filter_map(f).collect();
                    v.iter().sum::<f64>() / v.len().max(1) as f64
                };
                let value = match metric {
                    Metric::BoundedSlowdown => mean(&|r| r.bounded_slowdown(DEFAULT_SLOWDOWN_TAU)),
                    Metric::Wait => mean(&|r| r.wait().map(|d| d.0 as f64)),
                    Metric::Turnaround => mean(&|r| r.turnaround().map(|d| d.0 as f64)),
                    Metric::Utilization => outcome.report.utilization,
                };
                Ok(Finished {
                    value,
                    makespan_s: outcome.report.last_end_s - outcome.report.first_submit_s,
                    completed: outcome.report.completed,
                })
            },
        ));
        let first = self.resume(py, 0)?;
        first.set_item("start", start)?;
        Ok(first)
    }

    /// Applies `action` (the index of the pick among the visible jobs; an index past them
    /// picks the last visible job, as the action mask forbids) and returns the next decision
    /// or the end.
    fn step<'py>(&mut self, py: Python<'py>, action: usize) -> PyResult<Bound<'py, PyDict>> {
        if self.episode.is_none() {
            return Err(PyRuntimeError::new_err("call reset() before step()"));
        }
        self.resume(py, action.min(self.visible.saturating_sub(1)))
    }
}
