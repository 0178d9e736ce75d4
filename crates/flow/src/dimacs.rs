//! The DIMACS minimum-cost-flow format (first DIMACS implementation challenge, 1991).
//!
//! ```text
//! c a comment line
//! p min NODES ARCS        the problem line, once, before any node or arc line
//! n ID SUPPLY             supply (> 0) or demand (< 0) of node ID; unlisted nodes have 0
//! a U V LOW CAP COST      an arc from node U to node V with flow in LOW..=CAP
//! ```
//!
//! Nodes are numbered `1..=NODES`; node `i` becomes `NodeIndex::new(i - 1)` of the returned
//! graph, whose node weights are the supplies and edge weights the arcs' [`ArcSpec`]s in file
//! order. Blank lines are ignored. The file must list exactly `ARCS` arcs, at most one `n` line
//! per node, supplies summing to zero, and `LOW ≤ CAP` on every arc; anything else is a
//! [`DimacsError`] naming the line and what is wrong. All numbers are `i64`.
//!
//! Memory is proportional to the file: `NODES` may not exceed [`node_limit`] of the file's
//! length (a short file cannot ask for gigabytes of nodes), and arcs are reserved only as many
//! as the text can hold.
//!
//! ```
//! use cosched_flow::dimacs::parse_dimacs;
//! use cosched_flow::min_cost_flow;
//!
//! let text = "c two routes\np min 3 3\nn 1 4\nn 3 -4\na 1 3 0 10 5\na 1 2 0 3 1\na 2 3 0 10 1\n";
//! let g = parse_dimacs(text).unwrap();
//! let outcome = min_cost_flow(&g, |v| g[v], |e| *e.weight()).unwrap();
//! assert_eq!(outcome.optimal().unwrap().cost, 3 * 2 + 5);
//!
//! let err = parse_dimacs("p min 2 1\na 1 3 0 1 1\n").unwrap_err();
//! assert_eq!(err.to_string(), "line 2: node 3 is out of range 1..=2");
//! ```

use crate::network_simplex::ArcSpec;
use cosched_core::excerpt;
use petgraph::graph::{DiGraph, NodeIndex};
use thiserror::Error;

/// The most nodes a problem line may declare. Every declared node is allocated (about 24 bytes
/// here, about 100 in the solver), so the bound keeps any file from exhausting memory.
pub const MAX_NODES: u64 = 1 << 26;

/// Nodes a problem line may declare whatever the file's length (see [`node_limit`]).
pub const FREE_NODES: u64 = 1 << 16;

/// The most nodes a DIMACS text of `bytes` bytes may declare: half its length (a node id
/// needs a digit and a separator, so no file mentions more distinct nodes than that), at least
/// [`FREE_NODES`], at most [`MAX_NODES`]. Nodes beyond what the file can mention are isolated
/// with zero supply (they change neither feasibility nor cost), so the bound only refuses files
/// whose problem line would make memory grow far beyond their length: a 17-byte
/// `p min 67108864 0` must not allocate gigabytes.
///
/// ```
/// use cosched_flow::dimacs::{FREE_NODES, node_limit};
/// assert_eq!(node_limit(17), FREE_NODES);
/// assert_eq!(node_limit(10_000_000), 5_000_000);
/// ```
pub fn node_limit(bytes: usize) -> u64 {
    (bytes as u64 / 2).clamp(FREE_NODES, MAX_NODES)
}

/// A malformed DIMACS file: the (1-based) line and what is wrong with it.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("line {line}: {kind}")]
pub struct DimacsError {
    /// The line number, from 1 (for a problem with the whole file, the last line).
    pub line: usize,
    /// What is wrong.
    pub kind: DimacsErrorKind,
}

/// What is wrong with a DIMACS line.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum DimacsErrorKind {
    /// A node or arc line, or the end of the file, came before any problem line.
    #[error("no problem line `p min NODES ARCS` before this line")]
    MissingProblemLine,
    /// A second problem line.
    #[error("second problem line (the first is on line {first})")]
    DuplicateProblemLine {
        /// The first one's line.
        first: usize,
    },
    /// The problem line names another problem type.
    #[error("problem type `{0}` is not `min`")]
    WrongProblemType(String),
    /// A line has the wrong number of fields.
    #[error("`{descriptor}` line has {found} fields, expected {expected}")]
    FieldCount {
        /// The line's first field.
        descriptor: String,
        /// Fields expected, the descriptor included.
        expected: usize,
        /// Fields found.
        found: usize,
    },
    /// A field is not an integer in range.
    #[error("{field} `{text}` is not an integer in range")]
    BadNumber {
        /// Which field (`NODES`, `ARCS`, `ID`, `SUPPLY`, `U`, `V`, `LOW`, `CAP`, `COST`).
        field: &'static str,
        /// Its text (at most [`cosched_core::EXCERPT_CHARS`] characters).
        text: String,
    },
    /// The node count is beyond what the solver handles.
    #[error("{0} nodes is too many (at most {MAX_NODES})")]
    TooManyNodes(u64),
    /// The problem line declares more nodes than a file this short can mention ([`node_limit`]).
    #[error(
        "{nodes} nodes declared in a {bytes}-byte file: at most {limit}, since nodes beyond what \
         the file can mention would all be isolated"
    )]
    NodesBeyondFile {
        /// NODES.
        nodes: u64,
        /// The file's length in bytes.
        bytes: usize,
        /// [`node_limit`] of that length.
        limit: u64,
    },
    /// A node number outside `1..=NODES`.
    #[error("node {node} is out of range 1..={nodes}")]
    NodeOutOfRange {
        /// The node number.
        node: i64,
        /// NODES.
        nodes: u64,
    },
    /// A second `n` line for the same node.
    #[error("node {node} already has a supply (line {first})")]
    DuplicateNode {
        /// The node number.
        node: i64,
        /// The first `n` line for it.
        first: usize,
    },
    /// An arc whose lower bound exceeds its capacity.
    #[error("lower bound {low} exceeds capacity {cap}")]
    BoundsInverted {
        /// LOW.
        low: i64,
        /// CAP.
        cap: i64,
    },
    /// More arc lines than the problem line announced.
    #[error("more than the {declared} arcs announced by the problem line")]
    TooManyArcs {
        /// ARCS.
        declared: u64,
    },
    /// Fewer arc lines than the problem line announced.
    #[error("{found} arcs, but the problem line announced {declared}")]
    TooFewArcs {
        /// ARCS.
        declared: u64,
        /// Arc lines found.
        found: u64,
    },
    /// The supplies do not sum to zero.
    #[error("the supplies sum to {0}, not 0")]
    Unbalanced(i128),
    /// A line starting with anything but `c`, `p`, `n` or `a`.
    #[error("unknown line type `{0}` (expected c, p, n or a)")]
    UnknownLine(String),
}

/// Reads a DIMACS minimum-cost-flow problem into a graph with supplies as node weights and
/// [`ArcSpec`]s as edge weights.
///
/// **Complexity:** O(length of the text).
///
/// # Errors
/// A [`DimacsError`] for the first thing wrong, with its line number.
pub fn parse_dimacs(text: &str) -> Result<DiGraph<i64, ArcSpec>, DimacsError> {
    let mut parser = Parser {
        // An arc line takes at least 12 bytes ("a 1 2 0 1 1\n"): reserve no more arcs than fit.
        arc_room: text.len() / 12 + 1,
        bytes: text.len(),
        ..Parser::default()
    };
    let mut last_line = 0;
    for (i, line) in text.lines().enumerate() {
        last_line = i + 1;
        parser.line(line).map_err(|kind| DimacsError {
            line: last_line,
            kind,
        })?;
    }
    parser.finish().map_err(|kind| DimacsError {
        line: last_line.max(1),
        kind,
    })
}

/// The header as read from the problem line.
struct Header {
    line: usize,
    nodes: u64,
    arcs: u64,
}

#[derive(Default)]
struct Parser {
    line: usize,
    header: Option<Header>,
    graph: DiGraph<i64, ArcSpec>,
    /// The `n` line of each node that has one.
    supply_line: Vec<usize>,
    arcs: u64,
    /// The most arc lines the text can hold.
    arc_room: usize,
    /// The text's length.
    bytes: usize,
}

impl Parser {
    fn line(&mut self, line: &str) -> Result<(), DimacsErrorKind> {
        self.line += 1;
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some(&descriptor) = fields.first() else {
            return Ok(());
        };
        match descriptor {
            "c" => Ok(()),
            "p" => self.problem(&fields),
            "n" => self.node(&fields),
            "a" => self.arc(&fields),
            other if other.starts_with('c') => Ok(()),
            other => Err(DimacsErrorKind::UnknownLine(excerpt(other))),
        }
    }

    fn problem(&mut self, fields: &[&str]) -> Result<(), DimacsErrorKind> {
        if let Some(header) = &self.header {
            return Err(DimacsErrorKind::DuplicateProblemLine { first: header.line });
        }
        if fields.len() >= 2 && fields[1] != "min" {
            return Err(DimacsErrorKind::WrongProblemType(excerpt(fields[1])));
        }
        expect_fields(fields, 4)?;
        let nodes: u64 = number(fields[2], "NODES")?;
        let arcs: u64 = number(fields[3], "ARCS")?;
        if nodes > MAX_NODES {
            return Err(DimacsErrorKind::TooManyNodes(nodes));
        }
        let limit = node_limit(self.bytes);
        if nodes > limit {
            return Err(DimacsErrorKind::NodesBeyondFile {
                nodes,
                bytes: self.bytes,
                limit,
            });
        }
        let room = usize::try_from(arcs)
            .unwrap_or(usize::MAX)
            .min(self.arc_room);
        self.graph = DiGraph::with_capacity(nodes as usize, room);
        for _ in 0..nodes {
            self.graph.add_node(0);
        }
        self.supply_line = vec![0; nodes as usize];
        self.header = Some(Header {
            line: self.line,
            nodes,
            arcs,
        });
        Ok(())
    }

    fn header(&self) -> Result<&Header, DimacsErrorKind> {
        self.header
            .as_ref()
            .ok_or(DimacsErrorKind::MissingProblemLine)
    }

    /// Node number `text` (1-based) as a graph index.
    fn node_index(&self, text: &str, field: &'static str) -> Result<NodeIndex, DimacsErrorKind> {
        let nodes = self.header()?.nodes;
        let node: i64 = number(text, field)?;
        if node < 1 || node as u64 > nodes {
            return Err(DimacsErrorKind::NodeOutOfRange { node, nodes });
        }
        Ok(NodeIndex::new(node as usize - 1))
    }

    fn node(&mut self, fields: &[&str]) -> Result<(), DimacsErrorKind> {
        self.header()?;
        expect_fields(fields, 3)?;
        let v = self.node_index(fields[1], "ID")?;
        let supply: i64 = number(fields[2], "SUPPLY")?;
        let first = self.supply_line[v.index()];
        if first != 0 {
            return Err(DimacsErrorKind::DuplicateNode {
                node: v.index() as i64 + 1,
                first,
            });
        }
        self.supply_line[v.index()] = self.line;
        self.graph[v] = supply;
        Ok(())
    }

    fn arc(&mut self, fields: &[&str]) -> Result<(), DimacsErrorKind> {
        let declared = self.header()?.arcs;
        expect_fields(fields, 6)?;
        let u = self.node_index(fields[1], "U")?;
        let v = self.node_index(fields[2], "V")?;
        let low: i64 = number(fields[3], "LOW")?;
        let cap: i64 = number(fields[4], "CAP")?;
        let cost: i64 = number(fields[5], "COST")?;
        if low > cap {
            return Err(DimacsErrorKind::BoundsInverted { low, cap });
        }
        if self.arcs == declared {
            return Err(DimacsErrorKind::TooManyArcs { declared });
        }
        self.arcs += 1;
        self.graph.add_edge(u, v, ArcSpec::new(low, cap, cost));
        Ok(())
    }

    fn finish(self) -> Result<DiGraph<i64, ArcSpec>, DimacsErrorKind> {
        let header = self.header()?;
        if self.arcs != header.arcs {
            return Err(DimacsErrorKind::TooFewArcs {
                declared: header.arcs,
                found: self.arcs,
            });
        }
        let sum: i128 = self.graph.node_weights().map(|&b| i128::from(b)).sum();
        if sum != 0 {
            return Err(DimacsErrorKind::Unbalanced(sum));
        }
        Ok(self.graph)
    }
}

fn expect_fields(fields: &[&str], expected: usize) -> Result<(), DimacsErrorKind> {
    if fields.len() == expected {
        Ok(())
    } else {
        Err(DimacsErrorKind::FieldCount {
            descriptor: excerpt(fields[0]),
            expected,
            found: fields.len(),
        })
    }
}

fn number<T: std::str::FromStr>(text: &str, field: &'static str) -> Result<T, DimacsErrorKind> {
    text.parse().map_err(|_| DimacsErrorKind::BadNumber {
        field,
        text: excerpt(text),
    })
}
