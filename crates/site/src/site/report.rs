//! The report of a run ([`super::Site::report`]).

use std::collections::BTreeSet;

use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, JobClass, JobRecord, Summary};
use cosched_hybrid::workload::HybridJob;

use super::{Exec, LeaseState, pct, use_index};
use crate::report::{LeaseCounts, SiteReport};

impl Exec {
    pub(super) fn report(&self) -> SiteReport {
        let now = self.ran_to;
        let mut held = self.held;
        for (i, &u) in self.state.nodes.uses().iter().enumerate() {
            held[use_index(u)] += i128::from(
                now.checked_since(self.changed[i])
                    .unwrap_or(Duration::ZERO)
                    .0,
            );
        }
        let pool = &self.pool;
        let mut cloud_cost = pool.cloud_cost;
        for c in pool.cloud.iter().filter(|c| c.stopped.is_none()) {
            let held = now.checked_since(c.requested).unwrap_or(Duration::ZERO);
            cloud_cost += self.config.instance_types[c.instance].cost(held);
        }
        let done: Vec<&JobRecord> = self.records.iter().filter(|r| r.end.is_some()).collect();
        let batch = Summary::of(done.iter().copied(), DEFAULT_SLOWDOWN_TAU);
        let malleable: Vec<f64> = done
            .iter()
            .filter(|r| r.class == JobClass::Malleable)
            .filter_map(|r| r.turnaround())
            .map(|d| d.0 as f64)
            .collect();
        let mut leases = LeaseCounts::default();
        let mut waits = Vec::new();
        for (k, s) in self.lease_state.iter().enumerate() {
            let l = &self.state.leases[k];
            if l.requested_at > now {
                continue;
            }
            leases.requested += 1;
            match *s {
                LeaseState::Waiting | LeaseState::Queued(_) => leases.waiting += 1,
                LeaseState::Running(t) => {
                    leases.running += 1;
                    waits.push(t.checked_since(l.requested_at).unwrap_or(Duration::ZERO).0 as f64);
                }
                LeaseState::Done(_) => leases.completed += 1,
                LeaseState::Rejected => leases.rejected += 1,
            }
        }
        // The ended leases' waits after the running ones' (the order of the mean's sum).
        for (k, s) in self.lease_state.iter().enumerate() {
            if let LeaseState::Done(end) = *s {
                let l = &self.state.leases[k];
                let dur = match l.end {
                    cosched_core::LeaseEnd::Bounded(d) => d,
                    cosched_core::LeaseEnd::Unbounded => Duration::ZERO,
                };
                let start = end - dur;
                waits.push(
                    start
                        .checked_since(l.requested_at)
                        .unwrap_or(Duration::ZERO)
                        .0 as f64,
                );
            }
        }
        let span = i128::from(now.0.max(1)) * i128::from(self.config.nodes);
        let r = &self.revocations;
        let busy = held[1] + held[3] + held[5] + held[6];
        let useful = busy - r.batch_lost_node_s - r.guest_lost_node_s - r.scavenged_lost_s;
        let (idle_w, busy_w) = self.config.power_w;
        let energy_j = (busy as f64) * busy_w + ((span - busy) as f64) * idle_w;
        let tasks_completed = pool.tasks.iter().filter(|t| t.done).count();
        let tasks_running = pool.tasks.iter().filter(|t| t.run.is_some()).count();
        let tasks_submitted = self
            .workload
            .tasks
            .iter()
            .filter(|t| t.submit <= now)
            .count();
        let batch_submitted = self
            .workload
            .batch
            .iter()
            .filter(|j| !matches!(j, HybridJob::OnDemand(_)) && j.submit() <= now)
            .count();
        let lease_jobs_running = self
            .state
            .running
            .keys()
            .filter(|j| self.lease_jobs.contains_key(j))
            .count();
        let lease_jobs_queued = self
            .lease_state
            .iter()
            .filter(|s| matches!(s, LeaseState::Queued(_)))
            .count();
        SiteReport {
            nodes: self.config.nodes,
            end_s: now.0,
            leases,
            on_demand_served_pct: pct(
                (leases.running + leases.completed) as f64,
                leases.requested as f64,
            ),
            on_demand_mean_wait_s: cosched_core::stats::mean(&waits).unwrap_or(0.0),
            batch_submitted,
            batch_completed: done.len(),
            batch_rejected: self.batch_rejected,
            batch_running: self.state.running.len() - lease_jobs_running,
            batch_queued: self.state.cluster.queue_len() - lease_jobs_queued,
            batch_mean_wait_s: batch.mean_wait_s,
            batch_mean_bounded_slowdown: batch.mean_bounded_slowdown,
            guest_starts: self.guest_starts,
            malleable_completed: malleable.len(),
            malleable_mean_turnaround_s: cosched_core::stats::mean(&malleable).unwrap_or(0.0),
            scavenged_submitted: tasks_submitted,
            scavenged_completed: tasks_completed,
            scavenged_running: tasks_running,
            scavenged_queued: pool.task_queues.iter().map(BTreeSet::len).sum(),
            scavenged_evicted: r.scavenged_evictions,
            goodput_node_h: pool.work_done as f64 / 3600.0,
            useful_utilization_pct: pct(useful as f64, span as f64),
            cloud_cost_usd: cloud_cost,
            cloud_nodes_started: pool.cloud.len(),
            energy_kwh: energy_j / 3.6e6,
            revocations: *r,
            node_hours: held.map(|h| h as f64 / 3600.0),
        }
    }
}
