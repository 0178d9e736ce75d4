//! List functions: `anyCompare`/`allCompare` and the `min`/`max`/`sum`/`avg` aggregates.

use super::*;

/// `anyCompare(op, list, x)` / `allCompare(op, list, x)`: whether `element op x` is true for
/// some / every element. Strict in the operator and the list only. As HTCondor's library
/// (`fnCall.cpp`) does, the elements are compared in order and the first that decides ends
/// the call: a `true` for `anyCompare`, a `false` for `allCompare`; a comparison that is
/// `error` (an error element, a number against a string) makes the call `error` and one that
/// is `undefined` makes it `false`, wherever the list goes on (`allCompare(">=", {-1.25, "x"},
/// 3.0)` is `false`).
pub(super) fn any_all_compare(func: Builtin, args: &[Value]) -> Value {
    let (op, list) = (&args[0], &args[1]);
    if !matches!(op, Value::Str(_) | Value::Undefined | Value::Error) {
        return Value::Error;
    }
    if let Some(v) = exceptional(&args[..2]) {
        return v;
    }
    let (Value::Str(op), Value::List(items)) = (op, list) else {
        return Value::Error;
    };
    let Some(op) = comparison(op) else {
        return Value::Error;
    };
    let x = &args[2];
    let any = func == Builtin::AnyCompare;
    for item in items.iter() {
        match apply_binary(op, item, x) {
            Value::Bool(b) if b == any => return Value::Bool(any),
            Value::Bool(_) => {}
            Value::Error => return Value::Error,
            _ => return Value::Bool(false),
        }
    }
    Value::Bool(!any)
}

/// The binary operator an `anyCompare` / `allCompare` operator string names.
pub(super) fn comparison(op: &str) -> Option<BinOp> {
    Some(match op.to_ascii_lowercase().as_str() {
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        "==" => BinOp::Eq,
        "!=" => BinOp::NotEq,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "is" => BinOp::MetaEq,
        "isnt" => BinOp::MetaNotEq,
        _ => return None,
    })
}

/// `min`, `max`, `sum` or `avg` over values; `undefined` ones are skipped, other non-numbers
/// are `error`. Integers (and booleans) stay integers, except in `avg`.
pub(super) fn aggregate<'v>(func: Builtin, items: impl Iterator<Item = &'v Value>) -> Value {
    let mut acc: Option<Num> = None;
    let mut count = 0usize;
    for item in items {
        if matches!(item, Value::Undefined) {
            continue;
        }
        let Some(n) = to_number(item) else {
            return Value::Error;
        };
        count += 1;
        acc = Some(match (acc, n) {
            (None, n) => n,
            (Some(Num::Int(x)), Num::Int(y)) => Num::Int(match func {
                Builtin::Min => x.min(y),
                Builtin::Max => x.max(y),
                _ => x.wrapping_add(y),
            }),
            (Some(x), y) => {
                let (x, y) = (x.real(), y.real());
                Num::Real(match func {
                    Builtin::Min => x.min(y),
                    Builtin::Max => x.max(y),
                    _ => x + y,
                })
            }
        });
    }
    match (func, acc) {
        (Builtin::Min | Builtin::Max, None) => Value::Undefined,
        (_, None) => Value::Int(0),
        (Builtin::Avg, Some(total)) => Value::Real(total.real() / count as f64),
        (_, Some(Num::Int(i))) => Value::Int(i),
        (_, Some(Num::Real(r))) => Value::Real(r),
    }
}
