//! §5.9's scheduling time: one scheduling cycle of the paper's metascheduler — cost matrix
//! (learned waits per job and site, forecast prices), flow network and min-cost flow — on the
//! paper's XSEDE sites and June 2014 prices (vendored), its predictors trained by the 4,000
//! history jobs of the paper's trace, for 16, 128 and 1,024 pending jobs (the trace's next
//! jobs). The paper reports its Python implementation's times per cycle and calls them fast
//! enough for cycles every few minutes (§5.9); this is ours.
//!
//! `cargo bench -p cosched-metasched --bench cycle`.

use cosched_core::policy::Policy;
use cosched_metasched::policy::{GridJob, GridObservation, GridSnapshot, Mcmf, PriceModel};
use cosched_metasched::price_forecast::PriceForecastConfig;
use cosched_metasched::sim::{GridSim, SimConfig};
use cosched_metasched::wait::WaitFeatures;
use cosched_metasched::workload::{paper_grid_trace, paper_xsede_sites};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let sites = paper_xsede_sites().unwrap();
    let trace = paper_grid_trace(sites.len()).unwrap();
    let prices = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
    let mut policy = Mcmf::new(sites.clone(), 2, 0.25, prices).unwrap();
    // Every history job runs at its submission site and teaches the policy its wait.
    let history = SimConfig {
        history: 4_000,
        ..SimConfig::default()
    };
    GridSim::new(sites.clone(), history)
        .unwrap()
        .run(&mut policy, &trace[..4_000])
        .unwrap();
    let now = trace[4_000].submit;
    // A busy site's features for every site (the predictors' work does not depend on them).
    let view = GridSnapshot {
        features: vec![
            Some(WaitFeatures {
                queued_cores: 2_048.0,
                queued_estimate: 400_000.0,
                queued_elapsed_wait: 30_000.0,
                busy_cores: 3_000.0,
                running_elapsed: 500_000.0,
                running_estimate: 1_500_000.0,
                ..WaitFeatures::default()
            });
            sites.len()
        ],
        ..GridSnapshot::default()
    };
    let mut group = c.benchmark_group("mcmf_cycle");
    group.sample_size(20);
    for pending in [16usize, 128, 1_024] {
        let jobs: Vec<GridJob> = trace
            .iter()
            .cycle()
            .skip(4_000)
            .take(pending)
            .enumerate()
            .map(|(i, t)| {
                let id = cosched_core::JobId(1_000_000 + i as u64);
                GridJob::new(id, t.submission_site, t.cores, t.estimate).unwrap()
            })
            .collect();
        let cycle = GridObservation::Cycle { jobs };
        let mut out = Vec::new();
        group.bench_with_input(BenchmarkId::from_parameter(pending), &cycle, |b, cycle| {
            b.iter(|| {
                out.clear();
                policy
                    .observe(black_box(now), cycle, &view, &mut out)
                    .unwrap();
                black_box(out.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
