//! What a Balancer simulation reports: per-request records, node-seconds by use, the on-demand
//! side's figures and the whole run's report (serde), apart from the environment in
//! [`crate::sim`].

use crate::workload::LeaseRequest;
use cosched_core::usage::{UsageKind, UsageLedger};
use cosched_core::{JobRecord, Pool, Report, Time};
use serde::{Deserialize, Serialize};

/// What became of one lease request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// The request.
    pub request: LeaseRequest,
    /// When its nodes were granted; `None` if it was rejected.
    pub granted: Option<Time>,
}

/// Node-seconds by use; they sum to `N ×` the span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSeconds {
    /// Running batch jobs.
    pub batch_busy: i64,
    /// Allocated to leases.
    pub on_demand_allocated: i64,
    /// On-demand but unused (`OD_Reserve`, or the dedicated pool's free nodes).
    pub reserve_idle: i64,
    /// Idle in the batch pool.
    pub batch_idle: i64,
}

impl NodeSeconds {
    /// The four uses summed.
    pub fn total(&self) -> i64 {
        self.batch_busy
            .saturating_add(self.on_demand_allocated)
            .saturating_add(self.reserve_idle)
            .saturating_add(self.batch_idle)
    }

    /// The four uses from a ledger of `(pool, held/busy)` node-seconds: batch busy and held,
    /// on-demand busy (allocated) and held (offline in batch), as the simulator records them.
    pub fn from_ledger(l: &UsageLedger) -> NodeSeconds {
        let get = |p, k| i64::try_from(l.total(p, k)).unwrap_or(i64::MAX);
        let batch_busy = get(Pool::Batch, UsageKind::Busy);
        let allocated = get(Pool::OnDemand, UsageKind::Busy);
        NodeSeconds {
            batch_busy,
            on_demand_allocated: allocated,
            reserve_idle: get(Pool::OnDemand, UsageKind::Held) - allocated,
            batch_idle: get(Pool::Batch, UsageKind::Held) - batch_busy,
        }
    }
}

/// The on-demand side's figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OnDemandSummary {
    /// Requests made.
    pub requests: usize,
    /// Requests granted.
    pub granted: usize,
    /// Requests rejected (`requests − granted`).
    pub rejected: usize,
    /// `rejected / requests` (0 with no requests).
    pub reject_rate: f64,
    /// Mean of grant − request over granted requests, in seconds (0 with none).
    pub mean_wait_s: f64,
    /// Longest such wait, in seconds.
    pub max_wait_s: i64,
}

/// A simulation's report (serde; see [`SimReport::to_json`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    /// The policy's name ([`crate::sim::Simulation::with_label`]).
    pub configuration: String,
    /// `N`.
    pub nodes: u32,
    /// The run's start.
    pub start_s: i64,
    /// The span's end: the last submission (the utilisations' window is `[start, this]`).
    pub span_end_s: i64,
    /// The last event's time.
    pub end_s: i64,
    /// Node-seconds by use over the span.
    pub node_seconds: NodeSeconds,
    /// Node-seconds by use over the whole run (they sum to `N × (end − start)`).
    pub node_seconds_run: NodeSeconds,
    /// (Batch busy + lease-allocated) / `N ×` span.
    pub combined_utilization: f64,
    /// Batch busy / `N ×` span.
    pub batch_utilization: f64,
    /// Lease-allocated / `N ×` span.
    pub on_demand_utilization: f64,
    /// Node-hours on-demand but unused, over the span.
    pub reserve_idle_node_hours: f64,
    /// Preloaded jobs started, kept out of `batch`.
    pub preloaded_jobs: usize,
    /// Preloaded jobs that did not fit on the batch side.
    pub preload_left_out: usize,
    /// Batch jobs wider than the batch side can ever be (recorded with no start).
    pub too_wide: usize,
    /// Jobs and leases refused because their end would overflow the clock.
    pub unrepresentable: usize,
    /// The batch jobs' report (waits, bounded slowdowns; capacity = the nodes batch can have).
    pub batch: Report,
    /// The lease requests' figures.
    pub on_demand: OnDemandSummary,
}

impl SimReport {
    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// What a simulation produced.
#[derive(Clone, Debug)]
pub struct SimOutcome {
    /// The report.
    pub report: SimReport,
    /// One record per valid batch job: in completion order, then the ones never started.
    pub records: Vec<JobRecord>,
    /// One record per lease request, in (submit, id) order.
    pub requests: Vec<RequestRecord>,
}

/// The on-demand side's figures over `records`.
pub fn on_demand_summary(records: &[RequestRecord]) -> OnDemandSummary {
    let waits: Vec<i64> = records
        .iter()
        .filter_map(|r| r.granted.map(|g| g.since(r.request.submit).0))
        .collect();
    let requests = records.len();
    let rejected = requests - waits.len();
    let wait_values: Vec<f64> = waits.iter().map(|&w| w as f64).collect();
    OnDemandSummary {
        requests,
        granted: waits.len(),
        rejected,
        reject_rate: if requests > 0 {
            rejected as f64 / requests as f64
        } else {
            0.0
        },
        mean_wait_s: cosched_core::stats::mean(&wait_values).unwrap_or(0.0),
        max_wait_s: waits.iter().copied().max().unwrap_or(0),
    }
}
