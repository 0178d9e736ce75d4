//! The trace readers: errors name file, line and field; the APS packing holds exactly
//! `ceil(busy cores / cores per VM)` VMs at every instant; the real traces under
//! `/work/shared/data/balancer` (skipped when absent) read in full.

use cosched_balancer::traces::{
    ApsJob, TraceError, aps_to_leases, parse_aps, parse_lcrc, parse_leases, read_aps, read_lcrc,
};
use cosched_core::{Duration, Time};
use proptest::prelude::*;
use std::path::Path;

const LCRC: &str =
    "SubmitTime,StartTime,EndTime,QueuedTime,RunTime,NodesRequested,walltime,bslowdown";

#[test]
fn errors_name_the_file_line_and_field() {
    let text = format!("{LCRC}\n1,2,3,1,1,2,60,1.0\n1,2,3,1,1,2,60,1.0\n5,6,7,1,x,2,60,1.0\n");
    match parse_lcrc(text.as_bytes(), "w.csv") {
        Err(TraceError::Field {
            file, line, field, ..
        }) => assert_eq!((file.as_str(), line, field), ("w.csv", 4, "RunTime")),
        other => panic!("{other:?}"),
    }
    let text = format!("{LCRC}\n1,2,3\n");
    assert_eq!(
        parse_lcrc(text.as_bytes(), "w.csv")
            .unwrap_err()
            .to_string(),
        "w.csv:2: expected 8 fields, found 3"
    );
    let err = parse_leases("start,nodes,duration\n".as_bytes(), "od.csv").unwrap_err();
    assert!(matches!(err, TraceError::Header { .. }), "{err}");
    let err = parse_leases("submit,nodes,duration\n0,-1,5\n".as_bytes(), "od.csv").unwrap_err();
    assert_eq!(
        err.to_string(),
        "od.csv:2: field `nodes` = \"-1\": must be >= 1"
    );
    let err = parse_aps(
        "submit_time,start_time,end_time,run_time,wait_time\n0,0,5,-5,0\n".as_bytes(),
        "aps.csv",
    )
    .unwrap_err();
    assert!(err.to_string().contains("`run_time`"), "{err}");
    // A huge field is echoed in at most 80 characters.
    let text = format!("{LCRC}\n1,2,3,1,{},2,60,1.0\n", "9".repeat(100_000));
    let msg = parse_lcrc(text.as_bytes(), "w.csv")
        .unwrap_err()
        .to_string();
    assert!(msg.len() < 300 && msg.contains("RunTime"), "{msg}");
    let err = read_lcrc(Path::new("/nonexistent/lcrc.csv")).unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }), "{err}");
}

/// Busy cores and leased VMs just after each instant where either changes.
fn profile(jobs: &[ApsJob], per_vm: u32) -> Vec<(i64, i64, i64)> {
    let leases = aps_to_leases(jobs, per_vm).unwrap();
    let mut instants: Vec<i64> = jobs.iter().flat_map(|j| [j.start.0, j.end.0]).collect();
    instants.sort_unstable();
    instants.dedup();
    instants
        .into_iter()
        .map(|t| {
            let cores = jobs
                .iter()
                .filter(|j| j.start.0 <= t && t < j.end.0)
                .count() as i64;
            let vms = leases
                .iter()
                .filter(|l| l.submit.0 <= t && t < l.submit.0 + l.duration.0)
                .map(|l| i64::from(l.nodes))
                .sum();
            (t, cores, vms)
        })
        .collect()
}

proptest! {
    #[test]
    fn packing_is_tight_at_every_instant(
        raw in prop::collection::vec((0i64..500, 0i64..200), 0..60),
        per_vm in 1u32..6,
    ) {
        let jobs: Vec<ApsJob> = raw
            .iter()
            .map(|&(s, r)| ApsJob {
                submit: Time(s - 7),
                start: Time(s),
                end: Time(s + r),
                run: Duration(r),
                wait: Duration(0),
            })
            .collect();
        for (t, cores, vms) in profile(&jobs, per_vm) {
            let need = (cores + i64::from(per_vm) - 1) / i64::from(per_vm);
            prop_assert_eq!(vms, need, "at {}", t);
        }
        let leases = aps_to_leases(&jobs, per_vm).unwrap();
        prop_assert!(leases.iter().all(|l| l.nodes == 1 && l.duration.0 > 0));
        prop_assert!(leases.windows(2).all(|w| w[0].submit <= w[1].submit));
    }
}

fn data(dir: &str) -> Option<Vec<std::path::PathBuf>> {
    let dir = Path::new("/work/shared/data/balancer").join(dir);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    (!files.is_empty()).then_some(files)
}

#[test]
fn real_lcrc_weeks_read_in_full() {
    let Some(files) = data("lcrc") else {
        eprintln!("skipped: no LCRC traces");
        return;
    };
    for file in files {
        let jobs = read_lcrc(&file).unwrap();
        let lines = std::fs::read_to_string(&file).unwrap().lines().count();
        assert_eq!(jobs.len(), lines - 1, "{}", file.display());
        assert!(
            jobs.iter()
                .all(|j| (0..604_800).contains(&j.submit.0) && (1..=304).contains(&j.size))
        );
    }
}

#[test]
fn real_aps_weeks_pack_into_vms() {
    let Some(files) = data("aps") else {
        eprintln!("skipped: no APS traces");
        return;
    };
    for file in files {
        let jobs = read_aps(&file).unwrap();
        assert!(jobs.iter().all(|j| j.end - j.start == j.run));
        let leases = aps_to_leases(&jobs, 16).unwrap();
        let core_seconds: i64 = jobs.iter().map(|j| j.run.0).sum();
        let vm_seconds: i64 = leases.iter().map(|l| l.duration.0).sum();
        // Tight packing wastes less than one VM's cores at every instant with a VM up.
        assert!(vm_seconds * 16 >= core_seconds, "{}", file.display());
        assert!(!leases.is_empty());
    }
}
