#!/usr/bin/env bash
# evalys (Batsim's analysis toolkit, PyPI) must load `cosched simulate`'s per-job CSV for the
# four vendored traces (the SDSC-SP2 sample, Lublin 256, the HPC2N subset and NASA iPSC, each
# gzip-compressed with its provenance beside it) and agree with our utilisation
# (.ci/evalys_check.py). Runs in a Python virtual environment kept under target/ (made once, so
# later runs take seconds); skips with a printed reason when python3, the venv or PyPI are
# unavailable.
set -euo pipefail
cd "$(dirname "$0")/.."
traces=(
    examples/data/swf/SDSC-SP2-sample-4961.swf.gz
    crates/cli/experiments/data/lublin_256.swf.gz
    examples/data/swf/alea-hpc2n-subset.swf.gz
    examples/data/swf/NASA-iPSC-1993-3.1-cln.swf.gz
)
if ! command -v python3 >/dev/null; then
    echo "evalys check skipped: python3 is not installed"; exit 0
fi
venv=target/evalys-venv
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        echo "evalys check skipped: python3 -m venv failed (install python3-venv)"; exit 0
    fi
fi
if ! "$venv/bin/python" -c 'import evalys' 2>/dev/null; then
    if ! "$venv/bin/pip" install --quiet 'evalys>=4,<5'; then
        echo "evalys check skipped: pip could not install evalys from PyPI"; exit 0
    fi
fi
# The debug binary `cargo test --workspace` has just built: no release build for four small traces.
cargo build -p cosched-cli --quiet
out=target/evalys-check
rm -rf "$out"
"$venv/bin/python" .ci/evalys_check.py target/debug/cosched "$out" "${traces[@]}"
