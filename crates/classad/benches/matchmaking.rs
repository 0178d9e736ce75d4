//! Matchmaking throughput: a typical job `Requirements` evaluated against 10,000 machine ads,
//! the full symmetric match with both ranks, and the same against partitionable slots; and
//! single evaluations: the hostile-input review's 40-level doubling ad (2^40 steps without
//! memoisation), a `Requirements` built from the function library, and reading
//! `condor_status -long` output.
//!
//! `cargo bench -p cosched-classad` reports machine ads per second (criterion's element
//! throughput) and times per evaluation.

use cosched_classad::{ClassAd, EvalOptions, Expr, Value, match_ads, read, slots};
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

/// The same pool as partitionable slots (8 CPUs, memory as above, two CPUs already taken).
fn partitionable(pool: &[ClassAd]) -> Vec<ClassAd> {
    pool.iter()
        .map(|m| {
            let mut p = m.clone();
            p.insert_value("PartitionableSlot", true);
            p.insert_value("Cpus", 6);
            p.insert(
                "Requirements",
                Expr::parse("LoadAvg < 0.3 && TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory")
                    .expect("parses"),
            );
            p
        })
        .collect()
}

fn partitionable_matchmaking(c: &mut Criterion) {
    let mut job = job();
    job.insert_value("RequestCpus", 2);
    let pool = partitionable(&machines());
    let mut group = c.benchmark_group("classad_10k_partitionable_slots");
    group.throughput(Throughput::Elements(MACHINES as u64));
    group.bench_function("match_and_fit", |b| {
        b.iter(|| {
            pool.iter()
                .filter(|m| slots::matches(black_box(&job), m))
                .count()
        })
    });
    group.finish();
}

fn evaluation(c: &mut Criterion) {
    let attrs: String = (0..40)
        .map(|i| format!("a{i} = a{} + a{}; ", i + 1, i + 1))
        .collect();
    let doubling = ClassAd::parse(&format!("[ {attrs}a40 = 1 ]")).expect("parses");
    let options = EvalOptions::at(1_700_000_000);
    let slot: ClassAd = r#"[ Name = "slot1@node7.example.org"; Machine = "node7.example.org";
        OpSys = "LINUX"; Arch = "X86_64"; Memory = 15360; Cpus = 8; ChildCpus = {2, 2};
        HasFileSystems = "cvmfs, nfs,scratch"; CondorVersion = "$CondorVersion: 23.4.0 2024-02-02 $";
        Requirements = true ]"#
        .parse()
        .expect("parses");
    let job: ClassAd = r#"[ Owner = "alice"; AcctGroup = "group_physics.alice"; RequestMemory = 2500;
        Requirements = regexp("^node[0-9]+", TARGET.Machine) && stringListMember("cvmfs", TARGET.HasFileSystems)
            && versioncmp(split(TARGET.CondorVersion)[1], "9.0.0") >= 0
            && TARGET.Memory >= quantize(RequestMemory, {1024, 2048, 4096})
            && member(2, TARGET.ChildCpus) && splitSlotName(TARGET.Name)[0] == "slot1"
            && time() - 1600000000 > 0 ]"#
        .parse()
        .expect("parses");
    let status = (0..100)
        .map(|i| format!("Name = \"slot1@node{i}\"\nMachine = \"node{i}\"\nCpus = 8\nMemory = 15360\nStart = KeyboardIdle > 15 * 60 && LoadAvg < 0.3\nRequirements = START && WithinResourceLimits\nWithinResourceLimits = TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory\nChildCpus = {{ 2,2 }}\nKeyboardIdle = {}\nLoadAvg = 0.{}\n", i * 60, i % 10))
        .collect::<Vec<_>>()
        .join("\n");
    let mut group = c.benchmark_group("classad_eval");
    group.bench_function("doubling_ad_40_levels", |b| {
        b.iter(|| doubling.try_eval_attr(black_box("a0"), None, &options))
    });
    group.bench_function("function_library_requirements", |b| {
        b.iter(|| job.try_eval_attr(black_box("Requirements"), Some(&slot), &options))
    });
    group.throughput(Throughput::Elements(100));
    group.bench_function("read_condor_status_long_100_slots", |b| {
        b.iter(|| read::parse_ads(black_box(&status)).map(|ads| ads.len()))
    });
    group.finish();
    assert_eq!(
        job.try_eval_attr("Requirements", Some(&slot), &options),
        Ok(Value::Bool(true))
    );
}

criterion_group!(benches, matchmaking, partitionable_matchmaking, evaluation);
criterion_main!(benches);
