//! The real XSEDE inputs under `../shared/data/metasched` beside the checkout (or under
//! `$COSCHED_SHARED_DATA`). The tests that read them are `#[ignore = "needs ../shared/data"]`,
//! run with `-- --ignored`, and fail when the inputs are absent.

use std::path::{Path, PathBuf};

/// `../shared/data/metasched/<entry>`; panics, naming the path, when it is absent.
pub fn shared_metasched(entry: &str) -> PathBuf {
    let root = std::env::var_os("COSCHED_SHARED_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    );
    let path = root.join("metasched").join(entry);
    assert!(
        path.exists(),
        "this test needs {} (../shared/data beside the checkout, or COSCHED_SHARED_DATA)",
        path.display()
    );
    path
}
