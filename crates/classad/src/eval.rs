//! Evaluation: scoping, the three-valued operators and the strict-operator rules.
//!
//! Language reference: HTCondor manual, *ClassAd Mechanism → Evaluation Semantics* (Undefined
//! and Error, strict and non-strict operators, `MY.` / `TARGET.`), and the library's
//! `operators.cpp` / `attrrefs.cpp`, with old-ClassAd semantics on (HTCondor's default,
//! `STRICT_CLASSAD_EVALUATION = False`):
//!
//! - **Attribute references.** An unscoped name is looked up in the ad the expression belongs
//!   to, then (when there is a target ad) in the other ad. `MY.x` looks only in the expression's
//!   own ad, `TARGET.x` only in the other; when `x` is found there, *its* expression is
//!   evaluated with that ad as `MY`. `MY` and `TARGET` are ordinary names that resolve to the
//!   two ads (as do `other` for the target and `ad` for the own ad), so an attribute of that
//!   name shadows them, as in HTCondor. Selecting from a value that is not an ad is `error`
//!   (`undefined` stays `undefined`). A reference to an attribute that is already being
//!   evaluated (a cycle such as `a = b; b = a`) is `undefined`, as in HTCondor 25.
//! - **Strict operators** (arithmetic, comparison, bitwise, unary): `error` if any operand is
//!   `error`, else `undefined` if any is `undefined`. Booleans count as 0/1 in arithmetic and
//!   comparison; an integer and a real compare and compute as reals. `==`, `!=`, `<`, … on two
//!   strings ignore ASCII case; a string against a non-string is `error`.
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
//! Evaluation is bounded: more than [`MAX_EVAL_DEPTH`] nested operations and attribute
//! references give `error` (HTCondor fails the evaluation past 1,000 nested references).

use super::ClassAd;
use super::functions::{Builtin, strcat};
use super::parser::{BinOp, Call, Expr, ExprKind, Name, UnOp};
use super::value::Value;
use std::cmp::Ordering;

/// Deepest evaluation (operations plus attribute references) before the result is `error`.
pub const MAX_EVAL_DEPTH: usize = 1024;

/// One of the two ads of an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
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

/// An intermediate result: a value, or one of the two ads (what `MY` and `TARGET` denote).
#[derive(Debug, Clone, PartialEq)]
enum Val {
    V(Value),
    Ad(Side),
}

const UNDEFINED: Val = Val::V(Value::Undefined);
const ERROR: Val = Val::V(Value::Error);

impl Val {
    fn bool_equiv(&self) -> Option<bool> {
        match self {
            Val::V(v) => v.as_bool_equiv(),
            Val::Ad(_) => None,
        }
    }

    /// The public value; a whole ad as a result is reported as `error` (HTCondor would return
    /// the ad itself, which [`Value`] cannot hold).
    fn into_value(self) -> Value {
        match self {
            Val::V(v) => v,
            Val::Ad(_) => Value::Error,
        }
    }
}

/// Evaluates expressions against an ad and an optional target ad.
pub(crate) struct Evaluator<'a> {
    my: &'a ClassAd,
    target: Option<&'a ClassAd>,
    /// Attributes being evaluated, to turn cycles into `undefined`.
    active: Vec<(Side, &'a str)>,
    depth: usize,
}

impl<'a> Evaluator<'a> {
    pub(crate) fn new(my: &'a ClassAd, target: Option<&'a ClassAd>) -> Self {
        Evaluator {
            my,
            target,
            active: Vec::new(),
            depth: 0,
        }
    }

    /// `expr` evaluated with `MY` = the first ad.
    pub(crate) fn eval_expr(&mut self, expr: &'a Expr) -> Value {
        self.eval(expr, Side::My).into_value()
    }

    /// The first ad's attribute `name` (`undefined` if it has none).
    pub(crate) fn eval_attr(&mut self, name: &str) -> Value {
        let key = name.to_ascii_lowercase();
        match self.my.lookup_key(&key) {
            Some((key, expr)) => self.attribute(Side::My, key, expr).into_value(),
            None => Value::Undefined,
        }
    }

    fn ad(&self, side: Side) -> Option<&'a ClassAd> {
        match side {
            Side::My => Some(self.my),
            Side::Target => self.target,
        }
    }

    fn eval(&mut self, e: &'a Expr, cur: Side) -> Val {
        if self.depth >= MAX_EVAL_DEPTH {
            return ERROR;
        }
        self.depth += 1;
        let result = match &e.kind {
            ExprKind::Lit(v) => Val::V(v.clone()),
            ExprKind::Attr(name) => self.unscoped(name, cur),
            ExprKind::Select(base, name) => match self.eval(base, cur) {
                Val::Ad(side) => self.scoped(name, side),
                Val::V(Value::Undefined) => UNDEFINED,
                Val::V(_) => ERROR,
            },
            ExprKind::Unary(op, operand) => {
                let v = self.eval(operand, cur);
                unary(*op, v)
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let left = self.eval(a, cur);
                match (op, left.bool_equiv()) {
                    (BinOp::Or, Some(true)) => Val::V(Value::Bool(true)),
                    (BinOp::And, Some(false)) => Val::V(Value::Bool(false)),
                    _ => {
                        let right = self.eval(b, cur);
                        Val::V(logical(*op == BinOp::And, &left, &right))
                    }
                }
            }
            ExprKind::Binary(op, a, b) => {
                let left = self.eval(a, cur);
                let right = self.eval(b, cur);
                binary(*op, left, right)
            }
            ExprKind::Cond(c, a, b) => {
                let cond = self.eval(c, cur);
                self.choose(&cond, a, b, cur)
            }
            ExprKind::Elvis(a, b) => match self.eval(a, cur) {
                Val::V(Value::Undefined) => self.eval(b, cur),
                v => v,
            },
            ExprKind::Call(call) => self.call(call, cur),
        };
        self.depth -= 1;
        result
    }

    /// `c ? a : b` and `ifThenElse(c, a, b)` once `c` is known: only the chosen branch is
    /// evaluated; an `undefined` condition gives `undefined`, a non-boolean one `error`.
    fn choose(&mut self, cond: &Val, a: &'a Expr, b: &'a Expr, cur: Side) -> Val {
        match cond.bool_equiv() {
            Some(true) => self.eval(a, cur),
            Some(false) => self.eval(b, cur),
            None if *cond == UNDEFINED => UNDEFINED,
            None => ERROR,
        }
    }

    /// An attribute found in `side`'s ad, evaluated there; `undefined` on a cycle.
    fn attribute(&mut self, side: Side, key: &'a str, expr: &'a Expr) -> Val {
        if self.active.contains(&(side, key)) {
            return UNDEFINED;
        }
        self.active.push((side, key));
        let v = self.eval(expr, side);
        self.active.pop();
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

    fn own(&self, side: Side, key: &str) -> Option<(&'a str, &'a Expr)> {
        self.ad(side)?.lookup_key(key)
    }

    fn scoped(&mut self, name: &Name, side: Side) -> Val {
        if let Some((key, expr)) = self.own(side, &name.key) {
            return self.attribute(side, key, expr);
        }
        self.ad_name(&name.key, side).unwrap_or(UNDEFINED)
    }

    fn unscoped(&mut self, name: &Name, cur: Side) -> Val {
        if let Some((key, expr)) = self.own(cur, &name.key) {
            return self.attribute(cur, key, expr);
        }
        if let Some(ad) = self.ad_name(&name.key, cur) {
            return ad;
        }
        // Old-ClassAd semantics: fall back to the other ad of the match.
        match self.own(cur.other(), &name.key) {
            Some((key, expr)) => self.attribute(cur.other(), key, expr),
            None => UNDEFINED,
        }
    }

    fn call(&mut self, call: &'a Call, cur: Side) -> Val {
        let Some(func) = call.func else {
            return ERROR;
        };
        if func.arity().is_some_and(|n| n != call.args.len()) {
            return ERROR;
        }
        match func {
            Builtin::IfThenElse => {
                let cond = self.eval(&call.args[0], cur);
                self.choose(&cond, &call.args[1], &call.args[2], cur)
            }
            Builtin::Strcat => {
                let args: Vec<Value> = call
                    .args
                    .iter()
                    .map(|a| self.eval(a, cur).into_value())
                    .collect();
                Val::V(strcat(&args))
            }
            _ => match self.eval(&call.args[0], cur) {
                Val::V(v) => Val::V(func.apply1(&v)),
                Val::Ad(side) => Val::V(match func {
                    Builtin::Size => Value::Int(self.ad(side).map_or(0, |ad| ad.len() as i64)),
                    Builtin::IsUndefined
                    | Builtin::IsError
                    | Builtin::IsString
                    | Builtin::IsInteger
                    | Builtin::IsReal
                    | Builtin::IsBoolean => Value::Bool(false),
                    _ => Value::Error,
                }),
            },
        }
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
            (Val::Ad(_), Val::Ad(_)) => return ERROR,
            (Val::V(x), Val::V(y)) => identical(x, y),
            _ => false,
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

/// `=?=`: same type and same value (strings case-sensitively).
fn identical(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Real(a), Value::Real(b)) => a == b,
        (Value::Str(a), Value::Str(b)) => a == b,
        _ => false,
    }
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
fn cmp_ignore_case(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.bytes(), b.bytes());
    a.map(|c| c.to_ascii_lowercase())
        .cmp(b.map(|c| c.to_ascii_lowercase()))
}

fn compare(op: BinOp, x: &Value, y: &Value) -> Value {
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
