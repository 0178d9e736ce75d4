//! What one run of a site produced.

use serde::{Deserialize, Serialize};

/// Leases by outcome at the end of the run (each counted exactly once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseCounts {
    /// Requested by the end.
    pub requested: usize,
    /// Started and ended.
    pub completed: usize,
    /// Started and still running.
    pub running: usize,
    /// Refused, or withdrawn when their window closed.
    pub rejected: usize,
    /// Still waiting (their window open).
    pub waiting: usize,
}

/// Every revocation and its cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revocations {
    /// Rigid batch jobs preempted (they restart: their run so far is lost).
    pub rigid_preemptions: u64,
    /// Malleable batch jobs preempted (they resume where they stopped, paying their setup
    /// again).
    pub malleable_preemptions: u64,
    /// Malleable batch jobs shrunk for on-demand work.
    pub malleable_shrinks: u64,
    /// Malleable expansions into idle nodes.
    pub malleable_expansions: u64,
    /// Batch node-seconds thrown away by preemptions (guests' apart).
    pub batch_lost_node_s: i128,
    /// Guests (batch jobs run on nodes reserved for an announced lease, Fan et al. §III-B1)
    /// preempted, at their lease's arrival: counted apart from the preemptions above.
    pub guest_preemptions: u64,
    /// Node-seconds the preempted guests threw away (a rigid guest restarts, a malleable one
    /// pays its setup again).
    pub guest_lost_node_s: i128,
    /// Scavenged tasks evicted because an owner took their node back.
    pub scavenged_evictions: u64,
    /// Scavenged node-seconds thrown away by evictions (work since the last checkpoint).
    pub scavenged_lost_s: i128,
    /// Scavenged tasks requeued (checkpointed, nothing lost) when their cloud node stopped.
    pub cloud_requeues: u64,
}

/// The report of one run; see [`crate::Site::report`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteReport {
    /// Nodes of the site.
    pub nodes: u32,
    /// When the run stopped, s.
    pub end_s: i64,
    /// Leases by outcome.
    pub leases: LeaseCounts,
    /// Leases started within their window, % of those requested.
    pub on_demand_served_pct: f64,
    /// Mean wait of the started leases, s.
    pub on_demand_mean_wait_s: f64,
    /// Batch jobs submitted by the end.
    pub batch_submitted: usize,
    /// Batch jobs completed.
    pub batch_completed: usize,
    /// Batch jobs larger than the site (never started).
    pub batch_rejected: usize,
    /// Batch jobs running at the end.
    pub batch_running: usize,
    /// Batch jobs queued at the end.
    pub batch_queued: usize,
    /// Mean wait of the completed batch jobs, s.
    pub batch_mean_wait_s: f64,
    /// Their mean bounded slowdown (τ = 10 s).
    pub batch_mean_bounded_slowdown: f64,
    /// Batch jobs started as guests on reserved nodes.
    pub guest_starts: usize,
    /// Malleable jobs completed.
    pub malleable_completed: usize,
    /// Their mean turnaround, s.
    pub malleable_mean_turnaround_s: f64,
    /// Scavenged tasks submitted by the end.
    pub scavenged_submitted: usize,
    /// Scavenged tasks completed.
    pub scavenged_completed: usize,
    /// Scavenged tasks running at the end.
    pub scavenged_running: usize,
    /// Scavenged tasks queued at the end.
    pub scavenged_queued: usize,
    /// Evictions of scavenged tasks.
    pub scavenged_evicted: u64,
    /// Scavenged work completed, node-hours at reference speed.
    pub goodput_node_h: f64,
    /// Useful node-seconds (batch work, guests' included, on-demand work, scavenged work on
    /// site, less what preemptions and evictions threw away) over nodes × span, %.
    pub useful_utilization_pct: f64,
    /// What the cloud instances cost, $.
    pub cloud_cost_usd: f64,
    /// Cloud instances started.
    pub cloud_nodes_started: usize,
    /// The site's energy (busy and idle draw, ours), kWh.
    pub energy_kwh: f64,
    /// Revocations and their costs.
    pub revocations: Revocations,
    /// Node-hours by use ([`crate::NodeUse`]): idle, batch, on-demand reserve, on-demand
    /// granted, lent free, lent busy, guests on reserved nodes. They sum to nodes × span.
    pub node_hours: [f64; 7],
}
