//! `cosched mcmf`: one DIMACS minimum-cost-flow problem, solved by the network simplex.

use clap::Args;
use cosched_flow::dimacs::{DimacsErrorKind, parse_dimacs};
use cosched_flow::{FlowError, FlowOutcome, NetworkSimplex, PivotRule};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;

/// Arguments of `cosched mcmf`.
#[derive(Args)]
pub struct McmfArgs {
    /// The problem in DIMACS minimum-cost-flow format (`p min NODES ARCS`, `n ID SUPPLY`,
    /// `a U V LOW CAP COST`).
    #[arg(long, value_name = "FILE.min")]
    dimacs: PathBuf,
    /// Pivot rule: block-search, first-eligible or best-eligible (Dantzig's rule: every arc
    /// priced at every pivot, about quadratic on large instances; a reference, not for speed).
    #[arg(long, value_name = "RULE", default_value_t = PivotRule::BlockSearch)]
    pivot: PivotRule,
}

/// Arcs beyond which `--pivot best-eligible` gets a warning: the rule prices every arc at every
/// pivot (Dantzig's rule, O(m) per pivot) and the number of pivots grows with the instance, so
/// its time is about quadratic; block search prices about √m arcs per pivot.
pub const BEST_ELIGIBLE_WARN_ARCS: usize = 100_000;

/// The longest line `cosched mcmf` reads, in bytes: a DIMACS line is a few numbers, so a longer
/// one is garbage (e.g. `/dev/zero`), refused before it fills memory.
pub const MAX_LINE_BYTES: usize = 1 << 16;

/// What can go wrong in `cosched mcmf`.
#[derive(Debug, Error)]
pub enum McmfError {
    /// The file could not be read.
    #[error("{}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The file is not valid DIMACS.
    #[error("{}:{line}: {kind}", path.display())]
    Dimacs {
        /// The file.
        path: PathBuf,
        /// The offending line.
        line: usize,
        /// What is wrong.
        kind: DimacsErrorKind,
    },
    /// The problem is outside the solver's range.
    #[error("{}: {source}", path.display())]
    Solve {
        /// The file.
        path: PathBuf,
        /// Why.
        source: FlowError,
    },
    /// Standard output could not be written.
    #[error("cannot write the result: {0}")]
    Output(io::Error),
}

/// Runs the command: prints `status optimal|infeasible|unbounded`, then for an optimal
/// problem `cost N` and `flow N` (the total supply shipped), then `time S s` (solve time,
/// parsing excluded).
pub fn run(args: &McmfArgs) -> Result<(), McmfError> {
    let path = &args.dimacs;
    let text = read_dimacs_text(path)?;
    let graph = parse_dimacs(&text).map_err(|e| McmfError::Dimacs {
        path: path.clone(),
        line: e.line,
        kind: e.kind,
    })?;
    if args.pivot == PivotRule::BestEligible && graph.edge_count() > BEST_ELIGIBLE_WARN_ARCS {
        eprintln!(
            "warning: --pivot best-eligible prices all {} arcs at every pivot, so its time grows \
             about quadratically with the instance; block-search (the default) solves the same \
             problem far faster",
            graph.edge_count()
        );
    }
    let clock = Instant::now();
    let outcome = NetworkSimplex::new()
        .pivot_rule(args.pivot)
        .solve(&graph, |v| graph[v], |e| *e.weight())
        .map_err(|source| McmfError::Solve {
            path: path.clone(),
            source,
        })?;
    let elapsed = clock.elapsed().as_secs_f64();
    let mut out = format!("status {}\n", outcome.status());
    if let FlowOutcome::Optimal(solution) = &outcome {
        let shipped: i128 = graph
            .node_weights()
            .filter(|&&b| b > 0)
            .map(|&b| i128::from(b))
            .sum();
        out += &format!("cost {}\nflow {shipped}\n", solution.cost);
    }
    out += &format!("time {elapsed:.6} s\n");
    io::stdout()
        .write_all(out.as_bytes())
        .map_err(McmfError::Output)
}

/// The DIMACS text of `path`, read line by line: a line longer than [`MAX_LINE_BYTES`] or not
/// UTF-8 is an error naming it (so binary garbage fails at once instead of filling memory), and
/// comment lines are kept as empty lines (line numbers stay right; memory holds only what the
/// problem needs).
fn read_dimacs_text(path: &Path) -> Result<String, McmfError> {
    let read_error = |message: String| McmfError::Read {
        path: path.to_path_buf(),
        message,
    };
    let file = File::open(path).map_err(|e| read_error(e.to_string()))?;
    let mut input = BufReader::new(file);
    let mut text = String::new();
    let mut line = Vec::new();
    for number in 1_usize.. {
        line.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let n = (&mut input)
            .take(limit)
            .read_until(b'\n', &mut line)
            .map_err(|e| read_error(e.to_string()))?;
        if n == 0 {
            break;
        }
        if line.len() > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            return Err(read_error(format!(
                "line {number} is longer than {MAX_LINE_BYTES} bytes"
            )));
        }
        let Ok(line) = std::str::from_utf8(&line) else {
            return Err(read_error(format!("line {number} is not UTF-8 text")));
        };
        if !line.trim_start().starts_with('c') {
            text.push_str(line.trim_end_matches(['\n', '\r']));
        }
        text.push('\n');
    }
    Ok(text)
}
