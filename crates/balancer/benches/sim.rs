//! The combined cluster on 372 nodes: 25,000 seeded Lublin–Feitelson batch jobs scaled to offered
//! batch load 0.7 (which spreads them over ≈ 323 days, not one week: Lublin jobs are too large
//! for 25,000 of them to fit a week at a sane load) and diurnal on-demand leases at offered
//! load ≈ 0.3 over the same span, under the Basic Balancer (`R = 0`, `W = 5 min`,
//! `I = 30 min`) and the 304 + 68 dedicated split.
//!
//! A second group replays a real one-week LCRC trace (the busiest sample week, 15,643 jobs,
//! offered load ≈ 0.75 of 372 nodes) beside the same ρ ≈ 0.3 of leases over that week, when
//! the development data are present (`../shared/data/balancer/lcrc/2014-06-01.csv` beside the
//! checkout, or under `$COSCHED_SHARED_DATA`; the group is left out, saying so, otherwise): the
//! paper's one-week, 372-node scale with real job sizes.
//!
//! `cargo bench -p cosched-balancer` reports the time of one whole simulation.

use cosched_balancer::scenario::Arm;
use cosched_balancer::traces::read_lcrc;
use cosched_balancer::workload::LeaseRequest;
use cosched_balancer::workload::{DiurnalLeases, Workload};
use cosched_balancer::{BalancerConfig, Strategy};
use cosched_core::{Duration, RigidJob};
use cosched_workload::{LublinModel, scale_to_offered_load};
use criterion::{Criterion, criterion_group, criterion_main};

const NODES: u32 = 372;
const JOBS: usize = 25_000;
/// The busiest LCRC sample week of the development data, under the shared data folder.
const LCRC_WEEK: &str = "balancer/lcrc/2014-06-01.csv";

fn simulate(c: &mut Criterion) {
    let week = Duration::from_hours(24 * 7);
    let mut jobs = LublinModel::typeless(NODES)
        .expect("valid capacity")
        .generate(JOBS, 2026);
    // Scaling to the load over a week: the span is the work over (nodes × load).
    scale_to_offered_load(&mut jobs, NODES, 0.7).expect("valid load");
    let span = jobs.iter().map(|j| j.submit.0).max().unwrap_or(0);
    let requests = DiurnalLeases::new(NODES, Duration(span.max(week.0)), 0.3)
        .generate(2027)
        .expect("valid parameters");
    eprintln!(
        "workload: {} batch jobs over {:.1} days, {} lease requests",
        jobs.len(),
        span as f64 / 86_400.0,
        requests.len()
    );
    run_group(c, "week_372_nodes", &jobs, &requests);
    let data = std::env::var_os("COSCHED_SHARED_DATA").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        std::path::PathBuf::from,
    );
    let real = data.join(LCRC_WEEK);
    if real.exists() {
        let jobs = read_lcrc(&real).expect("the LCRC week parses");
        let requests = DiurnalLeases::new(NODES, week, 0.3)
            .generate(2027)
            .expect("valid parameters");
        eprintln!(
            "workload: LCRC week of {} jobs, {} lease requests",
            jobs.len(),
            requests.len()
        );
        run_group(c, "lcrc_week_372_nodes", &jobs, &requests);
    } else {
        eprintln!("left out the LCRC week: {} is absent", real.display());
    }
}

/// Benchmarks Basic (`R = 0`, `W = 5 min`, `I = 30 min`) and the 304 + 68 split on one input.
fn run_group(c: &mut Criterion, name: &str, jobs: &[RigidJob], requests: &[LeaseRequest]) {
    let basic = Arm::balancer(
        BalancerConfig::new(Strategy::Basic { static_reserve: 0 })
            .with_window(Duration::from_mins(5))
            .with_idle_hold(Duration::from_mins(30)),
    );
    let dedicated = Arm::dedicated(68, Duration::from_mins(5));
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for configuration in [basic, dedicated] {
        let out = configuration
            .run(NODES, &Workload::new(jobs, requests), &[])
            .expect("valid workload");
        let r = &out.report;
        eprintln!(
            "{}: combined utilisation {:.3}, mean batch wait {:.0} s, reject rate {:.3}, reserve idle {:.0} node-h",
            r.configuration,
            r.combined_utilization,
            r.batch.overall.mean_wait_s,
            r.on_demand.reject_rate,
            r.reserve_idle_node_hours
        );
        group.bench_function(configuration.name(), |b| {
            b.iter(|| {
                configuration
                    .run(NODES, &Workload::new(jobs, requests), &[])
                    .expect("valid workload")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, simulate);
criterion_main!(benches);
