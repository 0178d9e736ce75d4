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
``env.action_masks()``); an action past them picks the last visible job. Each observation is
written over the last one in the simulator: only the rows whose job changed, and the wait and
fits columns when the time or the idle units moved (a test checks it against the observation
built afresh at every step).

:class:`BatchVectorEnv` (``gymnasium.make_vec("cosched/BatchScheduling-v0", num_envs=N,
vectorization_mode="vector_entry_point")``) steps N such environments in one call into the
simulator, without the GIL, with Gymnasium's next-step autoreset: the same episodes, step for
step, as ``SyncVectorEnv`` over N :class:`BatchSchedulingEnv` with the same seeds.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.utils import seeding
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as e:  # pragma: no cover - exercised only without gymnasium
    raise ImportError("cosched.gym needs gymnasium: pip install 'cosched[gym]'") from e

from . import Workload, read_trace, sample_trace
from ._cosched import BatchEnv, BatchVecEnv, EnvConfig

__all__ = ["BatchSchedulingEnv", "BatchVectorEnv"]

ENV_ID = "cosched/BatchScheduling-v0"

# An episode's seed: drawn from the environment's generator, as `reset` draws it.
_SEED_BOUND = 2**63 - 1


def _config(workload: Optional[Workload], capacity: Optional[int] = None,
            **options: Any) -> EnvConfig:
    """The parameters of :class:`BatchSchedulingEnv` (``options`` its keyword arguments),
    checked."""
    workload = workload if workload is not None else read_trace(sample_trace())
    capacity = capacity if capacity is not None else workload.capacity
    if capacity is None:
        raise ValueError(f"{workload.name} states no machine size: pass capacity=")
    return EnvConfig(workload, int(capacity), **options)


def _view(n: int, dtype: str, writeable: bool = True) -> Tuple[bytearray, np.ndarray]:
    """A bytearray the simulator writes into (pinned by it: never resized), and a numpy view
    of it; read-only unless ``writeable``."""
    buf = bytearray(n * np.dtype(dtype).itemsize)
    view = np.frombuffer(buf, dtype=dtype)
    view.flags.writeable = writeable
    return buf, view


class BatchSchedulingEnv(gymnasium.Env):
    """Pick the next job among the first ``queue_size`` waiting; see the module docs.

    ``copy=False`` returns the observation as a read-only view the next step overwrites, and
    ``info=False`` an empty ``info`` (the same dict each step; the mask stays available
    through :meth:`action_masks` and the number of valid picks as ``visible``): what a step
    then costs is the simulator's."""

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
        copy: bool = True,
        info: bool = True,
    ) -> None:
        super().__init__()
        config = _config(workload, capacity, episode_jobs=episode_jobs, queue_size=queue_size,
                         backfill=backfill, metric=metric, layout=layout)
        # The simulator writes each observation and mask into these (no per-step allocation).
        # The observation is written over the last one in place: read-only to the caller.
        obs_buf, self._obs = _view(config.observation_len, "=f4", writeable=False)
        mask_buf, self._mask = _view(config.queue_size, "i1")
        self._core = BatchEnv(config, obs_buf, mask_buf)
        self._reward_sign = config.reward_sign
        self._copy, self._info = copy, info
        self._no_info: Dict[str, Any] = {}
        #: Valid picks at the pending decision (0 once the episode has ended).
        self.visible = 0
        self.observation_space = spaces.Box(
            0.0, 1.0, shape=(config.observation_len,), dtype=np.float32
        )
        self.action_space = spaces.Discrete(config.queue_size)

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        (self.visible, waiting, now, _), first = self._core.reset(
            int(self.np_random.integers(0, _SEED_BOUND)))
        info = {"action_mask": self._mask.copy(), "now": now, "waiting": waiting,
                "first_job": first} if self._info else self._no_info
        return (self._obs.copy() if self._copy else self._obs), info

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        visible, waiting, now, value = self._core.step(int(action))
        self.visible = visible
        obs = self._obs.copy() if self._copy else self._obs
        if visible == 0:
            info = {"action_mask": self._mask.copy(), "metric": value, "makespan": now,
                    "completed": waiting} if self._info else self._no_info
            return obs, self._reward_sign * value, True, False, info
        if not self._info:
            return obs, 0.0, False, False, self._no_info
        return obs, 0.0, False, False, {"action_mask": self._mask.copy(), "now": now,
                                        "waiting": waiting}

    def action_masks(self) -> np.ndarray:
        """The valid picks (for maskable agents, e.g. sb3-contrib's MaskablePPO)."""
        return self._mask.astype(bool)


class BatchVectorEnv(VectorEnv):
    """``num_envs`` :class:`BatchSchedulingEnv` stepped in one call (next-step autoreset);
    ``options`` are :class:`BatchSchedulingEnv`'s keyword arguments.

    ``step(actions)`` returns the observations ``(num_envs, K × F)``, rewards, terminations,
    truncations (never) and ``infos`` with ``action_mask`` ``(num_envs, K)`` and ``waiting``.
    The arrays returned are copies unless ``copy=False``, which returns views the next step
    overwrites (the observations read-only), and the same ``infos`` dict of views each step
    (the fastest way to feed an agent)."""

    metadata: Dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, workload: Optional[Workload] = None, *,
                 copy: bool = True, **options: Any) -> None:
        config = _config(workload, **options)
        n, k = int(num_envs), config.queue_size
        self.num_envs = n
        self.copy = copy
        bufs = []
        views = []
        for size, dtype in ((n, "<i8"), (n, "<u8"), (n * config.observation_len, "=f4"),
                            (n * k, "i1"), (n, "<f8"), (n, "?"), (2 * n, "<i8")):
            # The observations are written over the last ones in place: read-only to callers.
            buf, view = _view(size, dtype, writeable=dtype != "=f4")
            bufs.append(buf)
            views.append(view)
        self._actions, self._seeds, obs, mask, self._rewards, self._terminated, counts = views
        self._obs = obs.reshape(n, config.observation_len)
        self._mask = mask.reshape(n, k)
        self._counts = counts.reshape(n, 2)
        self._core = BatchVecEnv(config, n, bufs)
        self._truncated = np.zeros(n, dtype=bool)
        self._views = {"action_mask": self._mask, "waiting": self._counts[:, 1]}
        self._rngs: List[np.random.Generator] = []
        self.single_observation_space = spaces.Box(
            0.0, 1.0, shape=(config.observation_len,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(k)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)

    def _infos(self) -> Dict[str, Any]:
        if not self.copy:
            return self._views
        return {key: value.copy() for key, value in self._views.items()}

    def reset(
        self, *, seed: Optional[Union[int, Sequence[Optional[int]]]] = None,
        options: Optional[Dict[str, Any]] = None,
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Starts every environment's episode; an int seed seeds environment i with seed + i,
        as Gymnasium's vector environments do."""
        if seed is None:
            seeds: Sequence[Optional[int]] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        self._rngs = [seeding.np_random(s)[0] for s in seeds]
        for i, rng in enumerate(self._rngs):
            self._seeds[i] = rng.integers(0, _SEED_BOUND)
        self._core.reset()
        self._draw_seeds()
        return (self._obs.copy() if self.copy else self._obs), self._infos()

    def _draw_seeds(self) -> None:
        # The next episode's seed of the environments that just ended, from their generators.
        for i in np.flatnonzero(self._terminated):
            self._seeds[i] = self._rngs[i].integers(0, _SEED_BOUND)

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        if not self._rngs:
            raise RuntimeError("call reset() before step()")
        self._actions[:] = actions
        if self._core.step():
            self._draw_seeds()
        if not self.copy:
            return self._obs, self._rewards, self._terminated, self._truncated, self._views
        return (self._obs.copy(), self._rewards.copy(), self._terminated.copy(),
                self._truncated.copy(), self._infos())

    def action_masks(self) -> np.ndarray:
        """The valid picks, ``(num_envs, queue_size)``."""
        return self._mask.astype(bool)


gymnasium.register(id=ENV_ID, entry_point="cosched.gym:BatchSchedulingEnv",
                   vector_entry_point="cosched.gym:BatchVectorEnv")
