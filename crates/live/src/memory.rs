//! A resource manager in memory, for testing a policy or an integration against the
//! [`Engine`](crate::Engine) or the [`Service`](crate::Service) without a cluster.
//!
//! [`MemoryCluster`] behaves as [`SlurmOarm`](crate::SlurmOarm) reports Slurm: a reclaim
//! drains (a node running a job keeps it and reports itself settled only once the job ends),
//! a restore resumes, no job starts on a drained or down node, and nothing is ever killed.
//! A test plays the batch side and the administrator by hand ([`MemoryCluster::start_job`],
//! [`MemoryCluster::end_job`], [`MemoryCluster::set_down`]) and can make the manager fail
//! ([`MemoryCluster::set_failing`]). Clones share the nodes, so a test keeps one handle while
//! the engine owns another.
//!
//! ```
//! use cosched_balancer::policy::{Balancer, BalancerConfig, RmNodeState, Strategy};
//! use cosched_core::{Duration, Time};
//! use cosched_live::{Answer, Engine, MemoryCluster};
//!
//! use RmNodeState::{BatchBusy, BatchIdle, OnDemandFree};
//! let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy]);
//! let basic = Balancer::new(
//!     BalancerConfig::new(Strategy::Basic { static_reserve: 0 }).with_window(Duration::from_mins(10)),
//! );
//! let mut engine = Engine::start(Time(0), basic, cluster.clone())?;
//! let request = engine.request(Time(1), 2, None)?;
//! // n1 is drained at once; n2 runs a job, which is not touched: the request waits.
//! assert_eq!(cluster.state(0), Some(OnDemandFree));
//! assert!(engine.take_answers().is_empty());
//! // The job ends: the next poll sees it, the policy drains n2 and the request is granted.
//! cluster.end_job(1)?;
//! engine.sync(Time(30))?;
//! assert_eq!(
//!     engine.take_answers(),
//!     [Answer::Granted { request, nodes: vec!["n1".into(), "n2".into()] }]
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cosched_balancer::oarm::Oarm;
use cosched_balancer::policy::RmNodeState;
use cosched_core::NodeId;
use thiserror::Error;

use crate::engine::{LiveCluster, NodeReport};

/// Why the cluster in memory refused an operation.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// No node at this index.
    #[error("no node {0}")]
    NoNode(usize),
    /// A job cannot start on this node: it is drained, down or runs one.
    #[error("node {name} cannot start a job: it is {why}")]
    CannotStart {
        /// The node's hostname.
        name: String,
        /// Drained, down or busy.
        why: &'static str,
    },
    /// The node runs no job.
    #[error("node {0} runs no job")]
    NoJob(String),
    /// The test made the manager fail ([`MemoryCluster::set_failing`]).
    #[error("the resource manager is failing")]
    Failing,
}

#[derive(Debug, Clone)]
struct Node {
    name: String,
    job: bool,
    drained: bool,
    down: bool,
}

#[derive(Debug, Default)]
struct Nodes {
    nodes: Vec<Node>,
    failing: bool,
}

/// A batch resource manager in memory; see the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct MemoryCluster(Arc<Mutex<Nodes>>);

impl MemoryCluster {
    /// Nodes `n1`, `n2`, … in the given states: `BatchBusy` runs a job, `OnDemandFree` and
    /// `OnDemandAllocated` are drained (by the Balancer, idle), `Unavailable` is down.
    pub fn new(states: &[RmNodeState]) -> MemoryCluster {
        let nodes = states
            .iter()
            .enumerate()
            .map(|(i, &state)| Node {
                name: format!("n{}", i + 1),
                job: state == RmNodeState::BatchBusy,
                drained: matches!(
                    state,
                    RmNodeState::OnDemandFree | RmNodeState::OnDemandAllocated
                ),
                down: state == RmNodeState::Unavailable,
            })
            .collect();
        MemoryCluster(Arc::new(Mutex::new(Nodes {
            nodes,
            failing: false,
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Nodes> {
        // A panic while holding the lock leaves the nodes consistent (every change is one
        // assignment), so a poisoned lock is still usable.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn with_node<T>(
        &self,
        i: usize,
        f: impl FnOnce(&mut Node) -> Result<T, MemoryError>,
    ) -> Result<T, MemoryError> {
        let mut nodes = self.lock();
        let node = nodes.nodes.get_mut(i).ok_or(MemoryError::NoNode(i))?;
        f(node)
    }

    /// Nodes.
    pub fn len(&self) -> usize {
        self.lock().nodes.len()
    }

    /// Whether it has no node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Node `i`'s state as [`LiveCluster::report`] gives it (`None`: no such node).
    pub fn state(&self, i: usize) -> Option<RmNodeState> {
        self.lock().nodes.get(i).map(|n| report(n).state)
    }

    /// A batch job starts on node `i` (e.g. between the engine's poll and its drain).
    pub fn start_job(&self, i: usize) -> Result<(), MemoryError> {
        self.with_node(i, |n| {
            let why = if n.drained {
                "drained"
            } else if n.down {
                "down"
            } else if n.job {
                "busy"
            } else {
                n.job = true;
                return Ok(());
            };
            Err(MemoryError::CannotStart {
                name: n.name.clone(),
                why,
            })
        })
    }

    /// Node `i`'s batch job ends (a drained node settles).
    pub fn end_job(&self, i: usize) -> Result<(), MemoryError> {
        self.with_node(i, |n| {
            if !n.job {
                return Err(MemoryError::NoJob(n.name.clone()));
            }
            n.job = false;
            Ok(())
        })
    }

    /// An administrator takes node `i` down (`true`) or brings it back; a job on it is lost.
    pub fn set_down(&self, i: usize, down: bool) -> Result<(), MemoryError> {
        self.with_node(i, |n| {
            n.down = down;
            n.job &= !down;
            Ok(())
        })
    }

    /// While `true`, every reclaim, restore and report fails with [`MemoryError::Failing`].
    pub fn set_failing(&self, failing: bool) {
        self.lock().failing = failing;
    }

    fn command(&self, node: NodeId, drained: bool) -> Result<(), MemoryError> {
        if self.lock().failing {
            return Err(MemoryError::Failing);
        }
        self.with_node(node.index(), |n| {
            n.drained = drained;
            Ok(())
        })
    }
}

/// What Slurm shows through [`SlurmOarm`](crate::SlurmOarm): the Balancer's drain first,
/// then down, then a job.
fn report(n: &Node) -> NodeReport {
    let state = if n.drained {
        RmNodeState::OnDemandFree
    } else if n.down {
        RmNodeState::Unavailable
    } else if n.job {
        RmNodeState::BatchBusy
    } else {
        RmNodeState::BatchIdle
    };
    NodeReport {
        name: n.name.clone(),
        state,
        settled: n.drained && !n.job,
    }
}

impl Oarm for MemoryCluster {
    type Error = MemoryError;

    /// Drains the node: a job on it keeps running.
    fn reclaim_node(&mut self, node: NodeId, _name: &str) -> Result<(), MemoryError> {
        self.command(node, true)
    }

    /// Resumes the node for batch work.
    fn restore_node(&mut self, node: NodeId, _name: &str) -> Result<(), MemoryError> {
        self.command(node, false)
    }
}

impl LiveCluster for MemoryCluster {
    fn report(&self) -> Result<Vec<NodeReport>, MemoryError> {
        let nodes = self.lock();
        if nodes.failing {
            return Err(MemoryError::Failing);
        }
        Ok(nodes.nodes.iter().map(report).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RmNodeState::{BatchBusy, BatchIdle, OnDemandAllocated, OnDemandFree, Unavailable};

    fn reports(c: &MemoryCluster) -> Vec<(RmNodeState, bool)> {
        c.report()
            .unwrap()
            .into_iter()
            .map(|r| (r.state, r.settled))
            .collect()
    }

    #[test]
    fn states_round_trip_through_the_report() {
        let c = MemoryCluster::new(&[BatchIdle, BatchBusy, OnDemandFree, Unavailable]);
        assert_eq!(
            reports(&c),
            [
                (BatchIdle, false),
                (BatchBusy, false),
                (OnDemandFree, true),
                (Unavailable, false)
            ]
        );
        assert_eq!(c.state(2), Some(OnDemandFree));
        let allocated = MemoryCluster::new(&[OnDemandAllocated]);
        assert_eq!(allocated.state(0), Some(OnDemandFree));
        let names: Vec<String> = c.report().unwrap().into_iter().map(|r| r.name).collect();
        assert_eq!(names, ["n1", "n2", "n3", "n4"]);
        assert_eq!((c.len(), c.is_empty()), (4, false));
        assert_eq!(c.state(4), None);
    }

    #[test]
    fn a_drain_keeps_the_job_and_settles_when_it_ends() {
        let mut c = MemoryCluster::new(&[BatchBusy]);
        c.reclaim_node(NodeId(0), "n1").unwrap();
        assert_eq!(reports(&c), [(OnDemandFree, false)]);
        assert!(matches!(
            c.start_job(0),
            Err(MemoryError::CannotStart { why: "drained", .. })
        ));
        c.end_job(0).unwrap();
        assert_eq!(reports(&c), [(OnDemandFree, true)]);
        c.restore_node(NodeId(0), "n1").unwrap();
        assert_eq!(reports(&c), [(BatchIdle, false)]);
        c.start_job(0).unwrap();
        assert!(matches!(
            c.start_job(0),
            Err(MemoryError::CannotStart { why: "busy", .. })
        ));
    }

    #[test]
    fn down_nodes_lose_their_job_and_refuse_new_ones() {
        let c = MemoryCluster::new(&[BatchBusy]);
        c.set_down(0, true).unwrap();
        assert_eq!(c.state(0), Some(Unavailable));
        assert_eq!(c.end_job(0), Err(MemoryError::NoJob("n1".into())));
        assert!(matches!(
            c.start_job(0),
            Err(MemoryError::CannotStart { why: "down", .. })
        ));
        c.set_down(0, false).unwrap();
        assert_eq!(c.state(0), Some(BatchIdle));
        assert_eq!(c.set_down(1, true), Err(MemoryError::NoNode(1)));
    }

    #[test]
    fn a_failing_manager_fails_every_call_and_changes_nothing() {
        let mut c = MemoryCluster::new(&[BatchIdle]);
        c.set_failing(true);
        assert_eq!(c.report(), Err(MemoryError::Failing));
        assert_eq!(c.reclaim_node(NodeId(0), "n1"), Err(MemoryError::Failing));
        c.set_failing(false);
        assert_eq!(reports(&c), [(BatchIdle, false)]);
    }

    #[test]
    fn clones_share_the_nodes() {
        let c = MemoryCluster::new(&[BatchIdle]);
        let mut engine_side = c.clone();
        engine_side.reclaim_node(NodeId(0), "n1").unwrap();
        assert_eq!(c.state(0), Some(OnDemandFree));
    }
}
