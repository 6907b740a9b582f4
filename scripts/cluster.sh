#!/usr/bin/env bash
# Runs the playground across three relays behind nginx, sharing PostgreSQL,
# all on loopback; Ctrl-C stops them all.
#
#   browser ─► nginx 127.0.0.1:8080 (deploy/nginx.conf; rooms pinned by hash)
#                 ├─► relay-1 127.0.0.1:8081 ┐
#                 ├─► relay-2 127.0.0.1:8082 ├─► PostgreSQL 127.0.0.1:5433 (scenarios)
#                 └─► relay-3 127.0.0.1:8083 ┘
#
#   scripts/cluster.sh [relay-server flags for every relay…]
# Installs (first run only) the build tools and Debian's postgresql and
# nginx (their system services are not started), builds the page and the
# relay, keeps PostgreSQL's data in data/cluster/postgres (PG_DIR=… to move
# it; PG_PORT=… for another port). Metrics: curl 127.0.0.1:8081/metrics.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# shellcheck source=scripts/services.sh
source scripts/services.sh
say() { printf '\033[1;36m[cluster]\033[0m %s\n' "$*"; }

PG_PORT=${PG_PORT:-5433}
PG_DIR=$(realpath -m "${PG_DIR:-data/cluster/postgres}")
STATE=$(realpath -m data/cluster)
RELAY_PORTS=(8081 8082 8083)

bash scripts/setup.sh
services_install
say "building the page (trunk build --release → dist/)"
bash scripts/build-web.sh
say "building relay-server (cargo build --release)"
cargo build --release -p relay-server

pids=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping nginx, the relays and PostgreSQL"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pg_stop "$PG_DIR"
  say "stopped"
}
trap cleanup INT TERM EXIT

mkdir -p "$STATE/nginx"
say "PostgreSQL on 127.0.0.1:$PG_PORT (data in $PG_DIR)"
pg_start "$PG_DIR" "$PG_PORT"
db=$(pg_url "$PG_PORT" playground)
if ! "$(pg_bindir)/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc \
  "SELECT 1 FROM pg_database WHERE datname = 'playground'" | grep -q 1; then
  "$(pg_bindir)/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "CREATE DATABASE playground"
fi

for i in "${!RELAY_PORTS[@]}"; do
  port=${RELAY_PORTS[$i]}
  target/release/relay-server --addr "127.0.0.1:$port" --dist dist --db "$db" \
    --instance "relay-$((i + 1))" --trusted-proxy 127.0.0.1 \
    --public-url http://127.0.0.1:8080 --drain-delay-ms 1000 "$@" &
  pids+=($!)
done
for port in "${RELAY_PORTS[@]}"; do
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
done
"$(nginx_bin)" -p "$STATE/nginx" -c "$PWD/deploy/nginx.conf" -e stderr -g 'daemon off;' &
pids+=($!)
say "open http://127.0.0.1:8080/ — three relays (127.0.0.1:${RELAY_PORTS[*]}) behind nginx; Ctrl-C stops all"
wait -n "${pids[@]}" || true
say "a process ended by itself"
