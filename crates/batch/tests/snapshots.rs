//! Reports of small committed traces under each policy, pinned as snapshots: any change in
//! scheduling decisions or metrics shows up as a reviewable diff.

use cosched_batch::BatchSim;
use cosched_batch::scenario::BuiltinPolicy;
use cosched_workload::swf::read_rigid_jobs;
use std::path::PathBuf;

fn report(trace: &str, capacity: u32, policy: BuiltinPolicy) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(trace);
    let trace = read_rigid_jobs(&path).expect("committed trace parses");
    let mut out = BatchSim::new(capacity)
        .expect("valid capacity")
        .run(&mut policy.build(), &trace.jobs)
        .expect("valid workload");
    out.report.invalid += trace.invalid_count();
    let mut starts: Vec<_> = out
        .records
        .iter()
        .map(|r| (r.id.0, r.start.map_or(-1, |t| t.0)))
        .collect();
    starts.sort();
    format!("{}\nstarts: {starts:?}", out.report.to_json())
}

#[test]
fn lublin_32_60_reports() {
    for policy in BuiltinPolicy::ALL {
        insta::assert_snapshot!(
            format!("lublin_32_60_{policy}"),
            report("tests/data/lublin_32_60.swf", 32, policy)
        );
    }
}

#[test]
fn tiny_trace_reports() {
    // 10 records: 2 invalid, one (128 units) rejected on a 64-unit machine.
    for policy in BuiltinPolicy::ALL {
        insta::assert_snapshot!(
            format!("tiny_{policy}"),
            report("../workload/tests/data/tiny.swf", 64, policy)
        );
    }
}
