//! Hostile input for what the Slurm client reads: the epilog's job-end log and Slurm's host
//! lists. Extreme values in every field (empty, huge, negative, NaN, non-UTF-8, very long)
//! must give a clean error or the right result, never a panic, and never memory in
//! proportion to a number in the input.

use std::io::Write;

use cosched_slurm::hostlist::{self, MAX_HOSTS};
use cosched_slurm::notify::MAX_LINE_BYTES;
use cosched_slurm::{JobEnd, JobEndLog};
use proptest::prelude::*;

/// Extreme tokens for one `|`-separated field.
fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"".to_vec()),
        Just(b"0".to_vec()),
        Just(b"-1".to_vec()),
        Just(b"9223372036854775807".to_vec()),
        Just(b"-9223372036854775808".to_vec()),
        Just(b"9223372036854775808".to_vec()),
        Just(b"NaN".to_vec()),
        Just(b"inf".to_vec()),
        Just(b"1e308".to_vec()),
        Just(b"n[0-18446744073709551615]".to_vec()),
        Just(b"n[1-1048576]".to_vec()),
        Just(b"n[[1]]".to_vec()),
        Just(b"n[5-1]".to_vec()),
        Just(b"r[1-3]c[01-02]".to_vec()),
        Just(vec![0xff, 0xfe, 0x80]),
        Just(vec![b'9'; 10_000]),
        "[a-z0-9\\[\\],\\- ]{0,12}".prop_map(String::into_bytes),
    ]
}

/// A log line: four fields (a valid line now and then), or another number of fields.
fn line() -> impl Strategy<Value = (Vec<u8>, Option<String>)> {
    prop_oneof![
        (0u32..1000, 0i64..2_000_000_000).prop_map(|(id, at)| {
            let text = format!("{id}|n[1-2]|0|{at}");
            (text.into_bytes(), Some(id.to_string()))
        }),
        prop::collection::vec(token(), 1..6).prop_map(|fields| (fields.join(&b'|'), None)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every valid line's end is returned exactly once, in order, whatever lines surround it;
    /// each bad line is one error; the reader always makes progress.
    #[test]
    fn job_end_log_never_panics_and_loses_nothing(lines in prop::collection::vec(line(), 0..12)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job-ends.log");
        let mut f = std::fs::File::create(&path).unwrap();
        for (bytes, _) in &lines {
            f.write_all(bytes).unwrap();
            f.write_all(b"\n").unwrap();
        }
        drop(f);
        let mut log = JobEndLog::new(&path);
        let mut seen: Vec<JobEnd> = Vec::new();
        let mut errors = 0;
        for _ in 0..=lines.len() + 1 {
            match log.read_new() {
                Ok(ends) if ends.is_empty() => break,
                Ok(ends) => seen.extend(ends),
                Err(e) => {
                    errors += 1;
                    prop_assert!(e.to_string().chars().count() < 400, "{}", e);
                }
            }
        }
        prop_assert!(log.read_new().unwrap().is_empty(), "the reader reached the end");
        let valid: Vec<&String> = lines.iter().filter_map(|(_, id)| id.as_ref()).collect();
        let ids: Vec<&String> = seen.iter().map(|e| &e.job_id).collect();
        // A generated bad line may happen to be valid; the valid ones are a subsequence.
        let mut it = ids.iter();
        for id in &valid {
            prop_assert!(it.any(|s| s == id), "{id} missing from {ids:?}");
        }
        prop_assert_eq!(seen.len() + errors, lines.len());
    }

    /// Host lists of extreme ranges are a bounded result or an error.
    #[test]
    fn host_lists_are_bounded(fields in prop::collection::vec(token(), 1..4)) {
        let text = String::from_utf8_lossy(&fields.join(&b',')).into_owned();
        if let Ok(hosts) = hostlist::expand(&text) {
            prop_assert!(hosts.len() <= MAX_HOSTS);
        }
    }
}

/// A line far longer than the limit is one error, echoing at most 80 characters.
#[test]
fn a_huge_line_is_one_short_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job-ends.log");
    let mut bytes = vec![b'7'; MAX_LINE_BYTES * 16];
    bytes.extend_from_slice(b"\n1|n1|0|5\n");
    std::fs::write(&path, bytes).unwrap();
    let mut log = JobEndLog::new(&path);
    let err = log.read_new().unwrap_err().to_string();
    assert!(err.len() < 300, "{err}");
    assert_eq!(log.read_new().unwrap()[0].job_id, "1");
}
