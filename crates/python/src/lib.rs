//! The extension module of the `cosched` Python package (`cosched._cosched`).
//!
//! It exposes the batch simulator of `cosched-batch` and the CLI's input and output code
//! (`cosched-cli`'s library) to Python, so that `cosched.simulate` gives byte for byte the
//! per-job table, summary and time series `cosched simulate` writes: workloads
//! ([`workload::Workload`]), runs of catalogue policies ([`simulate_builtin`]), runs of a policy
//! written in Python ([`policy::PyPolicy`], [`simulate_policy`]) and the stepping core of the
//! Gymnasium environment ([`env::EnvConfig`], [`env::BatchEnv`], [`env::BatchVecEnv`]), and
//! the Balancer's real week under built-in and Python policies ([`balancer`]). The pure-Python
//! layer (`python/cosched`) turns the results into pandas DataFrames.

mod balancer;
mod env;
mod hybrid;
mod metasched;
mod policy;
mod run;
mod site;
mod workload;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    cosched,
    CoschedError,
    PyException,
    "A simulation could not run or stopped: the message names the input, the job or the time."
);
create_exception!(
    cosched,
    CommandError,
    CoschedError,
    "A policy asked for something the cluster cannot do (a job that is not waiting, more units than are idle)."
);

/// The catalogue's policy names (`ORDER+RULE`), as `cosched simulate --policy` accepts them.
#[pyfunction]
fn policies() -> Vec<String> {
    cosched_batch::catalogue::PolicySpec::catalogue()
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Runs catalogue policies (by name) on a workload, in parallel and without the GIL.
#[pyfunction]
#[pyo3(signature = (workload, names, capacity, resolution=None))]
fn simulate_builtin(
    py: Python<'_>,
    workload: &workload::Workload,
    names: Vec<String>,
    capacity: u32,
    resolution: Option<i64>,
) -> PyResult<Vec<run::RunOutput>> {
    run::builtin(py, workload, &names, capacity, resolution)
}

/// Runs a policy written in Python (an object with `observe(now, view)` and optionally
/// `start`, `wake`, `next_wake`) on a workload.
#[pyfunction]
#[pyo3(signature = (workload, policy, capacity, name, resolution=None))]
fn simulate_policy(
    workload: &workload::Workload,
    policy: Py<PyAny>,
    capacity: u32,
    name: String,
    resolution: Option<i64>,
) -> PyResult<run::RunOutput> {
    run::python(workload, policy, capacity, &name, resolution)
}

/// The module.
#[pymodule]
fn _cosched(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CoschedError", py.get_type::<CoschedError>())?;
    m.add("CommandError", py.get_type::<CommandError>())?;
    m.add_class::<workload::Workload>()?;
    m.add_class::<policy::BatchView>()?;
    m.add_class::<run::RunOutput>()?;
    m.add_class::<env::EnvConfig>()?;
    m.add_class::<env::BatchEnv>()?;
    m.add_class::<env::BatchVecEnv>()?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_builtin, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_policy, m)?)?;
    balancer::register(m)?;
    m.add_function(wrap_pyfunction!(hybrid::hybrid_mechanisms, m)?)?;
    m.add_function(wrap_pyfunction!(metasched::metasched_table4, m)?)?;
    m.add_function(wrap_pyfunction!(site::site_configurations, m)?)?;
    Ok(())
}
