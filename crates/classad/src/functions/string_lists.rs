//! String lists (`"a, b,c"`): their items, delimiters and `stringListSubsetMatch`.

use super::*;

/// `stringListSubsetMatch(l1, l2)`: every item of `l1` is in `l2`. An `undefined` `l1` is
/// the empty set, an `undefined` `l2` contains nothing; both `undefined` is `undefined`.
pub(super) fn subset_match(args: &[Value], ignore_case: bool) -> Value {
    if args.iter().any(|a| matches!(a, Value::Error)) {
        return Value::Error;
    }
    let Some(delims) = delimiters(args.get(2)) else {
        return Value::Error;
    };
    fn key(item: &str, ignore_case: bool) -> std::borrow::Cow<'_, str> {
        if ignore_case {
            item.to_ascii_lowercase().into()
        } else {
            item.into()
        }
    }
    match (&args[0], &args[1]) {
        (Value::Undefined, Value::Undefined) => Value::Undefined,
        (Value::Undefined, Value::Str(_)) => Value::Bool(true),
        (Value::Str(x), Value::Undefined) => Value::Bool(string_list(x, &delims).next().is_none()),
        (Value::Str(x), Value::Str(y)) => {
            let ys: FxHashSet<_> = string_list(y, &delims)
                .map(|i| key(i, ignore_case))
                .collect();
            Value::Bool(string_list(x, &delims).all(|i| ys.contains(&key(i, ignore_case))))
        }
        _ => Value::Error,
    }
}

/// The delimiter characters of a string-list function (`" ,"` by default); `None` if the
/// argument is not a string.
pub(super) fn delimiters(arg: Option<&Value>) -> Option<CharSet> {
    match arg {
        None => Some(CharSet::new(" ,")),
        Some(Value::Str(d)) => Some(CharSet::new(d)),
        Some(_) => None,
    }
}

/// A set of delimiter characters, looked up in constant time (a delimiter argument may be
/// as long as the string it splits).
pub(super) struct CharSet {
    ascii: [bool; 128],
    other: FxHashSet<char>,
}

impl CharSet {
    pub(super) fn new(chars: &str) -> CharSet {
        let mut set = CharSet {
            ascii: [false; 128],
            other: FxHashSet::default(),
        };
        for c in chars.chars() {
            match set.ascii.get_mut(c as usize) {
                Some(slot) => *slot = true,
                None => {
                    set.other.insert(c);
                }
            }
        }
        set
    }

    pub(super) fn contains(&self, c: char) -> bool {
        match self.ascii.get(c as usize) {
            Some(&hit) => hit,
            None => self.other.contains(&c),
        }
    }
}

/// The items of a string list such as `"a, b,c"` (empty items dropped).
pub(super) fn string_list<'s>(
    list: &'s str,
    delims: &'s CharSet,
) -> impl Iterator<Item = &'s str> + 's {
    list.split(move |c| delims.contains(c))
        .filter(|t| !t.is_empty())
}

/// A string-list item as a number: the whole item must read as one.
pub(super) fn parse_number(item: &str) -> Option<Value> {
    if let Ok(i) = item.parse::<i64>() {
        return Some(Value::Int(i));
    }
    // HTCondor reads an item with strtod: "8.1.2" is 8.1.
    strtod_prefix(item).map(Value::Real)
}
