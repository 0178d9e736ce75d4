"""evalys (Batsim's analysis toolkit, PyPI `evalys`) reads cosched's per-job CSV.

For each trace given: `cosched simulate --policy easy --out DIR` writes DIR/easy_jobs.csv in
Batsim's `_jobs.csv` format; evalys loads it (`JobSet.from_csv`, which parses the
`allocated_resources` interval sets), computes its utilisation curve, and the integral of
that curve over our window (first submission to last completion) divided by the capacity
must equal the utilisation in DIR/summary.csv. It also checks that no unit is held by two
jobs at once (evalys' free-interval computation) on the smallest trace, and draws evalys'
Gantt chart of it.

Usage: python evalys_check.py COSCHED OUT_DIR TRACE...
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from evalys.jobset import JobSet  # noqa: E402
from evalys.visu import core as visu_core  # noqa: E402
from evalys.visu.gantt import GanttVisualization  # noqa: E402


def check(cosched, out_root, trace):
    name = Path(trace).name.split(".")[0]
    out = Path(out_root) / name
    subprocess.run(
        [cosched, "simulate", "--trace", trace, "--policy", "easy", "--out", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    report = json.loads((out / "report.json").read_text())
    capacity = report["capacity"]
    with open(out / "summary.csv", newline="") as f:
        ours = float(next(csv.DictReader(f))["utilization"])

    js = JobSet.from_csv(str(out / "easy_jobs.csv"), resource_bounds=(0, capacity - 1))
    df = js.df
    ran = df[df.final_state != "REJECTED"]
    # evalys' load curve: area of the step function of allocated units over time.
    area = js.utilisation["area"].sum()
    window = df.finish_time.max() - df.submission_time.min()
    theirs = area / (capacity * window)
    # Its own mean over its own window (first start to last end), in units.
    mean_units = js.mean_utilisation()
    units_held = sum(len(p) for p in ran.allocated_resources)
    assert units_held == ran.requested_number_of_resources.sum(), name
    print(
        f"{name}: {len(df)} jobs, capacity {capacity}: utilisation cosched {ours:.12f}, "
        f"evalys {theirs:.12f} (evalys mean load {mean_units:.3f} units)"
    )
    if abs(theirs - ours) > 1e-9 * max(1.0, ours):
        raise SystemExit(f"{name}: evalys utilisation {theirs} != cosched {ours}")
    return js, out, name


def gantt(js, out, name):
    completed = JobSet(js.df[js.df.final_state != "REJECTED"].drop(columns=["proc_alloc"]).rename(
        columns={"jobID": "job_id"}), resource_bounds=(js.res_bounds.inf, js.res_bounds.sup))
    free = completed.free_intervals()
    assert len(free) > 0
    layout = visu_core.SimpleLayout(wtitle=name)
    plot = layout.inject(GanttVisualization, spskey="all", title=f"{name} (EASY, cosched)")
    plot.labeler = lambda job: ""
    plot.build(completed)
    path = out / "evalys_gantt.png"
    layout.fig.savefig(path)
    print(f"{name}: evalys Gantt chart drawn to {path}")


def main():
    cosched, out_root, *traces = sys.argv[1:]
    results = [check(cosched, out_root, t) for t in traces]
    smallest = min(results, key=lambda r: len(r[0].df))
    gantt(*smallest)


if __name__ == "__main__":
    main()
