//! Tokens of the ClassAd language, as HTCondor's lexer (`classad::Lexer`) produces them.
//!
//! Language reference: HTCondor manual, *ClassAd Syntax* (literals, attribute names,
//! operators) and the library's `lexer.cpp`, whose production behaviour (old-ClassAd
//! semantics on, as every configured HTCondor process has them) this follows:
//!
//! - integers are decimal; a literal with a leading zero (`017`, `00`) or a hex literal
//!   (`0x1F`) is rejected; an integer literal outside the 64-bit range evaluates to `0`;
//! - reals are `digits.digits`, `.digits` or `digits` with an exponent `e[+-]digits`; a point
//!   must be followed by a digit (`1.` is rejected) and an exponent must have digits;
//! - a `-` directly followed by a digit (or `.digit`) is part of the number unless the previous
//!   token ends an operand, so `-9223372036854775808` is one in-range literal;
//! - strings are `"…"` with C escapes (`\n \t \a \b \f \r \v \\ \" \' \?`, octal `\ooo` — at most
//!   three digits, two when the first is `4`–`7`), any other escaped character stands for
//!   itself; adjacent string literals separated only by white space are one literal; a `\0`
//!   escape is an error;
//! - `'…'` is a quoted attribute name with the same escapes;
//! - `true`, `false`, `undefined`, `error`, `is` and `isnt` are keywords in any case;
//! - `//` and `/* */` comments.

use super::parser::{ParseError, ParseErrorKind};

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Int(i64),
    Real(f64),
    Str(String),
    Ident(String),
    True,
    False,
    Undefined,
    Error,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    NotEq,
    MetaEq,
    MetaNotEq,
    AndAnd,
    OrOr,
    Bang,
    Tilde,
    Amp,
    Pipe,
    Caret,
    Shl,
    Shr,
    UShr,
    Question,
    Colon,
    Dot,
    Comma,
    Semi,
    Assign,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Eof,
}

impl Tok {
    /// How an error message names this token.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Int(i) => format!("integer `{i}`"),
            Tok::Real(_) => "a real literal".to_owned(),
            Tok::Str(_) => "a string literal".to_owned(),
            Tok::Ident(s) => format!("identifier `{s}`"),
            Tok::True => "`true`".to_owned(),
            Tok::False => "`false`".to_owned(),
            Tok::Undefined => "`undefined`".to_owned(),
            Tok::Error => "`error`".to_owned(),
            Tok::Eof => "end of input".to_owned(),
            other => format!("`{}`", other.symbol()),
        }
    }

    /// The spelling of an operator or punctuation token.
    pub(crate) fn symbol(&self) -> &'static str {
        match self {
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::MetaEq => "=?=",
            Tok::MetaNotEq => "=!=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Bang => "!",
            Tok::Tilde => "~",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::UShr => ">>>",
            Tok::Question => "?",
            Tok::Colon => ":",
            Tok::Dot => ".",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Assign => "=",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            _ => "",
        }
    }

    /// Whether a `-` after this token is the binary operator rather than a number's sign.
    fn ends_operand(&self) -> bool {
        matches!(
            self,
            Tok::Int(_)
                | Tok::Real(_)
                | Tok::Str(_)
                | Tok::Ident(_)
                | Tok::True
                | Tok::False
                | Tok::Undefined
                | Tok::Error
                | Tok::Dot
                | Tok::RParen
                | Tok::RBracket
                | Tok::RBrace
        )
    }
}

/// A token and the byte range it came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
}

/// C's `isspace` in the C locale.
pub(crate) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Splits `src` into tokens, ending with [`Tok::Eof`].
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut lexer = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
    };
    let mut out: Vec<Token> = Vec::new();
    loop {
        lexer.skip_space_and_comments()?;
        let start = lexer.pos;
        let prev_ends_operand = out.last().is_some_and(|t| t.tok.ends_operand());
        let tok = lexer.next_token(prev_ends_operand)?;
        let done = tok == Tok::Eof;
        out.push(Token { tok, start });
        if done {
            return Ok(out);
        }
    }
}

struct Lexer<'s> {
    src: &'s str,
    bytes: &'s [u8],
    pos: usize,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn error(&self, at: usize, kind: ParseErrorKind) -> ParseError {
        ParseError::at(self.src, at, kind)
    }

    fn skip_space_and_comments(&mut self) -> Result<(), ParseError> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(b), _) if is_c_space(b) => self.pos += 1,
                (Some(b'/'), Some(b'/')) => {
                    while self.peek(0).is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    let start = self.pos;
                    match self.src[self.pos + 2..].find("*/") {
                        Some(end) => self.pos += 2 + end + 2,
                        None => {
                            return Err(self.error(start, ParseErrorKind::UnterminatedComment));
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn next_token(&mut self, prev_ends_operand: bool) -> Result<Tok, ParseError> {
        let Some(c) = self.peek(0) else {
            return Ok(Tok::Eof);
        };
        let digit_at = |k: usize| self.peek(k).is_some_and(|b| b.is_ascii_digit());
        let starts_number = c.is_ascii_digit()
            || (c == b'.' && digit_at(1))
            || (c == b'-'
                && !prev_ends_operand
                && (digit_at(1) || (self.peek(1) == Some(b'.') && digit_at(2))));
        if starts_number {
            return self.number();
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            return Ok(self.word());
        }
        if c == b'"' || c == b'\'' {
            return self.string(c);
        }
        self.punct()
    }

    fn number(&mut self) -> Result<Tok, ParseError> {
        let start = self.pos;
        if self.peek(0) == Some(b'-') {
            self.pos += 1;
        }
        let digits_start = self.pos;
        while self.peek(0).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let int_digits = &self.src[digits_start..self.pos];
        let mut real = false;
        if self.peek(0) == Some(b'.') {
            real = true;
            self.pos += 1;
            if !self.peek(0).is_some_and(|b| b.is_ascii_digit()) {
                return Err(self.bad_number(start, "a decimal point must be followed by a digit"));
            }
            while self.peek(0).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), Some(b'e' | b'E')) {
            real = true;
            self.pos += 1;
            if matches!(self.peek(0), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.peek(0).is_some_and(|b| b.is_ascii_digit()) {
                return Err(self.bad_number(start, "an exponent needs digits"));
            }
            while self.peek(0).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        let text = &self.src[start..self.pos];
        if real {
            return text
                .parse()
                .map(Tok::Real)
                .map_err(|_| self.bad_number(start, "not a real literal"));
        }
        if int_digits.len() > 1 && int_digits.starts_with('0') {
            return Err(self.bad_number(start, "integer literals may not have leading zeros"));
        }
        if int_digits == "0" && matches!(self.peek(0), Some(b'x' | b'X')) {
            return Err(self.bad_number(start, "hexadecimal literals are not allowed"));
        }
        // HTCondor reads an integer literal outside the 64-bit range as 0.
        Ok(Tok::Int(text.parse().unwrap_or(0)))
    }

    fn bad_number(&mut self, start: usize, reason: &'static str) -> ParseError {
        while self
            .peek(0)
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
        {
            self.pos += 1;
        }
        let text = self.src[start..self.pos].to_owned();
        self.error(start, ParseErrorKind::BadNumber { text, reason })
    }

    fn word(&mut self) -> Tok {
        let start = self.pos;
        while self
            .peek(0)
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            self.pos += 1;
        }
        let word = &self.src[start..self.pos];
        match word.to_ascii_lowercase().as_str() {
            "true" => Tok::True,
            "false" => Tok::False,
            "undefined" => Tok::Undefined,
            "error" => Tok::Error,
            "is" => Tok::MetaEq,
            "isnt" => Tok::MetaNotEq,
            _ => Tok::Ident(word.to_owned()),
        }
    }

    /// A `"string"` or a `'quoted name'`, with adjacent literals of the same kind joined.
    fn string(&mut self, delim: u8) -> Result<Tok, ParseError> {
        let start = self.pos;
        let mut raw: Vec<u8> = Vec::new();
        loop {
            self.pos += 1; // the opening delimiter
            let mut escaped = false;
            loop {
                match self.peek(0) {
                    None | Some(0) => {
                        return Err(self.error(start, ParseErrorKind::UnterminatedString));
                    }
                    Some(b) if b == delim && !escaped => break,
                    Some(b) => {
                        escaped = b == b'\\' && !escaped;
                        raw.push(b);
                        self.pos += 1;
                    }
                }
            }
            self.pos += 1; // the closing delimiter
            let mut next = self.pos;
            while self.bytes.get(next).is_some_and(|&b| is_c_space(b)) {
                next += 1;
            }
            if self.bytes.get(next) == Some(&delim) {
                self.pos = next;
            } else {
                break;
            }
        }
        let bytes =
            convert_escapes(&raw).ok_or_else(|| self.error(start, ParseErrorKind::NulInString))?;
        let text =
            String::from_utf8(bytes).map_err(|_| self.error(start, ParseErrorKind::InvalidUtf8))?;
        Ok(if delim == b'"' {
            Tok::Str(text)
        } else {
            Tok::Ident(text)
        })
    }

    fn punct(&mut self) -> Result<Tok, ParseError> {
        let start = self.pos;
        let next = |k: usize| self.peek(k);
        let (tok, len) = match (next(0), next(1), next(2)) {
            (Some(b'>'), Some(b'>'), Some(b'>')) => (Tok::UShr, 3),
            (Some(b'='), Some(b'?'), Some(b'=')) => (Tok::MetaEq, 3),
            (Some(b'='), Some(b'!'), Some(b'=')) => (Tok::MetaNotEq, 3),
            (Some(b'<'), Some(b'='), _) => (Tok::Le, 2),
            (Some(b'<'), Some(b'<'), _) => (Tok::Shl, 2),
            (Some(b'>'), Some(b'='), _) => (Tok::Ge, 2),
            (Some(b'>'), Some(b'>'), _) => (Tok::Shr, 2),
            (Some(b'='), Some(b'='), _) => (Tok::EqEq, 2),
            (Some(b'!'), Some(b'='), _) => (Tok::NotEq, 2),
            (Some(b'&'), Some(b'&'), _) => (Tok::AndAnd, 2),
            (Some(b'|'), Some(b'|'), _) => (Tok::OrOr, 2),
            (Some(b), _, _) => {
                let tok = match b {
                    b'+' => Tok::Plus,
                    b'-' => Tok::Minus,
                    b'*' => Tok::Star,
                    b'/' => Tok::Slash,
                    b'%' => Tok::Percent,
                    b'<' => Tok::Lt,
                    b'>' => Tok::Gt,
                    b'=' => Tok::Assign,
                    b'!' => Tok::Bang,
                    b'~' => Tok::Tilde,
                    b'&' => Tok::Amp,
                    b'|' => Tok::Pipe,
                    b'^' => Tok::Caret,
                    b'?' => Tok::Question,
                    b':' => Tok::Colon,
                    b'.' => Tok::Dot,
                    b',' => Tok::Comma,
                    b';' => Tok::Semi,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    b'{' => Tok::LBrace,
                    b'}' => Tok::RBrace,
                    _ => {
                        let c = self.src[start..].chars().next().unwrap_or('\u{fffd}');
                        return Err(self.error(start, ParseErrorKind::BadChar(c)));
                    }
                };
                (tok, 1)
            }
            (None, _, _) => (Tok::Eof, 0),
        };
        self.pos += len;
        Ok(tok)
    }
}

/// HTCondor's `convert_escapes`: `None` if an escape produces a NUL byte.
fn convert_escapes(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        // A backslash as the very last character stays a backslash.
        if b != b'\\' || i + 1 == raw.len() {
            out.push(b);
            i += 1;
            continue;
        }
        i += 1;
        let e = raw[i];
        let byte = match e {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'0'..=b'7' => {
                let mut n = u32::from(e - b'0');
                if let Some(&d @ b'0'..=b'7') = raw.get(i + 1) {
                    i += 1;
                    n = (n << 3) + u32::from(d - b'0');
                    if n < 0x20
                        && let Some(&d @ b'0'..=b'7') = raw.get(i + 1)
                    {
                        i += 1;
                        n = (n << 3) + u32::from(d - b'0');
                    }
                }
                let byte = n as u8; // C's `(char)number`
                if byte == 0 {
                    return None;
                }
                byte
            }
            other => other,
        };
        out.push(byte);
        i += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        tokenize(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn minus_joins_a_number_only_where_an_operand_starts() {
        assert_eq!(
            toks("2 -1"),
            [Tok::Int(2), Tok::Minus, Tok::Int(1), Tok::Eof]
        );
        assert_eq!(
            toks("2--1"),
            [Tok::Int(2), Tok::Minus, Tok::Int(-1), Tok::Eof]
        );
        assert_eq!(
            toks("(-9223372036854775808)"),
            [Tok::LParen, Tok::Int(i64::MIN), Tok::RParen, Tok::Eof]
        );
        assert_eq!(toks("- 1"), [Tok::Minus, Tok::Int(1), Tok::Eof]);
    }

    #[test]
    fn escapes_and_adjacent_strings() {
        assert_eq!(
            toks(r#""a\1" "2""#),
            [Tok::Str("a\n".into()), Tok::Eof],
            "joined before escapes are read"
        );
        assert_eq!(toks(r#""\777\400""#), [Tok::Str("?7 0".into()), Tok::Eof]);
        assert_eq!(toks(r#""\q\x41""#), [Tok::Str("qx41".into()), Tok::Eof]);
        assert!(tokenize(r#""\0""#).is_err());
    }

    #[test]
    fn numbers_htcondor_rejects() {
        for bad in ["017", "00", "0x1F", "1.", "1e", "1e+", "5.e3"] {
            assert!(tokenize(bad).is_err(), "{bad}");
        }
        assert_eq!(toks("99999999999999999999"), [Tok::Int(0), Tok::Eof]);
        assert_eq!(toks("007.5"), [Tok::Real(7.5), Tok::Eof]);
    }
}
