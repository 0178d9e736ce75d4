//! Every command of the README works on a fresh clone: each `cosched` command (typed as
//! `cosched …` or `cargo run -p cosched-cli -- …`) runs as written, in a scratch directory
//! holding copies of the repository files it names, and succeeds. The commands that need a
//! Slurm cluster or run as a service (`balancer serve`, `slurm …`, `--slurm`) are checked against their
//! `--help` instead: the subcommand and every flag exist (the live tests run them against a
//! real cluster). Every other command of the README is of a known kind; the examples' and
//! xtask's are checked by those packages' tests (`examples/tests/examples_quick.rs`,
//! `xtask/tests/readme.rs`), where their binaries are built.

#[path = "support/readme.rs"]
mod readme;

use readme::{Kind, ReadmeCommand, kind, long_flags, root};
use std::path::Path;
use std::process::Command;

/// Runs `cosched` with `args` in `dir`.
fn cosched(dir: &Path, args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

/// Whether the command needs what a test machine does not have (a Slurm cluster), or runs
/// until stopped.
fn needs_a_cluster(args: &[String]) -> bool {
    args.iter().any(|a| a == "--slurm")
        || args.starts_with(&["balancer".into(), "serve".into()])
        || args.starts_with(&["slurm".into()])
}

/// Copies `from` (a file or directory) to `to`, directories recursively.
fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
}

/// Puts into `sandbox` the repository files `args` name (a file with its directory, where
/// an experiment file finds its traces), at the same relative paths.
fn stage_inputs(sandbox: &Path, args: &[String]) {
    for arg in args
        .iter()
        .filter(|a| !a.starts_with('-') && !a.starts_with('/'))
    {
        let path = root().join(arg);
        if arg.contains('/') && path.is_file() {
            let dir = Path::new(arg).parent().unwrap();
            copy(&root().join(dir), &sandbox.join(dir));
            stage_experiment_traces(sandbox, &path);
        }
    }
}

/// The traces an experiment file names outside its own directory (`path = "../…"`), staged
/// at their repository paths too.
fn stage_experiment_traces(sandbox: &Path, file: &Path) {
    if file.extension().is_none_or(|e| e != "toml") {
        return;
    }
    let text = std::fs::read_to_string(file).unwrap();
    let root = root().canonicalize().unwrap();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("path = \"") else {
            continue;
        };
        let Some(value) = rest.split('"').next() else {
            continue;
        };
        let Ok(trace) = file.parent().unwrap().join(value).canonicalize() else {
            continue;
        };
        if let Ok(rel) = trace.strip_prefix(&root) {
            let dir = rel.parent().unwrap();
            copy(&root.join(dir), &sandbox.join(dir));
        }
    }
}

#[test]
fn every_readme_command_is_of_a_known_kind() {
    let commands = readme::commands();
    assert!(commands.len() > 20, "{} commands found", commands.len());
    for c in &commands {
        match kind(c) {
            Kind::Cosched(args) => assert!(!args.is_empty(), "{}", c.text()),
            Kind::Example(name, _) => {
                // Runs from the repository root: the package is named.
                assert_eq!(c.cargo_flag("-p"), Some("cosched-examples"), "{}", c.text());
                assert!(
                    root().join("examples").join(format!("{name}.rs")).is_file(),
                    "{}",
                    c.text()
                );
            }
            Kind::Xtask(args) => assert!(!args.is_empty(), "{}", c.text()),
            Kind::Cargo(words) => check_cargo(c, &words),
            Kind::Other(words) => check_other(c, &words),
        }
    }
}

/// Another program's command. The live service's calls and the cluster's environment (`curl`,
/// `source`) are run by `.ci/run`'s live tests against the cluster `cargo xtask slurm up`
/// starts; the Python package's (`python3 -m venv`, `.`, `pip`, `pytest`, `python`) by
/// `.ci/python.sh` in a virtual environment of its own. Here: the kind is known, and the
/// repository files a Python command names exist.
fn check_other(c: &ReadmeCommand, words: &[String]) {
    // `NAME=value` words before the program set its environment.
    let is_assignment = |w: &str| {
        w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_')
        })
    };
    let mut rest = words.iter().skip_while(|w| is_assignment(w));
    let program = rest.next().map_or("", String::as_str);
    match program {
        // A client of the service or of the cluster (`sbatch` a batch job beside it).
        "curl" | "source" | "sbatch" => {}
        "python3" | "python" | "pip" | "pytest" | "." => {
            for word in rest {
                // `./crates/python[test]`: a path with pip's extras.
                let path = word.strip_prefix("./").unwrap_or(word);
                let path = path.split('[').next().unwrap_or(path);
                if path.starts_with("crates/") {
                    assert!(root().join(path).exists(), "{}: no {path}", c.text());
                }
            }
        }
        _ => panic!(
            "{}: a command of unknown kind; teach this test how to check it",
            c.text()
        ),
    }
}

/// `cargo test`, `cargo bench -p P`, `cargo build -p P`, `cargo install --path P` name what
/// exists.
fn check_cargo(c: &ReadmeCommand, words: &[String]) {
    match words[0].as_str() {
        "test" | "bench" | "build" => {
            if let Some(package) = c.cargo_flag("-p") {
                let dir = package.strip_prefix("cosched-").unwrap_or(package);
                // Packages live under crates/, the examples' package at the top.
                let manifest = [root().join("crates").join(dir), root().join(dir)]
                    .into_iter()
                    .map(|d| d.join("Cargo.toml"))
                    .find(|m| m.is_file());
                assert!(manifest.is_some(), "{}: no package {package}", c.text());
                if words[0] == "bench" {
                    let benches = root().join("crates").join(dir).join("benches");
                    assert!(
                        benches.is_dir(),
                        "{}: {package} has no benchmarks",
                        c.text()
                    );
                }
            }
        }
        "install" => {
            let path = c.cargo_flag("--path").expect("cargo install --path");
            assert!(
                root().join(path).join("Cargo.toml").is_file(),
                "{}",
                c.text()
            );
        }
        other => panic!("{}: cargo {other} is not checked", c.text()),
    }
}

#[test]
fn readme_cosched_commands_run_as_written() {
    let mut ran = 0;
    for c in readme::commands() {
        let Kind::Cosched(args) = kind(&c) else {
            continue;
        };
        if needs_a_cluster(&args) {
            let sub: Vec<String> = args
                .iter()
                .take_while(|a| !a.starts_with('-'))
                .cloned()
                .collect();
            let mut help_args = sub.clone();
            help_args.push("--help".into());
            let help = cosched(&root(), &help_args);
            assert!(
                help.status.success(),
                "{}: `cosched {}` does not exist",
                c.text(),
                sub.join(" ")
            );
            let help = String::from_utf8_lossy(&help.stdout);
            for flag in long_flags(&args) {
                assert!(
                    help.contains(flag),
                    "{}: no {flag} in `cosched {} --help`",
                    c.text(),
                    sub.join(" ")
                );
            }
            continue;
        }
        let sandbox = tempfile::tempdir().unwrap();
        stage_inputs(sandbox.path(), &args);
        let out = cosched(sandbox.path(), &args);
        assert!(
            out.status.success(),
            "{}\nfailed: {}",
            c.text(),
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(file) = &c.stdout_to {
            std::fs::write(sandbox.path().join(file), &out.stdout).unwrap();
        }
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} commands ran");
}
