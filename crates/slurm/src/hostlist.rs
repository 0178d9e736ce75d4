//! Slurm's compressed host lists: `n[1-3,07],gpu[01-02]` names `n1 n2 n3 n07 gpu01 gpu02`.
//!
//! The grammar Slurm prints: a comma-separated list of host expressions, each a name with zero
//! or more bracketed range sets (`[1-3,7]`); a range keeps the zero padding of its lower bound.
//! Expansion is bounded: a list that would name more than [`MAX_HOSTS`] hosts is an error, not an
//! allocation.

use thiserror::Error;

/// The most hosts one list may expand to.
pub const MAX_HOSTS: usize = 1 << 20;

/// A host list Slurm would not print.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad host list `{list}`: {reason}")]
pub struct HostlistError {
    /// The list (at most 80 characters of it).
    pub list: String,
    /// What is wrong.
    pub reason: &'static str,
}

/// The host names of `list`, in order.
pub fn expand(list: &str) -> Result<Vec<String>, HostlistError> {
    let err = |reason| HostlistError {
        list: list.chars().take(80).collect(),
        reason,
    };
    let mut hosts = Vec::new();
    for expr in split_top_level(list).map_err(err)? {
        if expr.is_empty() {
            continue;
        }
        expand_expr(expr, &mut hosts).map_err(err)?;
    }
    Ok(hosts)
}

/// Splits at commas outside brackets.
fn split_top_level(list: &str) -> Result<Vec<&str>, &'static str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in list.char_indices() {
        match c {
            '[' if depth == 0 => depth = 1,
            '[' => return Err("nested brackets"),
            ']' if depth == 1 => depth = 0,
            ']' => return Err("unmatched `]`"),
            ',' if depth == 0 => {
                parts.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unclosed `[`");
    }
    parts.push(list[start..].trim());
    Ok(parts)
}

/// Expands one expression (`pre[a-b,c]mid[d]post`), appending to `out`.
fn expand_expr(expr: &str, out: &mut Vec<String>) -> Result<(), &'static str> {
    let Some(open) = expr.find('[') else {
        push(out, expr.to_owned())?;
        return Ok(());
    };
    let close = expr[open..].find(']').ok_or("unclosed `[`")? + open;
    let (prefix, set, rest) = (&expr[..open], &expr[open + 1..close], &expr[close + 1..]);
    for item in set.split(',') {
        let (lo, hi) = item.split_once('-').unwrap_or((item, item));
        let width = lo.len();
        let parse = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| "a range bound is not a number")
        };
        let (a, b) = (parse(lo)?, parse(hi)?);
        if a > b {
            return Err("a range runs backwards");
        }
        if b - a >= MAX_HOSTS as u64 {
            return Err("the list names too many hosts");
        }
        for n in a..=b {
            let head = format!("{prefix}{n:0width$}");
            if rest.contains('[') {
                let mut tails = Vec::new();
                expand_expr(rest, &mut tails)?;
                for t in tails {
                    push(out, format!("{head}{t}"))?;
                }
            } else {
                push(out, format!("{head}{rest}"))?;
            }
        }
    }
    Ok(())
}

fn push(out: &mut Vec<String>, host: String) -> Result<(), &'static str> {
    if out.len() >= MAX_HOSTS {
        return Err("the list names too many hosts");
    }
    out.push(host);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn slurm_forms() {
        assert_eq!(expand("n1").unwrap(), ["n1"]);
        assert_eq!(expand("").unwrap(), Vec::<String>::new());
        assert_eq!(expand("n[1-3,7]").unwrap(), ["n1", "n2", "n3", "n7"]);
        assert_eq!(expand("gpu[08-10]").unwrap(), ["gpu08", "gpu09", "gpu10"]);
        assert_eq!(
            expand("r[1-2]c[1-2]").unwrap(),
            ["r1c1", "r1c2", "r2c1", "r2c2"]
        );
        assert_eq!(expand("a,b[1-2],c").unwrap(), ["a", "b1", "b2", "c"]);
    }

    #[test]
    fn malformed_lists_are_errors() {
        for bad in ["n[1-", "n[3-1]", "n[a-b]", "n]", "n[[1]]", "n[0-99999999]"] {
            assert!(expand(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        /// Any set of numbered hosts survives compression to ranges and expansion back.
        #[test]
        fn ranges_round_trip(nums in prop::collection::btree_set(0u32..500, 1..40)) {
            let nums: Vec<u32> = nums.into_iter().collect();
            let mut ranges = Vec::new();
            let mut i = 0;
            while i < nums.len() {
                let mut j = i;
                while j + 1 < nums.len() && nums[j + 1] == nums[j] + 1 { j += 1; }
                ranges.push(if i == j { nums[i].to_string() } else { format!("{}-{}", nums[i], nums[j]) });
                i = j + 1;
            }
            let list = format!("n[{}]", ranges.join(","));
            let want: Vec<String> = nums.iter().map(|n| format!("n{n}")).collect();
            prop_assert_eq!(expand(&list).unwrap(), want);
        }

        /// Arbitrary text never panics.
        #[test]
        fn arbitrary_text_is_a_result(s in "[a-z0-9\\[\\],\\-]{0,40}") {
            let _ = expand(&s);
        }
    }
}
