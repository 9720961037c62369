#!/usr/bin/env bash
# Local Kafka, ClickHouse, Redis and Prometheus for development and CI, without Docker or systemd.
#
#   deploy/local/services.sh up|down|status|reset|env|running [kafka|clickhouse|redis|prometheus|cluster ...]
#   deploy/local/services.sh stop-node|start-node clickhouse-1..4|zookeeper-1..3
#
#   up       install what is missing, start what is not running, wait until each is ready
#   down     stop what `up` started (found by the pid files in the state dir), wait for exit
#   status   one line per service: up / down / external, and its address (exit 3 if any is not up)
#   reset    down, then delete the service's state (data, logs, config)
#   env      print KAFKA_BROKERS=, CLICKHOUSE_URL=, REDIS_URL=, PROMETHEUS_URL= lines for scripts
#   running  print the names of the locally managed services that are running (for scripts)
#
# Without service names every command acts on all four. A service whose address is already set
# (KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL, PROMETHEUS_URL) is external: never installed, started or stopped.
#
# `cluster` is opt-in (never part of "all"): a ClickHouse cluster `tonstream` of 4 servers (2 shards
# x 2 replicas, HTTP 8131-8134) over 3 ZooKeeper nodes (2181-2183), for cluster mode (issue 28).
# `env cluster` prints CLICKHOUSE_CLUSTER= and CLICKHOUSE_CLUSTER_URLS=. For outage tests,
# `stop-node NODE` stops one of its nodes and `start-node NODE` starts it again and waits until it
# is ready (NODE: clickhouse-1..4, zookeeper-1..3; clickhouse-1/2 are shard 01, clickhouse-3/4 shard 02).
# All state lives in $TONSTREAM_STATE_DIR (default <repo>/.local). See deploy/README.md.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
STATE_DIR="${TONSTREAM_STATE_DIR:-$REPO_ROOT/.local}"
mkdir -p "$STATE_DIR"
STATE_DIR="$(cd "$STATE_DIR" && pwd)"

# shellcheck source=SCRIPTDIR/lib/fds.sh
. "$HERE/lib/fds.sh"
# shellcheck source=SCRIPTDIR/lib/common.sh
. "$HERE/lib/common.sh"
# shellcheck source=SCRIPTDIR/lib/kafka.sh
. "$HERE/lib/kafka.sh"
# shellcheck source=SCRIPTDIR/lib/clickhouse.sh
. "$HERE/lib/clickhouse.sh"
# shellcheck source=SCRIPTDIR/lib/redis.sh
. "$HERE/lib/redis.sh"
# shellcheck source=SCRIPTDIR/lib/prometheus.sh
. "$HERE/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/lib/zookeeper.sh
. "$HERE/lib/zookeeper.sh"
# shellcheck source=SCRIPTDIR/lib/clickhouse-cluster.sh
. "$HERE/lib/clickhouse-cluster.sh"

ALL_SERVICES=(kafka clickhouse redis prometheus)
# Acted on only when named (lib/clickhouse-cluster.sh: cluster_up, cluster_down, ...).
OPT_IN_SERVICES=(cluster)

usage() {
  sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit "${1:-0}"
}

# port_of SERVICE: the local port that must be free before starting it.
port_of() {
  case $1 in
    kafka) echo "$KAFKA_HOST $KAFKA_PORT KAFKA_PORT KAFKA_BROKERS" ;;
    clickhouse) echo "$CLICKHOUSE_HOST $CLICKHOUSE_HTTP_PORT CLICKHOUSE_HTTP_PORT CLICKHOUSE_URL" ;;
    redis) echo "$REDIS_HOST $REDIS_PORT REDIS_PORT REDIS_URL" ;;
    prometheus) echo "$PROMETHEUS_HOST $PROMETHEUS_PORT PROMETHEUS_PORT PROMETHEUS_URL" ;;
  esac
}

# configured_address SERVICE: where a local instance would listen, from the environment.
configured_address() {
  case $1 in
    kafka) echo "$KAFKA_HOST:$KAFKA_PORT" ;;
    clickhouse) echo "http://$CLICKHOUSE_HOST:$CLICKHOUSE_HTTP_PORT" ;;
    redis) echo "redis://$REDIS_HOST:$REDIS_PORT" ;;
    prometheus) echo "http://$PROMETHEUS_HOST:$PROMETHEUS_PORT" ;;
  esac
}

# One `up` at a time per state dir (two test runs starting together would race on the ports).
# The lock is on fd 9; every server is started with all its descriptors above 2 closed
# (lib/fds.sh), so that no server keeps the lock, nor any pipe of the caller.
take_lock() {
  [[ -n ${LOCK_TAKEN:-} ]] && return 0
  LOCK_TAKEN=1
  exec 9>"$STATE_DIR/.services.lock"
  flock -w 600 9 || die "another services.sh is still running (lock $STATE_DIR/.services.lock)"
}

cmd_up() {
  local svc pid to_wait=() start
  take_lock
  for svc in "$@"; do
    if "${svc}_external"; then
      "${svc}_reachable" || die "$svc: external server $("${svc}_address") is not reachable"
      info "$svc: external, reachable at $("${svc}_address") (not managed here)"
      continue
    fi
    if pid=$("${svc}_pid"); then
      info "$svc: already running (pid $pid) at $("${svc}_address")"
      [[ $("${svc}_address") == "$(configured_address "$svc")" ]] \
        || warn "$svc: it does not use the configured $(configured_address "$svc"); run 'down $svc' first to change its address"
      continue
    fi
    local host port port_var url_var
    read -r host port port_var url_var < <(port_of "$svc")
    if tcp_open "$host" "$port"; then
      die "$svc: $host:$port is already in use by a process services.sh did not start. Stop it, choose another port with $port_var=..., or use it as an external server with $url_var=..."
    fi
    "${svc}_install"
  done
  for svc in "$@"; do
    "${svc}_external" && continue
    "${svc}_pid" >/dev/null && continue
    info "$svc: starting"
    "${svc}_start"
    to_wait+=("$svc")
  done
  for svc in "${to_wait[@]}"; do
    start=$(now_ms)
    "${svc}_wait" || die "$svc did not come up (log: $("${svc}_logfile"))"
    info "$svc: up (pid $("${svc}_pid")) at $("${svc}_address"), ready after $(elapsed_since "$start") s; log $("${svc}_logfile")"
  done
}

cmd_down() {
  local svc pid needle
  take_lock
  for svc in "$@"; do
    if "${svc}_external"; then
      info "$svc: external ($("${svc}_address")), left alone"
      continue
    fi
    if ! pid=$("${svc}_pid"); then
      info "$svc: not running"
      continue
    fi
    case $svc in
      kafka) needle=$KAFKA_PROPS ;;
      clickhouse) needle=$CH_CONFIG ;;
      redis) needle=$(redis_needle) ;;
      prometheus) needle=$PROM_CONFIG ;;
    esac
    stop_pid "$svc" "$pid" "$needle"
  done
}

cmd_status() {
  local svc pid rc=0
  for svc in "$@"; do
    if "${svc}_external"; then
      if "${svc}_reachable"; then
        printf '%-11s %-9s %s\n' "$svc" external "$("${svc}_address") (reachable)"
      else
        printf '%-11s %-9s %s\n' "$svc" external "$("${svc}_address") (NOT reachable)"
        rc=3
      fi
    elif pid=$("${svc}_pid"); then
      printf '%-11s %-9s %s\n' "$svc" up "$("${svc}_address") (pid $pid, log $("${svc}_logfile"))"
    else
      printf '%-11s %-9s %s\n' "$svc" down "$("${svc}_address")"
      rc=3
    fi
  done
  return "$rc"
}

cmd_reset() {
  local svc
  cmd_down "$@"
  for svc in "$@"; do
    "${svc}_external" && continue
    info "$svc: deleting $STATE_DIR/$svc"
    rm -rf -- "${STATE_DIR:?}/$svc"
  done
}

cmd_env() {
  local svc
  for svc in "$@"; do "${svc}_env"; done
}

cmd_running() {
  local svc
  for svc in "$@"; do
    "${svc}_external" && continue
    "${svc}_pid" >/dev/null && echo "$svc"
  done
  return 0
}

main() {
  (($# >= 1)) || usage 2
  local cmd=$1 svc rc=0 std=() cluster=0
  shift
  case $cmd in
    -h | --help | help) usage 0 ;;
    stop-node | start-node)
      (($# == 1)) || die "$cmd takes one node name: $(cluster_node_names)"
      cluster_parse_node "$1"
      take_lock
      if [[ $cmd == stop-node ]]; then cluster_stop_node "$1"; else cluster_start_node_by_name "$1"; fi
      return 0
      ;;
  esac
  for svc in "$@"; do
    [[ " ${ALL_SERVICES[*]} ${OPT_IN_SERVICES[*]} " == *" $svc "* ]] \
      || die "unknown service '$svc' (expected: ${ALL_SERVICES[*]} ${OPT_IN_SERVICES[*]})"
  done
  (($# > 0)) || set -- "${ALL_SERVICES[@]}"
  for svc in "$@"; do
    if [[ $svc == cluster ]]; then cluster=1; else std+=("$svc"); fi
  done
  case $cmd in
    up)
      if ((${#std[@]})); then cmd_up "${std[@]}"; fi
      if ((cluster)); then take_lock; cluster_up; fi
      ;;
    down | stop)
      if ((${#std[@]})); then cmd_down "${std[@]}"; fi
      if ((cluster)); then take_lock; cluster_down; fi
      ;;
    status)
      if ((${#std[@]})); then cmd_status "${std[@]}" || rc=$?; fi
      if ((cluster)); then cluster_status || rc=$?; fi
      return "$rc"
      ;;
    reset)
      if ((${#std[@]})); then cmd_reset "${std[@]}"; fi
      if ((cluster)); then take_lock; cluster_reset; fi
      ;;
    env)
      if ((${#std[@]})); then cmd_env "${std[@]}"; fi
      if ((cluster)); then cluster_env; fi
      ;;
    running)
      if ((${#std[@]})); then cmd_running "${std[@]}"; fi
      if ((cluster)); then cluster_running; fi
      ;;
    *) printf 'unknown command: %s\n\n' "$cmd" >&2; usage 2 ;;
  esac
}

main "$@"
