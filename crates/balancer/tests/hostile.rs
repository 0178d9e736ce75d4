//! Hostile input for the Balancer's CSV formats (LCRC weeks, APS jobs, leases): extreme
//! values in every field (empty, huge, negative, NaN/inf, non-UTF-8, very long) give a clean
//! typed error naming the file, line and field, or a correct result that the simulator then
//! runs (Basic, Hint and the static split) without a panic and without memory or time in
//! proportion to a number in the file.

use std::time::Instant;

use cosched_balancer::scenario::Arm;
use cosched_balancer::traces::{
    APS_HEADER, LCRC_HEADER, LEASE_HEADER, TraceError, aps_to_leases, parse_aps, parse_lcrc,
    parse_lcrc_records, parse_leases, running_at,
};
use cosched_balancer::workload::Workload;
use cosched_balancer::{BalancerConfig, Strategy as BalancerStrategy};
use cosched_core::{Duration, Time};
use proptest::prelude::*;

/// One field: usually an integer (small, or at the edge of a type), sometimes garbage.
fn token() -> impl Strategy<Value = Vec<u8>> {
    let edge = prop_oneof![
        Just("0"),
        Just("1"),
        Just("-1"),
        Just("4294967295"),
        Just("4294967296"),
        Just("9223372036854775807"),
        Just("-9223372036854775808"),
        Just("-9223372036854775000"),
        Just(" 7 "),
    ]
    .prop_map(|t| t.as_bytes().to_vec());
    let garbage = prop_oneof![
        Just(b"".to_vec()),
        Just(b"9223372036854775808".to_vec()),
        Just(b"NaN".to_vec()),
        Just(b"inf".to_vec()),
        Just(b"-inf".to_vec()),
        Just(b"1e308".to_vec()),
        Just(b"1.5".to_vec()),
        Just(b"\"12\"".to_vec()),
        Just(b"\"unterminated".to_vec()),
        Just(vec![0xff, 0xfe, b'1']),
        Just(vec![b'9'; 5_000]),
        Just(vec![b'x'; 100_000]),
    ];
    prop_oneof![
        24 => (0i64..100_000).prop_map(|v| v.to_string().into_bytes()),
        6 => edge,
        1 => garbage,
    ]
}

/// A file of `header` and rows of tokens (usually the right number of fields).
fn file(header: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    let n = header.len();
    let row = prop_oneof![
        8 => prop::collection::vec(token(), n..=n),
        1 => prop::collection::vec(token(), 0..n + 3),
    ];
    prop::collection::vec(row, 0..8).prop_map(move |rows| {
        let mut out = header.join(",").into_bytes();
        out.push(b'\n');
        for row in rows {
            out.extend(row.join(&b','));
            out.push(b'\n');
        }
        out
    })
}

/// Every error names the file and a line, and echoes at most 80 characters of a field.
fn check_error(e: &TraceError) -> Result<(), TestCaseError> {
    let text = e.to_string();
    prop_assert!(text.starts_with("hostile.csv"), "{}", text);
    prop_assert!(
        text.chars().count() < 400,
        "too long an echo: {} chars",
        text.len()
    );
    Ok(())
}

/// The simulator's three kinds of configuration on a 16-node cluster.
fn configurations() -> [Arm; 3] {
    let w = Duration::from_mins(5);
    [
        Arm::balancer(
            BalancerConfig::new(BalancerStrategy::Basic { static_reserve: 2 }).with_window(w),
        ),
        Arm::balancer(BalancerConfig::new(BalancerStrategy::Hinted).with_window(w)),
        Arm::dedicated(4, w),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// LCRC weeks: a typed error, or jobs (nodes >= 1, run time and walltime >= 0) that the
    /// simulator runs beside no leases, and a preload that is well formed.
    #[test]
    fn lcrc(bytes in file(&LCRC_HEADER)) {
        match parse_lcrc(bytes.as_slice(), "hostile.csv") {
            Err(e) => check_error(&e)?,
            Ok(jobs) => {
                prop_assert!(jobs.iter().all(|j| j.size >= 1 && j.runtime >= Duration::ZERO
                    && j.estimate >= Duration::ZERO));
                let started = Instant::now();
                for c in configurations() {
                    let _ = c.run(16, &Workload::new(&jobs, &[]), &[]);
                }
                prop_assert!(started.elapsed().as_secs() < 20, "slow: {:?}", started.elapsed());
                let records = parse_lcrc_records(bytes.as_slice(), "hostile.csv").unwrap();
                for week_end in [Time::ZERO, Time(604_800), Time::MAX, Time(i64::MIN)] {
                    for j in running_at(&records, week_end, u64::MAX - 1) {
                        prop_assert!(j.runtime > Duration::ZERO && j.estimate >= j.runtime);
                    }
                }
            }
        }
    }

    /// Lease files: a typed error, or leases (nodes >= 1, duration >= 1) that the simulator
    /// answers, each once, whatever their times and sizes.
    #[test]
    fn leases(bytes in file(&LEASE_HEADER)) {
        match parse_leases(bytes.as_slice(), "hostile.csv") {
            Err(e) => check_error(&e)?,
            Ok(leases) => {
                prop_assert!(leases.iter().all(|l| l.nodes >= 1 && l.duration >= Duration(1)));
                let started = Instant::now();
                for c in configurations() {
                    if let Ok(out) = c.run(16, &Workload::new(&[], &leases), &[]) {
                        let od = &out.report.on_demand;
                        prop_assert!(od.granted + od.rejected <= leases.len());
                    }
                }
                prop_assert!(started.elapsed().as_secs() < 20, "slow: {:?}", started.elapsed());
            }
        }
    }

    /// APS files: a typed error, or jobs whose tight packing gives one-node leases of
    /// positive length, as many at once as the busy cores need, at most one per job.
    #[test]
    fn aps(bytes in file(&APS_HEADER), per_vm in prop_oneof![Just(1u32), Just(16), Just(u32::MAX)]) {
        match parse_aps(bytes.as_slice(), "hostile.csv") {
            Err(e) => check_error(&e)?,
            Ok(jobs) => {
                prop_assert!(jobs.iter().all(|j| j.run >= Duration::ZERO && j.wait >= Duration::ZERO));
                let leases = aps_to_leases(&jobs, per_vm).unwrap();
                prop_assert!(leases.len() <= jobs.len());
                prop_assert!(leases.iter().all(|l| l.nodes == 1 && l.duration >= Duration::ZERO));
                for c in configurations() {
                    let _ = c.run(16, &Workload::new(&[], &leases), &[]);
                }
            }
        }
    }
}

/// The review's reproducer (#13): an APS run time of i64::MAX and times near ±9e18 are read
/// and simulated without a wrapped or negative figure.
#[test]
fn aps_extremes_give_sane_figures() {
    let csv = "submit_time,start_time,end_time,run_time,wait_time\n\
               100,101,200,9223372036854775807,1\n\
               -9223372036854775808,-9223372036854775808,9223372036854775807,0,0\n";
    let jobs = parse_aps(csv.as_bytes(), "aps.csv").unwrap();
    let leases = aps_to_leases(&jobs, 16).unwrap();
    for c in configurations() {
        let report = c.run(16, &Workload::new(&[], &leases), &[]).unwrap().report;
        assert!(report.reserve_idle_node_hours >= 0.0, "{report:?}");
        for u in [
            report.batch_utilization,
            report.on_demand_utilization,
            report.combined_utilization,
        ] {
            assert!(u.is_nan() || (0.0..=1.0 + 1e-9).contains(&u), "{u}");
        }
    }
}

/// A lease asking for u32::MAX nodes on 16 nodes is refused, quickly, in little memory.
#[test]
fn a_lease_for_every_node_there_could_be_is_rejected() {
    let leases = parse_leases(
        "submit,nodes,duration\n0,4294967295,3600\n".as_bytes(),
        "od.csv",
    )
    .unwrap();
    for c in configurations() {
        let out = c.run(16, &Workload::new(&[], &leases), &[]).unwrap();
        assert_eq!(out.report.on_demand.rejected, 1);
    }
}

/// A field of 100,000 characters is echoed in at most 80.
#[test]
fn a_huge_field_is_echoed_short() {
    let csv = format!("submit,nodes,duration\n0,{},3600\n", "7".repeat(100_000));
    let err = parse_leases(csv.as_bytes(), "od.csv")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("od.csv:2:"), "{err}");
    assert!(err.chars().count() < 200, "{err}");
}

/// An LCRC week sampled for the synthetic workloads (`--sample-lcrc`) with a walltime of
/// i64::MAX: the preload's remaining walltime is computed without overflow (before, `submit +
/// walltime` overflowed: a panic in debug builds, a wrapped estimate in release).
#[test]
fn a_sampled_walltime_of_i64_max_preloads_cleanly() {
    use cosched_balancer::synthetic::{BatchKind, SyntheticBatch, WEEK};
    let csv = format!(
        "{}\n{},0,0,0,400000,2,9223372036854775807,1.0\n",
        LCRC_HEADER.join(","),
        WEEK.0 - 600
    );
    let trace = parse_lcrc(csv.as_bytes(), "week.csv").unwrap();
    let g = SyntheticBatch {
        tolerance: 0.49,
        ..SyntheticBatch::new(2, BatchKind::Main { utilization: 0.66 })
    };
    // The one job (load 0.66) runs past the week's end: it is preloaded with what it has
    // left, its walltime less the 600 s it ran.
    let week = g.generate_from_trace(trace, 1, 1).unwrap();
    assert_eq!(week.preload.len(), 1, "{week:?}");
    let j = &week.preload[0];
    assert_eq!(
        (j.runtime, j.estimate),
        (Duration(399_400), Duration(i64::MAX - 600))
    );
}

/// A million-node cluster (`balancer_table1 --nodes 1000000`) with a few jobs and
/// leases: each event's work follows the nodes it touches, not the cluster (before, every
/// event scanned every node's slot several times: over 60 s).
#[test]
fn a_million_nodes_cost_what_their_jobs_cost() {
    use cosched_balancer::workload::LeaseRequest;
    use cosched_core::{JobId, LeaseId, RigidJob};
    let jobs: Vec<RigidJob> = (0..300)
        .map(|i| {
            RigidJob::new(
                JobId(i),
                Time(i as i64 * 60),
                1 + (i as u32 % 7) * 1000,
                Duration(3_000),
                Duration(4_000),
            )
            .unwrap()
        })
        .collect();
    let leases: Vec<LeaseRequest> = (0..100)
        .map(|i| LeaseRequest {
            id: LeaseId(i),
            submit: Time(i as i64 * 150),
            nodes: 1 + (i as u32 % 5) * 500,
            duration: Duration(1_800),
            notice: Some(Duration::from_mins(15)),
        })
        .collect();
    let w = Duration::from_mins(5);
    // Hint exercises every index (idle nodes, free reserve, holds, the pool); the split's
    // pool is a field.
    for arm in [
        Arm::balancer(BalancerConfig::new(BalancerStrategy::Hinted).with_window(w)),
        Arm::dedicated(68, w),
    ] {
        let out = arm
            .run(1_000_000, &Workload::new(&jobs, &leases), &[])
            .unwrap();
        assert_eq!(out.report.batch.completed, 300, "{}", arm.name());
        assert_eq!(out.report.on_demand.requests, 100);
    }
}
