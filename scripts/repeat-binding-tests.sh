#!/usr/bin/env bash
# Runs the Python and the Node package's test suites many times in a row,
# to catch a test that fails only now and then (not part of the test
# command: it takes a while).
#
#   scripts/repeat-binding-tests.sh [--busy] [RUNS]     (default 30 runs)
#
# --busy keeps every core busy with a spinning process for the whole run,
# as a loaded CI machine would. The suites run as a background job of this
# non-interactive shell, so they inherit SIGINT ignored, as they did in the
# run that found the Ctrl-C test's failure. Builds the Python
# extension and the Node addon once first (debug, in the workspace target);
# stops at the first failing run and prints its output.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

busy=0
runs=30
for arg in "$@"; do
  case "$arg" in
    --busy) busy=1 ;;
    *[!0-9]*|"") echo "usage: $0 [--busy] [RUNS]" >&2; exit 2 ;;
    *) runs="$arg" ;;
  esac
done

export CARGO_TARGET_DIR="$repo/target"
venv="$repo/target/python-venv"
log="$(mktemp -d)"
spinners=()
cleanup() {
  for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$log"
}
trap cleanup EXIT

echo "== building the Python extension and the Node addon (one run of each suite)"
TFDISCO_MATURIN_ARGS="--profile dev" python/run-tests.sh "$venv" >"$log/build" 2>&1 \
  && TFDISCO_NODE_BUILD=debug node/run-tests.sh >>"$log/build" 2>&1 \
  || { cat "$log/build"; exit 1; }
export TFDISCO_BIN="$repo/target/debug/tfdisco"
export TFDISCO_NORMALIZE_BIN="$repo/target/debug/examples/normalize"

if [ "$busy" = 1 ]; then
  for _ in $(seq "$(nproc)"); do
    sh -c 'while :; do :; done' &
    spinners+=("$!")
  done
  echo "== ${#spinners[@]} spinning processes keep every core busy"
fi

# Runs one suite in the background of this shell and waits for it.
suite() {
  local name="$1" out="$log/$1"
  shift
  local started=$SECONDS
  ("$@" >"$out" 2>&1) &
  if ! wait "$!"; then
    echo "$name: run $run FAILED after $((SECONDS - started)) s; its output:" >&2
    cat "$out" >&2
    exit 1
  fi
  printf '%s %ss ' "$name" "$((SECONDS - started))"
}

for run in $(seq "$runs"); do
  printf 'run %2d/%d: ' "$run" "$runs"
  suite python bash -c "cd python/tests && exec '$venv/bin/python' -m pytest -q -p no:cacheprovider ."
  suite node bash -c "cd node && exec node --test test/*.test.mjs"
  printf '(load %s)\n' "$(cut -d' ' -f1 /proc/loadavg)"
done
echo "all $runs runs of both suites passed"
