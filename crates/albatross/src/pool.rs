//! The machines of an Albatross pool: scavenged desktops with their owners, and the cloud
//! instance types Albatross can lease (the paper's system model: a cycle-scavenging HTCondor
//! pool of desktop workstations, extended by dedicated cloud nodes).
//!
//! ## Owners
//! Each desktop's owner alternates between **busy** and **idle** periods, drawn independently
//! from [`OwnerActivity::busy`] and [`OwnerActivity::idle`] (exponential or log-normal with a
//! configurable mean). Every desktop starts with its owner busy: the paper's runs begin with
//! "all of the desktop workstations ... being utilized by the user" (§V, Fig. 1).
//!
//! A desktop accepts jobs only once its owner has been idle for longer than
//! [`OwnerActivity::accept_after`], and this is said in its ClassAd, as HTCondor's startd says
//! it: the slot ad carries `KeyboardIdle` (seconds since the owner left; 0 while the owner is
//! at the desk) and `Start = KeyboardIdle > N` with `N = accept_after` in seconds, and the
//! slot's `Requirements` is `START && TARGET.RequestMemory <= MY.Memory` (HTCondor's desktop
//! policy has `START = KeyboardIdle > 15 * 60 && …`, [`htcondor_desktop`]). The negotiator therefore needs no side channel: a desktop
//! whose owner is back, or not away long enough, simply does not match. Cloud slots advertise
//! `Start = true`.
//!
//! When the owner returns to a desktop that runs a job, [`OwnerReturn`] decides what happens,
//! after HTCondor's `WANT_SUSPEND` / `SUSPEND` / `CONTINUE` / `PREEMPT` startd policy:
//! - [`OwnerReturn::Vacate`]: the job is evicted at once and requeued, keeping its progress
//!   ([`Eviction::Checkpoint`], the standard universe) or losing it ([`Eviction::Restart`],
//!   the vanilla universe);
//! - [`OwnerReturn::Suspend`]: the job stays on the desktop, paused, and resumes where it
//!   stopped once the owner has been away [`OwnerActivity::continue_after`] (`CONTINUE`); if
//!   the owner stays longer than
//!   `max_suspension` (HTCondor's `MaxSuspendTime`), the job is evicted then, with the
//!   configured [`Eviction`].
//!
//! ## Machine ads
//! Every machine advertises one ClassAd per slot (HTCondor's static slots: a machine of `n`
//! slots divides its memory evenly; the simulator can also run partitionable slots, see
//! [`crate::sim`]), e.g. for a desktop whose owner is away for 20 minutes and which accepts
//! jobs after 15:
//! `[ Name = "slot1@desktop3"; Cpus = 1; Memory = 4096; Mips = 1000; IsCloud = false;
//! KeyboardIdle = 1200; Start = KeyboardIdle > 900;
//! Requirements = START && TARGET.RequestMemory <= MY.Memory; Rank = 0 ]`.
//! `Mips` is [`REFERENCE_MIPS`] × the machine's speed factor.

use crate::classad::{ClassAd, Expr};
use cosched_core::{Duration, ParamError};
#[cfg(feature = "sim")]
use rand_distr::{Distribution, Exp1, LogNormal};
use serde::{Deserialize, Serialize};

/// `Mips` of a machine with speed factor 1.0 (the reference: a full core, a t2 vCPU with credits).
pub const REFERENCE_MIPS: f64 = 1000.0;

/// The `Requirements` every machine slot advertises: the slot's `START` holds and the job
/// fits in the slot's memory.
pub const SLOT_REQUIREMENTS: &str = "START && TARGET.RequestMemory <= MY.Memory";

/// The attribute of a desktop slot ad that holds the seconds since its owner left (0 while
/// the owner is active), as HTCondor's startd advertises it.
pub const KEYBOARD_IDLE: &str = "KeyboardIdle";

/// The distribution of one kind of owner period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PeriodModel {
    /// Exponential with this mean.
    Exponential {
        /// The mean period.
        mean: Duration,
    },
    /// Log-normal with this mean and coefficient of variation (sd / mean).
    LogNormal {
        /// The mean period.
        mean: Duration,
        /// Standard deviation over mean, > 0.
        cv: f64,
    },
}

impl PeriodModel {
    /// The mean period.
    pub fn mean(&self) -> Duration {
        match *self {
            PeriodModel::Exponential { mean } | PeriodModel::LogNormal { mean, .. } => mean,
        }
    }

    fn validate(&self, name: &'static str) -> Result<(), ParamError> {
        ParamError::check(
            self.mean().secs() > 0,
            name,
            self.mean(),
            "mean must be > 0 s",
        )?;
        if let PeriodModel::LogNormal { cv, .. } = *self {
            ParamError::check(
                cv.is_finite() && cv > 0.0,
                name,
                cv,
                "cv must be finite and > 0",
            )?;
        }
        Ok(())
    }

    /// Draws one period, at least 1 s.
    #[cfg(feature = "sim")]
    pub fn sample(&self, rng: &mut impl rand::Rng) -> Duration {
        let mean = self.mean().secs() as f64;
        let x = match *self {
            PeriodModel::Exponential { .. } => {
                mean * <Exp1 as Distribution<f64>>::sample(&Exp1, rng)
            }
            PeriodModel::LogNormal { cv, .. } => {
                LogNormal::from_mean_cv(mean, cv).map_or(mean, |d| d.sample(rng))
            }
        };
        Duration((x.round() as i64).max(1))
    }
}

/// How desktop owners come and go (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnerActivity {
    /// Periods during which the owner uses the desktop.
    pub busy: PeriodModel,
    /// Periods during which the owner is away.
    pub idle: PeriodModel,
    /// The desktop accepts jobs once its owner has been idle for longer than this (its ad's
    /// `Start = KeyboardIdle > accept_after`; HTCondor's desktop policy: `StartIdleTime`,
    /// 15 minutes).
    pub accept_after: Duration,
    /// A job suspended by the owner's return resumes once the owner has been away this long
    /// (HTCondor's desktop policy: `ContinueIdleTime`, 5 minutes).
    pub continue_after: Duration,
}

/// HTCondor's desktop policy (`use POLICY : Desktop`, the manual's "Policy Configuration for
/// Execute Hosts"): start jobs after 15 idle minutes (`StartIdleTime`), suspend a job when the
/// owner returns, resume it after 5 idle minutes (`ContinueIdleTime`), vacate it after 10
/// minutes suspended (`MaxSuspendTime`).
pub mod htcondor_desktop {
    use super::{Eviction, OwnerReturn};
    use cosched_core::Duration;
    /// `StartIdleTime`.
    pub const START_IDLE: Duration = Duration::from_mins(15);
    /// `ContinueIdleTime`.
    pub const CONTINUE_IDLE: Duration = Duration::from_mins(5);
    /// `MaxSuspendTime`.
    pub const MAX_SUSPEND: Duration = Duration::from_mins(10);
    /// Suspend, then vacate after `MaxSuspendTime`; a vanilla-universe job restarts.
    pub const OWNER_RETURN: OwnerReturn = OwnerReturn::Suspend {
        max_suspension: MAX_SUSPEND,
        then: Eviction::Restart,
    };
}

impl OwnerActivity {
    /// Owners busy and idle for exponentially distributed periods of these means (the
    /// memoryless model: how long an owner has been away says nothing of when they return),
    /// resuming suspended jobs as soon as the owner leaves.
    pub fn exponential(busy: Duration, idle: Duration, accept_after: Duration) -> OwnerActivity {
        OwnerActivity {
            busy: PeriodModel::Exponential { mean: busy },
            idle: PeriodModel::Exponential { mean: idle },
            accept_after,
            continue_after: Duration::ZERO,
        }
    }

    /// Checks that both means are positive and `accept_after`, `continue_after >= 0`.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.busy.validate("owner busy period")?;
        self.idle.validate("owner idle period")?;
        ParamError::check(
            self.continue_after >= Duration::ZERO,
            "continue_after",
            self.continue_after,
            "must be >= 0 s",
        )?;
        ParamError::check(
            self.accept_after >= Duration::ZERO,
            "accept_after",
            self.accept_after,
            "must be >= 0 s",
        )
    }
}

/// What evicting a job does to its progress (a cloud node's stop always checkpoints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eviction {
    /// The job keeps the work done so far and resumes it elsewhere.
    Checkpoint,
    /// The job starts over.
    Restart,
}

/// What happens to a running job when its desktop's owner returns (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerReturn {
    /// Evict the job at once (HTCondor's `WANT_SUSPEND = False`).
    Vacate(Eviction),
    /// Pause the job on the desktop and resume it when the owner leaves again (HTCondor's
    /// `WANT_SUSPEND = True`); evict it if the owner stays longer than `max_suspension`.
    Suspend {
        /// The longest one suspension may last, >= 0 s (HTCondor's `MaxSuspendTime`).
        max_suspension: Duration,
        /// What the eviction after `max_suspension` does to the job's progress.
        then: Eviction,
    },
}

impl OwnerReturn {
    /// Checks `max_suspension >= 0`.
    pub fn validate(&self) -> Result<(), ParamError> {
        match *self {
            OwnerReturn::Vacate(_) => Ok(()),
            OwnerReturn::Suspend { max_suspension, .. } => ParamError::check(
                max_suspension >= Duration::ZERO,
                "max_suspension",
                max_suspension,
                "must be >= 0 s",
            ),
        }
    }
}

/// A scavenged desktop workstation.
#[derive(Debug, Clone, PartialEq)]
pub struct DesktopSpec {
    /// Slots (jobs it runs at once), >= 1.
    pub slots: u32,
    /// Memory, MB, shared evenly by the slots.
    pub memory_mb: u32,
    /// Speed relative to the reference, a full core (a job of `w` full-core seconds runs `w / speed`).
    pub speed: f64,
}

impl DesktopSpec {
    /// Checks `slots >= 1`, `memory_mb >= slots` and a finite positive speed.
    pub fn validate(&self) -> Result<(), ParamError> {
        validate_machine(self.slots, self.memory_mb, self.speed)
    }

    /// The ad of one of its slots, named `name`, for a desktop that accepts jobs after its
    /// owner has been idle for `accept_after`; `KeyboardIdle` starts at 0 (owner present).
    pub fn slot_ad(&self, name: &str, accept_after: Duration) -> ClassAd {
        let mut ad = slot_ad(name, self.memory_mb / self.slots.max(1), self.speed, false);
        ad.insert_value(KEYBOARD_IDLE, 0i64);
        ad.insert(
            "Start",
            constant_expr(&format!("{KEYBOARD_IDLE} > {}", accept_after.secs())),
        );
        ad
    }
}

/// A cloud instance type Albatross can start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceType {
    /// Its name, e.g. `"cloud-m"`.
    pub name: String,
    /// Slots (jobs it runs at once), >= 1.
    pub slots: u32,
    /// Memory, MB, shared evenly by the slots.
    pub memory_mb: u32,
    /// Speed of a vCPU relative to the reference (a full core).
    pub speed: f64,
    /// Price per instance-hour, billed per second.
    pub price_per_hour: f64,
    /// From the start request until the node joins the pool (billed).
    pub spin_up: Duration,
    /// CPU credits if the type is burstable (full speed while credits last).
    pub credits: Option<BurstCredits>,
}

impl InstanceType {
    /// Checks the machine shape, a finite price >= 0 and `spin_up >= 0`.
    pub fn validate(&self) -> Result<(), ParamError> {
        validate_machine(self.slots, self.memory_mb, self.speed)?;
        ParamError::check(
            self.price_per_hour.is_finite() && self.price_per_hour >= 0.0,
            "price_per_hour",
            self.price_per_hour,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            self.spin_up >= Duration::ZERO,
            "spin_up",
            self.spin_up,
            "must be >= 0 s",
        )?;
        if let Some(c) = self.credits {
            ParamError::check(
                c.launch.is_finite() && c.launch >= 0.0,
                "credits.launch",
                c.launch,
                "must be finite and >= 0",
            )?;
            ParamError::check(
                c.earned_per_hour.is_finite() && c.earned_per_hour >= 0.0,
                "credits.earned_per_hour",
                c.earned_per_hour,
                "must be finite and >= 0",
            )?;
        }
        Ok(())
    }

    /// The ad of one of its slots, named `name`.
    pub fn slot_ad(&self, name: &str) -> ClassAd {
        let mut ad = slot_ad(name, self.memory_mb / self.slots.max(1), self.speed, true);
        ad.insert_value("InstanceType", self.name.as_str());
        ad.insert_value("Start", true);
        ad
    }

    /// The cost of running one instance for `held`, billed per second.
    pub fn cost(&self, held: Duration) -> f64 {
        held.as_hours_f64() * self.price_per_hour
    }

    /// Whether a burstable instance with every vCPU busy keeps full speed for `lifetime`
    /// (credits at launch plus those earned cover one credit per vCPU-minute); always true
    /// for a type without credits.
    pub fn credits_last(&self, lifetime: Duration) -> bool {
        self.credits.is_none_or(|c| {
            let minutes = lifetime.secs() as f64 / 60.0;
            c.launch + c.earned_per_hour * minutes / 60.0 >= f64::from(self.slots) * minutes
        })
    }
}

fn validate_machine(slots: u32, memory_mb: u32, speed: f64) -> Result<(), ParamError> {
    ParamError::check(slots >= 1, "slots", slots, "must be >= 1")?;
    ParamError::check(
        memory_mb >= slots,
        "memory_mb",
        memory_mb,
        "must be >= slots",
    )?;
    ParamError::check(
        speed.is_finite() && speed > 0.0,
        "speed",
        speed,
        "must be finite and > 0",
    )
}

fn slot_ad(name: &str, memory_mb: u32, speed: f64, cloud: bool) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert_value("Name", name);
    ad.insert_value("Cpus", 1i64);
    ad.insert_value("Memory", i64::from(memory_mb));
    ad.insert_value("Mips", (REFERENCE_MIPS * speed).round() as i64);
    ad.insert_value("IsCloud", cloud);
    ad.insert("Requirements", constant_expr(SLOT_REQUIREMENTS));
    ad.insert_value("Rank", 0i64);
    ad
}

/// Parses one of this crate's constant expressions.
pub(crate) fn constant_expr(src: &str) -> Expr {
    src.parse().expect("the crate's constant expressions parse")
}

/// The instance types of the paper's capital table ([`crate::policy::CapitalTable::paper`]):
/// Amazon EC2's burstable **t2** family, one size per capital row. The paper names the
/// t2.micro for capital below 0.25 (§IV-F) and says higher capital roughly doubles the
/// resources per step (§V): t2.micro → small → medium → large each double the memory and the
/// price, and the vCPUs double every second step (1, 1, 2, 2). Sizes and on-demand Linux
/// prices (us-east-1, $/h) are AWS's published ones for the t2 family; a slot per vCPU; a
/// vCPU with credits runs a job at a full core (speed 1.0, the reference), five times a
/// desktop VM held at its baseline ([`DESKTOP_SPEED`]).
///
/// Burstable: a t2 runs at full speed while it holds CPU credits. It launches with 30 credits
/// per vCPU and earns 6 / 12 / 24 / 36 per hour (one credit = one vCPU-minute at 100 %; the
/// baseline it sustains is 10 / 20 / 2 × 20 / 2 × 30 % of a vCPU), so with the paper table's
/// node lifetimes (≤ capital × 1 h) a t2.micro or t2.small never runs out; a fully busy
/// t2.medium at 45 min does (90 credits used, 78 held): [`InstanceType::credits_last`] says
/// which, and the simulator throttles such a node to its baseline once its credits are spent
/// ([`crate::sim`]; Amazon EC2 User Guide, "Key concepts and definitions for burstable
/// performance instances").
///
/// Spin-up ([`INSTANCE_SPIN_UP`]): EC2 Linux on-demand start-up ≈ 97 s (Mao & Humphrey, "A
/// Performance Study on the VM Startup Time in the Cloud", IEEE CLOUD 2012) plus 60 s for the
/// paper's headless HTCondor install and joining the pool (§IV-E; ours).
pub fn default_instance_types() -> Vec<InstanceType> {
    let t = |name: &str, vcpus: u32, memory_mb, price_per_hour, earned_per_hour| InstanceType {
        name: name.to_owned(),
        slots: vcpus,
        memory_mb,
        speed: 1.0,
        price_per_hour,
        spin_up: INSTANCE_SPIN_UP,
        credits: Some(BurstCredits {
            launch: 30.0 * f64::from(vcpus),
            earned_per_hour,
        }),
    };
    vec![
        // §IV-F: "capital parameters with a value less than 0.25 would always spin up a
        // t2.micro instance".
        t("t2.micro", 1, 1024, 0.0116, 6.0),
        // §V: from low to mid capital "the computational resources are approximately
        // doubled": the t2.small doubles the micro's memory and sustained CPU credits; which
        // resource the paper doubles is not stated (open).
        t("t2.small", 1, 2048, 0.023, 12.0),
        // Open: the paper names no type for 0.5–1; ours continue the t2 family.
        t("t2.medium", 2, 4096, 0.0464, 24.0),
        t("t2.large", 2, 8192, 0.0928, 36.0),
    ]
}

/// Per-job speed on a desktop: the documented baseline of a **t2.medium** vCPU, 20 % of a
/// full core (Amazon EC2 User Guide, "Key concepts and definitions for burstable performance
/// instances", baseline utilization per vCPU; it earns 24 CPU credits per hour over 2 vCPUs).
///
/// §V: the desktops are virtual machines on which HTCondor "would operate in the background
/// as other processes also run on these virtual machines, programmatically", and jobs could
/// not "fully take advantage of the additional computation power" of the cloud. A t2 VM
/// whose background processes run all day spends its credits and runs at its baseline; a
/// cloud node starts fresh with 30 launch credits per vCPU and runs its jobs at a full core
/// ([`default_instance_types`]). The desktop VM's size is ours: the t2 size with the
/// desktops' 4 GiB ([`crate::sim::SimConfig::paper`]). The job work is in full-core seconds,
/// so Fig. 1's baseline fixes the work mean at this speed
/// ([`crate::workload::CALIBRATED_MEAN_WORK_S`]).
pub const DESKTOP_SPEED: f64 = 0.20;

/// From a start request until the node has joined the pool: EC2 boot (≈ 97 s, Mao &
/// Humphrey 2012) plus the HTCondor install and join (60 s, ours).
pub const INSTANCE_SPIN_UP: Duration = Duration::from_secs(157);

/// The CPU credits of a burstable (EC2 t2) instance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BurstCredits {
    /// Credits at launch (30 per vCPU for t2).
    pub launch: f64,
    /// Credits earned per hour.
    pub earned_per_hour: f64,
}

#[cfg(all(test, feature = "sim"))]
mod tests {
    use super::*;
    use crate::classad::match_ads;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn slot_ads_match_jobs_that_fit() {
        let desktop = DesktopSpec {
            slots: 2,
            memory_mb: 8192,
            speed: 1.0,
        };
        let mut ad = desktop.slot_ad("d0", Duration::from_mins(10));
        assert_eq!(ad.eval_attr("Memory", None), 4096i64.into());
        let job: ClassAd =
            "[ RequestMemory = 4096; Requirements = TARGET.Memory >= MY.RequestMemory ]"
                .parse()
                .unwrap();
        assert!(!match_ads(&job, &ad).matched, "the owner is at the desk");
        ad.insert_value(KEYBOARD_IDLE, 600i64);
        assert!(!match_ads(&job, &ad).matched, "not idle long enough");
        ad.insert_value(KEYBOARD_IDLE, 601i64);
        assert!(match_ads(&job, &ad).matched);
        let big: ClassAd = "[ RequestMemory = 4097; Requirements = true ]"
            .parse()
            .unwrap();
        assert!(
            !match_ads(&big, &ad).matched,
            "the machine's Requirements refuse it"
        );
        let cloud = &default_instance_types()[3];
        assert_eq!(cloud.slot_ad("c0").eval_attr("IsCloud", None), true.into());
        assert!(
            match_ads(&job, &cloud.slot_ad("c0")).matched,
            "cloud slots always start"
        );
        assert!((cloud.cost(Duration::from_mins(90)) - 0.1392).abs() < 1e-12);
        let micro = &default_instance_types()[0];
        assert!(
            !match_ads(&job, &micro.slot_ad("m0")).matched,
            "1 GiB holds no 4 GB job"
        );
    }

    /// Each step of the ladder doubles memory and price; a t2.micro or t2.small keeps its
    /// credits for its row's lifetime, a fully busy t2.medium does not for 45 minutes.
    #[test]
    fn the_t2_ladder_doubles_and_bursts() {
        let types = default_instance_types();
        for w in types.windows(2) {
            assert_eq!(w[1].memory_mb, 2 * w[0].memory_mb);
            assert!((w[1].price_per_hour / w[0].price_per_hour - 2.0).abs() < 0.02);
        }
        assert!(types[0].credits_last(Duration::from_mins(15)));
        assert!(types[1].credits_last(Duration::from_mins(30)));
        assert!(!types[2].credits_last(Duration::from_mins(45)));
        assert!(!types[0].credits_last(Duration::from_mins(60)));
    }

    #[test]
    fn periods_have_the_configured_mean() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for model in [
            PeriodModel::Exponential {
                mean: Duration(600),
            },
            PeriodModel::LogNormal {
                mean: Duration(600),
                cv: 0.5,
            },
        ] {
            let n = 20_000;
            let mean = (0..n)
                .map(|_| model.sample(&mut rng).secs() as f64)
                .sum::<f64>()
                / n as f64;
            assert!((mean - 600.0).abs() < 20.0, "{model:?}: {mean}");
        }
    }

    #[test]
    fn invalid_shapes_are_rejected() {
        let d = DesktopSpec {
            slots: 0,
            memory_mb: 1,
            speed: 1.0,
        };
        assert_eq!(d.validate().unwrap_err().name, "slots");
        let mut t = default_instance_types().remove(0);
        t.price_per_hour = f64::NAN;
        assert_eq!(t.validate().unwrap_err().name, "price_per_hour");
        let owners = OwnerActivity {
            busy: PeriodModel::LogNormal {
                mean: Duration(10),
                cv: -1.0,
            },
            idle: PeriodModel::Exponential { mean: Duration(10) },
            accept_after: Duration(0),
            continue_after: Duration(0),
        };
        assert!(owners.validate().is_err());
        let suspend = OwnerReturn::Suspend {
            max_suspension: Duration(-1),
            then: Eviction::Restart,
        };
        assert_eq!(suspend.validate().unwrap_err().name, "max_suspension");
        assert!(OwnerReturn::Vacate(Eviction::Restart).validate().is_ok());
    }
}
