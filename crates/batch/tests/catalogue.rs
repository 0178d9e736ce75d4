//! The policy catalogue: names round-trip, every order × backfilling pair schedules within the
//! machine, the generic engine equals the queue-ordered policies on the queue order, and each
//! rule gives the schedule worked out by hand on small cases.

use cosched_batch::catalogue::{Backfill, Composed, Estimates, PolicySpec};
use cosched_batch::order::{Expression, Order};
use cosched_batch::{BatchSim, SimOutcome};
use cosched_core::{Duration, JobId, RigidJob, Time};
use proptest::prelude::*;

fn job(id: u64, submit: i64, size: u32, run: i64, estimate: i64) -> RigidJob {
    RigidJob::new(
        JobId(id),
        Time(submit),
        size,
        Duration(run),
        Duration(estimate),
    )
    .unwrap()
}

fn run_spec(capacity: u32, jobs: &[RigidJob], spec: &PolicySpec) -> SimOutcome {
    let jobs = spec.estimates.apply(jobs).unwrap();
    BatchSim::new(capacity)
        .unwrap()
        .run(&mut spec.build(), &jobs)
        .unwrap()
}

fn run(capacity: u32, jobs: &[RigidJob], name: &str) -> SimOutcome {
    run_spec(capacity, jobs, &name.parse().unwrap())
}

fn starts(out: &SimOutcome) -> Vec<(u64, Option<i64>)> {
    let mut s: Vec<_> = out
        .records
        .iter()
        .map(|r| (r.id.0, r.start.map(|t| t.0)))
        .collect();
    s.sort();
    s
}

#[test]
fn names_round_trip_and_aliases_stay() {
    let mut names: Vec<String> = PolicySpec::catalogue()
        .iter()
        .map(|s| s.to_string())
        .collect();
    names.extend(
        [
            "sjf+easy(order=ljf)",
            "wfp3+bounded(depth=7,window=90m,order=saf)",
            "expr(estimate / size)+conservative@exact",
            "f1+easy@tsafrir(max=36h,seed=3)",
            "unicep+none@tsafrir(seed=2)",
        ]
        .map(String::from),
    );
    for name in &names {
        let spec: PolicySpec = name.parse().unwrap();
        assert_eq!(&spec.to_string(), name);
        assert_eq!(spec.to_string().parse::<PolicySpec>().unwrap(), spec);
    }
    assert_eq!(PolicySpec::catalogue().len(), 32);
    for (alias, long) in [
        ("fcfs", "fcfs+none"),
        ("EASY", "fcfs+easy"),
        ("conservative", "fcfs+conservative"),
        (
            "conservative-bounded",
            "fcfs+bounded(depth=500,window=86400)",
        ),
    ] {
        let a: PolicySpec = alias.parse().unwrap();
        assert_eq!(a, long.parse().unwrap());
        assert_eq!(a.to_string(), alias.to_ascii_lowercase());
    }
}

#[test]
fn unknown_names_list_the_catalogue() {
    let e = "lottery+easy"
        .parse::<PolicySpec>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("lottery") && e.contains("wfp3") && e.contains("expr("),
        "{e}"
    );
    let e = "sjf+greedy".parse::<PolicySpec>().unwrap_err().to_string();
    assert!(e.contains("greedy") && e.contains("bounded"), "{e}");
    for bad in [
        "sjf+conservative(order=ljf)",
        "sjf+bounded(depth=0)",
        "sjf+bounded(window=3w)",
        "sjf+easy(order=ljf,order=sjf)",
        "sjf+easy@guess",
        "sjf+easy@tsafrir(max=10m)",
        "expr(size+",
        "expr(cores)",
        "expr(math::ln(size))",
        "expr(a = 5)",
        "sjf+easy(order=sjf",
    ] {
        assert!(bad.parse::<PolicySpec>().is_err(), "{bad}");
    }
}

#[test]
fn hostile_expressions_are_refused_quickly() {
    let deep = format!("{}size{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(deep.parse::<Expression>().is_err());
    let long = "size+".repeat(200) + "size";
    assert!(long.parse::<Expression>().is_err());
    assert!("size / 0".parse::<Expression>().is_ok()); // floats: inf, ordered last but NaN
    assert!("\"text\"".parse::<Expression>().is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Arbitrary text never panics the parser.
    #[test]
    fn any_text_parses_or_errs(text in ".{0,80}") {
        let _ = text.parse::<PolicySpec>();
        let _ = format!("expr({text})").parse::<PolicySpec>();
    }
}

/// Workloads on a time grid with estimates at or above run times, some killed at them.
fn workload() -> impl Strategy<Value = (u32, Vec<RigidJob>)> {
    (1u32..=10).prop_flat_map(|capacity| {
        let spec = (
            0i64..300,
            1..=capacity,
            0i64..120,
            0i64..60,
            prop::bool::weighted(0.1),
        );
        (
            Just(capacity),
            prop::collection::vec(spec, 0..60).prop_map(|specs| {
                specs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (submit, size, run, margin, overrun))| {
                        let estimate = if overrun {
                            (run / 2).max(1)
                        } else {
                            run + margin
                        };
                        job(i as u64 + 1, submit / 10 * 10, size, run, estimate)
                    })
                    .collect()
            }),
        )
    })
}

/// Never more units busy than the machine has; every job that fits starts once and ends
/// after it starts.
fn check_schedule(capacity: u32, jobs: &[RigidJob], out: &SimOutcome) -> Result<(), TestCaseError> {
    let mut events = Vec::new();
    for r in &out.records {
        match (r.start, r.end) {
            (Some(s), Some(e)) => {
                prop_assert!(s >= r.submit && e >= s);
                events.push((e, -i64::from(r.size)));
                events.push((s, i64::from(r.size)));
            }
            (None, None) => prop_assert!(r.size > capacity),
            _ => prop_assert!(false, "half a record {:?}", r),
        }
    }
    prop_assert_eq!(out.records.len(), jobs.len());
    events.sort();
    let mut busy = 0;
    for (t, d) in events {
        busy += d;
        prop_assert!(busy <= i64::from(capacity), "over-allocated at {:?}", t);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Every catalogue pair (and candidate orders of their own) fills no more than the
    /// machine and starts every job that fits exactly once.
    #[test]
    fn every_pair_schedules_within_the_machine((capacity, jobs) in workload()) {
        let mut specs = PolicySpec::catalogue();
        specs.extend(["sjf+easy(order=ljf)", "wfp3+bounded(depth=3,window=100,order=sjf)", "laf+bounded(depth=2,window=1000)"].map(|s| s.parse().unwrap()));
        for spec in &specs {
            let out = run_spec(capacity, &jobs, spec);
            check_schedule(capacity, &jobs, &out)?;
        }
    }

    /// The generic engine on the queue order (`expr(submit)`: submit time, ties in queue
    /// order) gives the queue-ordered policies' schedules exactly.
    #[test]
    fn generic_engine_equals_the_queue_ordered_policies((capacity, jobs) in workload()) {
        for (rule, fast) in [("none", "fcfs"), ("easy", "easy"), ("conservative", "conservative")] {
            let generic = run(capacity, &jobs, &format!("expr(submit)+{rule}"));
            prop_assert_eq!(starts(&generic), starts(&run(capacity, &jobs, fast)), "{}", rule);
        }
        // A candidate order equal to the queue order is the same EASY.
        let generic = run(capacity, &jobs, "expr(submit)+easy(order=fcfs)");
        prop_assert_eq!(starts(&generic), starts(&run(capacity, &jobs, "easy")));
    }

    /// Conservative backfilling in a static order keeps its plan between passes with the
    /// schedule of a plan from scratch at every pass: the same key written with `0 · now`,
    /// which makes it an order that changes with time (always planned afresh). On the
    /// requested estimates and on exact ones (where nothing ends early, so plans are kept).
    #[test]
    fn kept_plans_in_static_orders_match_planning_from_scratch((capacity, jobs) in workload()) {
        for estimates in ["", "@exact"] {
            for (order, afresh) in [
                ("sjf", "estimate"),
                ("ljf", "-estimate"),
                ("saf", "estimate * size"),
                ("laf", "-estimate * size"),
                ("expr(size)", "size"),
            ] {
                let kept = run(capacity, &jobs, &format!("{order}+conservative{estimates}"));
                let afresh = run(capacity, &jobs, &format!("expr({afresh} + 0 * now)+conservative{estimates}"));
                prop_assert_eq!(&kept.records, &afresh.records, "{}{}", order, estimates);
            }
        }
    }

    /// FCFS without backfilling starts jobs in queue order.
    #[test]
    fn fcfs_starts_in_order((capacity, jobs) in workload()) {
        let out = run(capacity, &jobs, "fcfs");
        let mut started: Vec<_> = out.records.iter().filter_map(|r| Some(((r.submit, r.id), r.start?))).collect();
        started.sort();
        prop_assert!(started.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    /// Conservative backfilling in any order schedules within the machine on exact
    /// estimates. (The start guarantee, no job later than its first reservation, holds in
    /// queue order only: see `tests/conservative.rs` and
    /// [`a_later_arrival_can_delay_a_reservation_in_another_order`].)
    #[test]
    fn conservative_schedules_exact_estimates_in_any_order((capacity, jobs) in workload()) {
        let exact: Vec<RigidJob> = jobs.iter().map(|j| RigidJob { estimate: j.runtime, ..*j }).collect();
        for order in ["fcfs", "sjf", "saf", "f1"] {
            let cons = run(capacity, &exact, &format!("{order}+conservative"));
            check_schedule(capacity, &exact, &cons)?;
        }
    }
}

/// In an order other than the queue's, a job that arrives later can sort ahead of one already
/// reserved and take its room, even with exact estimates: job 2 (50 s) is reserved at 100
/// behind job 1; job 3 (10 s) arrives at 10, goes first under SJF, and job 2 starts at 110.
#[test]
fn a_later_arrival_can_delay_a_reservation_in_another_order() {
    let jobs = [
        job(1, 0, 1, 100, 100),
        job(2, 1, 1, 50, 50),
        job(3, 10, 1, 10, 10),
    ];
    assert_eq!(
        starts(&run(1, &jobs, "sjf+conservative")),
        [(1, Some(0)), (2, Some(110)), (3, Some(100))]
    );
    assert_eq!(
        starts(&run(1, &jobs, "fcfs+conservative")),
        [(1, Some(0)), (2, Some(100)), (3, Some(150))]
    );
}

/// Three units; job 1 holds all of them until 100. Then 2 (3 units, 100 s), 3 (1 unit, 10 s)
/// and 4 (2 units, 50 s) wait.
fn three_waiting() -> Vec<RigidJob> {
    vec![
        job(1, 0, 3, 100, 100),
        job(2, 1, 3, 100, 100),
        job(3, 2, 1, 10, 10),
        job(4, 3, 2, 50, 50),
    ]
}

#[test]
fn orders_without_backfilling_by_hand() {
    let jobs = three_waiting();
    // FCFS: 2 at 100, then 3 and 4 together at 200.
    assert_eq!(
        starts(&run(3, &jobs, "fcfs")),
        [(1, Some(0)), (2, Some(100)), (3, Some(200)), (4, Some(200))]
    );
    // SJF (estimates 100, 10, 50): 3 then 4 at 100, 2 when both end (150).
    assert_eq!(
        starts(&run(3, &jobs, "sjf+none")),
        [(1, Some(0)), (2, Some(150)), (3, Some(100)), (4, Some(100))]
    );
    // LJF: 2 first at 100, then 4 (50 s) and 3 at 200.
    assert_eq!(
        starts(&run(3, &jobs, "ljf+none")),
        [(1, Some(0)), (2, Some(100)), (3, Some(200)), (4, Some(200))]
    );
    // Smallest area (300, 10, 100): as SJF here.
    assert_eq!(
        starts(&run(3, &jobs, "saf+none")),
        starts(&run(3, &jobs, "sjf+none"))
    );
    // Largest area first: as LJF here.
    assert_eq!(
        starts(&run(3, &jobs, "laf+none")),
        starts(&run(3, &jobs, "ljf+none"))
    );
}

#[test]
fn easy_with_an_order_and_candidates_by_hand() {
    // Two units. 1 holds both to 100; 2 (2 units) heads LJF; 3 (1 unit, 200 s) and 4
    // (1 unit, 50 s) are candidates. At 0 none fits. At 100: LJF order 3 (200), 2 (100),
    // 4 (50): 3 starts, 2 does not fit: shadow at 300 (3's end), extra 0; 4 ends by 300:
    // backfills at 100.
    let jobs = [
        job(1, 0, 2, 100, 100),
        job(2, 1, 2, 100, 100),
        job(3, 2, 1, 200, 200),
        job(4, 3, 1, 50, 50),
    ];
    assert_eq!(
        starts(&run(2, &jobs, "ljf+easy")),
        [(1, Some(0)), (2, Some(300)), (3, Some(100)), (4, Some(100))]
    );
    // SJF head 4 (50) starts at 100, then 2 (100 s) does not fit: shadow 150, extra 0;
    // 3 (200 s) would pass it: waits. 2 at 150, 3 at 250.
    assert_eq!(
        starts(&run(2, &jobs, "sjf+easy")),
        [(1, Some(0)), (2, Some(150)), (3, Some(250)), (4, Some(100))]
    );
}

#[test]
fn conservative_in_another_order_by_hand() {
    // SJF order at 100: 4 (50 s, 1 unit) at 100, 2 (2 units) at 150, 3 (200 s) at 100 too
    // (one unit left over [100, 150)? no: it would overlap 2's reservation at 150): 3 at 250.
    let jobs = [
        job(1, 0, 2, 100, 100),
        job(2, 1, 2, 100, 100),
        job(3, 2, 1, 200, 200),
        job(4, 3, 1, 50, 50),
    ];
    assert_eq!(
        starts(&run(2, &jobs, "sjf+conservative")),
        [(1, Some(0)), (2, Some(150)), (3, Some(250)), (4, Some(100))]
    );
}

#[test]
fn bounded_depth_window_and_candidates_by_hand() {
    // Four units; 1 holds 3 to 100. 2 (4 units) is reserved at 100; 3 (1 unit, 500 s) would
    // delay it; 4 (1 unit, 50 s) fits before it.
    let jobs = [
        job(1, 0, 3, 100, 100),
        job(2, 1, 4, 100, 100),
        job(3, 2, 1, 500, 500),
        job(4, 3, 1, 50, 50),
    ];
    // Depth 1: one job tested per pass: 2 at 100, 3 at 200 (2's end), 4 at 700 (3's end: no
    // pass in between).
    assert_eq!(
        starts(&run(4, &jobs, "fcfs+bounded(depth=1,window=1d)")),
        [(1, Some(0)), (2, Some(100)), (3, Some(200)), (4, Some(700))]
    );
    assert_eq!(
        starts(&run(4, &jobs, "expr(submit)+bounded(depth=1,window=1d)")),
        starts(&run(4, &jobs, "fcfs+bounded(depth=1,window=1d)"))
    );
    // Depth 1 with candidates: 4 fits now for its whole estimate and starts at 3.
    assert_eq!(
        starts(&run(
            4,
            &jobs,
            "expr(submit)+bounded(depth=1,window=1d,order=sjf)"
        )),
        [(1, Some(0)), (2, Some(100)), (3, Some(200)), (4, Some(3))]
    );
    // A window shorter than 2's wait: no reservation, so 3 starts at 2 (the machine is then
    // full), 4 at 100 when 1 ends, and 2 waits for both: 502.
    assert_eq!(
        starts(&run(4, &jobs, "expr(submit)+bounded(depth=10,window=50)")),
        [(1, Some(0)), (2, Some(502)), (3, Some(2)), (4, Some(100))]
    );
}

#[test]
fn time_dependent_orders_by_hand() {
    // One unit. 1 runs to 100. 2 (est 100) submitted at 0, 3 (est 10) at 90. At 100:
    // WFP3 (w/r)^3 n: 2: (100/100)^3 = 1, 3: (10/10)^3 = 1: a tie, queue order: 2 first.
    let jobs = [
        job(1, 0, 1, 100, 100),
        job(2, 0, 1, 100, 100),
        job(3, 90, 1, 10, 10),
    ];
    assert_eq!(
        starts(&run(1, &jobs, "wfp3+none")),
        [(1, Some(0)), (2, Some(100)), (3, Some(200))]
    );
    // 3 arriving at 89 waits 11 of 10: 1.331 > 1, it goes first.
    let jobs = [
        job(1, 0, 1, 100, 100),
        job(2, 0, 1, 100, 100),
        job(3, 89, 1, 10, 10),
    ];
    assert_eq!(
        starts(&run(1, &jobs, "wfp3+none")),
        [(1, Some(0)), (2, Some(110)), (3, Some(100))]
    );
    // UNICEP puts one-unit jobs first; among wider ones the larger w / (log2 n r) first.
    let jobs = [
        job(1, 0, 2, 100, 100),
        job(2, 0, 2, 100, 100),
        job(3, 50, 1, 10, 10),
    ];
    assert_eq!(
        starts(&run(2, &jobs, "unicep+none")),
        [(1, Some(0)), (2, Some(110)), (3, Some(100))]
    );
    // F1: log10(r) n + 870 log10(s): the later submit (s = 1000 vs 1) ranks last however short.
    let jobs = [
        job(1, 0, 1, 2000, 2000),
        job(2, 1, 1, 100, 100),
        job(3, 1000, 1, 1, 1),
    ];
    assert_eq!(
        starts(&run(1, &jobs, "f1+none")),
        [(1, Some(0)), (2, Some(2000)), (3, Some(2100))]
    );
}

#[test]
fn estimates_are_chosen_per_run() {
    // Job 2's estimate (1000) hides that it runs 10 s: with exact estimates EASY backfills it.
    let jobs = [
        job(1, 0, 2, 100, 100),
        job(2, 1, 2, 100, 100),
        job(3, 2, 1, 10, 1000),
    ];
    assert_eq!(
        starts(&run(2, &jobs, "easy")),
        [(1, Some(0)), (2, Some(100)), (3, Some(200))]
    );
    assert_eq!(
        starts(&run(2, &jobs, "easy@exact")),
        [(1, Some(0)), (2, Some(100)), (3, Some(200))]
    );
    let spec: PolicySpec = "easy@tsafrir(max=2h,seed=1)".parse().unwrap();
    let with = spec.estimates.apply(&jobs).unwrap();
    assert!(
        with.iter()
            .all(|j| j.estimate >= j.runtime && j.estimate <= Duration::from_hours(2))
    );
    assert_eq!(
        Estimates::Exact.apply(&jobs).unwrap()[2].estimate,
        Duration(10)
    );
}

#[test]
fn a_failing_expression_stops_the_run_with_a_typed_error() {
    // `1 / (size - size)` is an integer division by zero only for integer fields: fields are
    // floats, so it is +inf, ordered last but valid.
    let out = run(3, &three_waiting(), "expr(1 / (size - size))+none");
    assert_eq!(out.report.completed, 4);
    let mut policy = Composed::new(Order::Sjf, Backfill::Conservative);
    let out = BatchSim::new(3)
        .unwrap()
        .run(&mut policy, &three_waiting())
        .unwrap();
    assert_eq!(out.report.completed, 4);
}

/// F1 with EASY and with conservative backfilling give the same schedule on the shipped
/// SDSC-SP2 sample, job for job: a property of that trace under F1, not of the engine. F1's
/// `870 · log₁₀(s)` term makes the order depend on the submit times' scale; the same jobs
/// submitted 10⁸ s later (the term nearly equal for all of them) give different schedules,
/// and so does the HPC2N subset.
#[test]
fn f1_with_easy_and_conservative_agree_on_the_sdsc_sample_only() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |name: &str| {
        let trace = cosched_workload::swf::read_rigid_jobs(&root.join(name)).unwrap();
        let capacity = trace
            .header
            .values()
            .max_procs
            .or(trace.header.values().max_nodes);
        (u32::try_from(capacity.unwrap()).unwrap(), trace.jobs)
    };
    let both = |capacity, jobs: &[RigidJob]| {
        let easy = run(capacity, jobs, "f1+easy");
        let conservative = run(capacity, jobs, "f1+conservative");
        (
            easy.records == conservative.records,
            starts(&easy) == starts(&run(capacity, jobs, "f1+none")),
        )
    };
    let (capacity, sdsc) = read("examples/data/swf/SDSC-SP2-sample-4961.swf.gz");
    // Equal, and not because nothing backfills.
    assert_eq!(both(capacity, &sdsc), (true, false));
    let later: Vec<RigidJob> = sdsc
        .iter()
        .map(|j| RigidJob {
            submit: Time(j.submit.0 + 100_000_000),
            ..*j
        })
        .collect();
    assert!(!both(capacity, &later).0);
    let (capacity, hpc2n) = read("examples/data/swf/alea-hpc2n-subset.swf.gz");
    assert!(!both(capacity, &hpc2n).0);
}
