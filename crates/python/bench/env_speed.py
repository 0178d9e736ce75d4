"""Steps per second of ``cosched.gym`` for a random agent on the shipped SDSC-SP2 sample,
beside the same design in pure Python (``pure_python_env.py``), and jobs per second of one
whole simulation from Python; also the Python SJF-with-EASY policy's cost per decision.

Variants: the Gymnasium environment (one ``step`` per decision, a random pick drawn per step),
with the observation and info copied and without (``copy=False, info=False``);
the native vector environment (``BatchVectorEnv``: ``--num-envs`` environments per call, the
random picks drawn for all of them at once), with copies of the arrays returned and without
(``copy=False``); the pure-Python environment with the per-step random agent. Every variant
runs the same number of episodes of ``--episode-jobs`` jobs.

    python crates/python/bench/env_speed.py [--episodes N] [--episode-jobs N] [--num-envs N]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import cosched  # noqa: E402
from cosched.gym import BatchSchedulingEnv, BatchVectorEnv  # noqa: E402
from pure_python_env import PurePythonEnv  # noqa: E402


def cosched_env(episodes, n, rng, lean):
    """One environment; ``lean``: ``copy=False, info=False`` (the observation a view, an
    empty info)."""
    env = BatchSchedulingEnv(episode_jobs=n, copy=not lean, info=not lean)
    steps, t0, c0 = 0, time.perf_counter(), time.process_time()
    for e in range(episodes):
        obs, info = env.reset(seed=e)
        done = False
        while not done:
            # The same random agent as below: a pick among the visible waiting jobs.
            obs, _, done, _, info = env.step(int(rng.integers(env.visible)))
            steps += 1
    return steps, time.perf_counter() - t0, time.process_time() - c0


def vector_env(episodes, n, rng, num_envs, copy):
    """Env-steps per second of the native vector environment: every environment runs
    ``episodes`` episodes (the steps of the envs' extra autoresets are not counted)."""
    env = BatchVectorEnv(num_envs, episode_jobs=n, copy=copy)
    steps, t0, c0 = 0, time.perf_counter(), time.process_time()
    _, info = env.reset(seed=0)
    finished = np.zeros(num_envs, dtype=np.int64)
    fresh = np.zeros(num_envs, dtype=bool)  # the next step is an autoreset
    while finished.min() < episodes:
        waiting = np.minimum(info["waiting"], 128)
        actions = (rng.random(num_envs) * waiting).astype(np.int64)
        _, _, term, _, info = env.step(actions)
        steps += int((~fresh & (finished < episodes)).sum())
        finished += term
        fresh = term.copy()
    return steps, time.perf_counter() - t0, time.process_time() - c0


def python_env(episodes, n, rng, sample):
    df = cosched.to_dataframe(sample).sort_values(["submit_time", "job_id"])
    jobs = list(df[df["size"] <= 128].itertuples(index=False, name=None))
    env = PurePythonEnv(jobs, 128)
    steps, t0, c0 = 0, time.perf_counter(), time.process_time()
    for e in range(episodes):
        env.reset(int(rng.integers(len(jobs) - n)), n)
        done = False
        while not done:
            _, _, done = env.step(int(rng.integers(min(len(env.queue), 128))))
            steps += 1
    return steps, time.perf_counter() - t0, time.process_time() - c0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--episode-jobs", type=int, default=1024)
    p.add_argument("--num-envs", type=int, default=64)
    a = p.parse_args()
    sample = cosched.read_trace(cosched.sample_trace())
    # Wall time and CPU time (the process's, which a loaded machine inflates less); each
    # ratio is against the pure-Python environment measured in the same run.
    import os
    print("load:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"{'variant':26s} {'steps':>9s} {'wall s':>7s} {'steps/s':>10s} {'ratio':>6s}"
          f" {'CPU s':>7s} {'steps/CPU-s':>11s} {'ratio':>6s}")
    s, t, c = python_env(a.episodes, a.episode_jobs, np.random.default_rng(0), sample)
    ref = (s / t, s / c)

    def show(label, s, t, c):
        print(f"{label:26s} {s:9d} {t:7.2f} {s / t:10.0f} {s / t / ref[0]:5.1f}x"
              f" {c:7.2f} {s / c:11.0f} {s / c / ref[1]:5.1f}x")

    show("pure Python", s, t, c)
    for lean in (False, True):
        label = "one env" + (" copy/info=False" if lean else "")
        show(label, *cosched_env(a.episodes, a.episode_jobs, np.random.default_rng(0), lean))
    for copy in (True, False):
        label = f"vector x{a.num_envs}" + ("" if copy else " copy=False")
        show(label, *vector_env(a.episodes, a.episode_jobs, np.random.default_rng(0),
                                a.num_envs, copy))
    c0 = time.process_time()
    run = cosched.simulate(sample, "sjf+easy")
    c = time.process_time() - c0
    print(f"simulate sjf+easy  {len(sample) / run.elapsed_s:10.0f} jobs/s wall,"
          f" {len(sample) / c:10.0f} jobs/CPU-s (one call)")

    from test_policy import SjfEasy

    class Counted(SjfEasy):
        calls = 0

        def observe(self, now, view):
            Counted.calls += 1
            return super().observe(now, view)

    t0, c0 = time.perf_counter(), time.process_time()
    cosched.simulate(sample, Counted())
    t, c = time.perf_counter() - t0, time.process_time() - c0
    print(f"Python sjf+easy   {Counted.calls} decisions {t:.2f} s wall {c:.2f} CPU-s, "
          f"{c / Counted.calls * 1e6:.1f} us CPU per decision (view copy + policy)")


if __name__ == "__main__":
    main()
