#!/usr/bin/env bash
# The curl transport on libcurl builds whose TLS library is not OpenSSL,
# with Debian's other libcurl flavours (packages libcurl3-gnutls
# and libcurl3-nss; .ci/run installs them): the curl transport's test
# programs are linked again against them (`-lcurl` found first in a folder
# whose libcurl.so is that flavour), nothing else rebuilt.
#
# - GnuTLS: the whole conformance suite passes, every root going to libcurl
#   in one PEM bundle (in a file: this libcurl takes no CA blob).
# - NSS: building a client is refused (NSS trusts every CA certificate any
#   client of the process loaded).
#
# Part of the test command (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

libdir=/usr/lib/x86_64-linux-gnu
[ -d "$libdir" ] || libdir="$(dirname "$(ldconfig -p | awk '/libcurl\.so\.4 /{print $NF; exit}')")"
links="$(mktemp -d)"
trap 'rm -rf "$links"' EXIT

# Links the curl crate's TARGET (cargo rustc arguments) against libcurl
# flavour NAME; prints the executable's path.
link_against() {
  local name="$1"
  shift
  local lib="$libdir/libcurl-$name.so.4"
  [ -e "$lib" ] || {
    echo "$lib is needed (apt-get install libcurl3-$name; .ci/run installs it)" >&2
    exit 1
  }
  mkdir -p "$links/$name"
  ln -sf "$lib" "$links/$name/libcurl.so"
  local out exe
  out="$links/$name.json"
  cargo rustc --locked -p tfdisco-curl "$@" --message-format=json-render-diagnostics \
    -- -L "$links/$name" >"$out"
  exe="$(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])' "$out" | tail -n 1)"
  [ -n "$exe" ] || {
    echo "cargo rustc $* gave no executable" >&2
    exit 1
  }
  # Not `ldd | grep -q`: grep leaving early would fail ldd (pipefail).
  local libraries
  libraries="$(ldd "$exe")"
  grep -q "libcurl-$name.so.4" <<<"$libraries" || {
    echo "$exe is not linked against libcurl-$name:" >&2
    grep -i curl <<<"$libraries" >&2
    exit 1
  }
  echo "$exe"
}

echo "-- GnuTLS: the conformance suite"
suite="$(link_against gnutls --test conformance)"
"$suite" -q

echo "-- NSS: refused"
example="$(link_against nss --test handshakes)"
if output="$("$example" 2 2>&1)"; then
  echo "a client was built on libcurl with NSS" >&2
  exit 1
fi
grep -q "which trusts every CA certificate any client of the process loaded" <<<"$output" || {
  echo "$output" >&2
  echo "the NSS libcurl was not refused as expected" >&2
  exit 1
}
echo "refused: $(grep -m1 -o 'libcurl uses NSS/[^,]*' <<<"$output")"
