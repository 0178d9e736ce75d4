//! Result tables: aligned Markdown for stdout and `table.md`, CSV for re-use.

use std::fmt;

/// One cell of a [`Table`].
///
/// Numbers are right-aligned in Markdown; [`Cell::Empty`] marks a number the paper does not
/// give and renders as `-` (empty in CSV). A float that is NaN (a mean of no runs) renders as
/// `n/a` (empty in CSV), never as a number.
///
/// ```
/// use cosched_examples::Cell;
/// assert_eq!(Cell::fixed(2.0 / 3.0, 2).to_string(), "0.67");
/// assert_eq!(Cell::paper(None, 1).to_string(), "-");
/// assert_eq!(Cell::from(None::<u32>).to_string(), "-");
/// assert_eq!(Cell::from(Some(12)).to_string(), "12");
/// assert_eq!(Cell::fixed(f64::NAN, 2).to_string(), "n/a");
/// assert_eq!(Cell::fixed(f64::NAN, 2).csv_field(), "");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Free text, left-aligned.
    Text(String),
    /// An integer.
    Int(i128),
    /// A float shown with a fixed number of decimals.
    Float {
        /// The value.
        value: f64,
        /// Digits after the decimal point.
        decimals: usize,
    },
    /// No value, e.g. where the paper gives no number.
    Empty,
}

impl Cell {
    /// A float shown with `decimals` digits after the decimal point.
    pub fn fixed(value: f64, decimals: usize) -> Self {
        Cell::Float { value, decimals }
    }

    /// A paper's number with `decimals` digits, or [`Cell::Empty`] where it gives none.
    pub fn paper(value: Option<f64>, decimals: usize) -> Self {
        value.map_or(Cell::Empty, |v| Cell::fixed(v, decimals))
    }

    /// Whether the cell holds a number (integer or float).
    pub fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Float { .. })
    }

    /// The cell's CSV field: as displayed, but empty for [`Cell::Empty`].
    pub fn csv_field(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Float { value, .. } if value.is_nan() => String::new(),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Text(text) => f.write_str(text),
            Cell::Int(n) => write!(f, "{n}"),
            Cell::Float { value, .. } if value.is_nan() => f.write_str("n/a"),
            Cell::Float { value, decimals } => {
                let text = format!("{value:.decimals$}");
                // A value that rounds to zero prints unsigned: "-0.0" reads as a defect.
                match text.strip_prefix('-') {
                    Some(unsigned) if unsigned.bytes().all(|b| b == b'0' || b == b'.') => {
                        f.write_str(unsigned)
                    }
                    _ => f.write_str(&text),
                }
            }
            Cell::Empty => f.write_str("-"),
        }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell::Text(text.to_owned())
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell::Text(text)
    }
}

macro_rules! int_cells {
    ($($t:ty),*) => {$(
        impl From<$t> for Cell {
            fn from(n: $t) -> Self {
                Cell::Int(i128::from(n))
            }
        }
    )*};
}
int_cells!(i32, i64, u32, u64);

impl From<usize> for Cell {
    fn from(n: usize) -> Self {
        Cell::Int(n as i128)
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(value: Option<T>) -> Self {
        value.map_or(Cell::Empty, Into::into)
    }
}

/// A titled table of results: column headers and rows of [`Cell`]s.
///
/// Put ours beside the paper's: a column per measured quantity, and a "paper" column next to
/// it whose cells are [`Cell::Empty`] where the paper gives no number. Write it with
/// [`crate::OutDir::write_table`], which prints it and stores it as `table.md` and
/// `<name>.csv`.
///
/// ```
/// use cosched_examples::{Cell, Table};
/// let mut table = Table::new("waits", "Mean wait", ["policy", "ours (s)", "paper (s)"]);
/// table.row(["EASY".into(), Cell::fixed(12.345, 1), Cell::paper(Some(12.0), 1)]);
/// table.row(["FCFS".into(), Cell::fixed(101.0, 1), Cell::paper(None, 1)]);
/// assert_eq!(
///     table.markdown(),
///     "| policy | ours (s) | paper (s) |\n\
///      | ------ | -------: | --------: |\n\
///      | EASY   |     12.3 |      12.0 |\n\
///      | FCFS   |    101.0 |         - |\n"
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    name: String,
    title: String,
    notes: Option<String>,
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table with these column headers.
    ///
    /// `name` names its CSV file (`<name>.csv`), so it must be a valid file stem and distinct
    /// among the tables of one example; `title` heads it in `table.md`.
    pub fn new(
        name: impl Into<String>,
        title: impl Into<String>,
        columns: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Table {
            name: name.into(),
            title: title.into(),
            notes: None,
            columns: columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a notes paragraph under the title, e.g. where the paper's numbers come from.
    pub fn with_notes(mut self, notes: impl Into<String>) -> Self {
        self.notes = Some(notes.into());
        self
    }

    /// Appends a row.
    ///
    /// # Panics
    /// If the row's length differs from the number of columns.
    pub fn row(&mut self, cells: impl IntoIterator<Item = Cell>) -> &mut Self {
        let row: Vec<Cell> = cells.into_iter().collect();
        assert_eq!(
            row.len(),
            self.columns.len(),
            "table `{}`: a row has {} cells for {} columns",
            self.name,
            row.len(),
            self.columns.len()
        );
        self.rows.push(row);
        self
    }

    /// The table's name, the stem of its CSV file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The aligned Markdown grid: header, alignment row (numeric columns right-aligned), rows.
    pub fn markdown(&self) -> String {
        let header: Vec<String> = self.columns.iter().map(|c| escape(c)).collect();
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|row| row.iter().map(|cell| escape(&cell.to_string())).collect())
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|col| {
                body.iter()
                    .map(|row| width(&row[col]))
                    .chain([width(&header[col]), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let numeric: Vec<bool> = (0..header.len())
            .map(|col| {
                let mut cells = self.rows.iter().map(|row| &row[col]);
                cells.all(|c| c.is_number() || *c == Cell::Empty)
                    && self.rows.iter().any(|row| row[col].is_number())
            })
            .collect();
        let rule: Vec<String> = widths
            .iter()
            .zip(&numeric)
            .map(|(&w, &right)| {
                if right {
                    format!("{}:", "-".repeat(w - 1))
                } else {
                    "-".repeat(w)
                }
            })
            .collect();
        let mut out = line(&header, &widths, &vec![false; widths.len()]);
        out.push_str(&line(&rule, &widths, &numeric));
        for row in &body {
            out.push_str(&line(row, &widths, &numeric));
        }
        out
    }

    /// The table's section of `table.md`: a `###` title line, the notes if any, the grid.
    pub fn section(&self) -> String {
        let mut out = format!("### {}\n\n", self.title);
        if let Some(notes) = &self.notes {
            out.push_str(notes);
            out.push_str("\n\n");
        }
        out.push_str(&self.markdown());
        out
    }

    /// The table as CSV (header row, then the rows as displayed).
    ///
    /// # Errors
    /// The CSV writer's error.
    pub fn to_csv(&self) -> std::result::Result<Vec<u8>, csv::Error> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(&self.columns)?;
        for row in &self.rows {
            writer.write_record(row.iter().map(Cell::csv_field))?;
        }
        writer
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))
    }
}

/// Escapes the Markdown cell separator.
fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

/// Display width, counted in characters.
fn width(text: &str) -> usize {
    text.chars().count()
}

/// One `| a | b |` line, each cell padded to its column's width.
fn line(cells: &[String], widths: &[usize], right: &[bool]) -> String {
    let padded: Vec<String> = cells
        .iter()
        .zip(widths.iter().zip(right))
        .map(|(cell, (&w, &right))| {
            if right {
                format!("{cell:>w$}")
            } else {
                format!("{cell:<w$}")
            }
        })
        .collect();
    format!("| {} |\n", padded.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::Cell;

    #[test]
    fn a_value_rounding_to_zero_prints_unsigned() {
        assert_eq!(Cell::fixed(-0.01, 1).to_string(), "0.0");
        assert_eq!(Cell::fixed(-0.0, 0).to_string(), "0");
        assert_eq!(Cell::fixed(-0.06, 1).to_string(), "-0.1");
        assert_eq!(Cell::fixed(-12.0, 0).to_string(), "-12");
    }
}
