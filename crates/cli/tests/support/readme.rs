//! The shell commands of the workspace's README, as a reader would type them: every line of
//! its `sh` (and unlabelled) code blocks, continuation lines joined, comments dropped, split at
//! `&&`, each split into words as a POSIX shell would (quotes, backslashes, `> FILE`).
//!
//! Shared by the tests that run or check them (`crates/cli/tests/readme.rs`, the examples'
//! and xtask's), so the README cannot drift from the commands it shows.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// One command of the README.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadmeCommand {
    /// Its line in the README (from 1).
    pub line: usize,
    /// The words, quotes removed.
    pub words: Vec<String>,
    /// `> FILE`: where its standard output goes.
    pub stdout_to: Option<String>,
    /// Whether it ends with `&` (a service left running).
    pub background: bool,
}

impl ReadmeCommand {
    /// The command as the README writes it, for messages.
    pub fn text(&self) -> String {
        format!("README.md:{}: {}", self.line, self.words.join(" "))
    }

    /// The words after the first `--` (the program's own arguments under `cargo run`).
    pub fn after_dashes(&self) -> Option<&[String]> {
        let i = self.words.iter().position(|w| w == "--")?;
        Some(&self.words[i + 1..])
    }

    /// The value of `flag` (`-p`, `--example`) before any `--`.
    pub fn cargo_flag(&self, flag: &str) -> Option<&str> {
        let end = self
            .words
            .iter()
            .position(|w| w == "--")
            .unwrap_or(self.words.len());
        let words = &self.words[..end];
        words
            .iter()
            .position(|w| w == flag)
            .and_then(|i| words.get(i + 1))
            .map(String::as_str)
    }
}

/// What a command runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `cosched ARGS` or `cargo run … -p cosched-cli -- ARGS`: the arguments.
    Cosched(Vec<String>),
    /// `cargo run … --example NAME [-- ARGS]`.
    Example(String, Vec<String>),
    /// `cargo xtask ARGS`.
    Xtask(Vec<String>),
    /// Another cargo command (`test`, `bench`, `install`): its words after `cargo`.
    Cargo(Vec<String>),
    /// A command of another program (`curl`, `source`): its words.
    Other(Vec<String>),
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|p| p.join("README.md").is_file() && p.join("Cargo.lock").is_file())
        .expect("the workspace root holds README.md and Cargo.lock")
        .to_path_buf()
}

/// Every command of the README.
pub fn commands() -> Vec<ReadmeCommand> {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md reads");
    parse(&text)
}

/// What `command` runs.
pub fn kind(command: &ReadmeCommand) -> Kind {
    let w = &command.words;
    let rest = |from: usize| w[from..].to_vec();
    match w.first().map(String::as_str) {
        Some("cosched") => Kind::Cosched(rest(1)),
        Some("cargo") if w.get(1).map(String::as_str) == Some("run") => {
            match command.cargo_flag("--example") {
                Some(name) => Kind::Example(
                    name.to_string(),
                    command
                        .after_dashes()
                        .map(<[String]>::to_vec)
                        .unwrap_or_default(),
                ),
                None => Kind::Cosched(
                    command
                        .after_dashes()
                        .map(<[String]>::to_vec)
                        .unwrap_or_default(),
                ),
            }
        }
        Some("cargo") if w.get(1).map(String::as_str) == Some("xtask") => Kind::Xtask(rest(2)),
        Some("cargo") => Kind::Cargo(rest(1)),
        _ => Kind::Other(w.clone()),
    }
}

/// The `--long` flags among `args`.
pub fn long_flags(args: &[String]) -> Vec<&str> {
    args.iter()
        .filter(|a| a.starts_with("--") && a.len() > 2)
        .map(|a| a.split('=').next().unwrap_or(a))
        .collect()
}

/// The commands of `readme`'s shell blocks.
pub fn parse(readme: &str) -> Vec<ReadmeCommand> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut shell = false;
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in readme.lines().enumerate() {
        let n = n + 1;
        if let Some(info) = line.trim_start().strip_prefix("```") {
            if in_block {
                in_block = false;
            } else {
                in_block = true;
                shell = matches!(info.trim(), "" | "sh" | "bash" | "shell");
            }
            continue;
        }
        if !(in_block && shell) {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((n, String::new()));
        let line = strip_comment(line);
        if let Some(head) = line.trim_end().strip_suffix('\\') {
            joined.push_str(head);
            joined.push(' ');
            pending = Some((start, joined));
            continue;
        }
        joined.push_str(&line);
        if joined.trim().is_empty() {
            continue;
        }
        let words = split_words(&joined);
        for part in words.split(|w| *w == Word::Op("&&".into())) {
            out.push(command(start, part));
        }
    }
    out
}

/// `line` without a `#` comment (a `#` at the start or after blank space, outside quotes).
fn strip_comment(line: &str) -> String {
    let mut quote: Option<char> = None;
    let mut prev_blank = true;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_blank => return line[..i].to_string(),
            _ => {}
        }
        prev_blank = c.is_whitespace();
    }
    line.to_string()
}

/// A word of a command line: text, or an unquoted operator (`&&`, `&`, `>`, `|`, `;`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Word {
    Text(String),
    Op(String),
}

/// One command: words, `> FILE` and a trailing `&`.
fn command(line: usize, words: &[Word]) -> ReadmeCommand {
    let mut texts = Vec::new();
    let mut stdout_to = None;
    let mut background = false;
    let mut iter = words.iter();
    while let Some(w) = iter.next() {
        match w {
            Word::Text(t) => texts.push(t.clone()),
            Word::Op(op) if op == ">" => {
                if let Some(Word::Text(file)) = iter.next() {
                    stdout_to = Some(file.clone());
                }
            }
            Word::Op(op) if op == "&" => background = true,
            // A pipe or a list the checks do not know: kept visible, so the command fails
            // its classification instead of running half of it.
            Word::Op(op) => texts.push(op.clone()),
        }
    }
    ReadmeCommand {
        line,
        words: texts,
        stdout_to,
        background,
    }
}

/// Words as a POSIX shell splits them: blanks separate, quotes group, `\` escapes, and
/// unquoted `&&`, `&`, `>`, `|`, `;` are operators.
fn split_words(text: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                quoted = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                quoted = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(finish(std::mem::take(&mut word), quoted));
                    in_word = false;
                    quoted = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(finish(word, quoted));
    }
    words
}

/// A finished word: an operator when unquoted and one of the shell's.
fn finish(word: String, quoted: bool) -> Word {
    if !quoted && matches!(word.as_str(), "&&" | "&" | ">" | "|" | ";") {
        Word::Op(word)
    } else {
        Word::Text(word)
    }
}

#[test]
fn readme_commands_parse_as_a_shell_would() {
    let text = "text\n```sh\ncargo run -p x -- a \\\n    --b 'c && d' # comment\n# a line of output\n\
                cosched e \"f g\" > out.txt\nup && source env\nserve --x &\n```\n```toml\nx = 1\n```\n";
    let got = parse(text);
    let words: Vec<Vec<&str>> = got
        .iter()
        .map(|c| c.words.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        words,
        [
            vec!["cargo", "run", "-p", "x", "--", "a", "--b", "c && d"],
            vec!["cosched", "e", "f g"],
            vec!["up"],
            vec!["source", "env"],
            vec!["serve", "--x"],
        ]
    );
    assert_eq!(got[0].line, 3);
    assert_eq!(got[1].stdout_to.as_deref(), Some("out.txt"));
    assert!(got[4].background);
    assert_eq!(
        kind(&got[0]),
        Kind::Cosched(vec!["a".into(), "--b".into(), "c && d".into()])
    );
}
