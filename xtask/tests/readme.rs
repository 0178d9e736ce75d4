//! The README's `cargo xtask …` commands name subcommands and flags that exist. They are
//! checked against `--help`, not run: `reproduce` builds and runs every example in release
//! (tens of minutes on 2 cores) and `slurm up` installs and starts daemons as root; `.ci/run`
//! runs both for real.

#[path = "../../crates/cli/tests/support/readme.rs"]
mod readme;

use readme::{Kind, kind, long_flags};
use std::process::Command;

#[test]
fn readme_xtask_commands_exist_with_their_flags() {
    let mut checked = 0;
    for c in readme::commands() {
        let Kind::Xtask(args) = kind(&c) else {
            continue;
        };
        let sub: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .take_while(|a| !a.starts_with('-'))
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(&sub)
            .arg("--help")
            .output()
            .expect("xtask runs");
        assert!(
            out.status.success(),
            "{}: `cargo xtask {}` does not exist",
            c.text(),
            sub.join(" ")
        );
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in long_flags(&args) {
            assert!(help.contains(flag), "{}: no {flag} in its --help", c.text());
        }
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} xtask commands in the README");
}
