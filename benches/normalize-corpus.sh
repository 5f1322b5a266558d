#!/bin/sh
# The sha256 of the `normalize` example's output on the benchmarks' hostname
# corpora: the 10 000-name corpus of `hostnames::corpus` and 10 000 names near
# the edges of the ASCII fast path (`hostnames::edge_corpus`). A change to
# `Hostname::parse` or `hostname::for_display` must leave both unchanged
# (as the hostname targets required): run this on the commit before the
# change and on the change.
#
#     sh benches/normalize-corpus.sh
set -eu
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet -p tfdisco-core --example normalize -p tfdisco-benches --bin corpus
for corpus in "" --edges; do
    printf '%s  corpus %s\n' \
        "$("$target/release/corpus" $corpus 10000 | "$target/release/examples/normalize" | sha256sum | cut -d' ' -f1)" \
        "${corpus:-(main)}"
done
