//! The composed site from Python: one site whose nodes serve batch (rigid and malleable),
//! on-demand leases and scavenged work, under each built-in assignment of the paper crates'
//! policies to the roles (`Configuration::rows`), as the `converged_site` example runs one
//! seed of it.

use crate::CoschedError;
use cosched_core::{Duration, Time};
use cosched_site::scenario::{Configuration, Inputs, RoleParams};
use cosched_site::{Site, SiteConfig};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::path::PathBuf;

/// Every configuration's report (JSON, `SiteReport`'s fields), by name, on `nodes` nodes over
/// `days` days: the first days of the SWF trace `swf` (sizes divided by `cores_per_node`),
/// the APS week `aps` packed into one-node 16-core VM leases at `scale` nodes each, week after
/// week, window `window_min`; the workload of `seed` (typing, notices, scavenged tasks).
/// In parallel, without the GIL.
#[pyfunction]
#[pyo3(signature = (swf, aps, *, nodes=128, days=28, scale=4, cores_per_node=1, window_min=5, seed=1))]
#[allow(clippy::too_many_arguments)]
pub fn site_configurations(
    py: Python<'_>,
    swf: PathBuf,
    aps: PathBuf,
    nodes: u32,
    days: u32,
    scale: u32,
    cores_per_node: u32,
    window_min: u32,
    seed: u64,
) -> PyResult<Vec<(String, String)>> {
    if !(1..=3660).contains(&days) || nodes == 0 || !(1..=1024).contains(&scale) {
        return Err(PyValueError::new_err(
            "days must be in 1..=3660, nodes >= 1, scale in 1..=1024",
        ));
    }
    if window_min > 10_080 || cores_per_node == 0 {
        return Err(PyValueError::new_err(
            "window_min must be in 0..=10080, cores_per_node >= 1",
        ));
    }
    let span = Duration::from_hours(24 * i64::from(days));
    let window = Duration::from_mins(i64::from(window_min));
    let workload = py
        .detach(|| {
            Inputs::load(&swf, cores_per_node, &aps, scale, span, window)
                .and_then(|inputs| inputs.workload(seed))
        })
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    let params = RoleParams {
        window,
        ..RoleParams::default()
    };
    let end = Time(0).saturating_add(span);
    py.detach(|| {
        Configuration::rows()
            .par_iter()
            .map(|c| {
                let roles = c.roles(&params).map_err(|e| format!("{c}: {e}"))?;
                let report = Site::new(SiteConfig::new(nodes, end), roles, workload.clone())
                    .and_then(Site::run)
                    .map_err(|e| format!("{c}: {e}"))?;
                let json = serde_json::to_string(&report).map_err(|e| e.to_string())?;
                Ok((c.name().to_owned(), json))
            })
            .collect::<Result<Vec<_>, String>>()
    })
    .map_err(CoschedError::new_err)
}
