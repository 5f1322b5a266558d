#!/bin/sh
# The module benchmark: `tfdisco get --dialect terraform` against
# `terraform get` (twelve registry modules of 2–4 MiB called by the root,
# four of them calling a 1 MiB module of their own; stored zips, fresh
# folders), as processes in alternating runs against one loopback module
# registry that answers every request after 40 ms and sends each
# connection's bodies at 25 MB/s. Builds tfdisco and the harness
# (benches/src/bin/get-bench.rs, which has the details) in release, and
# benches/c/timed.c with cc; prints medians, ratios, the network's floor,
# when tfdisco's requests came, a second working directory's run on a warm
# module cache (no archive may be downloaded), and whether each target is
# met; exits 1 if one is missed or a check fails (both tools'
# .terraform/modules and modules.json must be the same), non-zero if a run
# fails.
#
#   sh benches/get.sh [RUNS] [get-bench options...]   # 5 runs of each by default
#
# Needs `terraform` on the PATH (1.11.4 here) and a C compiler. About 40 s
# for 5 runs.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-5}
[ $# -gt 0 ] && shift
. benches/harness.sh
harness get-bench terraform

exec "$target/release/get-bench" --tfdisco "$target/release/tfdisco" --timed "$timed" \
  --runs "$runs" --work "$work" "$@"
