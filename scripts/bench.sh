#!/usr/bin/env bash
# `npm run --silent bench:*`: install if needed, bring up the servers when the bench needs them
# (--servers), build, then run each compiled bench file. Only the benches write to stdout (one JSON
# line each); setup goes to stderr. Servers started here stay up, as after `npm test`.
# Usage: scripts/bench.sh [--servers] FILE.js...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

exec 3>&1 1>&2
servers=false
if [[ ${1:-} == --servers ]]; then
  servers=true
  shift
fi

ensure_node_modules
if $servers; then
  services up
  export_service_env
fi
npx tsc -b
# The HTTP benches' load generator (test/bench/http-load.ts): wrk when it can be had, else their own.
TONSTREAM_WRK=$(bash scripts/debian-tool.sh wrk wrk || true)
export TONSTREAM_WRK
if $servers; then
  # Benches start their services under topic prefixes of their own: delete those topics afterwards.
  TONSTREAM_TOPIC_PREFIXES=$(mktemp)
  export TONSTREAM_TOPIC_PREFIXES
  trap 'node test/bench/dist/support/kafka-topics.js delete "$TONSTREAM_TOPIC_PREFIXES" || true; rm -f "$TONSTREAM_TOPIC_PREFIXES"' EXIT
fi
for file in "$@"; do node "$file" >&3; done
