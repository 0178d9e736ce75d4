//! # cosched-live
//!
//! cosched policies in front of a real resource manager. Any policy of the Balancer's protocol
//! (Liu, Keahey, Riteau, Weissman, SC18) — the [`Balancer`], Predictive, a static baseline or a
//! caller's own — runs here exactly as in the simulator, observations in and commands out, with
//! Slurm as its batch side and an HTTP/JSON service
//! with the paper's calls as its on-demand side (§II-D: the paper's Flask endpoint, Torque's
//! `pbsnodes -o/-c` and prologue/epilogue notifiers).
//!
//! - [`SlurmOarm`]: reclaim = `scontrol update state=drain`, restore = `state=resume`, node
//!   status from `sinfo` (through `cosched-slurm`);
//! - [`Engine`]: the executor between any policy of the protocol and a [`LiveCluster`]:
//!   polling, the epilog's job ends, grants handed over only once their nodes are drained of
//!   batch work; it reads nothing of the policy but its commands and its wake time;
//! - [`Service`]: the axum service (`cosched balancer serve`), its events to a [`Logger`]
//!   ([`ServiceConfig::log`]; stderr by default, or a file), its state and counters at
//!   `GET /metrics` ([`metrics`]), beyond loopback only with a bearer token, its bodies,
//!   headers and connections bounded ([`http`]);
//! - [`BatchExecutor`]: any batch-protocol policy (the catalogue of `cosched simulate
//!   --policy`, or one's own) as the scheduler of a [`BatchPlatform`] whose jobs wait held —
//!   [`SlurmBatch`] (start = `ReqNodeList` + `release`, ends from the epilog) or
//!   [`MemoryBatch`] — seeing what the batch simulator shows it, journaled for restarts;
//!   [`run_paced`] runs it on a time-scaled wall clock;
//! - [`HybridExecutor`]: any hybrid-protocol policy (Fan et al., IPDPS 2022) over a
//!   [`HybridPlatform`] — on-demand jobs started at once by requeueing rigid jobs and
//!   shrinking malleable ones — its record of the cluster the hybrid simulator's environment,
//!   stepped by the wall clock; [`HybridService`] puts it behind HTTP, on-demand jobs and
//!   their CUA/CUP notices arriving through its API;
//! - [`MemoryCluster`]: a resource manager in memory, the test double for a policy or an
//!   integration run through the engine or the service without a cluster;
//! - [`scavenge`]: the composed site's scavenging role live — any policy of its protocol
//!   (harvest every idle node, RHIC's sizing, one's own) keeps scavenged tasks running in a
//!   preemptible Slurm partition over the batch nodes ([`scavenge::Scavenger`]), with
//!   [`scavenge::MemoryPartitions`] as its test double.
//!
//! The engine over a resource manager of one's own (here nodes in memory; a live service uses
//! [`SlurmOarm`]): a request for the idle nodes is granted once the engine has drained them,
//! one that needs a busy node waits (within the policy's `W`) and nothing is ever killed.
//!
//! ```
//! use cosched_balancer::oarm::Oarm;
//! use cosched_balancer::policy::{Balancer, BalancerConfig, RmNodeState, Strategy};
//! use cosched_core::{Duration, NodeId, Time};
//! use cosched_live::{Answer, Engine, LiveCluster, NodeReport};
//!
//! /// Nodes in memory: a reclaim drains (a busy node keeps its job until it ends).
//! struct Memory(Vec<NodeReport>);
//! impl Oarm for Memory {
//!     type Error = std::convert::Infallible;
//!     fn reclaim_node(&mut self, node: NodeId, _: &str) -> Result<(), Self::Error> {
//!         let n = &mut self.0[node.index()];
//!         n.settled = n.state != RmNodeState::BatchBusy;
//!         n.state = RmNodeState::OnDemandFree;
//!         Ok(())
//!     }
//!     fn restore_node(&mut self, node: NodeId, _: &str) -> Result<(), Self::Error> {
//!         self.0[node.index()] = NodeReport { state: RmNodeState::BatchIdle, settled: false, ..self.0[node.index()].clone() };
//!         Ok(())
//!     }
//! }
//! impl LiveCluster for Memory {
//!     fn report(&self) -> Result<Vec<NodeReport>, Self::Error> {
//!         Ok(self.0.clone())
//!     }
//! }
//!
//! let node = |name: &str, state| NodeReport { name: name.into(), state, settled: false };
//! use RmNodeState::{BatchBusy, BatchIdle};
//! let cluster = Memory(vec![node("n1", BatchIdle), node("n2", BatchIdle), node("n3", BatchBusy)]);
//! let basic = Balancer::new(
//!     BalancerConfig::new(Strategy::Basic { static_reserve: 0 }).with_window(Duration::from_mins(10)),
//! );
//! let mut engine = Engine::start(Time(0), basic, cluster)?;
//! let first = engine.request(Time(10), 2, None)?;
//! let answers = engine.take_answers();
//! assert!(matches!(&answers[..], [Answer::Granted { request, nodes }] if *request == first && nodes.len() == 2));
//! // The third node runs a job: the next request waits for it, and the job is not touched.
//! engine.request(Time(20), 1, None)?;
//! assert!(engine.take_answers().is_empty());
//! assert_eq!(engine.cluster().0[2].state, BatchBusy);
//! # Ok::<(), cosched_live::LiveError>(())
//! ```
//!
//! [`Balancer`]: cosched_balancer::policy::Balancer

pub mod batch;
pub mod engine;
pub mod http;
pub mod hybrid;
pub mod hybrid_service;
pub mod memory;
pub mod metrics;
pub mod scavenge;
pub mod service;
mod slurm_oarm;

pub use batch::{
    BatchExecutor, BatchLiveError, BatchPlatform, Journal, MemoryBatch, MemoryBatchError, Outside,
    Paced, PlatformJob, ScaledClock, SlurmBatch, run_paced,
};
pub use engine::{
    Answer, Engine, InvalidInput, LiveCluster, LiveError, NodeRecord, NodeReport, NodeView,
    Persisted, Tally,
};
pub use http::{BearerToken, Limits, TokenError};
pub use hybrid::{
    Applied, HybridEvent, HybridExecutor, HybridJournal, HybridLiveError, HybridPlatform,
    OnDemandStart,
};
pub use hybrid_service::{HybridClock, HybridRun, HybridService, HybridServiceConfig};
pub use memory::{MemoryCluster, MemoryError};
pub use metrics::Metrics;
pub use service::{LogEvent, LogSink, Logger, Service, ServiceConfig, ServiceError, ServicePolicy};
pub use slurm_oarm::{DEFAULT_REASON, SlurmOarm};
