//! The Tsafrir–Etsion–Feitelson model of user runtime estimates.
//!
//! D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling user runtime estimates", JSSPP 2005,
//! LNCS 3834. The reference implementation is Dan Tsafrir's C++ `est_model.cc` /
//! `est_model.hh` (`m_tsafrir05` on the Parallel Workloads Archive models page); this module
//! follows it function by function and every default names the constant or `EstParams_t`
//! field it comes from. (We read the copy vendored by the `parallelworkloads` Python package.)
//!
//! Users do not estimate freely: most pick one of a few "round" values, and the single most
//! popular value is the maximum the system allows. The model therefore first builds an
//! estimate *histogram* for `n` jobs (`est_gen_dist`), then hands its estimates out to the
//! jobs at random subject to `estimate >= runtime` (`est_assign`); the accuracy distribution
//! (runtime / estimate) emerges from that random matching.
//!
//! | step | C++ function | model |
//! | --- | --- | --- |
//! | number of bins `K` | `get_binnum` | piecewise-linear in `n` through `BINUM_LINEAR` = (0, 0), (20, 10), (200, 20), (1000, 35), (10⁴, 90), (7·10⁴, 340), (2.5·10⁵, 565); 565 beyond |
//! | head times | `gen_head_bintim` | the maximum, the 15 values of `EST_JOINT` (5, 10, 15, 20, 30 min; 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h) below it, completed to `TOP` = 20 with multiples of `EST_ROUND` (200 h, 100 h, 50 h, 10 h, 5 h, 2 h, 1 h, 20, 10, 5 min) counted down from the maximum |
//! | head sizes | `gen_head_binsiz` | popularity rank `r` = 2..20 holds `14.0491 e^(-0.177531 r) + 0.462513` % of the jobs; rank 1 the rest of `binsiz_head_sum` = 89 % |
//! | head ranks | `gen_head_timrnk_poprnk_map` | the maximum gets rank 1; other time-ranks draw popularity ranks from the `TIMRNK_TO_POPRNK` table observed in four traces (SDSC, CTC, KTH, Blue), forced once a rank's last row is passed, else the smaller of two random picks |
//! | tail times | `gen_tail_bintim` | `K - 20` values `y = (a - 1) x / (a - x)` of the maximum at `x = i / (K - 20)`, `a = 1 + 12.1039 K^-0.6026`, rounded to minutes and nudged by ±30/20/10 s off collisions |
//! | tail sizes | `gen_tail_binsiz`, `gen_tail_map` | rank `r` >= 21 holds `795.6 r^-2.267`, normalised to the remaining 11 %, matched to the tail times at random |
//! | counts | `est_gen_dist`, `adjust_njobs` | `max(1, round(share · n))` per bin, then equalised to `n` (proportionally, then ±1, then down to 1, then to 0, biggest bins first) |
//! | assignment | `est_assign`, `shuffle` | jobs by runtime descending; job `j` takes a random estimate among those still free that cover its runtime |
//!
//! **Deviations from `est_model.cc`**:
//! - where the C++ program aborts because the histogram cannot cover the runtimes (its
//!   "model FAILED ... maximal estimate too small" exit), the offending estimates are lifted
//!   to the smallest histogram value that covers their job and the count is reported in
//!   [`AssignReport::estimates_lifted`] (one pass provably suffices);
//! - runtimes above the maximum estimate are cut to it, as the C++ `est_assign` does (a real
//!   system kills such a job at the walltime limit), and counted in
//!   [`AssignReport::runtimes_capped`];
//! - with a maximum below 2 h fewer than 20 head values exist, and the C++ rank map can index
//!   past its size vector; popularity ranks are restricted to the head values that exist;
//! - of the C++ "user-supplied bins" hint only the one the header singles out is offered: the
//!   share of jobs at the maximum ([`TsafrirParams::max_estimate_share`]), merged exactly as
//!   `gen_head_binsiz` / `gen_head_binsiz_merge` merge a user bin at the maximum;
//! - random draws come from named [`SeedStreams`] (`tsafrir.histogram` for the histogram,
//!   `tsafrir.matching` for the matching of estimates to jobs), never from the seed the
//!   workload's generator uses, so the two never share draws;
//! - random shuffles use `StreamRng`; ties in the C++ `std::sort` calls (same runtime, same
//!   bin size) are broken deterministically by position and by time.
//!
//! ```
//! use cosched_workload::{estimates::TsafrirEstimates, lublin::LublinModel};
//! use cosched_core::Duration;
//! let mut jobs = LublinModel::new(128).unwrap().generate(5_000, 1);
//! let model = TsafrirEstimates::new(Duration::from_hours(48)).unwrap();
//! let report = model.assign(&mut jobs, 1);
//! assert_eq!(report.runtimes_capped, 0); // Lublin runtimes stop at e^12 s < 48 h
//! assert!(jobs.iter().all(|j| j.runtime <= j.estimate && j.estimate <= Duration::from_hours(48)));
//! let at_max = jobs.iter().filter(|j| j.estimate == Duration::from_hours(48)).count();
//! assert!(at_max > 900 && at_max < 1_300); // ~21.7 %: the most popular estimate
//! ```

use cosched_core::{Duration, ParamError, RigidJob};
use cosched_core::{SeedStreams, StreamRng};
use rand::RngExt;
use rand::seq::SliceRandom;
use std::collections::{BTreeMap, BTreeSet};

const MIN: i64 = 60;
const HOUR: i64 = 60 * MIN;

/// Estimates in the head of the distribution (`TOP` in `est_model.cc`).
const TOP: usize = 20;

/// `TIMRNK_TO_POPRNK`: row = top-20 time rank (0 is the maximum), columns = the popularity
/// rank of that estimate in the SDSC, CTC, KTH and Blue traces.
const TIMRNK_TO_POPRNK: [[usize; 4]; TOP] = [
    [3, 1, 1, 1],
    [1, 3, 4, 6],
    [4, 4, 10, 5],
    [17, 2, 14, 3],
    [13, 12, 20, 7],
    [7, 9, 2, 2],
    [8, 8, 3, 18],
    [18, 18, 7, 19],
    [2, 6, 12, 4],
    [6, 7, 6, 11],
    [16, 11, 19, 20],
    [10, 20, 5, 9],
    [5, 16, 18, 10],
    [15, 5, 16, 14],
    [14, 14, 9, 13],
    [19, 13, 17, 16],
    [11, 10, 15, 15],
    [12, 15, 13, 17],
    [9, 17, 8, 8],
    [20, 19, 11, 12],
];

/// `EST_JOINT`: the 15 top-20 estimates common to all four traces, in popularity order.
const EST_JOINT: [i64; 15] = [
    5 * MIN,
    15 * MIN,
    10 * MIN,
    20 * MIN,
    30 * MIN,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    4 * HOUR,
    5 * HOUR,
    6 * HOUR,
    8 * HOUR,
    10 * HOUR,
    12 * HOUR,
    18 * HOUR,
];

/// `EST_ROUND`: multiples used, largest first, to complete the head to `TOP` values.
const EST_ROUND: [i64; 10] = [
    200 * HOUR,
    100 * HOUR,
    50 * HOUR,
    10 * HOUR,
    5 * HOUR,
    2 * HOUR,
    HOUR,
    20 * MIN,
    10 * MIN,
    5 * MIN,
];

/// `BINUM_LINEAR`: (jobs, bins) points of the piecewise-linear bin-count model.
const BINUM_LINEAR: [(f64, f64); 7] = [
    (0.0, 0.0),
    (20.0, 10.0),
    (200.0, 20.0),
    (1_000.0, 35.0),
    (10_000.0, 90.0),
    (70_000.0, 340.0),
    (250_000.0, 565.0),
];

/// How many distinct estimate values (bins) the histogram of `n` jobs has (`get_binnum`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinCount {
    /// The default: piecewise linear through `BINUM_LINEAR` (`binnum_linear_model = true`).
    Linear,
    /// `round(a · n^b)`; the C++ defaults are `a = 0.653566`, `b = 0.547761`
    /// (`binnum_power_params`).
    Power {
        /// Multiplier `a`.
        a: f64,
        /// Exponent `b`.
        b: f64,
    },
    /// A fixed number of bins (`binnum`).
    Fixed(usize),
}

/// The parameters of the model: `EstParams_t` of `est_model.hh`, with its defaults.
///
/// ```
/// use cosched_workload::estimates::{TsafrirEstimates, TsafrirParams};
/// use cosched_core::Duration;
/// let p = TsafrirParams { max_estimate_share: Some(0.3), ..TsafrirParams::new(Duration::from_hours(36)) };
/// let model = TsafrirEstimates::with_params(p).unwrap();
/// let hist = model.histogram(10_000, 5);
/// let at_max = hist.iter().find(|b| b.estimate == Duration::from_hours(36)).unwrap();
/// assert_eq!(at_max.jobs, 3_000);
/// assert_eq!(hist.iter().map(|b| b.jobs).sum::<usize>(), 10_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TsafrirParams {
    /// The largest estimate the system accepts (`max_est`), at least one hour.
    pub max_estimate: Duration,
    /// Share of jobs whose estimate is the maximum, in `[0, 1]`; `None` lets the model decide
    /// (about 21.7 % with the default head parameters). The C++ equivalent is a user bin
    /// `{max_est, share · n}`.
    pub max_estimate_share: Option<f64>,
    /// The bin-count model (`binnum_linear_model`, `binnum_power_params`, `binnum`).
    pub bin_count: BinCount,
    /// `[a, b, c]` of the head sizes `a e^(b r) + c` percent for popularity ranks `r` =
    /// 2..20 (`binsiz_head_params` = 14.0491, -0.177531, 0.462513).
    pub head_size: [f64; 3],
    /// Percent of jobs using one of the 20 head estimates (`binsiz_head_sum` = 89).
    pub head_sum: f64,
    /// `[a, b]` of the tail sizes `a r^b` for ranks `r >= 21`, before normalisation
    /// (`binsiz_tail_params` = 795.6, -2.267).
    pub tail_size: [f64; 2],
    /// The `a > 1` of the tail times `y = (a - 1) x / (a - x)` (`bintim_param`); `None` uses
    /// `1 + 12.1039 K^-0.6026` with `K` the bin count.
    pub tail_time_param: Option<f64>,
}

impl TsafrirParams {
    /// The C++ defaults (`EstParams_t`'s constructor) for a system whose largest estimate is
    /// `max_estimate`.
    pub fn new(max_estimate: Duration) -> Self {
        TsafrirParams {
            max_estimate,
            max_estimate_share: None,
            bin_count: BinCount::Linear,
            head_size: [14.0491, -0.177531, 0.462513],
            head_sum: 89.0,
            tail_size: [795.6, -2.267],
            tail_time_param: None,
        }
    }

    /// Checks ranges: `max_estimate >= 1 h` (the C++ program refuses less), a share in
    /// `[0, 1]`, `head_sum` in `(0, 100)`, positive head sizes for ranks 2..20 that leave
    /// room for rank 1, a positive tail multiplier, a tail-time parameter above 1 and a
    /// well-formed bin-count model.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.max_estimate.0 >= HOUR,
            "max_estimate",
            self.max_estimate.0,
            "must be at least one hour (3600 s)",
        )?;
        if let Some(s) = self.max_estimate_share {
            ParamError::check(
                (0.0..=1.0).contains(&s),
                "max_estimate_share",
                s,
                "must lie in [0, 1]",
            )?;
        }
        ParamError::check(
            self.head_sum > 0.0 && self.head_sum < 100.0,
            "head_sum",
            self.head_sum,
            "must lie in (0, 100) percent",
        )?;
        let head: Vec<f64> = (2..=TOP).map(|r| head_size(&self.head_size, r)).collect();
        ParamError::check(
            head.iter().all(|s| s.is_finite() && *s > 0.0),
            "head_size",
            format!("{:?}", self.head_size),
            "must give every rank 2..20 a positive finite percentage",
        )?;
        ParamError::check(
            self.max_estimate_share.is_some() || head.iter().sum::<f64>() < self.head_sum,
            "head_size",
            format!("{:?}", self.head_size),
            "ranks 2..20 must leave part of head_sum to the maximum",
        )?;
        let [ta, tb] = self.tail_size;
        ParamError::check(
            ta.is_finite() && ta > 0.0 && tb.is_finite(),
            "tail_size",
            format!("{:?}", self.tail_size),
            "needs a finite a > 0 and a finite b",
        )?;
        if let Some(a) = self.tail_time_param {
            ParamError::check(
                a.is_finite() && a > 1.0,
                "tail_time_param",
                a,
                "must be finite and > 1",
            )?;
        }
        match self.bin_count {
            BinCount::Linear => Ok(()),
            BinCount::Power { a, b } => ParamError::check(
                a.is_finite() && a > 0.0 && b.is_finite(),
                "bin_count",
                format!("{:?}", self.bin_count),
                "the power model needs a finite a > 0 and a finite b",
            ),
            BinCount::Fixed(k) => {
                ParamError::check(k >= 1, "bin_count", k, "needs at least one bin")
            }
        }
    }
}

/// One bar of an estimate histogram: `jobs` jobs use `estimate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EstimateBin {
    /// The estimate value.
    pub estimate: Duration,
    /// How many jobs use it.
    pub jobs: usize,
}

/// What [`TsafrirEstimates::assign`] had to change beyond setting estimates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AssignReport {
    /// Jobs whose runtime exceeded the maximum estimate and was cut to it.
    pub runtimes_capped: usize,
    /// Histogram estimates raised to cover a runtime no free estimate covered (where the
    /// C++ program gives up).
    pub estimates_lifted: usize,
}

/// The estimate model, ready to assign estimates to workloads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TsafrirEstimates {
    params: TsafrirParams,
}

impl TsafrirEstimates {
    /// The default model for a system whose largest estimate is `max_estimate` (>= 1 h).
    pub fn new(max_estimate: Duration) -> Result<Self, ParamError> {
        TsafrirEstimates::with_params(TsafrirParams::new(max_estimate))
    }

    /// A model with explicit, validated parameters.
    pub fn with_params(params: TsafrirParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(TsafrirEstimates { params })
    }

    /// The model's parameters.
    pub fn params(&self) -> &TsafrirParams {
        &self.params
    }

    /// The estimate histogram for `njobs` jobs (`est_gen_dist`), sorted by estimate; its
    /// counts sum to `njobs` (empty for 0 jobs). For very few jobs some bins are emptied to
    /// make the counts fit and are listed with 0 jobs.
    pub fn histogram(&self, njobs: usize, seed: u64) -> Vec<EstimateBin> {
        let mut rng = SeedStreams::new(seed).stream("tsafrir.histogram", 0);
        self.gen_dist(njobs, &mut rng)
    }

    /// Gives every job an estimate drawn from the model (`est_assign`), overwriting the old
    /// one. Afterwards `runtime <= estimate <= max_estimate` for every job: runtimes above
    /// the maximum are cut to it first. Same jobs, parameters and seed give the same result.
    /// `seed` is the root of the [`SeedStreams`] drawn from (see the [module docs](self)).
    pub fn assign(&self, jobs: &mut [RigidJob], seed: u64) -> AssignReport {
        self.assign_part(jobs, seed, 0)
    }

    /// [`TsafrirEstimates::assign`] for part `part` of a workload assigned in parts (a
    /// streaming generator's blocks): the model is applied to the part alone, drawing from the
    /// streams of index `part`, so parts are independent and memory stays that of one part.
    /// Part 0 is [`TsafrirEstimates::assign`].
    pub fn assign_part(&self, jobs: &mut [RigidJob], seed: u64, part: u64) -> AssignReport {
        let mut report = AssignReport::default();
        let n = jobs.len();
        if n == 0 {
            return report;
        }
        let streams = SeedStreams::new(seed);
        let hist = self.gen_dist(n, &mut streams.stream("tsafrir.histogram", part));
        let mut rng = streams.stream("tsafrir.matching", part);
        let max = self.params.max_estimate;
        for job in jobs.iter_mut() {
            if job.runtime > max {
                job.runtime = max;
                report.runtimes_capped += 1;
            }
        }

        // flatten the histogram, biggest estimate first
        let mut ests: Vec<i64> = Vec::with_capacity(n);
        for bin in hist.iter().rev() {
            ests.extend(std::iter::repeat_n(bin.estimate.0, bin.jobs));
        }
        // jobs by runtime, longest first (ties by position)
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| jobs[b].runtime.cmp(&jobs[a].runtime));
        let runtimes: Vec<i64> = order.iter().map(|&i| jobs[i].runtime.0).collect();

        // Feasibility repair (the C++ program exits here): the k-th longest job needs the
        // k-th biggest estimate to cover it. Raising each short estimate to the smallest
        // histogram value covering its job, then re-sorting, makes every position feasible,
        // since the k-th biggest lifted value is >= the lift of the k-th longest runtime.
        let times: Vec<i64> = hist.iter().map(|b| b.estimate.0).collect();
        for (k, est) in ests.iter_mut().enumerate() {
            let r = runtimes[k];
            if r > *est {
                let i = times.partition_point(|&t| t < r);
                *est = times.get(i).copied().unwrap_or(max.0);
                report.estimates_lifted += 1;
            }
        }
        if report.estimates_lifted > 0 {
            ests.sort_unstable_by(|a, b| b.cmp(a));
        }

        // shuffle: job j draws from the free estimates [j, hi] that cover its runtime
        let mut chosen = vec![0i64; n];
        let mut hi = 0;
        for j in 0..n {
            let r = runtimes[j];
            hi = hi.max(j);
            while hi + 1 < n && r <= ests[hi + 1] {
                hi += 1;
            }
            let k = rng.random_range(j..=hi);
            chosen[j] = ests[k];
            ests.swap(j, k);
        }
        for (k, &e) in chosen.iter().enumerate() {
            debug_assert!(runtimes[k] <= e);
            jobs[order[k]].estimate = Duration(e);
        }
        report
    }

    /// `est_gen_dist`.
    fn gen_dist(&self, njobs: usize, rng: &mut StreamRng) -> Vec<EstimateBin> {
        if njobs == 0 {
            return Vec::new();
        }
        let p = &self.params;
        let maxest = p.max_estimate.0;
        let n = njobs as f64;
        let user_max_jobs = p.max_estimate_share.map(|s| (s * n).round() as i64);
        let binnum = self.bin_count(njobs);
        let a = p
            .tail_time_param
            .unwrap_or_else(|| 1.0 + 12.1039 * (binnum as f64).powf(-0.6026));

        let head = self.head_map(njobs, user_max_jobs, rng);
        let head_times: BTreeSet<i64> = head.iter().map(|&(t, _)| t).collect();
        let tail_nbins = binnum.saturating_sub(head.len());
        let mut tail_times = tail_times(maxest, a, tail_nbins, &head_times);
        let tail_sizes = self.tail_sizes(tail_times.len());
        tail_times.shuffle(rng); // gen_tail_map: random matching

        // time -> percent, then time -> jobs
        let mut counts: BTreeMap<i64, i64> = BTreeMap::new();
        for (&t, &pct) in tail_times
            .iter()
            .zip(&tail_sizes)
            .chain(head.iter().map(|(t, p)| (t, p)))
        {
            let jobs = match user_max_jobs {
                Some(j) if t == maxest => j,
                _ => ((pct * n / 100.0).round() as i64).max(1),
            };
            counts.insert(t, jobs);
        }
        let user_time = user_max_jobs.map(|_| maxest);
        adjust_njobs(&mut counts, user_time, njobs as i64);
        counts
            .into_iter()
            .map(|(t, j)| EstimateBin {
                estimate: Duration(t),
                jobs: j.max(0) as usize,
            })
            .collect()
    }

    /// `get_binnum`.
    fn bin_count(&self, njobs: usize) -> usize {
        let n = njobs as f64;
        let user_bins = usize::from(self.params.max_estimate_share.is_some());
        match self.params.bin_count {
            BinCount::Fixed(k) => k.max(user_bins),
            BinCount::Power { a, b } => ((a * n.powf(b)).round() as usize).max(user_bins),
            BinCount::Linear => {
                let (x_last, y_last) = BINUM_LINEAR[BINUM_LINEAR.len() - 1];
                if n > x_last {
                    return y_last as usize;
                }
                // first k with n <= x_k, then interpolate from point k - 1
                let k = BINUM_LINEAR
                    .iter()
                    .position(|&(x, _)| n <= x)
                    .unwrap_or(BINUM_LINEAR.len() - 1)
                    .max(1);
                let (x0, y0) = BINUM_LINEAR[k - 1];
                let (x1, y1) = BINUM_LINEAR[k];
                (y0 + ((n - x0) * (y1 - y0) / (x1 - x0)).round()) as usize
            }
        }
    }

    /// `gen_head_map`: the head estimates with their percentages.
    fn head_map(
        &self,
        njobs: usize,
        user_max_jobs: Option<i64>,
        rng: &mut StreamRng,
    ) -> Vec<(i64, f64)> {
        let p = &self.params;
        let times = head_times(p.max_estimate.0);
        let ntop = times.len();

        // gen_head_binsiz (+ gen_head_binsiz_merge for a user bin at the maximum)
        let mut sizes: Vec<f64> = Vec::with_capacity(ntop);
        sizes.push(0.0);
        sizes.extend((2..=ntop).map(|r| head_size(&p.head_size, r)));
        let rest: f64 = sizes[1..].iter().sum();
        match user_max_jobs {
            None => sizes[0] = p.head_sum - rest,
            Some(j) => {
                sizes[0] = 100.0 * j as f64 / njobs as f64;
                // scale the others so the head sums to head_sum; zero them if impossible
                let f = ((p.head_sum - sizes[0]) / rest).max(0.0);
                for s in &mut sizes[1..] {
                    *s *= f;
                }
            }
        }
        let user_size = sizes[0];
        sizes.sort_by(|a, b| b.total_cmp(a));
        let user_rank = user_max_jobs.map(|_| {
            sizes
                .iter()
                .position(|s| s.to_bits() == user_size.to_bits())
                .unwrap_or(0)
                + 1
        });

        let ranks = timrnk_to_poprnk(ntop, user_rank, rng);
        times
            .iter()
            .zip(&ranks)
            .map(|(&t, &r)| (t, sizes[r - 1]))
            .collect()
    }

    /// `gen_tail_binsiz`: tail percentages, biggest first, summing to `100 - head_sum`.
    fn tail_sizes(&self, count: usize) -> Vec<f64> {
        let [a, b] = self.params.tail_size;
        let mut sizes: Vec<f64> = (0..count)
            .map(|i| a * ((TOP + 1 + i) as f64).powf(b))
            .collect();
        let sum: f64 = sizes.iter().sum();
        let f = (100.0 - self.params.head_sum) / sum;
        for s in &mut sizes {
            *s *= f;
        }
        sizes.sort_by(|x, y| y.total_cmp(x));
        sizes
    }
}

/// Percent of jobs at head popularity rank `r` (2..20): `a e^(b r) + c`.
fn head_size(abc: &[f64; 3], r: usize) -> f64 {
    abc[0] * (abc[1] * r as f64).exp() + abc[2]
}

/// `gen_head_bintim`: the maximum first, then up to `TOP - 1` other head times, ascending.
fn head_times(maxest: i64) -> Vec<i64> {
    let mut v = vec![maxest];
    v.extend(EST_JOINT.iter().copied().filter(|&e| e < maxest));
    let mut missing = TOP.saturating_sub(v.len());
    for &mul in &EST_ROUND {
        if missing == 0 {
            break;
        }
        let start = (maxest / mul) * mul;
        let mut est = start;
        while est > 0 && missing > 0 {
            if !v.contains(&est) {
                v.push(est);
                missing -= 1;
            }
            est -= mul;
        }
    }
    v[1..].sort_unstable();
    v
}

/// `gen_head_timrnk_poprnk_map`: the popularity rank (1-based) of each head time rank (0 is
/// the maximum), restricted to the `ntop` ranks that exist. `user_rank` pins the maximum.
fn timrnk_to_poprnk(ntop: usize, user_rank: Option<usize>, rng: &mut StreamRng) -> Vec<usize> {
    // bound[r]: the last time rank whose table row lists popularity rank r
    let mut bound = [usize::MAX; TOP + 1];
    for ttr in (0..TOP).rev() {
        for &pr in &TIMRNK_TO_POPRNK[ttr] {
            if bound[pr] == usize::MAX {
                bound[pr] = ttr;
            }
        }
    }
    let mut chosen = [false; TOP + 1];
    let reserved = user_rank.unwrap_or(0);
    let free = |pr: usize, chosen: &[bool; TOP + 1]| pr <= ntop && !chosen[pr] && pr != reserved;
    let mut pool: Vec<usize> = Vec::with_capacity(TOP * 4);
    let mut mapping = Vec::with_capacity(ntop);
    for (ttr, row) in TIMRNK_TO_POPRNK.iter().enumerate().take(ntop) {
        pool.extend(row.iter().copied().filter(|&pr| free(pr, &chosen)));
        // the user's constraint, else ENFORCE_MAX: the maximum is the most popular
        let forced = (ttr == 0).then(|| user_rank.unwrap_or(1));
        let pick = forced
            // ENFORCE_BOUND: the most popular rank whose last row has been reached
            .or_else(|| (1..=ntop).find(|&pr| bound[pr] <= ttr && free(pr, &chosen)))
            // FAVOR_SMALL = 2: the smaller of two random picks from the pool
            .or_else(|| {
                (!pool.is_empty()).then(|| {
                    let a = pool[rng.random_range(0..pool.len())];
                    let b = pool[rng.random_range(0..pool.len())];
                    a.min(b)
                })
            })
            // only when fewer than 20 head values exist: the most popular free rank
            .or_else(|| (1..=ntop).find(|&pr| free(pr, &chosen)))
            .unwrap_or(1);
        mapping.push(pick);
        chosen[pick] = true;
        pool.retain(|&pr| pr != pick);
    }
    mapping
}

/// `gen_tail_bintim`: `count` tail times below the maximum, ascending, off the head times.
fn tail_times(maxest: i64, a: f64, count: usize, head: &BTreeSet<i64>) -> Vec<i64> {
    const OFFSET: [i64; 7] = [0, 30, -30, 20, -20, 10, -10];
    let mut taken: BTreeSet<i64> = BTreeSet::new();
    for i in 1..=count {
        let x = i as f64 / count as f64;
        let y = (a - 1.0) * x / (a - x);
        let sec = ((y * maxest as f64) / 60.0).round() as i64 * 60;
        if let Some(s) = OFFSET
            .iter()
            .map(|o| sec + o)
            .find(|s| !taken.contains(s) && !head.contains(s) && *s > 0 && *s < maxest)
        {
            taken.insert(s);
        }
    }
    taken.into_iter().collect()
}

/// `adjust_njobs`: makes the counts sum to `njobs`, touching only non-user bins, biggest
/// first: proportionally, then by one, then down to one job, then to zero.
fn adjust_njobs(counts: &mut BTreeMap<i64, i64>, user_time: Option<i64>, njobs: i64) {
    let total: i64 = counts.values().sum();
    let nonuser: i64 = counts
        .iter()
        .filter(|(t, _)| Some(**t) != user_time)
        .map(|(_, j)| j)
        .sum();
    let sign = if njobs > total { 1 } else { -1 };
    let mut diff = (njobs - total).abs();
    for attempt in 0..4 {
        if diff == 0 {
            break;
        }
        let mut times: Vec<i64> = counts
            .keys()
            .copied()
            .filter(|t| Some(*t) != user_time)
            .collect();
        times.sort_by(|x, y| counts[y].cmp(&counts[x])); // stable: ties by time
        let f = diff as f64 / nonuser as f64;
        for t in times {
            let njobs_t = counts[&t];
            if njobs_t == 0 {
                continue;
            }
            let mut adjust = match attempt {
                0 => (f * njobs_t as f64).ceil() as i64,
                1 => 1,
                2 => njobs_t - 1,
                _ => njobs_t,
            };
            if sign < 0 {
                adjust = adjust.min(njobs_t);
                if adjust == njobs_t && attempt != 3 {
                    adjust -= 1;
                }
            }
            adjust = adjust.min(diff);
            if let Some(c) = counts.get_mut(&t) {
                *c += sign * adjust;
            }
            diff -= adjust;
            if diff == 0 {
                break;
            }
        }
    }
    debug_assert_eq!(diff, 0, "adjust_njobs must always balance");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lublin::LublinModel;
    use cosched_core::{JobId, Time};
    use proptest::prelude::*;

    const H48: Duration = Duration(48 * HOUR);

    #[test]
    fn head_times_follow_est_joint_and_est_round() {
        let h = |v: &[i64]| v.iter().map(|s| s / 60).collect::<Vec<_>>(); // minutes
        assert_eq!(
            h(&head_times(48 * HOUR)),
            vec![
                2880, 5, 10, 15, 20, 30, 60, 120, 180, 240, 300, 360, 480, 600, 720, 1080, 1200,
                1800, 2400, 2700
            ]
        );
        // below 2 h fewer than 20 values exist
        assert_eq!(head_times(HOUR).len(), 12); // 60, 5, 10, 15, 20, 30 min + 40, 50, 55, 45, 35, 25 min
        assert_eq!(head_times(2 * HOUR).len(), TOP);
    }

    #[test]
    fn bin_count_follows_the_linear_model() {
        let m = TsafrirEstimates::new(H48).unwrap();
        assert_eq!(m.bin_count(1), 1); // round(0.5) = 1, as C's round
        assert_eq!(m.bin_count(200), 20);
        assert_eq!(m.bin_count(5_500), 63); // 35 + 4500 * 55 / 9000 = 62.5
        assert_eq!(m.bin_count(100_000), 378); // 340 + 30000 * 225 / 180000 = 377.5
        assert_eq!(m.bin_count(1_000_000), 565);
    }

    #[test]
    fn histogram_sums_to_njobs_for_any_size() {
        let m = TsafrirEstimates::new(Duration::from_hours(36)).unwrap();
        for n in [1, 2, 19, 20, 21, 200, 1_234, 70_001] {
            let hist = m.histogram(n, 3);
            assert_eq!(hist.iter().map(|b| b.jobs).sum::<usize>(), n, "n = {n}");
            assert!(hist.windows(2).all(|w| w[0].estimate < w[1].estimate));
            assert!(
                hist.iter()
                    .all(|b| b.estimate.0 > 0 && b.estimate <= Duration::from_hours(36))
            );
        }
    }

    fn lublin_with_estimates(n: usize, seed: u64) -> (Vec<RigidJob>, AssignReport) {
        let mut jobs = LublinModel::new(128).unwrap().generate(n, seed);
        let report = TsafrirEstimates::new(H48).unwrap().assign(&mut jobs, seed);
        (jobs, report)
    }

    #[test]
    fn same_seed_same_estimates_different_seed_different_estimates() {
        let (a, _) = lublin_with_estimates(3_000, 9);
        let (b, _) = lublin_with_estimates(3_000, 9);
        assert_eq!(a, b);
        let mut c = LublinModel::new(128).unwrap().generate(3_000, 9);
        TsafrirEstimates::new(H48).unwrap().assign(&mut c, 10);
        assert_ne!(a, c);
    }

    /// The shares the model gives the maximum and the 20 head estimates, against the head
    /// formula. The counts are `max(1, round(share · n))` per bin and then equalised, which
    /// moves each bin by at most one job for rounding and all bins together by at most
    /// `K` jobs; lifted estimates move at most `estimates_lifted` more. That bound, not
    /// sampling noise, is the tolerance: the histogram itself is deterministic in size.
    #[test]
    fn modal_estimates_match_the_published_shares() {
        const N: usize = 50_000;
        let (jobs, report) = lublin_with_estimates(N, 5);
        assert_eq!(report.runtimes_capped, 0);
        let model = TsafrirEstimates::new(H48).unwrap();
        let k = model.bin_count(N) as f64;
        let tolerance = (2.0 * k + report.estimates_lifted as f64) / N as f64;

        let mut count: BTreeMap<i64, usize> = BTreeMap::new();
        for j in &jobs {
            assert!(j.runtime <= j.estimate && j.estimate <= H48);
            *count.entry(j.estimate.0).or_default() += 1;
        }
        let p = model.params();
        let rest: f64 = (2..=TOP).map(|r| head_size(&p.head_size, r)).sum();
        let max_share = (p.head_sum - rest) / 100.0; // ~0.2173
        let observed = count[&H48.0] as f64 / N as f64;
        assert!(
            (observed - max_share).abs() <= tolerance,
            "share at max {observed} vs {max_share} +- {tolerance}"
        );
        // the most popular estimate is the maximum
        let top = count.iter().max_by_key(|(_, c)| **c).map(|(t, _)| *t);
        assert_eq!(top, Some(H48.0));

        // the 20 most popular values are exactly the head ("round") values and hold 89 %
        let mut by_pop: Vec<(i64, usize)> = count.into_iter().collect();
        by_pop.sort_by_key(|b| std::cmp::Reverse(b.1));
        let mut top20: Vec<i64> = by_pop[..TOP].iter().map(|(t, _)| *t).collect();
        top20.sort_unstable();
        let mut head = head_times(H48.0);
        head.sort_unstable();
        assert_eq!(top20, head);
        let head_share = by_pop[..TOP].iter().map(|(_, c)| *c).sum::<usize>() as f64 / N as f64;
        assert!(
            (head_share - p.head_sum / 100.0).abs() <= tolerance,
            "head share {head_share} +- {tolerance}"
        );
    }

    #[test]
    fn runtimes_above_the_maximum_are_capped_and_impossible_histograms_repaired() {
        // every job runs longer than 90 % of the maximum: the histogram cannot cover them
        let max = Duration::from_hours(2);
        let mut jobs: Vec<RigidJob> = (0..500u64)
            .map(|i| {
                let rt = Duration(6_500 + (i as i64 % 1_000));
                RigidJob::new(JobId(i + 1), Time(0), 1, rt, rt).unwrap()
            })
            .collect();
        jobs[0].runtime = Duration::from_hours(5);
        let report = TsafrirEstimates::new(max).unwrap().assign(&mut jobs, 1);
        assert_eq!(report.runtimes_capped, 1);
        assert!(report.estimates_lifted > 0);
        assert!(
            jobs.iter()
                .all(|j| j.runtime <= j.estimate && j.estimate <= max)
        );
        assert_eq!(jobs[0].runtime, max);
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        assert!(TsafrirEstimates::new(Duration(3_599)).is_err());
        let p = TsafrirParams::new(H48);
        for bad in [
            TsafrirParams {
                max_estimate_share: Some(1.5),
                ..p
            },
            TsafrirParams {
                head_sum: 100.0,
                ..p
            },
            TsafrirParams {
                head_size: [14.0, -0.18, -5.0],
                ..p
            },
            TsafrirParams {
                head_size: [100.0, -0.01, 0.5],
                ..p
            },
            TsafrirParams {
                tail_size: [0.0, -2.0],
                ..p
            },
            TsafrirParams {
                tail_time_param: Some(1.0),
                ..p
            },
            TsafrirParams {
                bin_count: BinCount::Fixed(0),
                ..p
            },
            TsafrirParams {
                bin_count: BinCount::Power {
                    a: f64::NAN,
                    b: 0.5,
                },
                ..p
            },
        ] {
            assert!(TsafrirEstimates::with_params(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn estimates_cover_runtimes_and_respect_the_maximum(
            runtimes in prop::collection::vec(0i64..400_000, 1..1_500),
            max_secs in 3_600i64..=300_000,
            share in prop::option::of(0.0f64..=1.0),
            seed: u64,
        ) {
            let mut jobs: Vec<RigidJob> = runtimes
                .iter()
                .enumerate()
                .map(|(i, &r)| RigidJob::new(JobId(i as u64 + 1), Time(0), 1, Duration(r), Duration(1)).unwrap())
                .collect();
            let max = Duration(max_secs);
            let params = TsafrirParams { max_estimate_share: share, ..TsafrirParams::new(max) };
            let model = TsafrirEstimates::with_params(params).unwrap();
            let report = model.assign(&mut jobs, seed);
            let over = runtimes.iter().filter(|&&r| r > max_secs).count();
            prop_assert_eq!(report.runtimes_capped, over);
            for j in &jobs {
                prop_assert!(j.validate().is_ok());
                prop_assert!(j.runtime <= j.estimate && j.estimate <= max);
            }
        }
    }
}
