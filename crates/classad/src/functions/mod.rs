//! HTCondor's built-in functions.
//!
//! Language reference: HTCondor manual, *ClassAd Mechanism → Predefined Functions*, and the
//! library's `fnCall.cpp`, checked case by case against the library configured as in an
//! HTCondor daemon (the fixture table `tests/fixtures/classad_eval.json`).
//!
//! **Which functions exist** depends on who evaluates. HTCondor's daemons (and the `htcondor2`
//! Python module, which configures the library as a daemon) register
//! [`DAEMON_REGISTERED`] on top of the library: `split`, `splitUserName`, `splitSlotName` and
//! the `stringList*` family but `stringListsIntersect`. The bare library (`libclassad`, the
//! `classad2` module on its own) does not know them, so a call is `error` there. This crate
//! follows the daemons by default, since the ads it evaluates are the negotiator's and the
//! schedd's ([`FunctionSet::Daemon`]); [`crate::EvalOptions::functions`] set to
//! [`FunctionSet::Library`] evaluates as the bare library does (`tests/classad_library.rs`
//! checks both against the library, `tests/fixtures/classad_library.json`). Only the set of
//! functions changes: the rest of the semantics stays the daemons' (an unscoped reference
//! falls back to the target ad, as with `STRICT_CLASSAD_EVALUATION = False`). Names are case-insensitive; a call with the
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
//!
//! This module holds the table of built-ins and the dispatcher (strictness, then each
//! function); the families live in submodules: `conversions` (numbers, C casts, `strtod`),
//! `math`, `strings`, `string_lists`, `lists`, `patterns` (regular expressions) and `time`.

use super::eval::{apply_binary, cmp_ignore_case, compare, identical};
use super::parser::BinOp;
use super::value::Value;
use rustc_hash::FxHashSet;

mod conversions;
mod lists;
mod math;
mod patterns;
mod string_lists;
mod strings;
mod time;

use conversions::*;
use lists::*;
use math::*;
use patterns::*;
use string_lists::*;
use strings::*;
use time::*;

pub use patterns::MAX_REGEX_HAYSTACK;
pub(crate) use patterns::work;
pub(crate) use time::{SPLIT_TIME_FIELDS, clock, format_split_time};

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

/// The functions HTCondor's daemons register on top of the bare library (lower-cased): a
/// call of one is `error` under [`FunctionSet::Library`].
pub const DAEMON_REGISTERED: &[&str] = &[
    "split",
    "splitusername",
    "splitslotname",
    "stringlistsize",
    "stringlistsum",
    "stringlistavg",
    "stringlistmin",
    "stringlistmax",
    "stringlistmember",
    "stringlistimember",
    "stringlistsubsetmatch",
    "stringlistisubsetmatch",
    "stringlist_regexpmember",
];

/// The functions an evaluation knows (see the [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FunctionSet {
    /// As HTCondor's daemons evaluate: the library's functions and [`DAEMON_REGISTERED`].
    #[default]
    Daemon,
    /// As the bare library evaluates: [`DAEMON_REGISTERED`] are unknown, so a call is `error`.
    Library,
}

impl FunctionSet {
    /// Whether `func` can be called.
    pub(crate) fn has(self, func: Builtin) -> bool {
        self == FunctionSet::Daemon || !DAEMON_REGISTERED.contains(&func.name())
    }
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
