# shellcheck shell=bash
# A local ClickHouse cluster for cluster mode (issue 28): 4 servers of the same 18.16 package as
# lib/clickhouse.sh, as 2 shards x 2 replicas named `tonstream`, over the 3-node ZooKeeper ensemble of
# lib/zookeeper.sh. The opt-in service group `cluster` of services.sh (never part of "all").
# Sourced after lib/clickhouse.sh and lib/zookeeper.sh.
#
# Node N (1..4) is shard 0((N+1)/2) and replica clickhouse-N (macros {shard}, {replica}); it listens
# for HTTP on CLICKHOUSE_CLUSTER_HTTP_BASE_PORT+N-1, for the native protocol on
# CLICKHOUSE_CLUSTER_TCP_BASE_PORT+N-1 and for replica fetches on
# CLICKHOUSE_CLUSTER_INTERSERVER_BASE_PORT+N-1, and keeps everything in $STATE_DIR/cluster/chN.

CLICKHOUSE_CLUSTER_HOST="${CLICKHOUSE_CLUSTER_HOST:-127.0.0.1}"
CLICKHOUSE_CLUSTER_HTTP_BASE_PORT="${CLICKHOUSE_CLUSTER_HTTP_BASE_PORT:-8131}"
CLICKHOUSE_CLUSTER_TCP_BASE_PORT="${CLICKHOUSE_CLUSTER_TCP_BASE_PORT:-9031}"
CLICKHOUSE_CLUSTER_INTERSERVER_BASE_PORT="${CLICKHOUSE_CLUSTER_INTERSERVER_BASE_PORT:-9041}"
# Mark cache and uncompressed cache of each node (the single server has 256 MiB of each).
CLICKHOUSE_CLUSTER_CACHE_BYTES="${CLICKHOUSE_CLUSTER_CACHE_BYTES:-67108864}"
CH_CLUSTER_NAME=tonstream
CH_CLUSTER_NODES=4

CLUSTER_DIR="$STATE_DIR/cluster"

chc_dir() { printf '%s' "$CLUSTER_DIR/ch$1"; }
chc_config() { printf '%s' "$CLUSTER_DIR/ch$1/config.xml"; }
chc_pidfile() { printf '%s' "$CLUSTER_DIR/ch$1/run/clickhouse-server.pid"; }
chc_logfile() { printf '%s' "$CLUSTER_DIR/ch$1/log/clickhouse-server.log"; }
chc_http_port() { printf '%s' $((CLICKHOUSE_CLUSTER_HTTP_BASE_PORT + $1 - 1)); }
chc_tcp_port() { printf '%s' $((CLICKHOUSE_CLUSTER_TCP_BASE_PORT + $1 - 1)); }
chc_interserver_port() { printf '%s' $((CLICKHOUSE_CLUSTER_INTERSERVER_BASE_PORT + $1 - 1)); }
chc_shard() { printf '%02d' $((($1 + 1) / 2)); }
chc_pid() { running_pid "$(chc_pidfile "$1")" "$(chc_config "$1")"; }
# Node N's HTTP URL: as recorded at its start while it runs, else from the environment.
chc_url() {
  if chc_pid "$1" >/dev/null && recorded_address "cluster/ch$1"; then :
  else printf 'http://%s:%s' "$CLICKHOUSE_CLUSTER_HOST" "$(chc_http_port "$1")"; fi
}
# chc_query N SQL: the answer of node N (TabSeparated); fails on an HTTP error.
chc_query() { curl -fsS -m 5 --data-binary "$2" "$(chc_url "$1")/" 2>/dev/null; }

# The cluster sections of node N's config.xml; the rest is the single server's (clickhouse_write_config_files).
chc_cluster_xml() {
  local n=$1 h=$CLICKHOUSE_CLUSTER_HOST s r i
  printf '    <!-- Cluster node %s of %s: lib/clickhouse-cluster.sh (services.sh up cluster). -->\n' "$n" "$CH_CLUSTER_NODES"
  printf '    <remote_servers>\n        <%s>\n' "$CH_CLUSTER_NAME"
  for ((s = 1; s <= CH_CLUSTER_NODES / 2; s++)); do
    # internal_replication: a Distributed insert writes one replica, ReplicatedMergeTree copies it.
    printf '            <shard>\n                <internal_replication>true</internal_replication>\n'
    for ((r = 2 * s - 1; r <= 2 * s; r++)); do
      printf '                <replica><host>%s</host><port>%s</port></replica>\n' "$h" "$(chc_tcp_port "$r")"
    done
    printf '            </shard>\n'
  done
  printf '        </%s>\n    </remote_servers>\n' "$CH_CLUSTER_NAME"
  printf '    <zookeeper>\n'
  for ((i = 1; i <= ZOOKEEPER_NODES; i++)); do
    printf '        <node index="%s"><host>%s</host><port>%s</port></node>\n' "$i" "$ZOOKEEPER_HOST" "$(zk_client_port "$i")"
  done
  printf '        <session_timeout_ms>30000</session_timeout_ms>\n    </zookeeper>\n'
  printf '    <macros>\n        <cluster>%s</cluster>\n        <shard>%s</shard>\n        <replica>clickhouse-%s</replica>\n    </macros>\n' \
    "$CH_CLUSTER_NAME" "$(chc_shard "$n")" "$n"
  # ON CLUSTER queries are queued here; each node's DDL worker runs the ones naming its host:port.
  printf '    <distributed_ddl>\n        <path>/clickhouse/task_queue/ddl</path>\n    </distributed_ddl>'
}

chc_write_config() {
  local n=$1
  clickhouse_write_config_files "$(chc_dir "$n")" "$CLICKHOUSE_CLUSTER_HOST" "$(chc_http_port "$n")" "$(chc_tcp_port "$n")" \
    "$CLICKHOUSE_CLUSTER_CACHE_BYTES" \
    "<interserver_http_port>$(chc_interserver_port "$n")</interserver_http_port>
    <interserver_http_host>$CLICKHOUSE_CLUSTER_HOST</interserver_http_host>" \
    "$(chc_cluster_xml "$n")"
}

# chc_ports_free N: dies if one of node N's ports is taken by a process we did not start.
chc_ports_free() {
  local n=$1 port var
  for var in CLICKHOUSE_CLUSTER_HTTP_BASE_PORT CLICKHOUSE_CLUSTER_TCP_BASE_PORT CLICKHOUSE_CLUSTER_INTERSERVER_BASE_PORT; do
    port=$((${!var} + n - 1))
    if tcp_open "$CLICKHOUSE_CLUSTER_HOST" "$port"; then
      die "clickhouse-$n: $CLICKHOUSE_CLUSTER_HOST:$port is already in use by a process services.sh did not start. Stop it or choose other ports with $var=... (node N uses $var+N-1)"
    fi
  done
}

chc_start() {
  local n=$1 dir
  dir=$(chc_dir "$n")
  mkdir -p "$dir"/{data,tmp,user_files,format_schemas,log,run}
  chc_write_config "$n"
  record_address "cluster/ch$n" "http://$CLICKHOUSE_CLUSTER_HOST:$(chc_http_port "$n")"
  rm -f "$(chc_pidfile "$n")"
  clickhouse_launch "clickhouse-$n" "$dir" "$(chc_pidfile "$n")"
}

chc_alive() { [[ -n $(chc_pid "$1") ]]; }
chc_ping_ok() { clickhouse_ping "$(chc_url "$1")"; }
# The node sees the whole cluster and its ZooKeeper: what ON CLUSTER and Replicated* tables need.
chc_cluster_ok() {
  [[ $(chc_query "$1" "SELECT count() FROM system.clusters WHERE cluster = '$CH_CLUSTER_NAME'") == "$CH_CLUSTER_NODES" ]] \
    && chc_query "$1" "SELECT count() FROM system.zookeeper WHERE path = '/'" >/dev/null
}
# chc_wait N: until node N answers, then until it sees the cluster and ZooKeeper (wait_ready calls
# its checks without arguments, so the node goes in CHC_WAIT_NODE).
chc_wait() {
  CHC_WAIT_NODE=$1
  local logs=("$(chc_logfile "$1")" "$(chc_dir "$1")/log/stderr.log")
  wait_ready "clickhouse-$1" "$SERVICES_TIMEOUT" chc_wait_ping chc_wait_alive "${logs[@]}" || return 1
  wait_ready "clickhouse-$1 (system.clusters, system.zookeeper)" "$SERVICES_TIMEOUT" chc_wait_cluster chc_wait_alive "${logs[@]}"
}
chc_wait_ping() { chc_ping_ok "$CHC_WAIT_NODE"; }
chc_wait_cluster() { chc_cluster_ok "$CHC_WAIT_NODE"; }
chc_wait_alive() { chc_alive "$CHC_WAIT_NODE"; }

chc_stop() {
  local n=$1 pid
  if ! pid=$(chc_pid "$n"); then
    info "clickhouse-$n: not running"
    return 0
  fi
  stop_pid "clickhouse-$n" "$pid" "$(chc_config "$n")"
}

# --- the service group `cluster` (services.sh up|down|status|reset|env|running cluster) ---

cluster_install() {
  zookeeper_install
  clickhouse_install
}

# cluster_start_node KIND N: start one node unless it runs, and wait until it is ready.
cluster_start_node() {
  local kind=$1 n=$2 pid start
  if pid=$("${kind}_pid" "$n"); then
    info "$(cluster_node_name "$kind" "$n"): already running (pid $pid) at $(cluster_node_address "$kind" "$n")"
    return 0
  fi
  "${kind}_ports_free" "$n"
  cluster_install
  info "$(cluster_node_name "$kind" "$n"): starting"
  start=$(now_ms)
  "${kind}_start" "$n"
  "${kind}_wait" "$n" || die "$(cluster_node_name "$kind" "$n") did not come up (log: $(cluster_node_log "$kind" "$n"))"
  info "$(cluster_node_name "$kind" "$n"): up (pid $("${kind}_pid" "$n")) at $(cluster_node_address "$kind" "$n"), ready after $(elapsed_since "$start") s"
}

cluster_node_name() { if [[ $1 == zk ]]; then printf 'zookeeper-%s' "$2"; else printf 'clickhouse-%s' "$2"; fi; }
cluster_node_address() { if [[ $1 == zk ]]; then zk_hostport "$2"; else chc_url "$2"; fi; }
cluster_node_log() { if [[ $1 == zk ]]; then zk_logfile "$2"; else chc_logfile "$2"; fi; }

cluster_up() {
  local n pid start modes=()
  start=$(now_ms)
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do zk_pid "$n" >/dev/null || zk_ports_free "$n"; done
  for ((n = 1; n <= CH_CLUSTER_NODES; n++)); do chc_pid "$n" >/dev/null || chc_ports_free "$n"; done
  cluster_install
  # ZooKeeper first, all nodes at once (a quorum needs two), then the ClickHouse servers.
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do
    if pid=$(zk_pid "$n"); then
      info "zookeeper-$n: already running (pid $pid) at $(zk_hostport "$n")"
    else
      info "zookeeper-$n: starting"
      zk_start "$n"
    fi
  done
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do
    zk_wait "$n" || die "zookeeper-$n did not come up (log: $(zk_logfile "$n"))"
  done
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do modes+=("zookeeper-$n $(zk_mode "$n")"); done
  info "zookeeper: ensemble ready ($(IFS=,; printf '%s' "${modes[*]}" | sed 's/,/, /g')) after $(elapsed_since "$start") s"
  for ((n = 1; n <= CH_CLUSTER_NODES; n++)); do
    if pid=$(chc_pid "$n"); then
      info "clickhouse-$n: already running (pid $pid) at $(chc_url "$n")"
      [[ $(chc_url "$n") == "http://$CLICKHOUSE_CLUSTER_HOST:$(chc_http_port "$n")" ]] \
        || warn "clickhouse-$n: it does not use the configured port $(chc_http_port "$n"); run 'down cluster' first to change it"
    else
      info "clickhouse-$n: starting"
      chc_start "$n"
    fi
  done
  for ((n = 1; n <= CH_CLUSTER_NODES; n++)); do
    chc_wait "$n" || die "clickhouse-$n did not come up (log: $(chc_logfile "$n"))"
  done
  info "cluster: up after $(elapsed_since "$start") s: $CH_CLUSTER_NAME = 2 shards x 2 replicas at $(cluster_urls) (ZooKeeper $(cluster_zk_hosts))"
}

cluster_down() {
  local n
  # The ClickHouse servers first: they close their ZooKeeper sessions on the way out.
  for ((n = CH_CLUSTER_NODES; n >= 1; n--)); do chc_stop "$n"; done
  for ((n = ZOOKEEPER_NODES; n >= 1; n--)); do zk_stop "$n"; done
}

cluster_status() {
  local n pid rc=0
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do
    if pid=$(zk_pid "$n"); then
      printf '%-12s %-9s %s\n' "zookeeper-$n" up "$(zk_hostport "$n") (pid $pid, $(zk_mode "$n" || echo 'not serving'), log $(zk_logfile "$n"))"
    else
      printf '%-12s %-9s %s\n' "zookeeper-$n" down "$(zk_hostport "$n")"
      rc=3
    fi
  done
  for ((n = 1; n <= CH_CLUSTER_NODES; n++)); do
    if pid=$(chc_pid "$n"); then
      printf '%-12s %-9s %s\n' "clickhouse-$n" up "$(chc_url "$n") (pid $pid, shard $(chc_shard "$n"), log $(chc_logfile "$n"))"
    else
      printf '%-12s %-9s %s\n' "clickhouse-$n" down "$(chc_url "$n")"
      rc=3
    fi
  done
  return "$rc"
}

cluster_reset() {
  cluster_down
  info "cluster: deleting $CLUSTER_DIR"
  rm -rf -- "${CLUSTER_DIR:?}"
}

cluster_urls() {
  local n urls=()
  for ((n = 1; n <= CH_CLUSTER_NODES; n++)); do urls+=("$(chc_url "$n")"); done
  (IFS=,; printf '%s' "${urls[*]}")
}
cluster_zk_hosts() {
  local n hosts=()
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do hosts+=("$(zk_hostport "$n")"); done
  (IFS=,; printf '%s' "${hosts[*]}")
}
cluster_env() {
  printf 'CLICKHOUSE_CLUSTER=%s\n' "$CH_CLUSTER_NAME"
  printf 'CLICKHOUSE_CLUSTER_URLS=%s\n' "$(cluster_urls)"
}

# `cluster` counts as running while any of its nodes does (so that a script stops what it started).
cluster_running() {
  local n
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do zk_pid "$n" >/dev/null && { echo cluster; return 0; }; done
  for ((n = 1; n <= CH_CLUSTER_NODES; n++)); do chc_pid "$n" >/dev/null && { echo cluster; return 0; }; done
  return 0
}

cluster_node_names() {
  local n names=()
  for ((n = 1; n <= CH_CLUSTER_NODES; n++)); do names+=("clickhouse-$n"); done
  for ((n = 1; n <= ZOOKEEPER_NODES; n++)); do names+=("zookeeper-$n"); done
  printf '%s' "${names[*]}"
}
# cluster_parse_node NAME: sets NODE_KIND (chc or zk) and NODE_N for clickhouse-N / zookeeper-N;
# dies on anything else.
cluster_parse_node() {
  local name=$1
  NODE_N=${name##*-}
  if [[ $name =~ ^clickhouse-[0-9]+$ ]] && ((NODE_N >= 1 && NODE_N <= CH_CLUSTER_NODES)); then NODE_KIND=chc
  elif [[ $name =~ ^zookeeper-[0-9]+$ ]] && ((NODE_N >= 1 && NODE_N <= ZOOKEEPER_NODES)); then NODE_KIND=zk
  else die "unknown cluster node '$name' (expected one of: $(cluster_node_names))"; fi
}

# For outage tests: stop or start one node of the cluster, leaving the others as they are.
cluster_stop_node() {
  cluster_parse_node "$1"
  "${NODE_KIND}_stop" "$NODE_N"
}
cluster_start_node_by_name() {
  cluster_parse_node "$1"
  cluster_start_node "$NODE_KIND" "$NODE_N"
}
