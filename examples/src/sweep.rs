//! Parallel sweeps over configurations, with deterministic result order.

use std::io::{IsTerminal, Write};

use cosched_core::stats::{self, Spread};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::{Paired, Seeds};

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
            let _ = writeln!(std::io::stderr());
        }
        results
    }

    /// [`Sweep::run`] for a fallible `f`: the results in input order, or the error of the
    /// first configuration (in input order) that failed.
    ///
    /// # Errors
    /// The first configuration's error.
    ///
    /// ```
    /// use cosched_examples::Sweep;
    /// let halves = Sweep::new("demo", vec![2_u32, 4]).try_run(|n| {
    ///     if n % 2 == 0 { Ok(n / 2) } else { Err(format!("{n} is odd")) }
    /// });
    /// assert_eq!(halves, Ok(vec![(2, 1), (4, 2)]));
    /// let odd = Sweep::new("demo", vec![2_u32, 3, 5]).try_run(|n| {
    ///     if n % 2 == 0 { Ok(n / 2) } else { Err(format!("{n} is odd")) }
    /// });
    /// assert_eq!(odd, Err("3 is odd".to_string()));
    /// ```
    pub fn try_run<R, E, F>(self, f: F) -> Result<Vec<(C, R)>, E>
    where
        R: Send,
        E: Send,
        F: Fn(&C) -> Result<R, E> + Sync,
    {
        self.run(f)
            .into_iter()
            .map(|(config, result)| result.map(|r| (config, r)))
            .collect()
    }

    /// Runs `f(config, seed)` for every configuration and every seed, all in parallel, and
    /// gathers each configuration's runs, in seed order, into [`Replicates`]: the one
    /// multi-seed averager of the examples. Configurations come back in input order.
    ///
    /// # Errors
    /// The error of the first failing run, in (configuration, seed) order.
    ///
    /// ```
    /// use cosched_examples::{Seeds, Sweep};
    /// let seeds = Seeds::new(u64::MAX, 2)?; // wraps: u64::MAX, then 0
    /// let runs = Sweep::new("demo", vec![10.0_f64, 20.0])
    ///     .run_replicated(&seeds, |&base, seed| {
    ///         Ok::<_, String>(base + if seed == 0 { 1.0 } else { 3.0 })
    ///     })
    ///     .unwrap();
    /// assert_eq!(runs[0].1.mean(|&x| x), 12.0);
    /// assert_eq!(runs[1].1.runs(), &[23.0, 21.0]);
    /// assert_eq!(runs[1].1.spread(|&x| x).map(|s| s.n), Some(2));
    /// # Ok::<(), cosched_examples::Error>(())
    /// ```
    pub fn run_replicated<R, E, F>(self, seeds: &Seeds, f: F) -> Result<Vec<(C, Replicates<R>)>, E>
    where
        R: Send,
        E: Send,
        F: Fn(&C, u64) -> Result<R, E> + Sync,
    {
        let seeds: Vec<u64> = seeds.iter().collect();
        let label = self.label;
        let pairs: Vec<(usize, u64)> = (0..self.configs.len())
            .flat_map(|c| seeds.iter().map(move |&seed| (c, seed)))
            .collect();
        let configs = self.configs;
        let results = Sweep::new(label, pairs).run(|&(c, seed)| match configs.get(c) {
            Some(config) => f(config, seed).map(Some),
            None => Ok(None),
        });
        let mut grouped: Vec<(C, Replicates<R>)> = configs
            .into_iter()
            .map(|config| (config, Replicates { runs: Vec::new() }))
            .collect();
        for ((c, _), result) in results {
            if let (Some(run), Some((_, replicates))) = (result?, grouped.get_mut(c)) {
                replicates.runs.push(run);
            }
        }
        Ok(grouped)
    }
}

/// One configuration's runs over several seeds ([`Sweep::run_replicated`]): any metric's mean
/// or spread, picked by a closure, so no example mirrors its report field by field to average
/// it. Statistics come from [`cosched_core::stats`].
#[derive(Clone, Debug, PartialEq)]
pub struct Replicates<R> {
    runs: Vec<R>,
}

impl<R> Replicates<R> {
    /// Replicates of these runs (in seed order).
    pub fn new(runs: Vec<R>) -> Self {
        Replicates { runs }
    }

    /// The runs, in seed order.
    pub fn runs(&self) -> &[R] {
        &self.runs
    }

    /// `metric`'s value in each run.
    pub fn values(&self, metric: impl Fn(&R) -> f64) -> Vec<f64> {
        self.runs.iter().map(metric).collect()
    }

    /// `metric`'s mean over the runs; NaN for no runs (shown as `n/a`, never as 0).
    pub fn mean(&self, metric: impl Fn(&R) -> f64) -> f64 {
        stats::mean(&self.values(metric)).unwrap_or(f64::NAN)
    }

    /// `metric`'s mean, sample standard deviation, range and 95 % confidence interval over
    /// the runs; `None` for no runs.
    pub fn spread(&self, metric: impl Fn(&R) -> f64) -> Option<Spread> {
        Spread::of(&self.values(metric))
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
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    ProgressBar::with_draw_target(Some(len as u64), target)
        .with_style(style)
        .with_prefix(label.to_owned())
}

// ---- paired comparisons (our findings: a mechanism against a baseline, same seeds) ----

impl<R> Replicates<R> {
    /// `metric` of each run against `metric` of `base`'s run of the same seed
    /// ([`Paired::new`], no tolerance); `None` for no pairs, unpaired runs or a NaN difference.
    ///
    /// ```
    /// use cosched_examples::{Replicates, Significance};
    ///
    /// let base = Replicates::new(vec![10.0, 12.0, 11.0]);
    /// let new = Replicates::new(vec![7.0, 9.5, 8.0]);
    /// let d = new.paired(&base, |&x| x).unwrap();
    /// assert_eq!(d.significance(), Significance::Lower);
    /// ```
    pub fn paired(&self, base: &Replicates<R>, metric: impl Fn(&R) -> f64) -> Option<Paired> {
        Paired::new(&self.values(&metric), &base.values(&metric))
    }
}
