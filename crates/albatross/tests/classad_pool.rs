//! What a real pool prints, read and matched as HTCondor does: `condor_status -long`,
//! `condor_status -json` and `condor_q -long` of a small pool (`tests/fixtures/pool/`, written
//! by `gen_pool_fixtures.py`), matched job by job against the slots HTCondor's own
//! `symmetricMatch` pairs them with (`expected_matches.json`).

use cosched_albatross::classad::read::{AdFormat, detect_format, parse_ads};
use cosched_albatross::classad::{ClassAd, Value, slots, symmetric_match};
use std::collections::BTreeMap;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/pool/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn name(ad: &ClassAd) -> String {
    match ad.eval_attr("Name", None) {
        Value::Str(s) => s.to_string(),
        other => panic!("a slot without a Name: {other}"),
    }
}

fn job_id(ad: &ClassAd) -> String {
    format!(
        "{}.{}",
        ad.eval_attr("ClusterId", None),
        ad.eval_attr("ProcId", None)
    )
}

#[test]
fn long_and_json_outputs_read_the_same_slots() {
    let long = fixture("condor_status_long.txt");
    let json = fixture("condor_status.json");
    assert_eq!(detect_format(&long), AdFormat::Old);
    assert_eq!(detect_format(&json), AdFormat::Json);
    let from_long = parse_ads(&long).expect("condor_status -long parses");
    let from_json = parse_ads(&json).expect("condor_status -json parses");
    assert_eq!(from_long.len(), 7);
    assert_eq!(from_json.len(), 7);
    for (a, b) in from_long.iter().zip(&from_json) {
        assert_eq!(name(a), name(b));
        for attr in [
            "Requirements",
            "Start",
            "Memory",
            "LoadAvg",
            "ChildCpus",
            "AddressV1",
            "IsOwner",
            "WithinResourceLimits",
        ] {
            assert_eq!(
                a.eval_attr(attr, None),
                b.eval_attr(attr, None),
                "{} {attr}",
                name(a)
            );
        }
    }
    // Lists and partitionable slots come through.
    let pslot = &from_long[3];
    assert!(slots::is_partitionable(pslot));
    assert_eq!(
        pslot.eval_attr("ChildCpus", None),
        Value::List(vec![Value::Int(2)])
    );
}

#[test]
fn condor_q_json_reads_the_same_jobs() {
    let long = parse_ads(&fixture("condor_q_long.txt")).unwrap();
    let json = parse_ads(&fixture("condor_q.json")).unwrap();
    let slot = &parse_ads(&fixture("condor_status_long.txt")).unwrap()[0];
    assert_eq!(long.len(), json.len());
    for (a, b) in long.iter().zip(&json) {
        assert_eq!(job_id(a), job_id(b));
        for attr in [
            "Cmd",
            "RequestMemory",
            "RequestDisk",
            "JobStatus",
            "HoldReason",
        ] {
            assert_eq!(a.eval_attr(attr, None), b.eval_attr(attr, None), "{attr}");
        }
        assert_eq!(
            a.eval_attr("Requirements", Some(slot)),
            b.eval_attr("Requirements", Some(slot))
        );
    }
}

#[test]
fn condor_q_long_keeps_windows_paths() {
    let jobs = parse_ads(&fixture("condor_q_long.txt")).expect("condor_q -long parses");
    assert_eq!(jobs.len(), 7);
    let windows = &jobs[6];
    assert_eq!(
        windows.eval_attr("Cmd", None),
        Value::from("C:\\Users\\erin\\sim\\model.exe")
    );
    assert_eq!(
        jobs[0].eval_attr("RequestMemory", None),
        Value::Int(733),
        "MemoryUsage, once known"
    );
    assert_eq!(jobs[2].eval_attr("RequestMemory", None), Value::Int(118));
}

#[test]
fn every_job_matches_the_slots_htcondor_matches() {
    let slots_ads = parse_ads(&fixture("condor_status_long.txt")).unwrap();
    let jobs = parse_ads(&fixture("condor_q_long.txt")).unwrap();
    let expected: serde_json::Value =
        serde_json::from_str(&fixture("expected_matches.json")).unwrap();
    let mut ours = BTreeMap::new();
    for job in &jobs {
        let names: Vec<String> = slots_ads
            .iter()
            .filter(|s| symmetric_match(job, s))
            .map(name)
            .collect();
        ours.insert(job_id(job), names);
    }
    let theirs: BTreeMap<String, Vec<String>> =
        serde_json::from_value(expected["matches"].clone()).unwrap();
    assert_eq!(ours, theirs);
    // The large-input job keeps off the annex node; the p-slot's free resources decide.
    assert!(!ours["103.0"].iter().any(|n| n.contains("ec2")));
    let big: ClassAd =
        "[ RequestCpus = 4; RequestMemory = 1024; RequestDisk = 1; Requirements = true ]"
            .parse()
            .unwrap();
    assert!(!slots::matches(&big, &slots_ads[3]), "only 2 CPUs left");
}
