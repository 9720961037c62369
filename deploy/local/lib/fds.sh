# shellcheck shell=bash
# Descriptor hygiene for anything a script leaves running: Kafka, ClickHouse and Redis started by
# deploy/local/services.sh, the services started by scripts/start.sh. Sourced, not executed.
#
# A process started from a shell inherits every open descriptor of that shell, not only 0-2:
# scripts/bench.sh keeps the caller's stdout on fd 3, npm passes extra descriptors of its own, a
# test runner may pass more. A server that outlives the script and keeps one of those holds the
# caller's pipe open, so `npm run --silent bench:pipeline | tail -1` never sees EOF and hangs.
# Such a process must get /dev/null and its log files on 0-2 and nothing else.

# bash code that closes every descriptor above 2 of the shell that runs it. It lists /proc/self/fd
# (Linux), so it also finds descriptors far above 9 (npm's, or one at 251), and checks each
# still exists before closing it (the listing's own directory descriptor is gone by then).
# shellcheck disable=SC2016 # expanded by the `bash -c` that runs it
CLOSE_INHERITED_FDS='for fd in /proc/self/fd/*; do fd=${fd##*/}; if ((fd > 2)) && [[ -e /proc/self/fd/$fd ]]; then exec {fd}>&-; fi; done'

# CLEAN_EXEC CMD ARGS...: a command prefix that runs CMD with descriptors 0-2 only; redirect those
# on the call itself. An array, not a function, so that it also works after `sudo`, `setsid` or
# `setpriv`:   "${CLEAN_EXEC[@]}" server --daemon </dev/null >>"$log" 2>&1
# shellcheck disable=SC2016,SC2034 # "$@" is the bash -c's; used by the files that source this one
CLEAN_EXEC=(bash -c "$CLOSE_INHERITED_FDS"'; exec "$@"' clean-exec)
