#!/usr/bin/env bash
# `npm run schema:snapshot`: writes packages/store/schema.sql, the schema every migration makes, read
# back from a fresh database on the running ClickHouse (18.16). Starts nothing: bring ClickHouse up with
# `(. scripts/lib.sh; services up clickhouse)` first (or point CLICKHOUSE_URL at an 18.16 server).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

ensure_node_modules
export_service_env
npx tsc -b
node test/bench/dist/support/schema-snapshot.js
