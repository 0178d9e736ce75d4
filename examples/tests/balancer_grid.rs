//! The Balancer examples' shared grid: replicates are grouped per cell in order and averaged;
//! trace files by flag replace the synthetic inputs (one replicate when every input is a file).

use clap::Parser;
use cosched_balancer::workload::LeaseRequest;
use cosched_core::{Duration, JobId, LeaseId, RigidJob, Time};
use cosched_examples::balancer::{
    BATCH_WAIT, BatchInput, FigureCli, Prepared, REJECT_RATE, Replicate, Variant, prepare, run_grid,
};
use cosched_examples::{CommonArgs, OutDir};

fn replicate(offset: i64) -> Replicate {
    let jobs = (0..6)
        .map(|i| {
            RigidJob::new(
                JobId(i),
                Time(i as i64 * 50 + offset),
                1 + (i as u32 % 3),
                Duration(300),
                Duration(400),
            )
            .unwrap()
        })
        .collect();
    let base = (0..4)
        .map(|i| LeaseRequest {
            id: LeaseId(i),
            submit: Time(i as i64 * 100 + offset),
            nodes: 1,
            duration: Duration(200),
            notice: None,
        })
        .collect();
    Replicate {
        batch: vec![BatchInput {
            label: "tiny".to_owned(),
            jobs,
            preload: Vec::new(),
            span: Duration(1_000),
        }],
        on_demand: "test".to_owned(),
        base,
        history: Vec::new(),
    }
}

#[test]
fn replicates_are_grouped_per_cell_and_averaged() {
    let tmp = tempfile::tempdir().unwrap();
    let cli = FigureCli::parse_from(["fig", "--nodes", "4"]);
    let prepared = Prepared {
        out: OutDir::create(tmp.path()).unwrap(),
        seed: 1,
        nodes: 4,
        labels: vec!["tiny".to_owned()],
        span: Duration(1_000),
        on_demand: "test".to_owned(),
        models: "test".to_owned(),
        replicates: vec![replicate(0), replicate(37)],
    };
    let variants = [
        Variant {
            label: "basic".to_owned(),
            configuration: cli.inputs.scenario().basic(0, Duration::ZERO),
            notice: None,
        },
        Variant {
            label: "hint".to_owned(),
            configuration: cli.inputs.scenario().hint(Duration::ZERO),
            notice: Some(Duration(60)),
        },
    ];
    let results = run_grid(
        "test",
        &cli.inputs.scenario(),
        &prepared,
        &[1, 3],
        &variants,
    )
    .unwrap();
    let cells: Vec<(u32, usize)> = results
        .iter()
        .map(|r| (r.cell.scale, r.cell.variant))
        .collect();
    assert_eq!(cells, [(1, 0), (1, 1), (3, 0), (3, 1)]);
    for r in &results {
        assert_eq!(r.reports.len(), 2);
        for metric in [BATCH_WAIT, REJECT_RATE] {
            let each: Vec<f64> = r.reports.iter().map(|x| (metric.value)(x)).collect();
            assert!((r.mean(&metric) - (each[0] + each[1]) / 2.0).abs() < 1e-12);
        }
        // Scale ×3 asks for 3 nodes per request: 4 × 3 × 200 node-s over 4 nodes × 1,000 s.
        let expected = 4.0 * f64::from(r.cell.scale) * 200.0 / 4_000.0;
        assert!((r.rho - expected).abs() < 1e-12, "{}", r.rho);
    }
}

#[test]
fn trace_files_replace_the_synthetic_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let lcrc = tmp.path().join("week.csv");
    std::fs::write(
        &lcrc,
        "SubmitTime,StartTime,EndTime,QueuedTime,RunTime,NodesRequested,walltime,bslowdown\n\
         10,10,110,0,100,2,200,1.0\n500,500,900,0,400,4,600,1.0\n",
    )
    .unwrap();
    let leases = tmp.path().join("od.csv");
    std::fs::write(&leases, "submit,nodes,duration\n20,1,300\n").unwrap();
    let out = tmp.path().join("out");
    let cli = FigureCli::parse_from([
        "fig",
        "--out",
        out.to_str().unwrap(),
        "--nodes",
        "8",
        "--lcrc",
        lcrc.to_str().unwrap(),
        "--leases",
        leases.to_str().unwrap(),
        "--seeds",
        "3",
    ]);
    let common: &CommonArgs = &cli.common;
    let p = prepare("fig", common, &cli.inputs.scenario(), 1, 1, cli.seeds, 3).unwrap();
    assert_eq!(
        p.replicates.len(),
        1,
        "files give one replicate whatever --seeds says"
    );
    assert_eq!(p.labels, ["LCRC (1 week(s))"]);
    let batch = &p.replicates[0].batch[0];
    assert_eq!(batch.jobs.len(), 2);
    assert_eq!(
        (batch.jobs[1].size, batch.jobs[1].estimate),
        (4, Duration(600))
    );
    assert_eq!(p.replicates[0].base.len(), 1);
    // A malformed file is an error naming it, not a panic.
    std::fs::write(&leases, "submit,nodes,duration\n20,x,300\n").unwrap();
    let err = prepare("fig", common, &cli.inputs.scenario(), 1, 1, None, 3)
        .err()
        .expect("a bad field is refused")
        .to_string();
    assert!(err.contains("od.csv:2") && err.contains("`nodes`"), "{err}");
}
