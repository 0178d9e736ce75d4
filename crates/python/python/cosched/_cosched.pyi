"""Type stubs of the extension module (the Rust side of ``cosched``)."""

from typing import Any, Dict, List, Optional, Tuple

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

class BatchEnv:
    def __init__(
        self, workload: Workload, capacity: int, *, episode_jobs: int = 256,
        queue_size: int = 128, backfill: bool = False, metric: str = "bsld",
        layout: str = "rlscheduler",
    ) -> None: ...
    @property
    def observation_len(self) -> int: ...
    def reset(self, seed: int) -> Dict[str, Any]: ...
    def step(self, action: int) -> Dict[str, Any]: ...

def policies() -> List[str]: ...
def simulate_builtin(
    workload: Workload, names: List[str], capacity: int, resolution: Optional[int] = None
) -> List[RunOutput]: ...
def simulate_policy(
    workload: Workload, policy: Any, capacity: int, name: str, resolution: Optional[int] = None
) -> RunOutput: ...
