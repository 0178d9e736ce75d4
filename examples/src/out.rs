//! An example's output directory: where its tables and plots go.
//!
//! Nothing an example writes replaces a file until the example has succeeded: each file is
//! staged beside its target ([`cosched_workload::output::Staged`]) and moved into place when
//! [`crate::main_with`] (or [`crate::exit`]) sees `run` return `Ok`, so a run that fails
//! halfway leaves the previous run's outputs whole; and no output may replace a file named on
//! the command line (an input given by `--trace`, `--swf`, … inside the output directory).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use cosched_workload::output::{Staged, is_regular_file, same_file};

use crate::claims::CLAIMS_FILE;
use crate::{Claims, Error, Figure, Result, Table};

/// The Markdown file holding an example's tables, in its output directory.
pub const TABLE_FILE: &str = "table.md";

/// The file saying how the outputs beside it were made (`{"mode": "full" | "quick",
/// "args": [...]}`), so `cargo xtask reproduce --collect-only` can combine the outputs of
/// different runs and say which run each claim came from.
pub const RUN_FILE: &str = "run.json";

/// Files of output directories dropped uncommitted, waiting for the run's outcome
/// ([`finish`]).
static PENDING: Mutex<Vec<Staged>> = Mutex::new(Vec::new());

/// Ends the run's outputs: on success every staged file moves into place; otherwise they are
/// removed and the previous files stay.
///
/// # Errors
/// [`Error::Io`] naming a file that could not be moved into place.
pub(crate) fn finish(success: bool) -> Result<()> {
    let staged = std::mem::take(&mut *PENDING.lock().unwrap_or_else(PoisonError::into_inner));
    if success {
        commit_all(staged)?;
    }
    Ok(())
}

fn commit_all(staged: Vec<Staged>) -> Result<()> {
    for file in staged {
        let path = file.path().to_path_buf();
        file.commit().map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// The command-line argument naming an existing file that `path` is, if any: a flag's value
/// (`--swf FILE` or `--swf=FILE`) or a positional argument.
fn command_line_file(path: &Path) -> Option<String> {
    std::env::args_os().skip(1).find_map(|arg| {
        let text = arg.to_string_lossy().into_owned();
        let value = match text.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => PathBuf::from(value),
            _ => PathBuf::from(&arg),
        };
        (is_regular_file(&value) && same_file(&value, path)).then_some(text)
    })
}

/// `args` without `--out DIR` (or `--out=DIR`).
fn run_args(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut kept = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--out" {
            args.next();
        } else if !arg.starts_with("--out=") {
            kept.push(arg);
        }
    }
    kept
}

/// An example's output directory, created on construction.
///
/// It receives `table.md` (every table written, in order) with one `<name>.csv` per table, and
/// one `<file>.svg` per plot: the layout `cargo xtask reproduce` collects into its report.
#[derive(Debug)]
pub struct OutDir {
    path: PathBuf,
    tables: Vec<String>,
    /// `table.md` as written so far.
    markdown: String,
    /// The files written, not moved into place yet (by file name).
    staged: Vec<(String, Staged)>,
}

impl OutDir {
    /// Creates `path` and its parents if missing.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`.
    pub fn create(path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        std::fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        Ok(OutDir {
            path,
            tables: Vec::new(),
            markdown: String::new(),
            staged: Vec::new(),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` as the file `name` here (staged until the run succeeds: see [`OutDir`]);
    /// returns its path. Writing one name again replaces what was staged for it.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file; [`Error::Input`] if the file is one named on the command
    /// line (an input).
    pub fn write_file(&mut self, name: &str, bytes: &[u8]) -> Result<PathBuf> {
        use std::io::Write as _;
        let path = self.path.join(name);
        if let Some(arg) = command_line_file(&path) {
            return Err(Error::Input {
                path,
                problem: format!(
                    "it is `{arg}` on the command line; an output never replaces an input \
                     (choose another --out)"
                ),
            });
        }
        let mut file = Staged::create(&path).map_err(|e| Error::io(&path, e))?;
        file.write_all(bytes).map_err(|e| Error::io(&path, e))?;
        self.staged.retain(|(n, _)| n != name);
        self.staged.push((name.to_owned(), file));
        Ok(path)
    }

    /// Moves every file written here into place now (what [`crate::main_with`] does for
    /// an output directory dropped when `run` succeeds).
    ///
    /// # Errors
    /// [`Error::Io`] naming a file that could not be moved into place.
    pub fn commit(mut self) -> Result<()> {
        commit_all(self.staged.drain(..).map(|(_, f)| f).collect())
    }

    /// Prints `table` (title, notes, grid) to stdout, adds it to `table.md` and writes
    /// `<name>.csv`.
    ///
    /// The first table written by this `OutDir` replaces any `table.md` from an earlier run;
    /// later ones are appended after a blank line.
    ///
    /// # Errors
    /// [`Error::Stdout`] if stdout cannot be written, [`Error::Io`] naming `table.md`, or
    /// [`Error::Csv`] naming the CSV file.
    ///
    /// # Panics
    /// If a table of the same name was already written here (its CSV would be overwritten).
    pub fn write_table(&mut self, table: &Table) -> Result<()> {
        assert!(
            !self.tables.iter().any(|name| name == table.name()),
            "table `{}` written twice to `{}`",
            table.name(),
            self.path.display()
        );
        let section = table.section();
        crate::write_stdout(format_args!("{section}"))?;
        if !self.tables.is_empty() {
            self.markdown.push('\n');
        }
        self.markdown.push_str(&section);
        let markdown = std::mem::take(&mut self.markdown);
        let written = self.write_file(TABLE_FILE, markdown.as_bytes());
        self.markdown = markdown;
        written?;
        self.write_csv(table)?;
        self.tables.push(table.name().to_owned());
        Ok(())
    }

    /// Writes `table` as `<name>.csv` only (a long grid that `table.md` leaves out).
    ///
    /// # Errors
    /// [`Error::Csv`] or [`Error::Io`] naming the CSV file.
    pub fn write_csv(&mut self, table: &Table) -> Result<()> {
        let name = format!("{}.csv", table.name());
        let bytes = table.to_csv().map_err(|source| Error::Csv {
            path: self.path.join(&name),
            source,
        })?;
        self.write_file(&name, &bytes).map(drop)
    }

    /// Prints the checked claims as the "Paper claims" table (also added to `table.md`, with
    /// `claims.csv`) and writes them to `claims.json` for `cargo xtask reproduce`'s totals.
    ///
    /// # Errors
    /// As [`OutDir::write_table`]; [`Error::Io`] naming `claims.json`.
    pub fn write_claims(&mut self, claims: &Claims) -> Result<()> {
        self.write_table(&claims.table())?;
        let path = self.path.join(CLAIMS_FILE);
        let json = serde_json::to_string_pretty(claims)
            .map_err(|e| Error::io(&path, std::io::Error::other(e)))?;
        self.write_file(CLAIMS_FILE, (json + "\n").as_bytes())
            .map(drop)
    }

    /// Writes [`RUN_FILE`]: the mode (`quick` or `full`) and the command-line arguments but
    /// `--out DIR`, which say nothing of the results (flags such as `--seeds 1` do).
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn write_run(&mut self, quick: bool) -> Result<()> {
        let args = run_args(
            std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned()),
        );
        let run = serde_json::json!({
            "mode": if quick { "quick" } else { "full" },
            "args": args,
        });
        let path = self.path.join(RUN_FILE);
        let json = serde_json::to_string_pretty(&run)
            .map_err(|e| Error::io(&path, std::io::Error::other(e)))?;
        self.write_file(RUN_FILE, (json + "\n").as_bytes())
            .map(drop)
    }

    /// Renders `figure` to `<file>.svg` here; returns the file's path.
    ///
    /// # Errors
    /// [`Error::Plot`] if drawing fails, [`Error::Io`] if writing does; both name the file.
    pub fn write_plot(&mut self, figure: &impl Figure) -> Result<PathBuf> {
        let name = format!("{}.svg", figure.file_stem());
        let svg = figure.render_svg().map_err(|source| Error::Plot {
            path: self.path.join(&name),
            source,
        })?;
        self.write_file(&name, svg.as_bytes())
    }
}

impl Drop for OutDir {
    /// Hands the files not committed to the run's outcome (moved into place, or removed, when
    /// the example's `run` returns).
    fn drop(&mut self) {
        let staged = self.staged.drain(..).map(|(_, f)| f);
        PENDING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(staged);
    }
}

#[cfg(test)]
mod tests {
    use super::run_args;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn the_run_file_keeps_every_argument_but_the_output_directory() {
        let args = strings(&["--quick", "--out", "d", "--seeds", "1", "--out=e", "x"]);
        assert_eq!(run_args(args), ["--quick", "--seeds", "1", "x"]);
        assert!(run_args(strings(&["--out"])).is_empty());
    }
}
