//! The real XSEDE inputs under `../shared/data/metasched` (beside the checkout), which tests
//! use when present and skip, with a message, when absent.

use std::path::{Path, PathBuf};

/// `../shared/data/metasched/<entry>` if it exists; otherwise prints why the caller skips.
pub fn shared_metasched(entry: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/metasched")
        .join(entry);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipped: {} is absent", path.display());
        None
    }
}
