//! The hybrid executor's tests' workload.

use cosched_core::{Duration, JobId, MalleableJob, OnDemandJob, RigidJob, Time};
use cosched_hybrid::HybridJob;

/// The hybrid tests' workload on 8 nodes (ours), under N&SPAA: rigid job 1 and malleable job 2
/// (4 nodes each, job 2 down to 2) fill the nodes; on-demand job 3 (2 nodes) arrives at 40 and
/// SPAA shrinks job 2 to 2 nodes for it; job 2 ends at about 170; on-demand job 4 (4 nodes)
/// arrives at 220, no malleable job can give more, and PAA preempts job 1, which restarts when
/// job 3 ends (300) and ends at about 605. Each decision has 50 workload seconds of margin.
pub fn scenario_jobs() -> Vec<HybridJob> {
    let rigid = RigidJob::new(JobId(1), Time(0), 4, Duration(300), Duration(330)).unwrap();
    let malleable = MalleableJob::new(JobId(2), Time(0), 2, 4, Duration(400), Duration(5)).unwrap();
    let od = |id, size, run, at| {
        HybridJob::OnDemand(
            OnDemandJob::new(JobId(id), size, Duration(run), Duration(run + 20), Time(at)).unwrap(),
        )
    };
    vec![
        HybridJob::Rigid {
            job: rigid,
            setup: Duration(5),
        },
        HybridJob::Malleable {
            job: malleable,
            estimate: Duration(140),
        },
        od(3, 2, 260, 40),
        od(4, 4, 100, 220),
    ]
}
