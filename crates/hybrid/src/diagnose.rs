//! Why on-demand jobs did not start at their arrival, computed from a run.
//!
//! Under the paper's model an on-demand job waits only when "the nodes used by running
//! on-demand jobs plus this on-demand job exceed the system capacity" (Fan et al., IPDPS 2022,
//! §V Obs. 9): PAA may preempt any running rigid or malleable job (§III-B2) and the time to
//! preempt or shrink is not modelled (§IV-D). [`ArrivalProbe`] wraps a [`HybridPolicy`] and,
//! at each arrival it does not start, notes where the system's nodes were;
//! [`WaitBreakdown::of`] joins those notes with the run's records and names, for every
//! on-demand job that did not start instantly, the first reason in [`WaitReason`]'s order that
//! accounts for the missing nodes.
//!
//! ```
//! use cosched_hybrid::scenario::Machine;
//! use cosched_hybrid::diagnose::{ArrivalProbe, WaitBreakdown};
//! use cosched_hybrid::workload::{TypeParams, assign_types};
//! use cosched_hybrid::{Composite, HybridConfig, HybridPolicy, HybridSim};
//! let trace = Machine::Theta.generate(true, 1)?;
//! let jobs = assign_types(&trace[..400], &TypeParams::default(), 1)?;
//! let nodes = Machine::Theta.nodes();
//! let mut probe = ArrivalProbe::new(HybridPolicy::new(Composite::ALL[0]), nodes);
//! let out = HybridSim::new(HybridConfig::new(nodes)?)?.run(&mut probe, &jobs)?;
//! let waits = WaitBreakdown::of(probe.arrivals(), nodes, &out);
//! assert_eq!(waits.not_instant, out.report.on_demand - out.report.instant_starts);
//! assert_eq!(waits.by_reason.iter().sum::<usize>(), waits.not_instant);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::policy::{Command, Composite, HybridPolicy, Observation, PlatformView, mechanism_name};
use crate::scenario::run_policy as simulate_on;
use crate::{HybridConfig, HybridError, HybridJob, HybridOutcome, HybridReport, HybridSim};
use cosched_core::policy::Policy;
use cosched_core::{JobClass, JobId, Time};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

/// Why an on-demand job did not start at its arrival, in the order the nodes are blamed:
/// the first whose nodes, added to the running on-demand jobs' and the job's own size, exceed
/// the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WaitReason {
    /// Running on-demand jobs plus this one exceed the system (Obs. 9: the paper's only
    /// reason).
    Capacity,
    /// Nodes gathered by earlier on-demand jobs waiting at the front of the queue.
    GatheredByWaiting,
    /// Idle nodes reserved for other on-demand jobs' notices (CUA, CUP, §III-B1).
    ReservedForOthers,
    /// Batch jobs running as guests on other on-demand jobs' reservations, which the
    /// mechanisms leave out.
    GuestsOfOthers,
    /// Failed nodes (§V-C).
    FailedNodes,
    /// The preemptable running batch jobs and idle nodes would have covered it: the rules of
    /// the policy or the order of its steps kept it waiting.
    Other,
    /// It started at its arrival, but a node failure killed its run (Obs. 14: not instant).
    KilledByFailure,
}

impl WaitReason {
    /// Every reason, in the order of the blame.
    pub const ALL: [WaitReason; 7] = [
        WaitReason::Capacity,
        WaitReason::GatheredByWaiting,
        WaitReason::ReservedForOthers,
        WaitReason::GuestsOfOthers,
        WaitReason::FailedNodes,
        WaitReason::Other,
        WaitReason::KilledByFailure,
    ];

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            WaitReason::Capacity => "running on-demand + this > N",
            WaitReason::GatheredByWaiting => "held by waiting on-demand jobs",
            WaitReason::ReservedForOthers => "reserved for other on-demand jobs",
            WaitReason::GuestsOfOthers => "guests of other reservations",
            WaitReason::FailedNodes => "failed nodes",
            WaitReason::Other => "other (rules or step order)",
            WaitReason::KilledByFailure => "started, killed by a failure",
        }
    }
}

/// Where the system's nodes were when an on-demand job arrived and was not started then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrivalState {
    /// The on-demand job.
    pub job: JobId,
    /// Its arrival.
    pub at: Time,
    /// Its size.
    pub size: u32,
    /// Idle nodes of the batch pool.
    pub idle: u32,
    /// Nodes of running batch jobs the mechanisms may preempt or shrink.
    pub preemptable: u32,
    /// Nodes of running guests of other on-demand jobs' reservations.
    pub guests_of_others: u32,
    /// Idle nodes reserved for this job (its notice, CUA/CUP).
    pub reserved_own: u32,
    /// Idle nodes reserved for other on-demand jobs.
    pub reserved_others: u32,
    /// Nodes of running on-demand jobs.
    pub on_demand_running: u32,
    /// Nodes gathered by on-demand jobs waiting at the front.
    pub on_demand_gathered: u32,
    /// The rest of the system: failed nodes.
    pub failed: u32,
}

impl ArrivalState {
    /// Every node it places, failed ones included.
    pub fn accounted(&self) -> u64 {
        [
            self.idle,
            self.preemptable,
            self.guests_of_others,
            self.reserved_own,
            self.reserved_others,
            self.on_demand_running,
            self.on_demand_gathered,
            self.failed,
        ]
        .iter()
        .map(|&n| u64::from(n))
        .sum()
    }

    /// The first reason that accounts for the missing nodes of a system of `nodes`.
    pub fn reason(&self, nodes: u32) -> WaitReason {
        let nodes = u64::from(nodes);
        let mut held = u64::from(self.size) + u64::from(self.on_demand_running);
        let blame = [
            (0, WaitReason::Capacity),
            (self.on_demand_gathered, WaitReason::GatheredByWaiting),
            (self.reserved_others, WaitReason::ReservedForOthers),
            (self.guests_of_others, WaitReason::GuestsOfOthers),
            (self.failed, WaitReason::FailedNodes),
        ];
        for (add, reason) in blame {
            held += u64::from(add);
            if held > nodes {
                return reason;
            }
        }
        WaitReason::Other
    }
}

/// A [`HybridPolicy`] whose arrivals are watched: it decides exactly as the policy does, and
/// keeps an [`ArrivalState`] for each arrival the policy does not start at once (the other
/// arrivals cost it nothing).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ArrivalProbe {
    policy: HybridPolicy,
    nodes: u32,
    running: FxHashSet<JobId>,
    arrivals: Vec<ArrivalState>,
}

impl ArrivalProbe {
    /// `policy` watched on a system of `nodes`.
    pub fn new(policy: HybridPolicy, nodes: u32) -> ArrivalProbe {
        ArrivalProbe {
            policy,
            nodes,
            running: FxHashSet::default(),
            arrivals: Vec::new(),
        }
    }

    /// The arrivals not started at once, in arrival order.
    pub fn arrivals(&self) -> &[ArrivalState] {
        &self.arrivals
    }

    /// The watched policy.
    pub fn policy(&self) -> &HybridPolicy {
        &self.policy
    }

    /// The nodes of `job`'s arrival, read from `view` before its commands are carried out.
    fn state(&self, now: Time, job: JobId, size: u32, view: &dyn PlatformView) -> ArrivalState {
        let (mut preemptable, mut guests_of_others) = (0u32, 0u32);
        for p in view.running(now) {
            match self.policy.guest_host(p.view.id) {
                Some(host) if host != job => guests_of_others += p.view.size,
                // The job's own guests, just evicted for it (the policy no longer counts them
                // as guests), and every other batch job: nodes the job may have.
                _ => preemptable += p.view.size,
            }
        }
        let (mut reserved_own, mut reserved_others) = (0u32, 0u32);
        for r in self.policy.board().reservations() {
            let idle = u32::try_from(view.reserved_idle(r.job, r.nodes)).unwrap_or(u32::MAX);
            if r.job == job {
                reserved_own += idle;
            } else {
                reserved_others += idle;
            }
        }
        let on_demand_running = self.running.iter().map(|&j| view.held(j)).sum::<u32>();
        let on_demand_gathered = self
            .policy
            .waiting()
            .filter(|&w| w != job)
            .map(|w| view.held(w))
            .sum::<u32>();
        let mut state = ArrivalState {
            job,
            at: now,
            size,
            idle: view.idle_count(),
            preemptable,
            guests_of_others,
            reserved_own,
            reserved_others,
            on_demand_running,
            on_demand_gathered,
            failed: 0,
        };
        // The rest of the system is failed.
        let failed = u64::from(self.nodes).saturating_sub(state.accounted());
        state.failed = u32::try_from(failed).unwrap_or(u32::MAX);
        state
    }

    /// Runs `call` on the watched policy, keeping the on-demand jobs its commands start.
    fn forward(
        &mut self,
        out: &mut Vec<Command>,
        call: impl FnOnce(&mut HybridPolicy, &mut Vec<Command>) -> Result<(), HybridError>,
    ) -> Result<(), HybridError> {
        let from = out.len();
        call(&mut self.policy, out)?;
        self.started(&out[from..]);
        Ok(())
    }

    /// Keeps the on-demand jobs `commands` start as running.
    fn started(&mut self, commands: &[Command]) {
        for c in commands {
            if let Command::StartOnDemand { job } = *c {
                self.running.insert(job);
            }
        }
    }
}

impl Policy for ArrivalProbe {
    type Observation = Observation;
    type Command = Command;
    type View = dyn PlatformView;
    type Error = HybridError;

    fn start(
        &mut self,
        now: Time,
        view: &Self::View,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        self.forward(out, |policy, out| policy.start(now, view, out))
    }

    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        view: &Self::View,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        if let Observation::OnDemandEnded { job } | Observation::OnDemandFailed { job, .. } =
            *observation
        {
            self.running.remove(&job);
        }
        let from = out.len();
        self.policy.observe(now, observation, view, out)?;
        if let Observation::Arrival { job, size } = *observation {
            let started = out[from..].contains(&Command::StartOnDemand { job });
            if !started {
                let state = self.state(now, job, size, view);
                self.arrivals.push(state);
            }
        }
        self.started(&out[from..]);
        Ok(())
    }

    fn wake(
        &mut self,
        now: Time,
        view: &Self::View,
        out: &mut Vec<Command>,
    ) -> Result<(), HybridError> {
        self.forward(out, |policy, out| policy.wake(now, view, out))
    }

    fn next_wake(&self) -> Option<Time> {
        self.policy.next_wake()
    }
}

/// The on-demand jobs of a run that did not start instantly, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitBreakdown {
    /// On-demand jobs.
    pub on_demand: usize,
    /// Those that did not start instantly (the complement of the report's instant starts).
    pub not_instant: usize,
    /// Per reason, in [`WaitReason::ALL`]'s order.
    pub by_reason: [usize; 7],
}

impl WaitBreakdown {
    /// The breakdown of `outcome`, a run on a system of `nodes` of the probe that kept
    /// `arrivals`: each on-demand job that did not start at its arrival, or whose run a failure
    /// killed, under the reason its arrival's state gives ([`ArrivalState::reason`]).
    pub fn of(arrivals: &[ArrivalState], nodes: u32, outcome: &HybridOutcome) -> WaitBreakdown {
        let states: FxHashMap<JobId, &ArrivalState> = arrivals.iter().map(|a| (a.job, a)).collect();
        let mut out = WaitBreakdown::default();
        for (r, a) in outcome.records.iter().zip(&outcome.accounts) {
            if r.class != JobClass::OnDemand {
                continue;
            }
            out.on_demand += 1;
            let waited = r.start != Some(r.submit);
            if !waited && a.failures == 0 {
                continue;
            }
            out.not_instant += 1;
            let reason = match states.get(&r.id) {
                // Started at its arrival (perhaps in the instant's settle), then killed.
                _ if !waited => WaitReason::KilledByFailure,
                Some(state) => state.reason(nodes),
                None => WaitReason::Other,
            };
            out.by_reason[reason as usize] += 1;
        }
        out
    }
}

/// Where a class's mean turnaround went, hours per job (means over the completed jobs of the
/// class): the parts sum to the mean turnaround.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnaroundParts {
    /// Jobs counted.
    pub jobs: usize,
    /// Submission to first start.
    pub first_wait_h: f64,
    /// Waiting in the queue again after a preemption, eviction or failure.
    pub requeue_wait_h: f64,
    /// The undisturbed run at the requested size (setup, work, checkpoints).
    pub run_h: f64,
    /// Run time lost: work redone after a preemption or failure and setups paid again
    /// (the job's wasted node-seconds over its requested size).
    pub lost_h: f64,
    /// The rest of the time held: a malleable job's run stretched by its shrinks (net of
    /// any expansion), and the rounding of resizes.
    pub stretch_h: f64,
}

impl TurnaroundParts {
    /// The parts of the jobs of `outcome` that `class` selects (`None`: every job).
    pub fn of(outcome: &HybridOutcome, class: Option<JobClass>) -> TurnaroundParts {
        let mut sums = [0i128; 5];
        let mut jobs = 0usize;
        for (r, a) in outcome.records.iter().zip(&outcome.accounts) {
            if class.is_some_and(|c| c != r.class) {
                continue;
            }
            let (Some(start), Some(end)) = (r.start, r.end) else {
                continue;
            };
            let size = i128::from(r.size.max(1));
            let run = i128::from(a.required) / size;
            let lost = i128::from(a.wasted) / size;
            let after = i128::from(end.0) - i128::from(start.0);
            let held = i128::from(a.held);
            let parts = [
                i128::from(start.0) - i128::from(r.submit.0),
                after - held,
                run,
                lost,
                held - run - lost,
            ];
            for (s, p) in sums.iter_mut().zip(parts) {
                *s += p;
            }
            jobs += 1;
        }
        let hours = |s: i128| {
            if jobs == 0 {
                f64::NAN
            } else {
                s as f64 / jobs as f64 / 3_600.0
            }
        };
        TurnaroundParts {
            jobs,
            first_wait_h: hours(sums[0]),
            requeue_wait_h: hours(sums[1]),
            run_h: hours(sums[2]),
            lost_h: hours(sums[3]),
            stretch_h: hours(sums[4]),
        }
    }

    /// The parts in order: first wait, requeue wait, run, lost, stretch.
    pub fn parts(&self) -> [f64; 5] {
        [
            self.first_wait_h,
            self.requeue_wait_h,
            self.run_h,
            self.lost_h,
            self.stretch_h,
        ]
    }

    /// Their sum: the mean turnaround, hours.
    pub fn turnaround_h(&self) -> f64 {
        self.parts().iter().sum()
    }
}

/// A run with its diagnoses.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Diagnosed {
    /// The run's metrics.
    pub report: HybridReport,
    /// Its on-demand jobs that did not start instantly, by reason (`None` for the baseline,
    /// which queues every on-demand job).
    pub waits: Option<WaitBreakdown>,
    /// Its turnaround's parts: every job, then on-demand, rigid and malleable jobs.
    pub parts: [TurnaroundParts; 4],
}

/// The classes of [`Diagnosed::parts`] after the first (every job).
pub const PART_CLASSES: [JobClass; 3] = [JobClass::OnDemand, JobClass::Rigid, JobClass::Malleable];

/// [`crate::scenario::simulate`] with its diagnoses: the same run of the typed `jobs`, the
/// mechanisms watched by an [`ArrivalProbe`] (which decides as the policy does).
pub fn simulate(
    config: HybridConfig,
    configuration: Option<Composite>,
    jobs: &[HybridJob],
) -> Result<Diagnosed, HybridError> {
    let nodes = config.nodes;
    let sim = HybridSim::new(config)?;
    let (outcome, waits) = match configuration {
        None => (simulate_on(sim, None, jobs)?, None),
        Some(mechanism) => {
            let mut probe = ArrivalProbe::new(HybridPolicy::new(mechanism), nodes);
            let outcome = sim
                .with_notices(probe.policy().listens_to_notices())
                .with_label(mechanism_name(configuration))
                .run(&mut probe, jobs)
                .map_err(crate::SimError::flatten)?;
            let waits = WaitBreakdown::of(probe.arrivals(), nodes, &outcome);
            (outcome, Some(waits))
        }
    };
    let parts = [
        TurnaroundParts::of(&outcome, None),
        TurnaroundParts::of(&outcome, Some(PART_CLASSES[0])),
        TurnaroundParts::of(&outcome, Some(PART_CLASSES[1])),
        TurnaroundParts::of(&outcome, Some(PART_CLASSES[2])),
    ];
    Ok(Diagnosed {
        report: outcome.report,
        waits,
        parts,
    })
}
