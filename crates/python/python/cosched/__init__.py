"""cosched from Python: the cosched batch simulator, its policy catalogue, policies written in
Python, results as pandas DataFrames, and a Gymnasium environment (``cosched.gym``).

>>> import cosched
>>> w = cosched.read_trace(cosched.sample_trace())
>>> runs = cosched.simulate(w, ["fcfs+easy", "sjf+easy"])
>>> runs["sjf+easy"].summary["jobs"]
4961

Every run gives the numbers ``cosched simulate`` writes for the same trace and policy: the
per-job table in Batsim's ``_jobs.csv`` columns (which evalys reads), the summary row of
``summary.csv``, the report and the utilisation series.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import numpy as np
import pandas as pd

from . import _cosched
from ._cosched import BatchView, CommandError, CoschedError, Workload

__all__ = [
    "BatchView",
    "CommandError",
    "CoschedError",
    "Run",
    "Workload",
    "from_dataframe",
    "generate_lublin",
    "policies",
    "read_trace",
    "sample_trace",
    "simulate",
    "to_dataframe",
]


def sample_trace() -> str:
    """Path of the shipped SDSC-SP2 sample (4,961 jobs, 128 nodes; Parallel Workloads
    Archive)."""
    return str(resources.files("cosched").joinpath("data", "SDSC-SP2-sample-4961.swf.gz"))


def read_trace(path: Union[str, "os.PathLike[str]"]) -> Workload:
    """Reads an SWF trace (plain or gzip) or a Batsim JSON workload, as ``cosched simulate
    --trace`` reads it: invalid records are skipped and counted (``Workload.invalid``), the
    machine size is the one the file states (``Workload.capacity``)."""
    return Workload.read(str(path))


def generate_lublin(
    jobs: int,
    capacity: int,
    *,
    seed: int = 1,
    load: Optional[float] = None,
    stream: str = "typeless",
    max_estimate_hours: int = 36,
) -> Workload:
    """Lublin–Feitelson jobs with Tsafrir estimates, as ``cosched generate lublin`` writes them
    (same parameters and seed: the same jobs), arrivals scaled to offered ``load`` if given."""
    return Workload.lublin(
        jobs, capacity, seed=seed, load=load, stream=stream,
        max_estimate_hours=max_estimate_hours,
    )


# SWF column names (and common alternatives) accepted by `from_dataframe`.
_COLUMNS = {
    "id": ("job_id", "job_number", "id"),
    "submit": ("submit_time", "submission_time", "submit"),
    "size": ("requested_number_of_processors", "requested_number_of_resources",
             "allocated_processors", "number_of_allocated_processors", "size"),
    "runtime": ("run_time", "runtime", "execution_time"),
    "estimate": ("requested_time", "walltime", "estimate"),
}


def _column(df: pd.DataFrame, key: str) -> bytes:
    for name in _COLUMNS[key]:
        if name in df.columns:
            values = df[name].to_numpy()
            if np.issubdtype(values.dtype, np.floating) and np.isnan(values).any():
                raise ValueError(f"column {name} has missing values")
            return np.ascontiguousarray(values, dtype="<i8").tobytes()
    raise ValueError(f"no column for {key}: expected one of {', '.join(_COLUMNS[key])}")


def from_dataframe(
    df: pd.DataFrame, *, capacity: Optional[int] = None, name: str = "dataframe"
) -> Workload:
    """A workload from a DataFrame with SWF's columns (``job_id``, ``submit_time``,
    ``requested_number_of_processors`` (or ``allocated_processors``), ``run_time``,
    ``requested_time``; Batsim's names work too; optional ``user_id`` and ``group_id``, -1
    where absent). Rows that are not valid jobs are skipped and counted in ``invalid``, as the
    SWF reader does."""
    cols = {k: _column(df, k) for k in _COLUMNS}
    owners = {k: np.ascontiguousarray(df[c].fillna(-1), dtype="<i8").tobytes()
              for k, c in (("user", "user_id"), ("group", "group_id")) if c in df.columns}
    return Workload.from_columns(
        cols["id"], cols["submit"], cols["size"], cols["runtime"], cols["estimate"],
        capacity=capacity, name=name, **owners,
    )


def to_dataframe(workload: Workload) -> pd.DataFrame:
    """The workload's jobs: ``job_id``, ``submit_time``, ``size``, ``run_time``,
    ``requested_time``, ``user_id``, ``group_id`` (-1 where absent, as in SWF; int64 columns,
    no per-row Python work)."""
    cols = workload.columns()
    return pd.DataFrame({k: np.frombuffer(v, dtype="<i8") for k, v in cols.items()})


def policies() -> List[str]:
    """The catalogue's policy names (every order crossed with every backfilling rule), as
    ``cosched simulate --policy`` accepts them; ``@exact``/``@tsafrir`` estimates and
    ``expr(...)`` orders are accepted too."""
    return list(_cosched.policies())


@dataclass
class Run:
    """One policy's run: ``jobs`` (Batsim's ``_jobs.csv`` columns), ``summary`` (the
    ``summary.csv`` row), ``report`` (counts, span, utilisation, per-class summaries),
    ``utilization`` (the time series) and ``elapsed_s`` (the simulation's wall time)."""

    policy: str
    jobs: pd.DataFrame
    summary: Dict[str, Any]
    report: Dict[str, Any]
    utilization: pd.DataFrame
    elapsed_s: float
    jobs_csv: bytes


def _run(out: Any) -> Run:
    jobs_csv = out.jobs_csv
    return Run(
        policy=out.policy,
        jobs=pd.read_csv(io.BytesIO(jobs_csv), keep_default_na=True),
        summary=json.loads(out.summary_json),
        report=json.loads(out.report_json),
        utilization=pd.read_csv(io.StringIO(out.series_csv)),
        elapsed_s=out.elapsed_s,
        jobs_csv=jobs_csv,
    )


def _capacity(workload: Workload, capacity: Optional[int]) -> int:
    if capacity is not None:
        return int(capacity)
    if workload.capacity is None:
        raise ValueError(
            f"{workload.name} states no machine size: pass capacity= (units of the machine)"
        )
    return workload.capacity


def simulate(
    workload: Workload,
    policies: Union[str, Any, Sequence[Union[str, Any]]] = "easy",
    *,
    capacity: Optional[int] = None,
    resolution: Optional[int] = None,
) -> Union[Run, Dict[str, Run]]:
    """Simulates ``workload`` under each policy: a catalogue name (``"sjf+easy"``,
    ``"fcfs+conservative@exact"``, see :func:`policies`) or an object written in Python with
    ``observe(now, view)`` (see ``cosched.BatchView``) and optionally ``start``, ``wake`` and
    ``next_wake``. Catalogue policies run in parallel without the GIL.

    Returns a :class:`Run` for one policy, a dict by policy name for a list. ``capacity``
    defaults to the size the trace states; ``resolution`` is the time series' bin (seconds;
    by default chosen from the span, as the CLI does)."""
    single = isinstance(policies, str) or not isinstance(policies, (list, tuple))
    items: Iterable[Any] = [policies] if single else policies
    cap = _capacity(workload, capacity)
    names = [p for p in items if isinstance(p, str)]
    # Outputs come back in the order of `names`, each under the policy's canonical name.
    built = iter(_run(o) for o in _cosched.simulate_builtin(workload, names, cap, resolution))
    runs: Dict[str, Run] = {}
    for p in items:
        if isinstance(p, str):
            run = next(built)
        else:
            if not callable(getattr(p, "observe", None)):
                raise TypeError(f"{p!r} is neither a policy name nor an object with observe()")
            name = getattr(p, "name", None) or type(p).__name__
            run = _run(_cosched.simulate_policy(workload, p, cap, name, resolution))
        runs[run.policy] = run
    if single:
        return next(iter(runs.values()))
    return runs
