//! The paper's experimental method around the traces (Liu et al., SC18, §III-A).
//!
//! Picking the "challenging" week: for the batch trace, low average node availability across
//! 60-second periods; for the on-demand trace, high total resource usage (core-seconds of the
//! APS jobs). The paper "picked the week which had the highest sum of usage and inverse of
//! availability" without saying how the two are put on one scale; we (ours) divide each by its
//! largest value over the candidate weeks and add them.

use crate::traces::{ApsJob, LcrcRecord};
use cosched_core::Time;
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
