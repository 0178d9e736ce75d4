"""Steps per second of ``cosched.gym`` for a random agent on the shipped SDSC-SP2 sample,
beside the same design in pure Python (``pure_python_env.py``), and jobs per second of one
whole simulation from Python; also the Python SJF-with-EASY policy's cost per decision.

    python crates/python/bench/env_speed.py [--episodes N] [--episode-jobs N]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import cosched  # noqa: E402
from cosched.gym import BatchSchedulingEnv  # noqa: E402
from pure_python_env import PurePythonEnv  # noqa: E402


def cosched_env(episodes, n, rng):
    env = BatchSchedulingEnv(episode_jobs=n)
    steps, t0 = 0, time.perf_counter()
    for e in range(episodes):
        obs, info = env.reset(seed=e)
        done = False
        while not done:
            # The same random agent as below: a pick among the visible waiting jobs.
            obs, _, done, _, info = env.step(int(rng.integers(min(info["waiting"], 128))))
            steps += 1
    return steps, time.perf_counter() - t0


def python_env(episodes, n, rng, sample):
    df = cosched.to_dataframe(sample).sort_values(["submit_time", "job_id"])
    jobs = list(df[df["size"] <= 128].itertuples(index=False, name=None))
    env = PurePythonEnv(jobs, 128)
    steps, t0 = 0, time.perf_counter()
    for e in range(episodes):
        env.reset(int(rng.integers(len(jobs) - n)), n)
        done = False
        while not done:
            _, _, done = env.step(int(rng.integers(min(len(env.queue), 128))))
            steps += 1
    return steps, time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--episode-jobs", type=int, default=1024)
    a = p.parse_args()
    sample = cosched.read_trace(cosched.sample_trace())
    s1, t1 = cosched_env(a.episodes, a.episode_jobs, np.random.default_rng(0))
    s2, t2 = python_env(a.episodes, a.episode_jobs, np.random.default_rng(0), sample)
    print(f"cosched.gym      {s1:8d} steps {t1:7.2f} s {s1 / t1:10.0f} steps/s")
    print(f"pure Python      {s2:8d} steps {t2:7.2f} s {s2 / t2:10.0f} steps/s")
    print(f"ratio            {(s1 / t1) / (s2 / t2):.1f}x")
    run = cosched.simulate(sample, "sjf+easy")
    print(f"simulate sjf+easy  {len(sample) / run.elapsed_s:10.0f} jobs/s (one call)")

    from test_policy import SjfEasy

    class Counted(SjfEasy):
        calls = 0

        def observe(self, now, view):
            Counted.calls += 1
            return super().observe(now, view)

    t0 = time.perf_counter()
    cosched.simulate(sample, Counted())
    t = time.perf_counter() - t0
    print(f"Python sjf+easy   {Counted.calls} decisions {t:.2f} s "
          f"{t / Counted.calls * 1e6:.1f} us per decision (view copy + policy)")


if __name__ == "__main__":
    main()
