//! One simulation's outputs, written by the CLI's own writers: the per-job table (Batsim's
//! `_jobs.csv`), the summary row (`summary.csv`'s columns), the report and the time series.

use crate::policy::{PyPolicy, into_py_err};
use crate::workload::Workload;
use crate::{CommandError, CoschedError};
use cosched_batch::{BatchError, BatchSim, SimError, SimOutcome};
use cosched_cli::batch_run::PolicyChoice;
use cosched_cli::jobs_csv::{self, WorkloadInfo};
use cosched_cli::summary::Row;
use cosched_cli::timeseries;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use std::time::Instant;

/// What one run gives back (the Python layer builds DataFrames from it).
#[pyclass(frozen, module = "cosched")]
pub struct RunOutput {
    policy: String,
    jobs_csv: Vec<u8>,
    summary_json: String,
    report_json: String,
    series_csv: String,
    elapsed_s: f64,
}

#[pymethods]
impl RunOutput {
    /// The policy's name.
    #[getter]
    fn policy(&self) -> &str {
        &self.policy
    }
    /// The per-job table, as `cosched simulate` writes `P_jobs.csv`.
    #[getter]
    fn jobs_csv<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.jobs_csv)
    }
    /// The summary row (the columns of `summary.csv`) as JSON.
    #[getter]
    fn summary_json(&self) -> &str {
        &self.summary_json
    }
    /// The run's report (counts, span, utilisation, per-class summaries) as JSON.
    #[getter]
    fn report_json(&self) -> &str {
        &self.report_json
    }
    /// Utilisation, queue length and running jobs over time, as `timeseries.csv`.
    #[getter]
    fn series_csv(&self) -> &str {
        &self.series_csv
    }
    /// Wall time of the simulation alone, seconds.
    #[getter]
    fn elapsed_s(&self) -> f64 {
        self.elapsed_s
    }
}

/// The outputs of `outcome`, named `policy`.
fn outputs(
    workload: &Workload,
    policy: &str,
    outcome: &SimOutcome,
    capacity: u32,
    resolution: Option<i64>,
    elapsed_s: f64,
) -> Result<RunOutput, String> {
    let info = WorkloadInfo {
        name: &workload.name,
        jobs: &workload.jobs,
        profiles: workload.profiles.as_deref(),
    };
    let mut jobs = Vec::new();
    jobs_csv::write(&mut jobs, &info, &outcome.records, capacity).map_err(|e| e.to_string())?;
    let row = Row::new(
        policy,
        &outcome.report,
        &outcome.records,
        (outcome.stats.max_queue_len, outcome.stats.mean_queue_len),
    );
    let span = cosched_cli::summary::span_s(&outcome.report);
    let series = timeseries::compute(
        &outcome.records,
        capacity,
        resolution.unwrap_or_else(|| timeseries::auto_resolution(span)),
    )
    .map_err(|e| e.to_string())?;
    let mut series_csv = String::from(timeseries::CSV_HEADER);
    series.write_csv_rows(policy, &mut series_csv);
    Ok(RunOutput {
        policy: policy.to_string(),
        jobs_csv: jobs,
        summary_json: serde_json::to_string(&row).map_err(|e| e.to_string())?,
        report_json: serde_json::to_string(&outcome.report).map_err(|e| e.to_string())?,
        series_csv,
        elapsed_s,
    })
}

/// Catalogue policies `names` on `workload`, in parallel, without the GIL.
pub fn builtin(
    py: Python<'_>,
    workload: &Workload,
    names: &[String],
    capacity: u32,
    resolution: Option<i64>,
) -> PyResult<Vec<RunOutput>> {
    let choices = names
        .iter()
        .map(|n| PolicyChoice::parse(n).map_err(PyValueError::new_err))
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| {
        choices
            .par_iter()
            .map(|choice| {
                let clock = Instant::now();
                let outcome = choice
                    .simulate(capacity, &workload.jobs, workload.invalid, |_, _| {})
                    .map_err(|e| format!("{}: {e}", choice.name()))?;
                let elapsed = clock.elapsed().as_secs_f64();
                outputs(
                    workload,
                    choice.name(),
                    &outcome,
                    capacity,
                    resolution,
                    elapsed,
                )
            })
            .collect::<Result<Vec<_>, String>>()
    })
    .map_err(CoschedError::new_err)
}

/// The Python policy `policy` on `workload`, named `name` in the outputs.
pub fn python(
    workload: &Workload,
    policy: Py<PyAny>,
    capacity: u32,
    name: &str,
    resolution: Option<i64>,
) -> PyResult<RunOutput> {
    let mut policy = PyPolicy::new(policy);
    let clock = Instant::now();
    let result = BatchSim::new(capacity)
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .run(&mut policy, &workload.jobs);
    let elapsed = clock.elapsed().as_secs_f64();
    policy.take_pending()?;
    let mut outcome = match result {
        Ok(outcome) => outcome,
        Err(SimError::Policy(e)) => return Err(into_py_err(e)),
        Err(SimError::Batch(e)) => return Err(batch_error(name, &e)),
    };
    outcome.report.invalid += workload.invalid;
    outputs(workload, name, &outcome, capacity, resolution, elapsed).map_err(CoschedError::new_err)
}

/// A cluster's refusal: [`CommandError`] when the policy's command caused it, else
/// [`CoschedError`] (the workload: a repeated id, an end past the last second).
fn batch_error(name: &str, e: &BatchError) -> PyErr {
    let message = format!("{name}: {e}");
    match e {
        BatchError::NotQueued(_)
        | BatchError::NotStartable(_)
        | BatchError::NotEnoughFreeUnits { .. }
        | BatchError::NotResizable(_)
        | BatchError::SizeOutOfRange { .. } => CommandError::new_err(message),
        _ => CoschedError::new_err(message),
    }
}
