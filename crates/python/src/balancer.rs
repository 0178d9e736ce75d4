//! The Balancer (Liu et al., SC18) from Python: a real week (an LCRC batch week, its preload
//! and an APS week as VM leases, §III-A) simulated under the built-in policies of the
//! Balancer's protocol (Table I's columns, the Hint and Predictive Balancers, the static
//! baselines) and under policies written in Python, on the same inputs.
//!
//! A Python policy of this protocol is an object with `observe(now, observation, view)` and
//! optionally `start(now, view)`, `wake(now, view)` and `next_wake()`; each returns its
//! commands (a list, or `None`). Observations and commands are tuples:
//!
//! | observation | |
//! |---|---|
//! | `("request", request, nodes, wait_s or None)` | `request_nodes(n)` |
//! | `("cancel", request)` | a waiting request withdrawn |
//! | `("release", [node, ...])` | on-demand work on these nodes is over |
//! | `("job_starting", [node, ...])`, `("job_ended", [node, ...])` | `update_nodes` |
//! | `("hint", by, nodes)`, `("reserve_target", nodes, until)` | `add_reserve` |
//! | `("availability", node, available)` | a node down or back |
//!
//! Commands: `("reclaim", node)`, `("restore", node)`, `("grant", request, [node, ...])`,
//! `("reject", request)`. Each is checked before the simulator applies it: a node that does
//! not exist or is in the wrong state, a request that is not waiting, a grant of more nodes
//! than are free on-demand or than asked for raise [`crate::CommandError`] naming it.

use crate::policy::{PyObjectPolicy, into_py_err};
use crate::{CommandError, CoschedError};
use cosched_balancer::policy::{DEFAULT_IDLE_HOLD, RmNode, RmNodeState};
use cosched_balancer::predictor::{Combine, PredictiveHold};
use cosched_balancer::report::SimOutcome;
use cosched_balancer::scenario::{Arm, BatchSource, OnDemandSource, RealWeek, Scenario};
use cosched_balancer::sim::{SimError, Simulation};
use cosched_balancer::table1::{COLUMNS, FITTED_LINGER_S, TESTBED_START_LATENCY_S};
use cosched_balancer::testbed::{BatchCycle, MauiTorque};
use cosched_balancer::workload::Workload;
use cosched_balancer::{Command, Observation, Policy};
use cosched_cli::jobs_csv::{self, WorkloadInfo};
use cosched_core::{Duration, LeaseId, NodeId, Time};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// A real week (§III-A): the LCRC batch jobs, the jobs still running from the week before,
/// and the APS week's single-core jobs packed into 16-core VM leases.
#[pyclass(frozen, module = "cosched.balancer")]
pub struct BalancerWeek {
    week: RealWeek,
}

#[pymethods]
impl BalancerWeek {
    /// Reads the week from its LCRC and APS files (CSV, plain or gzip), preloaded with the
    /// jobs of the `preload` LCRC week still running at its end, with the APS weekly files of
    /// `history` (oldest first, the last the week just before) as the Predictive algorithm's
    /// training (§III-B5); APS VMs kept `vm_linger_s` once no longer needed (ours, fitted to
    /// Table I's lease facts: 480; 0 is §III-A's text).
    #[staticmethod]
    #[pyo3(signature = (lcrc, aps, preload=None, *, history=Vec::new(), vm_linger_s=FITTED_LINGER_S))]
    fn read(
        py: Python<'_>,
        lcrc: PathBuf,
        aps: PathBuf,
        preload: Option<PathBuf>,
        history: Vec<PathBuf>,
        vm_linger_s: i64,
    ) -> PyResult<BalancerWeek> {
        if vm_linger_s < 0 {
            return Err(PyValueError::new_err("vm_linger_s must be >= 0"));
        }
        let linger = Duration(vm_linger_s);
        let week = py
            .detach(|| {
                RealWeek::read_with_linger(0, &lcrc, &aps, preload.as_deref(), linger)?
                    .with_history(&history, linger)
            })
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(BalancerWeek { week })
    }

    /// The LCRC file's week (`2015-04-05`).
    #[getter]
    fn name(&self) -> &str {
        &self.week.name
    }
    /// Batch jobs of the week.
    #[getter]
    fn jobs(&self) -> usize {
        self.week.jobs.len()
    }
    /// Jobs running at the start (from the week before).
    #[getter]
    fn preloaded(&self) -> usize {
        self.week.preload.len()
    }
    /// The earlier weeks' VM lease requests (the Predictive algorithm's training).
    #[getter]
    fn history_leases(&self) -> usize {
        self.week.history.len()
    }
    /// The VM lease requests as CSV (`request_id,submit,nodes,duration_s`).
    fn leases_csv(&self) -> String {
        let mut out = String::from("request_id,submit,nodes,duration_s\n");
        for l in &self.week.leases {
            let _ = writeln!(
                out,
                "{},{},{},{}",
                l.id.0, l.submit.0, l.nodes, l.duration.0
            );
        }
        out
    }
    fn __repr__(&self) -> String {
        format!(
            "BalancerWeek({}: {} jobs, {} preloaded, {} VM requests, {} before)",
            self.week.name,
            self.week.jobs.len(),
            self.week.preload.len(),
            self.week.leases.len(),
            self.week.history.len()
        )
    }
}

/// One run's outputs: the report (JSON), the batch jobs (Batsim's `_jobs.csv` columns) and
/// the lease requests (CSV).
#[pyclass(frozen, module = "cosched.balancer")]
pub struct BalancerRun {
    /// The policy's name.
    #[pyo3(get)]
    policy: String,
    /// The report ([`cosched_balancer::report::SimReport`]) as JSON.
    #[pyo3(get)]
    report_json: String,
    /// The batch jobs, as `cosched simulate` writes `P_jobs.csv`.
    #[pyo3(get)]
    jobs_csv: String,
    /// One row per lease request: `request_id,submit,nodes,duration_s,granted,wait_s`.
    #[pyo3(get)]
    requests_csv: String,
    /// Wall time of the simulation, seconds.
    #[pyo3(get)]
    elapsed_s: f64,
}

fn outputs(
    week: &RealWeek,
    name: &str,
    o: &SimOutcome,
    elapsed_s: f64,
) -> Result<BalancerRun, String> {
    let info = WorkloadInfo {
        name: &week.name,
        jobs: &week.jobs,
        profiles: None,
    };
    let mut jobs = Vec::new();
    jobs_csv::write(&mut jobs, &info, &o.records, o.report.nodes).map_err(|e| e.to_string())?;
    let mut requests = String::from("request_id,submit,nodes,duration_s,granted,wait_s\n");
    for r in &o.requests {
        let q = r.request;
        let (granted, wait) = r.granted.map_or((String::new(), String::new()), |g| {
            (g.0.to_string(), g.0.saturating_sub(q.submit.0).to_string())
        });
        let _ = writeln!(
            requests,
            "{},{},{},{},{granted},{wait}",
            q.id.0, q.submit.0, q.nodes, q.duration.0
        );
    }
    Ok(BalancerRun {
        policy: name.to_owned(),
        report_json: serde_json::to_string(&o.report).map_err(|e| e.to_string())?,
        jobs_csv: String::from_utf8(jobs).map_err(|e| e.to_string())?,
        requests_csv: requests,
        elapsed_s,
    })
}

/// The models every run of a call shares (Table I's: 372 nodes, `I` = 10 min, the testbed's
/// Maui over Torque at 60x with the calibrated start latency).
struct Models {
    scenario: Scenario,
}

impl Models {
    fn new(nodes: u32, batch: &str, start_latency_s: i64, idle_hold_s: i64) -> PyResult<Models> {
        if nodes == 0 {
            return Err(PyValueError::new_err("nodes must be at least 1"));
        }
        if !(0..=86_400).contains(&start_latency_s) {
            return Err(PyValueError::new_err(
                "start_latency_s must be in 0..=86400",
            ));
        }
        if !(0..=10 * 366 * 86_400).contains(&idle_hold_s) {
            return Err(PyValueError::new_err(
                "idle_hold_s must be in 0 s ..= 10 years",
            ));
        }
        let batch_cycle = match batch {
            "testbed" => BatchCycle::Maui(MauiTorque::testbed(Duration(start_latency_s))),
            "ideal" => BatchCycle::Immediate,
            other => {
                return Err(PyValueError::new_err(format!(
                    "batch {other:?}: expected testbed or ideal"
                )));
            }
        };
        Ok(Models {
            scenario: Scenario {
                nodes,
                // The week is given: the sources are not read.
                batch: BatchSource::Lcrc(Vec::new()),
                on_demand: OnDemandSource::Aps(Vec::new()),
                idle_hold: Duration(idle_hold_s),
                vm_linger: Duration::ZERO,
                history: Vec::new(),
                batch_cycle,
            },
        })
    }

    /// The built-in arm `kind` with reserve or pool `r` and window `w_min` minutes.
    fn arm(&self, kind: &str, r: u32, w_min: i64) -> PyResult<Arm> {
        if !(0..=10 * 366 * 24 * 60).contains(&w_min) {
            return Err(PyValueError::new_err("w_min must be in 0 ..= 10 years"));
        }
        let (s, w) = (&self.scenario, Duration::from_mins(w_min));
        Ok(match kind {
            "all-batch" => Arm::all_batch(),
            "dedicated" => Arm::dedicated(r, w),
            "all-on-demand" => s.all_on_demand(w),
            "basic" => s.basic(r, w),
            "hint" => s.hint(w),
            "predictive" => s.predictive(Combine::Max, PredictiveHold::Slot, w, s.idle_hold),
            other => {
                return Err(PyValueError::new_err(format!(
                    "policy {other:?}: expected all-batch, dedicated, all-on-demand, basic, \
                     hint or predictive"
                )));
            }
        })
    }
}

/// Runs built-in policies `(kind, r, w_min, name)` on `week`, in parallel without the GIL.
#[pyfunction]
#[pyo3(signature = (week, specs, *, nodes=372, batch="testbed", start_latency_s=TESTBED_START_LATENCY_S, idle_hold_s=DEFAULT_IDLE_HOLD.0))]
pub fn simulate_balancer_builtin(
    py: Python<'_>,
    week: &BalancerWeek,
    specs: Vec<(String, u32, i64, String)>,
    nodes: u32,
    batch: &str,
    start_latency_s: i64,
    idle_hold_s: i64,
) -> PyResult<Vec<BalancerRun>> {
    let models = Models::new(nodes, batch, start_latency_s, idle_hold_s)?;
    let arms = specs
        .iter()
        .map(|(kind, r, w, name)| Ok((models.arm(kind, *r, *w)?, name.as_str())))
        .collect::<PyResult<Vec<_>>>()?;
    let week = &week.week;
    py.detach(|| {
        arms.par_iter()
            .map(|(arm, name)| {
                let clock = Instant::now();
                let outcome = models
                    .scenario
                    .run_week(arm, week)
                    .map_err(|e| format!("{name}: {e}"))?;
                outputs(week, name, &outcome, clock.elapsed().as_secs_f64())
            })
            .collect::<Result<Vec<_>, String>>()
    })
    .map_err(CoschedError::new_err)
}

/// Table I's ten columns on `week`: `(config, R, W_min, paper_wait_min, paper_rejections,
/// paper_combined_util_pct, run)` each.
#[pyfunction]
#[pyo3(signature = (week, *, nodes=372, batch="testbed", start_latency_s=TESTBED_START_LATENCY_S, idle_hold_s=DEFAULT_IDLE_HOLD.0))]
#[allow(clippy::type_complexity)]
pub fn balancer_table1(
    py: Python<'_>,
    week: &BalancerWeek,
    nodes: u32,
    batch: &str,
    start_latency_s: i64,
    idle_hold_s: i64,
) -> PyResult<Vec<(String, u32, i64, Option<f64>, u32, f64, BalancerRun)>> {
    let models = Models::new(nodes, batch, start_latency_s, idle_hold_s)?;
    let week = &week.week;
    let runs = py
        .detach(|| {
            COLUMNS
                .par_iter()
                .map(|c| {
                    let clock = Instant::now();
                    let outcome = models
                        .scenario
                        .run_week(&c.arm(&models.scenario), week)
                        .map_err(|e| format!("{}: {e}", c.label()))?;
                    outputs(week, &c.label(), &outcome, clock.elapsed().as_secs_f64())
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .map_err(CoschedError::new_err)?;
    Ok(COLUMNS
        .iter()
        .zip(runs)
        .map(|(c, run)| {
            (
                c.config.to_owned(),
                c.r,
                c.w_min,
                c.paper_wait_min,
                c.paper_rejections,
                c.paper_combined_util,
                run,
            )
        })
        .collect())
}

/// Runs the Python policy `policy` on `week`. `static_reserve`: nodes the policy never gives
/// batch (wider jobs are counted as too wide, as for a built-in with a reserve); `hints`: the
/// requests' notices are delivered as `("hint", by, nodes)` observations.
#[pyfunction]
#[pyo3(signature = (week, policy, name, *, nodes=372, batch="testbed", start_latency_s=TESTBED_START_LATENCY_S, idle_hold_s=DEFAULT_IDLE_HOLD.0, static_reserve=0, hints=false))]
#[allow(clippy::too_many_arguments)]
pub fn simulate_balancer_policy(
    week: &BalancerWeek,
    policy: Py<PyAny>,
    name: String,
    nodes: u32,
    batch: &str,
    start_latency_s: i64,
    idle_hold_s: i64,
    static_reserve: u32,
    hints: bool,
) -> PyResult<BalancerRun> {
    let models = Models::new(nodes, batch, start_latency_s, idle_hold_s)?;
    let week = &week.week;
    let sim = Simulation::new(nodes)
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .with_hints(hints)
        .with_batch_nodes(nodes - static_reserve.min(nodes))
        .with_label(name.clone())
        .with_batch_cycle(models.scenario.batch_cycle);
    let mut policy = PyBalancerPolicy::new(policy);
    let workload = Workload::new(&week.jobs, &week.leases).with_preload(&week.preload);
    let clock = Instant::now();
    let result = sim.run(&mut policy, &workload);
    let elapsed = clock.elapsed().as_secs_f64();
    policy.object.take_pending()?;
    let outcome = result.map_err(|e| match e {
        SimError::Policy(e) => into_py_err(e),
        SimError::GrantNotWaiting(_) | SimError::Execute(_) => {
            CommandError::new_err(format!("{name}: {e}"))
        }
        e => CoschedError::new_err(format!("{name}: {e}")),
    })?;
    outputs(week, &name, &outcome, elapsed).map_err(CoschedError::new_err)
}

/// A node state's name in Python.
fn state_name(s: RmNodeState) -> &'static str {
    match s {
        RmNodeState::BatchIdle => "batch_idle",
        RmNodeState::BatchBusy => "batch_busy",
        RmNodeState::OnDemandFree => "od_free",
        RmNodeState::OnDemandAllocated => "od_allocated",
        RmNodeState::Unavailable => "unavailable",
    }
}

const STATES: [RmNodeState; 5] = [
    RmNodeState::BatchIdle,
    RmNodeState::BatchBusy,
    RmNodeState::OnDemandFree,
    RmNodeState::OnDemandAllocated,
    RmNodeState::Unavailable,
];

/// The nodes as the resource managers report them at one call (a copy: read-only). Node `i`
/// is at position `i`; states are `batch_idle`, `batch_busy`, `od_free`, `od_allocated` and
/// `unavailable`.
#[pyclass(frozen, module = "cosched.balancer")]
pub struct BalancerView {
    states: Vec<RmNodeState>,
}

#[pymethods]
impl BalancerView {
    fn __len__(&self) -> usize {
        self.states.len()
    }
    /// Node `node`'s state.
    fn state(&self, node: usize) -> PyResult<&'static str> {
        self.states
            .get(node)
            .map(|&s| state_name(s))
            .ok_or_else(|| PyValueError::new_err(format!("node {node} does not exist")))
    }
    /// Every node's state, by node.
    fn states(&self) -> Vec<&'static str> {
        self.states.iter().map(|&s| state_name(s)).collect()
    }
    /// The nodes in `state`, ascending.
    fn nodes(&self, state: &str) -> PyResult<Vec<u32>> {
        let s = parse_state(state)?;
        Ok((0..self.states.len() as u32)
            .filter(|&i| self.states[i as usize] == s)
            .collect())
    }
    /// How many nodes are in `state`.
    fn count(&self, state: &str) -> PyResult<usize> {
        let s = parse_state(state)?;
        Ok(self.states.iter().filter(|&&x| x == s).count())
    }
    fn __repr__(&self) -> String {
        let counts: Vec<String> = STATES
            .iter()
            .map(|&s| {
                format!(
                    "{}={}",
                    state_name(s),
                    self.states.iter().filter(|&&x| x == s).count()
                )
            })
            .collect();
        format!("BalancerView({})", counts.join(", "))
    }
}

fn parse_state(state: &str) -> PyResult<RmNodeState> {
    STATES
        .iter()
        .copied()
        .find(|&s| state_name(s) == state)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "state {state:?}: expected batch_idle, batch_busy, od_free, od_allocated or unavailable"
            ))
        })
}

/// An observation as the Python tuple the module docs list.
fn observation<'py>(py: Python<'py>, o: &Observation) -> PyResult<Bound<'py, PyTuple>> {
    let ids = |nodes: &[NodeId]| nodes.iter().map(|n| n.0).collect::<Vec<u32>>();
    match o {
        Observation::Request {
            request,
            nodes,
            wait,
        } => ("request", request.0, *nodes, wait.map(|w| w.0)).into_pyobject(py),
        Observation::Cancel { request } => ("cancel", request.0).into_pyobject(py),
        Observation::Release { nodes } => ("release", ids(nodes)).into_pyobject(py),
        Observation::JobStarting { nodes } => ("job_starting", ids(nodes)).into_pyobject(py),
        Observation::JobEnded { nodes } => ("job_ended", ids(nodes)).into_pyobject(py),
        Observation::Hint { by, nodes } => ("hint", by.0, *nodes).into_pyobject(py),
        Observation::ReserveTarget { nodes, until } => {
            ("reserve_target", *nodes, until.0).into_pyobject(py)
        }
        Observation::Availability { node, available } => {
            ("availability", node.0, *available).into_pyobject(py)
        }
    }
}

/// A Python object driven as a policy of the Balancer's protocol.
pub struct PyBalancerPolicy {
    object: PyObjectPolicy,
    /// The requests waiting for an answer, with the nodes each asked for.
    waiting: HashMap<LeaseId, u32>,
}

impl PyBalancerPolicy {
    fn new(object: Py<PyAny>) -> PyBalancerPolicy {
        PyBalancerPolicy {
            object: PyObjectPolicy::new(object),
            waiting: HashMap::new(),
        }
    }

    /// Calls `method` with `(now, [observation,] view)` and appends its checked commands.
    fn call(
        &mut self,
        method: &str,
        now: Time,
        obs: Option<&Observation>,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> PyResult<()> {
        self.object.take_pending()?;
        let mut states: Vec<RmNodeState> = view.iter().map(|n| n.state).collect();
        Python::attach(|py| {
            let v = Py::new(
                py,
                BalancerView {
                    states: states.clone(),
                },
            )?;
            let o = self.object.object.bind(py);
            let answer = match obs {
                Some(obs) => o.call_method1(method, (now.0, observation(py, obs)?, v))?,
                None => o.call_method1(method, (now.0, v))?,
            };
            if answer.is_none() {
                return Ok(());
            }
            let at =
                |what: String| CommandError::new_err(format!("{method} at t={}s: {what}", now.0));
            for item in answer.try_iter()? {
                let item = item?;
                let command = parse_command(&item).map_err(&at)?;
                self.check(&command, &mut states).map_err(at)?;
                out.push(command);
            }
            Ok(())
        })
    }

    /// Checks `c` against the nodes' states (as this call's earlier commands left them) and
    /// the waiting requests, and applies it to both.
    fn check(&mut self, c: &Command, states: &mut [RmNodeState]) -> Result<(), String> {
        match c {
            Command::Reclaim(n) => {
                node_in(states, *n, RmNodeState::BatchIdle, "reclaim of")?;
                states[n.0 as usize] = RmNodeState::OnDemandFree;
            }
            Command::Restore(n) => {
                node_in(states, *n, RmNodeState::OnDemandFree, "restore of")?;
                states[n.0 as usize] = RmNodeState::BatchIdle;
            }
            Command::Reject { request } => {
                self.waiting.remove(request).ok_or_else(|| {
                    format!("reject of request {}, which is not waiting", request.0)
                })?;
            }
            Command::Grant { request, nodes } => {
                let asked = *self.waiting.get(request).ok_or_else(|| {
                    format!("grant of request {}, which is not waiting", request.0)
                })?;
                let free = states
                    .iter()
                    .filter(|&&s| s == RmNodeState::OnDemandFree)
                    .count();
                if nodes.len() > free {
                    return Err(format!(
                        "grant of {} nodes to request {}, but only {free} are free on-demand",
                        nodes.len(),
                        request.0
                    ));
                }
                if nodes.len() != asked as usize {
                    return Err(format!(
                        "grant of {} nodes to request {}, which asked for {asked}",
                        nodes.len(),
                        request.0
                    ));
                }
                for &n in nodes {
                    node_in(states, n, RmNodeState::OnDemandFree, "grant of")?;
                    states[n.0 as usize] = RmNodeState::OnDemandAllocated;
                }
                self.waiting.remove(request);
            }
        }
        Ok(())
    }
}

/// Checks that node `n` exists and is in state `want` (for a message starting with `verb`).
fn node_in(states: &[RmNodeState], n: NodeId, want: RmNodeState, verb: &str) -> Result<(), String> {
    let s = states.get(n.0 as usize).ok_or_else(|| {
        format!(
            "{verb} node {}, which does not exist ({} nodes)",
            n.0,
            states.len()
        )
    })?;
    if *s != want {
        return Err(format!(
            "{verb} node {}, which is {} (not {})",
            n.0,
            state_name(*s),
            state_name(want)
        ));
    }
    Ok(())
}

/// A command from its Python tuple.
fn parse_command(item: &Bound<'_, PyAny>) -> Result<Command, String> {
    let shape = || {
        format!(
            "{item} is not a command: expected (\"reclaim\", node), (\"restore\", node), \
             (\"grant\", request, [nodes]) or (\"reject\", request)"
        )
    };
    let t = item.cast::<PyTuple>().map_err(|_| shape())?;
    let kind: String = t
        .get_item(0)
        .and_then(|k| k.extract())
        .map_err(|_| shape())?;
    let int = |i: usize| -> Result<u64, String> {
        t.get_item(i)
            .and_then(|x| x.extract::<u64>())
            .map_err(|_| shape())
    };
    let node = |i: usize| -> Result<NodeId, String> {
        u32::try_from(int(i)?).map(NodeId).map_err(|_| shape())
    };
    match (kind.as_str(), t.len()) {
        ("reclaim", 2) => Ok(Command::Reclaim(node(1)?)),
        ("restore", 2) => Ok(Command::Restore(node(1)?)),
        ("reject", 2) => Ok(Command::Reject {
            request: LeaseId(int(1)?),
        }),
        ("grant", 3) => {
            let nodes: Vec<u32> = t
                .get_item(2)
                .and_then(|x| x.extract())
                .map_err(|_| shape())?;
            let mut seen = std::collections::HashSet::new();
            if let Some(d) = nodes.iter().find(|n| !seen.insert(**n)) {
                return Err(format!("grant names node {d} twice"));
            }
            Ok(Command::Grant {
                request: LeaseId(int(1)?),
                nodes: nodes.into_iter().map(NodeId).collect(),
            })
        }
        _ => Err(shape()),
    }
}

impl Policy for PyBalancerPolicy {
    type Observation = Observation;
    type Command = Command;
    type View = [RmNode];
    type Error = PyErr;

    fn start(&mut self, now: Time, view: &[RmNode], out: &mut Vec<Command>) -> PyResult<()> {
        self.waiting.clear();
        if self.object.has_start {
            self.call("start", now, None, view, out)?;
        }
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        obs: &Observation,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> PyResult<()> {
        match obs {
            Observation::Request { request, nodes, .. } => {
                self.waiting.insert(*request, *nodes);
            }
            Observation::Cancel { request } => {
                self.waiting.remove(request);
            }
            _ => {}
        }
        self.call("observe", now, Some(obs), view, out)
    }

    fn wake(&mut self, now: Time, view: &[RmNode], out: &mut Vec<Command>) -> PyResult<()> {
        if self.object.has_wake {
            self.call("wake", now, None, view, out)?;
        }
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        self.object.next_wake()
    }
}

/// Registers the Balancer's classes and functions in `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BalancerWeek>()?;
    m.add_class::<BalancerRun>()?;
    m.add_class::<BalancerView>()?;
    m.add_function(wrap_pyfunction!(simulate_balancer_builtin, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_balancer_policy, m)?)?;
    m.add_function(wrap_pyfunction!(balancer_table1, m)?)?;
    Ok(())
}
