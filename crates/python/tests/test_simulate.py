import csv
import re
import subprocess
import threading
import time

import pytest

import cosched


def test_catalogue_runs_give_the_batsim_columns(sample):
    runs = cosched.simulate(sample, ["fcfs+easy", "sjf+easy", "saf+conservative"])
    assert list(runs) == ["easy", "sjf+easy", "saf+conservative"]
    jobs = runs["easy"].jobs
    assert list(jobs.columns)[:6] == ["job_id", "workload_name", "profile", "submission_time",
                                      "requested_number_of_resources", "requested_time"]
    assert len(jobs) == len(sample)
    done = jobs[jobs["final_state"] != "REJECTED"]
    assert (done["waiting_time"] >= 0).all()
    assert runs["easy"].summary["policy"] == "easy"
    assert 0 < runs["easy"].report["utilization"] <= 1
    assert {"time_s", "utilization"} <= set(runs["easy"].utilization.columns)


def test_outputs_are_the_clis_byte_for_byte(sample, cosched_bin, tmp_path):
    subprocess.run([cosched_bin, "simulate", "--trace", cosched.sample_trace(), "--policy",
                    "sjf+easy,fcfs+conservative", "--out", str(tmp_path / "out")], check=True,
                   capture_output=True)
    runs = cosched.simulate(sample, ["sjf+easy", "fcfs+conservative"])
    for name, run in runs.items():
        stem = re.sub(r"[^A-Za-z0-9+\-=,.()]", "_", name)
        assert (tmp_path / "out" / f"{stem}_jobs.csv").read_bytes() == run.jobs_csv
    with open(tmp_path / "out" / "summary.csv") as f:
        rows = {r["policy"]: r for r in csv.DictReader(f)}
    for name, run in runs.items():
        assert float(rows[name]["mean_wait_s"]) == pytest.approx(run.summary["mean_wait_s"], rel=1e-12)


def test_an_unknown_policy_names_the_catalogue(sample):
    with pytest.raises(ValueError, match="sjf"):
        cosched.simulate(sample, "shortest-first")


def test_no_capacity_is_an_error_that_says_what_to_pass():
    import pandas as pd

    w = cosched.from_dataframe(pd.DataFrame({"job_id": [1], "submit_time": [0], "size": [1],
                                             "run_time": [5], "requested_time": [5]}))
    with pytest.raises(ValueError, match="capacity="):
        cosched.simulate(w, "easy")
    assert cosched.simulate(w, "easy", capacity=1).summary["jobs"] == 1


def test_runs_release_the_gil():
    # While one thread simulates, another keeps running Python.
    big = cosched.generate_lublin(30_000, 512, seed=2, load=0.9)
    t = threading.Thread(target=cosched.simulate, args=(big, "sjf+easy"))
    ticks = 0
    t.start()
    while t.is_alive():
        time.sleep(0.001)
        ticks += 1
    t.join()
    assert ticks >= 5
