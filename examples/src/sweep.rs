//! Parallel sweeps over configurations, with deterministic result order.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

/// The progress bar's layout: label, bar, count/total, elapsed time and ETA.
const TEMPLATE: &str = "{prefix} [{bar:30}] {pos}/{len} elapsed {elapsed} eta {eta}";

/// A set of configurations to run in parallel.
///
/// [`Sweep::run`] evaluates a closure on every configuration with rayon and returns the
/// results in input order, whatever the threads' scheduling: the output of an example does not
/// depend on how many cores ran it. A progress bar labelled with the sweep's label is drawn on
/// stderr when stderr is a terminal, and hidden otherwise (in CI, or when redirected).
///
/// ```
/// use cosched_examples::Sweep;
/// let squares = Sweep::new("demo", vec![1_u64, 2, 3]).run(|n| n * n);
/// assert_eq!(squares, vec![(1, 1), (2, 4), (3, 9)]);
/// ```
#[derive(Debug, Clone)]
pub struct Sweep<C> {
    label: String,
    configs: Vec<C>,
}

impl<C: Send + Sync> Sweep<C> {
    /// A sweep over `configs`, its progress bar labelled `label` (usually the example's name).
    pub fn new(label: impl Into<String>, configs: Vec<C>) -> Self {
        Sweep {
            label: label.into(),
            configs,
        }
    }

    /// Runs `f` on every configuration in parallel; returns each configuration beside its
    /// result, in input order.
    pub fn run<R, F>(self, f: F) -> Vec<(C, R)>
    where
        R: Send,
        F: Fn(&C) -> R + Sync,
    {
        let bar = progress_bar(&self.label, self.configs.len());
        let results = self
            .configs
            .into_par_iter()
            .map(|config| {
                let result = f(&config);
                bar.inc(1);
                (config, result)
            })
            .collect();
        bar.finish();
        if !bar.is_hidden() {
            // The finished bar stays on screen; end its line so later output starts afresh.
            eprintln!();
        }
        results
    }
}

/// A bar of `len` steps on stderr if it is a terminal, hidden otherwise.
fn progress_bar(label: &str, len: usize) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let style = ProgressStyle::with_template(TEMPLATE)
        .expect("the progress template is valid")
        .progress_chars("=> ");
    ProgressBar::with_draw_target(Some(len as u64), target)
        .with_style(style)
        .with_prefix(label.to_owned())
}
