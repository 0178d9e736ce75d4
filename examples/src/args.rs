//! The command-line options every example shares, and validated parsers for the flags examples
//! add (counts of seeds, jobs and units): nothing an example allocates or loops over is taken
//! from the command line unchecked.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use cosched_core::seed::replicate_seeds;

use crate::{Error, OutDir, Result};

/// The most seeds (replicates) a flag may ask for.
pub const MAX_SEEDS: u64 = 10_000;

/// The most jobs a flag may ask an example to generate (each job is held in memory).
pub const MAX_JOBS: usize = 10_000_000;

/// Options common to every example: flatten into the example's own parser (see
/// [`CommonArgs::out_dir`] for an example).
///
/// `about = None` keeps this comment out of the examples' `--help`, which would otherwise
/// show it (clap gives a flattened struct's doc to the command) instead of the example's own.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
#[command(about = None, long_about = None)]
pub struct CommonArgs {
    /// Run a small configuration (for CI): finishes well under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Directory for table.md, the CSV files and the plots [default: target/figures/EXAMPLE_NAME].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of every random stream of the example (the first seed when it runs several).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
}

impl CommonArgs {
    /// The output directory: `--out` if given, else `target/figures/<example>`.
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
    pub fn out_dir(&self, example: &str) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| PathBuf::from("target/figures").join(example))
    }

    /// Creates the output directory of `example` (see [`CommonArgs::out_dir`]) and records
    /// the run's mode and arguments in it ([`OutDir::write_run`]).
    ///
    /// # Errors
    /// [`crate::Error::Io`] naming the directory when it cannot be created, or the run file
    /// when it cannot be written.
    pub fn output(&self, example: &str) -> Result<OutDir> {
        let mut out = OutDir::create(self.out_dir(example))?;
        out.write_run(self.quick)?;
        Ok(out)
    }

    /// `count` seeds starting at `--seed` ([`Seeds::new`]).
    ///
    /// # Errors
    /// [`Error::Flag`] when `count` is 0 or above [`MAX_SEEDS`].
    pub fn seeds(&self, count: u64) -> Result<Seeds> {
        Seeds::new(self.seed, count)
    }
}

/// A validated range of replicate seeds: `count` (1 to [`MAX_SEEDS`]) seeds from `first`,
/// wrapping past `u64::MAX` ([`replicate_seeds`]), so `--seed 18446744073709551615` runs as
/// many seeds as asked, never none.
///
/// ```
/// use cosched_examples::Seeds;
/// let seeds = Seeds::new(u64::MAX, 3)?;
/// assert_eq!(seeds.iter().collect::<Vec<_>>(), vec![u64::MAX, 0, 1]);
/// assert_eq!(seeds.to_string(), "3 seeds from 18446744073709551615");
/// assert!(Seeds::new(1, 0).is_err());
/// # Ok::<(), cosched_examples::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeds {
    first: u64,
    count: u64,
}

impl Seeds {
    /// `count` seeds from `first`.
    ///
    /// # Errors
    /// [`Error::Flag`] (`--seeds`) when `count` is 0 or above [`MAX_SEEDS`].
    pub fn new(first: u64, count: u64) -> Result<Seeds> {
        if count == 0 || count > MAX_SEEDS {
            return Err(Error::Flag {
                flag: "--seeds",
                value: count.to_string(),
                expected: format!("a number of seeds in 1..={MAX_SEEDS}"),
            });
        }
        Ok(Seeds { first, count })
    }

    /// The first seed.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// How many seeds (at least 1).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The seeds, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + Clone + use<> {
        replicate_seeds(self.first, self.count)
    }
}

impl fmt::Display for Seeds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.count {
            1 => write!(f, "seed {}", self.first),
            n => write!(f, "{n} seeds from {}", self.first),
        }
    }
}

/// Parses a count in `1..=max`, for clap's `value_parser`.
fn count_in<T>(text: &str, max: T, what: &str) -> std::result::Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8> + fmt::Display + Copy,
{
    match text.parse::<T>() {
        Ok(n) if n >= T::from(1) && n <= max => Ok(n),
        _ => Err(format!("expected {what} in 1..={max}")),
    }
}

/// Parses `--seeds N`: 1 to [`MAX_SEEDS`]. Use as
/// `#[arg(long, value_parser = cosched_examples::parse_seed_count)]`.
///
/// ```
/// assert_eq!(cosched_examples::parse_seed_count("3"), Ok(3));
/// assert!(cosched_examples::parse_seed_count("0").is_err());
/// assert!(cosched_examples::parse_seed_count("1e9").is_err());
/// ```
pub fn parse_seed_count(text: &str) -> std::result::Result<u64, String> {
    count_in(text, MAX_SEEDS, "a number of seeds")
}

/// Parses a job count: 1 to [`MAX_JOBS`].
///
/// ```
/// assert_eq!(cosched_examples::parse_job_count("3000"), Ok(3000));
/// assert!(cosched_examples::parse_job_count("0").is_err());
/// assert!(cosched_examples::parse_job_count("100000000").is_err());
/// ```
pub fn parse_job_count(text: &str) -> std::result::Result<usize, String> {
    count_in(text, MAX_JOBS, "a number of jobs")
}

/// Parses a machine size in units or nodes: 1 to `u32::MAX`.
///
/// ```
/// assert_eq!(cosched_examples::parse_units("256"), Ok(256));
/// assert!(cosched_examples::parse_units("0").is_err());
/// ```
pub fn parse_units(text: &str) -> std::result::Result<u32, String> {
    count_in(text, u32::MAX, "a number of units")
}
