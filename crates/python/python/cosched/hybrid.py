"""Hybrid workload scheduling (Fan, Lan, Rich, Allcock, Papka, IPDPS 2022) from Python.

One system runs rigid and malleable batch jobs under FCFS + EASY and on-demand jobs that must
start at their arrival; :func:`mechanisms` runs the baseline (FCFS/EASY, no special treatment)
and the six mechanisms (the notice strategies N, CUA, CUP × the on-arrival mechanisms PAA,
SPAA; §III-B) on one typing of one trace, as each replicate of the ``hybrid_fig6_7`` example:
a generated Theta-like or Cori-like trace (the paper's logs are not public; ours, calibrated on
Table III's baseline row) or the caller's workload, typed by project (10 % on-demand, 60 %
rigid, 30 % malleable projects) with a notice mix (Table II: W1–W5).

>>> from cosched import hybrid
>>> df = hybrid.mechanisms("theta", quick=True, seed=1)      # doctest: +SKIP
>>> df[["mechanism", "instant_start_ratio", "window_utilization", "turnaround_h"]]
"""

from __future__ import annotations

import json
from typing import Optional

import pandas as pd

from . import _cosched
from ._cosched import Workload

__all__ = ["MIXES", "mechanisms"]

MIXES = ("W1", "W2", "W3", "W4", "W5")


def mechanisms(
    machine: str = "theta",
    *,
    quick: bool = False,
    seed: int = 1,
    typing: int = 0,
    mix: str = "W5",
    trace: Optional[Workload] = None,
    nodes: Optional[int] = None,
) -> pd.DataFrame:
    """The baseline and the six mechanisms on one typed trace: one row each (``mechanism``,
    then the report's metrics: ``instant_start_ratio``, ``window_utilization`` (the paper's
    utilisation over the arrival window), ``turnaround_h``, the preempted shares and the
    counts; NaN where a mean has no job). ``machine``: ``"theta"`` (4,392 nodes, the 2019
    log's year; ``quick``: 3,000 jobs) or ``"cori"`` (12,076 nodes, the 2018 log's four
    months, 2.6 M jobs; ``quick``: 20,000 jobs), generated from ``seed``; or ``trace`` on
    ``nodes`` nodes (default: the size it states; its group, else user, ids as projects).
    ``typing``: which typing of ``seed`` (the paper averages ten)."""
    rows = _cosched.hybrid_mechanisms(machine, quick=quick, seed=seed, typing=typing, mix=mix,
                                      trace=trace, nodes=nodes)
    df = pd.DataFrame([json.loads(report) for _, report in rows])
    df.insert(0, "mix", mix)
    return df
