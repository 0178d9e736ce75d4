//! Times the network simplex on long paths, cycles and caterpillars: the shapes on
//! which the artificial-star start is quadratic.
//!
//! `cargo run --release -p cosched-flow --example long_paths -- [--compare] [N...]` solves each
//! shape with N nodes (default 10,000, 40,000 and 100,000) from the cheapest-paths basis and,
//! with `--compare`, also from the artificial star (minutes at 100,000 nodes).

#[path = "../tests/support/mod.rs"]
mod support;

use cosched_flow::{FlowOutcome, InitialBasis, NetworkSimplex};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let compare = args.iter().any(|a| a == "--compare");
    let mut sizes = Vec::new();
    for arg in args.iter().filter(|a| *a != "--compare") {
        match arg.parse::<usize>() {
            Ok(n) if (3..=50_000_000).contains(&n) => sizes.push(n),
            _ => {
                eprintln!("error: `{arg}` is not a node count in 3..=50000000 or --compare");
                std::process::exit(1);
            }
        }
    }
    if sizes.is_empty() {
        sizes = vec![10_000, 40_000, 100_000];
    }
    let bases: &[InitialBasis] = if compare {
        &InitialBasis::ALL
    } else {
        &[InitialBasis::CheapestPaths]
    };
    for &n in &sizes {
        for (name, shape) in support::LONG_SHAPES {
            let inst = shape(n);
            let g = inst.graph();
            for &basis in bases {
                let clock = Instant::now();
                let out =
                    NetworkSimplex::new()
                        .initial_basis(basis)
                        .solve(&g, |v| g[v], |e| *e.weight());
                let secs = clock.elapsed().as_secs_f64();
                let result = match &out {
                    Ok(FlowOutcome::Optimal(s)) => format!("cost {}", s.cost),
                    Ok(other) => other.status().to_string(),
                    Err(e) => format!("error: {e}"),
                };
                println!("{name:<16} n {n:>9}  {basis:<16} {secs:>9.3} s  {result}");
            }
        }
    }
}
