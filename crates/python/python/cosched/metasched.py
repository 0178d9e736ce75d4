"""The electricity-price-aware grid metascheduler (Murali & Vadhiyar) on the paper's XSEDE
setting, from Python.

Eight XSEDE systems with their June 2014 day-ahead electricity prices (§4.3.1, vendored), the
paper's public 4,100-job grid trace extended to the 10,000 jobs the paper measures (ours: jobs
generated to §4.3.1's stated figures from ``seed``), every job measured. :func:`table4` runs
Table 4's strategies (BS: every job at its submission site; INST: MCMF without predicted waits;
TWOPRICE: on-/off-peak prices; MCMF, the paper's, and MCMF weighing cost alone) on it, as one
seed of the ``metasched_table4`` example.

>>> from cosched import metasched
>>> t = metasched.table4(trace_jobs=500, total=600)       # doctest: +SKIP
>>> t[["strategy", "mean_response_min", "paper_response_min", "total_cost_usd"]]
"""

from __future__ import annotations

from typing import Optional, Tuple

import pandas as pd

from . import _cosched

__all__ = ["table4"]


def table4(
    *,
    trace_jobs: int = 4100,
    total: int = 10_000,
    seed: int = 1,
    w_t: Optional[float] = None,
    max_q: Optional[int] = None,
    sites: bool = False,
) -> "pd.DataFrame | Tuple[pd.DataFrame, pd.DataFrame]":
    """Table 4 (XSEDE rows): one row per strategy, ours beside the paper's (its response
    times and its dollars are for 10,000 jobs; ``paper_cost_per_job_usd`` = total / 10,000).
    ``trace_jobs``: the public trace's first jobs used (quick mode of the example: 500);
    ``total``: the jobs after the extension (quick: 600); ``w_t`` (default 0.25) and ``max_q``
    (default 2) the paper's. With ``sites=True`` also the per-site metrics (strategy, site,
    jobs submitted and run, utilisation, load, core-hours)."""
    rows, per_site = [], []
    for name, wt, mq, p_rt, p_cost, m in _cosched.metasched_table4(
            trace_jobs=trace_jobs, total=total, seed=seed, w_t=w_t, max_q=max_q):
        for s in m.pop("sites"):
            per_site.append({"strategy": name, **s})
        rows.append({
            "strategy": name, "w_t": wt, "max_q": mq,
            "jobs_measured": m["jobs_measured"], "jobs_rejected": m["jobs_rejected"],
            "mean_response_min": m["mean_response_s"] / 60.0,
            "total_cost_usd": m["total_cost_usd"], "cost_per_job_usd": m["cost_per_job_usd"],
            "mean_bounded_slowdown": m["mean_bounded_slowdown"],
            "mean_holding_min": m["mean_holding_s"] / 60.0,
            "migrated": m["migrated"], "completed": m["completed"],
            "energy_mwh": m["energy_mwh"], "mean_ppe_percent": m["mean_ppe_percent"],
            "paper_response_min": p_rt, "paper_total_cost_usd": p_cost,
            "paper_cost_per_job_usd": p_cost / 10_000.0,
        })
    table = pd.DataFrame(rows)
    return (table, pd.DataFrame(per_site)) if sites else table
