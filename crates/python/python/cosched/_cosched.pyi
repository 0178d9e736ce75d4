"""Type stubs of the extension module (the Rust side of ``cosched``)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

class CoschedError(Exception):
    """A simulation could not run or stopped: the message names the input, job or time."""

class CommandError(CoschedError):
    """A policy asked for something the cluster cannot do."""

class Workload:
    """Rigid jobs with the name the per-job table shows and the machine size stated."""

    @staticmethod
    def read(path: str) -> Workload: ...
    @staticmethod
    def from_columns(
        ids: bytes, submit: bytes, size: bytes, runtime: bytes, estimate: bytes, *,
        user: Optional[bytes] = None, group: Optional[bytes] = None,
        capacity: Optional[int] = None, name: str = "dataframe",
    ) -> Workload: ...
    @staticmethod
    def lublin(
        jobs: int, capacity: int, *, seed: int = 1, load: Optional[float] = None,
        stream: str = "typeless", max_estimate_hours: int = 36,
    ) -> Workload: ...
    @property
    def name(self) -> str: ...
    @property
    def capacity(self) -> Optional[int]: ...
    @property
    def invalid(self) -> int: ...
    @property
    def format(self) -> str: ...
    def __len__(self) -> int: ...
    def columns(self) -> Dict[str, bytes]: ...

class BatchView:
    """The cluster at one call of a Python policy (a copy: read-only)."""

    @property
    def now(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    @property
    def free_units(self) -> int: ...
    @property
    def queue(self) -> List[Tuple[int, int, int, int]]:
        """Waiting jobs in queue order: (job_id, submit_time, size, requested_time)."""
    @property
    def releases(self) -> List[Tuple[int, int]]:
        """(predicted_end, units) of the running jobs, by predicted end."""

class RunOutput:
    @property
    def policy(self) -> str: ...
    @property
    def jobs_csv(self) -> bytes: ...
    @property
    def summary_json(self) -> str: ...
    @property
    def report_json(self) -> str: ...
    @property
    def series_csv(self) -> str: ...
    @property
    def elapsed_s(self) -> float: ...

class EnvConfig:
    """An environment's parameters (``cosched.gym``'s keyword arguments), checked once and
    shared by :class:`BatchEnv` and :class:`BatchVecEnv`."""

    def __init__(
        self, workload: Workload, capacity: int, *, episode_jobs: int = 256,
        queue_size: int = 128, backfill: bool = False, metric: str = "bsld",
        layout: str = "rlscheduler",
    ) -> None: ...
    @property
    def observation_len(self) -> int: ...
    @property
    def features(self) -> int: ...
    @property
    def queue_size(self) -> int: ...
    @property
    def reward_sign(self) -> float: ...

class BatchEnv:
    """The Gymnasium environment's core: writes each observation (native float32, in place
    over the last one) and action mask (int8) into ``obs`` and ``mask``, pinned (never
    resized) while it lives; ``reset``/``step`` return ``(visible, waiting, now,
    value)``, ``visible`` = 0 at the episode's end (then ``waiting`` = jobs completed, ``now``
    = makespan, ``value`` = the metric)."""

    def __init__(self, config: EnvConfig, obs: bytearray, mask: bytearray) -> None: ...
    def reset(self, seed: int) -> Tuple[Tuple[int, int, int, float], int]: ...
    def step(self, action: int) -> Tuple[int, int, int, float]: ...

class BatchVecEnv:
    """``num_envs`` environments stepped in one call without the GIL, through ``buffers``:
    actions (int64), seeds (uint64), observations (native float32, written in place while the
    GIL is released: not to be read by another thread during a call), masks (int8), rewards
    (float64), terminations (bool), counts (visible, waiting: int64), each ``num_envs`` long,
    pinned (never resized) while it lives."""

    def __init__(self, config: EnvConfig, num_envs: int, buffers: List[bytearray]) -> None: ...
    def reset(self) -> int: ...
    def step(self) -> int:
        """Steps every environment; returns how many episodes ended."""

class BalancerWeek:
    """A real week of the Balancer (§III-A): LCRC batch jobs, preload, APS VM leases."""

    @staticmethod
    def read(lcrc: str, aps: str, preload: Optional[str] = None, *,
             history: Sequence[str] = (), vm_linger_s: int = 480) -> BalancerWeek: ...
    @property
    def name(self) -> str: ...
    @property
    def jobs(self) -> int: ...
    @property
    def preloaded(self) -> int: ...
    @property
    def history_leases(self) -> int: ...
    def leases_csv(self) -> str: ...

class BalancerView:
    """The nodes' states at one call of a Python Balancer policy (a copy: read-only)."""

    def __len__(self) -> int: ...
    def state(self, node: int) -> str: ...
    def states(self) -> List[str]: ...
    def nodes(self, state: str) -> List[int]: ...
    def count(self, state: str) -> int: ...

class BalancerRun:
    @property
    def policy(self) -> str: ...
    @property
    def report_json(self) -> str: ...
    @property
    def jobs_csv(self) -> str: ...
    @property
    def requests_csv(self) -> str: ...
    @property
    def elapsed_s(self) -> float: ...

def simulate_balancer_builtin(
    week: BalancerWeek, specs: List[Tuple[str, int, int, str]], *, nodes: int = 372,
    batch: str = "testbed", start_latency_s: int = 14, idle_hold_s: int = 600,
) -> List[BalancerRun]: ...
def simulate_balancer_policy(
    week: BalancerWeek, policy: Any, name: str, *, nodes: int = 372, batch: str = "testbed",
    start_latency_s: int = 14, idle_hold_s: int = 600, static_reserve: int = 0,
    hints: bool = False,
) -> BalancerRun: ...
def balancer_table1(
    week: BalancerWeek, *, nodes: int = 372, batch: str = "testbed", start_latency_s: int = 14,
    idle_hold_s: int = 600,
) -> List[Tuple[str, int, int, Optional[float], int, float, BalancerRun]]: ...
def hybrid_mechanisms(
    machine: str = "theta", *, quick: bool = False, seed: int = 1, typing: int = 0,
    mix: str = "W5", trace: Optional[Workload] = None, nodes: Optional[int] = None,
) -> List[Tuple[str, str]]: ...
def metasched_table4(
    *, trace_jobs: int = 4100, total: int = 10000, seed: int = 1, w_t: Optional[float] = None,
    max_q: Optional[int] = None,
) -> List[Tuple[str, float, int, float, float, Dict[str, Any]]]: ...
def site_configurations(
    swf: str, aps: str, *, nodes: int = 128, days: int = 28, scale: int = 4,
    cores_per_node: int = 1, window_min: int = 5, seed: int = 1,
) -> List[Tuple[str, str]]: ...
def policies() -> List[str]: ...
def simulate_builtin(
    workload: Workload, names: List[str], capacity: int, resolution: Optional[int] = None
) -> List[RunOutput]: ...
def simulate_policy(
    workload: Workload, policy: Any, capacity: int, name: str, resolution: Optional[int] = None
) -> RunOutput: ...
