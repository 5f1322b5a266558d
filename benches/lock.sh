#!/bin/sh
# The lock benchmark: `tfdisco lock` against `terraform providers
# lock`, as processes, on the same loopback registry (`tfdisco-dev serve`'s
# signed sample providers ns/alpha and ns/beta), 2 providers × 3 platforms.
# Runs alternate (which tool goes first swaps every pair); every cold run
# starts without a lock file, every warm run from the lock file the cold run
# just wrote ("no changes"); `terraform version` and `tfdisco --version`
# are timed too, for the cost of starting each binary. Both tools must
# write byte-identical lock files, and a warm run must leave it as it was,
# or the script stops. Prints medians, the ratio against the target
# (tfdisco ≥ 3× faster, cold), peak RSS, and, from one untimed run of each
# before the timed ones, the requests each tool made (the server's log).
# Each run is timed by benches/c/timed.c (CLOCK_MONOTONIC around
# fork/exec/wait4, and wait4's ru_maxrss), built here with cc.
#
#   sh benches/lock.sh [PAIRS]          # 15 pairs by default
#
# Needs `terraform` on the PATH (1.11.4 here) and a C compiler; exits 1 if
# the lock files differ, a run fails, or the target is missed.
set -eu
cd "$(dirname "$0")/.."
pairs=${1:-15}
platforms="linux_amd64 darwin_arm64 windows_amd64"
work=${TMPDIR:-/tmp}/tfdisco-lock-bench
rm -rf "$work"
mkdir -p "$work/terraform" "$work/tfdisco"

command -v terraform >/dev/null || { echo "terraform is not on the PATH" >&2; exit 1; }
CARGO_INCREMENTAL=0 cargo build -q --release -p tfdisco -p tfdisco-dev-server
tfdisco=$PWD/target/release/tfdisco
tfdisco_dev=$PWD/target/release/tfdisco-dev
${CC:-cc} -O2 -o "$work/timed" benches/c/timed.c

# The server, on a free port; its log lists every request ("GET /path").
"$tfdisco_dev" serve --listen 127.0.0.1:0 --ca-out "$work/ca.pem" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || :' EXIT
trap 'exit 130' INT TERM
port=
for _ in $(seq 100); do
  port=$(sed -n 's|^serving https://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$work/serve.log")
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "the server did not start" >&2; exit 1; }
host=127.0.0.1:$port

for dir in terraform tfdisco; do
  cat >"$work/$dir/main.tf" <<EOF
terraform {
  required_providers {
    alpha = {
      source  = "$host/ns/alpha"
      version = "~> 1.0"
    }
    beta = {
      source  = "$host/ns/beta"
      version = ">= 0.9.0"
    }
  }
}
EOF
done
printf 'disable_checkpoint = true\n' >"$work/terraformrc"

# The same environment for both: the server's CA, no user CLI configuration,
# no checkpoint, no proxies.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
unset TF_PLUGIN_CACHE_DIR TF_DATA_DIR TF_LOG TF_CLI_ARGS TF_CLI_ARGS_providers
export SSL_CERT_FILE="$work/ca.pem" TF_CLI_CONFIG_FILE="$work/terraformrc" CHECKPOINT_DISABLE=1

tf_args="providers lock"
td_args="lock --dialect terraform --ca-file $work/ca.pem"
for p in $platforms; do
  tf_args="$tf_args -platform=$p"
  td_args="$td_args --platform $p"
done
lock_file=.terraform.lock.hcl

# run TOOL PHASE: one run in the tool's directory (cold: the lock file
# removed first; warm: it must come out unchanged; start: only the
# version, the cost of starting the binary), its output to a file,
# "nanoseconds peak-RSS-kB CPU-µs" to $work/timing; stops the script if
# it fails.
run() {
  case $2 in
    cold) rm -f "$work/$1/$lock_file" ;;
    warm) cp "$work/$1/$lock_file" "$work/before" ;;
  esac
  case $1.$2 in
    terraform.start) set -- "$@" terraform version ;;
    tfdisco.start) set -- "$@" "$tfdisco" --version ;;
    terraform.*) set -- "$@" terraform $tf_args ;;
    *) set -- "$@" "$tfdisco" $td_args ;;
  esac
  tool=$1 phase=$2; shift 2
  if ! (cd "$work/$tool" && "$work/timed" "$work/timing" "$@") >"$work/$tool.out" 2>&1; then
    echo "$tool failed:" >&2; cat "$work/$tool.out" >&2; exit 1
  fi
  if [ "$phase" = warm ] && ! cmp -s "$work/before" "$work/$tool/$lock_file"; then
    echo "$tool's warm run changed the lock file" >&2; exit 1
  fi
}

same_lock() {
  if ! cmp "$work/terraform/$lock_file" "$work/tfdisco/$lock_file" >&2; then
    diff -u "$work/terraform/$lock_file" "$work/tfdisco/$lock_file" >&2 || :
    echo "the lock files differ" >&2; exit 1
  fi
}

requests() { grep -c -E '^(GET|HEAD) ' "$work/serve.log" || :; }

# One untimed run of each tool, cold then warm, before the timed ones (so
# the binaries' first runs, from a cold page cache, are these): the
# requests it made.
for phase in cold warm; do
  for tool in terraform tfdisco; do
    before=$(requests)
    run "$tool" "$phase"
    sleep 0.5 # the server prints requests every 100 ms
    after=$(requests)
    grep -E '^(GET|HEAD) ' "$work/serve.log" | sed -n "$((before + 1)),${after}p" >"$work/requests-$tool-$phase"
  done
  if [ "$phase" = cold ]; then same_lock; fi
done
cp "$work/tfdisco/$lock_file" "$work/expected.lock.hcl"

: >"$work/results"
for i in $(seq "$pairs"); do
  if [ $((i % 2)) = 1 ]; then order="terraform tfdisco"; else order="tfdisco terraform"; fi
  for phase in cold warm start; do
    for tool in $order; do
      run "$tool" "$phase"
      echo "$tool $phase $(cat "$work/timing")" >>"$work/results"
    done
    if [ "$phase" = cold ]; then
      same_lock
      if ! cmp -s "$work/expected.lock.hcl" "$work/tfdisco/$lock_file"; then
        echo "the lock file changed between runs" >&2; exit 1
      fi
    fi
  done
done

echo "terraform: $(terraform version | head -n 1), $(wc -c <"$(command -v terraform)") bytes"
echo "tfdisco:   $("$tfdisco" --version), $(wc -c <"$tfdisco") bytes, commit $(git rev-parse --short HEAD)"
echo "machine:   $(nproc) CPUs, load average $(cut -d ' ' -f 1-3 /proc/loadavg) at the end"
echo "lock file: identical ($(wc -c <"$work/expected.lock.hcl") bytes, sha256 $(sha256sum "$work/expected.lock.hcl" | cut -c 1-16)…)"
echo
echo "requests in one run (the server's log):"
for phase in cold warm; do
  for tool in terraform tfdisco; do
    awk -v tool="$tool" -v phase="$phase" '
      { n++ }
      $2 ~ /terraform\.json$/ { d++ }
      $2 ~ /\/versions$/ { v++ }
      $2 ~ /\/download\// { m++ }
      $2 ~ /_SHA256SUMS$/ { s++ }
      $2 ~ /_SHA256SUMS\.sig$/ { g++ }
      $1 == "GET" && $2 ~ /\.zip$/ { z++ }
      $1 == "HEAD" { h++ }
      END {
        printf "  %-9s %s: %2d (discovery %d, versions %d, package metadata %d, SHA256SUMS %d, .sig %d, zip GET %d, HEAD %d)\n",
          tool, phase, n, d, v, m, s, g, z, h
      }' "$work/requests-$tool-$phase"
  done
done
echo
awk -v pairs="$pairs" '
  { k = $1 SUBSEP $2; c = ++n[k]; t[k, c] = $3 / 1e6; m[k, c] = $4; u[k, c] = $5 / 1e3 }
  function sorted(k, arr, v,   i, j, c, tmp) {
    c = n[k]; for (i = 1; i <= c; i++) v[i] = arr[k, i]
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { tmp = v[i]; v[i] = v[j]; v[j] = tmp }
    return c
  }
  function median(k, arr,   v, c) {
    c = sorted(k, arr, v)
    return (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
  }
  function range(k, arr,   v, c) { c = sorted(k, arr, v); return sprintf("%.1f–%.1f", v[1], v[c]) }
  END {
    printf "medians of %d alternating pairs; wall ms (min–max), CPU ms (user + system), peak RSS kB:\n\n", pairs
    print "| run | terraform | tfdisco | terraform / tfdisco | per pair: median (min–max) | CPU terraform | CPU tfdisco | RSS terraform | RSS tfdisco |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (p = 1; p <= 3; p++) {
      phase = (p == 1) ? "cold" : (p == 2) ? "warm" : "start"
      tf = "terraform" SUBSEP phase; td = "tfdisco" SUBSEP phase
      for (i = 1; i <= n[td]; i++) r[phase, i] = t[tf, i] / t[td, i]
      n[phase] = n[td]
      printf "| %s | %.1f (%s) | %.1f (%s) | %.2f× | %.2f× (%s) | %.1f | %.1f | %d | %d |\n",
        phase, median(tf, t), range(tf, t), median(td, t), range(td, t), median(tf, t) / median(td, t),
        median(phase, r), range2(phase), median(tf, u), median(td, u), median(tf, m), median(td, m)
    }
    print ""
    ratio = median("terraform" SUBSEP "cold", t) / median("tfdisco" SUBSEP "cold", t)
    printf "target (cold): tfdisco >= 3x faster: %s (%.2fx)\n", (ratio >= 3) ? "met" : "MISSED", ratio
    exit (ratio >= 3) ? 0 : 1
  }
  function range2(k,   v, c) { c = sorted(k, r, v); return sprintf("%.2f–%.2f", v[1], v[c]) }' "$work/results"
