//! Runs every example of this package in `--quick` mode so that none can rot: each must exit
//! successfully and leave a `table.md` and at least one SVG plot in its output folder.
//!
//! `cargo test` builds the example binaries (in the test profile) next to this test's own
//! executable; the examples are the `NAME.rs` files at the package root.

use std::path::{Path, PathBuf};
use std::process::Command;

fn example_names() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(root)
        .expect("package root is readable")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    names
}

fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<this test> -> target/<profile>/examples/<name>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executables live in target/<profile>/deps");
    profile_dir
        .join("examples")
        .join(name)
        .with_extension(std::env::consts::EXE_EXTENSION)
}

#[test]
fn every_example_runs_in_quick_mode() {
    let names = example_names();
    assert!(!names.is_empty(), "no examples found");
    for name in names {
        let binary = example_binary(&name);
        assert!(
            binary.exists(),
            "{} was not built: run `cargo test -p cosched-examples` without a `--test` filter, \
             which skips building examples",
            binary.display()
        );
        let out = tempfile::tempdir().expect("temporary directory");
        let status = Command::new(&binary)
            .args(["--quick", "--seed", "3", "--out"])
            .arg(out.path())
            .status()
            .expect("example starts");
        assert!(status.success(), "example `{name}` failed: {status}");
        assert!(
            out.path().join("table.md").is_file(),
            "`{name}` wrote no table.md"
        );
        let plots = std::fs::read_dir(out.path())
            .expect("output folder")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "svg"))
            })
            .count();
        assert!(plots > 0, "`{name}` wrote no plot");
    }
}
