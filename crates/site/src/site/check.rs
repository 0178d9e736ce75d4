//! The executor's invariants ([`super::Site::check`]).

use std::collections::BTreeMap;

use cosched_core::{LeaseId, NodeId, NodeState};

use super::scavenging::Slot;
use super::{Exec, LeaseState};
use crate::nodes::NodeUse;

impl Exec {
    pub(super) fn check(&self) -> Result<(), String> {
        self.check_nodes()?;
        self.check_leases()?;
        self.check_tasks()
    }

    /// Every node's use agrees with the batch cluster; reserved nodes are reserve nodes.
    fn check_nodes(&self) -> Result<(), String> {
        let s = &self.state;
        for (i, &u) in s.nodes.uses().iter().enumerate() {
            let node = NodeId(i as u32);
            let in_cluster = s
                .cluster
                .node_state(node)
                .map_err(|e| format!("{node}: {e}"))?;
            let runs = |j| {
                in_cluster == NodeState::Busy(j)
                    && s.running.get(&j).is_some_and(|r| r.nodes.contains(&node))
            };
            let agrees = match u {
                NodeUse::Idle | NodeUse::Lent(_) => in_cluster == NodeState::Idle,
                NodeUse::Batch(j) => runs(j) && !self.guests.contains_key(&j),
                NodeUse::Guest(j) => runs(j) && self.guests.contains_key(&j),
                NodeUse::Reserve | NodeUse::OnDemand(_) => in_cluster == NodeState::Offline,
            };
            if !agrees {
                return Err(format!(
                    "{node} is {u:?} here but {in_cluster:?} in the cluster"
                ));
            }
            if let NodeUse::Lent(Some(t)) = u {
                let run = self.pool.tasks.get(t as usize).and_then(|t| t.run);
                if !matches!(run, Some((Slot::Site(n), _, _)) if n == node) {
                    return Err(format!(
                        "{node} runs task {t}, which runs elsewhere: {run:?}"
                    ));
                }
            }
        }
        for (&node, job) in &s.holds.reserved {
            if s.nodes.get(node).ok() != Some(NodeUse::Reserve) {
                return Err(format!(
                    "{node} is reserved for {job} but not a reserve node"
                ));
            }
        }
        for (job, &count) in &s.holds.reserved_count {
            let held = s.holds.reserved.values().filter(|j| *j == job).count();
            if held != count {
                return Err(format!("{job} has {held} reserved nodes, counted {count}"));
            }
        }
        Ok(())
    }

    /// A running lease holds exactly its nodes, a waiting one at most them (reserve nodes
    /// gathered for it), any other none.
    fn check_leases(&self) -> Result<(), String> {
        let s = &self.state;
        let mut held: BTreeMap<LeaseId, u32> = BTreeMap::new();
        for &u in s.nodes.uses() {
            if let NodeUse::OnDemand(l) = u {
                *held.entry(l).or_default() += 1;
            }
        }
        for (k, state) in self.lease_state.iter().enumerate() {
            let lease = &s.leases[k];
            let on_nodes = held.remove(&lease.id).unwrap_or(0);
            let gathered = s.holds.gathered.get(&k).map_or(0, Vec::len);
            let expected = match state {
                LeaseState::Running(_) if !self.lease_jobs.contains_key(&s.holds.job_of(k)) => {
                    lease.nodes
                }
                _ => 0,
            };
            if on_nodes != expected {
                return Err(format!(
                    "{} ({state:?}) holds {on_nodes} nodes, expected {expected}",
                    lease.id
                ));
            }
            let gathered_ok = match state {
                LeaseState::Waiting => gathered <= lease.nodes as usize,
                _ => gathered == 0,
            };
            let all_reserve = s.holds.gathered.get(&k).is_none_or(|nodes| {
                nodes.iter().all(|&n| {
                    s.nodes.get(n).ok() == Some(NodeUse::Reserve)
                        && !s.holds.reserved.contains_key(&n)
                })
            });
            if !gathered_ok || !all_reserve {
                return Err(format!(
                    "{} ({state:?}) has gathered {gathered} nodes of {}",
                    lease.id, lease.nodes
                ));
            }
        }
        if let Some((l, n)) = held.into_iter().next() {
            return Err(format!("{n} nodes granted to unknown {l}"));
        }
        Ok(())
    }

    /// A running task is where its slot says; a cloud node runs at most its slots.
    fn check_tasks(&self) -> Result<(), String> {
        for (t, state) in self.pool.tasks.iter().enumerate() {
            match state.run {
                Some((Slot::Site(n), _, _))
                    if self.state.nodes.get(n).ok() != Some(NodeUse::Lent(Some(t as u64))) =>
                {
                    return Err(format!("task {t} runs on {n}, which does not run it"));
                }
                Some((Slot::Cloud(c), _, _)) => {
                    let node = self
                        .pool
                        .cloud
                        .get(c)
                        .ok_or(format!("task {t}: no cloud node {c}"))?;
                    if !node.tasks.contains(&(t as u64)) || node.stopped.is_some() {
                        return Err(format!(
                            "task {t} runs on cloud node {c}, which does not run it"
                        ));
                    }
                }
                Some((Slot::Site(_), _, _)) | None => {}
            }
        }
        // The site tasks' ends and starts kept for the work done are those of every task
        // running on a site node.
        let mut ends = std::collections::BTreeSet::new();
        let mut starts = 0i128;
        for (t, state) in self.pool.tasks.iter().enumerate() {
            if let Some((Slot::Site(_), start, _)) = state.run {
                let work = self.workload.tasks.get(t).map_or(0, |w| w.work.0);
                let left = work - state.saved;
                ends.insert((start.0.saturating_add(left), t as u64));
                starts += i128::from(start.0);
            }
        }
        if ends != self.pool.site_ends || starts != self.pool.site_starts {
            return Err("the site tasks' kept ends or starts are not those running".into());
        }
        for (c, node) in self.pool.cloud.iter().enumerate() {
            if node.tasks.len() as u32 > self.config.instance_types[node.instance].slots {
                return Err(format!("cloud node {c} runs more tasks than it has slots"));
            }
        }
        Ok(())
    }
}
