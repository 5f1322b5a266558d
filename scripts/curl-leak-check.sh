#!/usr/bin/env bash
# The curl transport's OpenSSL objects are all given back (the lookup the
# issuer search replaced leaked a certificate reference per answer): many
# TLS handshakes through the issuer search, every client dropped, under
# valgrind; fails on any definitely or indirectly lost block, or any memory
# error, in the client process (the test server is a child process of its
# own, not traced). Part of the test command (scripts/test.sh).
#
#   scripts/curl-leak-check.sh [HANDSHAKES]     (default 40)
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || {
  echo "valgrind is needed (apt-get install valgrind; .ci/run installs it)" >&2
  exit 1
}
# The program is the curl crate's test `handshakes` (no test harness):
# cargo names its executable on the build's JSON line.
program="$(cargo test --locked -q -p tfdisco-curl --test handshakes --no-run --message-format=json \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "handshakes" and m.get("executable"):
        print(m["executable"])')"
[ -x "$program" ] || { echo "cargo gave no handshakes executable" >&2; exit 1; }
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --error-exitcode=99 \
    "$program" "${1:-40}" >"$log" 2>&1; then
  cat "$log" >&2
  echo "the curl transport lost memory or misused it (valgrind above)" >&2
  exit 1
fi
grep -E "discoveries|definitely lost|indirectly lost|ERROR SUMMARY" "$log"
