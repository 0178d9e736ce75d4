"""The composed site from Python: one site whose nodes serve batch jobs (rigid and malleable,
EASY), on-demand leases (the Balancer's or hybrid's handling) and scavenged work (HTCondor-like
pools, Albatross's cloud scaling, RHIC's sizing), under each built-in assignment of the paper
crates' policies to those roles, as one seed of the ``converged_site`` example. These are our
findings, not paper claims.

>>> from cosched import site
>>> df = site.configurations(days=3)        # doctest: +SKIP
>>> df[["configuration", "on_demand_served_pct", "batch_mean_wait_s", "useful_utilization_pct"]]
"""

from __future__ import annotations

import json
from typing import Optional

import pandas as pd

from . import _cosched, sample_trace
from .balancer import _data

__all__ = ["configurations"]


def configurations(
    *,
    swf: Optional[str] = None,
    aps: Optional[str] = None,
    nodes: int = 128,
    days: int = 28,
    scale: int = 4,
    cores_per_node: int = 1,
    window_min: int = 5,
    seed: int = 1,
) -> pd.DataFrame:
    """One row per configuration (``batch``, ``balancer``, ``hybrid``, ``scavenging``,
    ``cloud``, ``all``, …): the site's report flattened (on-demand leases served, batch wait
    and bounded slowdown, malleable turnaround, scavenged tasks completed and evicted, useful
    utilisation, cloud cost, node-hours by use, revocations). Inputs: the first ``days`` of
    the SWF trace ``swf`` (default: the shipped SDSC-SP2 sample) on ``nodes`` nodes, the APS
    week ``aps`` (default: the shipped 2015-07-19 week) packed into 16-core VM leases of
    ``scale`` nodes, repeated week after week, window ``window_min``; ``seed`` draws the
    typing, the notices and the scavenged tasks."""
    rows = _cosched.site_configurations(
        str(swf or sample_trace()), str(aps or _data("aps/2015-07-19.csv.gz")), nodes=nodes,
        days=days, scale=scale, cores_per_node=cores_per_node, window_min=window_min,
        seed=seed)
    df = pd.json_normalize([json.loads(r) for _, r in rows])
    df.insert(0, "configuration", [name for name, _ in rows])
    return df
