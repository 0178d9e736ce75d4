//! Types and conversions: numbers as the conversion functions read them, C's casts and
//! `strtod`.

use super::*;

/// A value as `string()` renders it.
pub(super) fn to_text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        other => other.to_string(),
    }
}

pub(super) enum Num {
    Int(i64),
    Real(f64),
}

impl Num {
    pub(super) fn real(&self) -> f64 {
        match *self {
            Num::Int(i) => i as f64,
            Num::Real(r) => r,
        }
    }
}

/// A number or boolean (as 0/1) without reading strings.
pub(super) fn to_number(v: &Value) -> Option<Num> {
    match *v {
        Value::Int(i) => Some(Num::Int(i)),
        Value::Bool(b) => Some(Num::Int(i64::from(b))),
        Value::Real(r) => Some(Num::Real(r)),
        _ => None,
    }
}

/// The numeric reading of a value for the conversion functions: booleans as 0/1, strings as
/// `strtod` reads them. `None` for `undefined`, `error` and unreadable strings.
pub(super) fn to_real_or_int(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::Int(*i)),
        Value::Bool(b) => Some(Num::Int(i64::from(*b))),
        Value::Real(r) => Some(Num::Real(*r)),
        Value::Str(s) => strtod_prefix(s).map(Num::Real),
        _ => None,
    }
}

/// C's `(long long)` cast of a double on x86-64: out-of-range values and NaN give `i64::MIN`.
pub(super) fn c_cast_to_i64(r: f64) -> i64 {
    // 2^63 is exactly representable; every double in [-2^63, 2^63) converts exactly.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if r.is_nan() || !(-LIMIT..LIMIT).contains(&r) {
        i64::MIN
    } else {
        r as i64
    }
}

/// C's `(int)` cast of a double on x86-64: out-of-range values and NaN give `i32::MIN`.
pub(super) fn c_cast_to_i32(r: f64) -> i32 {
    if r.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&r) {
        i32::MIN
    } else {
        r as i32
    }
}

/// The number glibc's `strtod` reads from the start of `s` (after C white space), or `None`
/// if it reads nothing: decimal with optional point and exponent, `inf`/`infinity`, `nan`,
/// and hexadecimal `0x…[p…]` (rounded from at most 16 significant hex digits).
pub(super) fn strtod_prefix(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && crate::lexer::is_c_space(b[i]) {
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
pub(super) fn hex_float(s: &str) -> Option<f64> {
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
    // Clamped to ±100,000, so the narrowing cannot lose anything.
    let mut e = exp2.clamp(-100_000, 100_000) as i32;
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
