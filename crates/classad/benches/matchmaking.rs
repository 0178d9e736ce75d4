//! Matchmaking throughput: a typical job `Requirements` evaluated against 10,000 machine ads,
//! and the full symmetric match with both ranks.
//!
//! `cargo bench -p cosched-classad` reports machine ads per second (criterion's element
//! throughput).

use cosched_classad::{ClassAd, Value, match_ads};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const MACHINES: usize = 10_000;

fn job() -> ClassAd {
    r#"[
        Owner = "alice"; RequestMemory = 2048; RequestDisk = 1000000; InputMB = 40000;
        Requirements = TARGET.Arch == "X86_64" && TARGET.OpSys == "LINUX"
            && TARGET.Memory >= RequestMemory && TARGET.Disk >= RequestDisk
            && (TARGET.IsCloud =!= true);
        Rank = TARGET.Mips + (TARGET.Memory / 1024.0)
    ]"#
    .parse()
    .expect("the job ad parses")
}

/// A heterogeneous pool: desktops of several sizes, some non-Linux, every tenth a cloud node.
fn machines() -> Vec<ClassAd> {
    (0..MACHINES)
        .map(|i| {
            let memory = 1024 << (i % 4);
            let opsys = if i % 7 == 0 { "WINDOWS" } else { "LINUX" };
            let cloud = i % 10 == 0;
            format!(
                r#"[ Name = "slot1@host{i}"; Arch = "X86_64"; OpSys = "{opsys}"; Memory = {memory};
                     Disk = {disk}; Mips = {mips}; IsCloud = {cloud}; LoadAvg = 0.{load};
                     Requirements = LoadAvg < 0.3 && TARGET.Owner =!= undefined;
                     Rank = TARGET.Owner == "alice" ]"#,
                disk = 500_000 + (i % 13) * 100_000,
                mips = 800 + (i % 31) * 50,
                load = i % 5,
            )
            .parse()
            .expect("machine ads parse")
        })
        .collect()
}

fn matchmaking(c: &mut Criterion) {
    let job = job();
    let pool = machines();
    let requirements = job
        .get("Requirements")
        .expect("the job has Requirements")
        .clone();
    let matched = pool.iter().filter(|m| match_ads(&job, m).matched).count();
    eprintln!("{matched} of {MACHINES} machines match the job");

    let mut group = c.benchmark_group("classad_10k_machines");
    group.throughput(Throughput::Elements(MACHINES as u64));
    group.bench_function("job_requirements", |b| {
        b.iter(|| {
            pool.iter()
                .filter(|m| job.eval(black_box(&requirements), Some(m)) == Value::Bool(true))
                .count()
        })
    });
    group.bench_function("symmetric_match_and_ranks", |b| {
        b.iter(|| {
            pool.iter()
                .map(|m| match_ads(black_box(&job), m))
                .filter(|m| m.matched)
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, matchmaking);
criterion_main!(benches);
