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
//!
//! A step allocates nothing: the observation and the action mask are written into buffers the
//! Python side owns (`bytearray`s under numpy views), the features' vector goes back and forth
//! with the coroutine, and a step is one call returning four numbers. [`BatchVecEnv`] steps
//! `N` environments in one call, without the GIL.

use crate::workload::Workload;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use cosched_batch::{BatchCluster, BatchCommand, BatchSim, Pass, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, JobId, RigidJob, Time};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use std::convert::Infallible;

/// RLScheduler's normaliser of the waiting time (12 hours).
const MAX_WAIT_S: f64 = 12.0 * 3600.0;
/// RLScheduler's cap: normalised features stay below 1.
const CAP: f32 = 1.0 - 1e-5;
/// An episode's stack, bytes (corosensei's default size): the simulator's calls are shallow.
const EPISODE_STACK: usize = 1024 * 1024;

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

/// What resumes an episode: the agent's action, and the features' vector of the last decision
/// back for reuse.
type Resume = (usize, Vec<f32>);

/// An episode: the simulation suspended at a decision, resumed with the agent's action.
type Episode = Coroutine<Resume, Decision, Result<Finished, String>>;

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
    agent: &'y Yielder<Resume, Decision>,
    queue_size: usize,
    layout: Layout,
    backfill: bool,
    /// Each job's observation row with its two changing features (wait, can start now) left
    /// to fill: the episode's jobs are numbered 0, 1, … in queue order, row `id` of these.
    rows: &'y [f32],
    /// A whole observation of padding rows (what empty slots show).
    padding: &'y [f32],
    /// Rows of the features' vector that may hold a job (not padding).
    dirty: usize,
    /// The pick not yet started.
    pick: Option<JobId>,
    /// The features' vector, between decisions.
    spare: Vec<f32>,
    /// The visible jobs' positions in the queue, reused.
    visible: Vec<usize>,
}

impl AgentPolicy<'_> {
    /// Writes the observation of the visible jobs into `out` (the last decision's, reused):
    /// each job's fixed row with its wait and whether it fits now filled in, then padding
    /// rows where the last observation had jobs (the others are padding already).
    fn features(&mut self, now: Time, pass: &Pass<'_>, visible: &[usize], out: &mut Vec<f32>) {
        let f = self.layout.features();
        out.resize(self.queue_size * f, 0.0);
        let rows = match self.layout {
            Layout::RlScheduler => self.rows_of::<8>(now, pass, visible, out, CAP, (CAP, 1e-5)),
            Layout::Compact => self.rows_of::<4>(now, pass, visible, out, 1.0, (1.0, 0.0)),
        };
        let stale = (rows * f)..(self.dirty.max(rows) * f);
        if let (Some(o), Some(p)) = (out.get_mut(stale.clone()), self.padding.get(stale)) {
            o.copy_from_slice(p);
        }
        self.dirty = rows;
    }

    /// [`AgentPolicy::features`]' job rows for `F` features a job, from the first row of
    /// `out`: the wait capped at `cap` first, whether the job fits (`fits.0`, else `fits.1`)
    /// last. Returns the rows written.
    fn rows_of<const F: usize>(
        &self,
        now: Time,
        pass: &Pass<'_>,
        visible: &[usize],
        out: &mut [f32],
        cap: f32,
        fits: (f32, f32),
    ) -> usize {
        let mut slots = out.chunks_exact_mut(F);
        let mut rows = 0;
        for &pos in visible {
            let Some(q) = pass.job(pos) else { continue };
            let at = usize::try_from(q.job.id.0)
                .unwrap_or(usize::MAX)
                .saturating_mul(F);
            let Some(fixed) = self.rows.get(at..).and_then(|r| r.first_chunk::<F>()) else {
                continue;
            };
            let Some(slot) = slots.next() else { break };
            slot.copy_from_slice(fixed);
            slot[0] = (((now.0 - q.job.submit.0) as f64 / MAX_WAIT_S) as f32).clamp(0.0, cap);
            slot[F - 1] = if q.size() <= pass.free_units() {
                fits.0
            } else {
                fits.1
            };
            rows += 1;
        }
        rows
    }

    /// Asks the agent for the next pick among the first `queue_size` waiting jobs.
    fn ask(&mut self, now: Time, pass: &Pass<'_>) -> Option<JobId> {
        let mut visible = std::mem::take(&mut self.visible);
        visible.clear();
        let mut from = 0;
        while visible.len() < self.queue_size {
            let Some(pos) = pass.next_queued(from) else {
                break;
            };
            visible.push(pos);
            from = pos + 1;
        }
        let Some(&last) = visible.last() else {
            self.visible = visible;
            return None;
        };
        let waiting = pass.view().queue_len() - pass.starts();
        let mut features = std::mem::take(&mut self.spare);
        self.features(now, pass, &visible, &mut features);
        let (action, spare) = self.agent.suspend(Decision {
            now,
            features,
            visible: visible.len(),
            waiting,
        });
        self.spare = spare;
        let pos = visible.get(action).copied().unwrap_or(last);
        self.visible = visible;
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

/// The parameters every episode of an environment shares.
#[derive(Clone)]
struct Config {
    jobs: std::sync::Arc<[RigidJob]>,
    capacity: u32,
    episode_jobs: usize,
    queue_size: usize,
    layout: Layout,
    metric: Metric,
    backfill: bool,
    /// Every job's observation row ([`fixed_row`]), in `jobs`' order.
    rows: std::sync::Arc<[f32]>,
    /// An observation of padding rows only.
    padding: std::sync::Arc<[f32]>,
}

/// A job's observation row but its wait and whether it fits now (zero here): requested time /
/// the workload's largest, size / capacity and, in RLScheduler's layout, memory, user, group
/// and executable.
fn fixed_row(layout: Layout, scale: &Scale, j: &RigidJob, out: &mut Vec<f32>) {
    let capped = |x: f64, cap: f32| (x as f32).clamp(0.0, cap);
    let estimate = j.estimate.0 as f64 / scale.max_estimate.max(1) as f64;
    let size = f64::from(j.size) / f64::from(scale.capacity);
    match layout {
        Layout::RlScheduler => {
            let norm = |v: Option<u32>, max: Option<u32>| match (v, max) {
                (Some(v), Some(m)) if m > 0 => capped(f64::from(v) / f64::from(m), CAP),
                _ => 1.0,
            };
            out.extend([
                0.0,
                capped(estimate, CAP),
                capped(size, CAP),
                1.0,
                norm(j.user, scale.max_user),
                norm(j.group, scale.max_group),
                1.0,
                0.0,
            ]);
        }
        Layout::Compact => out.extend([0.0, capped(estimate, 1.0), capped(size, 1.0), 0.0]),
    }
}

impl Config {
    #[allow(clippy::too_many_arguments)]
    fn new(
        workload: &Workload,
        capacity: u32,
        episode_jobs: usize,
        queue_size: usize,
        backfill: bool,
        metric: &str,
        layout: &str,
    ) -> PyResult<Config> {
        if capacity == 0 {
            return Err(PyValueError::new_err("capacity must be at least 1"));
        }
        let mut jobs: Vec<RigidJob> = workload
            .jobs
            .iter()
            .filter(|j| j.size <= capacity)
            .copied()
            .collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
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
        let mut rows = Vec::with_capacity(jobs.len() * layout.features());
        for j in &jobs {
            fixed_row(layout, &scale, j, &mut rows);
        }
        let pad: &[f32] = match layout {
            Layout::RlScheduler => &[0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
            Layout::Compact => &[0.0; 4],
        };
        let padding: Vec<f32> = pad
            .iter()
            .copied()
            .cycle()
            .take(queue_size * pad.len())
            .collect();
        Ok(Config {
            padding: padding.into(),
            jobs: jobs.into(),
            capacity,
            episode_jobs,
            queue_size,
            layout,
            metric,
            backfill,
            rows: rows.into(),
        })
    }

    /// Floats per observation.
    fn observation_len(&self) -> usize {
        self.queue_size * self.layout.features()
    }
}

/// What a reset or a step ends on: a decision (`visible` ≥ 1 jobs to pick from, `waiting`
/// in all, at `now`) or the episode's end (`visible` = 0, `waiting` = the jobs completed,
/// `now` = the makespan, `value` = the metric).
type Outcome = (usize, usize, i64, f64);

/// One environment: the episode in progress, and the features' vector between decisions.
struct Core {
    config: Config,
    episode: Option<Episode>,
    /// The last finished episode's stack, for the next.
    stack: Option<DefaultStack>,
    /// Jobs visible at the pending decision.
    visible: usize,
    /// The features of the last decision (the observation), kept for the next resume.
    features: Vec<f32>,
}

impl Core {
    fn new(config: Config) -> Core {
        let len = config.observation_len();
        Core {
            config,
            episode: None,
            stack: None,
            visible: 0,
            features: vec![0.0; len],
        }
    }

    /// The first job of the episode of `seed` (SplitMix64 of the seed: a start index a seed
    /// always gives).
    fn first_job(&self, seed: u64) -> usize {
        let span = self.config.jobs.len() - self.config.episode_jobs;
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        usize::try_from(z % (span as u64 + 1)).unwrap_or(0)
    }

    /// Starts the episode of `seed`: its first decision, and its first job's index.
    fn reset(&mut self, seed: u64) -> Result<(Outcome, usize), String> {
        self.episode = None;
        let start = self.first_job(seed);
        let c = self.config.clone();
        let stack = match self.stack.take() {
            Some(stack) => stack,
            None => DefaultStack::new(EPISODE_STACK).map_err(|e| e.to_string())?,
        };
        self.episode = Some(Coroutine::with_stack(
            stack,
            move |agent: &Yielder<Resume, Decision>, (_, spare): Resume| {
                let f = c.layout.features();
                // Numbered 0, 1, … in queue order (submit time, then id): the same order,
                // and each job's id is its row.
                let jobs: Vec<RigidJob> = c.jobs[start..start + c.episode_jobs]
                    .iter()
                    .enumerate()
                    .map(|(i, j)| RigidJob {
                        id: JobId(i as u64),
                        ..*j
                    })
                    .collect();
                let mut policy = AgentPolicy {
                    agent,
                    queue_size: c.queue_size,
                    layout: c.layout,
                    backfill: c.backfill,
                    rows: &c.rows[start * f..(start + c.episode_jobs) * f],
                    padding: &c.padding,
                    // The vector comes from an earlier episode, or is zeros: all to pad.
                    dirty: c.queue_size,
                    pick: None,
                    spare,
                    visible: Vec::with_capacity(c.queue_size),
                };
                let outcome = BatchSim::new(c.capacity)
                    .map_err(|e| e.to_string())?
                    .run(&mut policy, &jobs)
                    .map_err(|e| e.to_string())?;
                let records = &outcome.records;
                let mean = |f: &dyn Fn(&cosched_core::JobRecord) -> Option<f64>| {
                    let v: Vec<f64> = records.iter().filter_map(f).collect();
                    v.iter().sum::<f64>() / v.len().max(1) as f64
                };
                let value = match c.metric {
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
        Ok((self.resume(0)?, start))
    }

    /// Resumes the episode with `action` (an index past the visible jobs picks the last).
    fn resume(&mut self, action: usize) -> Result<Outcome, String> {
        let episode = self
            .episode
            .as_mut()
            .ok_or_else(|| "call reset() before step()".to_owned())?;
        let spare = std::mem::take(&mut self.features);
        match episode.resume((action, spare)) {
            CoroutineResult::Yield(d) => {
                self.visible = d.visible;
                self.features = d.features;
                Ok((d.visible, d.waiting, d.now.0, 0.0))
            }
            CoroutineResult::Return(result) => {
                self.stack = self.episode.take().map(Coroutine::into_stack);
                self.visible = 0;
                self.features = vec![0.0; self.config.observation_len()];
                let f = result?;
                Ok((0, f.completed, f.makespan_s, f.value))
            }
        }
    }

    /// The observation and mask of the pending decision into `obs` and `mask` (the episode's
    /// last ones are kept at its end).
    fn write(&self, obs: &mut [u8], mask: &mut [u8]) {
        if self.visible == 0 {
            mask.fill(0);
            return;
        }
        for (o, f) in obs.chunks_exact_mut(4).zip(&self.features) {
            o.copy_from_slice(&f.to_le_bytes());
        }
        for (i, m) in mask.iter_mut().enumerate() {
            *m = u8::from(i < self.visible);
        }
    }
}

/// `buffer`'s bytes, checked to be `len` long.
///
/// # Safety
/// The caller holds the GIL and runs no Python code while it uses the slice (nothing can
/// resize or read the bytearray meanwhile).
// The bytes are the bytearray's, not `buffer`'s: exclusive by the contract above.
#[allow(clippy::mut_from_ref)]
unsafe fn bytes<'a>(
    buffer: &'a Bound<'_, PyByteArray>,
    len: usize,
    what: &str,
) -> PyResult<&'a mut [u8]> {
    // SAFETY: as the caller promises.
    let b = unsafe { buffer.as_bytes_mut() };
    if b.len() != len {
        return Err(PyValueError::new_err(format!(
            "the {what} buffer has {} bytes, expected {len}",
            b.len()
        )));
    }
    Ok(b)
}

/// The environment's core (`cosched.gym.BatchSchedulingEnv` wraps it): `reset(seed)` starts an
/// episode, `step(action)` applies a pick; both write the observation (float32) and the
/// action mask (int8) into the bytearrays given at construction and return
/// `(visible, waiting, now, value)`: `visible` ≥ 1 at a decision; 0 at the end, with
/// `waiting` = the jobs completed, `now` = the makespan and `value` the metric.
#[pyclass(unsendable, module = "cosched")]
pub struct BatchEnv {
    core: Core,
    obs: Py<PyByteArray>,
    mask: Py<PyByteArray>,
}

impl BatchEnv {
    fn written(&self, py: Python<'_>, outcome: Outcome) -> PyResult<Outcome> {
        let c = &self.core.config;
        let (obs, mask) = (self.obs.bind(py), self.mask.bind(py));
        // SAFETY: the GIL is held and no Python code runs until the slices are dropped.
        let (o, m) = unsafe {
            (
                bytes(obs, 4 * c.observation_len(), "observation")?,
                bytes(mask, c.queue_size, "mask")?,
            )
        };
        self.core.write(o, m);
        Ok(outcome)
    }
}

#[pymethods]
impl BatchEnv {
    /// An environment over `workload` on `capacity` units: episodes of `episode_jobs`
    /// consecutive jobs, the first `queue_size` waiting jobs visible; observations into `obs`
    /// (`4 × observation_len` bytes), masks into `mask` (`queue_size` bytes).
    #[new]
    #[pyo3(signature = (workload, capacity, obs, mask, *, episode_jobs=256, queue_size=128, backfill=false, metric="bsld", layout="rlscheduler"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        workload: &Workload,
        capacity: u32,
        obs: Py<PyByteArray>,
        mask: Py<PyByteArray>,
        episode_jobs: usize,
        queue_size: usize,
        backfill: bool,
        metric: &str,
        layout: &str,
    ) -> PyResult<BatchEnv> {
        if obs.is(&mask) {
            return Err(PyValueError::new_err(
                "obs and mask must be distinct bytearrays",
            ));
        }
        let config = Config::new(
            workload,
            capacity,
            episode_jobs,
            queue_size,
            backfill,
            metric,
            layout,
        )?;
        Ok(BatchEnv {
            core: Core::new(config),
            obs,
            mask,
        })
    }

    /// Floats per observation (`queue_size × features`).
    #[getter]
    fn observation_len(&self) -> usize {
        self.core.config.observation_len()
    }

    /// Starts the episode of `seed`: jobs `start .. start + episode_jobs` of the workload
    /// (in submit order), `start` drawn from the seed. Returns the first decision and `start`.
    fn reset(&mut self, py: Python<'_>, seed: u64) -> PyResult<(Outcome, usize)> {
        let (outcome, start) = self
            .core
            .reset(seed)
            .map_err(crate::CoschedError::new_err)?;
        Ok((self.written(py, outcome)?, start))
    }

    /// Applies `action` (the index of the pick among the visible jobs; an index past them
    /// picks the last visible job, as the action mask forbids).
    fn step(&mut self, py: Python<'_>, action: usize) -> PyResult<Outcome> {
        if self.core.episode.is_none() {
            return Err(PyRuntimeError::new_err("call reset() before step()"));
        }
        let outcome = self
            .core
            .resume(action)
            .map_err(crate::CoschedError::new_err)?;
        self.written(py, outcome)
    }
}

/// Lets the environments cross `Python::detach`, which runs its closure on the calling thread:
/// the coroutines never leave the thread they were made on.
struct SameThread<T>(T);
// SAFETY: `detach` runs the closure on the current thread and returns before the value is used
// again; nothing is shared with another thread.
unsafe impl<T> Send for SameThread<T> {}

impl<T> SameThread<T> {
    /// The value (a method, so that a closure captures the wrapper whole).
    fn into_inner(self) -> T {
        self.0
    }
}

/// `N` environments stepped in one call, without the GIL (`cosched.gym.BatchVectorEnv` wraps
/// it, Gymnasium's next-step autoreset): `step()` reads `N` actions (int64) and the seeds of
/// the episodes to start (uint64, read for the environments whose episode ended at the last
/// step), and writes the observations, masks, rewards (float64), terminations (bool) and the
/// visible and waiting counts (int64) into the bytearrays given at construction. It returns
/// how many episodes ended.
#[pyclass(unsendable, module = "cosched")]
pub struct BatchVecEnv {
    cores: Vec<Core>,
    /// Whether each environment's episode ended at the last step (reset at the next).
    ended: Vec<bool>,
    reward_sign: f64,
    buffers: [Py<PyByteArray>; 7],
    /// Per environment after a step: the outcome.
    outcomes: Vec<Outcome>,
}

/// The buffers' order in [`BatchVecEnv::buffers`].
const ACTIONS: usize = 0;
const SEEDS: usize = 1;
const OBS: usize = 2;
const MASK: usize = 3;
const REWARDS: usize = 4;
const TERMINATED: usize = 5;
const COUNTS: usize = 6;

impl BatchVecEnv {
    /// Writes every environment's observation, mask, reward, termination and counts.
    fn write_all(&self, py: Python<'_>) -> PyResult<usize> {
        let n = self.cores.len();
        let c = &self.cores[0].config;
        let (len, k) = (c.observation_len(), c.queue_size);
        let b = |i: usize| self.buffers[i].bind(py);
        // SAFETY: the GIL is held and no Python code runs until the slices are dropped; the
        // buffers are distinct objects (checked at construction).
        let (obs, mask, rewards, terminated, counts) = unsafe {
            (
                bytes(b(OBS), 4 * len * n, "observation")?,
                bytes(b(MASK), k * n, "mask")?,
                bytes(b(REWARDS), 8 * n, "reward")?,
                bytes(b(TERMINATED), n, "termination")?,
                bytes(b(COUNTS), 16 * n, "count")?,
            )
        };
        let mut ended = 0;
        for (i, (core, &(visible, waiting, _, value))) in
            self.cores.iter().zip(&self.outcomes).enumerate()
        {
            core.write(
                &mut obs[4 * len * i..4 * len * (i + 1)],
                &mut mask[k * i..k * (i + 1)],
            );
            let done = visible == 0;
            ended += usize::from(done);
            let reward = if done { self.reward_sign * value } else { 0.0 };
            rewards[8 * i..8 * i + 8].copy_from_slice(&reward.to_le_bytes());
            terminated[i] = u8::from(done);
            counts[16 * i..16 * i + 8].copy_from_slice(&(visible as i64).to_le_bytes());
            counts[16 * i + 8..16 * i + 16].copy_from_slice(&(waiting as i64).to_le_bytes());
        }
        Ok(ended)
    }

    /// The `N` little-endian 8-byte words of buffer `which`.
    fn words(&self, py: Python<'_>, which: usize, what: &str) -> PyResult<Vec<u64>> {
        let n = self.cores.len();
        // SAFETY: the GIL is held and no Python code runs while the slice is read.
        let b = unsafe { bytes(self.buffers[which].bind(py), 8 * n, what)? };
        Ok(b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(<[u8; 8]>::try_from(c).unwrap_or([0; 8])))
            .collect())
    }
}

#[pymethods]
impl BatchVecEnv {
    /// `num_envs` environments of [`BatchEnv`]'s parameters; `buffers` are the bytearrays of
    /// the actions, seeds, observations, masks, rewards, terminations and counts, in this
    /// order.
    #[new]
    #[pyo3(signature = (workload, capacity, num_envs, buffers, *, episode_jobs=256, queue_size=128, backfill=false, metric="bsld", layout="rlscheduler"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        workload: &Workload,
        capacity: u32,
        num_envs: usize,
        buffers: [Py<PyByteArray>; 7],
        episode_jobs: usize,
        queue_size: usize,
        backfill: bool,
        metric: &str,
        layout: &str,
    ) -> PyResult<BatchVecEnv> {
        if num_envs == 0 || num_envs > 65_536 {
            return Err(PyValueError::new_err(
                "num_envs must be between 1 and 65536",
            ));
        }
        for (i, a) in buffers.iter().enumerate() {
            if buffers[..i].iter().any(|b| b.is(a)) {
                return Err(PyValueError::new_err(
                    "the buffers must be distinct bytearrays",
                ));
            }
        }
        let config = Config::new(
            workload,
            capacity,
            episode_jobs,
            queue_size,
            backfill,
            metric,
            layout,
        )?;
        Ok(BatchVecEnv {
            cores: (0..num_envs).map(|_| Core::new(config.clone())).collect(),
            ended: vec![false; num_envs],
            reward_sign: if config.metric == Metric::Utilization {
                1.0
            } else {
                -1.0
            },
            buffers,
            outcomes: vec![(0, 0, 0, 0.0); num_envs],
        })
    }

    /// Starts every environment's episode, of the seeds in the seeds buffer. Returns 0.
    fn reset(&mut self, py: Python<'_>) -> PyResult<usize> {
        let seeds = self.words(py, SEEDS, "seed")?;
        let work = SameThread((&mut self.cores, &mut self.outcomes));
        let result = py.detach(move || {
            let (cores, outcomes) = work.into_inner();
            for ((core, out), &seed) in cores.iter_mut().zip(outcomes.iter_mut()).zip(&seeds) {
                *out = core.reset(seed)?.0;
            }
            Ok::<_, String>(())
        });
        result.map_err(crate::CoschedError::new_err)?;
        self.ended.fill(false);
        self.write_all(py)
    }

    /// Steps every environment: those whose episode ended at the last step start the episode
    /// of their seed (their action ignored), the others apply their action.
    fn step(&mut self, py: Python<'_>) -> PyResult<usize> {
        let actions = self.words(py, ACTIONS, "action")?;
        let seeds = self.words(py, SEEDS, "seed")?;
        if self
            .cores
            .iter()
            .zip(&self.ended)
            .any(|(c, &e)| !e && c.episode.is_none())
        {
            return Err(PyRuntimeError::new_err("call reset() before step()"));
        }
        let work = SameThread((&mut self.cores, &mut self.outcomes, &mut self.ended));
        let result = py.detach(move || {
            let (cores, outcomes, ended) = work.into_inner();
            for (i, core) in cores.iter_mut().enumerate() {
                outcomes[i] = if ended[i] {
                    core.reset(seeds[i])?.0
                } else {
                    let action = usize::try_from(actions[i]).unwrap_or(usize::MAX);
                    core.resume(action)?
                };
                ended[i] = outcomes[i].0 == 0;
            }
            Ok::<_, String>(())
        });
        result.map_err(crate::CoschedError::new_err)?;
        self.write_all(py)
    }

    /// Floats per observation of one environment.
    #[getter]
    fn observation_len(&self) -> usize {
        self.cores[0].config.observation_len()
    }
}
