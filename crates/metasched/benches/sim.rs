//! A full grid simulation at the paper's scale: 4,100 jobs on the eight XSEDE sites (the first
//! 4,000 history, the last 100 measured), generated XSEDE-like workload and seeded diurnal
//! prices, under BS and under MCMF with what-if waits (w_t 0.5, MaxQ 10, 5-minute cycles).
//! A second MCMF case measures all 4,100 jobs through the metascheduler, the heaviest use of
//! the policy and the what-if predictor. The last case is the paper's metascheduler: learned
//! waits (a fresh `ClusteredWaitPredictor` per site, trained by all 4,100 starts) and
//! forecast prices (fresh outlooks, so every SARIMA fit the run needs is timed).
//!
//! `cargo bench -p cosched-metasched --bench sim`.

use cosched_metasched::policy::{GridPolicy, Mcmf, PriceModel, SubmissionSite};
use cosched_metasched::price_forecast::PriceForecastConfig;
use cosched_metasched::sim::{SimConfig, WaitSource, simulate};
use cosched_metasched::wait::ClusteredWaitConfig;
use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let prices = |f: &str| Ok(DiurnalPrices::month(1).series(f).unwrap());
    let sites = embedded_xsede_sites(prices).unwrap();
    let jobs = XsedeLikeWorkload {
        jobs: 4_100,
        load: 0.7,
        seed: 1,
    }
    .generate(&sites)
    .unwrap();
    let history = jobs.len() - 100;
    let bs = SubmissionSite::new(sites.clone());
    let mcmf = Mcmf::new(sites.clone(), 10, 0.5, PriceModel::DayAhead).unwrap();
    let cases: [(&str, &dyn GridPolicy, f64, usize); 3] = [
        ("bs_4100", &bs, 0.0, history),
        ("mcmf_whatif_4100_measure_100", &mcmf, 1.0, history),
        ("mcmf_whatif_4100_measure_all", &mcmf, 1.0, 0),
    ];
    let mut group = c.benchmark_group("grid_sim");
    group.sample_size(10);
    for (name, policy, participation, history) in cases {
        let config = SimConfig {
            participation,
            history,
            ..SimConfig::default()
        };
        group.bench_function(name, |b| {
            b.iter(|| simulate(policy, &mut WaitSource::WhatIf, black_box(&jobs), &config).unwrap())
        });
    }
    let config = SimConfig {
        history,
        ..SimConfig::default()
    };
    group.bench_function("mcmf_paper_4100_measure_100", |b| {
        b.iter_batched(
            || {
                let prices = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
                let policy = Mcmf::new(sites.clone(), 10, 0.5, prices).unwrap();
                let waits = WaitSource::paper(sites.len(), ClusteredWaitConfig::default()).unwrap();
                (policy, waits)
            },
            |(policy, mut waits)| simulate(&policy, &mut waits, black_box(&jobs), &config).unwrap(),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
