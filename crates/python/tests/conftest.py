import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))


@pytest.fixture(scope="session")
def cosched_bin():
    """The `cosched` command to compare with: $COSCHED_BIN, or one on PATH."""
    path = os.environ.get("COSCHED_BIN") or shutil.which("cosched")
    if not path:
        pytest.skip("no cosched binary (set COSCHED_BIN to target/release/cosched)")
    return path


@pytest.fixture(scope="session")
def sample():
    import cosched

    return cosched.read_trace(cosched.sample_trace())


@pytest.fixture(scope="session")
def examples_dir():
    """The directory of the workspace's example binaries to compare with
    ($COSCHED_EXAMPLES_DIR, e.g. target/debug/examples)."""
    path = os.environ.get("COSCHED_EXAMPLES_DIR")
    if not path:
        pytest.skip("no example binaries (set COSCHED_EXAMPLES_DIR to target/debug/examples)")
    return Path(path)


def fixed(value, decimals):
    """A number as the examples' tables print it (Rust's `{:.N}`, correctly rounded, as
    Python's format); empty for NaN/None."""
    if value is None or value != value:
        return ""
    return f"{value:.{decimals}f}"


def example_csv(path):
    """An example's CSV table, every cell as its text."""
    import pandas as pd

    return pd.read_csv(path, dtype=str, keep_default_na=False)
