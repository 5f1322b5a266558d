#!/usr/bin/env bash
# The Node package's test command, from a fresh clone: the Rust side linted,
# npm ci (the napi CLI, TypeScript), the native module built (napi build,
# Cargo.lock as committed), the `tfdisco` CLI, the development server
# `tfdisco-dev` and the core's `normalize` example the tests run, then node
# --test, tsc over the typed examples, and `npm pack` installed into an
# empty project with no build.
#
#   node/run-tests.sh [NODE_TEST_ARGS...]
#
# Honours CARGO_TARGET_DIR (shared by the addon, the CLI and the example)
# and TFDISCO_NODE_BUILD=debug for a debug build of the addon (default: the
# release build `npm run build` makes, which `npm pack` ships). Needs Node 18
# or later with npm, openssl (the tests make their CA with it), the npm
# registry and crates.io.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
cd "$here"

echo "== the Rust side of the bindings: cargo fmt --check, clippy -D warnings"
cargo fmt --manifest-path "$here/Cargo.toml" --check
cargo clippy --manifest-path "$here/Cargo.toml" --locked -- -D warnings

echo "== npm ci"
npm ci --no-audit --no-fund

echo "== the native module (napi build, Cargo.lock as committed)"
case "${TFDISCO_NODE_BUILD:-release}" in
  release) npm run build -- -- --locked ;;
  debug) npm run build:debug -- -- --locked ;;
  *) echo "TFDISCO_NODE_BUILD must be release or debug" >&2; exit 2 ;;
esac

echo "== the tfdisco CLI, its development server (tfdisco-dev serve) and the core's normalize example"
(cd "$repo" && cargo build --locked -p tfdisco --bin tfdisco -p tfdisco-dev-server --bin tfdisco-dev \
    -p tfdisco-core --example normalize)
target="$(cd "$repo" && cargo metadata --locked --format-version 1 --no-deps \
    | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')"
export TFDISCO_BIN="$target/debug/tfdisco"
export TFDISCO_DEV_BIN="$target/debug/tfdisco-dev"
export TFDISCO_NORMALIZE_BIN="$target/debug/examples/normalize"

echo "== node --test"
if [ "$#" -gt 0 ]; then
  node --test "$@"
else
  npm test
fi

echo "== tsc --noEmit over the typed examples"
npm run typecheck

echo "== npm pack, installed into an empty project (no build at install time)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
tarball="$(npm pack --silent --pack-destination "$scratch")"
mkdir "$scratch/project"
(
  cd "$scratch/project"
  npm init -y >/dev/null
  npm install --no-audit --no-fund --offline --ignore-scripts "$scratch/$tarball" >/dev/null
  ls node_modules/tfdisco/tfdisco.*.node >/dev/null
  node -e '
    const t = require("tfdisco");
    if (t.normalize("Испытание.COM:443") !== "xn--80akhbyknj4f.com") throw new Error("normalize");
    new t.Client({ credentials: null, cliConfig: false });
    console.log("require(\"tfdisco\"):", Object.keys(t).length, "exports, version", t.version);
  '
  node --input-type=module -e '
    import { normalize, Hostname } from "tfdisco";
    if (normalize("München.DE:443") !== new Hostname("xn--mnchen-3ya.de".replace("xn--mnchen-3ya", "münchen")).toString()) throw new Error("esm");
    console.log("import from \"tfdisco\": ok");
  '
)
echo "$tarball installs and loads"
