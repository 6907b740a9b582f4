#!/usr/bin/env bash
# Trunk post_build hook (see Trunk.toml). Makes wasm-bindgen's glue and
# miniquad's gl.js share one module instance (see /work/shared/TOOLCHAIN.md):
#
#  1. wasm-bindgen `--target web` writes one `import * as importN from "env"`
#     line per miniquad import; there is no such ES module. Delete those lines
#     and make the glue take its "env" imports from gl.js's global
#     `importObject.env` instead (`"env": importN,` -> `"env": importObject.env,`).
#     Fail if any `from "env"` survives.
#  2. Copy gl.js from the miniquad crate actually compiled (found with
#     `cargo metadata`), so the JS and Rust halves always match.
#
# Trunk sets TRUNK_STAGING_DIR; the script can also be run by hand on a
# directory: scripts/patch-glue.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."

staging="${1:-${TRUNK_STAGING_DIR:?TRUNK_STAGING_DIR not set (run from Trunk or pass a directory)}}"
die() { echo "patch-glue: error: $*" >&2; exit 1; }

shopt -s nullglob
patched=0
for js in "$staging"/*.js; do
  [[ "$(basename "$js")" == gl.js ]] && continue
  # Only the wasm-bindgen glue mentions the "env" module.
  if ! grep -Eq 'from ?["'\'']env["'\'']|["'\'']env["'\'']: ?import[0-9]+' "$js"; then
    # Already patched (hook run twice on one staging dir) or not the glue.
    grep -q '"env": importObject.env,' "$js" && patched=$((patched + 1))
    continue
  fi
  sed -E -i \
    -e '/^[[:space:]]*import \* as import[0-9]+ from ?["'\'']env["'\''];?[[:space:]]*$/d' \
    -e 's/(["'\'']env["'\'']): ?import[0-9]+,/\1: importObject.env,/g' \
    "$js"
  # One `"env": importObject.env,` entry per former import line; keep one.
  awk '/^[[:space:]]*"env": importObject\.env,[[:space:]]*$/ { if (seen++) next } { print }' \
    "$js" >"$js.tmp" && mv "$js.tmp" "$js"
  if grep -nE 'from ?["'\'']env["'\'']|["'\'']env["'\'']: ?import[0-9]+' "$js" >&2; then
    die "$js still references the \"env\" module after patching (wasm-bindgen output format changed?)"
  fi
  grep -q 'importObject.env' "$js" || die "$js: no \"env\": importN entry was rewritten"
  echo "patch-glue: patched $js"
  patched=$((patched + 1))
done
[[ $patched -ge 1 ]] || die "no wasm-bindgen glue with \"env\" imports found in $staging"

# Locate miniquad's gl.js for the version in Cargo.lock.
# --offline first (Trunk builds offline); fall back to a normal run in case
# some package outside web-client's graph is not in the cargo cache yet.
metadata() {
  cargo metadata --format-version 1 --filter-platform wasm32-unknown-unknown \
    --manifest-path web-client/Cargo.toml "$@"
}
meta_json=$(metadata --offline 2>/dev/null || metadata) || die "cargo metadata failed"
manifest_dir=$(
  printf '%s' "$meta_json" |
  python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
pkgs = [p for p in meta["packages"] if p["name"] == "miniquad"]
if len(pkgs) != 1:
    sys.exit("patch-glue: expected exactly one miniquad package, found %d" % len(pkgs))
print(os.path.dirname(pkgs[0]["manifest_path"]))
sys.stderr.write("patch-glue: miniquad %s\n" % pkgs[0]["version"])
'
)
gl_js="$manifest_dir/js/gl.js"
[[ -f "$gl_js" ]] || die "$gl_js not found"
cp "$gl_js" "$staging/gl.js"
# Let the page choose the WebGL context attributes (www/index.html turns
# MSAA off on software renderers, where it halves the frame rate): pass
# window.miniquad_context_attributes (undefined = browser defaults).
sed -E -i 's/canvas\.getContext\("(webgl2?)"\)/canvas.getContext("\1", window.miniquad_context_attributes)/g' "$staging/gl.js"
[[ $(grep -c 'miniquad_context_attributes' "$staging/gl.js") -eq 2 ]] ||
  die "gl.js: expected 2 getContext calls to patch (miniquad's gl.js changed?)"
echo "patch-glue: copied $gl_js (context attributes patched)"
