//! Queue orders: which waiting job a policy considers first.
//!
//! Every order gives each queued job a priority key at a pass (smaller first) and breaks ties
//! by queue order (submit time, then id). `r` is the job's estimate (its requested time), `n`
//! its size in units, `s` its submit time and `w = now - s` its wait so far, in seconds:
//!
//! | name | key (smaller first) | source |
//! |---|---|---|
//! | `fcfs` | `s` | |
//! | `sjf` | `r` | shortest (estimated) job first |
//! | `ljf` | `-r` | longest job first |
//! | `saf` | `r · n` | smallest area first |
//! | `laf` | `-r · n` | largest area first |
//! | `wfp3` | `-(w / r)³ · n` | Tang et al., Cluster 2009 (WFP) |
//! | `unicep` | `-w / (log₂(n) · r)` | Tang et al., Cluster 2009 (UNICEF) |
//! | `f1` | `log₁₀(r) · n + 870 · log₁₀(s)` | Carastan-Santos and de Camargo, SC17 (F1) |
//! | `expr(…)` | a user expression | see [`Expression`] |
//!
//! WFP3, UNICEP and F1 are written as RLScheduler (Zhang et al., SC20; `DIR-LAB/deep-batch-
//! scheduler`, `HPCSimPickJobs.py`) scores them, which is what RL-scheduling work compares
//! against, with two deviations of ours: the wait is `now - s` (that code reads
//! `scheduled_time - s` for a job not yet scheduled, i.e. `-1 - s`), and where it guards a
//! logarithm or a quotient with `1e-15` or `0.1`, the estimate counts as at least 1 s, the
//! submit time as at least 0.1 s (F1) and a one-unit job comes before every larger one in
//! UNICEP (`log₂ 1 = 0`), by `-w / r` among them.
//!
//! WFP3 and UNICEP change with time (the wait grows), so a queue in those orders is sorted
//! again at every pass; the others are fixed per job.

use crate::cluster::QueuedJob;
use cosched_core::Time;
use evalexpr::error::EvalexprResultValue;
use evalexpr::{Context, DefaultNumericTypes, EvalexprError, EvalexprResult, Node, Value};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A queue order; see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// First come, first served: the queue's own order.
    Fcfs,
    /// Shortest estimate first.
    Sjf,
    /// Longest estimate first.
    Ljf,
    /// Smallest area (estimate × size) first.
    Saf,
    /// Largest area first.
    Laf,
    /// WFP3: largest `(w / r)³ · n` first.
    Wfp3,
    /// UNICEP: largest `w / (log₂(n) · r)` first.
    Unicep,
    /// F1 of Carastan-Santos and de Camargo (SC17): smallest `log₁₀(r) · n + 870 · log₁₀(s)`.
    F1,
    /// A user expression over the job's fields, smallest first.
    Expr(Expression),
}

impl Order {
    /// The orders by name (not [`Order::Expr`]).
    pub const NAMED: [(&'static str, Order); 8] = [
        ("fcfs", Order::Fcfs),
        ("sjf", Order::Sjf),
        ("ljf", Order::Ljf),
        ("saf", Order::Saf),
        ("laf", Order::Laf),
        ("wfp3", Order::Wfp3),
        ("unicep", Order::Unicep),
        ("f1", Order::F1),
    ];

    /// Whether this is the queue's own order.
    pub fn is_fcfs(&self) -> bool {
        matches!(self, Order::Fcfs)
    }

    /// Whether keys change as time passes.
    pub fn depends_on_time(&self) -> bool {
        match self {
            Order::Wfp3 | Order::Unicep => true,
            Order::Expr(e) => e.uses_time,
            _ => false,
        }
    }

    /// The key of `job` at `now` (smaller first: the tier, then the value); `Err` if an
    /// expression cannot be evaluated to a number.
    pub fn key(&self, job: &QueuedJob, now: Time) -> Result<(u8, f64), OrderError> {
        let r = job.estimate().0.max(1) as f64;
        let n = f64::from(job.size());
        let s = job.job.submit.0 as f64;
        let w = now.0.saturating_sub(job.job.submit.0).max(0) as f64;
        if matches!(self, Order::Unicep) && job.size() == 1 {
            return Ok((0, -w / r));
        }
        Ok((
            1,
            match self {
                Order::Fcfs => s,
                Order::Sjf => job.estimate().0 as f64,
                Order::Ljf => -(job.estimate().0 as f64),
                Order::Saf => job.estimate().0 as f64 * n,
                Order::Laf => -(job.estimate().0 as f64) * n,
                Order::Wfp3 => -(w / r).powi(3) * n,
                Order::Unicep => -w / (n.log2() * r),
                Order::F1 => r.log10() * n + 870.0 * s.max(0.1).log10(),
                Order::Expr(e) => e.eval(&JobFields::new(job, now))?,
            },
        ))
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Expr(e) => write!(f, "expr({})", e.source),
            named => {
                let name = Order::NAMED
                    .iter()
                    .find(|(_, o)| o == named)
                    .map_or("?", |(n, _)| n);
                f.write_str(name)
            }
        }
    }
}

/// Why an order could not be parsed or evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    /// The expression is longer than [`Expression::MAX_LEN`] bytes.
    #[error("expression is {0} bytes long (at most {max})", max = Expression::MAX_LEN)]
    TooLong(usize),
    /// The expression nests parentheses deeper than [`Expression::MAX_DEPTH`].
    #[error("expression nests parentheses {0} deep (at most {max})", max = Expression::MAX_DEPTH)]
    TooDeep(usize),
    /// The expression does not parse.
    #[error("expression `{expr}` does not parse: {reason}")]
    Syntax {
        /// The expression.
        expr: String,
        /// Why.
        reason: String,
    },
    /// The expression names a variable that is not a job field.
    #[error("expression `{expr}` names `{name}`; the fields are {fields}", fields = Expression::FIELDS.join(", "))]
    UnknownField {
        /// The expression.
        expr: String,
        /// The name.
        name: String,
    },
    /// The expression calls a function.
    #[error("expression `{expr}` calls `{name}`; only arithmetic on the job's fields is allowed")]
    Function {
        /// The expression.
        expr: String,
        /// The function.
        name: String,
    },
    /// The expression did not give a number for a job.
    #[error("expression `{expr}` gives no number for a job: {reason}")]
    Eval {
        /// The expression.
        expr: String,
        /// Why.
        reason: String,
    },
}

/// A user's key over a job's fields, parsed by `evalexpr` (arithmetic `+ - * / % ^`,
/// comparisons, parentheses and number literals; no assignment, function or string): the
/// fields are `size` (units), `estimate` (s), `submit` (s), `wait` (s, at the pass), `now`
/// (s) and `area` (`size · estimate`), all as floats. Smaller first; NaN last.
///
/// Parsing is bounded (at most [`Expression::MAX_LEN`] bytes and
/// [`Expression::MAX_DEPTH`] nested parentheses) and evaluation has no loop, so a hostile
/// expression costs little.
///
/// ```
/// use cosched_batch::order::Expression;
/// let e: Expression = "estimate / size".parse().unwrap();
/// assert_eq!(e.to_string(), "estimate / size");
/// assert!("estimate / cores".parse::<Expression>().is_err());
/// assert!("math::ln(size)".parse::<Expression>().is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Expression {
    source: String,
    tree: Node<DefaultNumericTypes>,
    uses_time: bool,
}

impl PartialEq for Expression {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Expression {
    /// Longest expression accepted, in bytes.
    pub const MAX_LEN: usize = 512;
    /// Deepest nesting of parentheses accepted.
    pub const MAX_DEPTH: usize = 32;
    /// The job fields an expression may name.
    pub const FIELDS: [&'static str; 6] = ["size", "estimate", "submit", "wait", "now", "area"];

    /// The key of a job with `fields`.
    fn eval(&self, fields: &JobFields) -> Result<f64, OrderError> {
        match self.tree.eval_with_context(fields) {
            Ok(Value::Float(x)) => Ok(x),
            Ok(Value::Int(i)) => Ok(i as f64),
            Ok(Value::Boolean(b)) => Ok(f64::from(u8::from(b))),
            Ok(other) => Err(OrderError::Eval {
                expr: self.source.clone(),
                reason: format!("{other:?} is not a number"),
            }),
            Err(e) => Err(OrderError::Eval {
                expr: self.source.clone(),
                reason: e.to_string(),
            }),
        }
    }
}

impl std::str::FromStr for Expression {
    type Err = OrderError;

    fn from_str(s: &str) -> Result<Expression, OrderError> {
        let source = s.trim().to_string();
        if source.len() > Expression::MAX_LEN {
            return Err(OrderError::TooLong(source.len()));
        }
        let mut depth: usize = 0;
        let mut deepest = 0;
        for c in source.chars() {
            match c {
                '(' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if deepest > Expression::MAX_DEPTH {
            return Err(OrderError::TooDeep(deepest));
        }
        let syntax = |reason: String| OrderError::Syntax {
            expr: source.clone(),
            reason,
        };
        let tree = evalexpr::build_operator_tree::<DefaultNumericTypes>(&source)
            .map_err(|e| syntax(e.to_string()))?;
        if let Some(name) = tree.iter_function_identifiers().next() {
            return Err(OrderError::Function {
                expr: source.clone(),
                name: name.to_string(),
            });
        }
        let mut uses_time = false;
        for name in tree.iter_variable_identifiers() {
            if !Expression::FIELDS.contains(&name) {
                return Err(OrderError::UnknownField {
                    expr: source.clone(),
                    name: name.to_string(),
                });
            }
            uses_time |= name == "wait" || name == "now";
        }
        let expression = Expression {
            source,
            tree,
            uses_time,
        };
        // Assignments, strings and the like fail on any job: refuse them now.
        expression.eval(&JobFields {
            values: [1.0; 6].map(Value::Float),
        })?;
        Ok(expression)
    }
}

impl fmt::Display for Expression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl Serialize for Expression {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.source)
    }
}

impl<'de> Deserialize<'de> for Expression {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Expression, D::Error> {
        let source = String::deserialize(d)?;
        source.parse().map_err(serde::de::Error::custom)
    }
}

/// A job's fields as an `evalexpr` context.
struct JobFields {
    values: [Value<DefaultNumericTypes>; 6],
}

impl JobFields {
    fn new(job: &QueuedJob, now: Time) -> JobFields {
        let size = f64::from(job.size());
        let estimate = job.estimate().0 as f64;
        let submit = job.job.submit.0 as f64;
        let wait = now.0.saturating_sub(job.job.submit.0) as f64;
        JobFields {
            values: [size, estimate, submit, wait, now.0 as f64, size * estimate].map(Value::Float),
        }
    }
}

impl Context for JobFields {
    type NumericTypes = DefaultNumericTypes;

    fn get_value(&self, identifier: &str) -> Option<&Value<DefaultNumericTypes>> {
        let at = Expression::FIELDS.iter().position(|&f| f == identifier)?;
        self.values.get(at)
    }

    fn call_function(
        &self,
        identifier: &str,
        _argument: &Value<DefaultNumericTypes>,
    ) -> EvalexprResultValue<DefaultNumericTypes> {
        Err(EvalexprError::FunctionIdentifierNotFound(
            identifier.to_string(),
        ))
    }

    fn are_builtin_functions_disabled(&self) -> bool {
        true
    }

    fn set_builtin_functions_disabled(
        &mut self,
        _disabled: bool,
    ) -> EvalexprResult<(), DefaultNumericTypes> {
        Err(EvalexprError::BuiltinFunctionsCannotBeEnabled)
    }
}

/// Sorts `jobs` (queue positions with their jobs, in queue order) by `order` at `now`:
/// smaller key first, NaN last, ties in queue order.
pub(crate) fn sort(
    order: &Order,
    now: Time,
    jobs: &mut [(usize, QueuedJob)],
) -> Result<(), OrderError> {
    if order.is_fcfs() {
        return Ok(());
    }
    let mut keyed = Vec::with_capacity(jobs.len());
    for (i, (_, job)) in jobs.iter().enumerate() {
        let (tier, k) = order.key(job, now)?;
        keyed.push((k.is_nan(), tier, k, i));
    }
    keyed.sort_by(|a, b| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then(a.2.total_cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    let sorted: Vec<(usize, QueuedJob)> = keyed.iter().map(|&(.., i)| jobs[i]).collect();
    jobs.copy_from_slice(&sorted);
    Ok(())
}
