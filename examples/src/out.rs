//! An example's output directory: where its tables and plots go.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::claims::CLAIMS_FILE;
use crate::{Claims, Error, Figure, Result, Table};

/// The Markdown file holding an example's tables, in its output directory.
pub const TABLE_FILE: &str = "table.md";

/// An example's output directory, created on construction.
///
/// It receives `table.md` (every table written, in order) with one `<name>.csv` per table, and
/// one `<file>.svg` per plot: the layout `cargo xtask reproduce` collects into its report.
#[derive(Debug)]
pub struct OutDir {
    path: PathBuf,
    tables: Vec<String>,
}

impl OutDir {
    /// Creates `path` and its parents if missing.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`.
    pub fn create(path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        Ok(OutDir {
            path,
            tables: Vec::new(),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
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
        let md = self.path.join(TABLE_FILE);
        let mut file = OpenOptions::new()
            .create(true)
            .write(true)
            .append(!self.tables.is_empty())
            .truncate(self.tables.is_empty())
            .open(&md)
            .map_err(|e| Error::io(&md, e))?;
        let separator = if self.tables.is_empty() { "" } else { "\n" };
        write!(file, "{separator}{section}").map_err(|e| Error::io(&md, e))?;
        table.write_csv(&self.path.join(format!("{}.csv", table.name())))?;
        self.tables.push(table.name().to_owned());
        Ok(())
    }

    /// Prints the checked claims as the "Paper claims" table (also added to `table.md`, with
    /// `claims.csv`) and writes them to `claims.json` for `cargo xtask reproduce`'s totals.
    ///
    /// # Errors
    /// As [`OutDir::write_table`]; [`Error::Io`] naming `claims.json`.
    pub fn write_claims(&mut self, claims: &Claims) -> Result<()> {
        self.write_table(&claims.table())?;
        let path = self.path.join(CLAIMS_FILE);
        let json = serde_json::to_string_pretty(claims).map_err(std::io::Error::other);
        json.and_then(|j| fs::write(&path, j + "\n"))
            .map_err(|e| Error::io(&path, e))
    }

    /// Renders `figure` to `<file>.svg` here; returns the file's path.
    ///
    /// # Errors
    /// [`Error::Plot`] if drawing fails, [`Error::Io`] if writing does; both name the file.
    pub fn write_plot(&self, figure: &impl Figure) -> Result<PathBuf> {
        let path = self.path.join(format!("{}.svg", figure.file_stem()));
        let svg = figure.render_svg().map_err(|source| Error::Plot {
            path: path.clone(),
            source,
        })?;
        fs::write(&path, svg).map_err(|e| Error::io(&path, e))?;
        Ok(path)
    }
}
