//! The models at the sizes the metascheduler uses them.
//!
//! - Seasonal ARIMA: one fit on 72 hourly prices (a noisy daily cycle) and its 24-hour
//!   forecast, in both orders — what a price outlook pays once per site and issue day.
//! - DBSCAN and ridge regression alone on 2,000 eight-dimensional rows in `[0, 1]` (a wait
//!   predictor's history after min–max scaling), three tight groups and scattered rows; the
//!   whole predictor's refit is cosched-metasched's `predictors` bench.
//!
//! `cargo bench -p cosched-forecast --bench models`.

use cosched_forecast::dbscan::Dbscan;
use cosched_forecast::ridge::Ridge;
use cosched_forecast::sarima::{Sarima, SarimaOrder};
use criterion::{Criterion, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn bench_sarima(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let series: Vec<f64> = (0..72)
        .map(|t| {
            let phase = f64::from(t) * std::f64::consts::PI / 12.0;
            40.0 + 15.0 * phase.sin() + rng.random_range(-4.0..4.0)
        })
        .collect();
    for (name, order) in [
        (
            "sarima_fit_72h_forecast_24h",
            SarimaOrder::SeasonalDifference,
        ),
        (
            "sarima_published_css_fit_72h_forecast_24h",
            SarimaOrder::Published,
        ),
    ] {
        let model = Sarima::with_order(24, order).unwrap();
        c.bench_function(name, |b| {
            b.iter(|| black_box(model.fit(black_box(&series)).unwrap().forecast(24)))
        });
    }
}

/// 2,000 rows: 70 % near one of three centres, the rest anywhere in the unit cube; the
/// target is linear in the rows plus noise.
fn history() -> (Vec<[f64; 8]>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(2_000);
    let centres: [[f64; 8]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| rng.random()));
    let rows: Vec<[f64; 8]> = (0..2_000)
        .map(|_| {
            if rng.random_bool(0.7) {
                let centre = centres[rng.random_range(0..3)];
                centre.map(|x| x + rng.random_range(-0.01..0.01))
            } else {
                std::array::from_fn(|_| rng.random())
            }
        })
        .collect();
    let targets = rows
        .iter()
        .map(|r| 600.0 * r[3] + 300.0 * r[4] - 100.0 * r[5] + rng.random_range(-50.0..50.0))
        .collect();
    (rows, targets)
}

fn bench_learners(c: &mut Criterion) {
    let (rows, targets) = history();
    let dbscan = Dbscan::new(0.2, 5).unwrap();
    c.bench_function("dbscan_2000x8", |b| {
        b.iter(|| black_box(dbscan.fit(black_box(&rows))))
    });
    let ridge = Ridge::new(1.0).unwrap();
    c.bench_function("ridge_2000x8", |b| {
        b.iter(|| black_box(ridge.fit(black_box(&rows), black_box(&targets)).unwrap()))
    });
}

criterion_group!(benches, bench_sarima, bench_learners);
criterion_main!(benches);
