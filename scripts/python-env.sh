#!/usr/bin/env bash
# A project-local Python virtualenv with the tools of test/python/requirements.txt, in
# $TONSTREAM_STATE_DIR/venv (default .local/venv). Idempotent: reinstalls only when the
# requirements file changed since the last successful install. Prints the venv's python path.
#
#   bash scripts/python-env.sh          # ensure, print path
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
STATE_DIR="${TONSTREAM_STATE_DIR:-$PWD/.local}"
VENV="$STATE_DIR/venv"
REQS=test/python/requirements.txt
STAMP="$VENV/.requirements.sha256"
want=$(sha256sum "$REQS" | cut -d' ' -f1)

if [[ ! -x $VENV/bin/python ]] || [[ $(cat "$STAMP" 2>/dev/null) != "$want" ]]; then
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    echo "python-env: installing python3-venv" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >&2
  fi
  [[ -x $VENV/bin/python ]] || python3 -m venv "$VENV" >&2
  echo "python-env: pip install -r $REQS" >&2
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS" >&2
  echo "$want" > "$STAMP"
fi
echo "$VENV/bin/python"
