//! The jobs of an Albatross experiment (the paper's evaluation workload: one job submitted
//! every five minutes, of varying length and size).
//!
//! [`WorkloadModel::generate`] submits a job every [`WorkloadModel::interarrival`] from time 0
//! until the horizon (§V: "generating random jobs to dispatch ... every 5 minutes"). Each job's
//! work (seconds on one reference vCPU, speed 1.0) is log-normal with the configured mean and
//! coefficient of variation; its memory request is drawn uniformly from
//! [`WorkloadModel::memory_mb`]; with probability [`WorkloadModel::cloud_forbidden`] it forbids
//! cloud execution (§IV-F: a job with a large input may opt out of AWS). Each kind of draw has
//! its own named random stream (`job-work`, `job-memory`, `job-cloud`, see
//! [`cosched_core::SeedStreams`]), so changing one distribution leaves the others' draws alone.
//! Its ad is
//!
//! ```text
//! [ RequestMemory = 2048; WorkSeconds = 183;
//!   Requirements = TARGET.Memory >= MY.RequestMemory && (TARGET.IsCloud =!= true);
//!   Rank = TARGET.Mips ]
//! ```
//!
//! (without the `IsCloud` clause when the cloud is allowed): it prefers the fastest machine.

use crate::classad::ClassAd;
use crate::pool::constant_expr;
use cosched_core::{Duration, JobId, ParamError, SeedStreams, Time};
use cosched_workload::admit::Admissible;
use rand::RngExt;
use rand_distr::{Distribution, LogNormal};

/// `Requirements` of a job that may run anywhere its memory fits.
pub const JOB_REQUIREMENTS: &str = "TARGET.Memory >= MY.RequestMemory";
/// `Requirements` of a job that must not run in the cloud.
pub const JOB_REQUIREMENTS_NO_CLOUD: &str =
    "TARGET.Memory >= MY.RequestMemory && (TARGET.IsCloud =!= true)";
/// `Rank` of every generated job: the fastest machine first.
pub const JOB_RANK: &str = "TARGET.Mips";

/// One submitted job.
#[derive(Debug, Clone)]
pub struct Job {
    /// Its id (submission order).
    pub id: JobId,
    /// Submission time.
    pub submit: Time,
    /// Work, in full-core seconds (speed 1.0: a t2 vCPU with credits); > 0.
    pub work_s: f64,
    /// Its job ad (`Requirements`, `Rank`, `RequestMemory`, …).
    pub ad: ClassAd,
}

impl Job {
    /// A job with the generator's ad shape (see the module docs).
    pub fn new(
        id: JobId,
        submit: Time,
        work_s: f64,
        request_memory_mb: u32,
        cloud_allowed: bool,
    ) -> Job {
        let mut ad = ClassAd::new();
        ad.insert_value("RequestMemory", i64::from(request_memory_mb));
        ad.insert_value("WorkSeconds", work_s.round() as i64);
        let requirements = if cloud_allowed {
            JOB_REQUIREMENTS
        } else {
            JOB_REQUIREMENTS_NO_CLOUD
        };
        ad.insert("Requirements", constant_expr(requirements));
        ad.insert("Rank", constant_expr(JOB_RANK));
        Job {
            id,
            submit,
            work_s,
            ad,
        }
    }
}

impl Admissible for Job {
    fn id(&self) -> JobId {
        self.id
    }
    fn submit(&self) -> Time {
        self.submit
    }
    /// Finite work > 0 submitted at or after time 0.
    fn is_valid(&self) -> bool {
        self.work_s.is_finite() && self.work_s > 0.0 && self.submit >= Time::ZERO
    }
}

/// The synthetic workload (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadModel {
    /// Time between submissions (the paper: 5 minutes).
    pub interarrival: Duration,
    /// Mean work, reference seconds.
    pub mean_work_s: f64,
    /// Coefficient of variation of the work.
    pub work_cv: f64,
    /// Memory requests, MB, drawn uniformly.
    pub memory_mb: Vec<u32>,
    /// Probability that a job forbids cloud execution.
    pub cloud_forbidden: f64,
}

impl WorkloadModel {
    /// The paper's workload: a job every 5 minutes (§V). Job work is log-normal with mean
    /// [`CALIBRATED_MEAN_WORK_S`] and cv [`CALIBRATED_WORK_CV`], **calibrated on the paper's
    /// no-Albatross baseline only** (Fig. 1: run time 261.15 ± 170.82 s, see
    /// [`crate::sim::SimConfig::paper`]). Memory requests 256 or 512 MB and no job forbidding
    /// the cloud are ours (the paper gives neither; every job fits a t2.micro's 1 GiB).
    pub fn paper() -> WorkloadModel {
        WorkloadModel {
            interarrival: Duration::from_mins(5),
            mean_work_s: CALIBRATED_MEAN_WORK_S,
            work_cv: CALIBRATED_WORK_CV,
            memory_mb: vec![256, 512],
            cloud_forbidden: 0.0,
        }
    }

    /// Checks a positive interarrival, a finite positive work mean and cv, at least one memory
    /// size and a probability in [0, 1].
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.interarrival.secs() > 0,
            "interarrival",
            self.interarrival,
            "must be > 0 s",
        )?;
        ParamError::check(
            self.mean_work_s.is_finite() && self.mean_work_s > 0.0,
            "mean_work_s",
            self.mean_work_s,
            "must be finite and > 0",
        )?;
        ParamError::check(
            self.work_cv.is_finite() && self.work_cv > 0.0,
            "work_cv",
            self.work_cv,
            "must be finite and > 0",
        )?;
        ParamError::check(
            !self.memory_mb.is_empty(),
            "memory_mb",
            "[]",
            "needs a size",
        )?;
        ParamError::check(
            (0.0..=1.0).contains(&self.cloud_forbidden),
            "cloud_forbidden",
            self.cloud_forbidden,
            "must be a probability in [0, 1]",
        )
    }

    /// The jobs submitted in `[0, horizon)`, drawn from `streams` (see the module docs).
    /// The job count is `ceil(horizon / interarrival)`: checked against `max_jobs` before
    /// anything is allocated.
    pub fn generate(
        &self,
        horizon: Duration,
        streams: SeedStreams,
        max_jobs: u64,
    ) -> Result<Vec<Job>, ParamError> {
        self.validate()?;
        let work = LogNormal::from_mean_cv(self.mean_work_s, self.work_cv)
            .map_err(|_| ParamError::new("work_cv", self.work_cv, "no log-normal of this shape"))?;
        let step = self.interarrival.secs();
        let n = (horizon.secs().max(0) as u64).div_ceil(step as u64) as i64;
        ParamError::check(
            u64::try_from(n).is_ok_and(|n| n <= max_jobs),
            "horizon",
            horizon,
            "gives more jobs than the allowed maximum",
        )?;
        let mut work_rng = streams.stream("job-work", 0);
        let mut memory_rng = streams.stream("job-memory", 0);
        let mut cloud_rng = streams.stream("job-cloud", 0);
        Ok((0..n)
            .map(|i| {
                let work_s = work.sample(&mut work_rng).max(1.0);
                let memory = self.memory_mb[memory_rng.random_range(0..self.memory_mb.len())];
                let cloud_allowed = cloud_rng.random::<f64>() >= self.cloud_forbidden;
                Job::new(
                    JobId(i as u64),
                    Time(i * step),
                    work_s,
                    memory,
                    cloud_allowed,
                )
            })
            .collect())
    }
}

/// Mean job work (full-core seconds: 215 s on a desktop at [`crate::pool::DESKTOP_SPEED`]),
/// calibrated on the no-Albatross baseline (Fig. 1) by the `albatross_calibrate` example.
pub const CALIBRATED_MEAN_WORK_S: f64 = 43.0;
/// Coefficient of variation of the job work, calibrated with [`CALIBRATED_MEAN_WORK_S`].
pub const CALIBRATED_WORK_CV: f64 = 0.65;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::{ClassAd, symmetric_match};

    fn model() -> WorkloadModel {
        WorkloadModel {
            interarrival: Duration::from_mins(5),
            mean_work_s: 200.0,
            work_cv: 0.6,
            memory_mb: vec![1024, 2048],
            cloud_forbidden: 0.5,
        }
    }

    #[test]
    fn one_job_per_interarrival_with_the_documented_ads() {
        let jobs = model()
            .generate(Duration(3000), SeedStreams::new(7), 100)
            .unwrap();
        assert_eq!(jobs.len(), 10);
        assert_eq!(jobs[3].submit, Time(900));
        let cloud: ClassAd = "[ Memory = 4096; IsCloud = true; Requirements = true ]"
            .parse()
            .unwrap();
        let desk: ClassAd = "[ Memory = 4096; IsCloud = false; Requirements = true ]"
            .parse()
            .unwrap();
        let allowed = jobs
            .iter()
            .filter(|j| symmetric_match(&j.ad, &cloud))
            .count();
        assert!(
            allowed > 0 && allowed < 10,
            "{allowed} of 10 may use the cloud"
        );
        assert!(jobs.iter().all(|j| symmetric_match(&j.ad, &desk)));
        let again = model()
            .generate(Duration(3000), SeedStreams::new(7), 100)
            .unwrap();
        assert!(jobs.iter().zip(&again).all(|(a, b)| a.work_s == b.work_s));
    }

    #[test]
    fn invalid_models_are_rejected() {
        let mut m = model();
        m.cloud_forbidden = 1.5;
        assert_eq!(
            m.generate(Duration(10), SeedStreams::new(1), 10)
                .unwrap_err()
                .name,
            "cloud_forbidden"
        );
        let mut m = model();
        m.interarrival = Duration(0);
        assert_eq!(m.validate().unwrap_err().name, "interarrival");
        let huge = model().generate(Duration(i64::MAX), SeedStreams::new(1), 1_000_000);
        assert_eq!(huge.unwrap_err().name, "horizon");
    }
}
