# shellcheck shell=bash
# Redis from Debian's redis-server package (7.0 on bookworm): no persistence, daemonized.

REDIS_HOST="${REDIS_HOST:-127.0.0.1}"
REDIS_PORT="${REDIS_PORT:-6379}"

REDIS_DIR="$STATE_DIR/redis"
REDIS_PIDFILE="$REDIS_DIR/redis.pid"
REDIS_LOG="$REDIS_DIR/redis.log"

redis_external() { [[ -n ${REDIS_URL:-} ]]; }
redis_address() {
  if redis_external; then printf '%s' "$REDIS_URL"
  elif redis_pid >/dev/null; then printf 'redis://%s' "$(redis_hostport)"
  else printf 'redis://%s:%s' "$REDIS_HOST" "$REDIS_PORT"; fi
}
# host:port of our instance: as recorded when it was started, else from the environment.
redis_hostport() { recorded_address redis || printf '%s:%s' "$REDIS_HOST" "$REDIS_PORT"; }
redis_env() { printf 'REDIS_URL=%s\n' "$(redis_address)"; }
redis_logfile() { printf '%s' "$REDIS_LOG"; }
# Redis rewrites its process title to "redis-server HOST:PORT".
redis_needle() { printf 'redis-server %s' "$(redis_hostport)"; }
redis_pid() { running_pid "$REDIS_PIDFILE" "$(redis_needle)"; }

# redis_ping HOST PORT: speaks the protocol over bash /dev/tcp, so no redis-cli is needed for
# external servers. +PONG, or -NOAUTH from a password-protected server, both mean "reachable".
redis_ping() {
  timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 1; printf "PING\r\n" >&3; read -r -t 2 line <&3; [[ $line == +PONG* || $line == -NOAUTH* ]]' "$1" "$2" 2>/dev/null
}
redis_reachable() { local h p; read -r h p < <(host_port_of "$REDIS_URL" 6379); redis_ping "$h" "$p"; }

redis_install() {
  have_bin redis-server && have_bin redis-cli && return 0
  apt_install redis-server
  have_bin redis-server || die "redis: redis-server is still missing after apt-get install"
}

redis_start() {
  local server
  server=$(bin_path redis-server) || die "redis: redis-server not found"
  mkdir -p "$REDIS_DIR"
  record_address redis "$REDIS_HOST:$REDIS_PORT"
  # daemonize yes: forks, writes the pid file, returns; a failed start is reported in the log.
  # CLEAN_EXEC: the daemon keeps /dev/null and its log only, no descriptor of ours (lib/fds.sh).
  # The append-only file keeps what the tracer (incomplete traces) and the API keys need across a
  # restart. Redis writes it before answering, so a killed server loses nothing acknowledged; the
  # once-a-second fsync bounds what a machine crash loses to that second. The listpack limits keep
  # the hot tier compact: account states (sorted sets of ~200-byte members, ~3x less memory), a
  # masterchain block's and an account's transaction lists (hundreds of members; a skiplist costs
  # ~160 bytes a member), a transaction's columns and trace id (a hash with a ~1 KB value).
  "${CLEAN_EXEC[@]}" "$server" --bind "$REDIS_HOST" --port "$REDIS_PORT" --protected-mode yes \
    --save '' --appendonly yes --appendfsync everysec --zset-max-listpack-value 1024 --zset-max-listpack-entries 512 \
    --hash-max-listpack-value 4096 --dir "$REDIS_DIR" \
    --daemonize yes --pidfile "$REDIS_PIDFILE" --logfile "$REDIS_LOG" </dev/null >/dev/null 2>&1 \
    || { show_log_tail "$REDIS_LOG"; die "redis: redis-server failed to start; read $REDIS_LOG"; }
  local i
  for ((i = 0; i < 50; i++)); do [[ -s $REDIS_PIDFILE ]] && break; sleep 0.1; done
}

redis_ready() { [[ $(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]; }
redis_alive() { [[ -n $(redis_pid) ]]; }
redis_wait() { wait_ready redis "$SERVICES_TIMEOUT" redis_ready redis_alive "$REDIS_LOG"; }
