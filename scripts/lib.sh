# shellcheck shell=bash
# Shared by scripts/test.sh, scripts/start.sh and scripts/bench.sh. Sourced with the repo root as the cwd.

# CLEAN_EXEC: prefix for anything started in the background, so that it keeps none of the caller's
# descriptors beyond the 0-2 it is given (see the file).
# shellcheck source=../deploy/local/lib/fds.sh
. deploy/local/lib/fds.sh

# The caller's own addresses (set = use that external server), captured before export_service_env
# overwrites them: services.sh must keep seeing the caller's choice, or it would take the local
# servers for external ones and never stop them.
CALLER_KAFKA_BROKERS=${KAFKA_BROKERS-}
CALLER_CLICKHOUSE_URL=${CLICKHOUSE_URL-}
CALLER_REDIS_URL=${REDIS_URL-}
CALLER_PROMETHEUS_URL=${PROMETHEUS_URL-}

# services ARGS...: deploy/local/services.sh with the caller's environment.
services() {
  KAFKA_BROKERS=$CALLER_KAFKA_BROKERS CLICKHOUSE_URL=$CALLER_CLICKHOUSE_URL REDIS_URL=$CALLER_REDIS_URL \
    PROMETHEUS_URL=$CALLER_PROMETHEUS_URL bash deploy/local/services.sh "$@"
}

# Install node_modules when missing, or when package-lock.json changed since the last install
# (npm records the installed tree in node_modules/.package-lock.json).
ensure_node_modules() {
  if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
    echo "npm ci (node_modules missing or older than package-lock.json)"
    npm ci --no-audit --no-fund
  fi
}

# Export KAFKA_BROKERS / CLICKHOUSE_URL / REDIS_URL / PROMETHEUS_URL as services.sh reports them.
export_service_env() {
  local line
  while IFS= read -r line; do
    [[ $line == *=* ]] && export "${line?}"
  done < <(services env)
}

# stop_started BEFORE: stop the locally managed servers that are running now but were not
# running at the time BEFORE (output of `services running`) was taken.
stop_started() {
  local before=$1 svc started=()
  for svc in $(services running); do
    [[ $'\n'$before$'\n' == *$'\n'$svc$'\n'* ]] || started+=("$svc")
  done
  if ((${#started[@]})); then services down "${started[@]}" || true; fi
}
