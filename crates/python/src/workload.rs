//! Workloads: read as `cosched simulate` reads a trace, built from columns (a DataFrame), or
//! generated as `cosched generate lublin` generates them.

use cosched_cli::generate::{LublinSource, Stream};
use cosched_cli::input;
use cosched_core::{Duration, JobId, RigidJob, Time};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;

/// A workload of rigid jobs, with the name the per-job table shows and the machine size its
/// source states (if any).
#[pyclass(frozen, module = "cosched")]
pub struct Workload {
    /// The valid jobs, in source order.
    pub jobs: Vec<RigidJob>,
    /// Batsim's `workload_name`.
    pub name: String,
    /// Batsim profile names (Batsim JSON input only).
    pub profiles: Option<Vec<String>>,
    /// The machine size the source states.
    pub capacity: Option<u32>,
    /// Records skipped as invalid (size 0, negative times), as the trace reader counts them.
    pub invalid: usize,
    /// `swf`, `batsim-json`, `columns` or `lublin`.
    pub format: String,
}

/// Little-endian i64s from a buffer `name` (what numpy's `tobytes()` gives for `<i8`).
fn int64s<'a>(name: &'a str, bytes: &'a [u8]) -> PyResult<impl Iterator<Item = i64> + 'a> {
    if !bytes.len().is_multiple_of(8) {
        return Err(PyValueError::new_err(format!(
            "column {name}: {} bytes is not a whole number of int64 values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(<[u8; 8]>::try_from(c).unwrap_or([0; 8]))))
}

#[pymethods]
impl Workload {
    /// Reads an SWF trace (plain or gzip) or a Batsim JSON workload, recognised by content,
    /// exactly as `cosched simulate --trace` reads it.
    #[staticmethod]
    fn read(py: Python<'_>, path: PathBuf) -> PyResult<Workload> {
        let w = py
            .detach(|| input::read(&path))
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(Workload {
            capacity: w
                .stated_capacity
                .and_then(|(c, _)| u32::try_from(c).ok())
                .filter(|&c| c > 0),
            invalid: w.invalid.len(),
            format: w.format.to_string(),
            name: w.name,
            profiles: w.profiles,
            jobs: w.jobs,
        })
    }

    /// A workload from int64 columns (little-endian bytes, one value per job): job ids,
    /// submit times, sizes, run times and estimates (seconds). A row that is not a valid job
    /// (size 0, a negative run time, ...) is skipped and counted in `invalid`, as the SWF
    /// reader does; a value out of range for its field is an error naming the row.
    #[staticmethod]
    #[pyo3(signature = (ids, submit, size, runtime, estimate, *, user=None, group=None, capacity=None, name="dataframe".to_string()))]
    #[allow(clippy::too_many_arguments)]
    fn from_columns(
        ids: &[u8],
        submit: &[u8],
        size: &[u8],
        runtime: &[u8],
        estimate: &[u8],
        user: Option<&[u8]>,
        group: Option<&[u8]>,
        capacity: Option<u32>,
        name: String,
    ) -> PyResult<Workload> {
        let n = ids.len();
        for (col, b) in [
            ("submit", submit),
            ("size", size),
            ("runtime", runtime),
            ("estimate", estimate),
            ("user", user.unwrap_or(ids)),
            ("group", group.unwrap_or(ids)),
        ] {
            if b.len() != n {
                return Err(PyValueError::new_err(format!(
                    "column {col} has {} values, job ids have {}",
                    b.len() / 8,
                    n / 8
                )));
            }
        }
        let mut jobs = Vec::with_capacity(n / 8);
        let mut invalid = 0;
        // A user or group id: -1 (SWF's "absent") or out of u32's range is none.
        let owner = |v: i64| u32::try_from(v).ok();
        let users: Vec<Option<u32>> = match user {
            Some(b) => int64s("user", b)?.map(owner).collect(),
            None => Vec::new(),
        };
        let groups: Vec<Option<u32>> = match group {
            Some(b) => int64s("group", b)?.map(owner).collect(),
            None => Vec::new(),
        };
        let rows = int64s("id", ids)?
            .zip(int64s("submit", submit)?)
            .zip(int64s("size", size)?)
            .zip(int64s("runtime", runtime)?)
            .zip(int64s("estimate", estimate)?);
        for (row, ((((id, submit), size), runtime), estimate)) in rows.enumerate() {
            let id = u64::try_from(id).map_err(|_| {
                PyValueError::new_err(format!("row {row}: job id {id} is negative"))
            })?;
            let Ok(size) = u32::try_from(size) else {
                invalid += 1;
                continue;
            };
            match RigidJob::new(
                JobId(id),
                Time(submit),
                size,
                Duration(runtime),
                Duration(estimate),
            ) {
                Ok(mut job) => {
                    job.user = users.get(row).copied().flatten();
                    job.group = groups.get(row).copied().flatten();
                    jobs.push(job);
                }
                Err(_) => invalid += 1,
            }
        }
        Ok(Workload {
            jobs,
            name,
            profiles: None,
            capacity,
            invalid,
            format: "columns".into(),
        })
    }

    /// `jobs` Lublin–Feitelson jobs with Tsafrir estimates on `capacity` units, as
    /// `cosched generate lublin` writes them (same parameters, same seed, same jobs),
    /// arrivals scaled to offered load `load` if given.
    #[staticmethod]
    #[pyo3(signature = (jobs, capacity, *, seed=1, load=None, stream="typeless", max_estimate_hours=36))]
    fn lublin(
        py: Python<'_>,
        jobs: u64,
        capacity: u32,
        seed: u64,
        load: Option<f64>,
        stream: &str,
        max_estimate_hours: i64,
    ) -> PyResult<Workload> {
        let stream = match stream {
            "typeless" => Stream::Typeless,
            "batch" => Stream::Batch,
            "interactive" => Stream::Interactive,
            "mixed" => Stream::Mixed,
            other => {
                return Err(PyValueError::new_err(format!(
                    "stream {other:?}: expected typeless, batch, interactive or mixed"
                )));
            }
        };
        let value_error = |e: cosched_core::ParamError| PyValueError::new_err(e.to_string());
        let out = py.detach(|| {
            let source = LublinSource::new(capacity, stream, max_estimate_hours, jobs, seed)?;
            let scaling = source.scaling(capacity, load)?;
            let mut out = Vec::new();
            source.for_each::<std::convert::Infallible>(&mut |job| {
                let mut job = *job;
                if let Some(s) = scaling {
                    job.submit = s.apply(job.submit);
                }
                out.push(job);
                Ok(())
            })?;
            Ok::<_, cosched_core::ParamError>(out)
        });
        Ok(Workload {
            jobs: out.map_err(value_error)?,
            name: format!("lublin_{jobs}_{capacity}_{seed}"),
            profiles: None,
            capacity: Some(capacity),
            invalid: 0,
            format: "lublin".into(),
        })
    }

    /// Batsim's `workload_name` for this workload.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The machine size the source states, if any.
    #[getter]
    fn capacity(&self) -> Option<u32> {
        self.capacity
    }

    /// Records skipped as invalid.
    #[getter]
    fn invalid(&self) -> usize {
        self.invalid
    }

    /// Where the jobs came from: `swf`, `batsim-json`, `columns` or `lublin`.
    #[getter]
    fn format(&self) -> &str {
        &self.format
    }

    fn __len__(&self) -> usize {
        self.jobs.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Workload(name={:?}, jobs={}, capacity={:?}, invalid={}, format={:?})",
            self.name,
            self.jobs.len(),
            self.capacity,
            self.invalid,
            self.format
        )
    }

    /// The jobs as int64 columns (little-endian bytes): `job_id`, `submit_time`, `size`,
    /// `run_time`, `requested_time`, `user_id` and `group_id` (-1 where absent, as in SWF).
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let column = |f: &dyn Fn(&RigidJob) -> i64| -> Vec<u8> {
            self.jobs.iter().flat_map(|j| f(j).to_le_bytes()).collect()
        };
        let id = |j: &RigidJob| i64::try_from(j.id.0).unwrap_or(i64::MAX);
        out.set_item("job_id", PyBytes::new(py, &column(&id)))?;
        out.set_item("submit_time", PyBytes::new(py, &column(&|j| j.submit.0)))?;
        out.set_item("size", PyBytes::new(py, &column(&|j| i64::from(j.size))))?;
        out.set_item("run_time", PyBytes::new(py, &column(&|j| j.runtime.0)))?;
        out.set_item(
            "requested_time",
            PyBytes::new(py, &column(&|j| j.estimate.0)),
        )?;
        let id_or_absent = |v: Option<u32>| v.map_or(-1, i64::from);
        out.set_item(
            "user_id",
            PyBytes::new(py, &column(&|j| id_or_absent(j.user))),
        )?;
        out.set_item(
            "group_id",
            PyBytes::new(py, &column(&|j| id_or_absent(j.group))),
        )?;
        Ok(out)
    }
}
