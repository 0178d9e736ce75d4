//! The paper's experimental method around the traces (Liu et al., SC18, §III-A), and the
//! fit of the on-demand VM lifecycle to the facts it states about its week (§III-A, §III-B2).
//!
//! Picking the "challenging" week: for the batch trace, low average node availability across
//! 60-second periods; for the on-demand trace, high total resource usage (core-seconds of the
//! APS jobs). The paper "picked the week which had the highest sum of usage and inverse of
//! availability" without saying how the two are put on one scale; we (ours) divide each by its
//! largest value over the candidate weeks and add them.

use crate::traces::{ApsJob, LcrcRecord};
use crate::workload::LeaseRequest;
use cosched_core::{Duration, Time};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why weeks could not be scored.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MethodError {
    /// A batch record asks for more nodes than the batch cluster has: it could never have run
    /// there, and counting it would mark the week fully busy.
    #[error(
        "week {week}, line {line}: a job of {nodes} nodes on a {batch_nodes}-node batch cluster"
    )]
    TooWide {
        /// The week.
        week: String,
        /// The record's line in its file.
        line: u64,
        /// Its nodes.
        nodes: u32,
        /// The batch cluster's nodes.
        batch_nodes: u32,
    },
}

/// One week's two scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeekScore {
    /// The week's name.
    pub week: String,
    /// Mean fraction of the batch nodes free, over the week's 60-second periods.
    pub batch_availability: f64,
    /// Core-seconds of the on-demand jobs run within the week.
    pub on_demand_core_seconds: f64,
    /// `(1 − availability) / max + usage / max` over the candidates.
    pub score: f64,
}

/// Scores each week (`(name, batch records, on-demand jobs)`, times from the week's start)
/// on `batch_nodes` nodes over `[0, span_s)`, and returns them with the index of the pick.
///
/// ```
/// use cosched_balancer::method::challenging_week;
/// use cosched_balancer::traces::{ApsJob, LcrcRecord};
/// use cosched_core::{Duration, Time};
/// let busy = |nodes| LcrcRecord { submit: Time(0), start: Time(0), end: Time(600), nodes,
///     runtime: Duration(600), walltime: Duration(600), line: 2 };
/// let aps = |run| ApsJob { submit: Time(0), start: Time(0), end: Time(run),
///     run: cosched_core::Duration(run), wait: Duration(0) };
/// let weeks = vec![
///     ("quiet".to_owned(), vec![busy(1)], vec![aps(60)]),
///     ("busy".to_owned(), vec![busy(4)], vec![aps(600)]),
/// ];
/// let (scores, pick) = challenging_week(&weeks, 4, 600).unwrap();
/// assert_eq!(pick, Some(1));
/// assert!((scores[1].batch_availability - 0.0).abs() < 1e-9);
/// // A job wider than the cluster is refused, naming its line.
/// assert!(challenging_week(&weeks, 3, 600).is_err());
/// ```
///
/// # Errors
/// A batch record wider than `batch_nodes` ([`MethodError::TooWide`]).
pub fn challenging_week(
    weeks: &[(String, Vec<LcrcRecord>, Vec<ApsJob>)],
    batch_nodes: u32,
    span_s: i64,
) -> Result<(Vec<WeekScore>, Option<usize>), MethodError> {
    for (week, batch, _) in weeks {
        if let Some(r) = batch.iter().find(|r| r.nodes > batch_nodes) {
            return Err(MethodError::TooWide {
                week: week.clone(),
                line: r.line,
                nodes: r.nodes,
                batch_nodes,
            });
        }
    }
    let clip = |from: Time, to: Time| (to.0.min(span_s) - from.0.max(0)).max(0) as f64;
    let periods = (span_s / 60).max(1);
    let mut scores: Vec<WeekScore> = weeks
        .iter()
        .map(|(name, batch, aps)| {
            // Busy node-seconds per 60-second period, averaged: the same as the node-seconds
            // over the whole span, measured on whole periods.
            let busy: f64 = batch
                .iter()
                .map(|r| f64::from(r.nodes) * clip(r.start, r.end))
                .sum();
            let capacity = f64::from(batch_nodes.max(1)) * (periods * 60) as f64;
            WeekScore {
                week: name.clone(),
                batch_availability: (1.0 - busy / capacity).clamp(0.0, 1.0),
                on_demand_core_seconds: aps.iter().map(|j| clip(j.start, j.end)).sum(),
                score: 0.0,
            }
        })
        .collect();
    let max_busy = scores
        .iter()
        .map(|s| 1.0 - s.batch_availability)
        .fold(0.0, f64::max);
    let max_usage = scores
        .iter()
        .map(|s| s.on_demand_core_seconds)
        .fold(0.0, f64::max);
    let part = |x: f64, max: f64| if max > 0.0 { x / max } else { 0.0 };
    for s in &mut scores {
        s.score =
            part(1.0 - s.batch_availability, max_busy) + part(s.on_demand_core_seconds, max_usage);
    }
    let pick = (0..scores.len()).max_by(|&a, &b| scores[a].score.total_cmp(&scores[b].score));
    Ok((scores, pick))
}

/// What the paper states about its week's on-demand leases (§III-A, §III-B2): the targets a
/// VM lifecycle model is fitted to (calibration on the setup, not a result).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaseFacts {
    /// Leases in the week: "141 on-demand leases being submitted" (Table I's caption).
    pub leases: f64,
    /// Their node-seconds over the cluster's: "the utilization (denoted by ρ) of the
    /// challenging week's on-demand workload is 1.25 %" (§III-B2; Table I's on-demand rows).
    pub rho: f64,
    /// The most VM deployment requests in one minute at ×1: "when ρ = 30 %, the peak arrival
    /// rate of on-demand requests is 264 requests per minute" (§III-B2), ×24 nodes a lease.
    pub peak_per_minute: f64,
}

/// The paper's week: 141 leases, ρ = 1.25 %, 264 / 24 = 11 requests a minute at the peak.
pub const PAPER_LEASE_FACTS: LeaseFacts = LeaseFacts {
    leases: 141.0,
    rho: 0.0125,
    peak_per_minute: 264.0 / 24.0,
};

/// The lease facts measured on a set of leases.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaseStats {
    /// Leases.
    pub leases: usize,
    /// Their node-seconds within `[0, span)` over `nodes × span`: the on-demand utilisation
    /// Table I measures over the week replayed (a lease running past the week's end counts
    /// up to it).
    pub rho: f64,
    /// The most nodes requested in any 60 s of trace time (a sliding window; a VM per node):
    /// the reading the lifecycle is fitted to (ours; the paper does not say how it counted).
    pub peak_per_minute: u64,
    /// The most nodes requested in one clock minute of trace time (`[60k, 60k + 60)`): the
    /// other reading of "requests per minute", reported beside it.
    pub peak_per_clock_minute: u64,
}

impl LeaseStats {
    /// The facts of `leases` on `nodes` nodes over `span`.
    ///
    /// ```
    /// use cosched_balancer::method::LeaseStats;
    /// use cosched_balancer::workload::LeaseRequest;
    /// use cosched_core::{Duration, LeaseId, Time};
    /// let lease = |submit, nodes| LeaseRequest {
    ///     id: LeaseId(0), submit: Time(submit), nodes, duration: Duration(100), notice: None,
    /// };
    /// // 2 + 1 nodes asked at 0 and 59 s (within a minute), 1 more at 60 s (a minute after the
    /// // first), one much later.
    /// // The clock minute [0, 60) holds 3 nodes, [60, 120) one.
    /// let leases = [lease(0, 2), lease(59, 1), lease(60, 1), lease(500, 1)];
    /// let s = LeaseStats::of(&leases, 10, Duration(1_000));
    /// assert_eq!((s.leases, s.peak_per_minute, s.peak_per_clock_minute), (4, 3, 3));
    /// assert!((s.rho - 500.0 / 10_000.0).abs() < 1e-12);
    /// // Shifted by 30 s, the same requests straddle two clock minutes; and a lease running
    /// // past the span counts up to its end.
    /// let late = [lease(30, 2), lease(89, 1), lease(90, 1), lease(950, 1)];
    /// let s = LeaseStats::of(&late, 10, Duration(1_000));
    /// assert_eq!((s.peak_per_minute, s.peak_per_clock_minute), (3, 2));
    /// assert!((s.rho - 450.0 / 10_000.0).abs() < 1e-12);
    /// ```
    pub fn of(leases: &[LeaseRequest], nodes: u32, span: Duration) -> LeaseStats {
        let mut by_submit: Vec<(Time, u64)> = leases
            .iter()
            .map(|l| (l.submit, u64::from(l.nodes)))
            .collect();
        by_submit.sort_unstable();
        // A sliding window [t, t + 60 s) starting at each request.
        let (mut peak, mut sum, mut first) = (0, 0, 0);
        for &(t, n) in &by_submit {
            sum += n;
            while by_submit[first].0.0 <= t.0.saturating_sub(60) {
                sum -= by_submit[first].1;
                first += 1;
            }
            peak = peak.max(sum);
        }
        let mut clock = std::collections::BTreeMap::<i64, u64>::new();
        for &(t, n) in &by_submit {
            *clock.entry(t.0.div_euclid(60)).or_default() += n;
        }
        let within: f64 = leases
            .iter()
            .map(|l| {
                let end = l.submit.0.saturating_add(l.duration.0).min(span.0);
                f64::from(l.nodes) * (end - l.submit.0.max(0)).max(0) as f64
            })
            .sum();
        let capacity = f64::from(nodes) * span.0 as f64;
        LeaseStats {
            leases: leases.len(),
            rho: if capacity > 0.0 {
                within / capacity
            } else {
                0.0
            },
            peak_per_minute: peak,
            peak_per_clock_minute: clock.values().copied().max().unwrap_or(0),
        }
    }
}

impl LeaseFacts {
    /// How far `stats` are from these facts: the sum of the absolute log ratios of the lease
    /// count, ρ and the peak (each fact weighs the same, and a factor 2 above or below is the
    /// same miss; ours). Infinite when one of them is zero.
    pub fn distance(&self, stats: &LeaseStats) -> f64 {
        let miss = |ours: f64, theirs: f64| (ours / theirs).ln().abs();
        let d = miss(stats.leases as f64, self.leases)
            + miss(stats.rho, self.rho)
            + miss(stats.peak_per_minute as f64, self.peak_per_minute);
        if d.is_nan() { f64::INFINITY } else { d }
    }
}

/// The VM lifecycle fitted to one on-demand week: the linger (how long an unneeded VM is kept,
/// [`crate::traces::aps_to_leases_with_linger`]) whose leases come nearest the facts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LifecycleFit {
    /// The week.
    pub week: String,
    /// The best linger of the candidates (the shortest of equals).
    pub linger: Duration,
    /// Its leases' facts.
    pub stats: LeaseStats,
    /// Their [`LeaseFacts::distance`] from the facts.
    pub distance: f64,
    /// The literal packing's facts (no linger), for comparison.
    pub literal: LeaseStats,
}

/// The lingers [`fit_lifecycle`] tries by default: 0 to 2 hours, finer where a VM's teardown
/// would be (seconds to minutes).
pub const LINGERS_S: [i64; 22] = [
    0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 360, 420, 480, 600, 900, 1_200, 1_800, 2_700,
    3_600, 5_400, 7_200,
];

/// Fits the VM lifecycle of each on-demand week (`(name, APS jobs)`) to `facts` on `nodes`
/// nodes over `span`: for each week the linger of `lingers` whose 16-core VM leases
/// (`cores_per_vm`) come nearest, by [`LeaseFacts::distance`].
///
/// # Errors
/// `cores_per_vm = 0`, or a negative linger.
pub fn fit_lifecycle(
    weeks: &[(String, Vec<ApsJob>)],
    cores_per_vm: u32,
    lingers: &[Duration],
    nodes: u32,
    span: Duration,
    facts: &LeaseFacts,
) -> Result<Vec<LifecycleFit>, cosched_core::ParamError> {
    use rayon::prelude::*;
    weeks
        .par_iter()
        .map(|(week, jobs)| {
            let steps = crate::traces::vm_counts(jobs, cores_per_vm)?;
            let leases = |linger| crate::traces::leases_from_vm_counts(&steps, linger);
            let literal = LeaseStats::of(&leases(Duration::ZERO)?, nodes, span);
            let mut best: Option<(Duration, LeaseStats, f64)> = None;
            for &linger in lingers {
                let leases = leases(linger)?;
                let stats = LeaseStats::of(&leases, nodes, span);
                let d = facts.distance(&stats);
                if best.as_ref().is_none_or(|b| d < b.2) {
                    best = Some((linger, stats, d));
                }
            }
            let (linger, stats, distance) =
                best.unwrap_or((Duration::ZERO, literal, facts.distance(&literal)));
            Ok(LifecycleFit {
                week: week.clone(),
                linger,
                stats,
                distance,
                literal,
            })
        })
        .collect()
}

/// The stand-in among fitted weeks: the one nearest the facts (the first of equals); `None`
/// if none has a finite distance.
pub fn stand_in(fits: &[LifecycleFit]) -> Option<usize> {
    (0..fits.len())
        .filter(|&i| fits[i].distance.is_finite())
        .min_by(|&a, &b| fits[a].distance.total_cmp(&fits[b].distance))
}
