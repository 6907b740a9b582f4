#!/usr/bin/env bash
# Runs every benchmark of issue #6 in one go and writes the results:
#   bench-results/<UTC date>.json   everything measured, raw
#   bench-results/latest.json       the same, newest run
#   bench-results/latest.md         the table docs/performance.md quotes
#                                   in "Latest numbers" (budgets and verdicts)
#
#   scripts/bench.sh           full run (about 9 min on the 2-core machine)
#   scripts/bench.sh --quick   short run that checks the plumbing (~3 min)
#   scripts/bench.sh --cluster also the load test through nginx to three
#                              relays (deploy/nginx.conf; relays and nginx
#                              share CPU 0), beside the single relay's
#
# In order: release builds (page, relay, load generator) and the wasm size;
# criterion on `sim` natively (sim/benches/sim.rs), the rollback model
# beside ggrs's SyncTestSession and a rollback match of 2, 4 and 8 players
# (sim/benches/rollback.rs: the server tick, an 8-player rebase, and over
# 10 s through the relay's room: tick p50 / p99, bytes/s per player each
# way), the inspector
# (sim/benches/inspect.rs), one room at 60 Hz with 2, 8 and 16 players
# (sim/benches/room.rs: tick p50 / p99, bytes/s per player each way, the
# largest room under 2 ms) and the wire figures (sim/benches/wire.rs); the
# replay and a rollback in wasm, first frame and frame times in
# headless Chromium (e2e/bench-wasm.mjs); the hot paths again with `sim` at
# opt-level 3 (the shipped profile is opt-level "s"); the relay load test
# (relay-server/examples/loadgen/, each N also with every session's
# packet trace on: its CPU overhead). Absolute times drift on a shared
# machine: compare the ratios, which come from this one run.
# Not part of scripts/test.sh (only the size check is).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf '\033[1;35m[bench]\033[0m %s\n' "$*"; }
started=$(date +%s)

quick=0
cluster=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --cluster) cluster=1 ;;
    *) echo "unknown flag $arg (--quick, --cluster)" >&2; exit 2 ;;
  esac
done
if [[ $quick -eq 1 ]]; then
  crit=(--warm-up-time 0.3 --measurement-time 1)
  wasm=(--seconds 4 --samples 5 --reloads 2)
  load=(--sessions 100,400 --duration 3 --warmup 1 --idle 1 --stall-probe 1 --trace-overhead)
  cluster_load=(--sessions 100,400 --duration 3 --warmup 1 --idle 1)
else
  crit=()
  wasm=(--seconds 10 --samples 15 --reloads 4)
  load=(--sessions 500,750,1000 --repeat 3 --bisect 2 --duration 10 --warmup 3 --idle 2 --stall-probe 10 --trace-overhead)
  # Every message crosses nginx twice, on the relays' core: fewer sessions.
  cluster_load=(--sessions 125,250,500,1000 --repeat 3 --bisect 2 --duration 10 --warmup 3 --idle 2)
fi

target_dir=$(cargo metadata --format-version 1 --no-deps --offline 2>/dev/null |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bash scripts/setup.sh --test >/dev/null
say "building the page, the bench page, the relay and the load generator (release)"
bash scripts/build-web.sh >"$tmp/build-web.log" 2>&1 || { cat "$tmp/build-web.log"; exit 1; }
bash scripts/build-web.sh --bench >"$tmp/build-web-bench.log" 2>&1 || { cat "$tmp/build-web-bench.log"; exit 1; }
cargo build --release --quiet -p relay-server --bin relay-server --example loadgen
bash scripts/check-size.sh
bash scripts/check-size.sh --json >"$tmp/size.json" || true

say "native: criterion on sim (shipped profile: opt-level \"s\", lto)"
rm -rf "$target_dir/criterion"
cargo bench --quiet -p sim --bench sim -- "${crit[@]}" 2>&1 | tee "$tmp/criterion.log" |
  grep -E '^[a-z_]+/[^ ]*|time:' | paste - - | awk '{ $1 = $1; print "  " $0 }' || true
say "native: the rollback model, beside ggrs 0.13's SyncTestSession, and matches of 2, 4, 8 players"
# --quick: criterion only (the flags' values read as filters: no 10 s match runs).
cargo bench --quiet -p sim --bench rollback -- "${crit[@]}" 2>&1 | tee "$tmp/criterion-rollback.log" |
  grep -E '^[a-z_]+/[^ ]*|time:' | paste - - | awk '{ $1 = $1; print "  " $0 }' || true
grep -E '^\{"match"' "$tmp/criterion-rollback.log" | tail -n 1 >"$tmp/match.json" || true
cat "$tmp/match.json"
say "native: the inspector (build an inspection of a 60 s run; the worst seek in it)"
cargo bench --quiet -p sim --bench inspect -- "${crit[@]}" 2>&1 | tee "$tmp/criterion-inspect.log" |
  grep -E '^[a-z_]+/[^ ]*|time:' | paste - - | awk '{ $1 = $1; print "  " $0 }' || true
say "native: one room at 60 Hz with 2, 8, 16 players (bots), and the largest room under 2 ms"
# --quick: criterion only (the report's 10 s runs and the search take minutes).
room_filter=()
[[ $quick -eq 1 ]] && room_filter=(room_tick)
cargo bench --quiet -p sim --bench room -- "${crit[@]}" "${room_filter[@]}" 2>&1 | tee "$tmp/criterion-room.log" |
  grep -E '^[a-z_]+/[^ ]*|time:' | paste - - | awk '{ $1 = $1; print "  " $0 }' || true
grep -E '^\{"room"' "$tmp/criterion-room.log" | tail -n 1 >"$tmp/room.json" || true
cat "$tmp/room.json"
cp -r "$target_dir/criterion" "$tmp/criterion"
cargo bench --quiet -p sim --bench wire -- wire | tail -n 1 >"$tmp/wire.json"
cat "$tmp/wire.json"

say "wasm: replay, rollback, first frame and frame times in headless Chromium"
RELAY_BIN="${RELAY_BIN:-$target_dir/release/relay-server}" node e2e/bench-wasm.mjs --out "$tmp/wasm.json" "${wasm[@]}" >/dev/null
cat "$tmp/wasm.json"

say "native again with sim at opt-level 3 (hot paths only)"
cargo bench --quiet --config 'profile.bench.package.sim.opt-level=3' -p sim --bench sim -- \
  "${crit[@]}" '^(perform_movement/|replay_client/60$|server/)' 2>&1 | tee "$tmp/criterion-o3.log" |
  grep -E '^[a-z_]+/[^ ]*|time:' | paste - - | awk '{ $1 = $1; print "  " $0 }' || true

say "relay load test (loopback, bounded; a fresh release relay per run; relay on CPU 0, generator on CPU 1)"
ulimit -n 20000 2>/dev/null || true
"$target_dir/release/examples/loadgen" --relay "$target_dir/release/relay-server" \
  "${load[@]}" --out "$tmp/loadgen.json" >/dev/null

if [[ $cluster -eq 1 ]]; then
  source scripts/services.sh
  services_install
  say "relay load test through nginx to three relays (relays and nginx on CPU 0, generator on CPU 1)"
  "$target_dir/release/examples/loadgen" --relay "$target_dir/release/relay-server" --via-nginx \
    --nginx "$(nginx_bin)" --nginx-conf deploy/nginx.conf \
    "${cluster_load[@]}" --stall-probe 0 --out "$tmp/loadgen-cluster.json" >/dev/null
fi

say "writing bench-results/"
mkdir -p bench-results
python3 - "$tmp" "$target_dir" "$quick" <<'EOF'
import json, os, platform, subprocess, sys, datetime
tmp, target, quick = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
cluster_path = os.path.join(tmp, "loadgen-cluster.json")
cluster = json.load(open(cluster_path)) if os.path.exists(cluster_path) else None
load = lambda n: json.load(open(os.path.join(tmp, n)))

def crit(bench_id, root=os.path.join(tmp, "criterion")):
    p = os.path.join(root, *bench_id.split("/"), "new", "estimates.json")
    try:
        return json.load(open(p))["median"]["point_estimate"]  # ns
    except (OSError, KeyError, ValueError):
        return None

ids = ["perform_movement/run", "perform_movement/turn", "perform_movement/brake",
       "replay_client/10", "replay_client/60", "replay_client/95",
       "replay_kernel/10", "replay_kernel/60", "replay_kernel/240",
       "server/server_move",
       "codec/encode_server_move", "codec/decode_server_move", "codec/encode_ack",
       "codec/decode_ack", "codec/encode_adjustment", "codec/decode_adjustment",
       "conditioner/per_packet",
       "rollback_step/arena_2p_16", "rollback_rebase/8",
       "sync_test_vs_ggrs/ours", "sync_test_vs_ggrs/ggrs", "sync_test_vs_ggrs/ours_client",
       "sync_test_machinery/ours", "sync_test_machinery/ggrs",
       "inspect_build/cmc", "inspect_build/rollback", "inspect_seek/cmc", "inspect_seek/rollback",
       "room_tick/2", "room_tick/8", "room_tick/16",
       "match_tick/2", "match_tick/4", "match_tick/8", "match_rebase/8", "room_playback/4x60s"]
native = {i: crit(i) for i in ids}
o3 = {i: crit(i, os.path.join(target, "criterion")) for i in ["perform_movement/run", "perform_movement/turn",
                                   "perform_movement/brake", "replay_client/60", "server/server_move"]}
wire, wasm, size, relay = load("wire.json"), load("wasm.json"), load("size.json"), load("loadgen.json")
try:
    room = load("room.json")
except (OSError, ValueError):
    room = {}
try:
    match = load("match.json")
except (OSError, ValueError):
    match = {}

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
now = datetime.datetime.now(datetime.timezone.utc)
result = {
    "date": now.strftime("%Y-%m-%d %H:%M UTC"),
    "quick": quick,
    "machine": {"cores": os.cpu_count(), "cpu": cpu, "kernel": platform.release(),
                "rustc": sh("rustc --version"), "chromium": wasm.get("chromium"),
                "git": sh("git describe --always --dirty")},
    "native_ns": native, "native_o3_ns": o3, "wire": wire, "wasm": wasm,
    "wasm_size": size, "relay": relay, "relay_cluster": cluster, "room": room,
    "match": match,
}
ratios = {}
for n in ["10", "60", "95"]:
    w, c = wasm.get("replay", {}).get(n, {}).get("median_ns"), native.get(f"replay_client/{n}")
    ratios[f"replay_{n}_wasm_over_native"] = round(w / c, 2) if w and c else None
wr, nr = wasm.get("rollback", {}).get("rebase_8", {}).get("median_ns"), native.get("rollback_rebase/8")
ratios["rollback_rebase_8_wasm_over_native"] = round(wr / nr, 2) if wr and nr else None
mw, mn = wasm.get("rollback", {}).get("rebase_8x8", {}).get("median_ns"), native.get("match_rebase/8")
ratios["match_rebase_8x8_wasm_over_native"] = round(mw / mn, 2) if mw and mn else None
for k, v in o3.items():
    ratios[f"{k}_s_over_o3"] = round(native[k] / v, 2) if v and native.get(k) else None
ratios["uplink_120hz_combining_off_over_on"] = round(wire["uplink_bps_120hz_combining_off"] / wire["uplink_bps_120hz_combining_on"], 2) if wire.get("uplink_bps_120hz_combining_on") else None
ratios["uplink_60hz_combining_off_over_on"] = round(wire["uplink_bps_60hz_combining_off"] / wire["uplink_bps_60hz_combining_on"], 2) if wire.get("uplink_bps_60hz_combining_on") else None
def over(a, b):
    return round(native[a] / native[b], 2) if native.get(a) and native.get(b) else None
ratios["sync_test_ggrs_over_ours"] = over("sync_test_vs_ggrs/ggrs", "sync_test_vs_ggrs/ours")
ratios["sync_test_machinery_ggrs_over_ours"] = over("sync_test_machinery/ggrs", "sync_test_machinery/ours")
result["ratios"] = ratios

# ---- the table --------------------------------------------------------
def ns(v):
    if v is None: return "–"
    if v >= 1e6: return f"{v / 1e6:.2f} ms"
    return f"{v / 1000:.2f} µs" if v >= 1000 else f"{v:.0f} ns"
def verdict(ok):
    return "met" if ok else "**missed**"
run = native["perform_movement/run"]
r60 = native["replay_client/60"]
w60 = wasm.get("replay", {}).get("60", {}).get("median_ns")
rt = ratios["replay_60_wasm_over_native"]
n_ok = relay.get("largest_n_within_budget")
runs = relay.get("runs", [])
by_n = {b["sessions"]: b for b in relay.get("by_sessions", [])}
def median_run(n, target="relay"):
    # The run whose p99 is its N's median: the row the table shows.
    rs = sorted((r for r in runs if r["sessions"] == n and r.get("target", "relay") == target), key=lambda r: r["ack_p99_ms"])
    return rs[len(rs) // 2] if rs else None
cpu_ratios = [b["cpu_ratio_to_floor"] for b in relay.get("by_sessions", []) if b.get("cpu_ratio_to_floor") is not None]
worst_cpu_ratio = max(cpu_ratios) if cpu_ratios else None
trace_rows = [b for b in relay.get("by_sessions", []) if b.get("trace_cpu_ratio") is not None]
worst_trace_ratio = max((b["trace_cpu_ratio"] for b in trace_rows), default=None)
idle_kib = max((r["idle_kib_per_session"] for r in runs if r.get("target", "relay") == "relay"), default=None)
f = wasm.get("frames", {})
ff = wasm.get("first_frame", {})
ft = wasm.get("first_frame_10mbit")
rows = [
    ("`perform_movement`, one 1/60 s step (run / turn / brake)", "≥ 10 M steps/s",
     " / ".join(f"{1e3 / native[k]:.1f} M/s" for k in ["perform_movement/run", "perform_movement/turn", "perform_movement/brake"])
     + f" ({ns(run)} running)", verdict(run and 1e3 / run >= 10)),
    ("replay of 10 / 60 / 95 SavedMoves (`Client::tick` after an Adjustment), native", "60: ≤ 10 µs",
     " / ".join(ns(native[f"replay_client/{n}"]) for n in [10, 60, 95]), verdict(r60 and r60 <= 10_000)),
    ("replay loop alone, 10 / 60 / 240 SavedMoves, native", "–",
     " / ".join(ns(native[f"replay_kernel/{n}"]) for n in [10, 60, 240]), ""),
    ("replay of 60 SavedMoves in wasm (headless Chromium), wasm/native", "≤ 3×",
     f"{ns(w60)} = {rt}× native" if rt else "–", verdict(rt is not None and rt <= 3)),
    ("server handles one ServerMove (decode → verify → simulate → check → pending → flush)", "–", ns(native["server/server_move"]), ""),
    ("encode / decode ServerMove", "–", f'{ns(native["codec/encode_server_move"])} / {ns(native["codec/decode_server_move"])}', ""),
    ("encode / decode Ack · Adjustment", "–",
     f'{ns(native["codec/encode_ack"])} / {ns(native["codec/decode_ack"])} · {ns(native["codec/encode_adjustment"])} / {ns(native["codec/decode_adjustment"])}', ""),
    ("link conditioner, per packet (send + poll)", "–", ns(native["conditioner/per_packet"]), ""),
    ("rollback: one arena step, 2 players + 16 projectiles", "–", ns(native["rollback_step/arena_2p_16"]), ""),
    ("rollback: a State 8 ticks old received and applied (hash check, desync check, restore, 8 ticks re-simulated), native", "–",
     ns(native["rollback_rebase/8"]), ""),
    ("the same rollback in wasm (headless Chromium), wasm/native", "≤ 3×",
     f'{ns(wr)} = {ratios["rollback_rebase_8_wasm_over_native"]}× native' if ratios["rollback_rebase_8_wasm_over_native"] else "–",
     verdict((ratios["rollback_rebase_8_wasm_over_native"] or 99) <= 3)),
    ("rollback sync test, check distance 8, per tick: ggrs 0.13 `SyncTestSession` / ours (same step and hash)", "≥ 5×",
     f'{ns(native["sync_test_vs_ggrs/ggrs"])} / {ns(native["sync_test_vs_ggrs/ours"])} = {ratios["sync_test_ggrs_over_ours"]}×; '
     f'machinery alone (1-D world): {ns(native["sync_test_machinery/ggrs"])} / {ns(native["sync_test_machinery/ours"])} = {ratios["sync_test_machinery_ggrs_over_ours"]}×; '
     f'the client path (1 tick + a rebase of 8): {ns(native["sync_test_vs_ggrs/ours_client"])}',
     verdict((ratios["sync_test_ggrs_over_ours"] or 0) >= 5)),
    ("inspector: worst seek in a 60 s run (59 frames re-simulated from a checkpoint), CMC / rollback", "≤ 100 ms",
     f'{ns(native["inspect_seek/cmc"])} / {ns(native["inspect_seek/rollback"])}; building the inspection once (two playbacks): '
     f'{ns(native["inspect_build/cmc"])} / {ns(native["inspect_build/rollback"])}',
     verdict(native["inspect_seek/rollback"] is not None and native["inspect_seek/rollback"] <= 100e6)),
    ("inspector in wasm (headless Chromium): worst seek in a 60 s run, CMC / rollback", "≤ 100 ms",
     " / ".join(f'{wasm.get("scrub", {}).get(m, {}).get("worst_seek_max_ms")} ms' for m in ["cmc", "rollback"])
     + "; building the inspection once: "
     + " / ".join(f'{wasm.get("scrub", {}).get(m, {}).get("build_ms")} ms' for m in ["cmc", "rollback"]),
     verdict(all((wasm.get("scrub", {}).get(m, {}).get("worst_seek_max_ms") or 1e9) <= 100 for m in ["cmc", "rollback"]))),
    ("one room at 60 Hz, 2 / 8 / 16 players (bots on the default link, firing every 0.5 s): server tick, criterion median", "–",
     " / ".join(ns(native[f"room_tick/{n}"]) for n in [2, 8, 16]), ""),
    ("the same rooms over 10 s: tick p50 / p99 · bytes/s per player up / down", "–",
     " · ".join(f'{r["players"]}: {r["tick_p50_us"]:.0f} / {r["tick_p99_us"]:.0f} µs, {r["up_bytes_per_s"]:.0f} / {r["down_bytes_per_s"]:.0f} B/s'
                for r in room.get("room", [])) or "–", ""),
    ("largest room whose p99 tick stays under 2 ms (median of three 10 s runs; the cap is 93)", "–",
     str(room.get("largest_room_p99_under_2ms", "–")), ""),
    ("rollback match of 2 / 4 / 8 players at 60 Hz (issue 22): one server tick (`MatchServer`: each player's 4-input packet, `run_tick`, Acks, States), criterion median", "–",
     " / ".join(ns(native[f"match_tick/{n}"]) for n in [2, 4, 8]), ""),
    ("the same matches over 10 s through the relay's room (`RollbackRoomHost`; each page's `RollbackPredictor`, bots, RTT 100 ms): tick p50 / p99 · bytes/s per player up / down", "–",
     " · ".join(f'{r["players"]}: {r["tick_p50_us"]:.0f} / {r["tick_p99_us"]:.0f} µs, {r["up_bytes_per_s"]:.0f} / {r["down_bytes_per_s"]:.0f} B/s'
                for r in match.get("match", [])) or "–", ""),
    ("the same matches run in wasm (headless Chromium): mean tick, native / wasm (`performance.now()` ticks by 100 µs there: its p50 / p99 say little) · bytes/s the same as natively", "–",
     " · ".join(f'{r["players"]}: {n.get("tick_mean_us", 0):.1f} / {r["tick_mean_us"]:.1f} µs'
                + ("" if (r["up_bytes_per_s"], r["down_bytes_per_s"]) == (n.get("up_bytes_per_s"), n.get("down_bytes_per_s")) else " (bytes differ!)")
                for r in wasm.get("match", []) if "tick_mean_us" in r
                for n in [next((m for m in match.get("match", []) if m["players"] == r["players"]), {})]) or "–", ""),
    ("a client rebase re-simulating 8 ticks with 8 players (State taken, restore, 8 ticks re-simulated): native / wasm (headless Chromium), wasm/native", "wasm ≤ 2× native and ≤ 1 ms",
     f'{ns(mn)} / {ns(mw)} = {ratios["match_rebase_8x8_wasm_over_native"]}× native' if ratios["match_rebase_8x8_wasm_over_native"] else "–",
     verdict(mw is not None and (ratios["match_rebase_8x8_wasm_over_native"] or 99) <= 2 and mw <= 1e6)),
    ("a saved room recording of 4 players over 60 s played back as the page opens one (issue 23): build native / wasm · worst of 1000 seeks in wasm", "build ≤ 300 ms, seek ≤ 100 ms",
     f'{ns(native["room_playback/4x60s"])} / {wasm.get("room_playback", {}).get("build_ms", "–")} ms · {wasm.get("room_playback", {}).get("seek_worst_ms", "–")} ms',
     verdict((wasm.get("room_playback", {}).get("build_ms") or 1e9) <= 300 and (wasm.get("room_playback", {}).get("seek_worst_ms") or 1e9) <= 100)),
    ("a saved rollback match recording (the golden 4 players over 63 s) played back as the page opens one: build in wasm · worst of 1000 seeks (the world and the second before it)", "build ≤ 300 ms, seek ≤ 100 ms",
     f'{wasm.get("match_playback", {}).get("build_ms", "–")} ms · {wasm.get("match_playback", {}).get("seek_worst_ms", "–")} ms',
     verdict((wasm.get("match_playback", {}).get("build_ms") or 1e9) <= 300 and (wasm.get("match_playback", {}).get("seek_worst_ms") or 1e9) <= 100)),
    ("ServerMove on the wire, typical new move", "≤ 16 B",
     f'{wire["server_move_bytes_new_only"]} B (mean {wire["server_move_bytes_mean"]} B, max {wire["server_move_bytes_max"]} B); Ack {wire["ack_bytes"]} B, Adjustment {wire["adjustment_bytes"]} B',
     verdict(wire["server_move_bytes_new_only"] is not None and wire["server_move_bytes_new_only"] <= 16)),
    ("uplink running straight at 60 Hz: move combining on (default) / off", "≤ 1.5 kB/s",
     f'{wire["uplink_bps_60hz_combining_on"]} / {wire["uplink_bps_60hz_combining_off"]} B/s ({wire["server_moves_per_s_60hz_on"]:.0f} / {wire["server_moves_per_s_60hz_off"]:.0f} ServerMoves/s + 10 pings/s; old-move redundancy off too: {wire["uplink_bps_60hz_combining_and_redundancy_off"]} B/s)',
     verdict(max(wire["uplink_bps_60hz_combining_on"], wire["uplink_bps_60hz_combining_off"]) <= 1500)),
    ("uplink running straight at 120 Hz frames: combining on / off", "–",
     f'{wire["uplink_bps_120hz_combining_on"]} / {wire["uplink_bps_120hz_combining_off"]} B/s ({wire["server_moves_per_s_120hz_on"]:.0f} / {wire["server_moves_per_s_120hz_off"]:.0f} ServerMoves/s)', ""),
    ("relay: largest N with p99 added latency ≤ 2 ms (N sessions at 60 Hz, 0 ms link; median of the runs' p99)", "≥ 1000",
     f"{n_ok}" if n_ok else "none", verdict(n_ok is not None and n_ok >= 1000)),
    ("relay CPU / transport floor's CPU, same sessions and traffic (worst N)", "≤ 1.5×",
     " · ".join(f"N={b['sessions']}: {b['cpu_ratio_to_floor']}× CPU, {b['p99_ratio_to_floor']}× p99" for b in relay.get("by_sessions", []) if b.get("cpu_ratio_to_floor") is not None) or "–",
     verdict(worst_cpu_ratio is not None and worst_cpu_ratio <= 1.5)),
    ("relay: CPU with every session's packet trace on / off, same sessions and traffic (worst N); the trace's bytes/s per session (issue 23)", "≤ 1.15×",
     " · ".join(f"N={b['sessions']}: {b['trace_cpu_ratio']}× CPU, p99 {b['trace_p99_ms_median']} ms, {b['trace_bytes_per_s_per_session']:.0f} B/s" for b in trace_rows) or "–",
     verdict(worst_trace_ratio is not None and worst_trace_ratio <= 1.15)),
    ("relay: resident memory per idle session", "≤ 64 kB",
     f"{idle_kib:.1f} KiB" if idle_kib is not None else "–", verdict(idle_kib is not None and idle_kib * 1.024 <= 64)),
    ("release wasm, raw / gzip -9", "≤ 1.5 MB / ≤ 500 kB",
     f'{size["raw_bytes"] / 1e3:.1f} kB / {size["gzip_bytes"] / 1e3:.1f} kB', verdict(size["within_budget"])),
    ("navigation → first drawn frame (localhost; cold / warm)", "–",
     f'{ff.get("cold_ms")} ms / {ff.get("warm_median_ms")} ms', ""),
    ("the same at 10 Mbit/s and 40 ms (cold, no cache): precompressed (brotli) / plain files", "–",
     f'{ft["compressed"]["median_ms"]} ms ({ft["compressed"]["kB"]} kB) / {ft["identity"]["median_ms"]} ms ({ft["identity"]["kB"]} kB)'
     if ft else "–", ""),
    (f'frame time over {f.get("seconds")} s, all panels, bot, {f.get("loss_percent")} % loss: interval mean / p95 · wasm work mean / p95',
     "–", f'{f["interval_ms"]["mean"]} / {f["interval_ms"]["p95"]} ms ({f.get("fps")} fps{", paced at 30 Hz: software WebGL" if f.get("paced_30hz") else ""}) · {f["work_ms"]["mean"]} / {f["work_ms"]["p95"]} ms'
     if f.get("interval_ms") else "–", ""),
]
pl = relay.get("placement", {})
placement_text = (f"relay pinned to CPU {pl['relay_cpu']} with {pl['relay_threads']} worker thread, the load generator on CPU {pl['generator_cpu']}"
                  if pl.get("relay_cpu") is not None else "relay and load generator unpinned on the same cores")
m = result["machine"]
lines = [f"Measured {result['date']} on {m['cores']} cores ({m['cpu']}), {m['rustc']}, Chromium {m['chromium']}, commit {m['git']}"
         + (" — QUICK RUN (plumbing check, not for quoting)" if quick else "") + ".", "",
         "| what | budget | measured (median) | verdict |", "|---|---|---|---|"]
lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
lines += ["", "Same-run ratios: "
          + "; ".join([f"wasm/native replay 10 / 60 / 95 = {ratios['replay_10_wasm_over_native']} / {ratios['replay_60_wasm_over_native']} / {ratios['replay_95_wasm_over_native']}"]
                      + [f"wasm/native rollback of 8 ticks = {ratios['rollback_rebase_8_wasm_over_native']} (8 players: {ratios['match_rebase_8x8_wasm_over_native']})"]
                      + [f"sync test ggrs/ours = {ratios['sync_test_ggrs_over_ours']} (machinery alone {ratios['sync_test_machinery_ggrs_over_ours']})"]
                      + [f"uplink combining off/on = {ratios['uplink_60hz_combining_off_over_on']} at 60 Hz, {ratios['uplink_120hz_combining_off_over_on']} at 120 Hz"]
                      + [f"`{k}` opt-level \"s\"/3 = {ratios[k + '_s_over_o3']}" for k in o3]) + ".",
          "", f"Relay load test (release relay, loopback; {placement_text}; {relay.get('repeat', 1)} runs per N, each row the run with the median p99):", "",
          "| sessions | acks/s | moves/s | relay CPU (% of 1 core) idle → load | floor CPU (ratio) | generator CPU | relay RSS idle / load | per idle session | added latency p50 / p99 / p99.9 (Ack) | floor p99 (ratio) | p99 of every run | Ping→Pong p99 |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for n in sorted(by_n):
    r, fl, b = median_run(n), median_run(n, "floor"), by_n[n]
    floor_cpu = f"{fl['relay_cpu_pct']:.0f} % ({b.get('cpu_ratio_to_floor')}×)" if fl else "–"
    floor_p99 = f"{fl['ack_p99_ms']:.2f} ms ({b.get('p99_ratio_to_floor')}×)" if fl else "–"
    lines.append(f"| {r['sessions']}{'' if r['connected'] == r['sessions'] else ' (' + str(r['connected']) + ' connected)'} | {r['acks_per_s']:.0f} | {r['moves_per_s']:.0f} | "
                 f"{r['relay_cpu_idle_pct']:.0f} → {r['relay_cpu_pct']:.0f} % | {floor_cpu} | {r['generator_cpu_pct']:.0f} % | "
                 f"{r['relay_rss_idle_bytes'] / 1048576:.1f} / {r['relay_rss_load_bytes'] / 1048576:.1f} MiB | {r['idle_kib_per_session']:.1f} KiB | "
                 f"{r['ack_p50_ms']:.2f} / {r['ack_p99_ms']:.2f} / {r['ack_p999_ms']:.2f} ms | {floor_p99} | "
                 f"{' / '.join(f'{v:.2f}' for v in by_n[n]['ack_p99_ms_runs'])} ms | {r['pong_p99_ms']:.2f} ms |")
if cluster:
    c_by_n = {b["sessions"]: b for b in cluster.get("by_sessions", [])}
    c_runs = cluster.get("runs", [])
    def c_median_run(n):
        rs = sorted((r for r in c_runs if r["sessions"] == n), key=lambda r: r["ack_p99_ms"])
        return rs[len(rs) // 2]
    lines += ["", f"Through nginx to three relays (`deploy/nginx.conf`, each session in a room of its own; the three relays, one worker thread each, and nginx's one worker share CPU 0, the generator CPU 1; {cluster.get('repeat', 1)} runs per N): largest N with p99 ≤ 2 ms: **{cluster.get('largest_n_within_budget')}** (one relay alone: {relay.get('largest_n_within_budget')}).", "",
              "| sessions | acks/s | relays CPU (3 together) idle → load | nginx CPU idle → load | per 1000 sessions: relays / nginx | added latency p50 / p99 / p99.9 (Ack) | p99 of every run | Ping→Pong p99 |",
              "|---|---|---|---|---|---|---|---|"]
    for n in sorted(c_by_n):
        r = c_median_run(n)
        per = 1000 / max(r["connected"], 1)
        lines.append(f"| {r['sessions']}{'' if r['connected'] == r['sessions'] else ' (' + str(r['connected']) + ' connected)'} | {r['acks_per_s']:.0f} | "
                     f"{r['relay_cpu_idle_pct']:.0f} → {r['relay_cpu_pct']:.0f} % | {r['proxy_cpu_idle_pct']:.0f} → {r['proxy_cpu_pct']:.0f} % | "
                     f"{r['relay_cpu_pct'] * per:.0f} % / {r['proxy_cpu_pct'] * per:.0f} % of a core | "
                     f"{r['ack_p50_ms']:.2f} / {r['ack_p99_ms']:.2f} / {r['ack_p999_ms']:.2f} ms | "
                     f"{' / '.join(f'{v:.2f}' for v in c_by_n[n]['ack_p99_ms_runs'])} ms | {r['pong_p99_ms']:.2f} ms |")
stalls = relay.get("machine_stalls", [])
if stalls:
    lines += ["", "Machine stall probe (before the runs; a pinned thread that only reads the clock, gaps over 0.5 ms): "
              + "; ".join(f"CPU {s['cpu']}: {s['probe']['gaps_over_0_5_ms']} gaps in {s['probe']['seconds']} s, "
                          f"{s['probe']['gaps_over_2_ms']} over 2 ms, {s['probe']['total_ms']} ms in all, largest {s['probe']['max_ms']} ms"
                          for s in stalls) + "."]
md = "\n".join(lines) + "\n"
stamp = now.strftime("%Y-%m-%dT%H%MZ") + ("-quick" if quick else "")
for name in [f"bench-results/{stamp}.json", "bench-results/latest.json"]:
    with open(name, "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
with open("bench-results/latest.md", "w") as fh:
    fh.write(md)
print(md)
EOF
say "done in $(( $(date +%s) - started )) s: bench-results/latest.md, bench-results/latest.json"
