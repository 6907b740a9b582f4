#!/usr/bin/env bash
# Page size budget (issue #6): fails when the release wasm in dist/ is over
# 1.5 MB raw or 500 kB gzip -9 (decimal units). Run after the page build
# (scripts/build-web.sh); scripts/test.sh does.
#   scripts/check-size.sh [DIST_DIR]          human-readable line
#   scripts/check-size.sh --json [DIST_DIR]   one JSON object (scripts/bench.sh)
# WASM_MAX_RAW / WASM_MAX_GZIP (bytes) override the budgets.
set -euo pipefail
cd "$(dirname "$0")/.."

json=0
if [[ "${1:-}" == "--json" ]]; then json=1; shift; fi
dist="${1:-dist}"
max_raw="${WASM_MAX_RAW:-1500000}"
max_gz="${WASM_MAX_GZIP:-500000}"

shopt -s nullglob
wasm=("$dist"/*.wasm)
if [[ ${#wasm[@]} -ne 1 ]]; then
  echo "check-size: expected one .wasm in $dist/, found ${#wasm[@]} (build the page: scripts/build-web.sh)" >&2
  exit 1
fi
raw=$(stat -c %s "${wasm[0]}")
gz=$(gzip -9 -c "${wasm[0]}" | wc -c)
ok=1
[[ $raw -le $max_raw && $gz -le $max_gz ]] || ok=0

if [[ $json -eq 1 ]]; then
  printf '{"file":"%s","raw_bytes":%d,"gzip_bytes":%d,"max_raw_bytes":%d,"max_gzip_bytes":%d,"within_budget":%s}\n' \
    "$(basename "${wasm[0]}")" "$raw" "$gz" "$max_raw" "$max_gz" "$([[ $ok -eq 1 ]] && echo true || echo false)"
else
  awk -v f="${wasm[0]}" -v raw="$raw" -v gz="$gz" -v mr="$max_raw" -v mg="$max_gz" 'BEGIN {
    printf "check-size: %s  %.1f kB raw (budget %.0f kB, %.0f %%), %.1f kB gzip -9 (budget %.0f kB, %.0f %%)\n",
      f, raw / 1000, mr / 1000, 100 * raw / mr, gz / 1000, mg / 1000, 100 * gz / mg }'
fi
if [[ $ok -ne 1 ]]; then
  echo "check-size: FAIL: the release wasm is over budget (raw ≤ $max_raw B, gzip ≤ $max_gz B)." >&2
  echo "check-size: keep crate-type = [\"cdylib\"] only, lto and opt-level = \"s\" (TOOLCHAIN.md)." >&2
  exit 1
fi
