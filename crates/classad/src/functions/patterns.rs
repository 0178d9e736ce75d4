//! Regular expressions: `regexp`, `regexps`, `replace`, `replaceall`, `regexpMember`, their
//! compiled-pattern cache and the cost the evaluator charges for them.

use super::*;

/// How many compiled patterns each thread keeps (matchmaking evaluates the same few
/// `Requirements` against thousands of slots; compiling a pattern costs tens of microseconds).
pub(super) const REGEX_CACHE: usize = 64;

thread_local! {
    static COMPILED: std::cell::RefCell<rustc_hash::FxHashMap<(String, String), Option<regex::Regex>>> =
        std::cell::RefCell::new(rustc_hash::FxHashMap::default());
}

/// The largest haystack the regular-expression functions search, bytes: the regex crate's
/// search is linear in the haystack but its fallback engine also scales with the pattern's
/// size, so an unbounded haystack is unbounded time.
pub const MAX_REGEX_HAYSTACK: usize = 1 << 20;

/// The steps a call costs beyond its operation and its result (charged before it runs), or
/// the fixed bound an argument exceeds. The regular-expression functions cost their
/// haystack's size (one step per 8 bytes) times the pattern's (one per 8 bytes, at least 1).
pub(crate) fn work(func: Builtin, args: &[Value]) -> Result<u64, crate::EvalError> {
    use Builtin as B;
    let haystacks: Vec<&Value> = match func {
        B::Regexp | B::Regexps | B::Replace | B::ReplaceAll => args.get(1).into_iter().collect(),
        B::StringListRegexpMember => args.get(1).into_iter().collect(),
        B::RegexpMember => match args.get(1) {
            Some(Value::List(items)) => items.iter().collect(),
            _ => Vec::new(),
        },
        _ => return Ok(0),
    };
    let pattern = match args.first() {
        Some(Value::Str(p)) => p.len() as u64,
        _ => 0,
    };
    let mut bytes = 0u64;
    for h in haystacks {
        if let Value::Str(h) = h {
            bytes = bytes.saturating_add(h.len() as u64);
        }
    }
    if bytes > MAX_REGEX_HAYSTACK as u64 {
        return Err(crate::EvalError::TooLarge {
            function: func.name(),
            what: "the string searched",
            size: bytes,
            limit: MAX_REGEX_HAYSTACK as u64,
        });
    }
    Ok((bytes / 8).saturating_mul(1 + pattern / 8))
}

/// A compiled pattern with HTCondor's option letters, or `None` if it does not compile
/// (cached per thread).
pub(super) fn compile(pattern: &str, options: Option<&Value>) -> Option<regex::Regex> {
    let opts = match options {
        None => "",
        Some(Value::Str(o)) => o,
        Some(_) => return None,
    };
    let key = (pattern.to_owned(), opts.to_owned());
    if let Some(hit) = COMPILED.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    // HTCondor's library reads the lower-case letters only (the manual also lists capitals).
    let has = |c: char| opts.contains(c);
    let re = regex::RegexBuilder::new(pattern)
        .case_insensitive(has('i'))
        .multi_line(has('m'))
        .dot_matches_new_line(has('s'))
        .ignore_whitespace(has('x'))
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .ok();
    COMPILED.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= REGEX_CACHE {
            cache.clear();
        }
        cache.insert(key, re.clone());
    });
    re
}

/// `regexp`, `regexps`, `replace` and `replaceall`.
pub(super) fn regex_call(func: Builtin, args: &[Value], env: &Env) -> Value {
    let with_subst = func != Builtin::Regexp;
    let (Some(Value::Str(pattern)), Some(Value::Str(target))) = (args.first(), args.get(1)) else {
        return Value::Error;
    };
    let subst = if with_subst {
        match args.get(2) {
            Some(Value::Str(s)) => &**s,
            _ => return Value::Error,
        }
    } else {
        ""
    };
    let Some(re) = compile(pattern, args.get(if with_subst { 3 } else { 2 })) else {
        return Value::Error;
    };
    // HTCondor refuses to substitute for an empty pattern.
    if with_subst && pattern.is_empty() {
        return Value::Error;
    }
    let expand = |caps: &regex::Captures<'_>, out: &mut String| {
        let b = subst.as_bytes();
        let mut k = 0;
        while k < b.len() {
            if b[k] == b'\\' && k + 1 < b.len() && b[k + 1].is_ascii_digit() {
                let group = usize::from(b[k + 1] - b'0');
                out.push_str(caps.get(group).map_or("", |m| m.as_str()));
                k += 2;
            } else {
                let ch = subst[k..].chars().next().unwrap_or('\u{fffd}');
                out.push(ch);
                k += ch.len_utf8();
            }
        }
    };
    if func == Builtin::Regexp {
        return Value::Bool(re.is_match(target));
    }
    // `f`: the whole target with the substitutions; `g`: every match, not only the first.
    let opts = match args.get(3) {
        Some(Value::Str(o)) => &**o,
        _ => "",
    };
    let full = func != Builtin::Regexps || opts.contains('f');
    let global = func == Builtin::ReplaceAll || opts.contains('g');
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(target) {
        let Some(m) = caps.get(0) else { continue };
        if full {
            out.push_str(&target[last..m.start()]);
        }
        expand(&caps, &mut out);
        last = m.end();
        if out.len() as u64 / 8 > env.budget {
            return Value::Error;
        }
        if !global {
            break;
        }
    }
    if full {
        out.push_str(&target[last..]);
    }
    Value::Str(out.into())
}

/// `regexpMember`: true at the first string that matches; an element before it that is
/// neither a string nor `undefined` is an error; no match but an `undefined` element is
/// `undefined`.
pub(super) fn regexp_member(re: &regex::Regex, items: &[Value]) -> Value {
    let mut saw_undefined = false;
    for item in items {
        match item {
            Value::Str(s) if re.is_match(s) => return Value::Bool(true),
            Value::Str(_) => {}
            Value::Undefined => saw_undefined = true,
            _ => return Value::Error,
        }
    }
    if saw_undefined {
        Value::Undefined
    } else {
        Value::Bool(false)
    }
}
