//! Evaluation: scoping, the three-valued operators, the strict-operator rules, and the
//! bounds that keep any ad cheap to evaluate.
//!
//! Language reference: HTCondor manual, *ClassAd Mechanism → Evaluation Semantics* (Undefined
//! and Error, strict and non-strict operators, `MY.` / `TARGET.`), and the library's
//! `operators.cpp` / `attrrefs.cpp`, with old-ClassAd semantics on (HTCondor's default,
//! `STRICT_CLASSAD_EVALUATION = False`):
//!
//! - **Attribute references.** An unscoped name is looked up in the ad the expression belongs
//!   to, then in the ads enclosing it (a nested ad sees its parent's attributes), then (when
//!   there is a target ad) in the other ad. `MY.x` looks only in the expression's own ad,
//!   `TARGET.x` only in the other, `.x` in the outermost ad; when `x` is found there, *its*
//!   expression is evaluated with that ad as `MY`. `MY` and `TARGET` are ordinary names that
//!   resolve to the two ads (as do `other` for the target and `ad` for the own ad), so an
//!   attribute of that name shadows them, as in HTCondor. Selecting from a value that is not
//!   an ad is `error` (`undefined` stays `undefined`). A reference to an attribute that is
//!   already being evaluated (a cycle such as `a = b; b = a`) is `undefined`, as in
//!   HTCondor 25.
//! - **Lists and subscripts.** `{a, b}` evaluates its elements; `l[i]` is element `i` (from 0,
//!   `error` out of range), `ad["name"]` the attribute `name`; an `undefined` index or base
//!   gives `undefined`.
//! - **Strict operators** (arithmetic, comparison, bitwise, unary): `error` if any operand is
//!   `error`, else `undefined` if any is `undefined`. Booleans count as 0/1 in arithmetic and
//!   comparison; an integer and a real compare and compute as reals. `==`, `!=`, `<`, … on two
//!   strings ignore ASCII case; a string against a non-string is `error`, and so is any
//!   operator on a list or an ad.
//! - **Arithmetic.** Integer `+ - *` wrap; `/` and `%` by zero are `error`, `MIN / -1` is
//!   `MAX`; `%` on reals is `error`; a real result of `+∞` is `error` (HTCondor's `HUGE_VAL`
//!   check) while `-∞` and NaN are values.
//! - **Non-strict operators.** `&&` / `||` are three-valued with left-to-right short circuit
//!   (`false && error` is `false`, `undefined || true` is `true`, `error || true` is `error`);
//!   numbers count as booleans, any other operand type is `error`. `=?=` / `is` and `=!=` /
//!   `isnt` never yield `undefined`: different types are not identical (`1 =?= 1.0` is
//!   `false`), strings compare case-sensitively. `c ? a : b` evaluates only the chosen branch;
//!   an `undefined` condition gives `undefined`, a non-boolean one `error`. `a ?: b` is `a`
//!   unless `a` is `undefined`.
//!
//! ## Bounds
//! HTCondor evaluates an attribute again at every reference, so an ad of 40 lines
//! `a_i = a_{i+1} + a_{i+1}` takes 2^40 steps there. Here one evaluation (one call of
//! [`crate::ClassAd::eval_attr`], one side of a match) **memoises** every attribute of the two
//! top-level ads it evaluates (those that took more than a few steps), so that ad takes a few
//! hundred steps. Results that depend on where the
//! attribute was reached from (a cut cycle, the depth limit) are not memoised, so memoising
//! never changes a value. Every evaluation also has a **step budget**
//! ([`EvalOptions::step_budget`], by default [`DEFAULT_STEP_BUDGET`]): each operation costs a
//! step, and each string or list it builds or copies (a literal, an attribute's value) costs
//! its size (one step per element or 8 bytes): the budget is also a memory budget, so no ad
//! can make an evaluation run long or allocate without bound. The regular-expression
//! functions are charged their haystack's size times their pattern's and refuse a haystack
//! above [`crate::MAX_REGEX_HAYSTACK`] ([`EvalError::TooLarge`]); the string-list functions
//! are linear (hash sets of items and delimiters). Past the budget the
//! fallible entry points ([`crate::ClassAd::try_eval`]) return [`EvalError::BudgetExceeded`];
//! the infallible ones (and matchmaking) see `error`. More than [`MAX_EVAL_DEPTH`] nested
//! operations and attribute references give `error` (HTCondor fails the evaluation past 1,000
//! nested references).

use super::ClassAd;
use super::functions::{self, Builtin, Env, FunctionSet};
use super::parser::{BinOp, Call, Expr, ExprKind, Name, UnOp};
use super::value::Value;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use thiserror::Error;

/// Deepest evaluation (operations plus attribute references) before the result is `error`.
pub const MAX_EVAL_DEPTH: usize = 1024;

/// The default number of steps one evaluation may take (about 50 ms of work; a real job or
/// slot ad needs a few hundred).
pub const DEFAULT_STEP_BUDGET: u64 = 2_000_000;

/// Attributes whose evaluation took fewer steps than this are not memoised (see
/// [`Evaluator`]'s `attribute`).
const MEMO_MIN_STEPS: u64 = 16;

/// How an evaluation is bounded, and what `time()` and `random()` return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalOptions {
    /// Steps allowed before the evaluation stops with [`EvalError::BudgetExceeded`].
    pub step_budget: u64,
    /// The clock `time()` and `CurrentTime` read, in seconds since the Unix epoch; `None`
    /// reads the system clock when asked.
    pub now: Option<i64>,
    /// The seed of the ChaCha8 generator `random()` draws from in this evaluation (the same
    /// seed gives the same draws; vary it per evaluation for independent ones); `None` draws
    /// from a generator seeded by the system clock, like HTCondor's.
    pub seed: Option<u64>,
    /// The functions calls see: HTCondor's daemons' (the default) or the bare library's
    /// ([`FunctionSet`]).
    pub functions: FunctionSet,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            step_budget: DEFAULT_STEP_BUDGET,
            now: None,
            seed: None,
            functions: FunctionSet::Daemon,
        }
    }
}

impl EvalOptions {
    /// The default budget with the clock fixed at `now` (for tests and replays).
    pub fn at(now: i64) -> Self {
        EvalOptions {
            now: Some(now),
            ..EvalOptions::default()
        }
    }
}

/// Why an evaluation did not produce a value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EvalError {
    /// The evaluation took more steps (operations plus the size of the strings and lists it
    /// built) than its budget allows.
    #[error(
        "evaluation exceeded its budget of {budget} steps (an ad whose attributes grow exponentially, or a huge string or list)"
    )]
    BudgetExceeded {
        /// The budget, [`EvalOptions::step_budget`].
        budget: u64,
    },
    /// A function was given an argument beyond a fixed bound of this implementation (a
    /// regular expression's haystack above [`crate::MAX_REGEX_HAYSTACK`] bytes).
    #[error("{function}: {what} of {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// The function.
        function: &'static str,
        /// Which argument.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The bound.
        limit: u64,
    },
}

/// One of the two ads of an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    My,
    Target,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::My => Side::Target,
            Side::Target => Side::My,
        }
    }
}

/// An intermediate result: a value, one of the two ads (what `MY` and `TARGET` denote), or a
/// nested ad together with the side of the top-level ad it belongs to.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    V(Value),
    Ad(Side),
    Nested(Box<ClassAd>, Side),
}

const UNDEFINED: Val = Val::V(Value::Undefined);
const ERROR: Val = Val::V(Value::Error);

impl Val {
    fn bool_equiv(&self) -> Option<bool> {
        match self {
            Val::V(v) => v.as_bool_equiv(),
            _ => None,
        }
    }

    /// A value found in `side`'s ad: nested ads remember where they live.
    fn in_side(v: Value, side: Side) -> Val {
        match v {
            Value::Ad(ad) => Val::Nested(ad, side),
            v => Val::V(v),
        }
    }
}

/// A scope: an ad, the side of the top-level ad it belongs to, and the scope enclosing it.
#[derive(Clone, Copy)]
struct Scope<'s> {
    ad: &'s ClassAd,
    side: Side,
    parent: Option<&'s Scope<'s>>,
}

/// Evaluates expressions against an ad and an optional target ad.
pub(crate) struct Evaluator<'a> {
    my: &'a ClassAd,
    target: Option<&'a ClassAd>,
    /// Attribute expressions being evaluated (by address), to turn cycles into `undefined`.
    active: Vec<usize>,
    /// Values of top-level attributes already evaluated (by the address of their expression).
    memo: FxHashMap<usize, Value>,
    /// How often a cycle or the depth limit cut an evaluation short: results computed while
    /// this grew depend on the path and are not memoised.
    cuts: u64,
    depth: usize,
    steps: u64,
    /// The first fixed bound an argument exceeded, if any: the evaluation fails with it.
    too_large: Option<EvalError>,
    options: EvalOptions,
    /// The generator of `random()`, created on its first call.
    rng: Option<rand_chacha::ChaCha8Rng>,
}

impl<'a> Evaluator<'a> {
    pub(crate) fn new(my: &'a ClassAd, target: Option<&'a ClassAd>, options: EvalOptions) -> Self {
        Evaluator {
            my,
            target,
            active: Vec::new(),
            memo: FxHashMap::default(),
            cuts: 0,
            depth: 0,
            steps: 0,
            too_large: None,
            options,
            rng: None,
        }
    }

    fn finish(&self, v: Val) -> Result<Value, EvalError> {
        if let Some(e) = &self.too_large {
            return Err(e.clone());
        }
        if self.exhausted() {
            return Err(EvalError::BudgetExceeded {
                budget: self.options.step_budget,
            });
        }
        Ok(self.value_of(v))
    }

    /// `expr` evaluated with `MY` = the first ad.
    pub(crate) fn eval_expr(&mut self, expr: &Expr) -> Result<Value, EvalError> {
        let top = self.my_scope();
        let v = self.eval(expr, &top);
        self.finish(v)
    }

    /// The first ad's attribute `name` (`undefined` if it has none).
    pub(crate) fn eval_attr(&mut self, name: &str) -> Result<Value, EvalError> {
        let top = self.my_scope();
        let my = self.my;
        let v = match super::with_lowercase(name, |key| my.lookup_key(key).map(|(_, e)| e)) {
            Some(expr) => self.attribute(&top, expr),
            None => UNDEFINED,
        };
        self.finish(v)
    }

    fn exhausted(&self) -> bool {
        self.steps > self.options.step_budget
    }

    /// Charges `cost` steps; false once the budget is spent.
    fn charge(&mut self, cost: u64) -> bool {
        self.steps = self.steps.saturating_add(cost);
        !self.exhausted()
    }

    fn remaining(&self) -> u64 {
        self.options.step_budget.saturating_sub(self.steps)
    }

    fn ad(&self, side: Side) -> Option<&'a ClassAd> {
        match side {
            Side::My => Some(self.my),
            Side::Target => self.target,
        }
    }

    /// The scope of the first ad (`MY` of the evaluation).
    fn my_scope(&self) -> Scope<'a> {
        Scope {
            ad: self.my,
            side: Side::My,
            parent: None,
        }
    }

    fn top(&self, side: Side) -> Option<Scope<'a>> {
        Some(Scope {
            ad: self.ad(side)?,
            side,
            parent: None,
        })
    }

    fn value_of(&self, v: Val) -> Value {
        match v {
            Val::V(v) => v,
            Val::Nested(ad, _) => Value::Ad(ad),
            Val::Ad(side) => self
                .ad(side)
                .map_or(Value::Undefined, |ad| Value::Ad(Box::new(ad.clone()))),
        }
    }

    fn eval(&mut self, e: &Expr, scope: &Scope<'_>) -> Val {
        if !self.charge(1) {
            return ERROR;
        }
        if self.depth >= MAX_EVAL_DEPTH {
            self.cuts += 1;
            return ERROR;
        }
        self.depth += 1;
        let result = self.eval_kind(e, scope);
        self.depth -= 1;
        result
    }

    /// One node. Each arm hands over to a function of its own (never inlined), so the frames
    /// on the recursion path stay small and [`MAX_EVAL_DEPTH`] levels fit any thread's stack.
    fn eval_kind(&mut self, e: &Expr, scope: &Scope<'_>) -> Val {
        match &e.kind {
            ExprKind::Lit(v) => self.literal(v),
            ExprKind::Attr(name) => self.unscoped(name, scope),
            ExprKind::Absolute(name) => self.absolute(&name.key, scope),
            ExprKind::Select(base, name) => self.select_expr(base, &name.key, scope),
            ExprKind::Subscript(base, index) => self.subscript_expr(base, index, scope),
            ExprKind::List(items) => self.list(items, scope),
            ExprKind::Ad(ad) => self.nested_literal(ad, scope),
            ExprKind::Unary(op, operand) => self.unary_expr(*op, operand, scope),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                self.logical_expr(*op == BinOp::And, a, b, scope)
            }
            ExprKind::Binary(op, a, b) => self.binary_expr(*op, a, b, scope),
            ExprKind::Cond(c, a, b) => self.cond_expr(c, a, b, scope),
            ExprKind::Elvis(a, b) => self.elvis_expr(a, b, scope),
            ExprKind::Call(call) => self.call(call, scope),
        }
    }

    /// A copy of a literal (its strings shared, not copied), charged by its size like any
    /// value the evaluation builds: the budget bounds what the results can hold, so 5,000
    /// references to a 1 MiB string, joined, stop at the budget instead of building 5 GB.
    fn literal(&mut self, v: &Value) -> Val {
        if matches!(v, Value::Str(_) | Value::List(_))
            && !self.charge(v.weight(self.remaining().saturating_add(1)))
        {
            return ERROR;
        }
        Val::V(v.clone())
    }

    #[inline(never)]
    fn absolute(&mut self, key: &str, scope: &Scope<'_>) -> Val {
        let Some(top) = self.top(scope.side) else {
            return UNDEFINED;
        };
        match top.ad.lookup_key(key) {
            Some((_, expr)) => self.attribute(&top, expr),
            None => UNDEFINED,
        }
    }

    #[inline(never)]
    fn select_expr(&mut self, base: &Expr, key: &str, scope: &Scope<'_>) -> Val {
        let base = self.eval(base, scope);
        self.select(base, key)
    }

    #[inline(never)]
    fn subscript_expr(&mut self, base: &Expr, index: &Expr, scope: &Scope<'_>) -> Val {
        let base = self.eval(base, scope);
        let index = self.eval(index, scope);
        self.subscript(base, index, scope)
    }

    #[inline(never)]
    fn list(&mut self, items: &[Expr], scope: &Scope<'_>) -> Val {
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            let v = self.eval(item, scope);
            values.push(self.value_of(v));
        }
        let list = Value::List(values);
        if !self.charge(list.weight(self.remaining().saturating_add(1))) {
            return ERROR;
        }
        Val::V(list)
    }

    #[inline(never)]
    fn nested_literal(&mut self, ad: &ClassAd, scope: &Scope<'_>) -> Val {
        if !self.charge(ad.len() as u64) {
            return ERROR;
        }
        Val::Nested(Box::new(ad.clone()), scope.side)
    }

    #[inline(never)]
    fn unary_expr(&mut self, op: UnOp, operand: &Expr, scope: &Scope<'_>) -> Val {
        let v = self.eval(operand, scope);
        unary(op, v)
    }

    #[inline(never)]
    fn logical_expr(&mut self, and: bool, a: &Expr, b: &Expr, scope: &Scope<'_>) -> Val {
        let left = self.eval(a, scope);
        match left.bool_equiv() {
            Some(true) if !and => Val::V(Value::Bool(true)),
            Some(false) if and => Val::V(Value::Bool(false)),
            _ => {
                let right = self.eval(b, scope);
                Val::V(logical(and, &left, &right))
            }
        }
    }

    #[inline(never)]
    fn binary_expr(&mut self, op: BinOp, a: &Expr, b: &Expr, scope: &Scope<'_>) -> Val {
        let left = self.eval(a, scope);
        let right = self.eval(b, scope);
        binary(op, left, right)
    }

    #[inline(never)]
    fn cond_expr(&mut self, c: &Expr, a: &Expr, b: &Expr, scope: &Scope<'_>) -> Val {
        let cond = self.eval(c, scope);
        self.choose(&cond, a, b, scope)
    }

    #[inline(never)]
    fn elvis_expr(&mut self, a: &Expr, b: &Expr, scope: &Scope<'_>) -> Val {
        match self.eval(a, scope) {
            Val::V(Value::Undefined) => self.eval(b, scope),
            v => v,
        }
    }

    /// `c ? a : b` and `ifThenElse(c, a, b)` once `c` is known: only the chosen branch is
    /// evaluated; an `undefined` condition gives `undefined`, a non-boolean one `error`.
    fn choose(&mut self, cond: &Val, a: &Expr, b: &Expr, scope: &Scope<'_>) -> Val {
        match cond.bool_equiv() {
            Some(true) => self.eval(a, scope),
            Some(false) => self.eval(b, scope),
            None if *cond == UNDEFINED => UNDEFINED,
            None => ERROR,
        }
    }

    /// The attribute `expr` of `scope`'s ad, evaluated there; `undefined` on a cycle;
    /// memoised for the top-level ads.
    fn attribute(&mut self, scope: &Scope<'_>, expr: &Expr) -> Val {
        if let ExprKind::Lit(v) = &expr.kind {
            return match self.literal(v) {
                Val::V(v) => Val::in_side(v, scope.side),
                other => other,
            };
        }
        let id = std::ptr::from_ref(expr) as usize;
        let top = scope.parent.is_none();
        if top
            && !self.memo.is_empty()
            && let Some(v) = self.memo.get(&id)
        {
            let v = v.clone();
            if !self.charge(v.weight(self.remaining().saturating_add(1))) {
                return ERROR;
            }
            return Val::in_side(v, scope.side);
        }
        if self.active.contains(&id) {
            self.cuts += 1;
            return UNDEFINED;
        }
        let (cuts, steps) = (self.cuts, self.steps);
        // The attribute an evaluation starts from is never asked for again (a reference
        // back to it is a cycle), so it is not worth a table.
        let outermost = self.active.is_empty();
        self.active.push(id);
        let v = self.eval(expr, scope);
        self.active.pop();
        // Attributes that were cheap to evaluate are not worth remembering: recomputing them
        // costs at most MEMO_MIN_STEPS each, and the chain above them is memoised once it
        // becomes expensive, so no ad grows exponentially. Ordinary matchmaking never
        // allocates the table.
        if top
            && !outermost
            && self.cuts == cuts
            && !self.exhausted()
            && self.steps - steps >= MEMO_MIN_STEPS
        {
            match &v {
                Val::V(value) => {
                    self.memo.insert(id, value.clone());
                }
                Val::Nested(ad, _) => {
                    self.memo.insert(id, Value::Ad(ad.clone()));
                }
                Val::Ad(_) => {}
            }
        }
        v
    }

    /// The names that denote ads (HTCondor's match-ad context `[my; ad; target; other]`).
    fn ad_name(&self, key: &str, side: Side) -> Option<Val> {
        match key {
            "my" => Some(Val::Ad(side)),
            "ad" if self.target.is_some() => Some(Val::Ad(side)),
            "target" | "other" if self.target.is_some() => Some(Val::Ad(side.other())),
            _ => None,
        }
    }

    /// `base.name` (and `base["name"]`).
    fn select(&mut self, base: Val, key: &str) -> Val {
        match base {
            Val::Ad(side) => {
                let Some(top) = self.top(side) else {
                    return UNDEFINED;
                };
                if let Some((_, expr)) = top.ad.lookup_key(key) {
                    return self.attribute(&top, expr);
                }
                self.ad_name(key, side).unwrap_or(UNDEFINED)
            }
            Val::Nested(ad, side) => {
                // A nested ad sees the attributes of the top-level ad it was found in.
                let top = self.top(side);
                let nested = Scope {
                    ad: &ad,
                    side,
                    parent: top.as_ref(),
                };
                self.lookup_chain(key, &nested).unwrap_or(UNDEFINED)
            }
            Val::V(Value::Undefined) => UNDEFINED,
            Val::V(_) => ERROR,
        }
    }

    /// `name` looked up in `scope` and the scopes enclosing it.
    fn lookup_chain(&mut self, key: &str, scope: &Scope<'_>) -> Option<Val> {
        let mut current = Some(scope);
        while let Some(s) = current {
            if let Some((_, expr)) = s.ad.lookup_key(key) {
                return Some(self.attribute(s, expr));
            }
            current = s.parent;
        }
        None
    }

    #[inline(never)]
    fn unscoped(&mut self, name: &Name, scope: &Scope<'_>) -> Val {
        if let Some(v) = self.lookup_chain(&name.key, scope) {
            return v;
        }
        if let Some(ad) = self.ad_name(&name.key, scope.side) {
            return ad;
        }
        // Old-ClassAd semantics: fall back to the other ad of the match.
        if let Some(other) = self.top(scope.side.other())
            && let Some((_, expr)) = other.ad.lookup_key(&name.key)
        {
            return self.attribute(&other, expr);
        }
        if &*name.key == "currenttime" {
            return Val::V(Value::Int(functions::clock(self.options.now)));
        }
        UNDEFINED
    }

    fn subscript(&mut self, base: Val, index: Val, scope: &Scope<'_>) -> Val {
        match (base, index) {
            (Val::V(Value::Error), _) | (_, Val::V(Value::Error)) => ERROR,
            (Val::V(Value::Undefined), _) | (_, Val::V(Value::Undefined)) => UNDEFINED,
            (Val::V(Value::List(items)), Val::V(Value::Int(i))) => usize::try_from(i)
                .ok()
                .and_then(|i| items.into_iter().nth(i))
                .map_or(ERROR, |v| Val::in_side(v, scope.side)),
            (base @ (Val::Ad(_) | Val::Nested(..)), Val::V(Value::Str(name))) => {
                self.select(base, &name.to_ascii_lowercase())
            }
            _ => ERROR,
        }
    }

    #[inline(never)]
    fn call(&mut self, call: &Call, scope: &Scope<'_>) -> Val {
        let Some(func) = call.func else {
            return ERROR;
        };
        if !func.accepts(call.args.len()) || !self.options.functions.has(func) {
            return ERROR;
        }
        match func {
            Builtin::IfThenElse => {
                let cond = self.eval(&call.args[0], scope);
                self.choose(&cond, &call.args[1], &call.args[2], scope)
            }
            Builtin::Eval => self.eval_string(&call.args[0], scope),
            Builtin::CountMatches | Builtin::EvalInEachContext => {
                self.in_each_context(func == Builtin::CountMatches, call, scope)
            }
            Builtin::Unparse => self.unparse(&call.args[0], scope),
            _ => {
                let mut args = Vec::with_capacity(call.args.len());
                for a in &call.args {
                    let v = self.eval(a, scope);
                    args.push(self.value_of(v));
                }
                if func == Builtin::Random {
                    return Val::V(self.random(&args));
                }
                if func == Builtin::FormatTime
                    && let Some(Value::Ad(ad)) = args.first()
                {
                    let fields = self.split_time_fields(ad, scope);
                    return Val::V(functions::format_split_time(fields, args.get(1)));
                }
                match functions::work(func, &args) {
                    Ok(work) if self.charge(work) => {}
                    Ok(_) => return ERROR,
                    Err(e) => {
                        self.too_large.get_or_insert(e);
                        return ERROR;
                    }
                }
                let env = Env {
                    now: self.options.now,
                    budget: self.remaining(),
                };
                let v = functions::apply(func, &args, &env);
                if !self.charge(v.weight(self.remaining().saturating_add(1))) {
                    return ERROR;
                }
                Val::in_side(v, scope.side)
            }
        }
    }

    /// `countMatches(e, ads)` / `evalInEachContext(e, ads)`: `e` evaluated in each ad of the
    /// list (with the current scope as its parent); the number of `true` results, or the
    /// list of results. As HTCondor's library has it: an `undefined` list counts nothing and
    /// gives `undefined` from `evalInEachContext`; an element that is not an ad is skipped by
    /// `countMatches` and gives `undefined` (if it is `undefined`) or `error` in the list of
    /// results; anything but a list is `error`.
    fn in_each_context(&mut self, count: bool, call: &Call, scope: &Scope<'_>) -> Val {
        let contexts = self.eval(&call.args[1], scope);
        let items = match contexts {
            Val::V(Value::List(items)) => items,
            Val::V(Value::Undefined) if count => return Val::V(Value::Int(0)),
            Val::V(Value::Undefined) => return UNDEFINED,
            _ => return ERROR,
        };
        let mut results = Vec::with_capacity(items.len());
        let mut matches = 0i64;
        for item in &items {
            let Value::Ad(ad) = item else {
                results.push(match item {
                    Value::Undefined => Value::Undefined,
                    _ => Value::Error,
                });
                continue;
            };
            let inner = Scope {
                ad,
                side: scope.side,
                parent: Some(scope),
            };
            let v = self.eval(&call.args[0], &inner);
            let v = self.value_of(v);
            matches += i64::from(v == Value::Bool(true));
            results.push(v);
        }
        Val::V(if count {
            Value::Int(matches)
        } else {
            Value::List(results)
        })
    }

    /// The fields of a split-time ad for `formatTime(ad)`: each attribute of
    /// [`functions::SPLIT_TIME_FIELDS`] evaluated in the ad, as a C `int` (HTCondor's
    /// `EvaluateAttrInt`: `None` when absent or not an integer).
    fn split_time_fields(&mut self, ad: &ClassAd, scope: &Scope<'_>) -> [Option<i32>; 6] {
        let inner = Scope {
            ad,
            side: scope.side,
            parent: Some(scope),
        };
        functions::SPLIT_TIME_FIELDS.map(|name| {
            let v = self.eval(ad.get(name)?, &inner);
            match self.value_of(v) {
                // Narrowed to 32 bits as HTCondor's `int` field is.
                Value::Int(i) => Some(i as i32),
                _ => None,
            }
        })
    }

    /// `random([x])`: a real in `[0, 1)`, or in `[0, x)` of `x`'s type for a positive number
    /// `x`; `error` for anything else.
    fn random(&mut self, args: &[Value]) -> Value {
        use rand::{RngExt, SeedableRng};
        let seed = self.options.seed;
        let rng = self.rng.get_or_insert_with(|| {
            rand_chacha::ChaCha8Rng::seed_from_u64(
                seed.unwrap_or_else(|| functions::clock(None).unsigned_abs()),
            )
        });
        match args.first() {
            None => Value::Real(rng.random::<f64>()),
            Some(Value::Int(x)) if *x > 0 => Value::Int(rng.random_range(0..*x)),
            Some(Value::Real(x)) if *x > 0.0 && x.is_finite() => {
                Value::Real(rng.random::<f64>() * x)
            }
            Some(_) => Value::Error,
        }
    }

    /// `eval(s)`: the string `s` parsed as an expression and evaluated here.
    fn eval_string(&mut self, arg: &Expr, scope: &Scope<'_>) -> Val {
        let v = self.eval(arg, scope);
        let text = match v {
            Val::V(Value::Str(s)) => s,
            Val::V(Value::Undefined | Value::Error) => return ERROR,
            // HTCondor's eval of a value that is not a string is that value.
            other => return other,
        };
        if !self.charge(text.len() as u64 / 8) {
            return ERROR;
        }
        match Expr::parse(&text) {
            Ok(expr) => {
                // The parsed expression lives only here: its attribute references are
                // memoised through the ads' own expressions, never through this one.
                self.eval(&expr, scope)
            }
            Err(_) => ERROR,
        }
    }

    /// `unparse(x)`: the text of attribute `x`'s expression (of the argument itself when it
    /// is not an attribute reference).
    fn unparse(&mut self, arg: &Expr, scope: &Scope<'_>) -> Val {
        // `(a)` is a parenthesis operator in HTCondor's tree, not an attribute reference.
        if arg.parenthesized() {
            return ERROR;
        }
        let text = match &arg.kind {
            ExprKind::Attr(name) => {
                let mut current = Some(scope);
                let mut found = None;
                while let Some(s) = current {
                    if let Some((_, e)) = s.ad.lookup_key(&name.key) {
                        // A literal prints as its value does (reals as `%1.15E`).
                        found = Some(match &e.kind {
                            ExprKind::Lit(v) => v.to_string(),
                            _ => e.to_string(),
                        });
                        break;
                    }
                    current = s.parent;
                }
                found.unwrap_or_default()
            }
            // Any other attribute reference (`TARGET.c`, `MY.c`, `x.y`, `.c`) is unparsed to
            // its text, which HTCondor looks up as an attribute name of the current ad: no
            // attribute has such a name, so the result is the empty string.
            ExprKind::Select(..) | ExprKind::Absolute(_) => String::new(),
            // HTCondor unparses attribute references only.
            _ => return ERROR,
        };
        Val::V(Value::Str(text.into()))
    }
}

fn unary(op: UnOp, v: Val) -> Val {
    let Val::V(v) = v else {
        return ERROR;
    };
    Val::V(match (op, v) {
        (_, v @ (Value::Error | Value::Undefined)) => v,
        (UnOp::Neg, Value::Int(i)) => Value::Int(i.wrapping_neg()),
        (UnOp::Neg, Value::Real(r)) => Value::Real(-r),
        (UnOp::Plus, v @ (Value::Int(_) | Value::Real(_))) => v,
        (UnOp::Not, v) => match v.as_bool_equiv() {
            Some(b) => Value::Bool(!b),
            None => Value::Error,
        },
        (UnOp::BitNot, Value::Int(i)) => Value::Int(!i),
        _ => Value::Error,
    })
}

/// `&&` (`and = true`) or `||` of two evaluated operands (HTCondor's `doLogical`).
pub(crate) fn logical_values(and: bool, left: &Value, right: &Value) -> Value {
    logical(and, &Val::V(left.clone()), &Val::V(right.clone()))
}

fn logical(and: bool, left: &Val, right: &Val) -> Value {
    /// An operand after the coercion of numbers to booleans.
    enum L {
        B(bool),
        Undefined,
        Error,
        Other,
    }
    let class = |v: &Val| match (v.bool_equiv(), v) {
        (Some(b), _) => L::B(b),
        (None, Val::V(Value::Undefined)) => L::Undefined,
        (None, Val::V(Value::Error)) => L::Error,
        _ => L::Other,
    };
    let (l, r) = (class(left), class(right));
    if matches!(l, L::Other) || matches!(r, L::Other) {
        return Value::Error;
    }
    let copy = |r: &L| match r {
        L::B(b) => Value::Bool(*b),
        L::Undefined => Value::Undefined,
        _ => Value::Error,
    };
    match l {
        L::B(b) if b != and => Value::Bool(b),
        L::Error => Value::Error,
        L::B(_) => copy(&r),
        _ => match r {
            L::B(b) if b != and => Value::Bool(b),
            L::B(_) => Value::Undefined,
            other => copy(&other),
        },
    }
}

fn binary(op: BinOp, a: Val, b: Val) -> Val {
    if matches!(op, BinOp::MetaEq | BinOp::MetaNotEq) {
        let same = match (&a, &b) {
            (Val::V(x), Val::V(y)) => match identical(x, y) {
                Some(same) => same,
                None => return ERROR,
            },
            (Val::V(_), _) | (_, Val::V(_)) => false,
            _ => return ERROR,
        };
        return Val::V(Value::Bool(same == (op == BinOp::MetaEq)));
    }
    // Strict: error first, then undefined, then type checks.
    if a == ERROR || b == ERROR {
        return ERROR;
    }
    if a == UNDEFINED || b == UNDEFINED {
        return UNDEFINED;
    }
    let (Val::V(x), Val::V(y)) = (a, b) else {
        return ERROR;
    };
    Val::V(match op {
        BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            compare(op, &x, &y)
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => arithmetic(op, &x, &y),
        _ => bitwise(op, &x, &y),
    })
}

/// `=?=`: same type and same value (strings case-sensitively); `None` (an error) for two
/// lists or ads, which HTCondor does not compare.
pub(crate) fn identical(x: &Value, y: &Value) -> Option<bool> {
    Some(match (x, y) {
        (Value::List(_) | Value::Ad(_), Value::List(_) | Value::Ad(_)) => return None,
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Real(a), Value::Real(b)) => a == b,
        (Value::Str(a), Value::Str(b)) => a == b,
        _ => false,
    })
}

/// Numbers after HTCondor's `coerceToNumber` (booleans as integers).
enum Nums {
    Ints(i64, i64),
    Reals(f64, f64),
}

fn numbers(x: &Value, y: &Value) -> Option<Nums> {
    let int = |v: &Value| match *v {
        Value::Int(i) => Some(i),
        Value::Bool(b) => Some(i64::from(b)),
        _ => None,
    };
    let real = |v: &Value| match *v {
        Value::Real(r) => Some(r),
        _ => int(v).map(|i| i as f64),
    };
    match (int(x), int(y)) {
        (Some(a), Some(b)) => Some(Nums::Ints(a, b)),
        _ => Some(Nums::Reals(real(x)?, real(y)?)),
    }
}

/// ASCII case-insensitive byte order, as `strcasecmp` in the C locale.
pub(crate) fn cmp_ignore_case(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.bytes(), b.bytes());
    a.map(|c| c.to_ascii_lowercase())
        .cmp(b.map(|c| c.to_ascii_lowercase()))
}

/// A strict comparison of two values that are neither `undefined` nor `error`.
pub(crate) fn compare(op: BinOp, x: &Value, y: &Value) -> Value {
    let ord = match (x, y) {
        (Value::Str(a), Value::Str(b)) => Some(cmp_ignore_case(a, b)),
        (Value::Str(_), _) | (_, Value::Str(_)) => return Value::Error,
        _ => match numbers(x, y) {
            Some(Nums::Ints(a, b)) => Some(a.cmp(&b)),
            Some(Nums::Reals(a, b)) => a.partial_cmp(&b),
            None => return Value::Error,
        },
    };
    // `None` is an unordered (NaN) comparison: only `!=` holds.
    Value::Bool(match op {
        BinOp::Eq => ord == Some(Ordering::Equal),
        BinOp::NotEq => ord != Some(Ordering::Equal),
        BinOp::Lt => ord == Some(Ordering::Less),
        BinOp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
        BinOp::Gt => ord == Some(Ordering::Greater),
        _ => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
    })
}

/// A binary operator applied to two evaluated operands, as the language defines it.
pub(crate) fn apply_binary(op: BinOp, x: &Value, y: &Value) -> Value {
    match binary(op, Val::V(x.clone()), Val::V(y.clone())) {
        Val::V(v) => v,
        _ => Value::Error,
    }
}

fn arithmetic(op: BinOp, x: &Value, y: &Value) -> Value {
    match numbers(x, y) {
        None => Value::Error,
        Some(Nums::Ints(a, b)) => match op {
            BinOp::Add => Value::Int(a.wrapping_add(b)),
            BinOp::Sub => Value::Int(a.wrapping_sub(b)),
            BinOp::Mul => Value::Int(a.wrapping_mul(b)),
            _ if b == 0 => Value::Error,
            BinOp::Div if a == i64::MIN && b == -1 => Value::Int(i64::MAX),
            BinOp::Div => Value::Int(a / b),
            _ if a == i64::MIN && b == -1 => Value::Int(0),
            _ => Value::Int(a % b),
        },
        Some(Nums::Reals(a, b)) => {
            let r = match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                _ => return Value::Error,
            };
            if r == f64::INFINITY {
                Value::Error
            } else {
                Value::Real(r)
            }
        }
    }
}

/// Shifts as HTCondor's code computes them on x86-64 (shift counts taken modulo 64).
fn bitwise(op: BinOp, x: &Value, y: &Value) -> Value {
    let (&Value::Int(a), &Value::Int(b)) = (x, y) else {
        return Value::Error;
    };
    let count = b as u32; // the hardware uses the low six bits
    Value::Int(match op {
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl => a.wrapping_shl(count),
        BinOp::Shr if a >= 0 => a.wrapping_shr(count),
        BinOp::Shr if b <= 0 => a,
        BinOp::Shr if b >= 64 => -1,
        BinOp::Shr => a >> b,
        _ if a >= 0 => a.wrapping_shr(count),
        _ => ((a >> 1) & i64::MAX).wrapping_shr(b.wrapping_sub(1) as u32),
    })
}
