#!/usr/bin/env bash
# Builds the browser client into dist/ with Trunk (release, offline), writes
# the precompressed copies the relay serves (NAME.br with brotli -Z when
# brotli is installed, NAME.gz with gzip -9; relay-server/src/static_files.rs)
# and prints the wasm size. Needs the tools from scripts/setup.sh.
#
# `--bench` builds the bench page instead, into target/dist-bench/: the
# same page with web-client's feature `bench` (the golden suite's wasm
# fingerprints and the wasm timings, web-client/src/bench/), which
# e2e/golden.test.mjs and e2e/bench-wasm.mjs load. dist/ stays the page
# users get, without them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

command -v trunk >/dev/null || { echo "build-web: trunk not found; run scripts/setup.sh" >&2; exit 1; }
command -v wasm-bindgen >/dev/null || { echo "build-web: wasm-bindgen not found; run scripts/setup.sh" >&2; exit 1; }

dist=dist
if [[ "${1:-}" == "--bench" ]]; then
  shift
  dist=target/dist-bench
  set -- --features bench --dist "$dist" "$@"
fi

# A panic message names its source file; the cargo registry's prefix
# (/root/.cargo/registry/src/index.crates.io-…/, on 39 of them) tells a
# reader nothing and differs between machines, so it is cut to "crates"
# (160 B gzip of the page, 2026-12-03). Only the wasm target sees these
# flags (trunk passes --target), so build scripts keep theirs.
for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=${d%/}=crates"
done
export RUSTFLAGS

start=$(date +%s.%N)
trunk build --release "$@"
end=$(date +%s.%N)

shopt -s nullglob
wasm=("$dist"/*.wasm)
[[ ${#wasm[@]} -eq 1 ]] || { echo "build-web: expected one .wasm in $dist/, found ${#wasm[@]}" >&2; exit 1; }
[[ -f "$dist/gl.js" ]] || { echo "build-web: $dist/gl.js missing (post_build hook did not run?)" >&2; exit 1; }
for f in "$dist"/*.wasm "$dist"/*.js "$dist"/*.html "$dist"/*.css; do
  gzip -9 -k -f "$f"
  if command -v brotli >/dev/null; then brotli -Z -k -f "$f"; fi
done
command -v brotli >/dev/null || echo "build-web: brotli not installed (scripts/setup.sh installs it): gzip copies only" >&2
raw=$(stat -c %s "${wasm[0]}")
gz=$(stat -c %s "${wasm[0]}.gz")
br=$(if [[ -f "${wasm[0]}.br" ]]; then stat -c %s "${wasm[0]}.br"; else echo 0; fi)
awk -v f="${wasm[0]}" -v raw="$raw" -v gz="$gz" -v br="$br" -v s="$start" -v e="$end" 'BEGIN {
  printf "build-web: %s  %d bytes raw (%.1f KiB), %d bytes gzip -9 (%.1f KiB), %d bytes brotli (%.1f KiB); trunk build took %.1f s\n",
    f, raw, raw / 1024, gz, gz / 1024, br, br / 1024, e - s }'
