"""The Balancer (Liu, Keahey, Riteau, Weissman, SC18) on its real week, from Python.

One cluster (304 LCRC batch + 68 APS on-demand nodes, §III-A) whose idle nodes move between a
batch pool and an on-demand pool. :func:`paper_week` is Table I's week (LCRC 2015-04-05,
preloaded with the jobs of 2015-03-29 still running at its end, beside the APS stand-in
2015-07-19, whose 2015-04-05 file is in no public copy; shipped with the package);
:func:`table1` runs Table I's ten columns on it; :func:`simulate` runs any built-in policy of
the Balancer's protocol (:func:`all_batch`, :func:`dedicated`, :func:`all_on_demand`,
:func:`basic`, :func:`hint`, :func:`predictive`) and policies written in Python beside them,
on the same inputs, under the same models (by default the testbed's Maui over Torque at 60x
with the start latency calibrated on Table I's baseline rows, 14 s; ``batch="ideal"``: EASY at
every instant, ours).

>>> from cosched import balancer
>>> week = balancer.paper_week()
>>> t = balancer.table1(week)            # doctest: +SKIP
>>> t[["config", "R_nodes", "W_min", "mean_batch_wait_min", "paper_mean_batch_wait_min"]]

A policy written in Python has ``observe(now, observation, view)`` and optionally
``start(now, view)``, ``wake(now, view)`` and ``next_wake()``; each returns a list of commands
(or ``None``). Observations are tuples: ``("request", request, nodes, wait_s)``,
``("cancel", request)``, ``("release", [nodes])``, ``("job_starting", [nodes])``,
``("job_ended", [nodes])``, ``("hint", by, nodes)``, ``("reserve_target", nodes, until)``,
``("availability", node, available)``. Commands: ``("reclaim", node)``, ``("restore", node)``,
``("grant", request, [nodes])``, ``("reject", request)``. The view
(:class:`BalancerView`) is a read-only copy of the nodes' states (``batch_idle``,
``batch_busy``, ``od_free``, ``od_allocated``, ``unavailable``). Optional attributes:
``static_reserve`` (nodes batch never gets: wider jobs count as too wide), ``hints`` (deliver
the requests' notices as ``hint`` observations), ``name``. A wrong command (a node that does
not exist or is not in the state the command needs, a request that is not waiting, a grant of
more nodes than are free on-demand) raises :class:`cosched.CommandError` naming it; an
exception inside the policy propagates as itself, with its traceback.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from . import _cosched
from ._cosched import BalancerView, BalancerWeek

__all__ = [
    "BalancerView",
    "BalancerWeek",
    "Builtin",
    "Result",
    "all_batch",
    "all_on_demand",
    "basic",
    "dedicated",
    "hint",
    "history_weeks",
    "paper_week",
    "predictive",
    "read_week",
    "simulate",
    "summary",
    "table1",
]


def _data(name: str) -> str:
    return str(resources.files("cosched").joinpath("data", "balancer", *name.split("/")))


# The APS weeks before the stand-in, oldest first: the Predictive algorithm's training
# (§III-B5), as the examples use them (`cosched_balancer::table1::HISTORY_FILES`).
_HISTORY_WEEKS = ("2015-06-14", "2015-06-21", "2015-06-28", "2015-07-05", "2015-07-12")


def history_weeks() -> List[str]:
    """The shipped APS weekly files of the five weeks before the stand-in, oldest first: the
    Predictive algorithm's offline training (§III-B5), as the Rust examples train it."""
    return [_data(f"aps/{w}.csv.gz") for w in _HISTORY_WEEKS]


def read_week(lcrc, aps, preload=None, *, history: Sequence[Any] = (),
              vm_linger_s: int = 480) -> BalancerWeek:
    """A week from its LCRC and APS weekly CSV files (plain or gzip), preloaded with the jobs
    of the ``preload`` LCRC week still running at its end, with the APS weekly files of
    ``history`` (oldest first, the last one the week just before ``aps``'s) as the Predictive
    algorithm's training (§III-B5; none: it learns from the week alone); APS VMs kept
    ``vm_linger_s`` once no longer needed (ours, fitted to Table I's lease facts; 0 is
    §III-A's literal packing)."""
    return BalancerWeek.read(str(lcrc), str(aps), None if preload is None else str(preload),
                             history=[str(h) for h in history], vm_linger_s=vm_linger_s)


def paper_week(*, history: Optional[Sequence[Any]] = None,
               vm_linger_s: int = 480) -> BalancerWeek:
    """Table I's week (§III-A): LCRC 2015-04-05 preloaded from 2015-03-29, beside the APS
    stand-in 2015-07-19, with the five APS weeks before the stand-in as the Predictive
    algorithm's training (:func:`history_weeks`; pass ``history`` for others, ``()`` for
    none)."""
    return read_week(_data("lcrc/2015-04-05.csv.gz"), _data("aps/2015-07-19.csv.gz"),
                     _data("lcrc/2015-03-29.csv.gz"),
                     history=history_weeks() if history is None else history,
                     vm_linger_s=vm_linger_s)


@dataclass(frozen=True)
class Builtin:
    """A built-in policy of the Balancer's protocol: ``kind`` with reserve or pool ``r``
    (nodes) and wait window ``w_min`` (minutes)."""

    kind: str
    r: int = 0
    w_min: int = 0
    name: Optional[str] = None

    def label(self) -> str:
        return self.name or (self.kind if self.kind in ("all-batch",) else
                             f"{self.kind} R={self.r} W={self.w_min}")


def all_batch() -> Builtin:
    """No on-demand pool: every request rejected (Table I's all-batch column)."""
    return Builtin("all-batch", name="all-batch")


def dedicated(pool: int = 68, w_min: int = 0) -> Builtin:
    """A dedicated on-demand pool of ``pool`` nodes (Table I's split: 68)."""
    return Builtin("dedicated", pool, w_min, name=f"split R={pool} W={w_min}")


def all_on_demand(w_min: int = 0) -> Builtin:
    """Every node on-demand; batch jobs never run."""
    return Builtin("all-on-demand", 0, w_min, name=f"all-on-demand W={w_min}")


def basic(r: int = 12, w_min: int = 0) -> Builtin:
    """The Basic Balancer (Algorithm 1) with static reserve ``r`` and window ``w_min``
    (§II-C1)."""
    return Builtin("basic", r, w_min, name=f"basic R={r} W={w_min}")


def hint(w_min: int = 0) -> Builtin:
    """The Hint Balancer: the requests' notices are its hints (§II-C2)."""
    return Builtin("hint", 0, w_min, name=f"hint W={w_min}")


def predictive(w_min: int = 0) -> Builtin:
    """The Predictive Balancer (§II-C3; peaks combined by their maximum, ours), trained on the
    week's history (§III-B5: :func:`paper_week`'s five APS weeks before the stand-in; a week
    read without ``history`` has none: it learns from the week alone)."""
    return Builtin("predictive", 0, w_min, name=f"predictive W={w_min}")


_NAMED = {"all-batch": all_batch, "split": dedicated, "dedicated": dedicated,
          "all-on-demand": all_on_demand, "basic": basic, "hint": hint,
          "predictive": predictive}


@dataclass
class Result:
    """One run: ``report`` (the simulator's report, nested), ``summary`` (it flattened: one
    row), ``jobs`` (the batch jobs in Batsim's ``_jobs.csv`` columns), ``requests`` (one row
    per lease request: granted time and wait, empty when rejected), ``elapsed_s``."""

    policy: str
    report: Dict[str, Any]
    summary: pd.DataFrame
    jobs: pd.DataFrame
    requests: pd.DataFrame
    elapsed_s: float


def _result(out: Any) -> Result:
    report = json.loads(out.report_json)
    row = pd.json_normalize(report)
    row.insert(0, "policy", out.policy)
    return Result(
        policy=out.policy,
        report=report,
        summary=row,
        jobs=pd.read_csv(io.StringIO(out.jobs_csv)),
        requests=pd.read_csv(io.StringIO(out.requests_csv), dtype={"granted": "Int64",
                                                                   "wait_s": "Int64"}),
        elapsed_s=out.elapsed_s,
    )


def _models(nodes, batch, start_latency_s, idle_hold_s) -> Dict[str, Any]:
    return dict(nodes=int(nodes), batch=batch, start_latency_s=int(start_latency_s),
                idle_hold_s=int(idle_hold_s))


def simulate(
    week: Optional[BalancerWeek] = None,
    policies: Union[str, Builtin, Any, Sequence[Union[str, Builtin, Any]]] = "basic",
    *,
    nodes: int = 372,
    batch: str = "testbed",
    start_latency_s: int = 14,
    idle_hold_s: int = 600,
) -> Union[Result, Dict[str, Result]]:
    """Simulates ``week`` (default :func:`paper_week`) under each policy: a built-in
    (:class:`Builtin`, or its name with its defaults: ``"all-batch"``, ``"split"``,
    ``"all-on-demand"``, ``"basic"``, ``"hint"``, ``"predictive"``) or an object written in
    Python (see the module docs). Built-ins run in parallel without the GIL. ``idle_hold_s``
    is ``I`` (how long an unused on-demand node is held before it returns to batch). Returns a
    :class:`Result` for one policy, a dict by name for a list."""
    week = week if week is not None else paper_week()
    single = not isinstance(policies, (list, tuple))
    items = [policies] if single else list(policies)
    models = _models(nodes, batch, start_latency_s, idle_hold_s)
    specs = []
    for p in items:
        if isinstance(p, str):
            if p not in _NAMED:
                raise ValueError(f"policy {p!r}: expected one of {', '.join(_NAMED)}")
            p = _NAMED[p]()
        if isinstance(p, Builtin):
            specs.append((p.kind, int(p.r), int(p.w_min), p.label()))
    built = iter(_cosched.simulate_balancer_builtin(week, specs, **models))
    runs: Dict[str, Result] = {}
    for p in items:
        if isinstance(p, (str, Builtin)):
            run = _result(next(built))
        else:
            if not callable(getattr(p, "observe", None)):
                raise TypeError(f"{p!r} is neither a built-in policy nor an object with observe()")
            name = getattr(p, "name", None) or type(p).__name__
            run = _result(_cosched.simulate_balancer_policy(
                week, p, name, static_reserve=int(getattr(p, "static_reserve", 0)),
                hints=bool(getattr(p, "hints", False)), **models))
        runs[run.policy] = run
    return next(iter(runs.values())) if single else runs


def summary(runs: Dict[str, Result]) -> pd.DataFrame:
    """The runs' summaries, one row per policy."""
    return pd.concat([r.summary for r in runs.values()], ignore_index=True)


def table1(
    week: Optional[BalancerWeek] = None,
    *,
    nodes: int = 372,
    batch: str = "testbed",
    start_latency_s: int = 14,
    idle_hold_s: int = 600,
) -> pd.DataFrame:
    """Table I (§III-A) on ``week`` (default :func:`paper_week`): its ten columns (all-batch,
    the 304 + 68 split, all on-demand, the Basic Balancer at seven ``(R, W)``), ours beside the
    paper's, with the columns the ``balancer_table1`` example writes. The baseline rows
    (all-batch, split) are the testbed's calibration targets; the dynamic rows predictions."""
    week = week if week is not None else paper_week()
    rows = []
    for config, r, w, p_wait, p_rej, p_util, out in _cosched.balancer_table1(
            week, **_models(nodes, batch, start_latency_s, idle_hold_s)):
        rep = json.loads(out.report_json)
        rows.append({
            "config": config,
            "R_nodes": r,
            "W_min": w,
            "mean_batch_wait_min": (rep["batch"]["overall"]["mean_wait_s"] / 60.0
                                    if rep["batch"]["completed"] > 0 else float("nan")),
            "od_requests": rep["on_demand"]["requests"],
            "od_rejections": rep["on_demand"]["rejected"],
            "utilization": rep["combined_utilization"],
            "week": week.name,
            "batch_utilization": rep["batch_utilization"],
            "od_utilization": rep["on_demand_utilization"],
            "too_wide_jobs": rep["too_wide"],
            "preloaded_jobs": rep["preloaded_jobs"],
            "reserve_idle_node_h": rep["reserve_idle_node_hours"],
            "paper_mean_batch_wait_min": p_wait,
            "paper_od_rejections": p_rej,
            "paper_utilization": p_util / 100.0,
        })
    return pd.DataFrame(rows)
