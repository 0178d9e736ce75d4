//! Saturation estimates (paper Eq. 1–3), the inputs of Algorithm 1 ([`crate::Rhic`]).
//!
//! The dedicated nodes hold all of the job's storage, so their I/O bandwidth caps how much
//! volunteer CPU the job can feed. A one-minute dedicated-only profiling run gives the average
//! bandwidth utilisation `BWUtil_avg` (a fraction in `(0, 1]`); then
//!
//! - Eq. 1: `VolunteerCPU_supportable = (1 / BWUtil_avg − 1) · CPU_max` per dedicated node;
//! - Eq. 2 (best case, every dedicated node serves volunteers in parallel): `· Count_dedicated`;
//! - Eq. 3 (worst case, one dedicated node is the bottleneck): `· 1`.

use cosched_core::ParamError;
use serde::{Deserialize, Serialize};

/// The supportable volunteer CPU of Eq. 1–3, in cores.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SaturationEstimate {
    /// Eq. 1: volunteer CPU one dedicated node can feed.
    pub per_dedicated_cpu: f64,
    /// Eq. 2: the best case, `per_dedicated_cpu · Count_dedicated`.
    pub best_case_cpu: f64,
    /// Eq. 3: the worst case, `per_dedicated_cpu · 1`.
    pub worst_case_cpu: f64,
}

impl SaturationEstimate {
    /// Eq. 1–3 from the profiled average bandwidth utilisation `bw_util_avg` (in `(0, 1]`),
    /// the per-node CPU capacity `cpu_max` (cores, > 0) and the dedicated node count (> 0).
    ///
    /// ```
    /// use cosched_rhic::SaturationEstimate;
    /// let e = SaturationEstimate::new(0.25, 4.0, 3).unwrap();
    /// assert_eq!(e.per_dedicated_cpu, 12.0); // (1/0.25 − 1) · 4
    /// assert_eq!((e.best_case_cpu, e.worst_case_cpu), (36.0, 12.0));
    /// assert!(SaturationEstimate::new(0.0, 4.0, 3).is_err());
    /// ```
    pub fn new(bw_util_avg: f64, cpu_max: f64, dedicated: u32) -> Result<Self, ParamError> {
        ParamError::check(
            bw_util_avg > 0.0 && bw_util_avg <= 1.0,
            "bw_util_avg",
            bw_util_avg,
            "must be in (0, 1]",
        )?;
        ParamError::check(
            cpu_max.is_finite() && cpu_max > 0.0,
            "cpu_max",
            cpu_max,
            "must be finite and > 0",
        )?;
        ParamError::check(dedicated > 0, "dedicated", dedicated, "must be > 0")?;
        let per = (1.0 / bw_util_avg - 1.0) * cpu_max;
        Ok(SaturationEstimate {
            per_dedicated_cpu: per,
            best_case_cpu: per * f64::from(dedicated),
            worst_case_cpu: per,
        })
    }
}
