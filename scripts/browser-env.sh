#!/usr/bin/env bash
# Debian's chromium for the browser suites (driven by playwright-core, which ships no browser).
# Idempotent: installs the package only when the binary is missing (needs root, like apt-get).
# Prints the binary's path.
#
#   bash scripts/browser-env.sh          # ensure, print path
set -euo pipefail

find_chromium() { command -v chromium || command -v chromium-browser || true; }

bin=$(find_chromium)
if [[ -z $bin ]]; then
  if ((EUID != 0)); then echo "browser-env: chromium is missing and installing it needs root: apt-get install chromium" >&2; exit 1; fi
  echo "browser-env: installing chromium (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends chromium >&2 || {
    # A stale package index is the usual cause of "unable to locate package" / 404 on a fresh machine.
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends chromium >&2
  }
  bin=$(find_chromium)
  [[ -n $bin ]] || { echo "browser-env: chromium installed but no chromium binary on PATH" >&2; exit 1; }
fi
echo "$bin"
