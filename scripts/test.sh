#!/usr/bin/env bash
# Sets up (first run only) and runs every test: format and lint checks,
# the Rust unit/integration/property tests, the wasm build of `sim`, and the
# browser end-to-end tests in headless Chromium against the real relay
# serving the real built page.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf '\033[1;36m[test]\033[0m %s\n' "$*"; }
started=$(date +%s)
# A stage that hangs fails with its name instead of eating CI's 90 minutes
# (a full run takes ~30 min on 2 cores; each limit is ~3x its stage).
bounded() {
  local limit=$1; shift
  timeout --kill-after=10 "$limit" "$@" || {
    local rc=$?
    [ "$rc" -eq 124 ] && say "TIMED OUT after ${limit}s: $*"
    return "$rc"
  }
}

bash scripts/setup.sh --test

say "cargo fmt --check"
cargo fmt --all --check
say "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --quiet -- -D warnings
say "cargo clippy for wasm32 (web-client, sim)"
cargo clippy --target wasm32-unknown-unknown -p web-client -p sim --quiet -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p web-client --features bench --quiet -- -D warnings

say "Rust tests (sim, relay-server, web-client)"
bounded 1800 cargo test --workspace

say "relay tests on PostgreSQL and through nginx (#[ignore]d by default; a throwaway server on loopback)"
bounded 900 bash scripts/with-postgres.sh cargo test -p relay-server -- --ignored

say "building the page, the bench page (golden and bench exports) and the relay (release)"
bash scripts/build-web.sh
bash scripts/check-size.sh
bash scripts/build-web.sh --bench
cargo build --release -p relay-server --quiet

say "relay soak, 60 s: 50 clients at 20 % loss, RSS growth ≤ 1 MiB (scripts/soak.sh runs 30 min)"
cargo run --quiet -p relay-server --example soak -- \
  --duration 60 --max-growth-kib 1024 --csv target/soak-60s.csv

say "browser end-to-end tests (headless Chromium)"
(cd e2e && bounded 1500 npm test)

say "all tests passed in $(( $(date +%s) - started )) s"
