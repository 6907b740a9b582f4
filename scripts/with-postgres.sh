#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL server (loopback, a free
# port, a temporary folder removed afterwards), with its URL in
# PLAYGROUND_TEST_PG — what the relay's PostgreSQL tests read:
#   scripts/with-postgres.sh cargo test -p relay-server -- --ignored
# Installs PostgreSQL and nginx (Debian) if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
services_install
dir=$(mktemp -d /tmp/np-pg.XXXXXX)
chmod 755 "$dir"
port=$(free_port)
cleanup() { pg_stop "$dir/data"; rm -rf "$dir"; }
trap cleanup EXIT
pg_start "$dir/data" "$port"
export PLAYGROUND_TEST_PG
PLAYGROUND_TEST_PG=$(pg_url "$port")
services_say "PostgreSQL on 127.0.0.1:$port ($dir); running: $*"
"$@"
