//! Strings: `strcat`, `join`, `split`, `substr` and `versioncmp`'s `natural_cmp`.

use super::*;

/// `join(list)`, `join(sep, list)` or `join(sep, a, b, …)`; `undefined` items (and an
/// `undefined` separator) are left out.
pub(super) fn join(args: &[Value]) -> Value {
    if args.iter().any(|a| matches!(a, Value::Error)) {
        return Value::Error;
    }
    if let [Value::Undefined] = args {
        return Value::Undefined;
    }
    // An error element of the list joined is an error (a list among several items is text).
    if let [Value::List(items)] | [_, Value::List(items)] = args
        && items.contains(&Value::Error)
    {
        return Value::Error;
    }
    let text = |v: &Value| match v {
        Value::Undefined => String::new(),
        v => to_text(v),
    };
    let (sep, items): (String, Vec<&Value>) = match args {
        [] | [_] if !matches!(args.first(), Some(Value::List(_))) => (String::new(), Vec::new()),
        [Value::List(items)] => (String::new(), items.iter().collect()),
        [_, Value::Undefined] => return Value::Undefined,
        [sep, Value::List(items)] => (text(sep), items.iter().collect()),
        [sep, rest @ ..] => (text(sep), rest.iter().collect()),
        [] => (String::new(), Vec::new()),
    };
    let mut out = String::new();
    let mut first = true;
    for item in items {
        if matches!(item, Value::Undefined) {
            continue;
        }
        if !first {
            out.push_str(&sep);
        }
        first = false;
        out.push_str(&to_text(item));
    }
    Value::Str(out.into())
}

pub(super) fn substr(s: &Value, offset: &Value, length: Option<&Value>) -> Value {
    let (Value::Str(s), Value::Int(offset)) = (s, offset) else {
        return Value::Error;
    };
    let n = s.len() as i64;
    let start = if *offset < 0 {
        (n + offset).max(0)
    } else {
        (*offset).min(n)
    };
    let end = match length {
        None => n,
        Some(Value::Int(len)) if *len < 0 => (n + len).max(start),
        Some(Value::Int(len)) => start.saturating_add(*len).min(n),
        Some(_) => return Value::Error,
    };
    let bytes = &s.as_bytes()[start as usize..end as usize];
    Value::Str(String::from_utf8_lossy(bytes).into())
}

/// `versioncmp` as HTCondor returns it: its `natural_cmp` (`strverscmp` order), on the bytes
/// as C's signed `char`s. The result is the difference of the first differing bytes, or of
/// the leading-zero counts, or of the lengths of the digit runs that decide.
pub(super) fn natural_cmp(a: &str, b: &str) -> i64 {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    let signed = |c: u8| i64::from(c as i8);
    let digit = |c: u8| c.is_ascii_digit();
    // The first mismatch.
    let mut i = 0;
    while at(x, i) != 0 && at(x, i) == at(y, i) {
        i += 1;
    }
    let (c1, c2) = (at(x, i), at(y, i));
    if c1 == c2 {
        return 0;
    }
    // The digits leading up to it (the same in both strings).
    let mut start = i;
    while start > 0 && digit(x[start - 1]) {
        start -= 1;
    }
    if start == i && (!digit(c1) || !digit(c2)) {
        return signed(c1) - signed(c2);
    }
    // Leading zeros, not counting a final zero that ends the number.
    let zeros = |s: &[u8]| {
        let mut end = start;
        while at(s, end) == b'0' {
            end += 1;
        }
        if end > start && !digit(at(s, end)) {
            end -= 1;
        }
        end
    };
    let (z1, z2) = (zeros(x), zeros(y));
    if z1 != z2 {
        // Fewer leading zeros sort first.
        return z2 as i64 - z1 as i64;
    }
    if z1 > start {
        return signed(c1) - signed(c2);
    }
    // No leading zeros: the longer number is the larger.
    let run_end = |s: &[u8]| {
        let mut end = z1;
        while digit(at(s, end)) {
            end += 1;
        }
        end
    };
    let (n1, n2) = (run_end(x), run_end(y));
    if n1 != n2 {
        n1 as i64 - n2 as i64
    } else {
        signed(c1) - signed(c2)
    }
}

/// `split(s [, seps])` as HTCondor's `splitArb_func` walks it (separators `", \t"` unless
/// given): an item between two separators; nothing for leading or trailing separators or
/// for a run mixing whitespace and one other separator; but an empty item between two of
/// the same non-whitespace separator (`"a,,b"` is three items, `"a, b"` two).
pub(super) fn split(s: &str, seps: &str) -> Value {
    let seps = CharSet::new(seps);
    let mut items = Vec::new();
    let mut item_start = 0;
    let mut last_sep: Option<char> = None;
    for (at, c) in s.char_indices().filter(|&(_, c)| seps.contains(c)) {
        if at > item_start {
            items.push(Value::from(&s[item_start..at]));
        } else if last_sep == Some(c) {
            items.push(Value::from(""));
        }
        if !is_c_space(c) {
            last_sep = Some(c);
        }
        item_start = at + c.len_utf8();
    }
    if s.len() > item_start {
        items.push(Value::from(&s[item_start..]));
    }
    Value::List(items)
}

/// C's `isspace` in the C locale.
pub(super) fn is_c_space(c: char) -> bool {
    u8::try_from(c).is_ok_and(crate::lexer::is_c_space)
}

/// `strcat` of already evaluated arguments.
pub(super) fn strcat(args: &[Value]) -> Value {
    let mut out = String::new();
    for arg in args {
        match arg {
            Value::Undefined | Value::Error => return arg.clone(),
            other => out.push_str(&to_text(other)),
        }
    }
    Value::Str(out.into())
}
