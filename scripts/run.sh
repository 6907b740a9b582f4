#!/usr/bin/env bash
# Sets up (first run only), builds the page and the relay, and serves the
# playground on http://127.0.0.1:8080 (override: ADDR=host:port or --addr).
#   scripts/run.sh [relay-server flags…]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf '\033[1;36m[run]\033[0m %s\n' "$*"; }

bash scripts/setup.sh
say "building the page (trunk build --release → dist/)"
bash scripts/build-web.sh
say "building relay-server (cargo build --release)"
cargo build --release -p relay-server
ADDR="${ADDR:-127.0.0.1:8080}"
say "starting relay-server on http://$ADDR/ — open it in a browser; Ctrl-C stops"
exec target/release/relay-server --addr "$ADDR" --dist dist "$@"
