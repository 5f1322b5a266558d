#!/usr/bin/env bash
# Each crate's documentation stands on its own: documented alone (as
# `cargo doc --no-deps -p CRATE` and docs.rs build it), it has no broken
# intra-doc link, and no link left as literal text ("[`Item`]"), which is
# what rustdoc prints for a link into a crate it did not document.
set -euo pipefail
cd "$(dirname "$0")/.."

crates="tfdisco-core tfdisco-provider tfdisco-config tfdisco-transport tfdisco-runs tfdisco-tokio tfdisco-async-std tfdisco-curl"
docs="$(mktemp -d)"
trap 'rm -rf "$docs"' EXIT
status=0
for crate in $crates; do
  # One target directory (the dependencies are checked once), but no other
  # crate's pages in it: a link into them would resolve.
  rm -rf "$docs/doc"
  RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR="$docs" \
    cargo doc --quiet --no-deps --locked -p "$crate"
  dir="$docs/doc/${crate//-/_}"
  # Literal links in our own items' text; the inlined docs of other crates'
  # trait impls (tracing's `WithDispatch`, http-body-util's streams, …) are
  # theirs, not ours.
  literal=$(grep -rhoE '\[<code>[A-Za-z_:]+</code>\]' "$dir" --include=*.html \
    | grep -vE 'WithDispatch|Span|Collected|BodyStream|BodyDataStream|RandomState' \
    | sort -u || true)
  if [ -n "$literal" ]; then
    echo "$crate: links rendered as literal text:" >&2
    echo "$literal" >&2
    status=1
  fi
done
exit $status
