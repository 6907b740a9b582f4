#!/usr/bin/env bash
# Installs everything the playground and its tests need, from the package
# registries only. Idempotent: each step checks first and says what it does.
#   scripts/setup.sh          build tools (wasm32 target, trunk, wasm-bindgen)
#   scripts/setup.sh --test   also Chromium and the browser-test driver, and
#                             PostgreSQL and nginx for the relay's cluster tests
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
# Must equal the wasm-bindgen crate version pinned in web-client/Cargo.toml.
WASM_BINDGEN_VERSION=0.2.130

say() { printf '\033[1;36m[setup]\033[0m %s\n' "$*"; }

export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -q '^wasm32-unknown-unknown$'; then
  say "adding the wasm32-unknown-unknown Rust target"
  rustup target add wasm32-unknown-unknown
else
  say "wasm32-unknown-unknown target: present"
fi

# The build tools are installed without their TLS / update-check features
# and with cheap profiles instead of their own fat-LTO release profile:
# trunk only orchestrates (unoptimised it builds the page as fast), while
# wasm-bindgen rewrites the whole wasm on every build (unoptimised it adds
# ~35 s per build, so it gets opt-level 1). CPU time measured on this
# machine kind: trunk 15 min → 6.4 min, wasm-bindgen-cli 4 min → 3.5 min.
tool_profile=(
  CARGO_PROFILE_RELEASE_LTO=off
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1
  CARGO_PROFILE_RELEASE_DEBUG=0
)
trunk_profile=("${tool_profile[@]}" CARGO_PROFILE_RELEASE_OPT_LEVEL=0)

if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION from crates.io (first time only, ≈ 3 min on 2 cores)"
  env "${trunk_profile[@]}" cargo install trunk --version "$TRUNK_VERSION" --locked --no-default-features
else
  say "trunk $TRUNK_VERSION: present"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION from crates.io (first time only, ~2 min)"
  # Not --locked: its lockfile wants a webpki-roots version the registry
  # does not serve (see TOOLCHAIN.md).
  env "${tool_profile[@]}" cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features --force
else
  say "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
fi

# The page's files are served precompressed (scripts/build-web.sh writes
# .br beside .gz; relay-server/src/static_files.rs chooses by
# Accept-Encoding). Without brotli they are served gzip only.
if ! command -v brotli >/dev/null; then
  say "installing Debian brotli (the page's files are served brotli-compressed)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends brotli >/dev/null; }; then
    say "could not install brotli: the page will be served with gzip only"
  fi
else
  say "brotli: present"
fi

say "fetching Rust dependencies (cargo fetch; trunk builds offline)"
cargo fetch --quiet

if [[ "${1:-}" == "--test" ]]; then
  if ! command -v chromium >/dev/null; then
    say "installing Debian chromium (browser tests)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
  else
    say "chromium: present ($(chromium --version 2>/dev/null))"
  fi
  # shellcheck source=scripts/services.sh
  source scripts/services.sh
  services_install
  if [[ ! -d e2e/node_modules/playwright-core ]]; then
    say "installing playwright-core for the browser tests (npm, no browser download)"
    (cd e2e && npm ci --no-audit --no-fund --silent)
  else
    say "playwright-core: present"
  fi
fi
say "done"
