"""The environment's incremental observation against the pure-Python environment, which
builds each observation afresh, on random traces and agents."""

import pytest

import cosched
from test_gym import check_against_pure_python

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def traces(draw):
    """A random trace as a DataFrame: bursts of simultaneous arrivals, jobs too wide for the
    machine, estimates below and above the run time, users on some jobs."""
    capacity = draw(st.integers(1, 40))
    n = draw(st.integers(2, 150))
    gaps = draw(st.lists(st.integers(0, 900), min_size=n, max_size=n))
    rows = []
    submit = 0
    for i, gap in enumerate(gaps):
        submit += gap if gap >= 300 else 0
        run = draw(st.integers(1, 6000))
        rows.append((i + 1, submit, draw(st.integers(1, 48)), run,
                     max(1, run + draw(st.integers(-600, 6000))),
                     draw(st.integers(-1, 9))))
    import pandas as pd

    df = pd.DataFrame(rows, columns=["job_id", "submit_time", "requested_number_of_processors",
                                     "run_time", "requested_time", "user_id"])
    return df, capacity


@settings(max_examples=60, deadline=None)
@given(trace=traces(), episode=st.integers(1, 150), queue_size=st.integers(1, 12),
       seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=3), agent=st.integers(0, 99))
def test_the_incremental_observation_equals_one_built_afresh(trace, episode, queue_size, seeds,
                                                             agent):
    df, capacity = trace
    workload = cosched.from_dataframe(df, capacity=capacity)
    fit = int((df["requested_number_of_processors"] <= capacity).sum())
    if fit == 0:
        return
    check_against_pure_python(workload, capacity, min(episode, fit), queue_size, seeds, agent)
