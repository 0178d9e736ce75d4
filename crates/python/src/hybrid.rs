//! Hybrid workload scheduling (Fan et al., IPDPS 2022) from Python: the baseline and the six
//! mechanisms (N, CUA, CUP × PAA, SPAA; §III-B) on one typed trace, as the `hybrid_fig6_7`
//! example runs each of its replicates: a generated Theta-like or Cori-like trace (or the
//! caller's), typed by project with a notice mix (Table II's W1–W5) and a typing seed.

use crate::CoschedError;
use crate::workload::Workload;
use cosched_hybrid::HybridConfig;
use cosched_hybrid::scenario::{self, Machine, configurations, type_params, typing_seed};
use cosched_hybrid::workload::{NoticeMix, TypeParams};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

/// The seven configurations' reports (JSON, `HybridReport`'s fields), baseline first, on one
/// typing: of the trace of `machine` (`theta` or `cori`, `quick`: the examples' smaller
/// trace) generated with `seed`, or of `trace` on `nodes` nodes; typing `typing` of `seed`
/// with notice mix `mix`. In parallel, without the GIL.
#[pyfunction]
#[pyo3(signature = (machine="theta", *, quick=false, seed=1, typing=0, mix="W5", trace=None, nodes=None))]
#[allow(clippy::too_many_arguments)]
pub fn hybrid_mechanisms(
    py: Python<'_>,
    machine: &str,
    quick: bool,
    seed: u64,
    typing: u64,
    mix: &str,
    trace: Option<&Workload>,
    nodes: Option<u32>,
) -> PyResult<Vec<(String, String)>> {
    let mix = NoticeMix::ALL
        .iter()
        .find(|(name, _)| *name == mix)
        .map(|&(_, m)| m)
        .ok_or_else(|| PyValueError::new_err(format!("mix {mix:?}: expected W1 … W5")))?;
    let (jobs, nodes, from_trace) = match trace {
        Some(w) => {
            let nodes = nodes.or(w.capacity).ok_or_else(|| {
                PyValueError::new_err(format!("{} states no machine size: pass nodes=", w.name))
            })?;
            (w.jobs.clone(), nodes, true)
        }
        None => {
            let m = match machine {
                "theta" => Machine::Theta,
                "cori" => Machine::Cori,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "machine {other:?}: expected theta or cori"
                    )));
                }
            };
            let jobs = py
                .detach(|| m.generate(quick, seed))
                .map_err(|e| CoschedError::new_err(e.to_string()))?;
            (jobs, nodes.unwrap_or(m.trace(quick).nodes), false)
        }
    };
    let config = HybridConfig::new(nodes).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let types = TypeParams {
        mix,
        ..type_params(from_trace)
    };
    let typing = typing_seed(seed, typing);
    py.detach(|| {
        configurations()
            .par_iter()
            .map(|&c| {
                let report = scenario::simulate_trace(&jobs, &types, typing, config.clone(), c)
                    .map_err(|e| format!("{}: {e}", cosched_hybrid::mechanism_name(c)))?;
                let json = serde_json::to_string(&report).map_err(|e| e.to_string())?;
                Ok((cosched_hybrid::mechanism_name(c), json))
            })
            .collect::<Result<Vec<_>, String>>()
    })
    .map_err(CoschedError::new_err)
}
