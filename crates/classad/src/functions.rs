//! The built-in functions this implementation provides.
//!
//! Language reference: HTCondor manual, *ClassAd Mechanism → Predefined Functions*; behaviour
//! as HTCondor's `fnCall.cpp`, checked against the library (see the fixture table). Names are
//! case-insensitive; a call with the wrong number of arguments is `error`, and so is a call of
//! any function not listed here (HTCondor evaluates unknown functions to `error` too).
//!
//! | function | result |
//! |---|---|
//! | `isUndefined(x)`, `isError(x)`, `isString(x)`, `isInteger(x)`, `isReal(x)`, `isBoolean(x)` | whether `x` has that type (no promotion: `isInteger(true)` is `false`) |
//! | `ifThenElse(c, a, b)` | `a` if `c` is true or a non-zero number, `b` if false or zero (only the chosen branch is evaluated); `undefined` if `c` is, `error` otherwise |
//! | `int(x)` | integers as they are, reals truncated, booleans 0/1, strings read as C's `strtod` reads a prefix, then truncated; `undefined`/`error` propagate |
//! | `real(x)` | the same conversions to a real (`real("INF")`, `real("nan")` work) |
//! | `string(x)` | strings as they are; other values as the new-syntax printer writes them (`"2.500000000000000E+00"`) |
//! | `strcat(x, …)` | the arguments converted as by `string`, joined; the first `undefined` or `error` argument is the result |
//! | `toLower(x)`, `toUpper(x)` | ASCII case change of `string(x)` |
//! | `size(s)` | length of a string in bytes; `undefined` propagates, other types are `error` |
//! | `floor(x)`, `ceiling(x)` (alias `ceil`), `round(x)` | integer results; `round` rounds half to even; strings are read as by `real`; an `undefined` argument gives `error` |
//!
//! Conversions of out-of-range reals (and NaN) to integers give `-9223372036854775808`, as
//! C's cast does on x86-64 where HTCondor runs.

use super::value::Value;

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    IsUndefined,
    IsError,
    IsString,
    IsInteger,
    IsReal,
    IsBoolean,
    IfThenElse,
    Int,
    Real,
    String,
    Strcat,
    ToLower,
    ToUpper,
    Size,
    Floor,
    Ceiling,
    Round,
}

impl Builtin {
    /// The built-in a (case-insensitive) name refers to.
    pub(crate) fn lookup(name: &str) -> Option<Builtin> {
        Some(match name.to_ascii_lowercase().as_str() {
            "isundefined" => Builtin::IsUndefined,
            "iserror" => Builtin::IsError,
            "isstring" => Builtin::IsString,
            "isinteger" => Builtin::IsInteger,
            "isreal" => Builtin::IsReal,
            "isboolean" => Builtin::IsBoolean,
            "ifthenelse" => Builtin::IfThenElse,
            "int" => Builtin::Int,
            "real" => Builtin::Real,
            "string" => Builtin::String,
            "strcat" => Builtin::Strcat,
            "tolower" => Builtin::ToLower,
            "toupper" => Builtin::ToUpper,
            "size" => Builtin::Size,
            "floor" => Builtin::Floor,
            "ceiling" | "ceil" => Builtin::Ceiling,
            "round" => Builtin::Round,
            _ => return None,
        })
    }

    /// The number of arguments, or `None` for `strcat`, which takes any number.
    pub(crate) fn arity(self) -> Option<usize> {
        match self {
            Builtin::Strcat => None,
            Builtin::IfThenElse => Some(3),
            _ => Some(1),
        }
    }

    /// Applies a strict one-argument built-in (everything but `ifThenElse` and `strcat`).
    pub(crate) fn apply1(self, arg: &Value) -> Value {
        match self {
            Builtin::IsUndefined => Value::Bool(matches!(arg, Value::Undefined)),
            Builtin::IsError => Value::Bool(matches!(arg, Value::Error)),
            Builtin::IsString => Value::Bool(matches!(arg, Value::Str(_))),
            Builtin::IsInteger => Value::Bool(matches!(arg, Value::Int(_))),
            Builtin::IsReal => Value::Bool(matches!(arg, Value::Real(_))),
            Builtin::IsBoolean => Value::Bool(matches!(arg, Value::Bool(_))),
            Builtin::Int => match to_real_or_int(arg) {
                Some(Num::Int(i)) => Value::Int(i),
                Some(Num::Real(r)) => Value::Int(c_cast_to_i64(r)),
                None => propagate_or_error(arg),
            },
            Builtin::Real => match to_real_or_int(arg) {
                Some(Num::Int(i)) => Value::Real(i as f64),
                Some(Num::Real(r)) => Value::Real(r),
                None => propagate_or_error(arg),
            },
            Builtin::String => match arg {
                Value::Undefined | Value::Error => arg.clone(),
                other => Value::Str(to_text(other)),
            },
            Builtin::ToLower | Builtin::ToUpper => match arg {
                Value::Undefined | Value::Error => arg.clone(),
                other => {
                    let text = to_text(other);
                    Value::Str(if self == Builtin::ToLower {
                        text.to_ascii_lowercase()
                    } else {
                        text.to_ascii_uppercase()
                    })
                }
            },
            Builtin::Size => match arg {
                Value::Undefined => Value::Undefined,
                Value::Str(s) => Value::Int(s.len() as i64),
                _ => Value::Error,
            },
            Builtin::Floor | Builtin::Ceiling | Builtin::Round => match to_real_or_int(arg) {
                Some(Num::Int(i)) => Value::Int(i),
                Some(Num::Real(r)) => Value::Int(c_cast_to_i64(match self {
                    Builtin::Floor => r.floor(),
                    Builtin::Ceiling => r.ceil(),
                    _ => r.round_ties_even(),
                })),
                None => Value::Error,
            },
            Builtin::IfThenElse | Builtin::Strcat => Value::Error,
        }
    }
}

/// `strcat` of already evaluated arguments.
pub(crate) fn strcat(args: &[Value]) -> Value {
    let mut out = String::new();
    for arg in args {
        match arg {
            Value::Undefined | Value::Error => return arg.clone(),
            other => out.push_str(&to_text(other)),
        }
    }
    Value::Str(out)
}

/// A value as `string()` renders it.
fn to_text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => other.to_string(),
    }
}

fn propagate_or_error(arg: &Value) -> Value {
    match arg {
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

enum Num {
    Int(i64),
    Real(f64),
}

/// The numeric reading of a value for the conversion functions: booleans as 0/1, strings as
/// `strtod` reads them. `None` for `undefined`, `error` and unreadable strings.
fn to_real_or_int(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::Int(*i)),
        Value::Bool(b) => Some(Num::Int(i64::from(*b))),
        Value::Real(r) => Some(Num::Real(*r)),
        Value::Str(s) => strtod_prefix(s).map(Num::Real),
        Value::Undefined | Value::Error => None,
    }
}

/// C's `(long long)` cast of a double on x86-64: out-of-range values and NaN give `i64::MIN`.
pub(crate) fn c_cast_to_i64(r: f64) -> i64 {
    // 2^63 is exactly representable; every double in [-2^63, 2^63) converts exactly.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if r.is_nan() || !(-LIMIT..LIMIT).contains(&r) {
        i64::MIN
    } else {
        r as i64
    }
}

/// The number glibc's `strtod` reads from the start of `s` (after C white space), or `None`
/// if it reads nothing: decimal with optional point and exponent, `inf`/`infinity`, `nan`,
/// and hexadecimal `0x…[p…]` (rounded from at most 16 significant hex digits).
pub(crate) fn strtod_prefix(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && super::lexer::is_c_space(b[i]) {
        i += 1;
    }
    let start = i;
    let negative = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let starts_ci =
        |word: &str| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    let sign = if negative { -1.0 } else { 1.0 };
    if starts_ci("inf") {
        return Some(sign * f64::INFINITY);
    }
    if starts_ci("nan") {
        return Some(f64::NAN);
    }
    if starts_ci("0x")
        && let Some(r) = hex_float(&rest[2..])
    {
        return Some(sign * r);
    }
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let int_end = digits(i);
    let mut end = int_end;
    let mut any_digit = int_end > i;
    if b.get(end) == Some(&b'.') {
        let frac_end = digits(end + 1);
        any_digit |= frac_end > end + 1;
        end = frac_end;
    }
    if !any_digit {
        return None;
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_end = digits(j);
        if exp_end > j {
            end = exp_end;
        }
    }
    s[start..end].parse().ok()
}

/// The value of hexadecimal digits `h.hhh[p±d]` (after `0x`), or `None` without digits.
fn hex_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut mantissa: u64 = 0;
    let mut significant = 0;
    let mut exp2: i64 = 0;
    let mut any = false;
    let mut i = 0;
    let mut after_point = false;
    while i < b.len() {
        let c = b[i];
        if c == b'.' && !after_point {
            after_point = true;
        } else if let Some(d) = (c as char).to_digit(16) {
            any = true;
            if significant < 16 {
                if mantissa != 0 || d != 0 {
                    significant += 1;
                }
                mantissa = mantissa * 16 + u64::from(d);
                if after_point {
                    exp2 -= 4;
                }
            } else if !after_point {
                exp2 += 4;
            }
        } else {
            break;
        }
        i += 1;
    }
    if !any {
        return None;
    }
    if matches!(b.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let negative = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > start {
            let e: i64 = s[start..j].parse().unwrap_or(i64::MAX / 4).min(100_000);
            exp2 += if negative { -e } else { e };
        }
    }
    // Scale in steps so that no intermediate power of two overflows on its own.
    let mut e = i32::try_from(exp2.clamp(-100_000, 100_000)).expect("clamped");
    let mut r = mantissa as f64;
    while e > 1000 {
        r *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        r *= 2f64.powi(-1000);
        e += 1000;
    }
    Some(r * 2f64.powi(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_reads_a_prefix_like_glibc() {
        assert_eq!(strtod_prefix("  12abc"), Some(12.0));
        assert_eq!(strtod_prefix("1e"), Some(1.0));
        assert_eq!(strtod_prefix("+.5e1xyz"), Some(5.0));
        assert_eq!(strtod_prefix("0x10"), Some(16.0));
        assert_eq!(strtod_prefix("0x1p3"), Some(8.0));
        assert_eq!(strtod_prefix("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(strtod_prefix("nan").unwrap().is_nan());
        for none in ["", " ", ".", "-.e1", "abc", "e5"] {
            assert_eq!(strtod_prefix(none), None, "{none:?}");
        }
    }

    #[test]
    fn casts_saturate_to_min_like_x86() {
        assert_eq!(c_cast_to_i64(2.9), 2);
        assert_eq!(c_cast_to_i64(-2.9), -2);
        assert_eq!(c_cast_to_i64(1e30), i64::MIN);
        assert_eq!(c_cast_to_i64(f64::NAN), i64::MIN);
        assert_eq!(c_cast_to_i64(-9.2e18), -9_200_000_000_000_000_000);
    }
}
