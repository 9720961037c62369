# shellcheck shell=bash
# Helpers shared by deploy/local/services.sh and lib/{kafka,clickhouse,redis}.sh.
# Sourced, not executed. Expects REPO_ROOT and STATE_DIR to be set by services.sh.

SERVICES_TIMEOUT="${SERVICES_TIMEOUT:-120}"   # seconds each service may take to become ready

info() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Seconds since the epoch with milliseconds, for "ready in 1.234 s" messages.
now_ms() { date +%s%3N; }
elapsed_since() { local start=$1 end; end=$(now_ms); printf '%d.%03d' $(((end - start) / 1000)) $(((end - start) % 1000)); }

# tcp_open HOST PORT: true if something accepts TCP connections there (bash /dev/tcp, 2 s bound).
tcp_open() {
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

# pid_of PIDFILE: prints the pid stored there, or nothing.
pid_of() {
  local f=$1 pid=''
  if [[ -r $f ]]; then read -r pid <"$f" 2>/dev/null || true; fi
  [[ $pid =~ ^[0-9]+$ ]] && printf '%s' "$pid"
  return 0
}

# pid_matches PID NEEDLE: the process is alive and its command line contains NEEDLE.
# NEEDLE is a path or address unique to our instance, so a recycled pid is never mistaken for ours.
pid_matches() {
  local pid=$1 needle=$2 cmdline
  [[ -n $pid && -r /proc/$pid/cmdline ]] || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *"$needle"* ]]
}

# running_pid PIDFILE NEEDLE: prints the pid if our process is running; removes a stale pid file.
running_pid() {
  local f=$1 needle=$2 pid
  pid=$(pid_of "$f")
  if [[ -n $pid ]] && pid_matches "$pid" "$needle"; then
    printf '%s' "$pid"
    return 0
  fi
  rm -f "$f" 2>/dev/null || true
  return 1
}

# A started server records the address it listens on in <state>/<svc>/address, so that status,
# env and down describe the running instance even if the port variables changed since.
recorded_address() { local f="$STATE_DIR/$1/address"; [[ -s $f ]] && cat "$f"; }
record_address() { mkdir -p "$STATE_DIR/$1"; printf '%s\n' "$2" >"$STATE_DIR/$1/address"; }

# stop_pid NAME PID NEEDLE: SIGTERM, wait up to STOP_TIMEOUT seconds, then SIGKILL.
STOP_TIMEOUT="${STOP_TIMEOUT:-60}"
stop_pid() {
  local name=$1 pid=$2 needle=$3 start waited=0
  start=$(now_ms)
  kill -TERM "$pid" 2>/dev/null || true
  while pid_matches "$pid" "$needle"; do
    if ((waited >= STOP_TIMEOUT * 10)); then
      warn "$name (pid $pid) did not exit ${STOP_TIMEOUT}s after SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  info "$name: stopped (pid $pid) in $(elapsed_since "$start") s"
}

# show_log_tail FILE [LINES]: the end of a log, for failure messages.
show_log_tail() {
  local f=$1 n=${2:-40}
  if [[ -s $f ]]; then
    printf -- '----- last %s lines of %s -----\n' "$n" "$f" >&2
    tail -n "$n" "$f" >&2
    printf -- '-----\n' >&2
  fi
}

# as_root CMD...: run as root (directly, or through sudo for a non-root user).
as_root() {
  if ((EUID == 0)); then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root to run: $* (re-run as root, or install it yourself)"
  fi
}

# apt_get ARGS...: apt-get as root, non-interactive. A package's postinst may start its daemon
# (where no policy-rc.d forbids it): that one must not keep our descriptors either (lib/fds.sh).
apt_get() { as_root "${CLEAN_EXEC[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@" </dev/null; }

# apt_install PKG...: install Debian packages; refresh the package lists only when needed.
apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install $* with your package manager"
  local p need_update=0
  for p in "$@"; do
    # No candidate means the lists are missing or too old to know the package.
    apt-cache policy "$p" 2>/dev/null | grep 'Candidate: [^(]' >/dev/null || need_update=1
  done
  local log="$STATE_DIR/apt.log" start
  start=$(now_ms)
  if ((need_update)); then
    info "apt: updating package lists"
    apt_get update >>"$log" 2>&1 || { show_log_tail "$log"; die "apt-get update failed; read $log"; }
  fi
  info "apt: installing $* (output in $log)"
  if ! apt_get install -y --no-install-recommends "$@" >>"$log" 2>&1; then
    # Stale lists can point at files the mirror no longer has: refresh once and retry.
    info "apt: install failed; updating package lists and retrying"
    apt_get update >>"$log" 2>&1 || true
    apt_get install -y --no-install-recommends "$@" >>"$log" 2>&1 \
      || { show_log_tail "$log"; die "apt-get install $* failed; read $log"; }
  fi
  info "apt: installed $* in $(elapsed_since "$start") s"
}

# have_bin NAME: found in PATH or in the sbin directories (not on a non-root user's PATH).
have_bin() {
  command -v "$1" >/dev/null 2>&1 || [[ -x /usr/sbin/$1 || -x /usr/local/sbin/$1 || -x /sbin/$1 ]]
}
bin_path() {
  local d
  if command -v "$1" 2>/dev/null; then return 0; fi
  for d in /usr/local/sbin /usr/sbin /sbin; do
    [[ -x $d/$1 ]] && { printf '%s\n' "$d/$1"; return 0; }
  done
  return 1
}

# wait_ready NAME TIMEOUT CHECK_FN ALIVE_FN LOG...: poll CHECK_FN until it succeeds; fail fast if
# ALIVE_FN says the process died, or after TIMEOUT seconds, printing the end of each LOG.
wait_ready() {
  local name=$1 timeout=$2 check=$3 alive=$4 deadline why='' f
  shift 4
  deadline=$(($(date +%s) + timeout))
  until "$check"; do
    if ! "$alive"; then
      why="exited during start-up"
    elif (($(date +%s) >= deadline)); then
      why="did not become ready within ${timeout}s (SERVICES_TIMEOUT)"
    else
      sleep 0.2
      continue
    fi
    printf 'error: %s %s; read %s\n' "$name" "$why" "$*" >&2
    for f in "$@"; do show_log_tail "$f"; done
    return 1
  done
}

# host_port_of URL_OR_HOSTPORT: "redis://h:6379/0" -> "h 6379"; "h:9092,h2:9092" -> "h 9092".
host_port_of() {
  local s=$1 default_port=$2 hp host port
  s=${s%%,*}
  s=${s#*://}
  s=${s#*@}
  hp=${s%%/*}
  if [[ $hp == \[*\]* ]]; then   # [ipv6]:port
    host=${hp%%]*}; host=${host#[}
    port=${hp##*]}; port=${port#:}
  elif [[ $hp == *:* ]]; then
    host=${hp%%:*}; port=${hp##*:}
  else
    host=$hp; port=''
  fi
  printf '%s %s\n' "$host" "${port:-$default_port}"
}
