#!/usr/bin/env bash
# The Python package's test command, from a fresh machine: a virtual
# environment, `pip install ./python` (maturin builds the extension from the
# Rust sources), the `tfdisco` CLI, the development server `tfdisco-dev`
# and the core's `normalize` example the tests run, then pytest.
#
#   python/run-tests.sh [VENV_DIR [PYTEST_ARGS...]]   (default: python/.venv)
#
# Honours CARGO_TARGET_DIR, TFDISCO_MATURIN_ARGS (more maturin build options,
# such as --profile dev) and PYTHON (the interpreter that makes the venv,
# default python3; CPython 3.9 or later). Needs the network for PyPI
# (maturin, pytest, trustme, mypy) and crates.io.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
venv="${1:-$here/.venv}"
[ "$#" -gt 0 ] && shift  # the rest goes to pytest
python="${PYTHON:-python3}"

echo "== the Rust side of the bindings: cargo fmt --check, clippy -D warnings"
cargo fmt --manifest-path "$here/Cargo.toml" --check
cargo clippy --manifest-path "$here/Cargo.toml" --all-targets --locked -- -D warnings

echo "== virtual environment in $venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest trustme mypy

echo "== pip install ./python (maturin, Cargo.lock as committed)"
(cd "$repo" && MATURIN_PEP517_ARGS="--locked ${TFDISCO_MATURIN_ARGS:-}" \
    "$venv/bin/python" -m pip install --disable-pip-version-check --force-reinstall ./python)

echo "== the tfdisco CLI, its development server (tfdisco-dev serve) and the core's normalize example"
(cd "$repo" && cargo build --locked -p tfdisco --bin tfdisco -p tfdisco-dev-server --bin tfdisco-dev \
    && cargo build --locked -p tfdisco-core --example normalize)
target="$(cd "$repo" && cargo metadata --locked --format-version 1 --no-deps \
    | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
export TFDISCO_BIN="$target/debug/tfdisco"
export TFDISCO_DEV_BIN="$target/debug/tfdisco-dev"
export TFDISCO_NORMALIZE_BIN="$target/debug/examples/normalize"

echo "== pytest"
# Run from the tests directory so that `import tfdisco` finds the installed
# package, not the sources in python/tfdisco (which lack the native module).
cd "$here/tests"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" .
