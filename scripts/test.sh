#!/usr/bin/env bash
# `npm test`: install if needed, bring up Kafka/ClickHouse/Redis, build, run every vitest project (the cluster suites last, alone).
# Arguments go to vitest (`npm test -- --project unit`). With CI=true the servers this run started
# are stopped again at the end; otherwise they stay up so the next run starts fast.
# The exit code is vitest's (or the failing step's).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

# npm ci runs beside the servers' start and the other installs, which may apt-get (kept one after the
# other: two apt-gets at once fight over dpkg's lock); its output is shown once it is done.
npm_log=$(mktemp)
ensure_node_modules >"$npm_log" 2>&1 &
npm_ci=$!

already_running=$(services running)
if [[ ${CI:-} == true ]]; then trap 'stop_started "$already_running"' EXIT; fi

services up
export_service_env
# The Python clients and tools some suites drive (toncenter SDK, schemathesis, chdb).
TONSTREAM_PYTHON=$(bash scripts/python-env.sh)
export TONSTREAM_PYTHON
# Debian's chromium for the browser suites (playwright-core drives it).
TONSTREAM_CHROMIUM=$(bash scripts/browser-env.sh)
export TONSTREAM_CHROMIUM
# docker-compose (Debian's, v1) validates docker-compose.yml (`config`: no Docker engine needed).
TONSTREAM_DOCKER_COMPOSE=$(bash scripts/debian-tool.sh docker-compose docker-compose)
export TONSTREAM_DOCKER_COMPOSE

npm_rc=0
wait "$npm_ci" || npm_rc=$?
cat "$npm_log"
rm -f "$npm_log"
((npm_rc == 0)) || exit "$npm_rc"

echo "tsc -b"
npx tsc -b
echo "tsc -p test (type-check the integration tests)"
npx tsc -p test
rc=0
if (($# > 0)); then
  npx vitest run "$@" || rc=$?
else
  # The cluster suites last, by themselves: each runs a ClickHouse cluster of its own (vitest.config.ts).
  npx vitest run --project unit --project integration --project e2e --project conformance || rc=$?
  npx vitest run --project cluster || rc=$?
fi
exit "$rc"
