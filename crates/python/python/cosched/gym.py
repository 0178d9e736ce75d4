"""A Gymnasium environment for learning batch schedulers, on the cosched simulator.

``cosched/BatchScheduling-v0`` (registered on import): at each decision the agent picks which
of the first ``queue_size`` waiting jobs (queue order: submit time, then id) goes next; the
pick starts as soon as it fits, and until then, with ``backfill=True``, other waiting jobs
start around it under EASY's rule (without, the machine waits for it): RLScheduler's two
modes (Zhang et al., SC20). An episode is ``episode_jobs`` consecutive jobs of the workload,
the first drawn from the reset's seed; it ends when they have all ended, with reward the
negative mean of ``metric`` over them (``"bsld"``, bounded slowdown with τ = 10 s, as
RLScheduler; ``"wait"``, ``"turnaround"``; or ``"utilization"``, positive), 0 at every
other step.

Observation: ``queue_size × F`` float32 in [0, 1], one row per visible job.
``layout="rlscheduler"`` (F = 8) is RLScheduler's: wait / 12 h, requested time / the
workload's largest, size / capacity, requested memory, user, group, executable (1, "absent",
where the trace lacks them; user and group divided by the largest when present), can start
now (1 − 1e-5, else 1e-5), each capped at 1 − 1e-5, padding ``[0, 1, 1, 1, 1, 1, 1, 0]``.
``layout="compact"`` (F = 4): wait / 12 h, requested time / largest, size / capacity, can
start now (1 or 0), padding zeros. ``info["action_mask"]`` marks the visible jobs (also
``env.action_masks()``); an action past them picks the last visible job.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - exercised only without gymnasium
    raise ImportError("cosched.gym needs gymnasium: pip install 'cosched[gym]'") from e

from . import Workload, read_trace, sample_trace
from ._cosched import BatchEnv

__all__ = ["BatchSchedulingEnv"]

ENV_ID = "cosched/BatchScheduling-v0"


class BatchSchedulingEnv(gymnasium.Env):
    """Pick the next job among the first ``queue_size`` waiting; see the module docs."""

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        workload: Optional[Workload] = None,
        *,
        capacity: Optional[int] = None,
        episode_jobs: int = 256,
        queue_size: int = 128,
        backfill: bool = False,
        metric: str = "bsld",
        layout: str = "rlscheduler",
    ) -> None:
        super().__init__()
        workload = workload if workload is not None else read_trace(sample_trace())
        capacity = capacity if capacity is not None else workload.capacity
        if capacity is None:
            raise ValueError(f"{workload.name} states no machine size: pass capacity=")
        self._core = BatchEnv(
            workload, int(capacity), episode_jobs=episode_jobs, queue_size=queue_size,
            backfill=backfill, metric=metric, layout=layout,
        )
        self._queue_size = queue_size
        self._features = self._core.observation_len // queue_size
        self._reward_sign = 1.0 if metric == "utilization" else -1.0
        self.observation_space = spaces.Box(
            0.0, 1.0, shape=(self._core.observation_len,), dtype=np.float32
        )
        self.action_space = spaces.Discrete(queue_size)
        self._mask = np.zeros(queue_size, dtype=np.int8)
        self._last = np.zeros(self._core.observation_len, dtype=np.float32)

    def _decision(self, answer: Dict[str, Any]) -> Tuple[np.ndarray, Dict[str, Any]]:
        obs = np.frombuffer(answer["obs"], dtype="<f4").copy()
        self._mask[:] = 0
        self._mask[: answer["visible"]] = 1
        self._last = obs
        info = {"action_mask": self._mask.copy(), "now": answer["now"], "waiting": answer["waiting"]}
        return obs, info

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        episode_seed = int(self.np_random.integers(0, 2**63 - 1))
        answer = self._core.reset(episode_seed)
        obs, info = self._decision(answer)
        info["first_job"] = answer["start"]
        return obs, info

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        answer = self._core.step(int(action))
        if answer["done"]:
            self._mask[:] = 0
            info = {
                "action_mask": self._mask.copy(),
                "metric": answer["value"],
                "makespan": answer["makespan"],
                "completed": answer["completed"],
            }
            return self._last, self._reward_sign * answer["value"], True, False, info
        obs, info = self._decision(answer)
        return obs, 0.0, False, False, info

    def action_masks(self) -> np.ndarray:
        """The valid picks (for maskable agents, e.g. sb3-contrib's MaskablePPO)."""
        return self._mask.astype(bool)


gymnasium.register(id=ENV_ID, entry_point="cosched.gym:BatchSchedulingEnv")
