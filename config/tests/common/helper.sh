#!/bin/sh
# A credentials helper for the tests, modelled on the Go implementations'
# test helper (terraform-svchost auth/testdata/main.go).
# Usage: helper LOGFILE EXTRA VERB HOSTNAME; each call is appended to LOGFILE
# as "EXTRA VERB HOSTNAME [STDIN]".
log="$1"
extra="$2"
shift 2
if [ "$#" -ne 2 ]; then
  echo "want exactly VERB HOSTNAME after the arguments, got: $*" >&2
  exit 3
fi
verb="$1"
host="$2"
case "$verb" in
get)
  echo "$extra get $host" >> "$log"
  case "$host" in
  example.com) printf '{"token":"example-token"}' ;;
  other-cred-type.example.com) printf '{"username":"alfred"}' ;;
  nothing.example.com) printf '{}' ;;
  fail.example.com)
    printf 'failing because you told me to fail\n' >&2
    exit 1
    ;;
  silent-fail.example.com) exit 1 ;;
  malformed.example.com) printf 'not json' ;;
  array.example.com) printf '[]' ;;
  null.example.com) printf 'null' ;;
  big.example.com) head -c 2000000 /dev/zero | tr '\000' ' ' ;;
  bad-token.example.com) printf '{"token":"a\\nb"}' ;;
  configured.example.com) printf '{"token":"configured-by-helper"}' ;;
  from-helper.example.com) printf '{"token":"from-helper"}' ;;
  xn--caf-dma.fr) printf '{"token":"cafe-token"}' ;;
  hang.example.com) sleep 5 ;;
  *) printf '{}' ;;
  esac
  ;;
store)
  input=$(cat)
  echo "$extra store $host $input" >> "$log"
  case "$host" in
  fail.example.com)
    printf "can't store credentials for fail.example.com" >&2
    exit 1
    ;;
  example.com)
    if [ "$input" != '{"token":"example-token"}' ]; then
      echo "unexpected stdin: $input" >&2
      exit 1
    fi
    ;;
  hang.example.com) sleep 5 ;;
  esac
  ;;
forget)
  echo "$extra forget $host" >> "$log"
  case "$host" in
  fail.example.com)
    printf "can't forget credentials for fail.example.com" >&2
    exit 1
    ;;
  esac
  ;;
*)
  echo "unknown verb $verb" >&2
  exit 2
  ;;
esac
