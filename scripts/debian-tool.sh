#!/usr/bin/env bash
# A tool some suites drive, from Debian: installs PACKAGE when none of the BINARIES is on PATH, then
# prints the first one found. Idempotent; installing needs root, like apt-get.
#
#   bash scripts/debian-tool.sh PACKAGE BINARY...     # e.g. chromium chromium chromium-browser
set -euo pipefail
package=$1
shift

find_bin() { for b in "$@"; do command -v "$b" && return; done; true; }

bin=$(find_bin "$@")
if [[ -z $bin ]]; then
  if ((EUID != 0)); then echo "debian-tool: $1 is missing and installing it needs root: apt-get install $package" >&2; exit 1; fi
  echo "debian-tool: installing $package (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "$package" >&2 || {
    # A stale package index is the usual cause of "unable to locate package" / 404 on a fresh machine.
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends "$package" >&2
  }
  bin=$(find_bin "$@")
  [[ -n $bin ]] || { echo "debian-tool: $package installed but none of $* is on PATH" >&2; exit 1; }
fi
echo "$bin"
