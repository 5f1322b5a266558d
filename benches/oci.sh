#!/bin/sh
# The OCI benchmark: tfdisco pulling providers from a real OCI
# registry (Debian's docker-registry, CNCF distribution 2.8, on loopback
# with TLS, filesystem storage), as whole processes in alternating runs:
#
# - pull: `tfdisco lock --oci-mirror TEMPLATE` and `tfdisco install` from
#   an `oci_mirror` installation method, one provider and platform whose
#   package is a 100 MiB zip (and a 1 MiB one, for peak RSS), from a
#   registry asking for Basic credentials;
# - lock: `tfdisco lock --dialect opentofu` of the install benchmark's two providers ×
#   three platforms (16 MiB zips) from the loopback registry (TestServer,
#   unshaped) against the same lock with `--oci-mirror` from the same zips
#   pushed to docker-registry (Basic auth, and anonymous).
#
# Builds tfdisco and the harness (benches/src/bin/oci-bench.rs, which has
# the details) in release, and benches/c/timed.c with cc; prints medians
# and IQRs, MB/s, peak RSS, CPU, ratios and request counts, and writes
# them to $TMPDIR/tfdisco-oci-bench/report.md; exits 1 if a check fails
# (lock files that differ, an installed file that is not the package's,
# peak RSS that grows with the package), non-zero if a run fails.
#
#   sh benches/oci.sh [RUNS] [oci-bench options...]   # 7 runs of each by default
#
# Needs docker-registry and htpasswd (Debian: docker-registry
# apache2-utils), gpg (the registry's signing key is made for each run)
# and a C compiler. About 30 seconds for 7 runs, after the build.
set -eu
cd "$(dirname "$0")/.."
runs=${1:-7}
[ $# -gt 0 ] && shift
. benches/harness.sh
harness oci-bench docker-registry htpasswd gpg

exec "$target/release/oci-bench" --tfdisco "$target/release/tfdisco" \
  --timed "$timed" --runs "$runs" --work "$work" "$@"
