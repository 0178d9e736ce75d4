#!/usr/bin/env bash
# The Python package (crates/python): built by maturin through pip in a virtual environment
# kept under target/ (made once), then its pytest suite, comparing with the `cosched` binary
# and the example binaries `cargo test --workspace` has just built. Skips with a printed reason
# when python3, the venv or PyPI are unavailable.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 >/dev/null; then
    echo "python package skipped: python3 is not installed"; exit 0
fi
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        echo "python package skipped: python3 -m venv failed (install python3-venv)"; exit 0
    fi
fi
if ! "$venv/bin/pip" install --quiet 'maturin>=1.7,<2' 'pytest>=7' 'gymnasium>=0.29' \
        'hypothesis>=6' 'numpy>=1.22' 'pandas>=1.5'; then
    echo "python package skipped: pip could not install the test dependencies from PyPI"; exit 0
fi
# maturin's PEP 517 hook runs the `maturin` of PATH: the venv's.
export PATH="$PWD/$venv/bin:$PATH"
# The extension's own build directory, kept between runs.
CARGO_TARGET_DIR="$PWD/target/python" "$venv/bin/pip" install --quiet --no-build-isolation ./crates/python
# The CLI and the examples the tests compare with (`cargo test --workspace` has built them).
cargo build -p cosched-cli --quiet
cargo build -p cosched-examples --examples --quiet
COSCHED_BIN="$PWD/target/debug/cosched" COSCHED_EXAMPLES_DIR="$PWD/target/debug/examples" \
    "$venv/bin/python" -m pytest -q crates/python/tests
# The extension's Rust tests (the environment's incremental observation against one built
# afresh) link libpython: they run where the interpreter ships it as a shared library.
libdir=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR") or "")')
ldlib=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_config_var("LDLIBRARY") or "")')
if [ -n "$ldlib" ] && [ "${ldlib%.so}" != "$ldlib" ] && [ -e "$libdir/$ldlib" ]; then
    PYO3_PYTHON="$PWD/$venv/bin/python" LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        CARGO_TARGET_DIR="$PWD/target" cargo test --quiet --manifest-path crates/python/Cargo.toml
else
    echo "crates/python's Rust tests skipped: no shared libpython at $libdir/$ldlib (install python3-dev)"
fi
