//! Readers for the ads HTCondor's tools print: `condor_status -long` / `condor_q -long` (old
//! ClassAd syntax, one `Name = expression` per line, ads separated by blank lines), their
//! `-json` output, and files of several ads in the new syntax (`[ … ] [ … ]`).
//!
//! [`parse_ads`] recognises the format from the text itself ([`detect_format`]); errors name
//! the line (old syntax), the ad and attribute (JSON), or the position (new syntax), and echo
//! at most 80 characters of an offending line.
//!
//! ```
//! use cosched_classad::{Value, read::parse_ads};
//! let status = "Name = \"slot1@node1\"\nCpus = 4\nMemory = 7680\nStart = KeyboardIdle > 900\nKeyboardIdle = 1200\n\nName = \"slot1@node2\"\nCpus = 1\n";
//! let ads = parse_ads(status)?;
//! assert_eq!(ads.len(), 2);
//! assert_eq!(ads[0].eval_attr("Start", None), Value::Bool(true));
//! # Ok::<(), cosched_classad::read::ReadError>(())
//! ```

use super::ClassAd;
use super::parser::{Expr, ParseError, Parser};
use super::value::Value;
use thiserror::Error;

/// The text formats of a sequence of ads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdFormat {
    /// Old syntax, `Name = expression` lines, ads separated by blank lines (`-long`).
    Old,
    /// New syntax, `[ name = expression; … ]`, one ad after another.
    New,
    /// A JSON array of objects (`-json`); expressions are strings `"/Expr(…)/"`.
    Json,
}

/// Why a sequence of ads could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ReadError {
    /// An old-syntax line whose expression does not parse.
    #[error("line {line}: attribute {name}: {source}")]
    Expression {
        /// 1-based line number.
        line: usize,
        /// The attribute.
        name: String,
        /// Why (positions are within the expression).
        source: ParseError,
    },
    /// An old-syntax line that is not `Name = expression`.
    #[error("line {line}: expected `Name = expression`, found {found:?}")]
    NotAnAttribute {
        /// 1-based line number.
        line: usize,
        /// The line, at most 80 characters of it.
        found: String,
    },
    /// New-syntax ads that do not parse.
    #[error("{0}")]
    NewSyntax(ParseError),
    /// Text that is not the JSON HTCondor prints.
    #[error("JSON: {0}")]
    Json(String),
    /// A line longer than [`MAX_LINE_BYTES`] (e.g. `/dev/zero`, one endless line).
    #[error("line {line}: longer than {limit} bytes")]
    LineTooLong {
        /// 1-based line number.
        line: usize,
        /// The bound, [`MAX_LINE_BYTES`].
        limit: usize,
    },
    /// More than [`MAX_TEXT_BYTES`] of ads.
    #[error("more than {limit} bytes of ads (at line {line})")]
    TooLarge {
        /// The 1-based line being read when the bound was reached.
        line: usize,
        /// The bound, [`MAX_TEXT_BYTES`].
        limit: u64,
    },
    /// The input could not be read.
    #[error("line {line}: cannot read: {message}")]
    Io {
        /// The 1-based line being read.
        line: usize,
        /// The reader's error.
        message: String,
    },
    /// A JSON attribute whose `/Expr(…)/` does not parse.
    #[error("JSON ad {index}, attribute {name}: {source}")]
    JsonExpression {
        /// 0-based index of the ad in the array.
        index: usize,
        /// The attribute.
        name: String,
        /// Why.
        source: ParseError,
    },
}

/// The longest line the readers accept, bytes: far above any attribute HTCondor's tools print
/// (1 MiB), so an endless line is an error naming it rather than unbounded memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most text [`read_ads`] reads, bytes (1 GiB).
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

/// Reads every ad from `reader` (any format, as [`parse_ads`]), line by line with each line
/// bounded by [`MAX_LINE_BYTES`] and the whole by [`MAX_TEXT_BYTES`].
///
/// ```
/// use cosched_classad::read::{self, ReadError};
/// let ads = read::read_ads("Memory = 1\n\nMemory = 2\n".as_bytes())?;
/// assert_eq!(ads.len(), 2);
/// let endless = std::io::repeat(0).take(2 << 20);
/// # use std::io::Read;
/// assert!(matches!(read::read_ads(std::io::BufReader::new(endless)), Err(ReadError::LineTooLong { line: 1, .. })));
/// # Ok::<(), ReadError>(())
/// ```
pub fn read_ads(mut reader: impl std::io::BufRead) -> Result<Vec<ClassAd>, ReadError> {
    use std::io::{BufRead, Read};
    let mut text = Vec::new();
    for line in 1.. {
        let before = text.len();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let n = (&mut reader)
            .take(limit)
            .read_until(b'\n', &mut text)
            .map_err(|e| ReadError::Io {
                line,
                message: e.to_string(),
            })?;
        if n == 0 {
            break;
        }
        let body = text[before..].strip_suffix(b"\n").map_or(n, <[u8]>::len);
        if body > MAX_LINE_BYTES {
            return Err(ReadError::LineTooLong {
                line,
                limit: MAX_LINE_BYTES,
            });
        }
        if text.len() as u64 > MAX_TEXT_BYTES {
            return Err(ReadError::TooLarge {
                line,
                limit: MAX_TEXT_BYTES,
            });
        }
    }
    let text = String::from_utf8(text).map_err(|e| ReadError::Io {
        line: 0,
        message: format!("not UTF-8: {e}"),
    })?;
    parse_ads(&text)
}

/// At most 80 characters of `s`.
fn excerpt(s: &str) -> String {
    s.chars().take(80).collect()
}

/// The format of `text`: JSON if it opens an array whose first element is an object (or is
/// `[]`), new syntax if it opens an ad, old syntax otherwise.
pub fn detect_format(text: &str) -> AdFormat {
    let mut rest = text.trim_start();
    if let Some(after) = rest.strip_prefix('[') {
        rest = after.trim_start();
        if rest.starts_with('{') || rest.starts_with(']') {
            return AdFormat::Json;
        }
        return AdFormat::New;
    }
    AdFormat::Old
}

/// Reads every ad in `text`, whatever its format (see [`detect_format`]).
pub fn parse_ads(text: &str) -> Result<Vec<ClassAd>, ReadError> {
    match detect_format(text) {
        AdFormat::Old => parse_old_ads(text),
        AdFormat::New => parse_new_ads(text),
        AdFormat::Json => parse_json_ads(text),
    }
}

/// Reads old-syntax ads (`condor_status -long`, `condor_q -long`): one `Name = expression`
/// per line, ads separated by blank lines. Lines starting with `#` and banner lines starting
/// with `-- ` (as `condor_q` prints before a schedd's jobs) are skipped. Strings are old
/// syntax: only `\"` is an escape, other backslashes stand for themselves (Windows paths).
pub fn parse_old_ads(text: &str) -> Result<Vec<ClassAd>, ReadError> {
    let mut ads = Vec::new();
    let mut current = ClassAd::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.len() > MAX_LINE_BYTES {
            return Err(ReadError::LineTooLong {
                line: i + 1,
                limit: MAX_LINE_BYTES,
            });
        }
        let line = raw.trim();
        if line.is_empty() {
            if !current.is_empty() {
                ads.push(std::mem::take(&mut current));
            }
            continue;
        }
        if line.starts_with('#') || line.starts_with("-- ") {
            continue;
        }
        let not_an_attribute = || ReadError::NotAnAttribute {
            line: i + 1,
            found: excerpt(raw),
        };
        let (name, expr) = line.split_once('=').ok_or_else(not_an_attribute)?;
        let name = name.trim();
        let plain_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
        if !plain_name || expr.starts_with('=') {
            return Err(not_an_attribute());
        }
        let expr =
            Expr::parse(&old_strings_to_new(expr)).map_err(|source| ReadError::Expression {
                line: i + 1,
                name: name.to_owned(),
                source,
            })?;
        current.insert(name, expr);
    }
    if !current.is_empty() {
        ads.push(current);
    }
    Ok(ads)
}

/// Rewrites old-syntax string literals as new-syntax ones: a backslash that does not escape
/// a quote is doubled.
fn old_strings_to_new(expr: &str) -> String {
    let mut out = String::with_capacity(expr.len() + 8);
    let mut in_string = false;
    let mut chars = expr.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                in_string = !in_string;
                out.push(c);
            }
            '\\' if in_string => {
                if chars.peek() == Some(&'"') {
                    out.push_str("\\\"");
                    chars.next();
                } else {
                    out.push_str("\\\\");
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Reads new-syntax ads written one after another (`[ a = 1 ] [ a = 2 ]`).
pub fn parse_new_ads(text: &str) -> Result<Vec<ClassAd>, ReadError> {
    let mut parser = Parser::new(text).map_err(ReadError::NewSyntax)?;
    let mut ads = Vec::new();
    while !parser.at_end() {
        let attrs = parser.classad().map_err(ReadError::NewSyntax)?;
        let mut ad = ClassAd::new();
        for (name, expr) in attrs {
            ad.insert(&name, expr);
        }
        ads.push(ad);
    }
    Ok(ads)
}

/// Reads `condor_status -json` / `condor_q -json` output: an array of objects. Strings of
/// the form `/Expr(…)/` are expressions; other strings, numbers, booleans, arrays (lists)
/// and objects (nested ads) are literals; `null` is `undefined`.
pub fn parse_json_ads(text: &str) -> Result<Vec<ClassAd>, ReadError> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ReadError::Json(e.to_string()))?;
    let serde_json::Value::Array(items) = json else {
        return Err(ReadError::Json("expected an array of ads".to_owned()));
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let serde_json::Value::Object(map) = item else {
                return Err(ReadError::Json(format!("element {index} is not an object")));
            };
            json_ad(map, index)
        })
        .collect()
}

fn json_ad(
    map: &serde_json::Map<String, serde_json::Value>,
    index: usize,
) -> Result<ClassAd, ReadError> {
    let mut ad = ClassAd::new();
    for (name, v) in map {
        let expr = match v {
            serde_json::Value::String(s) => {
                match s.strip_prefix("/Expr(").and_then(|r| r.strip_suffix(")/")) {
                    Some(src) => Expr::parse(src).map_err(|source| ReadError::JsonExpression {
                        index,
                        name: name.clone(),
                        source,
                    })?,
                    None => Expr::literal(Value::Str(s.as_str().into())),
                }
            }
            other => Expr::literal(json_value(other, index)?),
        };
        ad.insert(name, expr);
    }
    Ok(ad)
}

fn json_value(v: &serde_json::Value, index: usize) -> Result<Value, ReadError> {
    Ok(match v {
        serde_json::Value::Null => Value::Undefined,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Real(n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => Value::Str(s.as_str().into()),
        serde_json::Value::Array(items) => Value::List(
            items
                .iter()
                .map(|i| json_value(i, index))
                .collect::<Result<_, _>>()?,
        ),
        serde_json::Value::Object(map) => Value::Ad(Box::new(json_ad(map, index)?)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_recognised() {
        assert_eq!(detect_format("MyType = \"Machine\"\n"), AdFormat::Old);
        assert_eq!(detect_format("  [ a = 1 ]"), AdFormat::New);
        assert_eq!(detect_format("[\n{\n \"a\": 1 }]"), AdFormat::Json);
        assert_eq!(detect_format("[]"), AdFormat::Json);
    }

    #[test]
    fn old_syntax_keeps_backslashes_and_reports_lines() {
        let ads = parse_old_ads("Iwd = \"C:\\condor\\execute\"\nQ = \"say \\\"hi\\\"\"\n").unwrap();
        assert_eq!(
            ads[0].eval_attr("Iwd", None),
            Value::from("C:\\condor\\execute")
        );
        assert_eq!(ads[0].eval_attr("Q", None), Value::from("say \"hi\""));
        let e = parse_old_ads("A = 1\nB = 1 +\n").unwrap_err();
        assert!(matches!(e, ReadError::Expression { line: 2, .. }), "{e}");
        let e = parse_old_ads("A = 1\nnot an attribute\n").unwrap_err();
        assert!(
            matches!(e, ReadError::NotAnAttribute { line: 2, .. }),
            "{e}"
        );
    }

    #[test]
    fn json_expressions_lists_and_nulls() {
        let ads = parse_json_ads(
            r#"[ { "Cpus": 4, "LoadAvg": 0.25, "Start": "\/Expr(Cpus > 2)\/", "ChildCpus": [1, 2],
                   "Name": "slot1@n1", "Gone": null } ]"#,
        )
        .unwrap();
        let ad = &ads[0];
        assert_eq!(ad.eval_attr("Start", None), Value::Bool(true));
        assert_eq!(
            ad.eval_attr("ChildCpus", None),
            Value::List(vec![Value::Int(1), Value::Int(2)])
        );
        assert_eq!(ad.eval_attr("LoadAvg", None), Value::Real(0.25));
        assert_eq!(ad.eval_attr("Gone", None), Value::Undefined);
        assert!(matches!(
            parse_json_ads("[{\"a\": \"/Expr(1 +)/\"}]"),
            Err(ReadError::JsonExpression { index: 0, .. })
        ));
    }

    #[test]
    fn several_new_syntax_ads() {
        let ads = parse_new_ads("[ Memory = 1 ]\n[ Memory = 2 ]").unwrap();
        assert_eq!(ads.len(), 2);
        assert_eq!(ads[1].eval_attr("Memory", None), Value::Int(2));
        assert!(parse_new_ads("[ a = 1 ] [ b = ]").is_err());
    }
}
