//! # cosched-classad
//!
//! A small, exact implementation of HTCondor's ClassAd language for matchmaking, reusable on
//! its own (`cosched-albatross` re-exports it as `cosched_albatross::classad`).
//!
//! The HTCondor manual's *ClassAd Mechanism* chapter is the language reference; each part of
//! it maps to a module here, whose docs state the rules precisely:
//!
//! - *ClassAd Syntax* (literals, names, comments) — [`lexer`]; the grammar, operator
//!   precedence and parse errors — [`Expr`] and [`ParseError`];
//! - *Evaluation Semantics* (`undefined`/`error`, strict and three-valued operators,
//!   `MY.`/`TARGET.` scoping, lists, nested ads), and the memoisation and step budget that
//!   bound every evaluation — [`mod@eval`];
//! - *Predefined Functions* (HTCondor's library, the daemon-registered ones included) —
//!   [`functions`];
//! - what `condor_status` / `condor_q` print (`-long`, `-json`) — [`read`]; partitionable
//!   slots and their dynamic split — [`slots`];
//! - literals as HTCondor prints them (new and old syntax) — [`Value`];
//! - *ClassAds in the HTCondor System → Matchmaking* (symmetric `Requirements`, `Rank`) —
//!   [`match_ads`] and [`rank`].
//!
//! Where the manual and HTCondor's C++ library (`libclassad` from the `htcondor` 25.14.1
//! Python wheel, configured as in a daemon) differ, this follows the library; the committed
//! table `tests/fixtures/classad_eval.json` (1,283 expressions covering every built-in
//! function, 44 rejected inputs, 21 job/machine pairs) pins exact agreement, printed notation
//! included; `tests/classad_tables.rs` spells out every cell of the `&&` / `||` / `=?=` /
//! `=!=` tables from it; `tests/classad_hostile.rs` keeps hostile ads (exponential attribute
//! chains, huge strings, deep nesting) cheap; and a cargo-fuzz target (`fuzz/`, see the crate
//! README) hammers the parser and the readers.
//!
//! In the paper, matchmaking is the HTCondor negotiator the Albatross design section builds
//! on: jobs and machines advertise ClassAds, and a job may keep itself off cloud nodes through
//! its own `Requirements` (a job with a large input), which the symmetric match honours.
//!
//! ```
//! use cosched_classad::{ClassAd, Value, match_ads};
//! let job: ClassAd = r#"[ Requirements = TARGET.Memory >= RequestMemory && TARGET.IsCloud =!= true;
//!                        RequestMemory = 2048; Rank = TARGET.Mips ]"#.parse()?;
//! let desktop: ClassAd = "[ Requirements = true; Memory = 4096; Mips = 900 ]".parse()?;
//! let cloud: ClassAd = "[ Requirements = true; Memory = 8192; Mips = 3000; IsCloud = true ]".parse()?;
//! let m = match_ads(&job, &desktop);
//! assert!(m.matched);
//! assert_eq!(m.job_rank, 900.0);
//! assert!(!match_ads(&job, &cloud).matched);
//! assert_eq!(job.eval_attr("RequestMemory", None), Value::Int(2048));
//! # Ok::<(), cosched_classad::ParseError>(())
//! ```
//!
//! ## What differs, and what is left out
//! - A list value holds its elements evaluated; HTCondor keeps them as expressions and
//!   evaluates them on use. Every function and operator sees the same values; only the printed
//!   form of a list with computed elements differs (`{1 + 1}` prints `{ 2 }` here, `{ 1 + 1 }`
//!   there). A nested ad found through another ad sees the top-level ad it was found in as its
//!   parent scope.
//! - Expressions print as HTCondor's unparser prints them, with the source's parentheses and
//!   no others; an ad's attributes print in insertion order (HTCondor's order is its hash
//!   order).
//! - Regular expressions are the `regex` crate's (Perl syntax without look-around and
//!   back-references); HTCondor uses PCRE2. `formatTime` prints UTC (HTCondor: local time).
//! - Absolute and relative time values and the few functions in
//!   [`functions::NOT_PROVIDED`] (environment, user-map and user-home helpers, `unresolved`)
//!   are not provided: they evaluate to `error`, and [`Expr::unknown_functions`] reports them. The names
//!   of HTCondor's match-ad scaffolding (`LEFT`, `RIGHT`, `symmetricMatch`, …) are ordinary
//!   attribute names here. Strings must be UTF-8 (HTCondor allows any bytes).

pub mod eval;
pub mod functions;
pub mod lexer;
mod parser;
pub mod read;
pub mod slots;
mod value;

pub use eval::{DEFAULT_STEP_BUDGET, EvalError, EvalOptions, MAX_EVAL_DEPTH};
pub use functions::{FunctionSet, MAX_REGEX_HAYSTACK};
pub use parser::{Expr, MAX_DEPTH, ParseError, ParseErrorKind, SourcePos, UnknownFunction};
pub use value::{OldSyntax, Value};

use eval::{Evaluator, logical_values};
use rustc_hash::FxHashMap;
use std::fmt;
use std::str::FromStr;

/// A ClassAd: named expressions, looked up case-insensitively.
///
/// Parse the new ClassAd syntax `[ a = 1; b = "x"; c = a + 1 ]` with [`ClassAd::parse`] (or
/// `str::parse`); `Display` prints that syntax back. Inserting a name that is already present
/// (in any case) replaces its expression and keeps the first spelling, as HTCondor does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClassAd {
    attrs: Vec<(String, Expr)>,
    /// Lower-cased name → index into `attrs`.
    index: FxHashMap<Box<str>, usize>,
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> Self {
        ClassAd::default()
    }

    /// Parses an ad in the new ClassAd syntax: `[ name = expression; … ]` (extra semicolons
    /// are allowed, as in HTCondor).
    pub fn parse(src: &str) -> Result<ClassAd, ParseError> {
        let mut p = parser::Parser::new(src)?;
        let attrs = p.classad()?;
        p.expect_end("end of input after the ClassAd")?;
        let mut ad = ClassAd::new();
        for (name, expr) in attrs {
            ad.insert(&name, expr);
        }
        Ok(ad)
    }

    /// Sets attribute `name` to `expr`.
    pub fn insert(&mut self, name: &str, expr: Expr) {
        let key: Box<str> = name.to_ascii_lowercase().into();
        match self.index.get(&key) {
            Some(&i) => self.attrs[i].1 = expr,
            None => {
                self.index.insert(key, self.attrs.len());
                self.attrs.push((name.to_owned(), expr));
            }
        }
    }

    /// Sets attribute `name` to a literal value.
    pub fn insert_value(&mut self, name: &str, value: impl Into<Value>) {
        self.insert(name, Expr::literal(value.into()));
    }

    /// The expression of attribute `name` (any case).
    pub fn get(&self, name: &str) -> Option<&Expr> {
        with_lowercase(name, |key| self.lookup_key(key).map(|(_, e)| e))
    }

    /// Whether the ad has attribute `name` (any case).
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// Whether the ad has no attributes.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }

    /// The attributes in insertion order, with their names as first written.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Expr)> {
        self.attrs.iter().map(|(n, e)| (n.as_str(), e))
    }

    /// Looks up a lower-cased name, returning the stored key (lower-cased) and expression.
    fn lookup_key(&self, key: &str) -> Option<(&str, &Expr)> {
        let (stored, &i) = self.index.get_key_value(key)?;
        Some((stored, &self.attrs[i].1))
    }

    /// Attribute `name` evaluated with this ad as `MY` and `target` as `TARGET`
    /// (`undefined` if the ad has no such attribute), with the default budget and the system
    /// clock; an evaluation over budget is `error`.
    pub fn eval_attr(&self, name: &str, target: Option<&ClassAd>) -> Value {
        self.try_eval_attr(name, target, &EvalOptions::default())
            .unwrap_or(Value::Error)
    }

    /// `expr` evaluated with this ad as `MY` and `target` as `TARGET` (default budget, system
    /// clock; over budget is `error`).
    pub fn eval(&self, expr: &Expr, target: Option<&ClassAd>) -> Value {
        eval(expr, self, target)
    }

    /// [`ClassAd::eval_attr`] with explicit options; an evaluation over budget is a typed
    /// error.
    ///
    /// ```
    /// use cosched_classad::{ClassAd, EvalError, EvalOptions, Value};
    /// // 2^40 additions if every reference were evaluated again; memoised, a few hundred steps.
    /// let text = (0..40).map(|i| format!("a{i} = a{} + a{};", i + 1, i + 1)).collect::<String>();
    /// let ad = ClassAd::parse(&format!("[ {text} a40 = 1 ]"))?;
    /// assert_eq!(ad.try_eval_attr("a0", None, &EvalOptions::default()), Ok(Value::Int(1 << 40)));
    /// let tight = EvalOptions { step_budget: 100, ..EvalOptions::default() };
    /// assert_eq!(ad.try_eval_attr("a0", None, &tight), Err(EvalError::BudgetExceeded { budget: 100 }));
    /// # Ok::<(), cosched_classad::ParseError>(())
    /// ```
    pub fn try_eval_attr(
        &self,
        name: &str,
        target: Option<&ClassAd>,
        options: &EvalOptions,
    ) -> Result<Value, EvalError> {
        Evaluator::new(self, target, *options).eval_attr(name)
    }

    /// [`ClassAd::eval`] with explicit options; an evaluation over budget is a typed error.
    pub fn try_eval(
        &self,
        expr: &Expr,
        target: Option<&ClassAd>,
        options: &EvalOptions,
    ) -> Result<Value, EvalError> {
        Evaluator::new(self, target, *options).eval_expr(expr)
    }

    /// Calls of functions HTCondor does not define in this ad's expressions, with the
    /// attribute they are in (see [`Expr::unknown_functions`]).
    pub fn unknown_functions(&self) -> Vec<(String, UnknownFunction)> {
        self.iter()
            .flat_map(|(name, e)| {
                e.unknown_functions()
                    .into_iter()
                    .map(move |u| (name.to_owned(), u))
            })
            .collect()
    }
}

impl FromStr for ClassAd {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClassAd::parse(s)
    }
}

impl fmt::Display for ClassAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, (name, expr)) in self.attrs.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            write!(f, "{sep}{} = {expr}", parser::Name::new(name))?;
        }
        f.write_str(if self.attrs.is_empty() { "  ]" } else { " ]" })
    }
}

/// Calls `f` with `name` in ASCII lower case, without allocating for names of up to 64 bytes
/// (lookups happen for every attribute of every match).
pub(crate) fn with_lowercase<R>(name: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; 64];
    match buf.get_mut(..name.len()) {
        Some(slot) => {
            slot.copy_from_slice(name.as_bytes());
            slot.make_ascii_lowercase();
            // Lower-casing ASCII bytes keeps UTF-8 valid.
            f(std::str::from_utf8(slot).unwrap_or(name))
        }
        None => f(&name.to_ascii_lowercase()),
    }
}

/// Evaluates `expr` with `my` as `MY` and `target` (if any) as `TARGET`.
///
/// ```
/// use cosched_classad::{ClassAd, Expr, Value, eval};
/// let my: ClassAd = "[ a = 1 ]".parse()?;
/// let target: ClassAd = "[ a = 2; b = 3 ]".parse()?;
/// let e = |s: &str| s.parse::<Expr>().unwrap();
/// assert_eq!(eval(&e("a + TARGET.a"), &my, Some(&target)), Value::Int(3));
/// assert_eq!(eval(&e("b"), &my, Some(&target)), Value::Int(3)); // unscoped: MY, then TARGET
/// assert_eq!(eval(&e("MY.b"), &my, Some(&target)), Value::Undefined);
/// assert_eq!(eval(&e("true && undefined"), &my, None), Value::Undefined);
/// assert_eq!(eval(&e("false && error"), &my, None), Value::Bool(false));
/// # Ok::<(), cosched_classad::ParseError>(())
/// ```
pub fn eval(expr: &Expr, my: &ClassAd, target: Option<&ClassAd>) -> Value {
    my.try_eval(expr, target, &EvalOptions::default())
        .unwrap_or(Value::Error)
}

/// The negotiator's numeric reading of a `Rank`: `my`'s `Rank` evaluated against `target`;
/// integers, reals and booleans (1.0 / 0.0) count, anything else (`undefined`, `error`, a
/// string) is 0.0.
///
/// Like HTCondor's `EvalFloat(ATTR_RANK, my, target)`, an ad without a `Rank` attribute
/// falls back to the *target's* `Rank`, evaluated with the target as `MY`.
pub fn rank(my: &ClassAd, target: &ClassAd) -> f64 {
    let value = if my.contains("Rank") {
        my.eval_attr("Rank", Some(target))
    } else {
        target.eval_attr("Rank", Some(my))
    };
    value.as_number().unwrap_or(0.0)
}

/// The outcome of matching a job ad against a machine ad.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Both `Requirements` are true (booleans, or non-zero numbers): HTCondor's
    /// `symmetricMatch = RIGHT.Requirements && LEFT.Requirements`.
    pub matched: bool,
    /// The job's `Requirements` (`MY` = job, `TARGET` = machine).
    pub job_requirements: Value,
    /// The machine's `Requirements` (`MY` = machine, `TARGET` = job).
    pub machine_requirements: Value,
    /// The job's rank of the machine, as [`rank`]`(job, machine)`.
    pub job_rank: f64,
    /// The machine's rank of the job, as [`rank`]`(machine, job)`.
    pub machine_rank: f64,
}

/// Matches a job against a machine the way HTCondor's negotiator does: a symmetric match of
/// both `Requirements` (an ad without `Requirements` matches nothing), and both ranks.
pub fn match_ads(job: &ClassAd, machine: &ClassAd) -> Match {
    let job_requirements = job.eval_attr("Requirements", Some(machine));
    let machine_requirements = machine.eval_attr("Requirements", Some(job));
    let matched =
        logical_values(true, &machine_requirements, &job_requirements) == Value::Bool(true);
    Match {
        matched,
        job_rank: rank(job, machine),
        machine_rank: rank(machine, job),
        job_requirements,
        machine_requirements,
    }
}

/// Whether `a` and `b` match symmetrically (see [`Match::matched`]), without the ranks.
pub fn symmetric_match(a: &ClassAd, b: &ClassAd) -> bool {
    let ra = a.eval_attr("Requirements", Some(b));
    if ra.as_bool_equiv() != Some(true) {
        return false;
    }
    b.eval_attr("Requirements", Some(a)).as_bool_equiv() == Some(true)
}
