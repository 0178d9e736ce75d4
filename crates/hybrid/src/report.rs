//! What a hybrid run reports (Fan et al., IPDPS 2022, §IV-D): the summary metrics
//! ([`HybridReport`]: turnaround, on-demand instant start, preemption ratios, useful
//! utilisation), each job's node-second account ([`JobAccount`]) and everything a run
//! produced ([`HybridOutcome`]).

use crate::sim::HybridConfig;
use cosched_core::{JobClass, JobId, JobRecord, Pool, Time, UsageKind, UsageLedger};
use serde::{Deserialize, Serialize};

/// One job's node-second accounting; see the [simulator's docs](crate::sim).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobAccount {
    /// The job.
    pub id: JobId,
    /// Its class.
    pub class: JobClass,
    /// Node-seconds its first run needs when undisturbed.
    pub required: i64,
    /// Node-seconds held over all its runs.
    pub delivered: i64,
    /// Node-seconds thrown away (lost work, repeated setups, restarted runs).
    pub wasted: i64,
    /// Seconds it held nodes, over all its runs: what follows its first start and is not
    /// this waited in the queue again after a preemption, eviction or failure.
    #[serde(default)]
    pub held: i64,
    /// How often it completed (1 for every job of a finished simulation).
    pub completions: u32,
    /// Preemptions by the mechanisms (failures, shrinks and evictions not included).
    pub preemptions: u32,
    /// Runs as a guest on reserved nodes stopped at the reservation's arrival (§III-B1).
    pub evictions: u32,
    /// Shrinks by SPAA.
    pub shrinks: u32,
    /// Expansions (into idle nodes, or back to a lender's size).
    pub expansions: u32,
    /// Runs ended by a node failure.
    pub failures: u32,
    /// The largest slack the resizes' rounding may add (node-seconds), 0 for fixed sizes.
    pub rounding_slack: i64,
    /// Node-seconds of setup and checkpoint writes in the runs that were not lost: part of its
    /// execution, which §IV-D's utilisation counts (`delivered - wasted`); the stricter
    /// reading (ours) leaves them out too (`delivered - wasted - overhead`).
    pub overhead: i64,
}

/// The metrics the paper reports (§IV-D), for one run. Means and ratios over no job are NaN.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HybridReport {
    /// The mechanism's name (`baseline` or e.g. `CUP&SPAA`).
    pub mechanism: String,
    /// Jobs given.
    pub jobs: usize,
    /// Jobs left out as invalid by the admission.
    pub invalid: usize,
    /// Jobs completed.
    pub completed: usize,
    /// Jobs larger than the system, never run.
    pub rejected: usize,
    /// On-demand jobs.
    pub on_demand: usize,
    /// On-demand jobs that started at their arrival and were never interrupted by a failure.
    pub instant_starts: usize,
    /// `instant_starts / on_demand`.
    pub instant_start_ratio: f64,
    /// Mean wait of on-demand jobs (arrival to first start), seconds.
    pub on_demand_mean_wait_s: f64,
    /// Mean turnaround of every job, on-demand jobs included (§IV-D), hours.
    pub turnaround_h: f64,
    /// Mean turnaround of batch (rigid and malleable) jobs, hours.
    pub batch_turnaround_h: f64,
    /// Mean turnaround of rigid jobs, hours.
    pub rigid_turnaround_h: f64,
    /// Mean turnaround of malleable jobs, hours.
    pub malleable_turnaround_h: f64,
    /// Mean turnaround of on-demand jobs, hours.
    pub on_demand_turnaround_h: f64,
    /// Share of rigid jobs preempted (or interrupted by a failure) at least once; evictions
    /// of guests are counted apart.
    pub rigid_preempted_ratio: f64,
    /// Share of malleable jobs preempted (or interrupted by a failure) at least once; shrinks
    /// are not preemptions, evictions of guests are counted apart.
    pub malleable_preempted_ratio: f64,
    /// Share of rigid jobs evicted at least once as a guest at its reservation's arrival.
    pub rigid_evicted_ratio: f64,
    /// Share of malleable jobs evicted at least once as a guest at its reservation's arrival.
    pub malleable_evicted_ratio: f64,
    /// Preemptions by the mechanisms.
    pub preemptions: usize,
    /// Evictions of guests at their reservation's arrival.
    pub evictions: usize,
    /// Runs interrupted by node failures.
    pub failure_interruptions: usize,
    /// Shrinks.
    pub shrinks: usize,
    /// Expansions of malleable jobs.
    pub expansions: usize,
    /// Node failures injected.
    pub node_failures: usize,
    /// Batch jobs started as guests on reserved idle nodes.
    pub guest_starts: usize,
    /// Node-hours wasted (lost work, repeated setups, restarts).
    pub wasted_node_hours: f64,
    /// Useful node-seconds (§IV-D: busy less the waste of preemptions and failures) / (nodes ×
    /// (last end − first submit)).
    pub utilization: f64,
    /// Useful node-seconds between the first and the last submission / (nodes × that window):
    /// the work the system gets done while jobs keep arriving, the drain excluded.
    pub window_utilization: f64,
    /// The same without the jobs' setups and checkpoint writes either (the stricter reading,
    /// ours).
    pub window_work_utilization: f64,
    /// Busy node-seconds in the same window, wasted work included, / (nodes × window).
    pub window_held_utilization: f64,
    /// The work offered: every job's required node-seconds (its undisturbed run) / (nodes ×
    /// window). Utilisation can exceed the baseline's only while this exceeds it (a backlog).
    pub offered_load: f64,
    /// Share of the window in which some job waits for its first start (a standing queue).
    pub window_queue_share: f64,
    /// Nodes requested by the jobs waiting for their first start, averaged over the window,
    /// per node of the system.
    pub window_waiting_nodes: f64,
}

/// Everything a run produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HybridOutcome {
    /// The summary metrics.
    pub report: HybridReport,
    /// One record per admitted job, in (submit, id) order (start = first start).
    pub records: Vec<JobRecord>,
    /// One account per admitted job, in the same order.
    pub accounts: Vec<JobAccount>,
    /// Busy and wasted node-seconds with their intervals, for utilisation over any window.
    pub usage: UsageLedger,
    /// The setups' and checkpoint writes' node-seconds that were not lost, with their
    /// intervals (as busy).
    pub overhead: UsageLedger,
    /// Node-accounting violations seen when checking invariants (always empty unless the
    /// simulator is wrong); checked only with [`HybridSim::check_invariants`](crate::HybridSim::check_invariants).
    pub violations: Vec<String>,
}

/// The counts a run keeps besides its records and accounts.
pub(crate) struct Counts {
    pub(crate) invalid: usize,
    pub(crate) rejected: usize,
    pub(crate) node_failures: usize,
    pub(crate) guest_starts: usize,
}

/// The mean of `xs` through [`cosched_core::stats::mean`], NaN for none.
fn mean_or_nan(xs: &[f64]) -> f64 {
    cosched_core::stats::mean(xs).unwrap_or(f64::NAN)
}

/// The paper's metrics (§IV-D) of a finished run.
///
/// One pass over the records and one over the accounts (and [`waiting`]'s): each sample is
/// gathered in the records' order and averaged by [`cosched_core::stats::mean`], so every
/// figure is the one a pass per metric gives.
pub(crate) fn report(
    config: &HybridConfig,
    label: &str,
    records: &[JobRecord],
    accounts: &[JobAccount],
    (usage, overhead): (&UsageLedger, &UsageLedger),
    counts: Counts,
) -> HybridReport {
    let ratio = |hit: usize, n: usize| {
        if n == 0 {
            f64::NAN
        } else {
            hit as f64 / n as f64
        }
    };
    let r = RecordSums::of(records, accounts);
    let a = AccountSums::of(accounts);
    let first = r.first.unwrap_or(Time::ZERO);
    let last = r.last_end.unwrap_or(first);
    let last_submit = r.last_submit.unwrap_or(first);
    let nodes = u64::from(config.nodes);
    let useful = |from, to| usage.useful_utilization(Pool::Batch, nodes, from, to);
    let work = usage
        .useful_within(Pool::Batch, first, last_submit)
        .zip(overhead.within(Pool::Batch, UsageKind::Busy, first, last_submit))
        .and_then(|(useful, overhead)| {
            cosched_core::usage::ratio(useful - overhead, nodes, first, last_submit)
        });
    let (queue_share, waiting_nodes) = waiting(records, nodes, first, last_submit);
    let share = |(hits, n): (usize, usize)| ratio(hits, n);
    HybridReport {
        mechanism: label.to_string(),
        jobs: records.len() + counts.invalid,
        invalid: counts.invalid,
        completed: r.completed,
        rejected: counts.rejected,
        on_demand: r.on_demand,
        instant_starts: r.instant_starts,
        instant_start_ratio: ratio(r.instant_starts, r.on_demand),
        on_demand_mean_wait_s: mean_or_nan(&r.waits),
        turnaround_h: mean_or_nan(&r.hours),
        batch_turnaround_h: mean_or_nan(&r.batch_hours),
        rigid_turnaround_h: mean_or_nan(&r.rigid_hours),
        malleable_turnaround_h: mean_or_nan(&r.malleable_hours),
        on_demand_turnaround_h: mean_or_nan(&r.on_demand_hours),
        rigid_preempted_ratio: share(a.rigid_preempted),
        malleable_preempted_ratio: share(a.malleable_preempted),
        rigid_evicted_ratio: share(a.rigid_evicted),
        malleable_evicted_ratio: share(a.malleable_evicted),
        preemptions: a.preemptions,
        evictions: a.evictions,
        failure_interruptions: a.failures,
        shrinks: a.shrinks,
        expansions: a.expansions,
        node_failures: counts.node_failures,
        guest_starts: counts.guest_starts,
        wasted_node_hours: a.wasted / 3_600.0,
        utilization: useful(first, last).unwrap_or(f64::NAN),
        window_utilization: useful(first, last_submit).unwrap_or(f64::NAN),
        window_work_utilization: work.unwrap_or(f64::NAN),
        window_held_utilization: usage
            .utilization(Pool::Batch, UsageKind::Busy, nodes, first, last_submit)
            .unwrap_or(f64::NAN),
        offered_load: cosched_core::usage::ratio(a.required, nodes, first, last_submit)
            .unwrap_or(f64::NAN),
        window_queue_share: queue_share,
        window_waiting_nodes: waiting_nodes,
    }
}

/// What the report reads of the records (and of the on-demand jobs' accounts), in one pass.
#[derive(Default)]
struct RecordSums {
    /// Turnarounds in hours: of every job, of batch (rigid and malleable) jobs, of rigid,
    /// malleable and on-demand jobs.
    hours: Vec<f64>,
    batch_hours: Vec<f64>,
    rigid_hours: Vec<f64>,
    malleable_hours: Vec<f64>,
    on_demand_hours: Vec<f64>,
    /// On-demand jobs' waits (arrival to first start), seconds.
    waits: Vec<f64>,
    on_demand: usize,
    instant_starts: usize,
    completed: usize,
    first: Option<Time>,
    last_submit: Option<Time>,
    last_end: Option<Time>,
}

impl RecordSums {
    fn of(records: &[JobRecord], accounts: &[JobAccount]) -> RecordSums {
        let mut s = RecordSums {
            hours: Vec::with_capacity(records.len()),
            ..RecordSums::default()
        };
        for (k, r) in records.iter().enumerate() {
            s.first = Some(s.first.map_or(r.submit, |t| t.min(r.submit)));
            s.last_submit = Some(s.last_submit.map_or(r.submit, |t| t.max(r.submit)));
            if let Some(end) = r.end {
                s.completed += 1;
                s.last_end = Some(s.last_end.map_or(end, |t| t.max(end)));
            }
            let hours = r.turnaround().map(|d| d.as_hours_f64());
            if let Some(h) = hours {
                s.hours.push(h);
            }
            let class_hours = match r.class {
                JobClass::Rigid => &mut s.rigid_hours,
                JobClass::Malleable => &mut s.malleable_hours,
                JobClass::OnDemand => &mut s.on_demand_hours,
            };
            class_hours.extend(hours);
            if r.class != JobClass::OnDemand {
                s.batch_hours.extend(hours);
                continue;
            }
            // The on-demand jobs paired with their accounts (records and accounts are in the
            // same order; a record without an account counts as no job).
            let Some(a) = accounts.get(k) else {
                continue;
            };
            s.on_demand += 1;
            s.instant_starts += usize::from(r.start == Some(r.submit) && a.failures == 0);
            s.waits.extend(r.wait().map(|w| w.0 as f64));
        }
        s
    }
}

/// What the report reads of the accounts, in one pass.
struct AccountSums {
    /// (hits, jobs) of rigid and malleable jobs preempted (or failed) at least once, and
    /// evicted at least once.
    rigid_preempted: (usize, usize),
    malleable_preempted: (usize, usize),
    rigid_evicted: (usize, usize),
    malleable_evicted: (usize, usize),
    preemptions: usize,
    evictions: usize,
    failures: usize,
    shrinks: usize,
    expansions: usize,
    /// Wasted node-seconds, summed in order as `Iterator::sum` does (from -0.0).
    wasted: f64,
    /// Required node-seconds.
    required: i128,
}

impl AccountSums {
    fn of(accounts: &[JobAccount]) -> AccountSums {
        let mut s = AccountSums {
            rigid_preempted: (0, 0),
            malleable_preempted: (0, 0),
            rigid_evicted: (0, 0),
            malleable_evicted: (0, 0),
            preemptions: 0,
            evictions: 0,
            failures: 0,
            shrinks: 0,
            expansions: 0,
            wasted: -0.0,
            required: 0,
        };
        for a in accounts {
            let count = |(hits, n): &mut (usize, usize), hit: bool| {
                *hits += usize::from(hit);
                *n += 1;
            };
            let preempted = a.preemptions + a.failures > 0;
            match a.class {
                JobClass::Rigid => {
                    count(&mut s.rigid_preempted, preempted);
                    count(&mut s.rigid_evicted, a.evictions > 0);
                }
                JobClass::Malleable => {
                    count(&mut s.malleable_preempted, preempted);
                    count(&mut s.malleable_evicted, a.evictions > 0);
                }
                JobClass::OnDemand => {}
            }
            s.preemptions += a.preemptions as usize;
            s.evictions += a.evictions as usize;
            s.failures += a.failures as usize;
            s.shrinks += a.shrinks as usize;
            s.expansions += a.expansions as usize;
            s.wasted += a.wasted as f64;
            s.required += i128::from(a.required);
        }
        s
    }
}

/// Over `from..to`: the share of the time some job of `records` waits for its first start,
/// and the nodes those jobs request averaged over the time, per node of `nodes` (NaN for an
/// empty window). A job never started waits until `to`.
fn waiting(records: &[JobRecord], nodes: u64, from: Time, to: Time) -> (f64, f64) {
    // In i128: a hostile trace may span the whole clock.
    let span = i128::from(to.0) - i128::from(from.0);
    if span <= 0 || nodes == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mut waits: Vec<(i128, i128, u32)> = records
        .iter()
        .filter_map(|r| {
            let (a, b) = (r.submit.max(from), r.start.unwrap_or(to).min(to));
            (b > a).then_some((i128::from(a.0), i128::from(b.0), r.size))
        })
        .collect();
    waits.sort_unstable();
    let (mut covered, mut reach) = (0i128, i128::MIN);
    let mut node_seconds = 0f64;
    for &(a, b, size) in &waits {
        node_seconds += f64::from(size) * (b - a) as f64;
        if b > reach {
            covered += b - a.max(reach);
            reach = b;
        }
    }
    (
        covered as f64 / span as f64,
        node_seconds / (nodes as f64 * span as f64),
    )
}
