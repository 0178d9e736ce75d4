//! Tests of the SWF reader, writer and conversion: the committed `tiny.swf` fixture, malformed
//! input, round-trip and no-panic properties, and the Parallel Workloads Archive traces
//! vendored in the repository (`examples/data/swf`, `crates/cli/experiments/data`).

use cosched_core::{Duration, JobId, RigidJob, Time};
use cosched_workload::swf::{
    FieldProblem, HeaderLineError, INPUT_NAME, InvalidJob, MAX_LINE_LEN, SwfError, SwfHeader,
    SwfReader, SwfRecord, SwfStatus, SwfWriter, read_rigid_jobs,
};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::io::{self, BufReader, Cursor, Read, Write};
use std::path::{Path, PathBuf};

fn tiny_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tiny.swf")
}

/// Reads every record of `text`, failing the test on any error.
fn records(text: &str) -> Vec<SwfRecord> {
    SwfReader::new(INPUT_NAME, text.as_bytes())
        .expect("header")
        .collect::<Result<_, _>>()
        .expect("records")
}

/// The items `text` yields, after a successful header.
fn items(text: &str) -> Vec<Result<SwfRecord, SwfError>> {
    SwfReader::new("trace.swf", text.as_bytes())
        .expect("header")
        .collect()
}

/// A valid job line with field `field` (from 1) replaced by `value`.
fn line_with(field: usize, value: &str) -> String {
    let mut fields: Vec<&str> = "7 0 1 100 4 -1 -1 4 200 -1 1 3 2 -1 -1 -1 -1 -1"
        .split(' ')
        .collect();
    fields[field - 1] = value;
    fields.join(" ") + "\n"
}

/// Writes `header` and `records`, returning the bytes.
fn write_trace(header: &SwfHeader, records: &[SwfRecord]) -> Vec<u8> {
    let mut writer = SwfWriter::new(Vec::new());
    writer.write_header(header).expect("header");
    for record in records {
        writer.write_record(record).expect("record");
    }
    writer.finish().expect("flush")
}

/// Reads a whole trace from bytes.
fn read_trace(bytes: &[u8]) -> (SwfHeader, Vec<SwfRecord>) {
    let mut reader = SwfReader::new(INPUT_NAME, bytes).expect("header");
    let records = reader
        .by_ref()
        .collect::<Result<Vec<_>, _>>()
        .expect("records");
    (reader.header().clone(), records)
}

// ---------------------------------------------------------------------------------------------
// The tiny fixture

#[test]
fn tiny_header_is_parsed_and_kept_verbatim() {
    let reader = SwfReader::open(tiny_path()).expect("open tiny.swf");
    let header = reader.header();
    let v = header.values();
    assert_eq!(v.version.as_deref(), Some("2.2"));
    assert_eq!(v.computer.as_deref(), Some("Tiny test cluster"));
    assert_eq!(v.installation.as_deref(), Some("cosched test suite"));
    assert_eq!(v.acknowledge.as_deref(), Some("cosched developers"));
    assert_eq!(
        v.information.as_deref(),
        Some("https://github.com/cosched\nhttps://www.cs.huji.ac.il/labs/parallel/workload/")
    );
    assert_eq!(
        v.conversion.as_deref(),
        Some("written by hand for the SWF reader tests")
    );
    assert_eq!((v.max_jobs, v.max_records), (Some(10), Some(10)));
    assert_eq!(v.preemption.as_deref(), Some("No"));
    assert_eq!(v.unix_start_time, Some(1_034_000_000));
    assert_eq!(v.time_zone, Some(3600));
    assert_eq!(v.time_zone_string.as_deref(), Some("Europe/Stockholm"));
    assert_eq!(
        v.start_time.as_deref(),
        Some("Mon Oct 07 04:13:20 CEST 2002")
    );
    assert_eq!(v.end_time.as_deref(), Some("Mon Oct 07 06:00:00 CEST 2002"));
    assert_eq!((v.max_nodes, v.max_procs), (Some(64), Some(128)));
    assert_eq!(
        (v.max_runtime, v.max_memory, v.allow_overuse),
        (None, None, None)
    );
    assert_eq!(v.max_queues, Some(2));
    assert_eq!(v.queue, ["0 interactive", "1 batch"]);
    assert_eq!(
        v.note,
        [
            "job 3 has no run time and job 4 has size 0 (both invalid);\n\
         job 2 has no requested processors nor requested time"
        ]
    );
    assert_eq!((v.queues.as_deref(), v.partitions.as_deref()), (None, None));
    assert!(v.partition.is_empty() && v.max_partitions.is_none());

    let text = std::fs::read_to_string(tiny_path()).expect("read tiny.swf");
    let comments: Vec<&str> = text.lines().filter(|l| l.starts_with(';')).collect();
    assert_eq!(header.lines(), comments.as_slice());
    assert_eq!(reader.line_number(), 24, "the first job line is read ahead");
}

#[test]
fn tiny_records_are_parsed_exactly() {
    let records: Vec<SwfRecord> = SwfReader::open(tiny_path())
        .expect("open")
        .collect::<Result<_, _>>()
        .expect("records");
    assert_eq!(records.len(), 10);
    assert_eq!(
        records[0],
        SwfRecord {
            job: JobId(1),
            submit: Some(Time(0)),
            wait: Some(Duration(10)),
            run_time: Some(Duration(100)),
            allocated_procs: Some(4),
            avg_cpu_time: Some(95.5),
            used_memory: Some(1024.0),
            requested_procs: Some(4),
            requested_time: Some(Duration(3600)),
            requested_memory: None,
            status: Some(SwfStatus::COMPLETED),
            user: Some(1),
            group: Some(1),
            executable: Some(1),
            queue: Some(1),
            partition: None,
            preceding_job: None,
            think_time: None,
            extra: vec![],
        }
    );
    assert_eq!(
        records[1],
        SwfRecord {
            job: JobId(2),
            submit: Some(Time(30)),
            run_time: Some(Duration(250)),
            allocated_procs: Some(8),
            status: Some(SwfStatus::COMPLETED),
            user: Some(2),
            group: Some(1),
            executable: Some(2),
            queue: Some(1),
            ..SwfRecord::default()
        }
    );
    let fifth = &records[4];
    assert_eq!(
        (
            fifth.avg_cpu_time,
            fifth.used_memory,
            fifth.requested_memory
        ),
        (Some(3990.25), Some(2048.5), Some(4096.0))
    );
    assert_eq!(
        (fifth.preceding_job, fifth.think_time),
        (Some(JobId(1)), Some(Duration(60)))
    );
    assert_eq!(records[3].status, Some(SwfStatus::FAILED));
    assert_eq!(records[2].status, Some(SwfStatus::CANCELLED));
    assert_eq!(records[6].avg_cpu_time, Some(1799.0));
    let ids: Vec<u64> = records.iter().map(|r| r.job.0).collect();
    assert_eq!(ids, (1..=10).collect::<Vec<_>>());
}

#[test]
fn tiny_converts_to_rigid_jobs() {
    let trace = read_rigid_jobs(&tiny_path()).expect("read");
    assert_eq!(trace.header.values().max_procs, Some(128));
    assert_eq!(
        trace.invalid,
        BTreeMap::from([(InvalidJob::MissingRuntime, 1), (InvalidJob::NoSize, 1)])
    );
    assert_eq!(trace.invalid_count(), 2);
    let summary: Vec<(u64, i64, u32, i64, i64)> = trace
        .jobs
        .iter()
        .map(|j| (j.id.0, j.submit.0, j.size, j.runtime.0, j.estimate.0))
        .collect();
    assert_eq!(
        summary,
        [
            (1, 0, 4, 100, 3600),
            (2, 30, 8, 250, 250), // no request: allocated size, run time as estimate
            (5, 120, 32, 4000, 3600), // overran its request
            (6, 150, 1, 0, 0),    // ran 0 s, requested nothing: estimate 0
            (7, 200, 128, 1800, 1800),
            (8, 300, 4, 600, 900), // requested 4, was allocated 2
            (9, 400, 4, 300, 300), // requested time 0 is no request
            (10, 500, 1, 60, 120),
        ]
    );
    assert_eq!(trace.jobs[2].simulated_runtime(), Duration(3600));
    assert_eq!(
        (trace.jobs[0].user, trace.jobs[0].group),
        (Some(1), Some(1))
    );
    assert!(trace.jobs.iter().all(|j| j.validate().is_ok()));
}

#[test]
fn tiny_round_trips_through_the_writer() {
    let text = std::fs::read(tiny_path()).expect("read");
    let (header, records) = read_trace(&text);
    let written = write_trace(&header, &records);
    assert_eq!(read_trace(&written), (header, records));
}

#[test]
fn gzip_is_detected_by_magic_bytes_not_extension() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("compressed-but-named.swf");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).expect("create"),
        flate2::Compression::default(),
    );
    encoder
        .write_all(&std::fs::read(tiny_path()).expect("read"))
        .expect("compress");
    encoder.finish().expect("finish");
    let gz = read_rigid_jobs(&path).expect("read gzip");
    assert_eq!(gz, read_rigid_jobs(&tiny_path()).expect("read plain"));

    let plain_named_gz = dir.path().join("plain.swf.gz");
    std::fs::copy(tiny_path(), &plain_named_gz).expect("copy");
    assert_eq!(
        read_rigid_jobs(&plain_named_gz).expect("read").jobs.len(),
        8
    );
}

// ---------------------------------------------------------------------------------------------
// Parsing rules

/// A byte order mark before the first line (as some editors write) is not part of it.
#[test]
fn a_utf8_byte_order_mark_is_skipped() {
    let text = "\u{feff}; MaxProcs: 8\n1 0 -1 5 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
    let reader = SwfReader::new(INPUT_NAME, text.as_bytes()).expect("header");
    assert_eq!(reader.header().values().max_procs, Some(8));
    assert_eq!(records(text).len(), 1);
    let job = "\u{feff}1 0 -1 5 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
    assert_eq!(records(job)[0].run_time, Some(Duration(5)));
}

#[test]
fn blank_lines_crlf_and_late_comments_are_handled() {
    let text = "\n; MaxProcs: 8\r\n\r\n   \n1 0 -1 5 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\r\n\n\
                ; Note: late\n  ; indented comment\n\
                2 1 -1 5 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1";
    let mut reader = SwfReader::new(INPUT_NAME, text.as_bytes()).expect("header");
    assert_eq!(reader.header().lines(), ["; MaxProcs: 8"]);
    let records: Vec<SwfRecord> = reader.by_ref().map(|r| r.expect("record")).collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].submit, Some(Time(1)));
    // Comments after the first job are skipped and counted, not added to the header.
    assert_eq!(reader.header().lines(), ["; MaxProcs: 8"]);
    assert!(reader.header().values().note.is_empty());
    assert_eq!(reader.late_comments(), 2);
    assert_eq!(
        reader.late_keys(),
        [cosched_workload::swf::LateKey {
            line: 7,
            key: "Note"
        }]
    );
    assert_eq!(reader.line_number(), 9);
}

#[test]
fn integral_decimals_are_integers_and_minus_one_is_missing() {
    let r = &records(&line_with(4, "3.0"))[0];
    assert_eq!(r.run_time, Some(Duration(3)));
    assert_eq!(records(&line_with(4, "7."))[0].run_time, Some(Duration(7)));
    assert_eq!(records(&line_with(4, "+7"))[0].run_time, Some(Duration(7)));
    assert_eq!(records(&line_with(4, "-1.00"))[0].run_time, None);
    assert_eq!(records(&line_with(6, "-1.0"))[0].avg_cpu_time, None);
    assert_eq!(records(&line_with(6, "1e3"))[0].avg_cpu_time, Some(1000.0));
    assert_eq!(records(&line_with(5, "-1"))[0].allocated_procs, None);
    // A negative time other than -1 is kept (and makes the job invalid).
    let negative = &records(&line_with(4, "-5"))[0];
    assert_eq!(negative.run_time, Some(Duration(-5)));
    assert_eq!(negative.to_rigid(), Err(InvalidJob::NegativeRuntime));
    assert_eq!(records(&line_with(3, "-30"))[0].wait, Some(Duration(-30)));
    assert_eq!(
        records(&line_with(2, "-1"))[0].to_rigid(),
        Err(InvalidJob::MissingSubmit)
    );
}

#[test]
fn extra_fields_are_kept_and_written_back() {
    let line = "1 0 -1 5 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 3 site-b\n";
    let record = records(line).remove(0);
    assert_eq!(record.extra, ["3", "site-b"]);
    let written = write_trace(&SwfHeader::new(), std::slice::from_ref(&record));
    assert_eq!(
        String::from_utf8(written).expect("utf-8"),
        "1 0 -1 5 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 3 site-b\n"
    );

    let mut bad = record;
    bad.extra.push("two words".into());
    let err = SwfWriter::new(Vec::new())
        .write_record(&bad)
        .expect_err("whitespace in an extra field");
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn latin1_header_lines_are_decoded() {
    let mut bytes = b"; Acknowledge: \xc5ke Sandgren\n".to_vec();
    bytes.extend_from_slice(line_with(1, "1").as_bytes());
    let reader = SwfReader::new(INPUT_NAME, bytes.as_slice()).expect("header");
    assert_eq!(
        reader.header().values().acknowledge.as_deref(),
        Some("Åke Sandgren")
    );
}

#[test]
fn header_keys_are_case_insensitive_and_typed() {
    let mut header = SwfHeader::new();
    header.push_line(";maxprocs:64").expect("line");
    header.push("AllowOveruse", "yes").expect("bool");
    header.push("TimeZone", -28800).expect("negative");
    header.push("Partition", "1 DEFAULT").expect("partition");
    header
        .push("Copyright", "unknown keys are kept")
        .expect("unknown");
    header
        .push_line(";   a continuation of an unknown key")
        .expect("free");
    let v = header.values();
    assert_eq!(v.max_procs, Some(64));
    assert_eq!(v.allow_overuse, Some(true));
    assert_eq!(v.time_zone, Some(-28800));
    assert_eq!(v.partition, ["1 DEFAULT"]);
    assert_eq!(header.lines().len(), 6);

    assert_eq!(
        header.push_line("MaxProcs: 3"),
        Err(HeaderLineError::NotAComment)
    );
    assert_eq!(
        header.push_line("; Note: a\n; b"),
        Err(HeaderLineError::LineBreak)
    );
    assert_eq!(
        header.push("MaxNodes", "-4"),
        Err(HeaderLineError::BadValue {
            key: "MaxNodes",
            value: "-4".into(),
            expected: "is not a non-negative integer",
        })
    );
    assert!(header.push("AllowOveruse", "maybe").is_err());
    assert_eq!(header.lines().len(), 6, "rejected lines are not added");
}

// ---------------------------------------------------------------------------------------------
// Malformed input

#[test]
fn field_errors_name_file_line_field_and_text() {
    let text = format!("; MaxProcs: 4\n\n{}", line_with(4, "abc"));
    let err = SwfReader::new("trace.swf", text.as_bytes())
        .expect("header")
        .next()
        .expect("one item")
        .expect_err("bad run time");
    assert_eq!(
        err.to_string(),
        "trace.swf:3: field 4 (run time): \"abc\" is not an integer"
    );
    assert!(matches!(
        err,
        SwfError::Field { line: 3, field: 4, name: "run time", ref text, problem: FieldProblem::NotAnInteger, .. }
            if text == "abc"
    ));

    let cases: [(usize, &str, &str, FieldProblem); 10] = [
        (1, "-1", "job number", FieldProblem::NegativeJobNumber),
        (1, "x1", "job number", FieldProblem::NotAnInteger),
        (2, "3.5", "submit time", FieldProblem::NotAnInteger),
        (5, "-2", "allocated processors", FieldProblem::Negative),
        (
            5,
            "4294967296",
            "allocated processors",
            FieldProblem::OutOfRange,
        ),
        (6, "12,5", "average CPU time used", FieldProblem::NotANumber),
        (7, "NaN", "used memory", FieldProblem::NotFinite),
        (10, "inf", "requested memory", FieldProblem::NotFinite),
        (
            9,
            "99999999999999999999",
            "requested time",
            FieldProblem::OutOfRange,
        ),
        (17, "-7", "preceding job number", FieldProblem::Negative),
    ];
    for (field, value, name, problem) in cases {
        let result = items(&line_with(field, value)).remove(0);
        match result {
            Err(SwfError::Field {
                file,
                line: 1,
                field: f,
                name: n,
                text,
                problem: p,
            }) => {
                assert_eq!(
                    (file.as_str(), f, n, text.as_str(), p),
                    ("trace.swf", field, name, value, problem)
                );
            }
            other => panic!("field {field} = {value:?}: unexpected {other:?}"),
        }
    }
}

#[test]
fn wrong_field_count_and_bad_extra_fields_are_errors() {
    let text = "1 0 -1 5\n\n1 0 -1 5 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1\n";
    let errors: Vec<String> = items(text)
        .into_iter()
        .map(|r| r.expect_err("short line").to_string())
        .collect();
    assert_eq!(
        errors,
        [
            "trace.swf:1: expected 18 fields, found 4",
            "trace.swf:3: expected 18 fields, found 17",
        ]
    );

    let mut bytes = line_with(1, "1").trim_end().as_bytes().to_vec();
    bytes.extend_from_slice(b" \xff\xfe\n");
    let err = SwfReader::new("t.swf", bytes.as_slice())
        .expect("header")
        .next()
        .expect("item")
        .expect_err("non-UTF-8 extra");
    assert!(matches!(
        err,
        SwfError::Field {
            field: 19,
            name: "extra field",
            problem: FieldProblem::NotUtf8,
            ..
        }
    ));
}

#[test]
fn reading_continues_after_a_malformed_line() {
    let text = format!(
        "{}{}garbage\n{}",
        line_with(1, "1"),
        line_with(4, "1.5"),
        line_with(1, "3")
    );
    let results = items(&text);
    assert_eq!(results.len(), 4);
    assert!(results[1].is_err() && results[2].is_err());
    assert_eq!(results[3].as_ref().expect("last line").job, JobId(3));
}

#[test]
fn bad_header_values_are_typed_errors() {
    let text = "; Version: 2.2\n; MaxProcs: lots\n";
    let err = SwfReader::new("trace.swf", text.as_bytes())
        .err()
        .expect("bad MaxProcs");
    assert_eq!(
        err.to_string(),
        "trace.swf:2: header MaxProcs: \"lots\" is not a non-negative integer"
    );
    assert!(matches!(
        err,
        SwfError::Header {
            line: 2,
            key: "MaxProcs",
            ..
        }
    ));

    // A header line after the first job is skipped (not parsed, not an error) and reported.
    let text = format!(
        "{}; UnixStartTime: yesterday\n{}",
        line_with(1, "1"),
        line_with(1, "2")
    );
    let mut reader = SwfReader::new("trace.swf", text.as_bytes()).expect("header");
    let jobs: Vec<JobId> = reader.by_ref().map(|r| r.expect("job").job).collect();
    assert_eq!(jobs, [JobId(1), JobId(2)]);
    assert_eq!(reader.late_keys()[0].line, 2);
    assert_eq!(reader.late_keys()[0].key, "UnixStartTime");
}

/// An error's echo of a bad value never exceeds 80 characters (hostile input: a 1 MB field).
#[test]
fn errors_echo_at_most_80_characters() {
    let huge = "x".repeat(100_000);
    let field = items(&line_with(4, &huge))
        .remove(0)
        .expect_err("bad field");
    let header = SwfReader::new("t.swf", format!("; MaxProcs: {huge}\n").as_bytes())
        .err()
        .expect("bad header");
    for err in [field, header] {
        let message = err.to_string();
        assert!(message.len() < 200, "{} bytes", message.len());
        assert!(message.contains("xxx...\""), "{message}");
    }
}

/// Hostile input #14c: a `; MaxProcs:` line in the middle of a trace does not change the
/// header's capacity; it is reported with its line number.
#[test]
fn a_late_max_procs_does_not_change_the_capacity() {
    let text = "; MaxProcs: 16\n1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n\
                ; MaxProcs: 2\n2 0 -1 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n";
    let trace = SwfReader::new("mid.swf", text.as_bytes())
        .expect("header")
        .into_rigid_trace()
        .expect("trace");
    assert_eq!(trace.header.values().max_procs, Some(16));
    assert_eq!(trace.jobs.len(), 2);
    assert_eq!(trace.late_comments, 1);
    assert_eq!(
        trace.late_keys,
        [cosched_workload::swf::LateKey {
            line: 3,
            key: "MaxProcs"
        }]
    );
}

/// Hostile input #6: endless comments stream in bounded memory; the header keeps a bounded
/// number of lines and counts the rest, and standard keys past the bound still count.
#[test]
fn endless_comments_keep_a_bounded_header() {
    use cosched_workload::swf::{MAX_HEADER_BYTES, MAX_HEADER_LINES};
    let n = MAX_HEADER_LINES as u64 + 5_000;
    let text: String = (0..n).map(|i| format!("; Note: {i}\n")).collect::<String>()
        + "; MaxProcs: 9\n"
        + &line_with(1, "1");
    let reader = SwfReader::new(INPUT_NAME, text.as_bytes()).expect("header");
    let header = reader.header();
    assert_eq!(header.lines().len(), MAX_HEADER_LINES);
    assert_eq!(header.omitted_lines(), n + 1 - MAX_HEADER_LINES as u64);
    assert_eq!(header.values().note.len(), MAX_HEADER_LINES);
    assert_eq!(header.values().max_procs, Some(9));

    // Long lines hit the byte bound first.
    let line = format!("; Note: {}\n", "y".repeat(100_000));
    let text = line.repeat(20) + &line_with(1, "1");
    let reader = SwfReader::new(INPUT_NAME, text.as_bytes()).expect("header");
    let kept: usize = reader.header().lines().iter().map(String::len).sum();
    assert!(kept <= MAX_HEADER_BYTES);
    assert_eq!(
        reader.header().lines().len() as u64 + reader.header().omitted_lines(),
        20
    );

    // Comment lines after the first job are counted, never stored.
    let text = line_with(1, "1") + &"; Note: late\n".repeat(100_000);
    let mut reader = SwfReader::new(INPUT_NAME, text.as_bytes()).expect("header");
    assert_eq!(reader.by_ref().count(), 1);
    assert_eq!(reader.late_comments(), 100_000);
    assert_eq!(
        reader.late_keys().len(),
        cosched_workload::swf::MAX_LATE_KEYS
    );
    assert!(reader.header().lines().is_empty());
}

/// Hostile input #6: a repeated job id among valid jobs is found while streaming, naming the
/// line, without reading the rest of the trace.
#[test]
fn duplicate_ids_are_found_while_streaming() {
    /// Endless copies of one job line: reading all of it would never end.
    struct Endless(Vec<u8>, usize);
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let mut n = 0;
            while n < buf.len() {
                buf[n] = self.0[self.1 % self.0.len()];
                self.1 += 1;
                n += 1;
            }
            Ok(n)
        }
    }
    let line = line_with(1, "5").into_bytes();
    let reader = SwfReader::new("dup.swf", BufReader::new(Endless(line, 0))).expect("header");
    let err = reader.into_rigid_trace().expect_err("duplicate");
    assert_eq!(
        err.to_string(),
        "dup.swf:2: job 5 appears more than once in the trace"
    );
    // Invalid records do not take part (they are counted, not admitted).
    let text = line_with(4, "-1") + &line_with(4, "-1") + &line_with(1, "8");
    let trace = SwfReader::new(INPUT_NAME, text.as_bytes())
        .expect("header")
        .into_rigid_trace()
        .expect("no valid duplicate");
    assert_eq!((trace.jobs.len(), trace.invalid_count()), (1, 2));
}

#[test]
fn overlong_lines_are_errors_and_skipped() {
    let mut text = line_with(1, "1");
    text.push_str(&"9".repeat(MAX_LINE_LEN + 10));
    text.push('\n');
    text.push_str(&line_with(1, "2"));
    let results = items(&text);
    assert_eq!(results.len(), 3);
    assert!(matches!(
        results[1],
        Err(SwfError::LineTooLong { line: 2, .. })
    ));
    assert_eq!(results[2].as_ref().expect("job 2").job, JobId(2));
}

/// A reader that fails after yielding some bytes.
struct FailingReader(Cursor<Vec<u8>>);

impl Read for FailingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf)? {
            0 => Err(io::Error::other("disk on fire")),
            n => Ok(n),
        }
    }
}

#[test]
fn io_errors_name_the_file_and_end_the_iteration() {
    let missing = Path::new("/nonexistent/trace.swf");
    let err = SwfReader::open(missing).err().expect("missing file");
    assert!(matches!(err, SwfError::Io { ref file, .. } if file == "/nonexistent/trace.swf"));
    assert!(
        err.to_string()
            .starts_with("/nonexistent/trace.swf: I/O error")
    );
    assert!(read_rigid_jobs(missing).is_err());

    let input = BufReader::new(FailingReader(Cursor::new(line_with(1, "1").into_bytes())));
    let results: Vec<_> = SwfReader::new("flaky.swf", input)
        .expect("header")
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    assert_eq!(
        results[1]
            .as_ref()
            .err()
            .map(ToString::to_string)
            .as_deref(),
        Some("flaky.swf: I/O error: disk on fire")
    );

    let corrupt = [0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02];
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("corrupt.swf.gz");
    std::fs::write(&path, corrupt).expect("write");
    assert!(matches!(read_rigid_jobs(&path), Err(SwfError::Io { .. })));
}

// ---------------------------------------------------------------------------------------------
// Properties

/// 256 cases, failures not persisted.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn opt<T: std::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    prop::option::weighted(0.8, s)
}

/// Any `i64` except `-1`, which always reads back as missing.
fn signed() -> impl Strategy<Value = i64> {
    prop_oneof![any::<i64>(), -100_000i64..100_000].prop_map(|v| if v == -1 { -2 } else { v })
}

/// Any finite `f64` except `-1`.
fn fractional() -> impl Strategy<Value = f64> {
    use prop::num::f64::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    prop_oneof![
        (POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO).boxed(),
        (0u32..100_000, 0u32..100)
            .prop_map(|(a, b)| f64::from(a) + f64::from(b) / 100.0)
            .boxed(),
    ]
    .prop_map(|v| if v == -1.0 { -2.0 } else { v })
}

fn record() -> impl Strategy<Value = SwfRecord> {
    let times = (
        any::<u64>(),
        opt(signed()),
        opt(signed()),
        opt(signed()),
        opt(signed()),
        opt(signed()),
    );
    let counts = (
        opt(any::<u32>()),
        opt(any::<u32>()),
        opt(0u32..8),
        opt(any::<u32>()),
        opt(any::<u32>()),
        opt(any::<u32>()),
        opt(any::<u32>()),
        opt(any::<u32>()),
        opt(any::<u64>()),
    );
    let floats = (opt(fractional()), opt(fractional()), opt(fractional()));
    let extra = prop::collection::vec("\\S{1,12}", 0..3);
    (times, counts, floats, extra).prop_map(
        |(
            (job, submit, wait, run, requested_time, think),
            (alloc, req, status, user, group, exe, queue, partition, preceding),
            (cpu, used_mem, req_mem),
            extra,
        )| SwfRecord {
            job: JobId(job),
            submit: submit.map(Time),
            wait: wait.map(Duration),
            run_time: run.map(Duration),
            allocated_procs: alloc,
            avg_cpu_time: cpu,
            used_memory: used_mem,
            requested_procs: req,
            requested_time: requested_time.map(Duration),
            requested_memory: req_mem,
            status: status.map(SwfStatus),
            user,
            group,
            executable: exe,
            queue,
            partition,
            preceding_job: preceding.map(JobId),
            think_time: think.map(Duration),
            extra,
        },
    )
}

fn header_line() -> impl Strategy<Value = String> {
    let text = "[^\r\n]{0,24}";
    prop_oneof![
        (
            prop::sample::select(vec!["MaxJobs", "MaxProcs", "MaxNodes", "MaxQueues"]),
            any::<u64>()
        )
            .prop_map(|(k, v)| format!("; {k}: {v}")),
        any::<i64>().prop_map(|v| format!("; UnixStartTime: {v}")),
        (
            prop::sample::select(vec!["Note", "Queue", "Computer", "Information", "Oddity"]),
            text
        )
            .prop_map(|(k, v)| format!("; {k}: {v}")),
        text.prop_map(|t| format!(";{t}")),
        text.prop_map(|t| format!(";       {t}")),
        Just(";".to_string()),
    ]
}

fn header() -> impl Strategy<Value = SwfHeader> {
    prop::collection::vec(header_line(), 0..12).prop_map(|lines| {
        let mut header = SwfHeader::new();
        for line in lines {
            // Free text can spell a numeric key with a bad value; such a line is just left out.
            let _ = header.push_line(line);
        }
        header
    })
}

/// Tokens that exercise every parsing path.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "-1",
            "0",
            "1",
            "7",
            "-2",
            "3.0",
            "3.5",
            "3.",
            ".5",
            "-",
            "+",
            "1e3",
            "NaN",
            "inf",
            "abc",
            ";",
            "; MaxProcs:",
            "Note:",
            "4294967296",
            "99999999999999999999",
            "-9223372036854775808",
            "\u{e9}",
            "\u{a0}",
        ])
        .prop_map(str::to_owned),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        "\\PC{0,6}",
    ]
}

fn soup_line() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(token(), 0..24).prop_map(|t| t.join(" ")),
        prop::collection::vec(token(), 0..24).prop_map(|t| t.join("\t ")),
        header_line(),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn records_and_header_round_trip(header in header(), records in prop::collection::vec(record(), 0..8)) {
        let bytes = write_trace(&header, &records);
        let (header2, records2) = read_trace(&bytes);
        prop_assert_eq!(header2, header);
        prop_assert_eq!(records2, records);
    }

    #[test]
    fn rigid_jobs_round_trip(
        id in any::<u64>(), submit in 0i64..1 << 40, size in 1u32.., runtime in 0i64..1 << 40,
        estimate in 1i64..1 << 40, user in opt(any::<u32>()), group in opt(any::<u32>())
    ) {
        let job = RigidJob { id: JobId(id), submit: Time(submit), size, runtime: Duration(runtime),
            estimate: Duration(estimate), user, group };
        let record = SwfRecord::from_rigid(&job);
        prop_assert_eq!(record.to_rigid(), Ok(job));
        let (_, read) = read_trace(&write_trace(&SwfHeader::new(), std::slice::from_ref(&record)));
        prop_assert_eq!(read, vec![record]);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(reader) = SwfReader::new(INPUT_NAME, bytes.as_slice()) {
            let lines = bytes.split(|&b| b == b'\n').count();
            prop_assert!(reader.count() <= lines);
        }
    }

    #[test]
    fn token_soup_never_panics_and_what_parses_round_trips(lines in prop::collection::vec(soup_line(), 0..16)) {
        let text = lines.join("\n");
        let Ok(reader) = SwfReader::new("soup.swf", text.as_bytes()) else { return Ok(()) };
        for item in reader {
            match item {
                Ok(record) => {
                    let (_, again) = read_trace(&write_trace(&SwfHeader::new(), std::slice::from_ref(&record)));
                    prop_assert_eq!(again, vec![record.clone()]);
                    let _ = record.to_rigid();
                }
                Err(err) => prop_assert!(err.to_string().starts_with("soup.swf:")),
            }
        }
    }
}

/// What a reader yields over `input`: its header, each item (errors as their messages), the
/// late comments and keys, and the rigid trace (or its error's message) of the same input.
fn reading<R: io::BufRead>(input: impl Fn() -> R) -> (String, Vec<String>, String) {
    let Ok(mut reader) = SwfReader::new("t.swf", input()) else {
        return (String::new(), Vec::new(), String::new());
    };
    let items = reader
        .by_ref()
        .map(|item| match item {
            Ok(record) => format!("{record:?}"),
            Err(err) => err.to_string(),
        })
        .collect();
    let head = format!(
        "{:?} {} {:?}",
        reader.header(),
        reader.late_comments(),
        reader.late_keys()
    );
    let trace = match SwfReader::new("t.swf", input()).map(|r| r.into_rigid_trace()) {
        Ok(Ok(trace)) => format!("{trace:?}"),
        Ok(Err(err)) | Err(err) => err.to_string(),
    };
    (head, items, trace)
}

/// A job line with id `id`: valid, or (`valid` false) without a run time.
fn id_line(id: u64, valid: bool) -> String {
    let run = if valid { 60 } else { -1 };
    format!("{id} 0 -1 {run} 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1")
}

proptest! {
    #![proptest_config(config())]

    /// Lines parsed where they lie in the input's buffer read exactly as lines copied out of
    /// a buffer too small to hold them (a 1-byte buffer takes the copying path for every
    /// line): records, errors, lines, late comments and keys, the rigid trace.
    #[test]
    fn lines_in_the_buffer_read_as_lines_copied_out_of_it(
        lines in prop::collection::vec(prop_oneof![
            soup_line(),
            record().prop_map(|r| {
                let bytes = write_trace(&SwfHeader::new(), &[r]);
                String::from_utf8(bytes).unwrap().trim_end().to_owned()
            }),
            Just(String::new()),
            Just("  \t ".to_owned()),
        ], 0..16),
        crlf in any::<bool>(),
        last_newline in any::<bool>(),
        capacity in 1usize..48,
    ) {
        let mut text = lines.join(if crlf { "\r\n" } else { "\n" });
        if last_newline {
            text.push('\n');
        }
        let bytes = text.as_bytes();
        let whole = reading(|| bytes);
        prop_assert_eq!(&reading(|| BufReader::with_capacity(1, bytes)), &whole);
        prop_assert_eq!(&reading(|| BufReader::with_capacity(capacity, bytes)), &whole);
    }

    /// The duplicate check (only the last id kept while ids increase) finds the first valid
    /// job whose id an earlier valid job has, wherever it is.
    #[test]
    fn duplicates_are_found_in_any_id_order(
        jobs in prop::collection::vec((0u64..24, any::<bool>()), 0..24),
    ) {
        let text: String = jobs.iter().map(|&(id, valid)| id_line(id, valid) + "\n").collect();
        let got = SwfReader::new("t.swf", text.as_bytes()).unwrap().into_rigid_trace();
        let mut seen = std::collections::HashSet::new();
        let first_repeat = jobs
            .iter()
            .enumerate()
            .find(|&(_, &(id, valid))| valid && !seen.insert(id));
        match (got, first_repeat) {
            (Ok(trace), None) => {
                let valid: Vec<u64> = jobs.iter().filter(|j| j.1).map(|j| j.0).collect();
                prop_assert_eq!(trace.jobs.iter().map(|j| j.id.0).collect::<Vec<_>>(), valid);
            }
            (Err(SwfError::DuplicateJob { line, job, .. }), Some((at, &(id, _)))) => {
                prop_assert_eq!((line, job), (at as u64 + 1, id));
            }
            (got, expected) => prop_assert!(false, "{got:?} against {expected:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real traces from the Parallel Workloads Archive

/// A trace of the Parallel Workloads Archive vendored in the repository (gzip): the examples'
/// `examples/data/swf` and the CLI experiments' `crates/cli/experiments/data`.
fn vendored(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    ["examples/data/swf", "crates/cli/experiments/data"]
        .iter()
        .map(|dir| root.join(dir).join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("{name} is not vendored under examples/data/swf or crates/cli/experiments/data")
        })
}

/// Reads a real trace, checks it round-trips through the writer, and returns its jobs.
fn real_trace(name: &str) -> cosched_workload::swf::RigidTrace {
    let path = vendored(name);
    let mut reader = SwfReader::open(&path).expect("open");
    let records: Vec<SwfRecord> = reader.by_ref().collect::<Result<_, _>>().expect("parse");
    let header = reader.header().clone();
    let bytes = write_trace(&header, &records);
    assert_eq!(read_trace(&bytes), (header, records), "{name} round trip");
    let trace = read_rigid_jobs(&path).expect("read_rigid_jobs");
    assert_eq!(copied_line_by_line(&path), trace, "{name}");
    trace
}

/// The rigid trace of the file at `path` read through a 64-byte buffer, so that each job
/// line is copied out of the buffer it crosses (the reader's path for a line not wholly in
/// its input's buffer) rather than parsed in place.
fn copied_line_by_line(path: &Path) -> cosched_workload::swf::RigidTrace {
    let bytes = std::fs::read(path).expect("read");
    let text: Box<dyn Read> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::MultiGzDecoder::new(bytes.as_slice()))
    } else {
        Box::new(bytes.as_slice())
    };
    SwfReader::new(
        path.display().to_string(),
        BufReader::with_capacity(64, text),
    )
    .expect("header")
    .into_rigid_trace()
    .expect("trace")
}

/// Every trace the project ships (`examples/data/swf`) reads the same parsed in place as
/// copied line by line.
#[test]
fn shipped_traces_read_the_same_through_any_buffer() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/swf");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).expect("examples/data/swf") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "gz") {
            let trace = read_rigid_jobs(&path).expect("read_rigid_jobs");
            assert!(!trace.jobs.is_empty(), "{}", path.display());
            assert_eq!(copied_line_by_line(&path), trace, "{}", path.display());
            read += 1;
        }
    }
    assert!(read >= 4, "only {read} shipped traces");
}

#[test]
fn nasa_ipsc_gzip_trace() {
    let trace = real_trace("NASA-iPSC-1993-3.1-cln.swf.gz");
    assert_eq!(trace.jobs.len(), 18_239);
    assert_eq!(trace.invalid_count(), 0);
    let v = trace.header.values();
    assert_eq!((v.max_procs, v.max_nodes), (Some(128), Some(128)));
    assert_eq!(v.unix_start_time, Some(749_458_803));
    assert_eq!(v.time_zone_string.as_deref(), Some("US/Pacific"));
    assert_eq!(v.note.len(), 4);
    assert_eq!(
        v.note[0],
        "There is no information on wait times - the given submit\ntimes are actually start times"
    );
    assert_eq!(v.queue, ["0  interactive", "1  batch"]);
    // Requested fields are all -1: size is the allocation, the estimate the run time.
    assert!(trace.jobs.iter().all(|j| j.estimate == j.runtime));
    assert_eq!(trace.jobs[0].size, 128);
}

#[test]
fn lublin_synthetic_trace() {
    let trace = real_trace("lublin_256.swf.gz");
    assert_eq!(trace.jobs.len(), 10_000);
    assert_eq!(trace.invalid_count(), 0);
    let v = trace.header.values();
    assert_eq!((v.max_procs, v.max_nodes), (None, Some(256)));
    assert_eq!(v.max_runtime, Some(162_754));
    assert_eq!(v.version.as_deref(), Some("2"));
}

#[test]
fn alea_hpc2n_trace() {
    let trace = real_trace("alea-hpc2n-subset.swf.gz");
    assert_eq!(trace.jobs.len() + trace.invalid_count(), 3_170);
    assert_eq!(trace.jobs.len(), 3_145);
    assert_eq!(
        trace.invalid,
        BTreeMap::from([(InvalidJob::MissingRuntime, 25)])
    );
    let v = trace.header.values();
    assert_eq!((v.max_procs, v.max_nodes), (Some(240), Some(240)));
    assert_eq!(v.unix_start_time, Some(1_027_839_845));
    assert_eq!(v.time_zone_string.as_deref(), Some("Europe/Stockholm"));
    assert_eq!(v.note, ["uses MAUI scheduler"]);
    assert_eq!(v.partition, ["1 DEFAULT", "2 ALL"]);
    assert_eq!(v.max_partitions, Some(2));
}

/// The SDSC-SP2 sample is kept once in the workspace; the Python package's wheel carries the
/// same bytes (its outputs, input hashes included, are the CLI's).
#[test]
fn the_sdsc_sp2_sample_is_one_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let name = "SDSC-SP2-sample-4961.swf.gz";
    let kept = std::fs::read(root.join("examples/data/swf").join(name)).expect("vendored");
    let shipped =
        std::fs::read(root.join("crates/python/python/cosched/data").join(name)).expect("shipped");
    assert!(kept == shipped, "the Python package's copy differs");
    assert!(!root.join("crates/cli/experiments/data").join(name).exists());
}

#[test]
fn sdsc_sp2_trace() {
    let trace = real_trace("SDSC-SP2-sample-4961.swf.gz");
    assert_eq!(trace.jobs.len() + trace.invalid_count(), 4_961);
    assert_eq!(
        trace.invalid,
        BTreeMap::from([(InvalidJob::MissingRuntime, 355)])
    );
    let v = trace.header.values();
    assert_eq!((v.max_procs, v.max_nodes), (Some(128), Some(128)));
    assert_eq!(v.max_jobs, Some(73_496));
    assert_eq!(v.queue.len(), 7);
    assert_eq!(
        v.information.as_deref(),
        Some("http://joblog.npaci.edu/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/")
    );
    assert_eq!(trace.header.lines().len(), 39);
}

// ---------------------------------------------------------------------------------------------
// Hostile input: extreme values in every field

/// How a field is typed: what values it accepts.
#[derive(Clone, Copy)]
enum Kind {
    /// Field 1: a required `u64`.
    Job,
    /// Signed seconds in `i64`, `-1` missing.
    Time,
    /// A `u32` count, `-1` missing.
    Count,
    /// A `u64` identifier, `-1` missing (field 17).
    Id,
    /// A finite `f64`, `-1` missing.
    Frac,
}

const KINDS: [Kind; 18] = {
    use Kind::*;
    [
        Job, Time, Time, Time, Count, Frac, Frac, Count, Time, Frac, Count, Count, Count, Count,
        Count, Count, Id, Time,
    ]
};

/// Extreme tokens and whether each kind accepts them: [Job, Time, Count, Id, Frac].
const EXTREMES: [(&str, [bool; 5]); 15] = [
    ("0", [true; 5]),
    ("-1", [false, true, true, true, true]),
    ("-2", [false, true, false, false, true]),
    ("7.000", [true; 5]),
    ("4294967295", [true; 5]),
    ("4294967296", [true, true, false, true, true]),
    ("9223372036854775807", [true, true, false, true, true]),
    ("9223372036854775808", [true, false, false, true, true]),
    ("-9223372036854775808", [false, true, false, false, true]),
    ("18446744073709551615", [true, false, false, true, true]),
    ("18446744073709551616", [false, false, false, false, true]),
    ("3.5", [false, false, false, false, true]),
    ("1e308", [false, false, false, false, true]),
    ("1e309", [false; 5]),
    ("NaN", [false; 5]),
];

fn accepts(kind: Kind, ok: [bool; 5]) -> bool {
    ok[kind as usize]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Every field set to an extreme value: the line parses exactly when every value fits its
    /// field, and otherwise the error names the first field that does not (in the reader's
    /// order) and echoes its text; what parses converts, writes and reads back unchanged.
    #[test]
    fn extreme_values_give_a_clean_error_or_an_exact_record(
        picks in prop::collection::vec(0..EXTREMES.len(), FIELD_COUNT_USIZE),
    ) {
        let tokens: Vec<&str> = picks.iter().map(|&i| EXTREMES[i].0).collect();
        let line = tokens.join(" ") + "\n";
        let first_bad = picks
            .iter()
            .zip(KINDS)
            .position(|(&i, kind)| !accepts(kind, EXTREMES[i].1));
        let result = items(&line).remove(0);
        match (first_bad, result) {
            (None, Ok(record)) => {
                let _ = record.to_rigid(); // never panics
                let written = write_trace(&SwfHeader::new(), std::slice::from_ref(&record));
                prop_assert_eq!(read_trace(&written).1, vec![record]);
            }
            (Some(index), Err(SwfError::Field { field, text, line: 1, .. })) => {
                prop_assert_eq!(field, index + 1);
                prop_assert_eq!(text.as_str(), tokens[index]);
            }
            (expected, got) => prop_assert!(false, "{line:?}: expected bad field {expected:?}, got {got:?}"),
        }
    }
}

const FIELD_COUNT_USIZE: usize = 18;

/// An input of zero bytes without end, like `/dev/zero`.
struct Zeros;

impl Read for Zeros {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        buf.fill(0);
        Ok(buf.len())
    }
}

#[test]
fn an_endless_line_is_an_error_that_ends_the_input() {
    // `cosched simulate --trace /dev/zero` once read forever.
    let err = SwfReader::new("/dev/zero", BufReader::new(Zeros))
        .err()
        .expect("no header ends");
    assert!(
        matches!(err, SwfError::LineTooLong { line: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().starts_with("/dev/zero:1:"), "{err}");
    let job = line_with(1, "1");
    let input = BufReader::new(job.as_bytes().chain(Zeros));
    let results: Vec<_> = SwfReader::new("t.swf", input).expect("header").collect();
    assert_eq!(results.len(), 2);
    assert!(matches!(
        results[1],
        Err(SwfError::LineTooLong { line: 2, .. })
    ));
}
