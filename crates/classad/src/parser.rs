//! Expressions and ads: the grammar, the syntax tree and precise parse errors.
//!
//! Language reference: HTCondor manual, *ClassAd Syntax* and *Operators* (precedence), and the
//! library's recursive-descent parser (`source.cpp`), whose grammar this follows:
//!
//! ```text
//! Expression  := OrExpr | OrExpr '?' Expression ':' Expression | OrExpr '?:' Expression
//! OrExpr      := binary operators, loosest first, all left-associative:
//!                ||   &&   |   ^   &   == != =?= =!= is isnt   < <= > >=   << >> >>>   + -   * / %
//! Unary       := ('-' | '+' | '!' | '~') Unary | Postfix
//! Postfix     := Primary ('.' Name | '[' Expression ']')*
//! Primary     := literal | Name | '.' Name | Name '(' [Expression (',' Expression)* [',']] ')'
//!              | '(' Expression ')' | '{' [Expression (',' Expression)*] '}' | ClassAd
//! ClassAd     := '[' ((Name '=' Expression)? ';')* (Name '=' Expression)? ']'
//! ```
//!
//! `{ … }` is a list, `[ … ]` inside an expression a nested ad, `x[i]` a subscript (a list
//! element from 0, or an ad's attribute by name), `.name` an absolute reference (an attribute
//! of the outermost ad).
//!
//! Every parse is bounded: the syntax tree may be at most [`MAX_DEPTH`] levels high and the
//! parser recurses at most that deep, so no input can exhaust the stack
//! ([`ParseErrorKind::TooDeep`]); HTCondor's own parser allows about 1,000 levels.

use super::functions::Builtin;
use super::lexer::{Tok, Token, tokenize};
use super::value::{Value, write_list};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The deepest syntax tree (and parser recursion) accepted.
pub const MAX_DEPTH: usize = 256;

/// A parse failure: where it happened and what was wrong.
///
/// `Display` gives `line L, column C (byte B): …`; columns count characters from 1.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("line {line}, column {column} (byte {offset}): {kind}")]
pub struct ParseError {
    /// Byte offset of the offending token or character in the input.
    pub offset: usize,
    /// 1-based line of `offset`.
    pub line: usize,
    /// 1-based column (in characters) of `offset`.
    pub column: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

impl ParseError {
    pub(crate) fn at(src: &str, offset: usize, kind: ParseErrorKind) -> Self {
        let before = &src[..offset.min(src.len())];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        ParseError {
            offset,
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            kind,
        }
    }
}

/// The kinds of [`ParseError`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ParseErrorKind {
    /// A token that does not fit the grammar here.
    #[error("expected {expected}, found {found}")]
    Unexpected {
        /// What the grammar allows at this point.
        expected: &'static str,
        /// The token found instead.
        found: String,
    },
    /// A character that starts no token.
    #[error("unexpected character {0:?}")]
    BadChar(char),
    /// A number HTCondor's lexer rejects (`1.`, `1e`, `017`, `0x1F`).
    #[error("malformed number `{text}`: {reason}")]
    BadNumber {
        /// The text of the number.
        text: String,
        /// Why it is rejected.
        reason: &'static str,
    },
    /// A string or quoted name without its closing quote.
    #[error("unterminated string literal")]
    UnterminatedString,
    /// A `/*` comment without `*/`.
    #[error("unterminated /* comment")]
    UnterminatedComment,
    /// A `\0` escape, which HTCondor rejects.
    #[error("string literal contains a NUL (\\0) escape")]
    NulInString,
    /// Octal escapes that do not form UTF-8 (HTCondor accepts arbitrary bytes; we hold text).
    #[error("string literal is not valid UTF-8 after its escapes")]
    InvalidUtf8,
    /// The expression nests deeper than [`MAX_DEPTH`].
    #[error("expression nests deeper than {limit} levels")]
    TooDeep {
        /// The limit, [`MAX_DEPTH`].
        limit: usize,
    },
}

/// An attribute name: as written, and lower-cased for case-insensitive lookup.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Name {
    pub key: Box<str>,
    pub text: Box<str>,
}

impl Name {
    pub(crate) fn new(text: &str) -> Self {
        Name {
            key: text.to_ascii_lowercase().into(),
            text: text.into(),
        }
    }
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

/// Binary operators (`&&`, `||` and the meta-comparisons are not strict; the rest are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Or,
    And,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    NotEq,
    MetaEq,
    MetaNotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    UShr,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    fn from_tok(tok: &Tok) -> Option<(BinOp, u8)> {
        let op = match tok {
            Tok::OrOr => BinOp::Or,
            Tok::AndAnd => BinOp::And,
            Tok::Pipe => BinOp::BitOr,
            Tok::Caret => BinOp::BitXor,
            Tok::Amp => BinOp::BitAnd,
            Tok::EqEq => BinOp::Eq,
            Tok::NotEq => BinOp::NotEq,
            Tok::MetaEq => BinOp::MetaEq,
            Tok::MetaNotEq => BinOp::MetaNotEq,
            Tok::Lt => BinOp::Lt,
            Tok::Le => BinOp::Le,
            Tok::Gt => BinOp::Gt,
            Tok::Ge => BinOp::Ge,
            Tok::Shl => BinOp::Shl,
            Tok::Shr => BinOp::Shr,
            Tok::UShr => BinOp::UShr,
            Tok::Plus => BinOp::Add,
            Tok::Minus => BinOp::Sub,
            Tok::Star => BinOp::Mul,
            Tok::Slash => BinOp::Div,
            Tok::Percent => BinOp::Mod,
            _ => return None,
        };
        Some((op, op.precedence()))
    }

    /// Its precedence, 1 (`||`) to 10 (`*`, `/`, `%`).
    fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::BitOr => 3,
            BinOp::BitXor => 4,
            BinOp::BitAnd => 5,
            BinOp::Eq | BinOp::NotEq | BinOp::MetaEq | BinOp::MetaNotEq => 6,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 7,
            BinOp::Shl | BinOp::Shr | BinOp::UShr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::Mod => 10,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::Eq => "==",
            BinOp::NotEq => "!=",
            BinOp::MetaEq => "=?=",
            BinOp::MetaNotEq => "=!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::UShr => ">>>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }
}

/// A function call: the name as written, the built-in it resolves to (`None`: unknown, which
/// evaluates to `error` as in HTCondor), and the argument expressions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub name: Box<str>,
    pub func: Option<Builtin>,
    pub args: Vec<Expr>,
    /// Where the name was written (not part of the expression's identity).
    pub at: SourcePos,
}

/// A place in the source text: byte offset, 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, Default)]
pub struct SourcePos {
    /// Byte offset.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Positions never make two expressions different.
impl PartialEq for SourcePos {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A call of a function this implementation does not provide (it evaluates to `error`),
/// found by [`Expr::unknown_functions`].
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownFunction {
    /// The name as written.
    pub name: String,
    /// Where, in the text the expression was parsed from.
    pub at: SourcePos,
    /// Whether HTCondor defines it (then only this implementation lacks it, see
    /// [`super::functions::NOT_PROVIDED`]); otherwise it is `error` in HTCondor too.
    pub htcondor_has_it: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprKind {
    Lit(Value),
    /// An unscoped attribute reference: `Memory`.
    Attr(Name),
    /// A selection: `MY.Memory`, `TARGET.Memory`, `x.y`.
    Select(Box<Expr>, Name),
    /// An absolute reference `.name`: the attribute of the outermost ad.
    Absolute(Name),
    /// A subscript `x[i]`.
    Subscript(Box<Expr>, Box<Expr>),
    /// A list literal `{ a, b }`.
    List(Vec<Expr>),
    /// A nested ad literal `[ a = 1; b = a ]`.
    Ad(Box<super::ClassAd>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a ?: b` (`a` unless it is undefined)
    Elvis(Box<Expr>, Box<Expr>),
    Call(Call),
}

/// A parsed ClassAd expression.
///
/// Parse with [`Expr::parse`] (or `str::parse`); evaluate with [`fn@super::eval`] or the methods
/// of [`super::ClassAd`]. `Display` prints it back in ClassAd syntax that parses to the same
/// tree: with the source's parentheses, as HTCondor's unparser does (`(a) + b * c` prints as
/// written), plus those a tree built otherwise needs for its operators' precedence; reals have
/// enough digits to read back the same value (unlike HTCondor's printer, which keeps 16
/// significant digits). Equality compares trees, not parentheses.
#[derive(Debug, Clone)]
pub struct Expr {
    pub(crate) kind: ExprKind,
    height: u16,
    /// How many pairs of parentheses enclosed it in the source.
    parens: u16,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.kind == other.kind
    }
}

impl Expr {
    /// Parses one complete expression.
    ///
    /// ```
    /// use cosched_classad::{Expr, ParseErrorKind};
    /// assert!(Expr::parse("TARGET.Memory >= 2048 && !TARGET.IsCloud").is_ok());
    /// let err = Expr::parse("Memory >= ").unwrap_err();
    /// assert_eq!((err.line, err.column, err.offset), (1, 11, 10));
    /// assert!(matches!(err.kind, ParseErrorKind::Unexpected { .. }));
    /// ```
    pub fn parse(src: &str) -> Result<Expr, ParseError> {
        let mut p = Parser::new(src)?;
        let e = p.expr()?;
        p.expect_end("an operator or end of input")?;
        Ok(e)
    }

    /// A literal expression.
    pub fn literal(value: Value) -> Expr {
        Expr {
            kind: ExprKind::Lit(value),
            height: 1,
            parens: 0,
        }
    }

    /// Calls of functions this implementation does not provide, in source order: names
    /// HTCondor does not define either (they evaluate to `error` there too, which makes a
    /// typo in a `Requirements` silently match nothing) and the few HTCondor functions left
    /// out here. Front ends warn about them.
    ///
    /// ```
    /// use cosched_classad::Expr;
    /// let e = Expr::parse("regexp(\"a.*\", Owner) && stringListMembr(\"x\", Groups)")?;
    /// let unknown = e.unknown_functions();
    /// assert_eq!(unknown.len(), 1);
    /// assert_eq!((unknown[0].name.as_str(), unknown[0].at.column), ("stringListMembr", 25));
    /// # Ok::<(), cosched_classad::ParseError>(())
    /// ```
    pub fn unknown_functions(&self) -> Vec<UnknownFunction> {
        let mut found = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if let ExprKind::Call(call) = &e.kind
                && call.func.is_none()
            {
                found.push(UnknownFunction {
                    name: call.name.to_string(),
                    at: call.at,
                    htcondor_has_it: super::functions::NOT_PROVIDED
                        .contains(&call.name.to_ascii_lowercase().as_str()),
                });
            }
            stack.extend(e.children());
        }
        found.sort_by_key(|u| u.at.offset);
        found
    }

    /// The height of the syntax tree (a literal or attribute is 1).
    pub fn height(&self) -> usize {
        usize::from(self.height)
    }

    fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Lit(_) | ExprKind::Attr(_) | ExprKind::Absolute(_) => Vec::new(),
            ExprKind::Select(e, _) | ExprKind::Unary(_, e) => vec![e],
            ExprKind::Binary(_, a, b) | ExprKind::Elvis(a, b) | ExprKind::Subscript(a, b) => {
                vec![a, b]
            }
            ExprKind::List(items) => items.iter().collect(),
            ExprKind::Ad(ad) => ad.iter().map(|(_, e)| e).collect(),
            ExprKind::Cond(a, b, c) => vec![a, b, c],
            ExprKind::Call(call) => call.args.iter().collect(),
        }
    }

    /// Whether the source wrote it in parentheses (`(a)`: an operator node for HTCondor).
    pub(crate) fn parenthesized(&self) -> bool {
        self.parens > 0
    }

    /// Whether `Display` may print this without parentheses as an operand (it prints its
    /// source's own).
    fn is_atom(&self) -> bool {
        if self.parens > 0 {
            return true;
        }
        match &self.kind {
            // Negative literals print their own parentheses.
            ExprKind::Lit(_)
            | ExprKind::Attr(_)
            | ExprKind::Call(_)
            | ExprKind::Absolute(_)
            | ExprKind::List(_)
            | ExprKind::Ad(_) => true,
            ExprKind::Select(base, _) | ExprKind::Subscript(base, _) => base.is_atom(),
            _ => false,
        }
    }

    /// How tightly it binds as an operand: 0 for a conditional, the precedence of a binary
    /// operator (1–10), 11 for a unary one, 12 for the rest.
    fn binding(&self) -> u8 {
        match &self.kind {
            ExprKind::Cond(..) | ExprKind::Elvis(..) => 0,
            ExprKind::Binary(op, ..) => op.precedence(),
            ExprKind::Unary(..) => 11,
            _ => 12,
        }
    }
}

impl FromStr for Expr {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Expr::parse(s)
    }
}

/// An operand, parenthesised if it is not an atom and binds less tightly than `min`.
struct Operand<'a>(&'a Expr, u8);

impl fmt::Display for Operand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_atom() || self.0.binding() >= self.1 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "({})", self.0)
        }
    }
}

/// The tightest binding: any operand that is not an atom is parenthesised.
const TIGHT: u8 = u8::MAX;

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = self
            .text
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && self
                .text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !matches!(
                &*self.key,
                "true" | "false" | "undefined" | "error" | "is" | "isnt"
            );
        if plain {
            f.write_str(&self.text)
        } else {
            // Same escapes as a string literal, with single quotes as the delimiter.
            let quoted = Value::Str(std::sync::Arc::from(&*self.text)).to_string();
            let inner = &quoted[1..quoted.len() - 1];
            write!(f, "'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.parens {
            f.write_str("(")?;
        }
        self.fmt_bare(f)?;
        for _ in 0..self.parens {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl Expr {
    /// The expression without its source parentheses (a negative literal keeps its own
    /// unless it has source ones).
    fn fmt_bare(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let own = self.parens == 0;
        match &self.kind {
            ExprKind::Lit(Value::Real(r)) if r.is_finite() => {
                let text = format!("{r:?}");
                if r.is_sign_negative() && own {
                    write!(f, "({text})")
                } else {
                    f.write_str(&text)
                }
            }
            // Infinite literals come from overflowing ones, and read back the same way.
            ExprKind::Lit(Value::Real(r)) if *r == f64::INFINITY => f.write_str("1e999"),
            ExprKind::Lit(Value::Real(r)) if *r == f64::NEG_INFINITY && own => {
                f.write_str("(-1e999)")
            }
            ExprKind::Lit(Value::Real(r)) if *r == f64::NEG_INFINITY => f.write_str("-1e999"),
            ExprKind::Lit(Value::Real(_)) => f.write_str("real(\"NaN\")"),
            ExprKind::Lit(Value::Int(i)) if *i < 0 && own => write!(f, "({i})"),
            ExprKind::Lit(v) => write!(f, "{v}"),
            ExprKind::Attr(name) => write!(f, "{name}"),
            ExprKind::Absolute(name) => write!(f, ".{name}"),
            ExprKind::Subscript(base, index) => write!(f, "{}[{index}]", Operand(base, TIGHT)),
            ExprKind::List(items) => write_list(f, items),
            ExprKind::Ad(ad) => write!(f, "{ad}"),
            ExprKind::Select(base, name) => match base.kind {
                // `0.J` would lex as a malformed number: `(0).J`. Negative literals print
                // their own parentheses.
                ExprKind::Lit(Value::Int(_) | Value::Real(_))
                    if !base.to_string().starts_with('(') =>
                {
                    write!(f, "({base}).{name}")
                }
                _ => write!(f, "{}.{name}", Operand(base, TIGHT)),
            },
            ExprKind::Unary(op, e) => {
                let sym = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                };
                // `- 5` keeps the operator: `-5` (or `-5[0]`) would lex as a negative literal.
                let operand = Operand(e, TIGHT).to_string();
                let space = if operand.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                    " "
                } else {
                    ""
                };
                write!(f, "{sym}{space}{operand}")
            }
            // Left-associative: a right operand of the same precedence is parenthesised.
            ExprKind::Binary(op, a, b) => {
                let p = op.precedence();
                write!(f, "{} {} {}", Operand(a, p), op.symbol(), Operand(b, p + 1))
            }
            ExprKind::Cond(c, a, b) => write!(f, "{} ? {a} : {b}", Operand(c, 1)),
            ExprKind::Elvis(a, b) => write!(f, "{} ?: {b}", Operand(a, 1)),
            ExprKind::Call(call) => {
                // Quoted when the name needs it, as attribute names are: `'a b'(1)`.
                write!(f, "{}(", Name::new(&call.name))?;
                for (i, arg) in call.args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{arg}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The recursive-descent parser over a token vector.
pub(crate) struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl<'s> Parser<'s> {
    pub(crate) fn new(src: &'s str) -> Result<Self, ParseError> {
        Ok(Parser {
            src,
            toks: tokenize(src)?,
            pos: 0,
            depth: 0,
        })
    }

    fn peek(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if t.tok != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn error_here(&self, kind: ParseErrorKind) -> ParseError {
        ParseError::at(self.src, self.peek().start, kind)
    }

    fn unexpected(&self, expected: &'static str) -> ParseError {
        self.error_here(ParseErrorKind::Unexpected {
            expected,
            found: self.peek().tok.describe(),
        })
    }

    fn expect(&mut self, tok: Tok, expected: &'static str) -> Result<(), ParseError> {
        if self.peek().tok == tok {
            self.bump();
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Whether every token has been consumed.
    pub(crate) fn at_end(&self) -> bool {
        self.peek().tok == Tok::Eof
    }

    pub(crate) fn expect_end(&mut self, expected: &'static str) -> Result<(), ParseError> {
        self.expect(Tok::Eof, expected)
    }

    /// Builds a node, refusing trees higher than [`MAX_DEPTH`].
    ///
    /// The recursive functions below keep their own stack frames small (even unoptimised) by
    /// leaving token matching and node building to helpers like this one, which are never
    /// inlined into them.
    #[inline(never)]
    fn node(&self, kind: ExprKind) -> Result<Expr, ParseError> {
        let mut e = Expr {
            kind,
            height: 1,
            parens: 0,
        };
        let below = e.children().iter().map(|c| c.height).max().unwrap_or(0);
        if usize::from(below) >= MAX_DEPTH {
            return Err(self.error_here(ParseErrorKind::TooDeep { limit: MAX_DEPTH }));
        }
        e.height = below + 1;
        Ok(e)
    }

    /// One level deeper into the recursion, refused past [`MAX_DEPTH`].
    #[inline(never)]
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here(ParseErrorKind::TooDeep { limit: MAX_DEPTH }));
        }
        Ok(())
    }

    /// `Expression`: a conditional or anything tighter. The parser recurses only through
    /// here (parentheses, arguments, conditional branches), at most [`MAX_DEPTH`] deep.
    pub(crate) fn expr(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let cond = self.binary(1)?;
        let e = if self.peek().tok == Tok::Question {
            self.conditional(cond)?
        } else {
            cond
        };
        self.depth -= 1;
        Ok(e)
    }

    /// After `cond ?`: the rest of `cond ? a : b` or `cond ?: b`.
    fn conditional(&mut self, cond: Expr) -> Result<Expr, ParseError> {
        self.bump(); // ?
        if self.peek().tok == Tok::Colon {
            self.bump();
            let other = self.expr()?;
            return self.node(ExprKind::Elvis(Box::new(cond), Box::new(other)));
        }
        let then = self.expr()?;
        self.expect(Tok::Colon, "`:` of a conditional expression")?;
        let otherwise = self.expr()?;
        self.node(ExprKind::Cond(
            Box::new(cond),
            Box::new(then),
            Box::new(otherwise),
        ))
    }

    /// Left-associative binary operators binding at least as tightly as `min_prec`.
    fn binary(&mut self, min_prec: u8) -> Result<Expr, ParseError> {
        let mut lhs = self.operand()?;
        while let Some((op, prec)) = self.binary_op(min_prec) {
            let rhs = self.binary(prec + 1)?;
            lhs = self.node(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)))?;
        }
        Ok(lhs)
    }

    /// Consumes the next token if it is a binary operator of precedence `min_prec` or more.
    #[inline(never)]
    fn binary_op(&mut self, min_prec: u8) -> Option<(BinOp, u8)> {
        let (op, prec) = BinOp::from_tok(&self.peek().tok)?;
        if prec < min_prec {
            return None;
        }
        self.bump();
        Some((op, prec))
    }

    /// `Unary`: prefix operators (read in a loop, not by recursion), then a postfix expression.
    fn operand(&mut self) -> Result<Expr, ParseError> {
        let prefix = self.prefix_ops();
        let e = self.primary()?;
        let e = self.selections(e)?;
        self.apply_prefix(prefix, e)
    }

    #[inline(never)]
    fn prefix_ops(&mut self) -> Vec<UnOp> {
        let mut ops = Vec::new();
        loop {
            let op = match self.peek().tok {
                Tok::Minus => UnOp::Neg,
                Tok::Plus => UnOp::Plus,
                Tok::Bang => UnOp::Not,
                Tok::Tilde => UnOp::BitNot,
                _ => return ops,
            };
            self.bump();
            ops.push(op);
        }
    }

    #[inline(never)]
    fn apply_prefix(&self, ops: Vec<UnOp>, mut e: Expr) -> Result<Expr, ParseError> {
        for op in ops.into_iter().rev() {
            e = self.node(ExprKind::Unary(op, Box::new(e)))?;
        }
        Ok(e)
    }

    /// `.name`: the name after a dot.
    #[inline(never)]
    fn dotted_name(&mut self) -> Result<Name, ParseError> {
        self.bump(); // .
        let Tok::Ident(name) = &self.peek().tok else {
            return Err(self.unexpected("an attribute name after `.`"));
        };
        let name = Name::new(name);
        self.bump();
        Ok(name)
    }

    /// `Postfix`: `.name` selections and `[index]` subscripts after a primary expression.
    #[inline(never)]
    fn selections(&mut self, mut e: Expr) -> Result<Expr, ParseError> {
        loop {
            match self.peek().tok {
                Tok::Dot => {
                    let name = self.dotted_name()?;
                    e = self.node(ExprKind::Select(Box::new(e), name))?;
                }
                Tok::LBracket => {
                    self.bump();
                    let index = self.expr()?;
                    self.expect(Tok::RBracket, "`]` closing a subscript")?;
                    e = self.node(ExprKind::Subscript(Box::new(e), Box::new(index)))?;
                }
                _ => return Ok(e),
            }
        }
    }

    /// `Primary`: a parenthesised expression, a call, or an atom.
    fn primary(&mut self) -> Result<Expr, ParseError> {
        if self.peek().tok == Tok::LParen {
            self.bump();
            let mut e = self.expr()?;
            self.expect(Tok::RParen, "`)` or an operator")?;
            e.parens = e.parens.saturating_add(1);
            return Ok(e);
        }
        if let Some((name, at)) = self.call_name() {
            return self.call(name, at);
        }
        self.atom()
    }

    /// The name of a function call starting here and where it is (consuming the name, not
    /// the `(`).
    #[inline(never)]
    fn call_name(&mut self) -> Option<(Box<str>, SourcePos)> {
        let Tok::Ident(name) = &self.peek().tok else {
            return None;
        };
        if self.toks[self.pos + 1].tok != Tok::LParen {
            return None;
        }
        let name = name.as_str().into();
        let e = ParseError::at(self.src, self.peek().start, ParseErrorKind::BadChar(' '));
        let at = SourcePos {
            offset: e.offset,
            line: e.line,
            column: e.column,
        };
        self.bump();
        Some((name, at))
    }

    /// A literal or an attribute name.
    #[inline(never)]
    fn atom(&mut self) -> Result<Expr, ParseError> {
        let value = match &self.peek().tok {
            Tok::Int(i) => Value::Int(*i),
            Tok::Real(r) => Value::Real(*r),
            Tok::Str(s) => Value::Str(s.as_str().into()),
            Tok::True => Value::Bool(true),
            Tok::False => Value::Bool(false),
            Tok::Undefined => Value::Undefined,
            Tok::Error => Value::Error,
            Tok::Ident(name) => {
                let name = Name::new(name);
                self.bump();
                return self.node(ExprKind::Attr(name));
            }
            Tok::Dot => {
                let name = self.dotted_name()?;
                return self.node(ExprKind::Absolute(name));
            }
            Tok::LBracket => return self.nested_ad(),
            Tok::LBrace => return self.list(),
            _ => return Err(self.unexpected("an expression")),
        };
        self.bump();
        Ok(Expr::literal(value))
    }

    /// `{ a, b, … }`.
    fn list(&mut self) -> Result<Expr, ParseError> {
        self.bump(); // {
        let mut items = Vec::new();
        if self.peek().tok == Tok::RBrace {
            self.bump();
            return self.node(ExprKind::List(items));
        }
        loop {
            items.push(self.expr()?);
            match self.peek().tok {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RBrace => {
                    self.bump();
                    return self.node(ExprKind::List(items));
                }
                _ => return Err(self.unexpected("`,` or `}` in a list")),
            }
        }
    }

    /// A nested ad literal `[ … ]` inside an expression.
    fn nested_ad(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let attrs = self.classad()?;
        self.depth -= 1;
        let mut ad = super::ClassAd::new();
        for (name, expr) in attrs {
            ad.insert(&name, expr);
        }
        self.node(ExprKind::Ad(Box::new(ad)))
    }

    /// `name(args)` after the name; like HTCondor, a trailing comma before `)` is accepted.
    fn call(&mut self, name: Box<str>, at: SourcePos) -> Result<Expr, ParseError> {
        self.bump(); // (
        let mut args = Vec::new();
        while self.peek().tok != Tok::RParen {
            args.push(self.expr()?);
            self.argument_separator()?;
        }
        self.bump(); // )
        self.make_call(name, args, at)
    }

    #[inline(never)]
    fn argument_separator(&mut self) -> Result<(), ParseError> {
        match self.peek().tok {
            Tok::Comma => {
                self.bump();
                Ok(())
            }
            Tok::RParen => Ok(()),
            _ => Err(self.unexpected("`,` or `)` in an argument list")),
        }
    }

    #[inline(never)]
    fn make_call(
        &self,
        name: Box<str>,
        args: Vec<Expr>,
        at: SourcePos,
    ) -> Result<Expr, ParseError> {
        let func = Builtin::lookup(&name);
        self.node(ExprKind::Call(Call {
            name,
            func,
            args,
            at,
        }))
    }

    /// `[ name = expr; … ]`, returning the attributes in order.
    pub(crate) fn classad(&mut self) -> Result<Vec<(String, Expr)>, ParseError> {
        self.expect(Tok::LBracket, "`[` to open a ClassAd")?;
        let mut attrs = Vec::new();
        loop {
            match self.peek().tok.clone() {
                Tok::RBracket => {
                    self.bump();
                    return Ok(attrs);
                }
                Tok::Semi => {
                    self.bump();
                }
                Tok::Ident(name) => {
                    self.bump();
                    self.expect(Tok::Assign, "`=` after the attribute name")?;
                    let e = self.expr()?;
                    if !matches!(self.peek().tok, Tok::Semi | Tok::RBracket) {
                        return Err(self.unexpected("`;`, `]` or an operator"));
                    }
                    attrs.push((name, e));
                }
                _ => return Err(self.unexpected("an attribute name or `]`")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> ParseError {
        Expr::parse(src).unwrap_err()
    }

    #[test]
    fn precedence_follows_htcondor() {
        let tree = |s: &str| Expr::parse(s).unwrap();
        let same = |a: &str, b: &str| assert_eq!(tree(a), tree(b), "{a} / {b}");
        same("1 + 2 * 3", "1 + (2 * 3)");
        same("a || b && c == d", "a || (b && (c == d))");
        same("1 ? 2 : 3 ? 4 : 5", "1 ? 2 : (3 ? 4 : 5)");
        same("a - b - c", "(a - b) - c");
        same("-x.y", "-(x.y)");
        same("x is undefined isnt true", "(x =?= undefined) =!= true");
        assert_ne!(tree("a - b - c"), tree("a - (b - c)"));
        assert_ne!(tree("1 + 2 * 3"), tree("(1 + 2) * 3"));
    }

    #[test]
    fn prints_the_source_parentheses_as_htcondor_does() {
        let shown = |s: &str| Expr::parse(s).unwrap().to_string();
        assert_eq!(
            shown("Memory > 1024 && Cpus >= 2"),
            "Memory > 1024 && Cpus >= 2"
        );
        assert_eq!(shown("(a) + b * (c - d)"), "(a) + b * (c - d)");
        assert_eq!(shown("((a && b)) || !(c)"), "((a && b)) || !(c)");
        assert_eq!(shown("x + (-7)"), "x + (-7)");
        assert_eq!(shown("x + -7"), "x + (-7)");
        assert_eq!(shown("(a ? b : c).d"), "(a ? b : c).d");
        assert_eq!(shown("f(1, 2,)"), "f(1, 2)");
    }

    #[test]
    fn errors_name_position_expected_and_found() {
        let e = err("a +\n  * b");
        assert_eq!((e.offset, e.line, e.column), (6, 2, 3));
        assert_eq!(
            e.to_string(),
            "line 2, column 3 (byte 6): expected an expression, found `*`"
        );
        let e = err("(1 + 2");
        assert_eq!(
            e.kind,
            ParseErrorKind::Unexpected {
                expected: "`)` or an operator",
                found: "end of input".into()
            }
        );
        assert!(matches!(
            err("{1, 2").kind,
            ParseErrorKind::Unexpected { .. }
        ));
        assert!(matches!(
            err("\"abc").kind,
            ParseErrorKind::UnterminatedString
        ));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = format!("{}1{}", "(".repeat(300), ")".repeat(300));
        assert_eq!(
            err(&deep).kind,
            ParseErrorKind::TooDeep { limit: MAX_DEPTH }
        );
        let long = vec!["1"; 300].join(" + ");
        assert_eq!(
            err(&long).kind,
            ParseErrorKind::TooDeep { limit: MAX_DEPTH }
        );
        assert!(Expr::parse(&vec!["1"; 200].join(" + ")).is_ok());
        let bangs = format!("{}true", "!".repeat(100_000));
        assert_eq!(
            err(&bangs).kind,
            ParseErrorKind::TooDeep { limit: MAX_DEPTH }
        );
    }
}
