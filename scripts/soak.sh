#!/usr/bin/env bash
# Relay soak (issue #7), not part of the test command: 50 page-like clients
# at 20 % loss (RTT 100 ms) against the release relay on a loopback port
# for 30 minutes, the relay's resident memory sampled every 10 s into a CSV.
#
#   scripts/soak.sh                       # 30 min → bench-results/soak-<date>.csv
#   DURATION=600 scripts/soak.sh          # 10 min
#   scripts/soak.sh --clients 100 --loss 30 --max-growth-kib 2048
#
# Extra arguments go to the soak example (`--help` lists them). The test
# command runs the same example for 60 s with a growth bound.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
duration="${DURATION:-1800}"
csv="${CSV:-bench-results/soak-$(date -u +%Y%m%dT%H%M%SZ).csv}"
cargo build --release -p relay-server --quiet
cargo build --release -p relay-server --example soak --quiet
exec target/release/examples/soak --clients 50 --loss 20 --rtt 100 \
  --duration "$duration" --sample 10 --csv "$csv" "$@"
