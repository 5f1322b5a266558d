#!/bin/sh
# The install benchmark: `tfdisco install` against `terraform init
# -backend=false` (four providers, 16 MiB packages, fresh folders) and
# `tfdisco lock` against `terraform providers lock` (two providers, three
# platforms), as processes in alternating runs against one loopback
# registry that answers every request after 40 ms and sends each
# connection's bodies at 25 MB/s; then tfdisco's peak RSS with 8 jobs on
# small and 16 MiB packages. Builds tfdisco and the harness
# (benches/src/bin/install-bench.rs, which has the details) in release, and
# benches/c/timed.c with cc; prints medians, ratios, the network's floor,
# and whether each target is met; exits 1 if one is missed or a check fails
# (the trees and lock files of both tools must be the same), non-zero if a
# run fails.
#
#   sh benches/install.sh [RUNS] [install-bench options...]   # 7 runs of each by default
#   BEFORE=/path/to/old/tfdisco sh benches/install.sh 7       # an older tfdisco's lock in the rotation
#
# Needs `terraform` on the PATH (1.11.4 here), gpg (the registry's signing
# key is made for each run) and a C compiler. About 2 minutes for 7 runs.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-7}
[ $# -gt 0 ] && shift
. benches/harness.sh
harness install-bench terraform gpg

set -- --tfdisco "$target/release/tfdisco" --timed "$timed" \
  --runs "$runs" --work "$work" "$@"
if [ -n "${BEFORE:-}" ]; then
  set -- "$@" --before "$BEFORE"
fi
exec "$target/release/install-bench" "$@"
