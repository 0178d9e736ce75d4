//! Math: `pow` and `quantize` (`floor`, `ceiling` and `round` are in the dispatcher).

use super::*;

/// `pow(b, e)`: an integer (C's cast of the real power) for two integers with `e ≥ 0`, else
/// a real; booleans and strings are read as reals.
pub(super) fn pow(base: &Value, exp: &Value) -> Value {
    match (base, exp) {
        (Value::Int(b), Value::Int(e)) if *e >= 0 => {
            Value::Int(c_cast_to_i64((*b as f64).powf(*e as f64)))
        }
        _ => match (to_real_or_int(base), to_real_or_int(exp)) {
            (Some(b), Some(e)) => Value::Real(b.real().powf(e.real())),
            _ => Value::Error,
        },
    }
}

/// `quantize(a, b)` as HTCondor's `doMath2` computes it: `a` rounded up to a multiple of
/// `b`; for a list `b`, its first item `≥ a` (returned as it is), else a multiple of its last
/// item. An integer base keeps an integer `a` integral (C's truncating division, wrapping); a
/// base of 0, or a real base within ±1e-8, returns `a` unchanged (even a string).
pub(super) fn quantize(a: &Value, b: &Value) -> Value {
    let Some(x) = to_real_or_int(a).map(|n| n.real()) else {
        return Value::Error;
    };
    let base = match b {
        Value::List(items) => {
            // An empty list does not quantize.
            let mut last = Value::Real(0.0);
            for item in items {
                let Some(n) = to_real_or_int(item) else {
                    return Value::Error;
                };
                if n.real() >= x {
                    return item.clone();
                }
                last = item.clone();
            }
            last
        }
        b => b.clone(),
    };
    let Some(rbase) = to_real_or_int(&base).map(|n| n.real()) else {
        return Value::Error;
    };
    const EPSILON: f64 = 1e-8;
    match (a, base) {
        (_, Value::Int(0)) => a.clone(),
        (Value::Int(i), Value::Int(b)) => Value::Int(
            i.wrapping_add(b)
                .wrapping_sub(1)
                .wrapping_div(b)
                .wrapping_mul(b),
        ),
        (_, Value::Int(b)) => Value::Real((x / b as f64).ceil() * b as f64),
        _ if (-EPSILON..=EPSILON).contains(&rbase) => a.clone(),
        _ => Value::Real((x / rbase).ceil() * rbase),
    }
}
