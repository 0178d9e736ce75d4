"""A pure-Python batch-scheduling environment of the same design as ``cosched.gym`` (pick the
next job among the first K waiting, in queue order; the pick starts as soon as it fits, the
machine waits for it; reward the negative mean bounded slowdown, τ = 10 s), written as a
Python RL environment usually is (RLScheduler's HPCSimPickJobs loop, lists and a heap).

It is the yardstick of ``env_speed.py`` and, in the tests, a second implementation the
cosched environment must agree with, step for step.
"""

from __future__ import annotations

import heapq
from typing import List, Optional, Tuple

import numpy as np

MAX_WAIT_S = 12 * 3600.0
CAP = 1.0 - 1e-5


class PurePythonEnv:
    """``jobs``: (id, submit, size, runtime, estimate, user, group) tuples (user and group -1
    where absent), sorted by (submit, id), each fitting ``capacity``."""

    def __init__(self, jobs: List[Tuple[int, ...]], capacity: int,
                 queue_size: int = 128) -> None:
        self.jobs = jobs
        self.capacity = capacity
        self.queue_size = queue_size
        self.max_estimate = max(j[4] for j in jobs)
        self.max_user = max(j[5] for j in jobs)
        self.max_group = max(j[6] for j in jobs)

    def reset(self, start: int, count: int) -> Optional[np.ndarray]:
        self.pending = list(self.jobs[start:start + count])
        self.pending.reverse()  # pop() takes the next arrival
        self.queue: List[Tuple[int, ...]] = []
        self.running: List[Tuple[int, int, int]] = []  # (end, id, size) heap
        self.free = self.capacity
        self.now = self.pending[-1][1]
        self.pick: Optional[Tuple[int, ...]] = None
        self.bsld: List[float] = []
        self.first_submit = self.now
        return self._advance()

    def _observe(self) -> np.ndarray:
        out = np.zeros(self.queue_size * 8, dtype=np.float32)
        for i in range(self.queue_size):
            row = out[i * 8:(i + 1) * 8]
            if i < len(self.queue):
                _, submit, size, _, estimate, user, group = self.queue[i]
                row[:] = [min(max((self.now - submit) / MAX_WAIT_S, 0.0), CAP),
                          min(estimate / max(self.max_estimate, 1), CAP),
                          min(size / self.capacity, CAP), 1,
                          1 if user < 0 or self.max_user <= 0 else min(user / self.max_user, CAP),
                          1 if group < 0 or self.max_group <= 0 else min(group / self.max_group, CAP),
                          1, CAP if size <= self.free else 1e-5]
            else:
                row[:] = [0, 1, 1, 1, 1, 1, 1, 0]
        return out

    def _start(self, job: Tuple[int, ...]) -> None:
        jid, submit, size, runtime, estimate = job[:5]
        self.queue.remove(job)
        self.free -= size
        run = min(runtime, estimate)
        end = self.now + run
        heapq.heappush(self.running, (end, jid, size))
        self.bsld.append(max((end - submit) / max(run, 10, 1), 1.0))

    def _pass(self) -> bool:
        """Starts the pick if it fits; True when the agent must choose."""
        while True:
            if self.pick is None:
                return bool(self.queue)
            if self.pick[2] > self.free:
                return False
            self._start(self.pick)
            self.pick = None

    def _advance(self) -> Optional[np.ndarray]:
        """Runs events until the agent must choose (its observation) or the end (None)."""
        while True:
            if self._pass():
                return self._observe()
            times = []
            if self.pending:
                times.append(self.pending[-1][1])
            if self.running:
                times.append(self.running[0][0])
            if not times:
                return None
            self.now = min(times)
            while self.running and self.running[0][0] == self.now:
                _, _, size = heapq.heappop(self.running)
                self.free += size
            while self.pending and self.pending[-1][1] == self.now:
                self.queue.append(self.pending.pop())
            self.queue.sort(key=lambda j: (j[1], j[0]))

    def step(self, action: int) -> Tuple[Optional[np.ndarray], float, bool]:
        self.pick = self.queue[min(action, len(self.queue) - 1, self.queue_size - 1)]
        obs = self._advance()
        if obs is None:
            return None, -float(np.mean(self.bsld)), True
        return obs, 0.0, False
