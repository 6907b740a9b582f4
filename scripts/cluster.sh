#!/usr/bin/env bash
# Runs the playground across relays behind nginx, sharing PostgreSQL, all
# on loopback.
#
#   browser ─► nginx 127.0.0.1:8080 (deploy/nginx.conf; rooms pinned by hash)
#                 ├─► relay-1 127.0.0.1:8081 ┐
#                 ├─► relay-2 127.0.0.1:8082 ├─► PostgreSQL 127.0.0.1:5433
#                 └─► relay-3 127.0.0.1:8083 ┘   (scenarios, live rooms)
#
#   scripts/cluster.sh [relay-server flags…]   start, in the foreground (Ctrl-C stops all)
#   scripts/cluster.sh stop                    stop one started elsewhere (another terminal, or `&`)
#   scripts/cluster.sh add                     start one more relay and reload nginx
#   scripts/cluster.sh remove NAME             take relay NAME (e.g. relay-2) out of nginx, then
#                                              stop it: its rooms move, players and seats with them
#   scripts/cluster.sh status                  the relays, nginx and PostgreSQL, and their pids
#   scripts/cluster.sh nginx-conf LISTEN RELAY…
#                                              print deploy/nginx.conf for these host:port addresses
#
# Settings (environment): NGINX_PORT (8080), RELAY_PORTS ("8081 8082 8083"),
# PG_PORT (5433), STATE_DIR (data/cluster: pids, logs, nginx's files),
# PG_DIR (STATE_DIR/postgres), DIST (dist: the built page), RELAY_BIN
# (CARGO_TARGET_DIR/release/relay-server, CARGO_TARGET_DIR defaulting to
# target), BUILD (1; 0 uses RELAY_BIN and DIST as they are).
#
# Installs (first run only) the build tools and Debian's postgresql and
# nginx (their system services are not started), builds the page and the
# relay. Metrics: curl 127.0.0.1:8081/metrics (each relay's own).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf '\033[1;36m[cluster]\033[0m %s\n' "$*"; }

NGINX_PORT=${NGINX_PORT:-8080}
read -r -a RELAY_PORTS <<<"${RELAY_PORTS:-8081 8082 8083}"
PG_PORT=${PG_PORT:-5433}
STATE=$(realpath -m "${STATE_DIR:-data/cluster}")
PG_DIR=$(realpath -m "${PG_DIR:-$STATE/postgres}")
DIST=$(realpath -m "${DIST:-dist}")
RELAY_BIN=$(realpath -m "${RELAY_BIN:-${CARGO_TARGET_DIR:-target}/release/relay-server}")
BUILD=${BUILD:-1}
RELAYS_FILE=$STATE/relays   # one "NAME PORT" line per relay in nginx's list
NGINX_DIR=$STATE/nginx

# deploy/nginx.conf listening on $1, with the relays $2… in its upstream
# (the shipped file's listen line and server lines replaced).
nginx_conf() {
  local listen=$1 servers="" relay
  shift
  for relay in "$@"; do
    servers+="        server $relay max_fails=1 fail_timeout=10s;"$'\n'
  done
  LISTEN=$listen SERVERS=$servers awk '
    /^ *listen 127\.0\.0\.1:8080;/ { sub(/127\.0\.0\.1:8080/, ENVIRON["LISTEN"]); print; next }
    /^ *server 127\.0\.0\.1:808[1-9] / { if (!done) { printf "%s", ENVIRON["SERVERS"]; done = 1 }; next }
    { print }' deploy/nginx.conf
}

pid_of() { cat "$STATE/pids/$1" 2>/dev/null || true; }
alive() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null; }

# Writes nginx's configuration for the relays in $RELAYS_FILE.
write_nginx_conf() {
  local addrs=()
  while read -r _ port; do addrs+=("127.0.0.1:$port"); done <"$RELAYS_FILE"
  nginx_conf "127.0.0.1:$NGINX_PORT" "${addrs[@]}" >"$NGINX_DIR/nginx.conf"
}

# Starts relay NAME on PORT (in the background, logging to STATE/NAME.log)
# with the flags the cluster was started with.
start_relay() {
  local name=$1 port=$2 db flags=()
  db=$(pg_url "$PG_PORT" playground)
  [[ -f "$STATE/relay-flags" ]] && mapfile -t flags <"$STATE/relay-flags"
  "$RELAY_BIN" --addr "127.0.0.1:$port" --dist "$DIST" --db "$db" \
    --instance "$name" --trusted-proxy 127.0.0.1 \
    --public-url "http://127.0.0.1:$NGINX_PORT" --drain-delay-ms 1000 "${flags[@]}" \
    >>"$STATE/$name.log" 2>&1 &
  echo $! >"$STATE/pids/$name"
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    alive "$(pid_of "$name")" || break
    sleep 0.1
  done
  say "relay $name did not start: see $STATE/$name.log"
  return 1
}

# Stops relay NAME (SIGTERM: it hands off its rooms, drains, exits).
stop_relay() {
  local pid
  pid=$(pid_of "$1")
  if alive "$pid"; then
    kill -TERM "$pid"
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$STATE/pids/$1"
}

stop_all() {
  local f pid
  say "stopping nginx, the relays and PostgreSQL"
  for f in "$STATE"/pids/*; do
    [[ -e "$f" ]] || continue
    [[ $(basename "$f") == cluster ]] && continue
    pid=$(cat "$f")
    alive "$pid" && kill -TERM "$pid" 2>/dev/null
  done
  for f in "$STATE"/pids/*; do
    [[ -e "$f" ]] || continue
    [[ $(basename "$f") == cluster ]] && continue
    pid=$(cat "$f")
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    rm -f "$f"
  done
  pg_stop "$PG_DIR"
  say "stopped"
}

case "${1:-start}" in
  nginx-conf)
    shift
    [[ $# -ge 2 ]] || { echo "usage: scripts/cluster.sh nginx-conf LISTEN RELAY…" >&2; exit 2; }
    nginx_conf "$@"
    exit 0
    ;;
esac

# shellcheck source=scripts/services.sh
source scripts/services.sh

case "${1:-start}" in
  stop)
    cluster=$(pid_of cluster)
    if alive "$cluster"; then
      # Its trap stops everything it started, and what `add` did.
      kill -TERM "$cluster"
      for _ in $(seq 150); do alive "$cluster" || break; sleep 0.1; done
    fi
    stop_all
    exit 0
    ;;
  status)
    for f in "$STATE"/pids/*; do
      [[ -e "$f" ]] || continue
      pid=$(cat "$f")
      printf '%-10s pid %-8s %s\n' "$(basename "$f")" "$pid" "$(alive "$pid" && echo running || echo gone)"
    done
    [[ -f "$PG_DIR/postmaster.pid" ]] && echo "postgres   port $PG_PORT, data in $PG_DIR"
    exit 0
    ;;
  add)
    [[ -f "$RELAYS_FILE" ]] || { echo "no cluster in $STATE: start one first" >&2; exit 1; }
    last=$(awk '{ n = $1; sub(/^relay-/, "", n); if (n + 0 > m) m = n + 0 } END { print m }' "$RELAYS_FILE")
    port=${RELAY_PORT:-$(($(awk '{ if ($2 > m) m = $2 } END { print m }' "$RELAYS_FILE") + 1))}
    name="relay-$((last + 1))"
    start_relay "$name" "$port"
    echo "$name $port" >>"$RELAYS_FILE"
    write_nginx_conf
    "$(nginx_bin)" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e stderr -s reload
    say "$name on 127.0.0.1:$port, nginx reloaded: the rooms its hash now names stay where they are; their newcomers are passed on to them"
    exit 0
    ;;
  remove)
    name=${2:?usage: scripts/cluster.sh remove NAME (see scripts/cluster.sh status)}
    grep -q "^$name " "$RELAYS_FILE" || { echo "no relay $name in $RELAYS_FILE" >&2; exit 1; }
    [[ $(wc -l <"$RELAYS_FILE") -gt 1 ]] || { echo "$name is the last relay: use stop" >&2; exit 1; }
    grep -v "^$name " "$RELAYS_FILE" >"$RELAYS_FILE.new" && mv "$RELAYS_FILE.new" "$RELAYS_FILE"
    write_nginx_conf
    "$(nginx_bin)" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e stderr -s reload
    say "nginx reloaded without $name; stopping it (its rooms move with their seats)"
    stop_relay "$name"
    say "$name stopped"
    exit 0
    ;;
  start) shift || true ;;
  -*) ;;
  *) echo "unknown command $1 (start, stop, add, remove, status, nginx-conf)" >&2; exit 2 ;;
esac

if alive "$(pid_of cluster)"; then
  echo "a cluster runs already in $STATE (pid $(pid_of cluster)): scripts/cluster.sh stop" >&2
  exit 1
fi
if [[ $BUILD == 1 ]]; then
  bash scripts/setup.sh
  say "building the page (trunk build --release → dist/)"
  bash scripts/build-web.sh
  say "building relay-server (cargo build --release)"
  cargo build --release -p relay-server
fi
services_install

mkdir -p "$STATE/pids" "$NGINX_DIR"
echo $$ >"$STATE/pids/cluster"
: >"$STATE/relay-flags"
[[ $# -eq 0 ]] || printf '%s\n' "$@" >"$STATE/relay-flags"
cleanup() {
  trap - INT TERM EXIT
  rm -f "$STATE/pids/cluster"
  stop_all
}
trap cleanup INT TERM EXIT

say "PostgreSQL on 127.0.0.1:$PG_PORT (data in $PG_DIR)"
pg_start "$PG_DIR" "$PG_PORT"
if ! "$(pg_bindir)/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc \
  "SELECT 1 FROM pg_database WHERE datname = 'playground'" | grep -q 1; then
  "$(pg_bindir)/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "CREATE DATABASE playground"
fi

: >"$RELAYS_FILE"
for i in "${!RELAY_PORTS[@]}"; do
  start_relay "relay-$((i + 1))" "${RELAY_PORTS[$i]}"
  echo "relay-$((i + 1)) ${RELAY_PORTS[$i]}" >>"$RELAYS_FILE"
done
write_nginx_conf
"$(nginx_bin)" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e stderr -g 'daemon off;' \
  2>>"$STATE/nginx.log" &
echo $! >"$STATE/pids/nginx"
say "open http://127.0.0.1:$NGINX_PORT/ — relays on 127.0.0.1:${RELAY_PORTS[*]} behind nginx (logs in $STATE)"
say "Ctrl-C (or scripts/cluster.sh stop) stops all; scripts/cluster.sh add / remove NAME change the relays"
# Relays come and go (add, remove): watch nginx, the front door.
while alive "$(pid_of nginx)"; do sleep 1; done
say "nginx ended by itself"
