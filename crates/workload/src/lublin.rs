//! The Lublin–Feitelson model of rigid parallel jobs.
//!
//! U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
//! characteristics of rigid jobs", *J. Parallel and Distributed Computing* 63(11):1105–1122,
//! 2003. The authors' reference implementation is the C program `m_lublin99.c` (Parallel
//! Workloads Archive, models page); this module follows it routine by routine, and every
//! default constant names the `#define` of that file it comes from. (We read the copy of
//! `m_lublin99.c` vendored by the `lublinworkload` / `parallelworkloads` Python package,
//! cross-checked against GridSim's Java port `WorkloadLublin99`, which carries the same
//! constants.)
//!
//! | piece | C routine | model |
//! | --- | --- | --- |
//! | size | `calc_number_of_nodes`, `two_stage_uniform` | serial with probability `SERIAL_PROB`; else `log2(size)` from a two-stage uniform on `[ULOW, UMED]` (probability `UPROB`) or `[UMED, UHI]`, rounded to an integer exponent with probability `POW2_PROB`, then `size = round(2^x)` |
//! | runtime | `time_from_nodes`, `hyper_gamma` | `ln(runtime)` is hyper-gamma: gamma(`A1`, `B1`) with probability `p = PA * size + PB` clamped to `[0, 1]`, else gamma(`A2`, `B2`); draws above `TOO_MUCH_TIME` = 12 are redrawn; `runtime = trunc(e^x)` seconds |
//! | arrivals | `arrive_init`, `calc_next_arrive`, `arrive` | the day is 48 half-hour buckets whose weights come from the gamma(`ANUM`, `BNUM`) cdf; each job draws `g` ~ gamma(`AARR * ARAR`, `BARR`) (redrawn above `TOO_MUCH_ARRIVE_TIME` = 13) and spends `e^g / 1800` "points", a bucket of weight `w` costing `w` points: arrivals are denser where `w` is larger |
//!
//! Gamma shapes and scales are as in the C code: `gamma(a, b)` has mean `a * b`.
//!
//! **Job types.** The C program has a batch and an interactive parameter set (and a third,
//! "typeless" set fitted to whole logs); with its default `INCLUDE_JOBS_TYPE 1` it runs one
//! arrival stream per type and interleaves them. [`LublinModel::new`] uses the batch set alone
//! (cosched simulates batch queues); [`LublinModel::mixed`] reproduces the C default.
//!
//! **Machine size.** The C constants are for a 128-node machine (`UHI_BATCH 7`). Here the
//! size range follows the machine: `UHI = log2(capacity) - uhi_below_log2_capacity` and
//! `UMED = UHI - umed_below_uhi`, the rule the C comments give ("`UHi` is the log2 of the
//! system size", "`UMed` should be `UHi - 2.5` (1.5 to 3.5)"); the two offsets reproduce the C
//! values at 128 nodes.
//!
//! **Deviations from `m_lublin99.c`**, all documented where they occur:
//! - gamma variates come from `rand_distr::Gamma` (Marsaglia–Tsang) instead of the C code's
//!   sum-of-exponentials method (Jain 1991): same distribution, much faster for `A2 = 639.1`;
//! - arrival times accumulate in `f64` and are floored once, where the C code truncates every
//!   inter-arrival increment to whole seconds (losing about half a second per job);
//! - sizes are capped at the machine: a power-of-two exponent is at most
//!   `floor(log2(capacity))`, and for small machines `ULOW` and `UMED` are clamped into
//!   `[0, UHI]` (the C code assumes `2^UHI` nodes and can exceed it with `UHI = 5.5`).
//!
//! ```
//! use cosched_workload::lublin::LublinModel;
//! let model = LublinModel::new(128).unwrap();
//! let jobs = model.generate(1_000, 42);
//! assert_eq!(jobs.len(), 1_000);
//! assert!(jobs.iter().all(|j| (1..=128).contains(&j.size) && j.runtime.0 >= 1));
//! assert!(jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
//! assert_eq!(model.generate(1_000, 42), jobs); // same seed, same workload
//! ```

use cosched_core::{Duration, JobId, ParamError, RigidJob, SeedStreams, StreamRng, Time};
use rand::RngExt;
use rand_distr::{Distribution, Gamma};

/// Largest accepted `ln(runtime)`: `TOO_MUCH_TIME` in `m_lublin99.c` (e^12 s, about 45 h);
/// larger hyper-gamma draws are redrawn (`time_from_nodes`).
pub const MAX_LOG_RUNTIME: f64 = 12.0;

/// Largest accepted draw `g` of the inter-arrival gamma, which buys `e^g` seconds of
/// average-weight time: `TOO_MUCH_ARRIVE_TIME` in `m_lublin99.c` (e^13 s, about 5 days);
/// larger draws are redrawn (`calc_next_arrive`).
pub const MAX_LOG_INTERARRIVAL: f64 = 13.0;

/// Half-hour buckets per day (`BUCKETS` in `m_lublin99.c`).
pub const BUCKETS: usize = 48;

/// Seconds in one bucket (`SECONDS_IN_BUCKET`).
const SECONDS_IN_BUCKET: f64 = 1_800.0;

/// First bucket index fed to the daily-cycle gamma (`CYCLIC_DAY_START` in `m_lublin99.c`).
const CYCLIC_DAY_START: usize = 11;

/// A gamma whose rejection cap accepts fewer draws than this is refused: the rejection loops
/// of `time_from_nodes` and `calc_next_arrive` would spin, and the parameters are surely wrong.
const MIN_ACCEPTANCE: f64 = 0.01;

/// The parameters of one job class of the model (one column of `m_lublin99.c`'s constants).
///
/// Build one from [`LublinParams::batch`] (the [`Default`]), [`LublinParams::interactive`] or
/// [`LublinParams::typeless`] and adjust fields with struct-update syntax; constructors of
/// [`LublinModel`] validate it.
///
/// ```
/// use cosched_workload::lublin::{LublinModel, LublinParams};
/// let longer = LublinParams { pb: 0.5, ..LublinParams::batch() }; // fewer short jobs
/// assert!(LublinModel::with_params(256, longer).is_ok());
/// let bad = LublinParams { serial_prob: 0.5, pow2_prob: 0.6, ..LublinParams::batch() };
/// assert!(LublinModel::with_params(256, bad).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LublinParams {
    /// Probability that a job is serial (`SERIAL_PROB_*`).
    pub serial_prob: f64,
    /// Probability that a job is parallel with its `log2(size)` rounded to an integer
    /// (`POW2_PROB_*`). As in `calc_number_of_nodes` (`u <= SerialProb + Pow2Prob`) this is a
    /// share of *all* jobs, so `serial_prob + pow2_prob <= 1`.
    pub pow2_prob: f64,
    /// Lower end of the two-stage uniform on `log2(size)` (`ULOW_*`).
    pub ulow: f64,
    /// `log2(capacity) - UHI`: 0 for batch (`UHI_BATCH 7` on 128 nodes), 1.5 for interactive
    /// (`UHI_ACTIVE 5.5`).
    pub uhi_below_log2_capacity: f64,
    /// `UHI - UMED`: 2 for batch (`UMED_BATCH 5`), 2.5 for interactive and typeless.
    pub umed_below_uhi: f64,
    /// Probability of the lower stage `[ULOW, UMED]` (`UPROB_*`).
    pub uprob: f64,
    /// Shape of the first (short) runtime gamma, over `ln(seconds)` (`A1_*`).
    pub a1: f64,
    /// Scale of the first runtime gamma (`B1_*`).
    pub b1: f64,
    /// Shape of the second (long) runtime gamma (`A2_*`).
    pub a2: f64,
    /// Scale of the second runtime gamma (`B2_*`).
    pub b2: f64,
    /// Slope of the first gamma's weight in the job size: `p = pa * size + pb` (`PA_*`).
    pub pa: f64,
    /// Intercept of that weight (`PB_*`).
    pub pb: f64,
    /// Shape of the rush-hour inter-arrival gamma, over `ln(seconds)` (`AARR_*`).
    pub aarr: f64,
    /// Scale of the inter-arrival gamma (`BARR_*`).
    pub barr: f64,
    /// Shape of the daily-cycle gamma, over half-hour buckets (`ANUM_*`).
    pub anum: f64,
    /// Scale of the daily-cycle gamma (`BNUM_*`).
    pub bnum: f64,
    /// Arrive-Rush-All-Ratio: the inter-arrival shape used is `aarr * arar` (`ARAR_*`).
    pub arar: f64,
}

impl LublinParams {
    /// The batch-job parameters: the `*_BATCH` constants of `m_lublin99.c`.
    pub const fn batch() -> Self {
        LublinParams {
            serial_prob: 0.2927, // SERIAL_PROB_BATCH
            pow2_prob: 0.6686,   // POW2_PROB_BATCH
            ulow: 1.2,           // ULOW_BATCH
            uhi_below_log2_capacity: 0.0,
            umed_below_uhi: 2.0, // UHI_BATCH 7 - UMED_BATCH 5
            uprob: 0.875,        // UPROB_BATCH
            a1: 6.57,            // A1_BATCH
            b1: 0.823,           // B1_BATCH
            a2: 639.1,           // A2_BATCH
            b2: 0.0156,          // B2_BATCH
            pa: -0.003,          // PA_BATCH
            pb: 0.6986,          // PB_BATCH
            aarr: 6.0415,        // AARR_BATCH
            barr: 0.8531,        // BARR_BATCH
            anum: 6.1271,        // ANUM_BATCH
            bnum: 5.2740,        // BNUM_BATCH
            arar: 1.0519,        // ARAR_BATCH
        }
    }

    /// The interactive-job parameters: the `*_ACTIVE` constants of `m_lublin99.c`.
    pub const fn interactive() -> Self {
        LublinParams {
            serial_prob: 0.1541,          // SERIAL_PROB_ACTIVE
            pow2_prob: 0.625,             // POW2_PROB_ACTIVE
            ulow: 1.0,                    // ULOW_ACTIVE
            uhi_below_log2_capacity: 1.5, // 7 - UHI_ACTIVE 5.5 (45 of 128 nodes)
            umed_below_uhi: 2.5,          // UHI_ACTIVE 5.5 - UMED_ACTIVE 3
            uprob: 0.705,                 // UPROB_ACTIVE
            a1: 3.8351,                   // A1_ACTIVE
            b1: 0.6605,                   // B1_ACTIVE
            a2: 7.073,                    // A2_ACTIVE
            b2: 0.6856,                   // B2_ACTIVE
            pa: -0.0118,                  // PA_ACTIVE
            pb: 0.9156,                   // PB_ACTIVE
            aarr: 6.5510,                 // AARR_ACTIVE
            barr: 0.6621,                 // BARR_ACTIVE
            anum: 8.9186,                 // ANUM_ACTIVE
            bnum: 3.6680,                 // BNUM_ACTIVE
            arar: 0.9797,                 // ARAR_ACTIVE
        }
    }

    /// The whole-log ("typeless") parameters the C program uses with `INCLUDE_JOBS_TYPE 0`:
    /// its unsuffixed constants (`SERIAL_PROB`, `POW2_PROB`, ...).
    pub const fn typeless() -> Self {
        LublinParams {
            serial_prob: 0.244, // SERIAL_PROB
            pow2_prob: 0.576,   // POW2_PROB
            ulow: 0.8,          // ULOW
            uhi_below_log2_capacity: 0.0,
            umed_below_uhi: 2.5, // UHI 7 - UMED 4.5
            uprob: 0.86,         // UPROB
            a1: 4.2,             // A1
            b1: 0.94,            // B1
            a2: 312.0,           // A2
            b2: 0.03,            // B2
            pa: -0.0054,         // PA
            pb: 0.78,            // PB
            aarr: 10.2303,       // AARR
            barr: 0.4871,        // BARR
            anum: 8.1737,        // ANUM
            bnum: 3.9631,        // BNUM
            arar: 1.0225,        // ARAR
        }
    }

    /// Checks ranges: probabilities in `[0, 1]` with `serial_prob + pow2_prob <= 1`, finite
    /// non-negative size offsets, positive gamma parameters whose rejection caps
    /// ([`MAX_LOG_RUNTIME`], [`MAX_LOG_INTERARRIVAL`]) accept at least 1% of draws, and a
    /// daily cycle with a positive weight in every bucket.
    pub fn validate(&self) -> Result<(), ParamError> {
        let prob = |v: f64| (0.0..=1.0).contains(&v);
        ParamError::check(
            prob(self.serial_prob),
            "serial_prob",
            self.serial_prob,
            "must lie in [0, 1]",
        )?;
        ParamError::check(
            prob(self.pow2_prob),
            "pow2_prob",
            self.pow2_prob,
            "must lie in [0, 1]",
        )?;
        ParamError::check(
            self.serial_prob + self.pow2_prob <= 1.0,
            "pow2_prob",
            self.pow2_prob,
            "serial_prob + pow2_prob must be <= 1",
        )?;
        ParamError::check(prob(self.uprob), "uprob", self.uprob, "must lie in [0, 1]")?;
        let offset = |v: f64| v.is_finite() && v >= 0.0;
        ParamError::check(
            offset(self.ulow),
            "ulow",
            self.ulow,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            offset(self.uhi_below_log2_capacity),
            "uhi_below_log2_capacity",
            self.uhi_below_log2_capacity,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            offset(self.umed_below_uhi),
            "umed_below_uhi",
            self.umed_below_uhi,
            "must be finite and >= 0",
        )?;
        ParamError::check(self.pa.is_finite(), "pa", self.pa, "must be finite")?;
        ParamError::check(self.pb.is_finite(), "pb", self.pb, "must be finite")?;
        let positive = |v: f64| v.is_finite() && v > 0.0;
        for (name, v) in [
            ("a1", self.a1),
            ("b1", self.b1),
            ("a2", self.a2),
            ("b2", self.b2),
            ("aarr", self.aarr),
            ("barr", self.barr),
            ("anum", self.anum),
            ("bnum", self.bnum),
            ("arar", self.arar),
        ] {
            ParamError::check(positive(v), name, v, "must be finite and > 0")?;
        }
        for (name, shape, scale) in [("a1", self.a1, self.b1), ("a2", self.a2, self.b2)] {
            let accept = gamma_p(shape, MAX_LOG_RUNTIME / scale);
            ParamError::check(
                accept >= MIN_ACCEPTANCE,
                name,
                shape,
                "the runtime gamma puts < 1% of its mass below ln(runtime) = 12",
            )?;
        }
        let shape = self.aarr * self.arar;
        ParamError::check(
            shape.is_finite() && gamma_p(shape, MAX_LOG_INTERARRIVAL / self.barr) >= MIN_ACCEPTANCE,
            "aarr",
            self.aarr,
            "the inter-arrival gamma puts < 1% of its mass below 13",
        )?;
        let w = self.arrival_weights();
        ParamError::check(
            w.iter().all(|&x| x.is_finite() && x > 0.0),
            "anum",
            self.anum,
            "the daily cycle must give every half-hour bucket a positive weight",
        )
    }

    /// The relative arrival rate of each half-hour bucket of the day (index 0 is
    /// 00:00–00:30), normalised to mean 1: `arrive_init` of `m_lublin99.c`.
    ///
    /// Bucket `(i - 1) mod 48` gets `F(i + 0.5) - F(i - 0.5)` for `i` in
    /// `CYCLIC_DAY_START = 11 ..= 58`, with `F` the gamma(`anum`, `bnum`) cdf: the fitted
    /// day starts at 05:00 and the mass below it is dropped, as in the C code. In the long
    /// run the share of arrivals in bucket `b` is `w[b] / 48`.
    ///
    /// ```
    /// use cosched_workload::lublin::LublinParams;
    /// let w = LublinParams::batch().arrival_weights();
    /// assert!((w.iter().sum::<f64>() - 48.0).abs() < 1e-9);
    /// assert!(w[26] > 5.0 * w[8]); // 13:00 is far busier than 04:00
    /// ```
    pub fn arrival_weights(&self) -> [f64; BUCKETS] {
        let mut w = [0.0; BUCKETS];
        for i in CYCLIC_DAY_START..BUCKETS + CYCLIC_DAY_START {
            let idx = (i - 1) % BUCKETS;
            w[idx] = gamma_mass(self.anum, self.bnum, i as f64 - 0.5, i as f64 + 0.5);
        }
        let mean = w.iter().sum::<f64>() / BUCKETS as f64;
        w.map(|x| x / mean)
    }
}

impl Default for LublinParams {
    /// The batch parameters, [`LublinParams::batch`].
    fn default() -> Self {
        LublinParams::batch()
    }
}

/// A seeded generator of rigid jobs following Lublin and Feitelson (2003).
///
/// ```
/// use cosched_workload::lublin::LublinModel;
/// let model = LublinModel::mixed(512).unwrap().with_start_hour(8).unwrap();
/// let first: Vec<_> = model.jobs(7).take(3).collect();
/// assert_eq!(first[0].id.0, 1);
/// assert!(first.iter().all(|j| j.estimate == j.runtime));
/// ```
#[derive(Clone, Debug)]
pub struct LublinModel {
    capacity: u32,
    start_hour: u32,
    /// One stream, or two in the C program's order: batch, then interactive.
    streams: Vec<Stream>,
}

/// Everything needed to draw the jobs of one class.
#[derive(Clone, Debug)]
struct Stream {
    sizes: SizeModel,
    pa: f64,
    pb: f64,
    short: Gamma<f64>,
    long: Gamma<f64>,
    interarrival: Gamma<f64>,
    weights: [f64; BUCKETS],
}

/// The size distribution of one class, already fitted to the machine.
#[derive(Clone, Copy, Debug)]
struct SizeModel {
    serial: f64,
    serial_or_pow2: f64,
    ulow: f64,
    umed: f64,
    uhi: f64,
    uprob: f64,
    /// `floor(log2(capacity))`: the largest power-of-two exponent that fits.
    max_exponent: f64,
    capacity: u32,
}

impl LublinModel {
    /// The batch model (the `*_BATCH` constants) on a machine of `capacity >= 1` units.
    pub fn new(capacity: u32) -> Result<Self, ParamError> {
        LublinModel::with_params(capacity, LublinParams::batch())
    }

    /// A single job class with the given parameters on a machine of `capacity >= 1` units.
    pub fn with_params(capacity: u32, params: LublinParams) -> Result<Self, ParamError> {
        check_capacity(capacity)?;
        Ok(LublinModel {
            capacity,
            start_hour: 0,
            streams: vec![Stream::new(capacity, &params)?],
        })
    }

    /// The whole-log ("typeless") parameters (`INCLUDE_JOBS_TYPE 0`) on a machine of
    /// `capacity >= 1` units: the set that reproduces the Parallel Workloads Archive's published
    /// Lublin traces (checked against `lublin_256.swf` in the tests), and the workspace's default
    /// synthetic workload.
    pub fn typeless(capacity: u32) -> Result<Self, ParamError> {
        LublinModel::with_params(capacity, LublinParams::typeless())
    }

    /// The C program's default (`INCLUDE_JOBS_TYPE 1`): a batch and an interactive arrival
    /// stream, each with its own parameters, merged in time order (`arrive`).
    pub fn mixed(capacity: u32) -> Result<Self, ParamError> {
        LublinModel::mixed_with(capacity, LublinParams::batch(), LublinParams::interactive())
    }

    /// Two merged streams with explicit batch and interactive parameters.
    pub fn mixed_with(
        capacity: u32,
        batch: LublinParams,
        interactive: LublinParams,
    ) -> Result<Self, ParamError> {
        check_capacity(capacity)?;
        Ok(LublinModel {
            capacity,
            start_hour: 0,
            streams: vec![
                Stream::new(capacity, &batch)?,
                Stream::new(capacity, &interactive)?,
            ],
        })
    }

    /// Sets the hour of the day (0..=23) at time 0, which positions the daily cycle; the C
    /// program's `START` is 0 (midnight), the default here too.
    pub fn with_start_hour(mut self, hour: u32) -> Result<Self, ParamError> {
        ParamError::check(hour < 24, "start_hour", hour, "must lie in 0..=23")?;
        self.start_hour = hour;
        Ok(self)
    }

    /// The machine size the model was built for.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// An endless stream of jobs: ids 1, 2, ..., non-decreasing submit times starting at the
    /// first inter-arrival, sizes in `1..=capacity`, runtimes in `1..=e^12` s and
    /// `estimate == runtime` (see [`crate::estimates`] for realistic estimates).
    ///
    /// `seed` is the root of the [`SeedStreams`] the model draws from, one named stream per
    /// quantity and job class: `lublin.arrivals`, `lublin.sizes` and `lublin.runtimes`, index
    /// the class (0 batch, 1 interactive in [`LublinModel::mixed`]). So the arrival process
    /// does not move when the size or runtime parameters change, and one class's draws do not
    /// depend on how the classes interleave.
    pub fn jobs(&self, seed: u64) -> LublinJobs<'_> {
        let streams = SeedStreams::new(seed);
        let mut rngs: Vec<ClassRngs> = (0..self.streams.len() as u64)
            .map(|class| ClassRngs {
                arrivals: streams.stream("lublin.arrivals", class),
                sizes: streams.stream("lublin.sizes", class),
                runtimes: streams.stream("lublin.runtimes", class),
            })
            .collect();
        let bucket = self.start_hour as usize * BUCKETS / 24;
        let mut clocks: Vec<ArrivalClock> = self
            .streams
            .iter()
            .map(|_| ArrivalClock {
                bucket,
                points: 0.0,
                reminder: 0.0,
                next: 0.0,
            })
            .collect();
        // arrive_init: draw the first arrival of every stream, batch first.
        for ((clock, stream), rng) in clocks.iter_mut().zip(&self.streams).zip(&mut rngs) {
            clock.advance(stream, &mut rng.arrivals);
        }
        LublinJobs {
            model: self,
            rngs,
            clocks,
            next_id: 1,
        }
    }

    /// The first `n` jobs of [`LublinModel::jobs`].
    pub fn generate(&self, n: usize, seed: u64) -> Vec<RigidJob> {
        self.jobs(seed).take(n).collect()
    }
}

fn check_capacity(capacity: u32) -> Result<(), ParamError> {
    ParamError::check(
        capacity >= 1,
        "capacity",
        capacity,
        "a machine needs >= 1 unit",
    )
}

impl Stream {
    fn new(capacity: u32, p: &LublinParams) -> Result<Self, ParamError> {
        p.validate()?;
        let log2_capacity = f64::from(capacity).log2();
        let uhi = (log2_capacity - p.uhi_below_log2_capacity).max(0.0);
        let ulow = p.ulow.min(uhi);
        let umed = (uhi - p.umed_below_uhi).clamp(ulow, uhi);
        let gamma = |name: &'static str, shape: f64, scale: f64| {
            Gamma::new(shape, scale)
                .map_err(|_| ParamError::new(name, shape, "not a valid gamma distribution"))
        };
        Ok(Stream {
            sizes: SizeModel {
                serial: p.serial_prob,
                serial_or_pow2: p.serial_prob + p.pow2_prob,
                ulow,
                umed,
                uhi,
                uprob: p.uprob,
                max_exponent: f64::from(31 - capacity.leading_zeros()),
                capacity,
            },
            pa: p.pa,
            pb: p.pb,
            short: gamma("a1", p.a1, p.b1)?,
            long: gamma("a2", p.a2, p.b2)?,
            interarrival: gamma("aarr", p.aarr * p.arar, p.barr)?,
            weights: p.arrival_weights(),
        })
    }

    /// `time_from_nodes`: hyper-gamma over `ln(runtime)`, redrawn above
    /// [`MAX_LOG_RUNTIME`]; the C code returns `exp(hg)` as an `unsigned long`, truncating.
    fn runtime(&self, size: u32, rng: &mut StreamRng) -> i64 {
        let p = (self.pa * f64::from(size) + self.pb).clamp(0.0, 1.0);
        loop {
            // hyper_gamma: pick the component, then draw from it.
            let u: f64 = rng.random();
            let hg = if u <= p {
                self.short.sample(rng)
            } else {
                self.long.sample(rng)
            };
            if hg <= MAX_LOG_RUNTIME {
                return hg.exp() as i64;
            }
        }
    }
}

impl SizeModel {
    /// `calc_number_of_nodes`, with the result capped at the machine.
    fn sample(&self, rng: &mut StreamRng) -> u32 {
        let u: f64 = rng.random();
        if u <= self.serial {
            return 1;
        }
        // two_stage_uniform(ULow, UMed, UHi, Uprob)
        let (a, b) = if rng.random::<f64>() <= self.uprob {
            (self.ulow, self.umed)
        } else {
            (self.umed, self.uhi)
        };
        let mut par = rng.random::<f64>() * (b - a) + a;
        if u <= self.serial_or_pow2 {
            // power-of-two job: par = (unsigned)(par + 0.5), capped at the machine
            par = (par + 0.5).floor().min(self.max_exponent);
        }
        // (unsigned)(pow(2, par) + 0.5)
        let nodes = (par.exp2() + 0.5).floor();
        (nodes as u32).clamp(1, self.capacity)
    }
}

/// The arrival state of one stream: the statics and globals of `calc_next_arrive`.
#[derive(Clone, Copy, Debug)]
struct ArrivalClock {
    /// Current half-hour bucket (`current[type]`).
    bucket: usize,
    /// Points already spent in the current bucket (`points[type]`).
    points: f64,
    /// Fraction of the current bucket elapsed (`reminder[type]`).
    reminder: f64,
    /// Arrival time of this stream's next job, seconds (`time_from_begin[type]`).
    next: f64,
}

impl ArrivalClock {
    /// `calc_next_arrive`: moves `next` on by one inter-arrival time.
    fn advance(&mut self, stream: &Stream, rng: &mut StreamRng) {
        let gam = loop {
            let g = stream.interarrival.sample(rng);
            if g <= MAX_LOG_INTERARRIVAL {
                break g;
            }
        };
        self.points += gam.exp() / SECONDS_IN_BUCKET;
        let mut next_arrive = 0.0;
        while self.points > stream.weights[self.bucket] {
            self.points -= stream.weights[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            next_arrive += SECONDS_IN_BUCKET;
        }
        let new_reminder = self.points / stream.weights[self.bucket];
        next_arrive += SECONDS_IN_BUCKET * (new_reminder - self.reminder);
        self.reminder = new_reminder;
        self.next += next_arrive;
    }
}

/// The random streams of one job class.
#[derive(Clone, Debug)]
struct ClassRngs {
    arrivals: StreamRng,
    sizes: StreamRng,
    runtimes: StreamRng,
}

/// The endless job stream of [`LublinModel::jobs`].
#[derive(Clone, Debug)]
pub struct LublinJobs<'a> {
    model: &'a LublinModel,
    rngs: Vec<ClassRngs>,
    clocks: Vec<ArrivalClock>,
    next_id: u64,
}

impl Iterator for LublinJobs<'_> {
    type Item = RigidJob;

    fn next(&mut self) -> Option<RigidJob> {
        // arrive: the stream whose next job comes first; on a tie the later stream
        // (interactive), as `time_from_begin[BATCH] < time_from_begin[ACTIVE]` in the C code.
        let mut k = 0;
        for (i, clock) in self.clocks.iter().enumerate().skip(1) {
            if clock.next <= self.clocks[k].next {
                k = i;
            }
        }
        let stream = &self.model.streams[k];
        let rng = &mut self.rngs[k];
        let submit = Time(self.clocks[k].next.floor() as i64);
        self.clocks[k].advance(stream, &mut rng.arrivals);
        let size = stream.sizes.sample(&mut rng.sizes);
        let runtime = Duration(stream.runtime(size, &mut rng.runtimes));
        let id = JobId(self.next_id);
        self.next_id += 1;
        Some(RigidJob {
            id,
            submit,
            size,
            runtime,
            estimate: runtime,
            user: None,
            group: None,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// Probability mass of gamma(`shape`, `scale`) on `[lo, hi]`, taken from the side of the
/// distribution where it does not cancel.
fn gamma_mass(shape: f64, scale: f64, lo: f64, hi: f64) -> f64 {
    let (x_lo, x_hi) = (lo / scale, hi / scale);
    if x_lo >= shape + 1.0 {
        gamma_q(shape, x_lo) - gamma_q(shape, x_hi)
    } else {
        gamma_p(shape, x_hi) - gamma_p(shape, x_lo)
    }
}

/// Regularised lower incomplete gamma function `P(a, x)` (the gamma(a, 1) cdf), `a > 0`.
/// Series for `x < a + 1`, continued fraction otherwise: Numerical Recipes §6.2, the method of
/// `gamcdf`/`gser`/`gcf` in `m_lublin99.c`.
pub(crate) fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else if x < a + 1.0 {
        gamma_series(a, x)
    } else {
        1.0 - gamma_cont_fraction(a, x)
    }
}

/// Regularised upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`.
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        1.0
    } else if x < a + 1.0 {
        1.0 - gamma_series(a, x)
    } else {
        gamma_cont_fraction(a, x)
    }
}

const GAMMA_EPS: f64 = 1e-15;
const GAMMA_ITER_MAX: usize = 10_000;

/// `P(a, x)` by its series; converges fast for `x < a + 1`.
fn gamma_series(a: f64, x: f64) -> f64 {
    let mut ap = a;
    let mut del = 1.0 / a;
    let mut sum = del;
    for _ in 0..GAMMA_ITER_MAX {
        ap += 1.0;
        del *= x / ap;
        sum += del;
        if del.abs() < sum.abs() * GAMMA_EPS {
            break;
        }
    }
    sum * (-x + a * x.ln() - ln_gamma(a)).exp()
}

/// `Q(a, x)` by its continued fraction (modified Lentz); converges fast for `x >= a + 1`.
fn gamma_cont_fraction(a: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..GAMMA_ITER_MAX {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < GAMMA_EPS {
            break;
        }
    }
    (-x + a * x.ln() - ln_gamma(a)).exp() * h
}

/// `ln Γ(x)` for `x > 0` (Lanczos approximation, g = 7, nine terms; relative error ~1e-15).
pub(crate) fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // reflection: Γ(x) Γ(1 - x) = π / sin(πx)
        (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x)
    } else {
        let x = x - 1.0;
        let t = x + G + 0.5;
        let mut sum = COEF[0];
        for (i, c) in COEF.iter().enumerate().skip(1) {
            sum += c / (x + i as f64);
        }
        0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn incomplete_gamma_matches_closed_forms() {
        for x in [0.1f64, 0.5, 1.0, 2.5, 4.0, 7.0, 15.0, 40.0] {
            let p1 = 1.0 - (-x).exp();
            assert!((gamma_p(1.0, x) - p1).abs() < 1e-12, "P(1, {x})");
            let p3 = 1.0 - (-x).exp() * (1.0 + x + x * x / 2.0);
            assert!((gamma_p(3.0, x) - p3).abs() < 1e-12, "P(3, {x})");
            assert!((gamma_p(3.0, x) + gamma_q(3.0, x) - 1.0).abs() < 1e-12);
            // P(a + 1, x) = P(a, x) - x^a e^-x / Γ(a + 1), at a non-integer shape
            let a: f64 = 2.3;
            let step = (a * x.ln() - x - ln_gamma(a + 1.0)).exp();
            assert!((gamma_p(a + 1.0, x) - (gamma_p(a, x) - step)).abs() < 1e-12);
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-13);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(639.1) - ln_gamma(638.1) - 638.1f64.ln()).abs() < 1e-9);
    }

    #[test]
    fn same_seed_same_jobs_different_seed_different_jobs() {
        for model in [
            LublinModel::new(128).unwrap(),
            LublinModel::mixed(300).unwrap(),
        ] {
            let a = model.generate(2_000, 11);
            assert_eq!(a, model.generate(2_000, 11));
            assert_ne!(a, model.generate(2_000, 12));
            let ids: Vec<u64> = a.iter().map(|j| j.id.0).collect();
            assert_eq!(ids, (1..=2_000).collect::<Vec<_>>());
        }
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        assert!(LublinModel::new(0).is_err());
        assert!(LublinModel::new(1).unwrap().with_start_hour(24).is_err());
        let b = LublinParams::batch();
        for bad in [
            LublinParams {
                serial_prob: 1.2,
                ..b
            },
            LublinParams {
                pow2_prob: 0.8,
                ..b
            },
            LublinParams { uprob: -0.1, ..b },
            LublinParams {
                ulow: f64::NAN,
                ..b
            },
            LublinParams {
                umed_below_uhi: -1.0,
                ..b
            },
            LublinParams { a2: 0.0, ..b },
            LublinParams {
                b1: f64::INFINITY,
                ..b
            },
            LublinParams { pa: f64::NAN, ..b },
            LublinParams { b2: 1.0, ..b },    // all runtimes above e^12
            LublinParams { barr: 10.0, ..b }, // all gaps above e^13
            LublinParams { bnum: 1e-3, ..b }, // every bucket but one empty
        ] {
            assert!(LublinModel::with_params(64, bad).is_err(), "{bad:?}");
        }
        assert!(LublinModel::with_params(64, LublinParams::typeless()).is_ok());
    }

    /// Batch model on the C program's 128-node machine (`UHI_BATCH 7`).
    fn batch_sample(n: usize, seed: u64) -> Vec<RigidJob> {
        LublinModel::new(128).unwrap().generate(n, seed)
    }

    /// Asserts `|observed - expected| <= 4 standard errors` (two-sided p < 1e-4).
    fn assert_within_4se(what: &str, observed: f64, expected: f64, se: f64) {
        assert!(
            (observed - expected).abs() <= 4.0 * se,
            "{what}: observed {observed:.5}, expected {expected:.5}, 4 SE = {:.5}",
            4.0 * se
        );
    }

    #[test]
    fn serial_and_power_of_two_shares_match_the_published_parameters() {
        const N: usize = 100_000;
        let p = LublinParams::batch();
        let jobs = batch_sample(N, 1);
        let serial = jobs.iter().filter(|j| j.size == 1).count();
        let share = serial as f64 / N as f64;
        let se = (p.serial_prob * (1.0 - p.serial_prob) / N as f64).sqrt();
        assert_within_4se("serial share", share, p.serial_prob, se);

        // Among parallel jobs, a share pow2 / (1 - serial) was rounded to a power of two; the
        // rest is a power of two by chance when round(2^x) lands on one, x ~ TSU(1.2, 5, 7).
        let tsu = |lo: f64, hi: f64| {
            let part = |a: f64, b: f64, mass: f64| {
                let len = (hi.min(b) - lo.max(a)).max(0.0);
                mass * len / (b - a)
            };
            part(p.ulow, 5.0, p.uprob) + part(5.0, 7.0, 1.0 - p.uprob)
        };
        let by_chance: f64 = (1..=7)
            .map(|k| {
                let c = f64::from(1u32 << k);
                tsu((c - 0.5).log2(), (c + 0.5).log2())
            })
            .sum();
        let rounded = p.pow2_prob / (1.0 - p.serial_prob);
        let expected = rounded + (1.0 - rounded) * by_chance;
        let parallel: Vec<&RigidJob> = jobs.iter().filter(|j| j.size > 1).collect();
        let pow2 = parallel.iter().filter(|j| j.size.is_power_of_two()).count();
        let n = parallel.len() as f64;
        let se = (expected * (1.0 - expected) / n).sqrt();
        assert_within_4se("power-of-two share", pow2 as f64 / n, expected, se);
    }

    /// `E[ln trunc(e^X)]` for the hyper-gamma of a job of `size` nodes conditioned on
    /// `X <= 12` (the rejection of `time_from_nodes`), by midpoint integration.
    fn expected_mean_log_runtime(p: &LublinParams, size: u32) -> f64 {
        let w = (p.pa * f64::from(size) + p.pb).clamp(0.0, 1.0);
        let pdf =
            |x: f64, k: f64, s: f64| ((k - 1.0) * x.ln() - x / s - ln_gamma(k) - k * s.ln()).exp();
        let h = 1e-4;
        let (mut mass, mut moment) = (0.0, 0.0);
        for i in 0..(MAX_LOG_RUNTIME / h) as usize {
            let x = (i as f64 + 0.5) * h;
            let f = w * pdf(x, p.a1, p.b1) + (1.0 - w) * pdf(x, p.a2, p.b2);
            mass += f * h;
            moment += f * h * x.exp().floor().ln();
        }
        moment / mass
    }

    #[test]
    fn mean_log_runtime_matches_the_hyper_gamma_per_size_class() {
        let p = LublinParams::batch();
        let jobs = batch_sample(100_000, 2);
        let mut means = Vec::new();
        for size in [1, 32] {
            let logs: Vec<f64> = jobs
                .iter()
                .filter(|j| j.size == size)
                .map(|j| (j.runtime.0 as f64).ln())
                .collect();
            let n = logs.len() as f64;
            let mean = logs.iter().sum::<f64>() / n;
            let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
            let expected = expected_mean_log_runtime(&p, size);
            assert_within_4se(
                &format!("mean ln(runtime), size {size}"),
                mean,
                expected,
                (var / n).sqrt(),
            );
            means.push(mean);
        }
        // p = pa * size + pb falls with size, so larger jobs run longer.
        assert!(means[1] > means[0] + 0.2, "{means:?}");
        assert!(
            jobs.iter()
                .all(|j| j.runtime.0 >= 1 && j.runtime.0 <= 162_755)
        );
    }

    #[test]
    fn arrivals_follow_the_daily_cycle() {
        const N: usize = 100_000;
        const BLOCKS: usize = 20;
        let w = LublinParams::batch().arrival_weights();
        let day = 16..36; // 08:00-18:00
        let night = 0..12; // 00:00-06:00
        let expected_day = w[day.clone()].iter().sum::<f64>() / BUCKETS as f64;
        let expected_night = w[night.clone()].iter().sum::<f64>() / BUCKETS as f64;
        // The model's own contrast: a 10-hour day gets several times a 6-hour night's jobs.
        assert!(expected_day > 3.0 * expected_night);

        let jobs = batch_sample(N, 3);
        let bucket = |j: &RigidJob| (j.submit.0.rem_euclid(86_400) / 1_800) as usize;
        let share = |js: &[RigidJob], r: &std::ops::Range<usize>| {
            js.iter().filter(|j| r.contains(&bucket(j))).count() as f64 / js.len() as f64
        };
        // Arrivals come in bursts, so binomial errors would be too small: the standard error
        // comes from batch means over 20 consecutive blocks.
        for (name, range, expected) in
            [("day", day, expected_day), ("night", night, expected_night)]
        {
            let blocks: Vec<f64> = jobs.chunks(N / BLOCKS).map(|b| share(b, &range)).collect();
            let mean = blocks.iter().sum::<f64>() / BLOCKS as f64;
            let var = blocks.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (BLOCKS - 1) as f64;
            let se = (var / BLOCKS as f64).sqrt();
            assert_within_4se(name, share(&jobs, &range), expected, se);
        }
    }

    #[test]
    fn mixed_streams_interleave_both_parameter_sets() {
        // Interactive sizes stop at 2^6 = 64 (UHI_ACTIVE 5.5, rounded exponents), batch ones
        // at 128: jobs above 64 nodes are batch jobs, and both classes must show up.
        let jobs = LublinModel::mixed(128).unwrap().generate(20_000, 4);
        assert!(jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        assert!(jobs.iter().any(|j| j.size > 64));
        let serial = jobs.iter().filter(|j| j.size == 1).count() as f64 / 20_000.0;
        // between the interactive (0.1541) and batch (0.2927) serial shares
        assert!(serial > 0.16 && serial < 0.29, "{serial}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn generated_jobs_are_valid_for_any_capacity(
            capacity in 1u32..=100_000,
            seed: u64,
            mixed: bool,
        ) {
            let model = if mixed {
                LublinModel::mixed(capacity).unwrap()
            } else {
                LublinModel::new(capacity).unwrap()
            };
            let jobs = model.generate(300, seed);
            let mut last = Time(0);
            for (i, j) in jobs.iter().enumerate() {
                prop_assert!(j.validate().is_ok());
                prop_assert!(j.size >= 1 && j.size <= capacity);
                prop_assert!(j.runtime.0 >= 1 && j.estimate == j.runtime);
                prop_assert!(j.submit >= last);
                prop_assert_eq!(j.id.0, i as u64 + 1);
                last = j.submit;
            }
        }
    }
}
