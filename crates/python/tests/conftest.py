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
