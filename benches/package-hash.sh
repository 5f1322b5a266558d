#!/usr/bin/env bash
# The package hash benchmark: h1 + zh of a provider-like archive
# (written by Go's archive/zip: a large deflated binary, a stored blob and
# thousands of small deflated files, every entry with a data descriptor),
# tfdisco's PackageHasher fed in 64 KiB chunks against Go's
# dirhash.HashZip plus a SHA-256 of the file. Runs alternate; medians.
#
#   sh benches/package-hash.sh [RUNS] [BINARY_MIB]
#
# Needs Go (1.19 here) and Debian's golang-golang-x-mod-dev.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-7}
mib=${2:-300}
work=${TMPDIR:-/tmp}/tfdisco-package-hash
mkdir -p "$work"
GO111MODULE=off go build -o "$work/mkarchive" ./benches/go/mkarchive
GO111MODULE=off GOPATH=/usr/share/gocode go build -o "$work/hashzip" ./benches/go/hashzip
CARGO_INCREMENTAL=0 cargo build -q --release -p tfdisco-benches --bin package-hash
archive="$work/package-$mib.zip"
[ -s "$archive" ] || "$work/mkarchive" "$archive" "$mib"
ls -l "$archive"
rust=target/release/package-hash
: > "$work/results"
for i in $(seq "$runs"); do
  "$work/hashzip" "$archive" | tee -a "$work/results"
  "$rust" "$archive" | tee -a "$work/results"
done
# The two hashes must agree; then the medians.
awk -F'\t' '
  { h1[$1] = $2; zh[$1] = $3; split($4, t, " "); time[$1, ++n[$1]] = t[1];
    split($5, m, " "); mem[$1, n[$1]] = m[2] }
  function median(k, arr,   i, j, v, c, tmp) {
    c = n[k]; for (i = 1; i <= c; i++) v[i] = arr[k, i]
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { tmp = v[i]; v[i] = v[j]; v[j] = tmp }
    return (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
  }
  END {
    if (h1["go"] != h1["rust"] || zh["go"] != zh["rust"]) { print "hashes differ"; exit 1 }
    g = median("go", time); r = median("rust", time)
    printf "h1 %s %s\n", h1["rust"], zh["rust"]
    printf "go   median %.3f s, VmHWM median %d kB\n", g, median("go", mem)
    printf "rust median %.3f s, VmHWM median %d kB\n", r, median("rust", mem)
    printf "speed-up %.2fx\n", g / r
  }' "$work/results"
