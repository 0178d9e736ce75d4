"""The papers' scenarios from Python equal what the examples compute on the same inputs and
seed (the examples' CSV tables, number for number as they print them)."""

import subprocess

import pytest

import cosched
from cosched import hybrid, metasched, site
from conftest import example_csv, fixed


def run_example(examples_dir, name, out, *args):
    subprocess.run([str(examples_dir / name), "--out", str(out), *args], check=True,
                   capture_output=True)
    return out


def test_hybrid_mechanisms_equal_the_example_s_replicate(examples_dir, tmp_path):
    out = run_example(examples_dir, "hybrid_fig6_7", tmp_path, "--quick", "--seeds", "1",
                      "--typings", "1", "--seed", "3")
    theirs = example_csv(out / "hybrid_fig6_7_summary.csv")
    for mix in ("W1", "W5"):
        ours = hybrid.mechanisms("theta", quick=True, seed=3, typing=0, mix=mix)
        rows = theirs[(theirs["system"] == "theta") & (theirs["workload"] == mix)]
        assert list(ours["mechanism"]) == list(rows["mechanism"])
        for col, key, scale, digits in (
                ("instant_start_pct", "instant_start_ratio", 100, 2),
                ("utilization_pct", "window_utilization", 100, 2),
                ("turnaround_h", "turnaround_h", 1, 3),
                ("rigid_preempted_pct", "rigid_preempted_ratio", 100, 2),
                ("malleable_preempted_pct", "malleable_preempted_ratio", 100, 2),
                ("on_demand_turnaround_h", "on_demand_turnaround_h", 1, 3),
                ("wasted_node_h", "wasted_node_hours", 1, 0)):
            assert [fixed(scale * v, digits) for v in ours[key]] == list(rows[col]), (mix, col)


def test_hybrid_s_mechanisms_beat_the_baseline_on_instant_starts():
    df = hybrid.mechanisms("theta", quick=True, seed=1).set_index("mechanism")
    assert len(df) == 7 and df.index[0] == "baseline"
    assert (df["instant_start_ratio"].iloc[1:] > df.loc["baseline", "instant_start_ratio"]).all()
    with pytest.raises(ValueError, match="machine"):
        hybrid.mechanisms("summit")
    with pytest.raises(ValueError, match="mix"):
        hybrid.mechanisms(mix="W9")


def test_hybrid_runs_a_caller_s_trace(sample):
    df = hybrid.mechanisms(trace=sample, seed=2)
    assert len(df) == 7 and (df["jobs"] <= len(sample)).all()


def test_metasched_table4_equals_the_example_s_quick_run(examples_dir, tmp_path):
    out = run_example(examples_dir, "metasched_table4", tmp_path, "--quick", "--seeds", "1",
                      "--seed", "2")
    theirs = example_csv(out / "metasched_table4.csv")
    ours = metasched.table4(trace_jobs=500, total=600, seed=2)
    assert list(ours["strategy"]) == list(theirs["strategy"])
    for col, digits in (("jobs_rejected", 1), ("mean_response_min", 1),
                        ("total_cost_usd", 2), ("cost_per_job_usd", 3),
                        ("mean_bounded_slowdown", 2), ("mean_holding_min", 2),
                        ("paper_response_min", 1), ("paper_total_cost_usd", 1),
                        ("paper_cost_per_job_usd", 2)):
        assert [fixed(float(v), digits) for v in ours[col]] == list(theirs[col]), col
    assert [str(v) for v in ours["jobs_measured"]] == list(theirs["jobs_measured"])
    assert [f"{m:.0f} / {c:.0f}" for m, c in zip(ours["migrated"], ours["completed"])] \
        == list(theirs["migrated"])


def test_metasched_per_site_metrics_add_up():
    table, sites = metasched.table4(trace_jobs=300, total=300, seed=1, sites=True)
    assert set(sites["strategy"]) == set(table["strategy"])
    for name, rows in sites.groupby("strategy"):
        measured = table.set_index("strategy").loc[name, "jobs_measured"]
        assert rows["submitted"].sum() == measured == 300
    with pytest.raises(ValueError, match="w_t"):
        metasched.table4(trace_jobs=10, total=10, w_t=2.0)


def test_the_site_equals_the_example_s_run(examples_dir, tmp_path):
    out = run_example(examples_dir, "converged_site", tmp_path, "--days", "2", "--seeds", "1",
                      "--seed", "4", "--swf", cosched.sample_trace())
    theirs = example_csv(out / "converged_site.csv")
    ours = site.configurations(days=2, seed=4)
    assert list(ours["configuration"]) == list(theirs["configuration"])
    for col, digits in (("on_demand_served_pct", 2), ("on_demand_mean_wait_s", 1),
                        ("batch_mean_wait_s", 0), ("batch_mean_bounded_slowdown", 2),
                        ("malleable_mean_turnaround_s", 0), ("scavenged_completed", 0),
                        ("useful_utilization_pct", 2), ("cloud_cost_usd", 2),
                        ("goodput_node_h", 1), ("energy_kwh", 0)):
        assert [fixed(float(v), digits) for v in ours[col]] == list(theirs[col]), col
