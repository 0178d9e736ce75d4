//! Measures the SWF reader's throughput on the traces given as arguments (plain or gzip):
//!
//! ```text
//! cargo run --release -p cosched-core --example swf_read_speed -- TRACE.swf[.gz]...
//! ```

use cosched_core::workload::swf::SwfReader;
use std::hint::black_box;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return Err("usage: swf_read_speed TRACE.swf[.gz]...".into());
    }
    for path in paths {
        let start = Instant::now();
        let mut reader = SwfReader::open(&path)?;
        let (mut records, mut errors) = (0u64, 0u64);
        for item in reader.by_ref() {
            match black_box(item) {
                Ok(_) => records += 1,
                Err(_) => errors += 1,
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let lines = reader.line_number();
        println!(
            "{path}: {lines} lines ({records} records, {errors} errors) in {secs:.3} s = {:.0} lines/s",
            lines as f64 / secs
        );
    }
    Ok(())
}
