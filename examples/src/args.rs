//! The command-line options every example shares.

use std::path::PathBuf;

use clap::Args;

use crate::{OutDir, Result};

/// Options common to every example: flatten into the example's own parser.
///
/// ```
/// use clap::Parser;
/// use cosched_examples::CommonArgs;
///
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     common: CommonArgs,
/// }
///
/// let cli = Cli::parse_from(["demo", "--quick", "--seed", "7"]);
/// assert!(cli.common.quick);
/// assert_eq!(cli.common.seed, 7);
/// assert_eq!(cli.common.out_dir("demo"), std::path::Path::new("target/figures/demo"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct CommonArgs {
    /// Run a small configuration (for CI): finishes well under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Directory for table.md, the CSV files and the plots [default: target/figures/EXAMPLE_NAME].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of every random stream of the example.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
}

impl CommonArgs {
    /// The output directory: `--out` if given, else `target/figures/<example>`.
    pub fn out_dir(&self, example: &str) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| PathBuf::from("target/figures").join(example))
    }

    /// Creates the output directory of `example` (see [`CommonArgs::out_dir`]).
    ///
    /// # Errors
    /// [`crate::Error::Io`] naming the directory when it cannot be created.
    pub fn output(&self, example: &str) -> Result<OutDir> {
        OutDir::create(self.out_dir(example))
    }
}
