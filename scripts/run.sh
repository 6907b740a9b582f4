#!/usr/bin/env bash
# Sets up (first run only), builds the page and the relay, and serves the
# playground on http://127.0.0.1:8080 (override: ADDR=host:port or --addr).
#   scripts/run.sh [relay-server flags…]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf '\033[1;36m[run]\033[0m %s\n' "$*"; }

for arg in "$@"; do
  if [[ "$arg" == "-h" || "$arg" == "--help" ]]; then
    cargo run --release -q -p relay-server -- --help
    exit 0
  fi
done

bash scripts/setup.sh
say "building the page (trunk build --release → dist/)"
bash scripts/build-web.sh
say "building relay-server (cargo build --release)"
cargo build --release -p relay-server
# An --addr given on the command line wins over ADDR / the default.
ADDR="${ADDR:-127.0.0.1:8080}"
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --addr) j=$((i + 1)); ADDR="${!j}" ;;
    --addr=*) ADDR="${!i#--addr=}" ;;
  esac
done
args=()
skip=0
for arg in "$@"; do
  if ((skip)); then skip=0; continue; fi
  case "$arg" in
    --addr) skip=1 ;;
    --addr=*) ;;
    *) args+=("$arg") ;;
  esac
done
say "starting relay-server on http://$ADDR/ — open it in a browser; Ctrl-C stops"
exec target/release/relay-server --addr "$ADDR" --dist dist "${args[@]}"
