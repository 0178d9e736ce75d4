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
//! A step allocates nothing and copies no observation: the simulation writes each observation
//! straight into the buffer the Python side reads (a `bytearray` under a numpy view, pinned
//! for the environment's life so its memory never moves), over the last one ([`Window`]): only
//! the rows whose job changed, and the wait and fits columns when the time or the idle units
//! moved. A step is one call returning four numbers. [`BatchVecEnv`] steps `N` environments in
//! one call, without the GIL.

use crate::workload::Workload;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use cosched_batch::{BatchCluster, BatchCommand, BatchSim, Pass, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, JobId, RigidJob, Time};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyMemoryView};
use std::convert::Infallible;
use std::ptr::NonNull;
use std::sync::Arc;

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
    visible: usize,
    waiting: usize,
    /// The observation and the visible jobs built afresh from the pass, beside the
    /// incremental ones (what the tests compare).
    #[cfg(test)]
    fresh: Fresh,
    #[cfg(test)]
    ids: Vec<usize>,
}

/// An observation and its visible jobs, built afresh (tests).
#[cfg(test)]
type Fresh = (Vec<f32>, Vec<usize>);

/// The end of an episode: its metric, and the schedule's facts.
struct Finished {
    value: f64,
    makespan_s: i64,
    completed: usize,
}

/// Where an episode writes its observations: memory lent by each resume for that resume only
/// ([`Core::resume`]), the same for the whole episode, holding the last observation (the next
/// one is written over it).
#[derive(Clone, Copy)]
struct Out {
    ptr: NonNull<f32>,
    len: usize,
}

impl Out {
    fn of(obs: &mut [f32]) -> Out {
        let len = obs.len();
        Out {
            ptr: NonNull::from(obs).cast(),
            len,
        }
    }

    /// The lent memory.
    ///
    /// # Safety
    /// Only during the resume that lent it, and one slice at a time.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice<'a>(self) -> &'a mut [f32] {
        // SAFETY: `ptr` and `len` come from a `&mut [f32]` the resume in progress borrows.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// What resumes an episode: the agent's action, and where the next observation goes.
type Resume = (usize, Out);

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

/// The visible jobs of the last decision and how its observation was written, so that the
/// next one rewrites only what changed: rows whose job left (started) close up by moving the
/// rows behind them (a memmove per run of kept rows), jobs newly visible get their fixed row,
/// the wait column is rewritten when the time moved and the fits column when the idle units
/// changed; rows left empty become padding.
struct Window {
    /// Rows of the observation, `F` features each.
    features: usize,
    /// The visible jobs (episode numbers, increasing: queue order), one per row.
    ids: Vec<usize>,
    /// Their submit times and sizes, row by row (the changing columns' inputs).
    submits: Vec<i64>,
    sizes: Vec<u32>,
    /// The next episode job not yet considered: every waiting job before it is visible.
    scan: usize,
    /// The time and idle units the wait and fits columns were written for.
    now: Option<Time>,
    free: u32,
}

/// The two changing features of a row: the wait, and whether the job fits now.
#[derive(Clone, Copy)]
struct Changing {
    cap: f32,
    fits: (f32, f32),
}

impl Layout {
    fn changing(self) -> Changing {
        match self {
            Layout::RlScheduler => Changing {
                cap: CAP,
                fits: (CAP, 1e-5),
            },
            Layout::Compact => Changing {
                cap: 1.0,
                fits: (1.0, 0.0),
            },
        }
    }
}

impl Changing {
    /// The wait column of a job submitted at `submit`, at `now`.
    #[inline]
    fn wait(self, now: Time, submit: i64) -> f32 {
        (((now.0 - submit) as f64 / MAX_WAIT_S) as f32).clamp(0.0, self.cap)
    }

    /// The fits column of a job of `size` units with `free` idle.
    #[inline]
    fn fits(self, size: u32, free: u32) -> f32 {
        if size <= free {
            self.fits.0
        } else {
            self.fits.1
        }
    }
}

/// What an episode's observation is built from.
#[derive(Clone, Copy)]
struct Sources<'a> {
    /// The episode's jobs, numbered 0, 1, … in queue order (submit time, then id).
    jobs: &'a [RigidJob],
    /// Each job's observation row with its two changing features left to fill ([`fixed_row`]).
    rows: &'a [f32],
    /// One padding row (what an empty slot shows).
    padding: &'a [f32],
    changing: Changing,
}

impl Window {
    fn new(features: usize, queue_size: usize) -> Window {
        Window {
            features,
            ids: Vec::with_capacity(queue_size),
            submits: Vec::with_capacity(queue_size),
            sizes: Vec::with_capacity(queue_size),
            scan: 0,
            now: None,
            free: 0,
        }
    }

    /// Writes the observation at `now` with `free` idle units over the last one in `out`
    /// (padding rows at the episode's start): the first `queue_size` waiting jobs, of the
    /// `arrived` first jobs of the episode those that have not `started`.
    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
        src: &Sources<'_>,
        started: &[bool],
        arrived: usize,
        queue_size: usize,
        now: Time,
        free: u32,
        out: &mut [f32],
    ) {
        let f = self.features;
        let gone = |id: usize| started.get(id).copied().unwrap_or(true);
        // Close up over the rows whose job started, run by run.
        let before = self.ids.len();
        let (mut kept, mut r) = (0, 0);
        while r < before {
            if gone(self.ids[r]) {
                r += 1;
                continue;
            }
            let from = r;
            while r < before && !gone(self.ids[r]) {
                r += 1;
            }
            if kept != from {
                out.copy_within(from * f..r * f, kept * f);
                self.ids.copy_within(from..r, kept);
                self.submits.copy_within(from..r, kept);
                self.sizes.copy_within(from..r, kept);
            }
            kept += r - from;
        }
        self.ids.truncate(kept);
        self.submits.truncate(kept);
        self.sizes.truncate(kept);
        // Jobs newly visible: those behind the last visible one that have not started.
        let arrived = arrived.min(src.jobs.len()).min(started.len());
        while self.ids.len() < queue_size && self.scan < arrived {
            let id = self.scan;
            self.scan += 1;
            if started[id] {
                continue;
            }
            let row = self.ids.len();
            let (Some(o), Some(fixed)) = (
                out.get_mut(row * f..(row + 1) * f),
                src.rows.get(id * f..(id + 1) * f),
            ) else {
                break;
            };
            o.copy_from_slice(fixed);
            self.ids.push(id);
            self.submits.push(src.jobs[id].submit.0);
            self.sizes.push(src.jobs[id].size);
        }
        let rows = self.ids.len();
        // The changing columns: of every row when their input changed, else of the new rows.
        let c = src.changing;
        let from = if self.now == Some(now) { kept } else { 0 };
        for (row, &submit) in self.submits.iter().enumerate().skip(from) {
            out[row * f] = c.wait(now, submit);
        }
        let from = if self.free == free && self.now.is_some() {
            kept
        } else {
            0
        };
        for (row, &size) in self.sizes.iter().enumerate().skip(from) {
            out[row * f + f - 1] = c.fits(size, free);
        }
        (self.now, self.free) = (Some(now), free);
        // Rows emptied since the last observation.
        for o in out[rows * f..before.max(rows) * f].chunks_exact_mut(f) {
            o.copy_from_slice(src.padding);
        }
    }
}

/// The policy of the simulation: it asks the agent (suspending the run), then applies the pick.
struct AgentPolicy<'y> {
    agent: &'y Yielder<Resume, Decision>,
    queue_size: usize,
    backfill: bool,
    src: Sources<'y>,
    /// Whether each job has started (only this policy starts jobs).
    started: Vec<bool>,
    /// Jobs started so far, and before the pass in progress.
    starts: usize,
    starts_before_pass: usize,
    window: Window,
    /// The pick not yet started (its episode number).
    pick: Option<usize>,
    /// Where the observation goes (lent by the resume in progress).
    out: Out,
}

impl AgentPolicy<'_> {
    /// Asks the agent for the next pick among the first `queue_size` waiting jobs.
    fn ask(&mut self, now: Time, pass: &Pass<'_>) -> Option<usize> {
        // Every job that arrived either waits or started: none leaves the queue otherwise.
        let arrived = self.starts_before_pass + pass.view().queue_len();
        // SAFETY: the memory the resume in progress lent, the only slice of it.
        let features = unsafe { self.out.slice() };
        self.window.update(
            &self.src,
            &self.started,
            arrived,
            self.queue_size,
            now,
            pass.free_units(),
            features,
        );
        let visible = self.window.ids.len();
        if visible == 0 {
            return None;
        }
        let (action, out) = self.agent.suspend(Decision {
            now,
            visible,
            waiting: arrived - self.starts,
            #[cfg(test)]
            fresh: self.fresh(now, pass),
            #[cfg(test)]
            ids: self.window.ids.clone(),
        });
        self.out = out;
        Some(self.window.ids[action.min(visible - 1)])
    }

    /// Starts the job at `pos` of the pass, noting it.
    fn start(&mut self, pass: &mut Pass<'_>, pos: usize) -> bool {
        let Some(id) = pass.job(pos).map(|q| q.job.id.0) else {
            return false;
        };
        if pass.start(pos).is_err() {
            return false;
        }
        if let Some(s) = usize::try_from(id)
            .ok()
            .and_then(|i| self.started.get_mut(i))
        {
            *s = true;
        }
        self.starts += 1;
        true
    }

    /// The observation and the visible jobs built afresh from `pass`, in queue order.
    #[cfg(test)]
    fn fresh(&self, now: Time, pass: &Pass<'_>) -> Fresh {
        let f = self.src.padding.len();
        let mut out: Vec<f32> = self.src.padding.repeat(self.queue_size);
        let mut ids = Vec::new();
        let mut from = 0;
        while ids.len() < self.queue_size {
            let Some(pos) = pass.next_queued(from) else {
                break;
            };
            from = pos + 1;
            let q = pass.job(pos).expect("a queued job");
            let id = q.job.id.0 as usize;
            let row = &mut out[ids.len() * f..(ids.len() + 1) * f];
            row.copy_from_slice(&self.src.rows[id * f..(id + 1) * f]);
            row[0] = self.src.changing.wait(now, q.job.submit.0);
            row[f - 1] = self.src.changing.fits(q.size(), pass.free_units());
            ids.push(id);
        }
        (out, ids)
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
        self.starts_before_pass = self.starts;
        loop {
            let pick = match self.pick {
                Some(job) => job,
                None => match self.ask(now, &pass) {
                    Some(job) => job,
                    None => break,
                },
            };
            self.pick = Some(pick);
            // By its queue key (no lookup by id: the queue keeps no index by id then).
            let submit = self.src.jobs.get(pick).map_or(Time(i64::MIN), |j| j.submit);
            let Some(pos) = pass.position_of_key(submit, JobId(pick as u64)) else {
                // Not waiting any more (cannot happen: only this policy starts jobs).
                self.pick = None;
                continue;
            };
            let size = pass.job(pos).map_or(0, |q| q.size());
            if size <= pass.free_units() && self.start(&mut pass, pos) {
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
                    if self.start(&mut pass, at) && estimate > until {
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
    jobs: Arc<[RigidJob]>,
    capacity: u32,
    episode_jobs: usize,
    queue_size: usize,
    layout: Layout,
    metric: Metric,
    backfill: bool,
    /// Every job's observation row ([`fixed_row`]), in `jobs`' order.
    rows: Arc<[f32]>,
    /// One padding row.
    padding: &'static [f32],
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
    /// The configuration over `jobs` (those that fit `capacity`, in queue order), or why the
    /// parameters are refused.
    fn build(
        jobs: &[RigidJob],
        capacity: u32,
        episode_jobs: usize,
        queue_size: usize,
        backfill: bool,
        metric: &str,
        layout: &str,
    ) -> Result<Config, String> {
        if capacity == 0 {
            return Err("capacity must be at least 1".to_owned());
        }
        let mut jobs: Vec<RigidJob> = jobs
            .iter()
            .filter(|j| j.size <= capacity)
            .copied()
            .collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
        if episode_jobs == 0 || episode_jobs > jobs.len() {
            return Err(format!(
                "episode_jobs must be between 1 and the {} jobs that fit on {capacity} units",
                jobs.len()
            ));
        }
        if queue_size == 0 || queue_size > 4096 {
            return Err("queue_size must be between 1 and 4096".to_owned());
        }
        let metric = match metric {
            "bsld" => Metric::BoundedSlowdown,
            "wait" => Metric::Wait,
            "turnaround" => Metric::Turnaround,
            "utilization" => Metric::Utilization,
            other => {
                return Err(format!(
                    "metric {other:?}: expected bsld, wait, turnaround or utilization"
                ));
            }
        };
        let layout = match layout {
            "rlscheduler" => Layout::RlScheduler,
            "compact" => Layout::Compact,
            other => return Err(format!("layout {other:?}: expected rlscheduler or compact")),
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
        Ok(Config {
            padding: match layout {
                Layout::RlScheduler => &[0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
                Layout::Compact => &[0.0; 4],
            },
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

/// One environment: the episode in progress. Its observations go into the memory each resume
/// lends, the same for a whole episode.
struct Core {
    config: Config,
    episode: Option<Episode>,
    /// The last finished episode's stack, for the next.
    stack: Option<DefaultStack>,
    /// Jobs visible at the pending decision.
    visible: usize,
    /// The pending decision's observation and visible jobs afresh, and its visible jobs
    /// (tests).
    #[cfg(test)]
    last: Option<(Fresh, Vec<usize>)>,
}

impl Core {
    fn new(config: Config) -> Core {
        Core {
            config,
            episode: None,
            stack: None,
            visible: 0,
            #[cfg(test)]
            last: None,
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

    /// Starts the episode of `seed`, its observations into `obs`: its first decision, and its
    /// first job's index.
    fn reset(&mut self, seed: u64, obs: &mut [f32]) -> Result<(Outcome, usize), String> {
        self.episode = None;
        let start = self.first_job(seed);
        let c = self.config.clone();
        let stack = match self.stack.take() {
            Some(stack) => stack,
            None => DefaultStack::new(EPISODE_STACK).map_err(|e| e.to_string())?,
        };
        self.episode = Some(Coroutine::with_stack(
            stack,
            move |agent: &Yielder<Resume, Decision>, (_, out): Resume| {
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
                // The memory holds an earlier episode's observation, or zeros: all padding.
                // SAFETY: the memory the first resume lent, the only slice of it.
                for row in unsafe { out.slice() }.chunks_exact_mut(f) {
                    row.copy_from_slice(c.padding);
                }
                let mut policy = AgentPolicy {
                    agent,
                    queue_size: c.queue_size,
                    backfill: c.backfill,
                    src: Sources {
                        jobs: &jobs,
                        rows: &c.rows[start * f..(start + c.episode_jobs) * f],
                        padding: c.padding,
                        changing: c.layout.changing(),
                    },
                    started: vec![false; c.episode_jobs],
                    starts: 0,
                    starts_before_pass: 0,
                    window: Window::new(f, c.queue_size),
                    pick: None,
                    out,
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
        Ok((self.resume(0, obs)?, start))
    }

    /// Resumes the episode with `action` (an index past the visible jobs picks the last), the
    /// next observation written over the last one in `obs` (the memory of the whole episode;
    /// at its end, `obs` keeps the last observation).
    fn resume(&mut self, action: usize, obs: &mut [f32]) -> Result<Outcome, String> {
        let episode = self
            .episode
            .as_mut()
            .ok_or_else(|| "call reset() before step()".to_owned())?;
        if obs.len() != self.config.observation_len() {
            return Err(format!(
                "the observation has {} floats, expected {}",
                obs.len(),
                self.config.observation_len()
            ));
        }
        // The episode writes into `obs` during this call only (`Out`).
        match episode.resume((action, Out::of(obs))) {
            CoroutineResult::Yield(d) => {
                self.visible = d.visible;
                #[cfg(test)]
                {
                    self.last = Some((d.fresh, d.ids));
                }
                Ok((d.visible, d.waiting, d.now.0, 0.0))
            }
            CoroutineResult::Return(result) => {
                self.stack = self.episode.take().map(Coroutine::into_stack);
                self.visible = 0;
                let f = result?;
                Ok((0, f.completed, f.makespan_s, f.value))
            }
        }
    }

    /// The action mask of the pending decision into `mask` (none valid at an episode's end).
    fn write_mask(&self, mask: &mut [u8]) {
        let visible = self.visible.min(mask.len());
        mask[..visible].fill(1);
        mask[visible..].fill(0);
    }
}

/// A bytearray the environment writes into or reads from, pinned: a memoryview of it, held
/// as long as the environment, keeps Python from resizing it (a bytearray with an export
/// refuses), so its memory stays where it was at construction.
struct Pinned {
    _pin: Py<PyMemoryView>,
    ptr: NonNull<u8>,
    len: usize,
}

impl Pinned {
    /// `buffer`, checked to be `len` bytes long and aligned for `f32` (and so for the bytes).
    fn new(buffer: &Bound<'_, PyByteArray>, len: usize, what: &str) -> PyResult<Pinned> {
        let pin = PyMemoryView::from(buffer.as_any())?.unbind();
        // SAFETY: the GIL is held and no Python code runs while the slice is used.
        let bytes = unsafe { buffer.as_bytes_mut() };
        if bytes.len() != len {
            return Err(PyValueError::new_err(format!(
                "the {what} buffer has {} bytes, expected {len}",
                bytes.len()
            )));
        }
        if bytes.as_ptr().align_offset(align_of::<f32>()) != 0 {
            return Err(PyValueError::new_err(format!(
                "the {what} buffer is not aligned for float32"
            )));
        }
        Ok(Pinned {
            _pin: pin,
            ptr: NonNull::from(bytes).cast(),
            len,
        })
    }

    /// The bytes.
    ///
    /// # Safety
    /// No Python code reads or writes the bytearray while the slice lives, and it is the only
    /// slice of it (the environments' methods take `&mut self`, and the pyclass is unsendable).
    #[allow(clippy::mut_from_ref)]
    unsafe fn bytes<'a>(&self) -> &'a mut [u8] {
        // SAFETY: the pin keeps the memory in place; exclusive as the caller promises.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The bytes as native `f32` (aligned: checked at construction).
    ///
    /// # Safety
    /// As [`Pinned::bytes`].
    #[allow(clippy::mut_from_ref)]
    unsafe fn floats<'a>(&self) -> &'a mut [f32] {
        // SAFETY: aligned, `len / 4` whole floats inside the pinned memory; exclusive as the
        // caller promises.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast(), self.len / 4) }
    }
}

/// Refuses buffers that are the same object (each must be written alone).
fn distinct(buffers: &[&Py<PyByteArray>]) -> PyResult<()> {
    for (i, a) in buffers.iter().enumerate() {
        if buffers[..i].iter().any(|b| b.is(*a)) {
            return Err(PyValueError::new_err(
                "the buffers must be distinct bytearrays",
            ));
        }
    }
    Ok(())
}

/// An environment's parameters (`cosched.gym` makes one per environment and passes it to
/// [`BatchEnv`] or [`BatchVecEnv`]): `episode_jobs` consecutive jobs of `workload` an episode,
/// on `capacity` units, the first `queue_size` waiting jobs visible, the pick's wait for its
/// units backfilled or not, the reward's `metric` and the observation's `layout`.
#[pyclass(frozen, module = "cosched")]
pub struct EnvConfig {
    config: Config,
}

#[pymethods]
impl EnvConfig {
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
    ) -> PyResult<EnvConfig> {
        Config::build(
            &workload.jobs,
            capacity,
            episode_jobs,
            queue_size,
            backfill,
            metric,
            layout,
        )
        .map(|config| EnvConfig { config })
        .map_err(PyValueError::new_err)
    }

    /// Floats per observation (`queue_size × features`).
    #[getter]
    fn observation_len(&self) -> usize {
        self.config.observation_len()
    }

    /// Features per visible job.
    #[getter]
    fn features(&self) -> usize {
        self.config.layout.features()
    }

    /// Waiting jobs visible (the action space's size).
    #[getter]
    fn queue_size(&self) -> usize {
        self.config.queue_size
    }

    /// The reward's sign: +1 for utilisation, −1 for the other metrics.
    #[getter]
    fn reward_sign(&self) -> f64 {
        self.config.metric.reward_sign()
    }
}

impl Metric {
    fn reward_sign(self) -> f64 {
        if self == Metric::Utilization {
            1.0
        } else {
            -1.0
        }
    }
}

/// The environment's core (`cosched.gym.BatchSchedulingEnv` wraps it): `reset(seed)` starts an
/// episode, `step(action)` applies a pick; both write the observation (float32) and the
/// action mask (int8) into the bytearrays given at construction and return
/// `(visible, waiting, now, value)`: `visible` ≥ 1 at a decision; 0 at the end, with
/// `waiting` = the jobs completed, `now` = the makespan and `value` the metric.
#[pyclass(unsendable, module = "cosched")]
pub struct BatchEnv {
    core: Core,
    obs: Pinned,
    mask: Pinned,
}

impl BatchEnv {
    /// The observation buffer, and the outcome's mask written.
    fn mask(&self, outcome: Outcome) -> Outcome {
        // SAFETY: the GIL is held and no Python code runs while the slice lives.
        self.core.write_mask(unsafe { self.mask.bytes() });
        outcome
    }
}

#[pymethods]
impl BatchEnv {
    /// An environment of `config`: observations into `obs` (`4 × observation_len` bytes,
    /// native float32), masks into `mask` (`queue_size` bytes). Both are pinned (cannot be
    /// resized) while the environment lives.
    #[new]
    fn new(
        config: &EnvConfig,
        obs: Bound<'_, PyByteArray>,
        mask: Bound<'_, PyByteArray>,
    ) -> PyResult<BatchEnv> {
        distinct(&[&obs.clone().unbind(), &mask.clone().unbind()])?;
        let c = &config.config;
        Ok(BatchEnv {
            obs: Pinned::new(&obs, 4 * c.observation_len(), "observation")?,
            mask: Pinned::new(&mask, c.queue_size, "mask")?,
            core: Core::new(c.clone()),
        })
    }

    /// Starts the episode of `seed`: jobs `start .. start + episode_jobs` of the workload
    /// (in submit order), `start` drawn from the seed. Returns the first decision and `start`.
    fn reset(&mut self, seed: u64) -> PyResult<(Outcome, usize)> {
        // SAFETY: the GIL is held and no Python code runs while the slice lives.
        let obs = unsafe { self.obs.floats() };
        let (outcome, start) = self
            .core
            .reset(seed, obs)
            .map_err(crate::CoschedError::new_err)?;
        Ok((self.mask(outcome), start))
    }

    /// Applies `action` (the index of the pick among the visible jobs; an index past them
    /// picks the last visible job, as the action mask forbids).
    fn step(&mut self, action: usize) -> PyResult<Outcome> {
        if self.core.episode.is_none() {
            return Err(PyRuntimeError::new_err("call reset() before step()"));
        }
        // SAFETY: the GIL is held and no Python code runs while the slice lives.
        let obs = unsafe { self.obs.floats() };
        let outcome = self
            .core
            .resume(action, obs)
            .map_err(crate::CoschedError::new_err)?;
        Ok(self.mask(outcome))
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
/// step), and writes the observations (native float32, environment after environment), masks,
/// rewards (float64), terminations (bool) and the visible and waiting counts (int64) into the
/// bytearrays given at construction, pinned while it lives. It returns how many episodes
/// ended. The observations are written while the GIL is released: another thread must not
/// read them during `step()` or `reset()`.
#[pyclass(unsendable, module = "cosched")]
pub struct BatchVecEnv {
    cores: Vec<Core>,
    /// Whether each environment's episode ended at the last step (reset at the next).
    ended: Vec<bool>,
    reward_sign: f64,
    buffers: [Pinned; 7],
    /// Per environment after a step: the outcome.
    outcomes: Vec<Outcome>,
    /// The actions and seeds read at a step (kept to reuse their memory).
    actions: Vec<u64>,
    seeds: Vec<u64>,
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
    /// Writes every environment's mask, reward, termination and counts (the observations are
    /// written by the steps themselves).
    fn write_all(&self) -> usize {
        let k = self.cores[0].config.queue_size;
        let b = |i: usize| {
            // SAFETY: the GIL is held and no Python code runs while the slices live; the
            // buffers are distinct objects (checked at construction).
            unsafe { self.buffers[i].bytes() }
        };
        let (mask, rewards, terminated, counts) = (b(MASK), b(REWARDS), b(TERMINATED), b(COUNTS));
        let mut ended = 0;
        let scalars = rewards
            .chunks_exact_mut(8)
            .zip(terminated.iter_mut())
            .zip(counts.chunks_exact_mut(16));
        for (((core, &(visible, waiting, _, value)), m), ((r, t), n)) in self
            .cores
            .iter()
            .zip(&self.outcomes)
            .zip(mask.chunks_exact_mut(k))
            .zip(scalars)
        {
            core.write_mask(m);
            let done = visible == 0;
            ended += usize::from(done);
            let reward = if done { self.reward_sign * value } else { 0.0 };
            r.copy_from_slice(&reward.to_le_bytes());
            *t = u8::from(done);
            n[..8].copy_from_slice(&(visible as i64).to_le_bytes());
            n[8..].copy_from_slice(&(waiting as i64).to_le_bytes());
        }
        ended
    }

    /// Reads the `N` little-endian 8-byte words of buffer `which` into `into`.
    fn words(&self, which: usize, into: &mut Vec<u64>) {
        // SAFETY: the GIL is held and no Python code runs while the slice is read.
        let b = unsafe { self.buffers[which].bytes() };
        into.clear();
        into.extend(
            b.chunks_exact(8)
                .map(|c| u64::from_le_bytes(<[u8; 8]>::try_from(c).unwrap_or([0; 8]))),
        );
    }

    /// Runs `each` on every environment with its observation memory, without the GIL.
    fn each(
        &mut self,
        py: Python<'_>,
        each: impl Fn(usize, &mut Core, &mut [f32]) -> Result<Outcome, String>,
    ) -> PyResult<()> {
        let len = self.cores[0].config.observation_len();
        // SAFETY: the GIL is held until `detach`; then no Python code of this thread runs, and
        // other threads must not touch the observations during the call (the class's docs).
        let obs = unsafe { self.buffers[OBS].floats() };
        let work = SameThread((&mut self.cores, &mut self.outcomes, obs, &each));
        py.detach(move || {
            let (cores, outcomes, obs, each) = work.into_inner();
            for (i, ((core, out), o)) in cores
                .iter_mut()
                .zip(outcomes.iter_mut())
                .zip(obs.chunks_exact_mut(len))
                .enumerate()
            {
                *out = each(i, core, o)?;
            }
            Ok::<_, String>(())
        })
        .map_err(crate::CoschedError::new_err)
    }
}

#[pymethods]
impl BatchVecEnv {
    /// `num_envs` environments of `config`; `buffers` are the bytearrays of the actions,
    /// seeds, observations, masks, rewards, terminations and counts, in this order.
    #[new]
    fn new(
        config: &EnvConfig,
        num_envs: usize,
        buffers: [Bound<'_, PyByteArray>; 7],
    ) -> PyResult<BatchVecEnv> {
        if num_envs == 0 || num_envs > 65_536 {
            return Err(PyValueError::new_err(
                "num_envs must be between 1 and 65536",
            ));
        }
        let owned = buffers.each_ref().map(|b| b.clone().unbind());
        distinct(&owned.each_ref())?;
        let config = &config.config;
        let (n, len, k) = (num_envs, config.observation_len(), config.queue_size);
        let sizes = [8 * n, 8 * n, 4 * len * n, k * n, 8 * n, n, 16 * n];
        let names = [
            "action",
            "seed",
            "observation",
            "mask",
            "reward",
            "termination",
            "count",
        ];
        let mut pinned = Vec::with_capacity(7);
        for ((b, size), name) in buffers.iter().zip(sizes).zip(names) {
            pinned.push(Pinned::new(b, size, name)?);
        }
        let buffers: [Pinned; 7] = pinned
            .try_into()
            .map_err(|_| PyValueError::new_err("seven buffers"))?;
        Ok(BatchVecEnv {
            cores: (0..num_envs).map(|_| Core::new(config.clone())).collect(),
            ended: vec![false; num_envs],
            reward_sign: config.metric.reward_sign(),
            buffers,
            outcomes: vec![(0, 0, 0, 0.0); num_envs],
            actions: Vec::with_capacity(num_envs),
            seeds: Vec::with_capacity(num_envs),
        })
    }

    /// Starts every environment's episode, of the seeds in the seeds buffer. Returns 0.
    fn reset(&mut self, py: Python<'_>) -> PyResult<usize> {
        let mut seeds = std::mem::take(&mut self.seeds);
        self.words(SEEDS, &mut seeds);
        let result = self.each(py, |i, core, obs| Ok(core.reset(seeds[i], obs)?.0));
        self.seeds = seeds;
        result?;
        self.ended.fill(false);
        Ok(self.write_all())
    }

    /// Steps every environment: those whose episode ended at the last step start the episode
    /// of their seed (their action ignored), the others apply their action.
    fn step(&mut self, py: Python<'_>) -> PyResult<usize> {
        if self
            .cores
            .iter()
            .zip(&self.ended)
            .any(|(c, &e)| !e && c.episode.is_none())
        {
            return Err(PyRuntimeError::new_err("call reset() before step()"));
        }
        let (mut actions, mut seeds) = (
            std::mem::take(&mut self.actions),
            std::mem::take(&mut self.seeds),
        );
        self.words(ACTIONS, &mut actions);
        self.words(SEEDS, &mut seeds);
        let ended = std::mem::take(&mut self.ended);
        let result = self.each(py, |i, core, obs| {
            if ended[i] {
                Ok(core.reset(seeds[i], obs)?.0)
            } else {
                core.resume(usize::try_from(actions[i]).unwrap_or(usize::MAX), obs)
            }
        });
        (self.actions, self.seeds) = (actions, seeds);
        self.ended = ended;
        result?;
        for (e, o) in self.ended.iter_mut().zip(&self.outcomes) {
            *e = o.0 == 0;
        }
        Ok(self.write_all())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Runs episodes of `config` from `seeds`, picking with a generator of `agent` (an index
    /// up to two past the visible jobs), and checks every decision's incremental observation
    /// and visible jobs against the ones built afresh. Returns the decisions checked.
    fn check_episodes(config: Config, seeds: &[u64], agent: u64) -> usize {
        let mut obs = vec![0.0; config.observation_len()];
        let mut core = Core::new(config);
        let mut rng = agent | 1;
        let mut decisions = 0;
        for &seed in seeds {
            let (mut outcome, _) = core.reset(seed, &mut obs).expect("an episode");
            while outcome.0 > 0 {
                let ((fresh, fresh_ids), ids) = core.last.take().expect("a decision");
                assert_eq!(ids, fresh_ids, "visible jobs at decision {decisions}");
                assert_eq!(outcome.0, ids.len());
                assert_eq!(obs, fresh, "observation at decision {decisions}");
                decisions += 1;
                // xorshift64
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let action = (rng % (outcome.0 as u64 + 2)) as usize;
                outcome = core.resume(action, &mut obs).expect("a step");
            }
            assert_eq!(outcome.1, core.config.episode_jobs, "every job completes");
        }
        decisions
    }

    prop_compose! {
        /// A trace of up to 200 jobs on `capacity` units, with simultaneous arrivals, jobs
        /// too wide for the machine and estimates below the run time.
        fn trace()(capacity in 1u32..48, n in 2usize..200)
            (capacity in Just(capacity),
             jobs in prop::collection::vec(
                 (0i64..900, 1u32..64, 0i64..6_000, -600i64..6_000), n))
            -> (u32, Vec<RigidJob>) {
            let mut submit = 0;
            let jobs = jobs.into_iter().enumerate().map(|(i, (gap, size, run, slack))| {
                submit += if gap < 300 { 0 } else { gap };
                RigidJob {
                    id: JobId(1_000 - i as u64),
                    submit: Time(submit),
                    size,
                    runtime: Duration(run),
                    estimate: Duration((run + slack).max(1)),
                    user: (i % 3 > 0).then_some(i as u32 % 7),
                    group: None,
                }
            }).collect();
            (capacity, jobs)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn the_incremental_observation_is_the_one_built_afresh(
            (capacity, jobs) in trace(),
            episode in 1usize..200,
            queue_size in 1usize..12,
            backfill: bool,
            compact: bool,
            seeds in prop::collection::vec(any::<u64>(), 1..4),
            agent: u64,
        ) {
            let fit = jobs.iter().filter(|j| j.size <= capacity).count();
            prop_assume!(fit > 0);
            let layout = if compact { "compact" } else { "rlscheduler" };
            let config = Config::build(&jobs, capacity, episode.min(fit), queue_size, backfill,
                                       "bsld", layout).expect("valid parameters");
            check_episodes(config, &seeds, agent);
        }
    }

    #[test]
    fn the_incremental_observation_is_the_one_built_afresh_on_the_shipped_sample() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/python/cosched/data/SDSC-SP2-sample-4961.swf.gz"
        );
        let jobs = cosched_cli::input::read(std::path::Path::new(path))
            .expect("the sample")
            .jobs;
        for (backfill, queue_size, layout) in [
            (false, 128, "rlscheduler"),
            (true, 128, "rlscheduler"),
            (true, 16, "compact"),
        ] {
            let config = Config::build(&jobs, 128, 512, queue_size, backfill, "bsld", layout)
                .expect("valid parameters");
            assert!(check_episodes(config, &[1, 2, 3], 7) > 300);
        }
    }

    #[test]
    fn parameters_out_of_range_are_refused() {
        let job = RigidJob::new(JobId(1), Time(0), 2, Duration(5), Duration(9)).expect("a job");
        let build = |capacity, episode, queue, metric, layout| {
            Config::build(&[job], capacity, episode, queue, false, metric, layout).err()
        };
        assert!(build(0, 1, 1, "bsld", "compact").is_some_and(|e| e.contains("capacity")));
        assert!(build(1, 1, 1, "bsld", "compact").is_some_and(|e| e.contains("episode_jobs")));
        assert!(build(2, 1, 0, "bsld", "compact").is_some_and(|e| e.contains("queue_size")));
        assert!(build(2, 1, 1, "mean", "compact").is_some_and(|e| e.contains("metric")));
        assert!(build(2, 1, 1, "wait", "image").is_some_and(|e| e.contains("layout")));
        assert!(build(2, 1, 1, "wait", "compact").is_none());
    }
}
