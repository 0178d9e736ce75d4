//! A batch policy written in Python, run by the Rust simulator beside the built-in ones.
//!
//! The Python object follows core's protocol (time and an observation in, commands out; see
//! `cosched_core::policy`): `observe(now, view)` returns the ids of the waiting jobs to start
//! now, in order; `start(now, view)` and `wake(now, view)` (optional) likewise;
//! `next_wake()` (optional) returns the next time it wants a `wake` call, or `None`. The
//! view is a [`BatchView`], a copy of the cluster at the call: the policy cannot mutate the
//! platform, and it never sees a job's real run time.

use crate::{CommandError, CoschedError};
use cosched_batch::{BatchCluster, BatchCommand, SchedulingPass};
use cosched_core::driver::CallError;
use cosched_core::policy::Policy;
use cosched_core::{JobId, Time};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::cell::RefCell;

/// The cluster as a Python policy sees it at one call: idle units, the waiting jobs in queue
/// order (submit time, then id) with what a scheduler may know of them, and the units running
/// jobs give back at their predicted ends.
#[pyclass(frozen, module = "cosched")]
pub struct BatchView {
    now: i64,
    capacity: u32,
    free_units: u32,
    queue: Vec<(u64, i64, u32, i64)>,
    releases: Vec<(i64, u32)>,
}

impl BatchView {
    fn new(now: Time, cluster: &BatchCluster) -> BatchView {
        BatchView {
            now: now.0,
            capacity: cluster.capacity(),
            free_units: cluster.free_units(),
            queue: cluster
                .queue()
                .map(|q| (q.job.id.0, q.job.submit.0, q.size(), q.estimate().0))
                .collect(),
            releases: cluster.releases().map(|(t, u)| (t.0, u)).collect(),
        }
    }
}

#[pymethods]
impl BatchView {
    /// The call's time, seconds.
    #[getter]
    fn now(&self) -> i64 {
        self.now
    }
    /// Units of the machine.
    #[getter]
    fn capacity(&self) -> u32 {
        self.capacity
    }
    /// Idle units.
    #[getter]
    fn free_units(&self) -> u32 {
        self.free_units
    }
    /// The waiting jobs in queue order, as `(job_id, submit_time, size, requested_time)`.
    #[getter]
    fn queue<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.queue)
    }
    /// `(predicted_end, units)` of the running jobs, by predicted end.
    #[getter]
    fn releases<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.releases)
    }
    fn __repr__(&self) -> String {
        format!(
            "BatchView(now={}, capacity={}, free_units={}, waiting={}, running={})",
            self.now,
            self.capacity,
            self.free_units,
            self.queue.len(),
            self.releases.len()
        )
    }
}

/// A Python object with a policy's optional methods: which it has, and `next_wake`'s
/// exception kept for the next call (`next_wake` has no error channel).
pub struct PyObjectPolicy {
    /// The object.
    pub object: Py<PyAny>,
    /// Whether it has `start`.
    pub has_start: bool,
    /// Whether it has `wake`.
    pub has_wake: bool,
    has_next_wake: bool,
    pending: RefCell<Option<PyErr>>,
}

impl PyObjectPolicy {
    /// Wraps `object`.
    pub fn new(object: Py<PyAny>) -> PyObjectPolicy {
        let (has_start, has_wake, has_next_wake) = Python::attach(|py| {
            let o = object.bind(py);
            let has = |name: &str| o.hasattr(name).unwrap_or(false);
            (has("start"), has("wake"), has("next_wake"))
        });
        PyObjectPolicy {
            object,
            has_start,
            has_wake,
            has_next_wake,
            pending: RefCell::new(None),
        }
    }

    /// The exception `next_wake` raised last, if it is still unreported.
    pub fn take_pending(&self) -> PyResult<()> {
        self.pending.borrow_mut().take().map_or(Ok(()), Err)
    }

    /// `next_wake()`'s answer; `None` when it has none or raised (kept for the next call).
    pub fn next_wake(&self) -> Option<Time> {
        if !self.has_next_wake {
            return None;
        }
        Python::attach(|py| {
            let answer = self
                .object
                .bind(py)
                .call_method0("next_wake")
                .and_then(|a| a.extract::<Option<i64>>());
            match answer {
                Ok(t) => t.map(Time),
                Err(e) => {
                    *self.pending.borrow_mut() = Some(e);
                    None
                }
            }
        })
    }
}

/// A Python object driven as a policy of the batch protocol.
pub struct PyPolicy {
    object: PyObjectPolicy,
}

impl PyPolicy {
    /// Wraps `object` (which must have `observe`).
    pub fn new(object: Py<PyAny>) -> PyPolicy {
        PyPolicy {
            object: PyObjectPolicy::new(object),
        }
    }

    /// The exception `next_wake` raised last, if it is still unreported.
    pub fn take_pending(&self) -> PyResult<()> {
        self.object.take_pending()
    }

    /// Calls `method(now, view)` and appends its commands to `out`.
    fn call(
        &self,
        method: &str,
        now: Time,
        cluster: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> PyResult<()> {
        self.take_pending()?;
        Python::attach(|py| {
            let view = Py::new(py, BatchView::new(now, cluster))?;
            let answer = self
                .object
                .object
                .bind(py)
                .call_method1(method, (now.0, view))?;
            if answer.is_none() {
                return Ok(());
            }
            let (first, mut free) = (out.len(), cluster.free_units());
            for item in answer.try_iter()? {
                let id: u64 = item?.extract().map_err(|_| {
                    CommandError::new_err(format!(
                        "{method} at t={}s returned something that is not a job id (an int)",
                        now.0
                    ))
                })?;
                let queued = cluster.queued_job(JobId(id)).ok_or_else(|| {
                    CommandError::new_err(format!(
                        "{method} at t={}s asked to start job {id}, which is not waiting",
                        now.0
                    ))
                })?;
                if out[first..].iter().any(|c| c.job().0 == JobId(id)) {
                    return Err(CommandError::new_err(format!(
                        "{method} at t={}s asked to start job {id} twice",
                        now.0
                    )));
                }
                free = free.checked_sub(queued.size()).ok_or_else(|| {
                    CommandError::new_err(format!(
                        "{method} at t={}s asked to start job {id} on {} units, but only {free} are idle",
                        now.0,
                        queued.size()
                    ))
                })?;
                out.push(BatchCommand::start(queued));
            }
            Ok(())
        })
    }
}

impl Policy for PyPolicy {
    type Observation = SchedulingPass;
    type Command = BatchCommand;
    type View = BatchCluster;
    type Error = PyErr;

    fn start(
        &mut self,
        now: Time,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> PyResult<()> {
        if self.object.has_start {
            self.call("start", now, view, out)?;
        }
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        _: &SchedulingPass,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> PyResult<()> {
        self.call("observe", now, view, out)
    }

    fn wake(
        &mut self,
        now: Time,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> PyResult<()> {
        if self.object.has_wake {
            self.call("wake", now, view, out)?;
        }
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        self.object.next_wake()
    }
}

/// The Python exception a policy raised, as it was (traceback kept), or the driver's round
/// limit as a [`CoschedError`].
pub fn into_py_err(e: CallError<PyErr>) -> PyErr {
    match e {
        CallError::Policy { source, .. } => source,
        rounds @ CallError::Rounds { .. } => CoschedError::new_err(rounds.map(|_| "").to_string()),
    }
}
