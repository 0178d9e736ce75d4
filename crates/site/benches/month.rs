//! A month of a 4,000-node site with every role (EASY batch with malleable jobs, hybrid's
//! SPAA for on-demand leases, the scavenging pool (every idle node, or sized by RHIC) bursting
//! to the cloud under Albatross; `all-balancer` with the Balancer instead of SPAA), on
//! the file-free inputs of `Inputs::generated`. The target: under 10 s on one core.
//! And a day of a fixed workload on sites of 4,000 to 1,000,000 nodes.

use cosched_core::{Duration, Time};
use cosched_site::{Configuration, Inputs, RoleParams, Site, SiteConfig};
use criterion::{Criterion, criterion_group, criterion_main};

fn month(c: &mut Criterion) {
    let span = Duration::from_hours(24 * 30);
    let nodes = 4_000;
    let inputs = Inputs::generated(nodes, span, Duration::from_mins(5), 1).expect("inputs");
    let workload = inputs.workload(1).expect("workload");
    let end = Time(0).saturating_add(span);
    let mut group = c.benchmark_group("site");
    group.sample_size(10);
    for config in [
        Configuration::All,
        Configuration::AllBalancer,
        Configuration::AllRhic,
    ] {
        group.bench_function(format!("month_4000_nodes_{config}"), |b| {
            b.iter(|| {
                let roles = config.roles(&RoleParams::default()).expect("roles");
                Site::new(SiteConfig::new(nodes, end), roles, workload.clone())
                    .and_then(Site::run)
                    .expect("run")
            })
        });
    }
    group.finish();
}

/// One day of a fixed workload (generated for 4,000 nodes) on ever larger sites: the nodes a
/// policy never touches cost their construction only, so the run time follows the work, not
/// the node count (a scan of every idle node per negotiation cycle made a million-node day
/// take minutes).
fn nodes_that_stay_idle(c: &mut Criterion) {
    let span = Duration::from_hours(24);
    let inputs = Inputs::generated(4_000, span, Duration::from_mins(5), 1).expect("inputs");
    let workload = inputs.workload(1).expect("workload");
    let end = Time(0).saturating_add(span);
    let mut group = c.benchmark_group("site");
    group.sample_size(10);
    for nodes in [4_000, 64_000, 1_000_000] {
        group.bench_function(format!("day_on_{nodes}_nodes_all_rhic"), |b| {
            b.iter(|| {
                let roles = Configuration::AllRhic
                    .roles(&RoleParams::default())
                    .expect("roles");
                Site::new(SiteConfig::new(nodes, end), roles, workload.clone())
                    .and_then(Site::run)
                    .expect("run")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, month, nodes_that_stay_idle);
criterion_main!(benches);
