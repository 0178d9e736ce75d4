//! The policy catalogue: a queue order crossed with a backfilling rule, and the runtime
//! estimates a run uses, named as `ORDER[+RULE][@ESTIMATES]`.
//!
//! - orders: `fcfs`, `sjf`, `ljf`, `saf`, `laf`, `wfp3`, `unicep`, `f1`, `expr(EXPRESSION)`
//!   (see [`crate::order`]);
//! - rules: `none` (start in order while the next job fits), `easy` (EASY: one reservation,
//!   for the first job that does not fit), `conservative` (a reservation for every job),
//!   `bounded(depth=K,window=W)` (Slurm's bounded backfill: the first `K` jobs tested, none
//!   reserved further than `W` ahead). `easy(order=O)` and `bounded(…,order=O)` scan their
//!   backfilling candidates in an order of their own (default: the queue order the policy
//!   sorts by; for `bounded`, without one the jobs past the depth wait, as in Slurm);
//! - estimates: `@requests` (the trace's, the default), `@exact` (the run times),
//!   `@tsafrir` or `@tsafrir(max=36h,seed=1)` (Tsafrir, Etsion and Feitelson's model,
//!   [`cosched_workload::TsafrirEstimates`]; the default maximum is ours: the trace's largest
//!   estimate, in whole hours).
//!
//! `fcfs`, `easy`, `conservative` and `conservative-bounded` name `fcfs+none`, `fcfs+easy`,
//! `fcfs+conservative` and `fcfs+bounded(depth=500,window=86400)` (Slurm's defaults,
//! [`Bounds::SLURM`]) and print as those names. Names parse and print round-trip.
//!
//! Each [`PolicySpec`] builds one policy of the batch protocol ([`PolicySpec::build`]): the
//! queue-ordered ones are the crate's [`Fcfs`], [`Easy`] and [`Conservative`]; every other
//! pair is a [`Composed`] policy, which sorts the queue by its order at each pass and applies
//! its rule to that sequence.
//!
//! ```
//! use cosched_batch::catalogue::PolicySpec;
//! let spec: PolicySpec = "wfp3+easy(order=sjf)@exact".parse().unwrap();
//! assert_eq!(spec.to_string(), "wfp3+easy(order=sjf)@exact");
//! let alias: PolicySpec = "conservative-bounded".parse().unwrap();
//! assert_eq!(alias, "fcfs+bounded(depth=500,window=1d)".parse().unwrap());
//! assert!("lottery".parse::<PolicySpec>().unwrap_err().to_string().contains("sjf"));
//! ```

use crate::conservative::exact_reservation;
use crate::order::{self, Order, OrderError};
use crate::pass::Pass;
use crate::profile::Profile;
use crate::{BatchPolicy, Bounds, Conservative, Easy, Fcfs};
use cosched_core::{Duration, RigidJob, Time};
use cosched_workload::TsafrirEstimates;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// A backfilling rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Backfill {
    /// Start jobs in order while the next one fits.
    None,
    /// EASY: after the jobs that fit, the first that does not gets a reservation (its shadow
    /// time); later jobs start now if they fit and do not delay it.
    Easy {
        /// The order backfilling candidates are scanned in (`None`: the policy's order).
        order: Option<Order>,
    },
    /// Conservative: every job in order reserved at its earliest fit.
    Conservative,
    /// Conservative bounded as Slurm's backfill is (see [`Bounds`]).
    Bounded {
        /// Depth and window.
        bounds: Bounds,
        /// If given, the jobs past the depth are tried in this order after the reservations
        /// and start now if they fit now for their whole estimate (delaying no reservation);
        /// if not, they wait.
        order: Option<Order>,
    },
}

/// Where a run's runtime estimates come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Estimates {
    /// The trace's requested times.
    Requests,
    /// The run times themselves (a perfect estimate).
    Exact,
    /// Tsafrir, Etsion and Feitelson's model (JSSPP 2005).
    Tsafrir {
        /// The largest estimate; `None`: the trace's largest, rounded up to whole hours (at
        /// least one).
        max: Option<Duration>,
        /// The model's seed.
        seed: u64,
    },
}

impl Estimates {
    /// `jobs` with their estimates from this source: borrowed as they are for the trace's own
    /// requests, a copy otherwise.
    pub fn apply<'a>(
        &self,
        jobs: &'a [RigidJob],
    ) -> Result<Cow<'a, [RigidJob]>, cosched_core::ParamError> {
        if *self == Estimates::Requests {
            return Ok(Cow::Borrowed(jobs));
        }
        let mut jobs = jobs.to_vec();
        match *self {
            Estimates::Requests => {}
            Estimates::Exact => {
                for job in &mut jobs {
                    job.estimate = job.runtime;
                }
            }
            Estimates::Tsafrir { max, seed } => {
                let max = max.unwrap_or_else(|| {
                    let largest = jobs.iter().map(|j| j.estimate.0).max().unwrap_or(0);
                    Duration(largest.max(1).saturating_add(3_599) / 3_600 * 3_600)
                });
                TsafrirEstimates::new(max)?.assign(&mut jobs, seed);
            }
        }
        Ok(Cow::Owned(jobs))
    }
}

/// One catalogue policy: an order, a backfilling rule and an estimate source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySpec {
    /// The queue order.
    pub order: Order,
    /// The backfilling rule.
    pub backfill: Backfill,
    /// The runtime estimates.
    pub estimates: Estimates,
}

/// Why a policy name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// Not an order of the catalogue.
    #[error("unknown order `{0}` (expected {orders}, or expr(EXPRESSION))", orders = order_names())]
    UnknownOrder(String),
    /// Not a backfilling rule of the catalogue.
    #[error(
        "unknown backfilling `{0}` (expected none, easy, conservative or bounded(depth=K,window=W))"
    )]
    UnknownBackfill(String),
    /// Not an estimate source.
    #[error("unknown estimates `{0}` (expected requests, exact or tsafrir(max=DURATION,seed=N))")]
    UnknownEstimates(String),
    /// A parameter that is unknown, repeated, or out of range.
    #[error("`{rule}`: bad parameter `{param}` ({reason})")]
    Parameter {
        /// The rule or source.
        rule: String,
        /// The parameter as written.
        param: String,
        /// Why.
        reason: String,
    },
    /// An order expression that does not parse.
    #[error(transparent)]
    Order(#[from] OrderError),
    /// Parentheses that do not match.
    #[error("unbalanced parentheses in `{0}`")]
    Unbalanced(String),
}

fn order_names() -> String {
    Order::NAMED
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The aliases kept from before the catalogue, and what they name.
fn aliases() -> [(&'static str, PolicySpec); 4] {
    let fcfs = |backfill| PolicySpec {
        order: Order::Fcfs,
        backfill,
        estimates: Estimates::Requests,
    };
    [
        ("fcfs", fcfs(Backfill::None)),
        ("easy", fcfs(Backfill::Easy { order: None })),
        ("conservative", fcfs(Backfill::Conservative)),
        (
            "conservative-bounded",
            fcfs(Backfill::Bounded {
                bounds: Bounds::SLURM,
                order: None,
            }),
        ),
    ]
}

/// Splits `s` at the first `sep` outside parentheses.
fn split_top(s: &str, sep: char) -> Result<(&str, Option<&str>), PolicyError> {
    let mut depth = 0i64;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => return Ok((&s[..i], Some(&s[i + 1..]))),
            _ => {}
        }
        if depth < 0 {
            return Err(PolicyError::Unbalanced(s.to_string()));
        }
    }
    if depth != 0 {
        return Err(PolicyError::Unbalanced(s.to_string()));
    }
    Ok((s, None))
}

/// `name(args)` as `(name, Some(args))`, `name` as `(name, None)`.
fn call(s: &str) -> Result<(&str, Option<&str>), PolicyError> {
    match s.find('(') {
        Some(open) if s.ends_with(')') => Ok((s[..open].trim(), Some(&s[open + 1..s.len() - 1]))),
        Some(_) => Err(PolicyError::Unbalanced(s.to_string())),
        None => Ok((s.trim(), None)),
    }
}

/// The `key=value` parameters of `args`, split at top-level commas.
fn params(args: &str) -> Result<Vec<(String, &str)>, PolicyError> {
    let mut out = Vec::new();
    let mut rest = Some(args);
    while let Some(r) = rest {
        let (item, more) = split_top(r, ',')?;
        rest = more;
        if item.trim().is_empty() {
            continue;
        }
        let (key, value) = item.split_once('=').ok_or_else(|| PolicyError::Parameter {
            rule: args.to_string(),
            param: item.to_string(),
            reason: "expected key=value".into(),
        })?;
        out.push((key.trim().to_ascii_lowercase(), value.trim()));
    }
    Ok(out)
}

/// A duration: seconds, or a number with `s`, `m`, `h` or `d`.
fn duration(rule: &str, text: &str) -> Result<Duration, PolicyError> {
    let bad = |reason: &str| PolicyError::Parameter {
        rule: rule.to_string(),
        param: text.to_string(),
        reason: reason.to_string(),
    };
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&text[..i], text[i..].trim()),
        None => (text, "s"),
    };
    let n: i64 = digits.parse().map_err(|_| bad("expected a whole number"))?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return Err(bad("the unit is s, m, h or d")),
    };
    n.checked_mul(scale)
        .map(Duration)
        .ok_or_else(|| bad("too long"))
}

/// A duration as written by [`duration`]: in the largest unit that divides it.
fn show_duration(d: Duration) -> String {
    match d.0 {
        0 => "0".into(),
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => s.to_string(),
    }
}

fn parse_order(s: &str) -> Result<Order, PolicyError> {
    let s = s.trim();
    let lower = s.to_ascii_lowercase();
    if let Some(expr) = lower
        .strip_prefix("expr(")
        .and(s.get(5..))
        .and_then(|rest| rest.strip_suffix(')'))
    {
        return Ok(Order::Expr(expr.parse()?));
    }
    Order::NAMED
        .iter()
        .find(|(n, _)| *n == lower)
        .map(|(_, o)| o.clone())
        .ok_or_else(|| PolicyError::UnknownOrder(s.to_string()))
}

fn parse_backfill(s: &str) -> Result<Backfill, PolicyError> {
    let (name, args) = call(s.trim())?;
    let name = name.to_ascii_lowercase();
    let mut order = None;
    let mut depth = None;
    let mut window = None;
    for (key, value) in params(args.unwrap_or(""))? {
        let bad = |reason: &str| PolicyError::Parameter {
            rule: name.clone(),
            param: format!("{key}={value}"),
            reason: reason.to_string(),
        };
        match (name.as_str(), key.as_str()) {
            ("easy" | "bounded", "order") if order.is_none() => order = Some(parse_order(value)?),
            ("bounded", "depth") if depth.is_none() => {
                depth = Some(
                    value
                        .parse::<usize>()
                        .ok()
                        .filter(|&d| d > 0)
                        .ok_or_else(|| bad("a whole number of jobs, at least 1"))?,
                )
            }
            ("bounded", "window") if window.is_none() => window = Some(duration(&name, value)?),
            ("none" | "conservative", _) => {
                return Err(bad(
                    "takes no parameter (conservative reserves every job in the policy's order)",
                ));
            }
            _ => return Err(bad("unknown or repeated")),
        }
    }
    match name.as_str() {
        "none" => Ok(Backfill::None),
        "easy" => Ok(Backfill::Easy { order }),
        "conservative" => Ok(Backfill::Conservative),
        "bounded" => Ok(Backfill::Bounded {
            bounds: Bounds {
                depth: depth.unwrap_or(Bounds::SLURM.depth),
                window: window.unwrap_or(Bounds::SLURM.window),
            },
            order,
        }),
        _ => Err(PolicyError::UnknownBackfill(s.to_string())),
    }
}

fn parse_estimates(s: &str) -> Result<Estimates, PolicyError> {
    let (name, args) = call(s.trim())?;
    let name = name.to_ascii_lowercase();
    match (name.as_str(), args) {
        ("requests", None) => Ok(Estimates::Requests),
        ("exact", None) => Ok(Estimates::Exact),
        ("tsafrir", args) => {
            let (mut max, mut seed) = (None, None);
            for (key, value) in params(args.unwrap_or(""))? {
                let bad = |reason: &str| PolicyError::Parameter {
                    rule: name.clone(),
                    param: format!("{key}={value}"),
                    reason: reason.to_string(),
                };
                match key.as_str() {
                    "max" if max.is_none() => {
                        let d = duration(&name, value)?;
                        if d < Duration::from_hours(1) {
                            return Err(bad("at least 1h"));
                        }
                        max = Some(d);
                    }
                    "seed" if seed.is_none() => {
                        seed = Some(value.parse().map_err(|_| bad("a whole number"))?)
                    }
                    _ => return Err(bad("unknown or repeated")),
                }
            }
            Ok(Estimates::Tsafrir {
                max,
                seed: seed.unwrap_or(1),
            })
        }
        _ => Err(PolicyError::UnknownEstimates(s.to_string())),
    }
}

impl FromStr for PolicySpec {
    type Err = PolicyError;

    fn from_str(s: &str) -> Result<PolicySpec, PolicyError> {
        let (body, estimates) = split_top(s.trim(), '@')?;
        let estimates = estimates.map_or(Ok(Estimates::Requests), parse_estimates)?;
        let body = body.trim();
        if let Some((_, alias)) = aliases()
            .into_iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(body))
        {
            return Ok(PolicySpec { estimates, ..alias });
        }
        let (order, rule) = split_top(body, '+')?;
        Ok(PolicySpec {
            order: parse_order(order)?,
            backfill: rule.map_or(Ok(Backfill::None), parse_backfill)?,
            estimates,
        })
    }
}

impl fmt::Display for Backfill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backfill::None => f.write_str("none"),
            Backfill::Easy { order: None } => f.write_str("easy"),
            Backfill::Easy { order: Some(o) } => write!(f, "easy(order={o})"),
            Backfill::Conservative => f.write_str("conservative"),
            Backfill::Bounded { bounds, order } => {
                write!(
                    f,
                    "bounded(depth={},window={}",
                    bounds.depth,
                    show_duration(bounds.window)
                )?;
                if let Some(o) = order {
                    write!(f, ",order={o}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Estimates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Estimates::Requests => f.write_str("requests"),
            Estimates::Exact => f.write_str("exact"),
            Estimates::Tsafrir { max, seed } => {
                f.write_str("tsafrir(")?;
                if let Some(max) = max {
                    write!(f, "max={},", show_duration(*max))?;
                }
                write!(f, "seed={seed})")
            }
        }
    }
}

impl fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = PolicySpec {
            estimates: Estimates::Requests,
            ..self.clone()
        };
        match aliases().into_iter().find(|(_, spec)| *spec == plain) {
            Some((name, _)) => f.write_str(name)?,
            None => write!(f, "{}+{}", self.order, self.backfill)?,
        }
        if self.estimates != Estimates::Requests {
            write!(f, "@{}", self.estimates)?;
        }
        Ok(())
    }
}

impl PolicySpec {
    /// Every order crossed with every rule (bounded at Slurm's defaults), with the trace's
    /// estimates: the catalogue a comparison runs.
    pub fn catalogue() -> Vec<PolicySpec> {
        let rules = [
            Backfill::None,
            Backfill::Easy { order: None },
            Backfill::Conservative,
            Backfill::Bounded {
                bounds: Bounds::SLURM,
                order: None,
            },
        ];
        Order::NAMED
            .iter()
            .flat_map(|(_, order)| {
                rules.iter().map(move |backfill| PolicySpec {
                    order: order.clone(),
                    backfill: backfill.clone(),
                    estimates: Estimates::Requests,
                })
            })
            .collect()
    }

    /// A fresh policy of this kind (the estimates are the run's input: see
    /// [`Estimates::apply`]).
    pub fn build(&self) -> Box<dyn BatchPolicy + Send> {
        match (&self.order, &self.backfill) {
            (Order::Fcfs, Backfill::None) => Box::new(Fcfs),
            (Order::Fcfs, Backfill::Easy { order: None }) => Box::new(Easy::default()),
            (Order::Fcfs, Backfill::Conservative) => Box::new(Conservative::default()),
            (
                Order::Fcfs,
                Backfill::Bounded {
                    bounds,
                    order: None,
                },
            ) => Box::new(Conservative::bounded(*bounds)),
            (order, backfill) => Box::new(Composed::new(order.clone(), backfill.clone())),
        }
    }
}

/// A queue order and a backfilling rule, planned afresh at every pass on the queue sorted by
/// the order (see the [module docs](self)). The queue-ordered pairs are faster as
/// [`PolicySpec::build`] gives them, with the same schedules.
///
/// Conservative backfilling in an order whose keys do not change with time (all but WFP3,
/// UNICEP and expressions of the wait or the time) keeps its plan while nothing happened
/// that it could not foresee and no job arrived: the jobs left sort as they did, on the same
/// profile, so a plan from scratch would reserve each where it is (as [`Conservative`] keeps
/// its plan). An arrival can sort anywhere in such an order, so it plans afresh; keys that
/// change with time reorder the queue between passes, so those orders always do. The plan is
/// a cache, not serialised.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Composed {
    order: Order,
    backfill: Backfill,
    #[serde(skip)]
    kept: Option<KeptPlan>,
}

/// The reservations a conservative [`Composed`] pass left, and what it saw.
#[derive(Clone, Debug)]
struct KeptPlan {
    /// (start, rank in the order, queue key) of every reserved job, latest first (so the
    /// jobs due now pop off the end in the order's sequence).
    reservations: Vec<(Time, usize, (Time, cosched_core::JobId))>,
    /// The cluster's change count once the pass's starts apply, and its last queued key.
    changes: u64,
    last_key: Option<(Time, cosched_core::JobId)>,
    at: Time,
}

impl KeptPlan {
    /// Starts the jobs reserved for now, in the order's sequence; `None` if the plan and the
    /// cluster are out of step (the next pass plans afresh).
    fn start_due(mut self, pass: &mut Pass<'_>) -> Option<KeptPlan> {
        let now = pass.now();
        while let Some(&(start, _, key)) = self.reservations.last() {
            if start != now {
                break;
            }
            self.reservations.pop();
            let pos = pass.view().job_queue().position_of(key)?;
            pass.start(pos).ok()?;
        }
        self.changes = pass.view().changes().wrapping_add(pass.starts() as u64);
        self.last_key = pass.view().last_queued_key();
        self.at = now;
        Some(self)
    }

    /// Whether the plan holds at `pass`: no unforeseen change, no arrival, no reservation in
    /// the past.
    fn holds_for(&self, pass: &Pass<'_>) -> bool {
        self.changes == pass.view().changes().wrapping_add(pass.starts() as u64)
            && self.last_key == pass.view().last_queued_key()
            && self.at <= pass.now()
            && self
                .reservations
                .last()
                .is_none_or(|&(start, ..)| start >= pass.now())
    }
}

impl Composed {
    /// The policy `order` + `backfill`.
    pub fn new(order: Order, backfill: Backfill) -> Composed {
        Composed {
            order,
            backfill,
            kept: None,
        }
    }

    /// Plans one pass. `Err` if the order's expression fails on a job.
    pub fn plan(&mut self, pass: &mut Pass<'_>) -> Result<(), OrderError> {
        let now = pass.now();
        if let Some(kept) = self.kept.take()
            && kept.holds_for(pass)
        {
            self.kept = kept.start_due(pass);
            return Ok(());
        }
        let mut jobs = Vec::with_capacity(pass.view().queue_len());
        let mut from = 0;
        while let Some(pos) = pass.next_queued(from) {
            from = pos + 1;
            if let Some(&job) = pass.job(pos) {
                jobs.push((pos, job));
            }
        }
        order::sort(&self.order, now, &mut jobs)?;
        match &self.backfill {
            Backfill::None => {
                for &(pos, job) in &jobs {
                    if job.size() > pass.free_units() || pass.start(pos).is_err() {
                        break;
                    }
                }
            }
            Backfill::Easy { order } => {
                let head = jobs.iter().position(|&(pos, job)| {
                    job.size() > pass.free_units() || pass.start(pos).is_err()
                });
                let Some(head) = head else {
                    return Ok(());
                };
                let shadow = pass.shadow(jobs[head].1.size());
                let mut extra = shadow.extra;
                let mut candidates = jobs.split_off(head + 1);
                if let Some(order) = order {
                    order::sort(order, now, &mut candidates)?;
                }
                for (pos, job) in candidates {
                    let ends_by_shadow = now.saturating_add(job.estimate()) <= shadow.time;
                    let fits =
                        job.size() <= pass.free_units() && (ends_by_shadow || job.size() <= extra);
                    if fits && pass.start(pos).is_ok() && !ends_by_shadow {
                        extra -= job.size();
                    }
                }
            }
            Backfill::Conservative => {
                let mut profile = Profile::new(now, pass.free_units(), pass.releases());
                let mut reservations = Vec::with_capacity(jobs.len());
                let mut exact = !self.order.depends_on_time();
                for (rank, &(_, job)) in jobs.iter().enumerate() {
                    if let Some(start) = profile.earliest_fit(job.size(), job.estimate()) {
                        profile.reserve(start, job.estimate(), job.size());
                        exact &= exact_reservation(start, job.estimate());
                        reservations.push((start, rank, job.order_key()));
                    }
                }
                reservations
                    .sort_unstable_by_key(|&(start, rank, _)| std::cmp::Reverse((start, rank)));
                let plan = KeptPlan {
                    reservations,
                    changes: 0,
                    last_key: None,
                    at: now,
                }
                .start_due(pass);
                if exact {
                    self.kept = plan;
                }
            }
            Backfill::Bounded { bounds, order } => {
                let mut profile = Profile::new(now, pass.free_units(), pass.releases());
                let window_end = now.saturating_add(bounds.window);
                let depth = bounds.depth.min(jobs.len());
                let mut starts = Vec::new();
                for &(pos, job) in &jobs[..depth] {
                    match profile.earliest_fit(job.size(), job.estimate()) {
                        Some(start) if start <= window_end => {
                            profile.reserve(start, job.estimate(), job.size());
                            if start == now {
                                starts.push(pos);
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(order) = order {
                    let mut rest = jobs.split_off(depth);
                    order::sort(order, now, &mut rest)?;
                    for (pos, job) in rest {
                        if profile.earliest_fit(job.size(), job.estimate()) == Some(now) {
                            profile.reserve(now, job.estimate(), job.size());
                            starts.push(pos);
                        }
                    }
                }
                for pos in starts {
                    if pass.start(pos).is_err() {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

impl cosched_core::policy::Policy for Composed {
    type Observation = crate::SchedulingPass;
    type Command = crate::BatchCommand;
    type View = crate::BatchCluster;
    type Error = crate::BatchError;

    fn observe(
        &mut self,
        now: Time,
        _: &crate::SchedulingPass,
        view: &crate::BatchCluster,
        out: &mut Vec<crate::BatchCommand>,
    ) -> Result<(), crate::BatchError> {
        let mut pass = Pass::new(now, view, out);
        let planned = self.plan(&mut pass);
        pass.finish()?;
        planned.map_err(crate::BatchError::from)
    }
}
