// The golden scenario suite in wasm: every file in `scenarios/` replays in
// the page's wasm (`scenario_outcome`) to exactly the outcome recorded
// natively — trajectory hash, state hash, adjustments, replayed moves,
// acks, moves sent; four are rollback runs. `sim/tests/golden.rs` checks
// the same files natively. The rollback arena's fingerprint — a minute of
// random inputs, fire included, stepped and hashed — is the native one, and
// so is each golden room run's (one per public bug report of issue #26,
// pinned in `sim::endpoints::room::reports`, checked natively by
// `sim/tests/room_reports.rs`), and each golden room recording
// (scenarios/rooms/, replayed natively by `sim/tests/room_golden.rs`)
// replays to the native line.
// JSON files go through the relay first (POST, which also replays them
// natively and refuses a wrong outcome with 422; then GET the compact
// bytes), so a file saved from the page joins both checks as it is.
// Each golden rollback match (scenarios/matches/: every player's inputs as
// the server used them, tick by tick) replays in wasm (`match_replay`, its
// compact .bin twin) to the per-tick hash digest and final hash of its JSON
// file, which sim/tests/golden_matches.rs checks natively.
// The frozen corpus of old links (scenarios/frozen/, one per released
// format version) opens, upgrades and replays in wasm to what
// scenarios/frozen/manifest.json declares, as sim/tests/frozen.rs checks
// natively. So does the link conditioner's fate of a fixed packet sequence
// (`fate_fingerprint`, pinned in sim/tests/conditioner.rs).
// These exports live in the bench page (`scripts/build-web.sh --bench`,
// target/dist-bench/); the page users load leaves them out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { relayAndBrowser, ROOT, BENCH_DIST } from './harness.mjs';

assert.ok(existsSync(join(BENCH_DIST, 'index.html')), `no bench page in ${BENCH_DIST}: build it with scripts/build-web.sh --bench`);
const env = relayAndBrowser({ dist: BENCH_DIST });

/** The recorded outcome of a JSON scenario, hashes as 16 hex digits
 * (read from the text: they are 64-bit integers, beyond JSON.parse). */
function recordedOutcome(text) {
  const m = text.match(/"outcome":\{([^}]*)\}/);
  assert.ok(m, 'a recorded outcome');
  const field = (name) => BigInt(m[1].match(new RegExp(`"${name}":(\\d+)`))[1]);
  const hex = (v) => v.toString(16).padStart(16, '0');
  return `frames=${field('frames')} state=${hex(field('state_hash'))} trajectory=${hex(field('trajectory_hash'))} `
    + `adjustments=${field('adjustments')} replayed=${field('replayed_moves')} acks=${field('acks')} moves=${field('moves_sent')}`;
}

/** The compact bytes of a JSON scenario, through the relay's API. */
async function compact(text) {
  const saved = await fetch(`${env.relay.url}api/scenarios`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  assert.equal(saved.status, 201, await saved.clone().text());
  const { id } = await saved.json();
  const got = await fetch(`${env.relay.url}api/scenarios/${id}`, { headers: { accept: 'application/octet-stream' } });
  assert.equal(got.status, 200);
  return new Uint8Array(await got.arrayBuffer());
}

test('every golden scenario replays in wasm to its native outcome', async (t) => {
  const dir = join(ROOT, 'scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  assert.ok(files.length >= 13, `${files.length} files`);
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.scenario_outcome, null, { timeout: 20_000 });
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const bytes = await compact(text);
    const got = await page.evaluate((b) => window.wasmBindings.scenario_outcome(new Uint8Array(b)), Array.from(bytes));
    t.diagnostic(`${file}: ${got}`);
    assert.equal(got, recordedOutcome(text), file);
  }
  await page.close();
});

test('every frozen old link replays in wasm as the native replay declares', async (t) => {
  const dir = join(ROOT, 'scenarios', 'frozen');
  const { scenarios } = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const versions = new Set(scenarios.map((s) => s.version));
  assert.ok(versions.size >= 3 && [1, 2, 3].every((v) => versions.has(v)), `versions ${[...versions]}`);
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.scenario_verdict, null, { timeout: 20_000 });
  let replayed = 0;
  for (const s of scenarios) {
    const bytes = readFileSync(join(dir, `${s.stem}.bin`));
    const got = await page.evaluate((b) => window.wasmBindings.scenario_verdict(new Uint8Array(b)), Array.from(bytes));
    t.diagnostic(`${s.stem}.bin: ${got}`);
    const m = got.match(/^version=(\d+) frames=\d+ trajectory=([0-9a-f]{16}) verdict=(.*)$/);
    assert.ok(m, got);
    assert.deepEqual([Number(m[1]), m[2], m[3]], [s.version, s.replay.trajectory_hash, s.replay.verdict], s.stem);
    replayed++;
  }
  assert.equal(replayed, scenarios.length);
  await page.close();
});

test('the rollback arena steps and hashes bit for bit as natively', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.arena_fingerprint, null, { timeout: 20_000 });
  // sim/tests/rollback_sync.rs pins 0x7d67_cea5_2987_4cdf natively.
  assert.equal(await page.evaluate(() => window.wasmBindings.arena_fingerprint(7, 3600)), '7d67cea529874cdf');
  assert.notEqual(await page.evaluate(() => window.wasmBindings.arena_fingerprint(8, 3600)), '7d67cea529874cdf');
  await page.close();
});

test('every golden room run replays in wasm to its pinned native fingerprint', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.room_report, null, { timeout: 20_000 });
  const names = (await page.evaluate(() => window.wasmBindings.room_report_names())).split(',');
  assert.deepEqual(names, ['sbox-2931', 'etlegacy-1644', 'garrysmod-4667', 'chickynoid-29', 'sbox-issues-2099', 'riseofthedead-875', 'mirror-3423', 'lightyear-1450']);
  for (const name of names) {
    const line = await page.evaluate((n) => window.wasmBindings.room_report(n), name);
    t.diagnostic(`${name}: ${line}`);
    const m = line.match(/^pinned=([0-9a-f]{16}) fingerprint=([0-9a-f]{16}) /);
    assert.ok(m, line);
    assert.equal(m[2], m[1], name);
  }
  await page.close();
});

test('every golden rollback match replays in wasm to its native per-tick hashes', async (t) => {
  const dir = join(ROOT, 'scenarios', 'matches');
  const stems = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  assert.deepEqual(stems, ['2p-rtt100-200-5pct', '4p-rtt100-200-5pct']);
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.match_replay, null, { timeout: 20_000 });
  for (const stem of stems) {
    // The header's fields come before the recording (hashes as hex text).
    const head = readFileSync(join(dir, `${stem}.json`), 'utf8').slice(0, 4096);
    const field = (name) => head.match(new RegExp(`"${name}":"?([0-9a-f]+)"?`))[1];
    const bytes = readFileSync(join(dir, `${stem}.bin`));
    const [got, ms] = await page.evaluate((b) => {
      const started = performance.now();
      const line = window.wasmBindings.match_replay(new Uint8Array(b));
      return [line, performance.now() - started];
    }, Array.from(bytes));
    t.diagnostic(`${stem}: ${got} (${bytes.length} B decoded and replayed in ${ms.toFixed(1)} ms)`);
    assert.equal(got, `ticks=${field('ticks')} digest=${field('digest')} final=${field('final_hash')} mismatch=none`, stem);
  }
  await page.close();
});

test('every golden room recording replays in wasm to its native line', async (t) => {
  // scenarios/rooms/*.json: a CMC room's authoritative inputs recorded by
  // its host (compact bytes in base64) and the line the native replay
  // gives (sim/tests/room_golden.rs): tick count, last tick hash, shots,
  // hits, and a digest over every tick hash and verdict.
  const dir = join(ROOT, 'scenarios', 'rooms');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  assert.deepEqual(files, ['bot-respawn-leave.json', 'duel-150-200ms-3pct.json']);
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.room_replay, null, { timeout: 20_000 });
  for (const file of files) {
    const { compact, replay } = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const bytes = Array.from(Buffer.from(compact, 'base64'));
    const got = await page.evaluate((b) => window.wasmBindings.room_replay(new Uint8Array(b)), bytes);
    t.diagnostic(`${file}: ${got}`);
    assert.match(got, /^ticks=\d+ last=[0-9a-f]{16} shots=\d+ hits=\d+ digest=[0-9a-f]{16}$/, file);
    assert.equal(got, replay, file);
  }
  // Another version is refused with its reason.
  const { compact } = JSON.parse(readFileSync(join(dir, files[0]), 'utf8'));
  const broken = Array.from(Buffer.from(compact, 'base64'));
  broken[0] = 9;
  const refused = await page.evaluate((b) => window.wasmBindings.room_replay(new Uint8Array(b)), broken);
  assert.equal(refused, 'error: room recording version 9 is unknown (this build reads versions 1 to 2)');
  await page.close();
});

test('wasm gives the conditioner fates native gives', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.fate_fingerprint, null, { timeout: 20_000 });
  // Pinned in sim/tests/conditioner.rs (fate_sequence_hash_is_pinned).
  assert.equal(await page.evaluate(() => window.wasmBindings.fate_fingerprint(7, 10_000)), 'bd81a58dd70734e6');
  await page.close();
});
