//! HTCondor's built-in functions.
//!
//! Language reference: HTCondor manual, *ClassAd Mechanism → Predefined Functions*, and the
//! library's `fnCall.cpp`, checked case by case against the library configured as in an
//! HTCondor daemon (the fixture table `tests/fixtures/classad_eval.json`). The functions the
//! manual lists as registered by HTCondor's daemons rather than the bare library
//! (`stringList*`, `splitUserName`, `splitSlotName`, …) are present in that configuration and
//! implemented here as the manual documents them. Names are case-insensitive; a call with the
//! wrong number of arguments is `error`, and so is a call of any function not listed here, as
//! in HTCondor (`abs`, `length` and `version_gt` are not HTCondor functions).
//!
//! Unless a row says otherwise, a function is strict: an `error` argument gives `error`, then
//! an `undefined` one gives `undefined`, then an argument of the wrong type gives `error`.
//!
//! | group | functions |
//! |---|---|
//! | type predicates | `isUndefined`, `isError`, `isString`, `isInteger`, `isReal`, `isBoolean`, `isList`, `isClassAd`, `isAbstime`, `isReltime` (no promotion: `isInteger(true)` is `false`; never `undefined`) |
//! | control | `ifThenElse(c, a, b)` (only the chosen branch is evaluated), `eval(s)` (the string parsed and evaluated in place), `unparse(attr)` (the attribute's expression as text), `debug(x)` (`x`), `evalInEachContext(e, ads)` (`e` in each ad of a list), `countMatches(e, ads)` (how many ads make `e` true) |
//! | conversion | `int`, `real` (strings read as C's `strtod` reads a prefix), `string` (the new-syntax text of a non-string), `bool` (`"true"`/`"false"` in any case; other strings `undefined`) |
//! | math | `floor`, `ceiling` (`ceil`), `round` (half to even), `pow(b, e)` (integer for integer `e ≥ 0`), `quantize(a, b)` (`a` rounded up to a multiple of `b`; for a list, the first element `≥ a`, else a multiple of the last), `min`, `max`, `sum`, `avg` of a list (`undefined` elements skipped) |
//! | strings | `strcat`, `join`, `split`, `substr`, `strcmp`, `stricmp`, `toUpper`, `toLower`, `size` (also of lists and ads), `versioncmp` (HTCondor's `natural_cmp`, `strverscmp` order), `versionGT`/`LT`/`GE`/`LE`/`EQ`, `version_in_range`, `splitUserName`, `splitSlotName` |
//! | regular expressions | `regexp`, `regexps`, `replace`, `replaceall`, `regexpMember`, `stringList_regexpMember` (the `regex` crate: Perl syntax without look-around and back-references; options `i` `m` `s` `x`, and `f` / `g` for `regexps`: the full target, every match) |
//! | string lists (`"a, b,c"`) | `stringListSize`, `stringListSum`, `stringListAvg`, `stringListMin`, `stringListMax`, `stringListMember`, `stringListIMember`, `stringListsIntersect`, `stringListSubsetMatch`, `stringListISubsetMatch` (delimiters `" ,"` unless given) |
//! | lists | `member`, `identicalMember`, `anyCompare(op, list, x)`, `allCompare(op, list, x)` |
//! | time | `time()` (the injected clock, [`crate::EvalOptions::now`]), `formatTime([t [, fmt]])` (`strftime` in UTC, default `%c`; a real `t` is cast to a C `int`, a split-time ad prints its fields), `interval(s)` (`[d+]h:mm:ss` of `s` as a C `int`) |
//! | random | `random([x])`: a real in `[0, 1)`, or in `[0, x)` of `x`'s type (from [`crate::EvalOptions::seed`]) |
//!
//! HTCondor functions **not provided** (a call is `error`, and [`crate::Expr::unknown_functions`]
//! reports it as HTCondor's but missing here): those in [`NOT_PROVIDED`].
//!
//! Conversions of out-of-range reals (and NaN) to integers give `-9223372036854775808`, as
//! C's cast does on x86-64 where HTCondor runs.

use super::eval::{apply_binary, cmp_ignore_case, compare, identical};
use super::parser::BinOp;
use super::value::Value;
use rustc_hash::FxHashSet;

/// What a function call can see besides its arguments.
pub(crate) struct Env {
    /// The injected clock, seconds since the Unix epoch (`None`: the system clock).
    pub now: Option<i64>,
    /// Steps left in the evaluation's budget (results larger than this are `error`).
    pub budget: u64,
}

macro_rules! builtins {
    ($($variant:ident = $($name:literal)|+ , $min:literal ..= $max:expr;)*) => {
        /// A built-in function.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Builtin {
            $($variant,)*
        }

        impl Builtin {
            /// The built-in a (case-insensitive) name refers to.
            pub(crate) fn lookup(name: &str) -> Option<Builtin> {
                Some(match name.to_ascii_lowercase().as_str() {
                    $($($name)|+ => Builtin::$variant,)*
                    _ => return None,
                })
            }

            /// Its (first) name, lower-cased.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => [$($name),+][0],)*
                }
            }

            /// Whether a call with `n` arguments is well formed.
            pub(crate) fn accepts(self, n: usize) -> bool {
                match self {
                    $(Builtin::$variant => ($min..=$max).contains(&n),)*
                }
            }
        }

        /// The names of every built-in, lower-cased.
        pub const NAMES: &[&str] = &[$($($name),+),*];
    };
}

builtins! {
    IsUndefined = "isundefined", 1..=1;
    IsError = "iserror", 1..=1;
    IsString = "isstring", 1..=1;
    IsInteger = "isinteger", 1..=1;
    IsReal = "isreal", 1..=1;
    IsBoolean = "isboolean", 1..=1;
    IsList = "islist", 1..=1;
    IsClassAd = "isclassad", 1..=1;
    IsAbstime = "isabstime", 1..=1;
    IsReltime = "isreltime", 1..=1;
    CountMatches = "countmatches", 2..=2;
    EvalInEachContext = "evalineachcontext", 2..=2;
    IfThenElse = "ifthenelse", 3..=3;
    Eval = "eval", 1..=1;
    Unparse = "unparse", 1..=1;
    Debug = "debug", 1..=1;
    Int = "int", 1..=1;
    Real = "real", 1..=1;
    String = "string", 1..=1;
    Bool = "bool", 1..=1;
    Floor = "floor", 1..=1;
    Ceiling = "ceiling" | "ceil", 1..=1;
    Round = "round", 1..=1;
    Pow = "pow", 2..=2;
    Quantize = "quantize", 2..=2;
    Min = "min", 1..=1;
    Max = "max", 1..=1;
    Sum = "sum", 1..=1;
    Avg = "avg", 1..=1;
    Strcat = "strcat", 0..=usize::MAX;
    Join = "join", 0..=usize::MAX;
    Split = "split", 1..=2;
    SplitUserName = "splitusername", 1..=1;
    SplitSlotName = "splitslotname", 1..=1;
    Substr = "substr", 2..=3;
    Strcmp = "strcmp", 2..=2;
    Stricmp = "stricmp", 2..=2;
    ToLower = "tolower", 1..=1;
    ToUpper = "toupper", 1..=1;
    Size = "size", 1..=1;
    Versioncmp = "versioncmp", 2..=2;
    VersionInRange = "version_in_range", 3..=3;
    VersionGt = "versiongt", 2..=2;
    VersionLt = "versionlt", 2..=2;
    VersionGe = "versionge", 2..=2;
    VersionLe = "versionle", 2..=2;
    VersionEq = "versioneq", 2..=2;
    Regexp = "regexp", 2..=3;
    Regexps = "regexps", 3..=4;
    Replace = "replace", 3..=4;
    ReplaceAll = "replaceall", 3..=4;
    RegexpMember = "regexpmember", 2..=3;
    StringListSize = "stringlistsize", 1..=2;
    StringListSum = "stringlistsum", 1..=2;
    StringListAvg = "stringlistavg", 1..=2;
    StringListMin = "stringlistmin", 1..=2;
    StringListMax = "stringlistmax", 1..=2;
    StringListMember = "stringlistmember", 2..=3;
    StringListIMember = "stringlistimember", 2..=3;
    StringListsIntersect = "stringlistsintersect", 2..=3;
    StringListSubsetMatch = "stringlistsubsetmatch", 2..=3;
    StringListISubsetMatch = "stringlistisubsetmatch", 2..=3;
    StringListRegexpMember = "stringlist_regexpmember", 2..=4;
    Member = "member", 2..=2;
    IdenticalMember = "identicalmember", 2..=2;
    AnyCompare = "anycompare", 3..=3;
    AllCompare = "allcompare", 3..=3;
    Time = "time", 0..=0;
    Random = "random", 0..=1;
    FormatTime = "formattime", 0..=2;
    Interval = "interval", 1..=1;
}

/// The injected time, or the system clock's (seconds since the Unix epoch).
pub(crate) fn clock(injected: Option<i64>) -> i64 {
    injected.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    })
}

/// HTCondor functions this implementation leaves out (lower-cased): absolute and relative
/// times, environment and user-map helpers that read the evaluating host, and
/// `unresolved`.
pub const NOT_PROVIDED: &[&str] = &[
    "abstime",
    "reltime",
    "mergeenvironment",
    "envv1tov2",
    "userhome",
    "usermap",
    "unresolved",
];

/// The first `error`, else the first `undefined`, among `args`.
fn exceptional(args: &[Value]) -> Option<Value> {
    if args.iter().any(|a| matches!(a, Value::Error)) {
        return Some(Value::Error);
    }
    args.iter()
        .any(|a| matches!(a, Value::Undefined))
        .then_some(Value::Undefined)
}

/// Applies a built-in to evaluated arguments (everything but `ifThenElse`, `eval` and
/// `unparse`, which the evaluator handles because they look at unevaluated arguments).
pub(crate) fn apply(func: Builtin, args: &[Value], env: &Env) -> Value {
    use Builtin as B;
    let arg = |i: usize| args.get(i).unwrap_or(&Value::Undefined);
    match func {
        B::IsUndefined => Value::Bool(matches!(arg(0), Value::Undefined)),
        B::IsError => Value::Bool(matches!(arg(0), Value::Error)),
        B::IsString => Value::Bool(matches!(arg(0), Value::Str(_))),
        B::IsInteger => Value::Bool(matches!(arg(0), Value::Int(_))),
        B::IsReal => Value::Bool(matches!(arg(0), Value::Real(_))),
        B::IsBoolean => Value::Bool(matches!(arg(0), Value::Bool(_))),
        B::IsList => Value::Bool(matches!(arg(0), Value::List(_))),
        B::IsClassAd => Value::Bool(matches!(arg(0), Value::Ad(_))),
        // Absolute and relative times are not values of this implementation.
        B::IsAbstime | B::IsReltime => Value::Bool(false),
        B::StringListSubsetMatch => subset_match(args, false),
        B::StringListISubsetMatch => subset_match(args, true),
        B::Debug => arg(0).clone(),
        B::Strcat => strcat(args),
        B::Time => Value::Int(clock(env.now)),
        B::Join => join(args),
        B::StringListMember | B::StringListIMember
            if args
                .iter()
                .any(|a| !matches!(a, Value::Str(_) | Value::Undefined | Value::Error)) =>
        {
            Value::Error
        }
        B::Member | B::IdenticalMember if matches!(arg(0), Value::List(_) | Value::Ad(_)) => {
            Value::Error
        }
        B::IdenticalMember => match args.get(1) {
            Some(Value::List(items)) => Value::Bool(
                items
                    .iter()
                    .any(|item| identical(arg(0), item) == Some(true)),
            ),
            Some(v @ (Value::Undefined | Value::Error)) => v.clone(),
            _ => Value::Error,
        },
        B::AnyCompare | B::AllCompare => any_all_compare(func, args),
        // `undefined` wins over `error` in the string comparisons.
        B::Strcmp | B::Stricmp if args.contains(&Value::Undefined) => Value::Undefined,
        B::StringListMember | B::StringListIMember
            if args.iter().any(|a| matches!(a, Value::Undefined))
                && args
                    .iter()
                    .all(|a| matches!(a, Value::Undefined | Value::Str(_))) =>
        {
            Value::Bool(false)
        }
        _ => {
            if let Some(v) = exceptional(args) {
                return special_exceptional(func, args, v);
            }
            strict(func, args, env)
        }
    }
}

/// What a function gives when an argument is `undefined` or `error` (`exceptional`), for
/// the functions that do not simply propagate it.
fn special_exceptional(func: Builtin, args: &[Value], exceptional: Value) -> Value {
    use Builtin as B;
    match func {
        // These functions of HTCondor's turn an undefined argument into an error.
        B::Floor
        | B::Ceiling
        | B::Round
        | B::Pow
        | B::Quantize
        | B::Split
        | B::SplitUserName
        | B::SplitSlotName
        | B::StringListSize
        | B::StringListSum
        | B::StringListAvg
        | B::StringListMin
        | B::StringListMax
        | B::StringListRegexpMember
        | B::FormatTime
        | B::Interval => Value::Error,
        // The version itself undefined is an error; an undefined bound propagates.
        B::VersionInRange if matches!(args.first(), Some(Value::Undefined)) => Value::Error,
        // Lists may hold undefined elements; only the list argument itself propagates.
        B::Member | B::IdenticalMember if matches!(args.first(), Some(Value::Error)) => {
            Value::Error
        }
        _ => exceptional,
    }
}

fn strict(func: Builtin, args: &[Value], env: &Env) -> Value {
    use Builtin as B;
    let a = |i: usize| args.get(i).unwrap_or(&Value::Undefined);
    match func {
        B::Int => match to_real_or_int(a(0)) {
            Some(Num::Int(i)) => Value::Int(i),
            Some(Num::Real(r)) => Value::Int(c_cast_to_i64(r)),
            None => Value::Error,
        },
        B::Real => match to_real_or_int(a(0)) {
            Some(Num::Int(i)) => Value::Real(i as f64),
            Some(Num::Real(r)) => Value::Real(r),
            None => Value::Error,
        },
        B::String => Value::Str(to_text(a(0)).into()),
        B::Bool => match a(0) {
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Bool(*i != 0),
            Value::Real(r) => Value::Bool(*r != 0.0),
            Value::Str(s) if s.eq_ignore_ascii_case("true") => Value::Bool(true),
            Value::Str(s) if s.eq_ignore_ascii_case("false") => Value::Bool(false),
            Value::Str(_) => Value::Undefined,
            _ => Value::Error,
        },
        B::ToLower | B::ToUpper => {
            let text = to_text(a(0));
            Value::Str(if func == B::ToLower {
                text.to_ascii_lowercase().into()
            } else {
                text.to_ascii_uppercase().into()
            })
        }
        B::Size => match a(0) {
            Value::Str(s) => Value::Int(s.len() as i64),
            Value::List(items) => Value::Int(items.len() as i64),
            Value::Ad(ad) => Value::Int(ad.len() as i64),
            _ => Value::Error,
        },
        B::Floor | B::Ceiling | B::Round => match to_real_or_int(a(0)) {
            Some(Num::Int(i)) => Value::Int(i),
            Some(Num::Real(r)) => Value::Int(c_cast_to_i64(match func {
                B::Floor => r.floor(),
                B::Ceiling => r.ceil(),
                _ => r.round_ties_even(),
            })),
            None => Value::Error,
        },
        B::Pow => pow(a(0), a(1)),
        B::Quantize => quantize(a(0), a(1)),
        B::Min | B::Max | B::Sum | B::Avg => match a(0) {
            Value::List(items) => aggregate(func, items.iter()),
            _ => Value::Error,
        },
        B::Split => match (a(0), args.get(1)) {
            (Value::Str(s), None) => split(s, ", \t"),
            (Value::Str(s), Some(Value::Str(seps))) => split(s, seps),
            _ => Value::Error,
        },
        B::SplitUserName => match a(0) {
            Value::Str(s) => {
                let (user, domain) = s.split_once('@').unwrap_or((s, ""));
                Value::List(vec![user.into(), domain.into()])
            }
            _ => Value::Error,
        },
        B::SplitSlotName => match a(0) {
            Value::Str(s) => {
                let (slot, host) = s.split_once('@').unwrap_or(("", s));
                Value::List(vec![slot.into(), host.into()])
            }
            _ => Value::Error,
        },
        B::Substr => substr(a(0), a(1), args.get(2)),
        B::Strcmp | B::Stricmp => {
            let (x, y) = (to_text(a(0)), to_text(a(1)));
            let ord = if func == B::Strcmp {
                x.as_bytes().cmp(y.as_bytes())
            } else {
                cmp_ignore_case(&x, &y)
            };
            Value::Int(ord as i64)
        }
        B::Versioncmp => Value::Int(natural_cmp(&to_text(a(0)), &to_text(a(1)))),
        B::VersionGt | B::VersionLt | B::VersionGe | B::VersionLe | B::VersionEq => {
            let c = natural_cmp(&to_text(a(0)), &to_text(a(1)));
            Value::Bool(match func {
                B::VersionGt => c > 0,
                B::VersionLt => c < 0,
                B::VersionGe => c >= 0,
                B::VersionLe => c <= 0,
                _ => c == 0,
            })
        }
        // HTCondor compares a non-string argument by its unparsed text.
        B::VersionInRange => {
            let text = |v: &Value| match v {
                Value::Str(s) => s.to_string(),
                v => v.to_string(),
            };
            let (v, lo, hi) = (text(a(0)), text(a(1)), text(a(2)));
            Value::Bool(natural_cmp(&lo, &v) <= 0 && natural_cmp(&v, &hi) <= 0)
        }
        B::Regexp | B::Regexps | B::Replace | B::ReplaceAll => regex_call(func, args, env),
        B::RegexpMember => match (a(0), a(1), args.get(2)) {
            (Value::Str(p), Value::List(items), opts) => match compile(p, opts) {
                Some(re) => regexp_member(&re, items),
                None => Value::Error,
            },
            _ => Value::Error,
        },
        B::StringListSize
        | B::StringListSum
        | B::StringListAvg
        | B::StringListMin
        | B::StringListMax => match (a(0), delimiters(args.get(1))) {
            (Value::Str(list), Some(delims)) => {
                let items: Vec<&str> = string_list(list, &delims).collect();
                if func == B::StringListSize {
                    return Value::Int(items.len() as i64);
                }
                let mut numbers = Vec::with_capacity(items.len());
                for item in items {
                    match parse_number(item) {
                        Some(n) => numbers.push(n),
                        None => return Value::Error,
                    }
                }
                let kind = match func {
                    B::StringListSum => B::Sum,
                    B::StringListAvg => B::Avg,
                    B::StringListMin => B::Min,
                    _ => B::Max,
                };
                if numbers.is_empty() {
                    // HTCondor's empty string list sums and averages to 0.0.
                    return match kind {
                        B::Sum | B::Avg => Value::Real(0.0),
                        _ => Value::Undefined,
                    };
                }
                match (kind, aggregate(kind, numbers.iter())) {
                    // The average of integers is truncated to an integer.
                    (B::Avg, Value::Real(r)) if numbers.iter().all(|n| n.as_int().is_some()) => {
                        Value::Int(c_cast_to_i64(r))
                    }
                    (_, v) => v,
                }
            }
            _ => Value::Error,
        },
        B::StringListMember | B::StringListIMember => match (a(0), a(1), delimiters(args.get(2))) {
            (Value::Str(x), Value::Str(list), Some(delims)) => {
                Value::Bool(string_list(list, &delims).any(|item| {
                    if func == B::StringListMember {
                        item == &**x
                    } else {
                        item.eq_ignore_ascii_case(x)
                    }
                }))
            }
            _ => Value::Error,
        },
        B::StringListsIntersect => match (a(0), a(1), delimiters(args.get(2))) {
            (Value::Str(x), Value::Str(y), Some(delims)) => {
                let ys: FxHashSet<&str> = string_list(y, &delims).collect();
                Value::Bool(string_list(x, &delims).any(|i| ys.contains(i)))
            }
            _ => Value::Error,
        },
        B::StringListRegexpMember => match (a(0), a(1), delimiters(args.get(2)), args.get(3)) {
            (Value::Str(p), Value::Str(list), Some(delims), opts) => match compile(p, opts) {
                Some(re) => Value::Bool(string_list(list, &delims).any(|i| re.is_match(i))),
                None => Value::Error,
            },
            _ => Value::Error,
        },
        B::Member => match a(1) {
            Value::List(items) => Value::Bool(items.iter().any(|item| {
                !item.is_exceptional() && compare(BinOp::Eq, a(0), item) == Value::Bool(true)
            })),
            _ => Value::Error,
        },
        B::FormatTime => {
            let t = match args.first() {
                None => clock(env.now),
                Some(Value::Int(t)) => *t,
                // HTCondor casts a real time to a C `int`.
                Some(Value::Real(r)) => i64::from(c_cast_to_i32(*r)),
                Some(_) => return Value::Error,
            };
            match args.get(1) {
                None => format_time(t, "%c"),
                Some(Value::Str(f)) => format_time(t, f),
                Some(_) => Value::Error,
            }
        }
        B::Interval => match to_real_or_int(a(0)) {
            Some(Num::Int(s)) => Value::Str(interval(s).into()),
            Some(Num::Real(r)) => Value::Str(interval(c_cast_to_i64(r)).into()),
            None => Value::Error,
        },
        B::IsUndefined
        | B::IsError
        | B::IsString
        | B::IsInteger
        | B::IsReal
        | B::IsBoolean
        | B::IsList
        | B::IsClassAd
        | B::IsAbstime
        | B::IsReltime
        | B::StringListSubsetMatch
        | B::StringListISubsetMatch
        | B::CountMatches
        | B::EvalInEachContext
        | B::Random
        | B::IfThenElse
        | B::Eval
        | B::Unparse
        | B::Debug
        | B::Strcat
        | B::Time
        | B::Join
        | B::IdenticalMember
        | B::AnyCompare
        | B::AllCompare => Value::Error,
    }
}

/// `anyCompare(op, list, x)` / `allCompare(op, list, x)`: whether `element op x` is true for
/// some / every element. Strict in the operator and the list only.
fn any_all_compare(func: Builtin, args: &[Value]) -> Value {
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
    // A comparison that is an error (an error element, a number against a string) makes the
    // whole call an error, wherever it stands in the list.
    let results: Vec<Value> = items.iter().map(|item| apply_binary(op, item, x)).collect();
    if results.contains(&Value::Error) {
        return Value::Error;
    }
    let holds = |r: &Value| *r == Value::Bool(true);
    Value::Bool(if func == Builtin::AnyCompare {
        results.iter().any(holds)
    } else {
        results.iter().all(holds)
    })
}

/// The binary operator an `anyCompare` / `allCompare` operator string names.
fn comparison(op: &str) -> Option<BinOp> {
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

/// `pow(b, e)`: an integer (C's cast of the real power) for two integers with `e ≥ 0`, else
/// a real; booleans and strings are read as reals.
fn pow(base: &Value, exp: &Value) -> Value {
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
fn quantize(a: &Value, b: &Value) -> Value {
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

/// `min`, `max`, `sum` or `avg` over values; `undefined` ones are skipped, other non-numbers
/// are `error`. Integers (and booleans) stay integers, except in `avg`.
fn aggregate<'v>(func: Builtin, items: impl Iterator<Item = &'v Value>) -> Value {
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

/// `join(list)`, `join(sep, list)` or `join(sep, a, b, …)`; `undefined` items (and an
/// `undefined` separator) are left out.
fn join(args: &[Value]) -> Value {
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

fn substr(s: &Value, offset: &Value, length: Option<&Value>) -> Value {
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
fn natural_cmp(a: &str, b: &str) -> i64 {
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

/// How many compiled patterns each thread keeps (matchmaking evaluates the same few
/// `Requirements` against thousands of slots; compiling a pattern costs tens of microseconds).
const REGEX_CACHE: usize = 64;

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
fn compile(pattern: &str, options: Option<&Value>) -> Option<regex::Regex> {
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
fn regex_call(func: Builtin, args: &[Value], env: &Env) -> Value {
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
fn regexp_member(re: &regex::Regex, items: &[Value]) -> Value {
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

/// `stringListSubsetMatch(l1, l2)`: every item of `l1` is in `l2`. An `undefined` `l1` is
/// the empty set, an `undefined` `l2` contains nothing; both `undefined` is `undefined`.
fn subset_match(args: &[Value], ignore_case: bool) -> Value {
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

/// `split(s [, seps])` as HTCondor's `splitArb_func` walks it (separators `", \t"` unless
/// given): an item between two separators; nothing for leading or trailing separators or
/// for a run mixing whitespace and one other separator; but an empty item between two of
/// the same non-whitespace separator (`"a,,b"` is three items, `"a, b"` two).
fn split(s: &str, seps: &str) -> Value {
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
fn is_c_space(c: char) -> bool {
    u8::try_from(c).is_ok_and(super::lexer::is_c_space)
}

/// The delimiter characters of a string-list function (`" ,"` by default); `None` if the
/// argument is not a string.
fn delimiters(arg: Option<&Value>) -> Option<CharSet> {
    match arg {
        None => Some(CharSet::new(" ,")),
        Some(Value::Str(d)) => Some(CharSet::new(d)),
        Some(_) => None,
    }
}

/// A set of delimiter characters, looked up in constant time (a delimiter argument may be
/// as long as the string it splits).
pub(crate) struct CharSet {
    ascii: [bool; 128],
    other: FxHashSet<char>,
}

impl CharSet {
    pub(crate) fn new(chars: &str) -> CharSet {
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

    pub(crate) fn contains(&self, c: char) -> bool {
        match self.ascii.get(c as usize) {
            Some(&hit) => hit,
            None => self.other.contains(&c),
        }
    }
}

/// The items of a string list such as `"a, b,c"` (empty items dropped).
fn string_list<'s>(list: &'s str, delims: &'s CharSet) -> impl Iterator<Item = &'s str> + 's {
    list.split(move |c| delims.contains(c))
        .filter(|t| !t.is_empty())
}

/// A string-list item as a number: the whole item must read as one.
fn parse_number(item: &str) -> Option<Value> {
    if let Ok(i) = item.parse::<i64>() {
        return Some(Value::Int(i));
    }
    // HTCondor reads an item with strtod: "8.1.2" is 8.1.
    strtod_prefix(item).map(Value::Real)
}

/// `interval(s)`: `[d+]h:mm:ss`, dropping leading zero fields, on `s` narrowed to a C `int`
/// as HTCondor does (so `interval(2^32 + 5)` is `"5"`).
fn interval(secs: i64) -> String {
    // Truncation to 32 bits is HTCondor's (`IsIntegerValue(int&)`).
    let t = secs as i32;
    let (days, rest) = (t / 86_400, t % 86_400);
    let (hours, rest) = (rest / 3600, rest % 3600);
    let (minutes, seconds) = (rest / 60, rest % 60);
    let (h, m, s) = (hours.abs(), minutes.abs(), seconds.abs());
    if days != 0 {
        format!("{days}+{h:02}:{m:02}:{s:02}")
    } else if hours != 0 {
        format!("{hours}:{m:02}:{s:02}")
    } else if minutes != 0 {
        format!("{minutes}:{s:02}")
    } else {
        format!("{seconds}")
    }
}

/// Days since 1970-01-01 to a civil (year, month 1–12, day 1–31) date (Howard Hinnant's
/// algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a civil date (month 1–12), the inverse of [`civil_from_days`].
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A broken-down time as C's `struct tm` holds it. The fields of a split-time ad may be out
/// of range (day 0, month 13); `strftime` prints them as they are, as glibc does.
struct Tm {
    /// The full year (`tm_year + 1900`).
    year: i64,
    /// Months since January.
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    /// Days since Sunday.
    wday: i64,
    /// Days since January 1.
    yday: i64,
}

impl Tm {
    /// `gmtime(t)`, or `None` when the year does not fit C's `int` (glibc fails there).
    fn utc(t: i64) -> Option<Tm> {
        let days = t.div_euclid(86_400);
        let secs = t.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        i32::try_from(year - 1900).ok()?;
        Some(Tm {
            year,
            mon: month - 1,
            mday: day,
            hour: secs / 3600,
            min: secs / 60 % 60,
            sec: secs % 60,
            wday: (days + 4).rem_euclid(7), // 1970-01-01 was a Thursday
            yday: days - days_from_civil(year, 1, 1),
        })
    }

    /// The fields of a split-time ad (`Year`, `Month` 1–12, `Day`, `Hours`, `Minutes`,
    /// `Seconds`; `struct tm`'s zero where one is missing: year 1900, January, day 0),
    /// unnormalised, with the weekday and day of the year from HTCondor's `day_numbers` (C
    /// `int` arithmetic: a weekday before year 1 is negative, printed `?`).
    fn from_fields(fields: [Option<i32>; 6]) -> Tm {
        let [year, month, day, hours, minutes, seconds] = fields;
        let (year, month) = (year.unwrap_or(1900), month.unwrap_or(1));
        let [day, hours, minutes, seconds] = [day, hours, minutes, seconds].map(|f| f.unwrap_or(0));
        let fixed = |y: i32, m: i32, d: i32| {
            let leap = y % 4 == 0 && ![100, 200, 300].contains(&(y % 400));
            let adjust = if m <= 2 {
                0
            } else if leap {
                -1
            } else {
                -2
            };
            let p = y.wrapping_sub(1);
            365i32
                .wrapping_mul(p)
                .wrapping_add(p / 4)
                .wrapping_sub(p / 100)
                .wrapping_add(p / 400)
                .wrapping_add(367i32.wrapping_mul(m).wrapping_sub(362) / 12)
                .wrapping_add(adjust)
                .wrapping_add(d)
        };
        let today = fixed(year, month, day);
        Tm {
            year: i64::from(year.wrapping_sub(1900)) + 1900,
            mon: i64::from(month.wrapping_sub(1)),
            mday: i64::from(day),
            hour: i64::from(hours),
            min: i64::from(minutes),
            sec: i64::from(seconds),
            wday: i64::from(today % 7),
            yday: i64::from(today.wrapping_sub(fixed(year, 1, 1))),
        }
    }

    /// `mktime` in UTC: the seconds since the epoch the fields name once normalised.
    fn timestamp(&self) -> i64 {
        let months = self.year * 12 + self.mon;
        let days = days_from_civil(months.div_euclid(12), months.rem_euclid(12) + 1, 1);
        (days + self.mday - 1) * 86_400 + self.hour * 3600 + self.min * 60 + self.sec
    }
}

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `formatTime(t [, fmt])` of a time in seconds: C's `strftime` in the C locale in UTC;
/// `error` past the years C's `int` holds.
fn format_time(t: i64, format: &str) -> Value {
    match Tm::utc(t) {
        Some(tm) => Value::Str(strftime(&tm, format).into()),
        None => Value::Error,
    }
}

/// `formatTime(ad [, fmt])`: the fields of a split-time ad (HTCondor reads each with
/// `EvaluateAttrInt`; `None` when absent or not an integer), printed unnormalised.
pub(crate) fn format_split_time(fields: [Option<i32>; 6], format: Option<&Value>) -> Value {
    match format {
        None => Value::Str(strftime(&Tm::from_fields(fields), "%c").into()),
        Some(Value::Str(f)) => Value::Str(strftime(&Tm::from_fields(fields), f).into()),
        Some(_) => Value::Error,
    }
}

/// The attributes of a split-time ad [`format_split_time`] reads, in its field order.
pub(crate) const SPLIT_TIME_FIELDS: [&str; 6] =
    ["Year", "Month", "Day", "Hours", "Minutes", "Seconds"];

/// glibc's `strftime` in the C locale: out-of-range names print `?`, numbers print as they
/// are (zero- or space-padded to their width, the sign counted), and an unknown conversion
/// is copied as it stands.
fn strftime(tm: &Tm, format: &str) -> String {
    let name = |names: &'static [&'static str], i: i64, short: bool| -> &'static str {
        match usize::try_from(i).ok().and_then(|i| names.get(i)) {
            Some(n) if short => &n[..3],
            Some(n) => n,
            None => "?",
        }
    };
    let hour12 = match tm.hour {
        h if h > 12 => h - 12,
        0 => 12,
        h => h,
    };
    let (year, mday) = (tm.year, tm.mday);
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        let piece = match spec {
            '%' => "%".to_owned(),
            'a' => name(&WEEKDAYS, tm.wday, true).to_owned(),
            'A' => name(&WEEKDAYS, tm.wday, false).to_owned(),
            'b' | 'h' => name(&MONTHS, tm.mon, true).to_owned(),
            'B' => name(&MONTHS, tm.mon, false).to_owned(),
            'c' => strftime(tm, "%a %b %e %H:%M:%S %Y"),
            'C' => format!("{:02}", year.div_euclid(100)),
            'd' => format!("{mday:02}"),
            'D' | 'x' => strftime(tm, "%m/%d/%y"),
            'e' => format!("{mday:>2}"),
            'F' => format!("{year}-{:02}-{mday:02}", tm.mon + 1),
            'H' => format!("{:02}", tm.hour),
            'I' => format!("{hour12:02}"),
            'j' => format!("{:03}", tm.yday + 1),
            'k' => format!("{:>2}", tm.hour),
            'l' => format!("{hour12:>2}"),
            'm' => format!("{:02}", tm.mon + 1),
            'M' => format!("{:02}", tm.min),
            'n' => "\n".to_owned(),
            'p' => (if tm.hour > 11 { "PM" } else { "AM" }).to_owned(),
            'P' => (if tm.hour > 11 { "pm" } else { "am" }).to_owned(),
            'r' => strftime(tm, "%I:%M:%S %p"),
            'R' => strftime(tm, "%H:%M"),
            's' => tm.timestamp().to_string(),
            'S' => format!("{:02}", tm.sec),
            't' => "\t".to_owned(),
            'T' | 'X' => strftime(tm, "%H:%M:%S"),
            'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
            'U' => format!("{:02}", (tm.yday - tm.wday + 7).div_euclid(7)),
            'W' => format!(
                "{:02}",
                (tm.yday - (tm.wday - 1).rem_euclid(7) + 7).div_euclid(7)
            ),
            'w' => tm.wday.to_string(),
            'y' => format!("{:02}", year.rem_euclid(100)),
            'Y' => year.to_string(),
            'z' => "+0000".to_owned(),
            'Z' => "UTC".to_owned(),
            other => format!("%{other}"),
        };
        out.push_str(&piece);
    }
    out
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
    Value::Str(out.into())
}

/// A value as `string()` renders it.
fn to_text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        other => other.to_string(),
    }
}

enum Num {
    Int(i64),
    Real(f64),
}

impl Num {
    fn real(&self) -> f64 {
        match *self {
            Num::Int(i) => i as f64,
            Num::Real(r) => r,
        }
    }
}

/// A number or boolean (as 0/1) without reading strings.
fn to_number(v: &Value) -> Option<Num> {
    match *v {
        Value::Int(i) => Some(Num::Int(i)),
        Value::Bool(b) => Some(Num::Int(i64::from(b))),
        Value::Real(r) => Some(Num::Real(r)),
        _ => None,
    }
}

/// The numeric reading of a value for the conversion functions: booleans as 0/1, strings as
/// `strtod` reads them. `None` for `undefined`, `error` and unreadable strings.
fn to_real_or_int(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::Int(*i)),
        Value::Bool(b) => Some(Num::Int(i64::from(*b))),
        Value::Real(r) => Some(Num::Real(*r)),
        Value::Str(s) => strtod_prefix(s).map(Num::Real),
        _ => None,
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

/// C's `(int)` cast of a double on x86-64: out-of-range values and NaN give `i32::MIN`.
fn c_cast_to_i32(r: f64) -> i32 {
    if r.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&r) {
        i32::MIN
    } else {
        r as i32
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
