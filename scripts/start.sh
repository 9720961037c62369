#!/usr/bin/env bash
# `npm start`: install if needed, bring up Kafka/ClickHouse/Redis, build, then run every service
# that has a services/<name>/dist/main.js, each in the background with its output prefixed by
# its name. Ctrl-C (SIGINT) or SIGTERM stops the services, then the servers this run started.
# If one service exits, the others are stopped too and its exit code is returned.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

ensure_node_modules
already_running=$(services running)
services up
export_service_env
echo "tsc -b"
npx tsc -b

declare -A PIDS=()   # name -> pid
stopping=0
sleeper=''
bootstrap=''         # pid of the one-off state bootstrap, while it runs

stop_all() {
  local rc=${1:-0} name pid
  ((stopping)) && return
  stopping=1
  trap '' INT TERM
  if [[ -n $sleeper ]]; then kill "$sleeper" 2>/dev/null || true; fi
  if [[ -n $bootstrap ]]; then kill -TERM "$bootstrap" 2>/dev/null || true; fi
  for name in "${!PIDS[@]}"; do
    kill -TERM "${PIDS[$name]}" 2>/dev/null || true
  done
  for name in "${!PIDS[@]}"; do
    pid=${PIDS[$name]}
    # Give each service SHUTDOWN_TIMEOUT_MS (default 10 s) + 5 s, then kill it.
    local deadline=$((SECONDS + ${SHUTDOWN_TIMEOUT_MS:-10000} / 1000 + 5))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "[$name] did not stop; killing pid $pid"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    echo "[$name] stopped"
  done
  # Stop only the servers this run started; ones that were already up stay up.
  stop_started "$already_running"
  if [[ -n $already_running ]]; then echo "left running (started before npm start): $(echo "$already_running" | tr '\n' ' ')"; fi
  exit "$rc"
}
# HUP too (the terminal went away): the services run in sessions of their own and would not get it.
trap 'echo; echo "stopping..."; stop_all 0' INT TERM HUP

for main in services/*/dist/main.js; do
  [[ -f $main ]] || continue
  name=$(basename "$(dirname "$(dirname "$main")")")
  # A command, not a service: npm run backfill runs it over a range and exits.
  [[ $name == backfill ]] && continue
  # setsid: Ctrl-C in the terminal reaches only this script, which sends each service one
  # SIGTERM (the runtime's shutdown treats a second signal as "exit now"). Output goes through
  # sed (line-buffered, ignoring SIGINT so late shutdown logs still show) for the prefix; $! is
  # the node pid (setsid execs without forking: a background job is no group leader, and
  # CLEAN_EXEC's shell execs node). CLEAN_EXEC: node and sed keep none of our other descriptors
  # (npm passes some beyond 0-2; see deploy/local/lib/fds.sh), only the pipe to sed and the
  # caller's stdout, which sed lets go of when node exits.
  # The API allocates ~30 KB per page: a larger young generation (services/api/README.md, "Processes").
  node_args=(--enable-source-maps)
  [[ $name == api ]] && node_args+=(--max-semi-space-size=64)
  setsid "${CLEAN_EXEC[@]}" node "${node_args[@]}" "$main" </dev/null \
    > >(trap '' INT; exec "${CLEAN_EXEC[@]}" sed -u "s/^/[$name] /") 2>&1 &
  PIDS[$name]=$!
  echo "[$name] started (pid ${PIDS[$name]})"
done

# The state bootstrap, once, beside the services: it waits until the index has its first masterchain
# block, then writes every account's state at that seqno (the prefunded wallets and every other account
# without a transaction since), unless a bootstrap there finished before (a restart: nothing to do).
# The local network keeps states for 32 rounds, so it must run now, not later. It reads the fetcher's
# global config and does nothing if that is not the local network's: upstream liteservers refuse
# liteServer.getState (a real network's states come from files, services/writer/README.md, "State
# bootstrap"). Its exit stops nothing.
if [[ -n ${PIDS[localnet]:-} && -f services/writer/dist/bootstrap-main.js ]]; then
  setsid "${CLEAN_EXEC[@]}" node --enable-source-maps services/writer/dist/bootstrap-main.js --at-index-start </dev/null \
    > >(trap '' INT; exec "${CLEAN_EXEC[@]}" sed -u "s/^/[bootstrap] /") 2>&1 &
  bootstrap=$!
  echo "[bootstrap] started (pid $bootstrap): every account's state at the seqno the index begins at, once"
fi

echo
echo "servers:"
services env | sed 's/^/  /'
if ((${#PIDS[@]} == 0)); then
  echo "no services built yet (no services/*/dist/main.js); the servers stay up until Ctrl-C"
else
  echo "endpoints:"
  [[ -n ${PIDS[api]:-} ]] && echo "  API      http://127.0.0.1:${API_PORT:-8081}  (v2: /api/v2, v3: /api/v3, /metrics, /healthcheck)"
  [[ -n ${PIDS[api]:-} ]] && echo "  status   http://127.0.0.1:${API_PORT:-8081}/status  (Prometheus: ${PROMETHEUS_URL:-none})"
  for name in "${!PIDS[@]}"; do echo "  $name  pid ${PIDS[$name]}"; done
fi
echo "Ctrl-C to stop."

if ((${#PIDS[@]} == 0)); then
  # Nothing to supervise: sleep until a signal arrives (wait returns early on a trapped signal).
  while true; do
    "${CLEAN_EXEC[@]}" sleep 3600 </dev/null >/dev/null 2>&1 &
    sleeper=$!
    wait "$sleeper" || true
  done
fi

# Supervise: when any service exits, report it and stop the rest (the bootstrap's end is only reported).
while true; do
  if [[ -n $bootstrap ]] && ! kill -0 "$bootstrap" 2>/dev/null; then
    rc=0
    wait "$bootstrap" || rc=$?
    if ((rc == 0)); then echo "[bootstrap] finished"; else echo "[bootstrap] failed (exit code $rc): accounts without a transaction since the index's start may be missing from v3; see its lines above"; fi
    bootstrap=''
  fi
  for name in "${!PIDS[@]}"; do
    if ! kill -0 "${PIDS[$name]}" 2>/dev/null; then
      rc=0
      wait "${PIDS[$name]}" || rc=$?
      echo "[$name] exited with code $rc; stopping the others"
      unset "PIDS[$name]"
      stop_all "$((rc == 0 ? 1 : rc))"
    fi
  done
  "${CLEAN_EXEC[@]}" sleep 1 </dev/null >/dev/null 2>&1 &
  sleeper=$!
  wait "$sleeper" || true
done
