//! `cosched classad`: evaluate ClassAd expressions and match job and machine ads, with
//! HTCondor's semantics (`cosched_classad`).

use clap::{Args, Subcommand};
use cosched_classad::{ClassAd, Expr, ParseError, Value, match_ads};
use std::path::PathBuf;
use thiserror::Error;

/// Arguments of `cosched classad`.
#[derive(Args)]
pub struct ClassadArgs {
    #[command(subcommand)]
    command: ClassadCommand,
}

#[derive(Subcommand)]
enum ClassadCommand {
    /// Evaluate one expression and print its value in ClassAd notation.
    Eval(EvalArgs),
    /// Match a job ad against a machine ad; print the outcome and both ranks.
    Match(MatchArgs),
}

#[derive(Args)]
struct EvalArgs {
    /// The expression, e.g. 'TARGET.Memory >= 2048 && MY.Owner == "alice"'.
    #[arg(value_name = "EXPR")]
    expr: String,
    /// The ad the expression belongs to (MY), as ClassAd text `[ a = 1; b = "x" ]` or @FILE
    /// [default: an empty ad].
    #[arg(long, value_name = "AD")]
    my: Option<String>,
    /// The other ad (TARGET), as ClassAd text or @FILE [default: none].
    #[arg(long, value_name = "AD")]
    target: Option<String>,
    /// Print reals and strings in the old ClassAd syntax `condor_q -l` uses (`2.5`, not
    /// `2.500000000000000E+00`).
    #[arg(long)]
    old_syntax: bool,
}

#[derive(Args)]
struct MatchArgs {
    /// The job ad, as ClassAd text `[ Requirements = …; Rank = … ]` or @FILE.
    #[arg(value_name = "JOB_AD")]
    job: String,
    /// The machine ad, as ClassAd text or @FILE.
    #[arg(value_name = "MACHINE_AD")]
    machine: String,
}

/// What can go wrong in `cosched classad`.
#[derive(Debug, Error)]
pub enum ClassadError {
    /// An expression or ad does not parse.
    #[error("{what}: {source}")]
    Parse {
        /// Which argument.
        what: String,
        /// Where and why.
        source: ParseError,
    },
    /// An `@FILE` ad could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// Reads an ad argument: inline text, or `@FILE`.
fn read_ad(arg: &str, what: &str) -> Result<ClassAd, ClassadError> {
    let (text, what) = match arg.strip_prefix('@') {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| ClassadError::Read {
                path: path.into(),
                message: e.to_string(),
            })?;
            (text, format!("{what} ({path})"))
        }
        None => (arg.to_owned(), what.to_owned()),
    };
    ClassAd::parse(&text).map_err(|source| ClassadError::Parse { what, source })
}

/// Runs the command, returning what to print on standard output.
pub fn run(args: &ClassadArgs) -> Result<String, ClassadError> {
    match &args.command {
        ClassadCommand::Eval(a) => eval(a),
        ClassadCommand::Match(a) => matchmake(a),
    }
}

fn eval(args: &EvalArgs) -> Result<String, ClassadError> {
    let expr = Expr::parse(&args.expr).map_err(|source| ClassadError::Parse {
        what: "expression".to_owned(),
        source,
    })?;
    let my = match &args.my {
        Some(a) => read_ad(a, "--my ad")?,
        None => ClassAd::new(),
    };
    let target = args
        .target
        .as_deref()
        .map(|a| read_ad(a, "--target ad"))
        .transpose()?;
    let value = my.eval(&expr, target.as_ref());
    Ok(if args.old_syntax {
        format!("{}\n", value.old_syntax())
    } else {
        format!("{value}\n")
    })
}

fn matchmake(args: &MatchArgs) -> Result<String, ClassadError> {
    let job = read_ad(&args.job, "job ad")?;
    let machine = read_ad(&args.machine, "machine ad")?;
    let m = match_ads(&job, &machine);
    let requirements = |v: &Value| v.to_string();
    Ok(format!(
        "matched               {}\n\
         job Requirements      {}\n\
         machine Requirements  {}\n\
         job Rank              {}\n\
         machine Rank          {}\n",
        if m.matched { "yes" } else { "no" },
        requirements(&m.job_requirements),
        requirements(&m.machine_requirements),
        m.job_rank,
        m.machine_rank,
    ))
}
