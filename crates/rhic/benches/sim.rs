//! One full simulated job: Wordcount on 6 dedicated 16-core nodes beside 36 interactive ones,
//! sized by RHIC under the cost goal (about 25 simulated minutes, second by second).

use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::{BackgroundJob, RhicSim, SimConfig};
use cosched_rhic::{CostModel, Goal, scenario};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let config = SimConfig::new(Goal::Cost(CostModel::default()));
    let job = BackgroundJob::new(JobProfile::Wordcount);
    let sim = RhicSim::new(config.clone()).expect("valid config");
    c.bench_function("simulate/wordcount_6+36_rhic", |b| {
        b.iter(|| {
            let mut rhic = scenario::rhic(&config, &job).expect("valid config");
            black_box(sim.run(&mut rhic, black_box(&job)).expect("valid config"))
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
