//! The electricity-price-aware metascheduler (Murali & Vadhiyar) from Python: Table 4's
//! strategies on the paper's XSEDE setting (§4.3.1), as the `metasched_table4` example runs
//! one seed of it.

use crate::CoschedError;
use cosched_metasched::metrics::Metrics;
use cosched_metasched::scenario::{Table4Row, paper_xsede};
use cosched_metasched::workload::PAPER_TRACE_JOBS;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

/// A run's measured metrics as a dict, per-site metrics as a list of dicts.
fn metrics<'py>(py: Python<'py>, m: &Metrics) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("jobs_measured", m.jobs)?;
    d.set_item("completed", m.completed)?;
    d.set_item("jobs_rejected", m.rejected)?;
    d.set_item("migrated", m.migrated)?;
    d.set_item("mean_response_s", m.mean_response_s)?;
    d.set_item("mean_holding_s", m.mean_holding_s)?;
    d.set_item("total_cost_usd", m.total_cost_usd)?;
    d.set_item("cost_per_job_usd", m.cost_per_job_usd)?;
    d.set_item("mean_ppe_percent", m.mean_ppe_percent)?;
    d.set_item("energy_mwh", m.energy_mwh)?;
    d.set_item("mean_bounded_slowdown", m.mean_bounded_slowdown)?;
    let sites = m
        .sites
        .iter()
        .map(|s| {
            let row = PyDict::new(py);
            row.set_item("site", &s.name)?;
            row.set_item("submitted", s.submitted)?;
            row.set_item("ran", s.ran)?;
            row.set_item("utilization", s.utilization)?;
            row.set_item("mean_load", s.mean_load)?;
            row.set_item("peak_load", s.peak_load)?;
            row.set_item("core_hours", s.core_hours)?;
            Ok(row)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("sites", sites)?;
    Ok(d)
}

/// Table 4's five rows (BS, INST, TWOPRICE, MCMF, MCMF with `w_t` = 0) on the paper's XSEDE
/// setting: the public trace's first `trace_jobs` jobs extended to `total` from `seed`,
/// `w_t` and `max_q` the paper's unless given. Each row: `(name, w_t, max_q,
/// paper_response_min, paper_total_cost_usd, metrics)`. In parallel, without the GIL.
#[pyfunction]
#[pyo3(signature = (*, trace_jobs=PAPER_TRACE_JOBS, total=10_000, seed=1, w_t=None, max_q=None))]
#[allow(clippy::type_complexity)]
pub fn metasched_table4<'py>(
    py: Python<'py>,
    trace_jobs: usize,
    total: usize,
    seed: u64,
    w_t: Option<f64>,
    max_q: Option<u32>,
) -> PyResult<Vec<(String, f64, u32, f64, f64, Bound<'py, PyDict>)>> {
    if w_t.is_some_and(|w| !(0.0..=1.0).contains(&w)) {
        return Err(PyValueError::new_err("w_t must be in [0, 1]"));
    }
    let scenario = py
        .detach(|| paper_xsede(trace_jobs, total, seed))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut defaults = scenario.config(cosched_metasched::scenario::Strategy::Mcmf, seed);
    defaults.w_t = w_t.unwrap_or(defaults.w_t);
    defaults.max_q = max_q.unwrap_or(defaults.max_q);
    let runs = py
        .detach(|| {
            Table4Row::ALL
                .par_iter()
                .map(|row| {
                    let config = row.config(defaults);
                    scenario
                        .run(&config)
                        .map(|r| (config, r.metrics))
                        .map_err(|e| format!("{}: {e}", row.name()))
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .map_err(CoschedError::new_err)?;
    Table4Row::ALL
        .iter()
        .zip(runs)
        .map(|(row, (config, m))| {
            let (rt, cost) = row.paper();
            Ok((
                row.name().to_owned(),
                config.w_t,
                config.max_q,
                rt,
                cost,
                metrics(py, &m)?,
            ))
        })
        .collect()
}
