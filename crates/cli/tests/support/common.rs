//! What the `cosched` end-to-end tests share: running the binary and the committed inputs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `cosched` with `args`.
pub fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// `bytes` as text, lossily.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The workload crate's `tiny.swf` (8 valid jobs, MaxProcs 128, no requested times).
pub fn tiny_trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workload/tests/data/tiny.swf")
}

/// The vendored SDSC-SP2 sample (4,961 records, 4,606 valid, MaxProcs 128).
pub fn sdsc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/swf/SDSC-SP2-sample-4961.swf.gz")
}
