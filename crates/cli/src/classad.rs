//! `cosched classad`: evaluate ClassAd expressions and match job and machine ads, with
//! HTCondor's semantics (`cosched_classad`).
//!
//! Ads are ClassAd text or `@FILE`; a file may hold several ads in any format HTCondor's
//! tools print (`condor_status -long` / `condor_q -long`, `-json`, or new-syntax ads one after
//! another). A call of a function HTCondor does not define evaluates to `error`, as in
//! HTCondor, but is reported on standard error with where it is, so that a typo in a
//! `Requirements` does not silently match nothing.

use clap::{Args, Subcommand, ValueEnum};
use cosched_classad::read::{self, ReadError};
use cosched_classad::{
    ClassAd, EvalError, EvalOptions, Expr, FunctionSet, ParseError, UnknownFunction, Value,
    match_ads,
};
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
    /// Evaluate one expression and print its value in ClassAd notation (one line per ad when
    /// --my names a file of several ads).
    Eval(EvalArgs),
    /// Match a job ad against machine ads; print the outcome and both ranks. Exits with
    /// status 1 when no machine matches.
    Match(MatchArgs),
}

#[derive(Args)]
struct EvalArgs {
    /// The expression, e.g. 'TARGET.Memory >= 2048 && MY.Owner == "alice"' (it may begin
    /// with `-`: '-1.0/0').
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    expr: String,
    /// The ad the expression belongs to (MY), as ClassAd text `[ a = 1; b = "x" ]` or @FILE;
    /// with a file of several ads, the expression is evaluated in each [default: an empty ad].
    #[arg(long, value_name = "AD")]
    my: Option<String>,
    /// The other ad (TARGET), as ClassAd text or @FILE of one ad [default: none].
    #[arg(long, value_name = "AD")]
    target: Option<String>,
    /// Print reals and strings in the old ClassAd syntax `condor_q -l` uses (`2.5`, not
    /// `2.500000000000000E+00`).
    #[arg(long)]
    old_syntax: bool,
    #[command(flatten)]
    eval: EvalFlags,
}

#[derive(Args)]
struct MatchArgs {
    /// The job ad, as ClassAd text `[ Requirements = …; Rank = … ]` or @FILE of one ad.
    #[arg(value_name = "JOB_AD", allow_hyphen_values = true)]
    job: String,
    /// The machine ad, as ClassAd text, or @FILE of one or more ads (e.g. `condor_status
    /// -long` output).
    #[arg(value_name = "MACHINE_AD", allow_hyphen_values = true)]
    machine: String,
    #[command(flatten)]
    eval: EvalFlags,
}

/// Settings shared by `eval` and `match`.
#[derive(Args)]
struct EvalFlags {
    /// The time `time()` and `CurrentTime` return, in seconds since the Unix epoch
    /// [default: the system clock].
    #[arg(long, value_name = "SECONDS")]
    now: Option<i64>,
    /// Steps one evaluation may take before it stops with an error.
    #[arg(long, value_name = "STEPS", default_value_t = cosched_classad::DEFAULT_STEP_BUDGET)]
    step_budget: u64,
    /// The seed `random()` draws from [default: the system clock].
    #[arg(long, value_name = "SEED")]
    seed: Option<u64>,
    /// The functions calls see: `daemon`, as HTCondor's daemons evaluate (with `split`,
    /// `splitUserName`, `splitSlotName` and the `stringList*` functions they register), or
    /// `library`, as the bare ClassAd library (`classad2` without `htcondor2`), where those
    /// are `error`.
    #[arg(long, value_enum, default_value_t = Functions::Daemon)]
    functions: Functions,
}

/// `--functions`.
#[derive(Clone, Copy, ValueEnum)]
enum Functions {
    Daemon,
    Library,
}

impl EvalFlags {
    fn options(&self) -> EvalOptions {
        EvalOptions {
            step_budget: self.step_budget,
            now: self.now,
            seed: self.seed,
            functions: match self.functions {
                Functions::Daemon => FunctionSet::Daemon,
                Functions::Library => FunctionSet::Library,
            },
        }
    }
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
    /// A file of ads does not parse.
    #[error("{what}: {source}")]
    Read {
        /// Which argument.
        what: String,
        /// Where and why.
        source: Box<ReadError>,
    },
    /// An `@FILE` ad could not be opened.
    #[error("cannot read {path}: {message}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A file meant to hold one ad holds another number of them.
    #[error("{what}: expected one ad, found {found}")]
    NotOneAd {
        /// Which argument.
        what: String,
        /// How many ads the file holds.
        found: usize,
    },
    /// An evaluation exceeded its step budget.
    #[error("{what}: {source} (raise --step-budget to allow more)")]
    Budget {
        /// What was being evaluated.
        what: String,
        /// The budget.
        source: EvalError,
    },
    /// Standard output could not be written.
    #[error("cannot write to standard output: {0}")]
    Output(std::io::Error),
}

/// What a run prints, and whether it succeeded (`match` fails when nothing matched).
pub struct Outcome {
    /// Standard output.
    pub stdout: String,
    /// Exit status 0 (true) or 1.
    pub success: bool,
}

/// Reads an ad argument: inline text (one new-syntax ad) or `@FILE` (any number of ads, in
/// any format HTCondor's tools print).
fn read_ads(arg: &str, what: &str) -> Result<Vec<ClassAd>, ClassadError> {
    match arg.strip_prefix('@') {
        Some(path) => {
            let file = std::fs::File::open(path).map_err(|e| ClassadError::Open {
                path: path.into(),
                message: e.to_string(),
            })?;
            read::read_ads(std::io::BufReader::new(file)).map_err(|source| ClassadError::Read {
                what: format!("{what} ({path})"),
                source: Box::new(source),
            })
        }
        None => ClassAd::parse(arg)
            .map(|ad| vec![ad])
            .map_err(|source| ClassadError::Parse {
                what: what.to_owned(),
                source,
            }),
    }
}

fn read_one_ad(arg: &str, what: &str) -> Result<ClassAd, ClassadError> {
    let mut ads = read_ads(arg, what)?;
    if ads.len() != 1 {
        return Err(ClassadError::NotOneAd {
            what: what.to_owned(),
            found: ads.len(),
        });
    }
    Ok(ads.remove(0))
}

/// Why an unknown function is `error`.
fn unknown_reason(u: &UnknownFunction) -> &'static str {
    if u.htcondor_has_it {
        "it is HTCondor's but not provided here, so it evaluates to error"
    } else {
        "it evaluates to error, as in HTCondor"
    }
}

/// Warns on standard error about calls of functions HTCondor does not define (or that are
/// not provided here).
fn warn_unknown_in_expr(expr: &Expr, what: &str) {
    for u in expr.unknown_functions() {
        eprintln!(
            "warning: unknown function `{}` at line {}, column {} of {what}: {}",
            u.name,
            u.at.line,
            u.at.column,
            unknown_reason(&u)
        );
    }
}

fn warn_unknown_in_ads(ads: &[ClassAd], what: &str) {
    let mut seen = std::collections::BTreeSet::new();
    for ad in ads {
        for (attr, u) in ad.unknown_functions() {
            if seen.insert((attr.clone(), u.name.clone())) {
                eprintln!(
                    "warning: unknown function `{}` in attribute {attr} of {what} (column {} of its expression): {}",
                    u.name,
                    u.at.column,
                    unknown_reason(&u)
                );
            }
        }
    }
}

/// Writes a run's standard output to `out` and flushes it: a full disk or a closed pipe is an
/// error to report, not a panic.
pub fn deliver(stdout: &str, out: &mut dyn std::io::Write) -> Result<(), ClassadError> {
    out.write_all(stdout.as_bytes())
        .and_then(|()| out.flush())
        .map_err(ClassadError::Output)
}

/// Runs the command: what to print on standard output and whether it succeeded.
pub fn run(args: &ClassadArgs) -> Result<Outcome, ClassadError> {
    match &args.command {
        ClassadCommand::Eval(a) => eval(a).map(|stdout| Outcome {
            stdout,
            success: true,
        }),
        ClassadCommand::Match(a) => matchmake(a),
    }
}

fn eval(args: &EvalArgs) -> Result<String, ClassadError> {
    let expr = Expr::parse(&args.expr).map_err(|source| ClassadError::Parse {
        what: "expression".to_owned(),
        source,
    })?;
    warn_unknown_in_expr(&expr, "the expression");
    let mine = match &args.my {
        Some(a) => read_ads(a, "--my ad")?,
        None => vec![ClassAd::new()],
    };
    warn_unknown_in_ads(&mine, "the --my ad");
    let target = args
        .target
        .as_deref()
        .map(|a| read_one_ad(a, "--target ad"))
        .transpose()?;
    if let Some(t) = &target {
        warn_unknown_in_ads(std::slice::from_ref(t), "the --target ad");
    }
    let options = args.eval.options();
    let mut out = String::new();
    for my in &mine {
        let value = my
            .try_eval(&expr, target.as_ref(), &options)
            .map_err(|source| ClassadError::Budget {
                what: "expression".to_owned(),
                source,
            })?;
        if args.old_syntax {
            out.push_str(&format!("{}\n", value.old_syntax()));
        } else {
            out.push_str(&format!("{value}\n"));
        }
    }
    Ok(out)
}

fn matchmake(args: &MatchArgs) -> Result<Outcome, ClassadError> {
    let job = read_one_ad(&args.job, "job ad")?;
    let machines = read_ads(&args.machine, "machine ad")?;
    warn_unknown_in_ads(std::slice::from_ref(&job), "the job ad");
    warn_unknown_in_ads(&machines, "the machine ad");
    let options = args.eval.options();
    // The requirements are checked under the budget first: an ad that exceeds it is an error,
    // not a silent mismatch.
    for machine in &machines {
        for (ad, other, what) in [
            (&job, machine, "job Requirements"),
            (machine, &job, "machine Requirements"),
        ] {
            ad.try_eval_attr("Requirements", Some(other), &options)
                .map_err(|source| ClassadError::Budget {
                    what: what.to_owned(),
                    source,
                })?;
        }
    }
    let mut out = String::new();
    let mut any = false;
    for (i, machine) in machines.iter().enumerate() {
        let m = match_ads(&job, machine);
        any |= m.matched;
        if machines.len() > 1 {
            let name = match machine.eval_attr("Name", None) {
                Value::Str(s) => s.to_string(),
                _ => format!("ad {}", i + 1),
            };
            out.push_str(&format!("{name}\n"));
        }
        out.push_str(&format!(
            "matched               {}\n\
             job Requirements      {}\n\
             machine Requirements  {}\n\
             job Rank              {}\n\
             machine Rank          {}\n",
            if m.matched { "yes" } else { "no" },
            m.job_requirements,
            m.machine_requirements,
            m.job_rank,
            m.machine_rank,
        ));
    }
    Ok(Outcome {
        stdout: out,
        success: any,
    })
}
