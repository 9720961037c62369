#!/usr/bin/env bash
# Debian's chromium for the browser suites (driven by playwright-core, which ships no browser).
# Prints the binary's path; installs the package when it is missing (scripts/debian-tool.sh).
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/debian-tool.sh" chromium chromium chromium-browser
