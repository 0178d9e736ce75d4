//! A full grid simulation at the paper's scale: 4,100 jobs on the eight XSEDE sites (the first
//! 4,000 history, the last 100 measured), generated XSEDE-like workload and seeded diurnal
//! prices, in the paper's XSEDE configuration ([`Scenario`] defaults: w_t 0.25, MaxQ 2,
//! 60-second cycles triggered as in the published code). Cases: BS; MCMF with what-if waits
//! and true prices, measuring the last 100 jobs and then all 4,100 (the heaviest use of the
//! policy); and the paper's MCMF — learned waits (a fresh `ClusteredWaitPredictor` per site
//! with the published parameters and correlation weights, trained by all 4,100 starts) and
//! forecast prices (fresh outlooks, so every (1,0,1)(1,0,1)₂₄ fit the run needs is timed).
//! Each iteration is one [`Scenario::run`]: policy and predictors built, simulated, measured.
//!
//! `cargo bench -p cosched-metasched --bench sim`.

use cosched_core::Duration;
use cosched_metasched::scenario::{
    DEFAULT_CYCLE_S, PriceOutlookModel, RunConfig, Scenario, Strategy, WaitModel,
};
use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let prices = DiurnalPrices::month(1);
    let sites = embedded_xsede_sites(|f| Ok(prices.series(f)?)).unwrap();
    let jobs = XsedeLikeWorkload {
        jobs: 4_100,
        load: 0.7,
        seed: 1,
    }
    .generate(&sites)
    .unwrap();
    let history = jobs.len() - 100;
    let last_100 = Scenario::new(sites, jobs, history, Duration(DEFAULT_CYCLE_S));
    let all = last_100.measuring_all();
    let whatif = RunConfig {
        waits: WaitModel::Whatif,
        price_outlook: PriceOutlookModel::DayAhead,
        ..last_100.config(Strategy::Mcmf, 1)
    };
    let cases: [(&str, &Scenario, RunConfig); 4] = [
        ("bs_4100", &last_100, last_100.config(Strategy::Bs, 1)),
        ("mcmf_whatif_4100_measure_100", &last_100, whatif),
        ("mcmf_whatif_4100_measure_all", &all, whatif),
        (
            "mcmf_paper_4100_measure_100",
            &last_100,
            last_100.config(Strategy::Mcmf, 1),
        ),
    ];
    let mut group = c.benchmark_group("grid_sim");
    group.sample_size(10);
    for (name, scenario, config) in cases {
        group.bench_function(name, |b| {
            b.iter(|| scenario.run(black_box(&config)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
