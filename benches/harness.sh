# What the process benchmarks' scripts (install.sh, oci.sh) share, sourced
# from the checkout's root: `harness NAME PROGRAM...` checks that each
# PROGRAM is on the PATH, builds tfdisco and the harness binary NAME in
# release, compiles benches/c/timed.c, and sets `work` (the harness's work
# folder, $TMPDIR/tfdisco-NAME), `target` (cargo's target folder) and
# `timed` (the compiled timed.c).
harness() {
  name=$1
  shift
  work=${TMPDIR:-/tmp}/tfdisco-$name
  target=${CARGO_TARGET_DIR:-$PWD/target}
  timed=$work/../tfdisco-$name-timed
  for program in "$@"; do
    command -v "$program" >/dev/null || { echo "$program is not on the PATH" >&2; exit 1; }
  done
  CARGO_INCREMENTAL=0 cargo build -q --release -p tfdisco -p tfdisco-benches --bin tfdisco --bin "$name"
  mkdir -p "$work"
  ${CC:-cc} -O2 -o "$timed" benches/c/timed.c
}
