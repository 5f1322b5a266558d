#!/usr/bin/env bash
# The project's test command: formatting, lints, the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all --check

echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== each crate's docs on their own (no broken or literal links)"
scripts/check-docs.sh

echo "== cargo test"
cargo test --workspace --locked

echo "== the example crate outside the workspace (public API only, no [patch])"
example=examples/concurrent-discovery/Cargo.toml
cargo fmt --manifest-path "$example" --check
# Its own profile is a user's (full debug information); line tables are
# enough here and keep the shared target directory small.
export CARGO_PROFILE_DEV_DEBUG=line-tables-only
CARGO_TARGET_DIR=target cargo clippy --manifest-path "$example" --all-targets --locked -- -D warnings
CARGO_TARGET_DIR=target cargo test --manifest-path "$example" --locked
unset CARGO_PROFILE_DEV_DEBUG

echo "== the curl transport gives back every OpenSSL object (valgrind)"
scripts/curl-leak-check.sh

echo "== the curl transport on libcurl with GnuTLS (the conformance suite) and NSS (refused)"
scripts/curl-tls-libraries.sh

echo "== the sans-IO crates (core, provider) have no I/O dependencies"
for crate in tfdisco-core tfdisco-provider; do
  if cargo tree -p "$crate" -e normal --prefix none --locked \
      | grep -E '^(tokio|hyper|curl|async-std|async-io|mio|socket2|polling|rustix|tempfile) ' ; then
    echo "$crate must not depend on the crates above" >&2
    exit 1
  fi
done

echo "== the core's dependencies: no package signatures or archive checksums, at most 80 crates"
# sha2 is allowed: `terraform login`'s PKCE code challenge is a SHA-256 of
# the verifier (LOGIN-2). Package hashing and signatures stay the provider
# crate's; base64url of the challenge is written in the core (32 bytes).
core_tree="$(cargo tree -p tfdisco-core -e normal --prefix none --locked | sed 's/ (\*)$//' | sort -u)"
if grep -E '^(pgp|crc32fast|base64) ' <<<"$core_tree"; then
  echo "tfdisco-core must not depend on the crates above (they belong to tfdisco-provider)" >&2
  exit 1
fi
if [ "$(wc -l <<<"$core_tree")" -gt 80 ]; then
  echo "tfdisco-core depends on $(wc -l <<<"$core_tree") crates (at most 80)" >&2
  exit 1
fi

echo "== the config crate has no network dependencies"
if cargo tree -p tfdisco-config -e normal --prefix none --locked \
    | grep -E '^(tokio|hyper|curl|async-std|mio|socket2|reqwest|ureq) ' ; then
  echo "tfdisco-config must not depend on the crates above" >&2
  exit 1
fi

echo "== the transport crate decides nothing: it depends on neither the provider crate nor the runs"
if cargo tree -p tfdisco-transport -e normal --depth 1 --prefix none --locked | grep -E '^tfdisco-(provider|runs) '; then
  echo "tfdisco-transport must not depend on the crates above" >&2
  exit 1
fi

echo "== the tfdisco CLI is shipped without the test kit (serve and demo are tfdisco-dev's)"
if cargo tree -p tfdisco -e normal --prefix none --locked | grep -E '^tfdisco-(testkit|dev-server) '; then
  echo "tfdisco must not depend on the crates above" >&2
  exit 1
fi

echo "== the Python package (python/run-tests.sh: a venv, pip install ./python, pytest)"
# A debug build of the extension in the workspace's target directory, so the
# dependencies the workspace build compiled are reused.
CARGO_TARGET_DIR="$PWD/target" TFDISCO_MATURIN_ARGS="--profile dev" \
  python/run-tests.sh "$PWD/target/python-venv"

echo "== the Node package (node/run-tests.sh: npm ci, napi build, node --test, tsc, npm pack)"
# A debug build of the addon in the workspace's target directory, so the
# dependencies the workspace build compiled are reused.
# The cross-front-end test (node/test/front_ends.test.mjs) runs the Python
# package too, from the venv the step above made.
CARGO_TARGET_DIR="$PWD/target" TFDISCO_NODE_BUILD=debug \
  TFDISCO_PYTHON="$PWD/target/python-venv/bin/python" node/run-tests.sh

echo "all checks passed"
