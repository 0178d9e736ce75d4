//! SWF parsing throughput: 100,000 generated job lines read back from memory.
//!
//! `cargo bench -p cosched-workload --bench swf_read` reports lines/s (criterion's element
//! throughput): records only, and the whole rigid-trace conversion (ids checked while
//! streaming). The `curie_gzip` group reads CEA Curie's log from its gzip file into a rigid
//! trace, as `cosched simulate` does: the vendored 8-column copy in `examples/data/swf/` and,
//! when `../shared/data/swf/` holds it, the archive's own file (skipped, saying so, otherwise).

use cosched_workload::LublinModel;
use cosched_workload::swf::{SwfHeader, SwfReader, SwfRecord, SwfWriter, read_rigid_jobs};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::io::Cursor;
use std::path::{Path, PathBuf};

const LINES: usize = 100_000;

fn trace_text() -> Vec<u8> {
    let mut header = SwfHeader::new();
    header.push("MaxProcs", 1_024).expect("valid header line");
    let mut writer = SwfWriter::new(Vec::new());
    writer.write_header(&header).expect("in-memory write");
    for job in LublinModel::new(1_024)
        .expect("valid capacity")
        .jobs(7)
        .take(LINES)
    {
        writer
            .write_record(&SwfRecord::from_rigid(&job))
            .expect("in-memory write");
    }
    writer.finish().expect("in-memory write")
}

fn read(c: &mut Criterion) {
    let text = trace_text();
    let mut group = c.benchmark_group("swf_read");
    group.throughput(Throughput::Elements(LINES as u64));
    group.bench_function("100k_lines_from_memory", |b| {
        b.iter(|| {
            let reader = SwfReader::new("bench", Cursor::new(&text[..])).expect("valid header");
            reader.filter(Result::is_ok).count()
        })
    });
    // The whole conversion `read_rigid_jobs` does: parse, convert, check ids while streaming.
    group.bench_function("100k_lines_to_rigid_trace", |b| {
        b.iter(|| {
            let reader = SwfReader::new("bench", Cursor::new(&text[..])).expect("valid header");
            reader.into_rigid_trace().map(|t| t.jobs.len())
        })
    });
    group.finish();
}

/// CEA Curie's log (312,826 records) read from gzip into a rigid trace.
fn curie_gzip(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files: [(&str, PathBuf); 2] = [
        (
            "vendored_8_columns",
            root.join("examples/data/swf/CEA-Curie-2011-2.1-cln-fig2.swf.gz"),
        ),
        (
            "archive_file",
            root.join("../shared/data/swf/CEA-Curie-2011-2.1-cln.swf.gz"),
        ),
    ];
    let mut group = c.benchmark_group("curie_gzip");
    group.sample_size(20);
    for (name, path) in files {
        let Ok(trace) = read_rigid_jobs(&path) else {
            eprintln!(
                "curie_gzip/{name} skipped: {} is not readable",
                path.display()
            );
            continue;
        };
        group.throughput(Throughput::Elements(trace.jobs.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| read_rigid_jobs(&path).map(|t| t.jobs.len()))
        });
    }
    group.finish();
}

criterion_group!(benches, read, curie_gzip);
criterion_main!(benches);
