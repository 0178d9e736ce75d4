//! ClassAd values and how HTCondor prints them.
//!
//! Language reference: HTCondor manual, *ClassAd Mechanism → ClassAd Syntax → Literals*
//! (integer, real, string, boolean, `undefined`, `error`), and the library's unparser
//! (`ClassAdUnParser::Unparse`), whose output this module reproduces byte for byte:
//!
//! | value | new ClassAd syntax (`Display`) | old syntax ([`Value::old_syntax`]) |
//! |---|---|---|
//! | `Int(3)` | `3` | `3` |
//! | `Real(2.5)` | `2.500000000000000E+00` (`%1.15E`) | `2.5` (`%.16G`, `.0` added to integers) |
//! | `Real(1e16)` | `1.000000000000000E+16` | `1E+16` |
//! | `Real(±0.0)` | `0.0` / `-0.0` | same |
//! | `Real(inf)`, `Real(NaN)` | `real("INF")`, `real("-INF")`, `real("NaN")` | same |
//! | `Str("a\nb")` | `"a\nb"`: `\a \b \f \n \r \t \v \\ \"` escaped, other bytes outside printable ASCII as `\ooo` octal | only `"` is escaped; the rest is raw |
//!
//! The new syntax is what `str()` of an expression gives in HTCondor's Python bindings and what
//! `classad_eval` prints; the old syntax is what `condor_q -l` and `condor_status -l` print.

use crate::ClassAd;
use std::fmt;

/// A ClassAd value: the result of evaluating an expression.
///
/// Strings hold UTF-8 text and compare by bytes (HTCondor's strings are bytes too);
/// [`Value::Error`] and [`Value::Undefined`] are ordinary values that operators propagate.
/// A list holds its elements evaluated (HTCondor keeps them as expressions and evaluates them
/// on use; the values are the same, only the printed form of a computed element differs). A
/// nested ad keeps its expressions. Absolute and relative times are not part of this
/// implementation.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `undefined`: a missing attribute, or an operation on one.
    Undefined,
    /// `error`: a type error such as `"a" + 1`, or `1 / 0`.
    Error,
    /// `true` or `false`.
    Bool(bool),
    /// A 64-bit integer (arithmetic wraps around, as it does in HTCondor on x86-64).
    Int(i64),
    /// A double-precision real.
    Real(f64),
    /// A string, shared: copying the value (a reference to an attribute, a list element)
    /// copies no text.
    Str(std::sync::Arc<str>),
    /// A list `{ a, b, … }`.
    List(Vec<Value>),
    /// A nested ad `[ name = expression; … ]`.
    Ad(Box<ClassAd>),
}

impl Value {
    /// The value as a boolean the way HTCondor's `IsBooleanValueEquiv` sees it: booleans, and
    /// numbers (non-zero is `true`; NaN is non-zero). `None` for everything else.
    pub fn as_bool_equiv(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            Value::Int(i) => Some(i != 0),
            Value::Real(r) => Some(r != 0.0),
            _ => None,
        }
    }

    /// The value as a number the way HTCondor's `IsNumber` sees it: integers and reals, and
    /// booleans as 1.0 / 0.0. `None` for everything else.
    pub fn as_number(&self) -> Option<f64> {
        match *self {
            Value::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
            Value::Int(i) => Some(i as f64),
            Value::Real(r) => Some(r),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is one (no conversion).
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// How much memory the value stands for, in units of one list element or eight bytes of
    /// string, counting at most to `cap` (the evaluation budget charges values by this).
    pub fn weight(&self, cap: u64) -> u64 {
        match self {
            Value::Str(s) => 1 + s.len() as u64 / 8,
            Value::List(items) => {
                let mut w = 1 + items.len() as u64;
                for item in items {
                    if w >= cap {
                        break;
                    }
                    w = w.saturating_add(item.weight(cap - w));
                }
                w.min(cap.max(1))
            }
            Value::Ad(ad) => 1 + ad.len() as u64,
            _ => 1,
        }
    }

    /// True for `undefined` and `error`, the values strict operators propagate.
    pub fn is_exceptional(&self) -> bool {
        matches!(self, Value::Undefined | Value::Error)
    }

    /// The value printed in HTCondor's *old* ClassAd syntax (reals as `%.16G`, strings
    /// unescaped), as `condor_q -l` shows attribute values.
    pub fn old_syntax(&self) -> OldSyntax<'_> {
        OldSyntax(self)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(r: f64) -> Self {
        Value::Real(r)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s.into())
    }
}

/// Prints in the new ClassAd syntax, exactly as HTCondor's unparser does.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Undefined => f.write_str("undefined"),
            Value::Error => f.write_str("error"),
            Value::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::Real(r) => match special_real(*r) {
                Some(s) => f.write_str(s),
                None => f.write_str(&format_exp(*r)),
            },
            Value::List(items) => write_list(f, items),
            Value::Ad(ad) => write!(f, "{ad}"),
            Value::Str(s) => {
                f.write_str("\"")?;
                for &b in s.as_bytes() {
                    match b {
                        b'"' => f.write_str("\\\"")?,
                        0x07 => f.write_str("\\a")?,
                        0x08 => f.write_str("\\b")?,
                        0x0c => f.write_str("\\f")?,
                        b'\n' => f.write_str("\\n")?,
                        b'\r' => f.write_str("\\r")?,
                        b'\t' => f.write_str("\\t")?,
                        0x0b => f.write_str("\\v")?,
                        b'\\' => f.write_str("\\\\")?,
                        0x20..=0x7e => write!(f, "{}", b as char)?,
                        _ => write!(f, "\\{b:03o}")?,
                    }
                }
                f.write_str("\"")
            }
        }
    }
}

/// A list as HTCondor's unparser prints it: `{ a,b }` (`{  }` when empty).
pub(crate) fn write_list<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    items: impl IntoIterator<Item = T>,
) -> fmt::Result {
    f.write_str("{ ")?;
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{item}")?;
    }
    f.write_str(" }")
}

/// A [`Value`] printed in HTCondor's old ClassAd syntax; see [`Value::old_syntax`].
#[derive(Debug, Clone, Copy)]
pub struct OldSyntax<'a>(&'a Value);

impl fmt::Display for OldSyntax<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::Real(r) => match special_real(*r) {
                Some(s) => f.write_str(s),
                None => f.write_str(&format_general16(*r)),
            },
            Value::Str(s) => write!(f, "\"{}\"", s.replace('"', "\\\"")),
            Value::List(items) => write_list(f, items.iter().map(Value::old_syntax)),
            other => write!(f, "{other}"),
        }
    }
}

/// The spellings HTCondor gives zeros, infinities and NaN in both syntaxes.
fn special_real(r: f64) -> Option<&'static str> {
    if r == 0.0 {
        Some(if r.is_sign_negative() { "-0.0" } else { "0.0" })
    } else if r.is_nan() {
        Some("real(\"NaN\")")
    } else if r == f64::INFINITY {
        Some("real(\"INF\")")
    } else if r == f64::NEG_INFINITY {
        Some("real(\"-INF\")")
    } else {
        None
    }
}

/// C's `%1.15E`: one digit, a point, 15 digits, `E`, a sign and at least two exponent digits.
pub(crate) fn format_exp(r: f64) -> String {
    let s = format!("{r:.15E}");
    let (mantissa, exp) = split_exponent(&s);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}E{sign}{:02}", exp.unsigned_abs())
}

/// The mantissa and decimal exponent of Rust's `{:E}` output (which always has an exponent).
fn split_exponent(s: &str) -> (&str, i32) {
    let (mantissa, exp) = s.split_once('E').unwrap_or((s, "0"));
    (mantissa, exp.parse().unwrap_or(0))
}

/// C's `%.16G`, plus the `.0` HTCondor appends when the result looks like an integer.
fn format_general16(r: f64) -> String {
    const PRECISION: i32 = 16;
    // The decimal exponent after rounding to 16 significant digits decides the style.
    let s = format!("{r:.15E}");
    let (mantissa, exp) = split_exponent(&s);
    let mut out = if !(-4..PRECISION).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!(
            "{}E{sign}{:02}",
            strip_fraction_zeros(mantissa),
            exp.unsigned_abs()
        )
    } else {
        let decimals = usize::try_from(PRECISION - 1 - exp).unwrap_or(0);
        strip_fraction_zeros(&format!("{r:.decimals$}")).to_owned()
    };
    if !out.contains(['.', 'E', 'e']) {
        out.push_str(".0");
    }
    out
}

/// `%G` drops trailing zeros of the fraction, and the point if nothing is left after it.
fn strip_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_print_like_htcondor() {
        let cases = [
            (2.5, "2.500000000000000E+00", "2.5"),
            (1e10, "1.000000000000000E+10", "10000000000.0"),
            (1e16, "1.000000000000000E+16", "1E+16"),
            (1e-7, "1.000000000000000E-07", "1E-07"),
            (1.0 / 3.0, "3.333333333333333E-01", "0.3333333333333333"),
            (-0.0, "-0.0", "-0.0"),
            (1e100, "1.000000000000000E+100", "1E+100"),
            (100.0, "1.000000000000000E+02", "100.0"),
        ];
        for (r, new, old) in cases {
            assert_eq!(Value::Real(r).to_string(), new);
            assert_eq!(Value::Real(r).old_syntax().to_string(), old);
        }
    }

    #[test]
    fn strings_escape_like_htcondor() {
        let v = Value::from("a\"b\\c\n\té'");
        assert_eq!(v.to_string(), r#""a\"b\\c\n\t\303\251'""#);
        assert_eq!(v.old_syntax().to_string(), "\"a\\\"b\\c\n\té'\"");
    }
}
