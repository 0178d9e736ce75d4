//! Degenerate hybrid traces: a handful of jobs with hostile fields (submitted at
//! the ends of the clock, of size zero or larger than the machine, of zero or enormous run
//! time), on machines of 1-4 nodes, typed and run under every configuration. Each run is a
//! clean typed error or a report whose every figure is finite, and undefined (NaN, printed
//! `n/a` by the examples) exactly when it has no data.

use cosched_core::{Duration, JobId, RigidJob, Time};
use cosched_hybrid::workload::TypeParams;
use cosched_hybrid::{HybridConfig, HybridReport, scenario};
use proptest::prelude::*;

fn hostile_job() -> impl Strategy<Value = (i64, u32, i64, i64, u32)> {
    let submit = prop_oneof![
        Just(i64::MIN + 1),
        Just(-1i64),
        Just(0i64),
        Just(1i64),
        Just(i64::MAX / 2),
        Just(i64::MAX - 1),
        0i64..100_000,
    ];
    let size = prop_oneof![Just(0u32), 1u32..=5, Just(u32::MAX)];
    let runtime = prop_oneof![
        Just(-5i64),
        Just(0i64),
        Just(1i64),
        1i64..10_000,
        Just(i64::MAX)
    ];
    let estimate = prop_oneof![Just(0i64), 1i64..20_000, Just(i64::MAX)];
    (submit, size, runtime, estimate, 0u32..3)
}

/// Checks that `value` is finite, or NaN exactly when `empty`; with `share`, within [0, 1].
fn defined(name: &str, value: f64, empty: bool, share: bool) -> Result<(), TestCaseError> {
    if empty {
        prop_assert!(value.is_nan(), "{name} = {value} with no data");
    } else {
        prop_assert!(value.is_finite(), "{name} = {value}");
        if share {
            prop_assert!((0.0..=1.0 + 1e-9).contains(&value), "{name} = {value}");
        }
    }
    Ok(())
}

fn check(r: &HybridReport) -> Result<(), TestCaseError> {
    prop_assert_eq!(r.completed + r.rejected + r.invalid, r.jobs);
    defined(
        "instant start",
        r.instant_start_ratio,
        r.on_demand == 0,
        true,
    )?;
    defined("turnaround", r.turnaround_h, r.completed == 0, false)?;
    prop_assert!(r.wasted_node_hours.is_finite() && r.wasted_node_hours >= 0.0);
    for (name, u) in [
        ("utilisation", r.utilization),
        ("window utilisation", r.window_utilization),
    ] {
        // Undefined only over no elapsed time (nothing completed, or all at one instant).
        prop_assert!(
            u.is_nan() || (0.0..=1.0 + 1e-9).contains(&u),
            "{name} = {u}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn degenerate_traces_give_a_typed_error_or_defined_figures(
        raw in prop::collection::vec(hostile_job(), 0..6),
        nodes in 1u32..=4,
        seed in 0u64..100,
    ) {
        let trace: Vec<RigidJob> = raw
            .iter()
            .enumerate()
            .map(|(i, &(submit, size, runtime, estimate, group))| RigidJob {
                id: JobId(i as u64 + 1),
                submit: Time(submit),
                size,
                runtime: Duration(runtime),
                estimate: Duration(estimate),
                user: None,
                group: Some(group),
            })
            .collect();
        let config = HybridConfig::new(nodes).unwrap();
        let mut ran = 0;
        for configuration in scenario::configurations() {
            // Every typing, whatever its on-demand share: the simulator, not the share, is tested.
            let types = TypeParams { on_demand_share: None, ..TypeParams::default() };
            match scenario::simulate_trace(&trace, &types, seed, config.clone(), configuration) {
                Ok(report) => {
                    check(&report)?;
                    ran += 1;
                }
                // A typed error, with a message.
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
        // The configurations see the same trace: all run or none does.
        prop_assert!(ran == 0 || ran == 7, "{ran} of 7 ran");
    }
}
