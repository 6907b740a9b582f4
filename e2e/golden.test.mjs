// The golden scenario suite in wasm: every file in `scenarios/` replays in
// the page's wasm (`scenario_outcome`) to exactly the outcome recorded
// natively — trajectory hash, state hash, adjustments, replayed moves,
// acks, moves sent; four are rollback runs. `sim/tests/golden.rs` checks
// the same files natively. The rollback arena's fingerprint — a minute of
// random inputs, fire included, stepped and hashed — is the native one.
// JSON files go through the relay first (POST, which also replays them
// natively and refuses a wrong outcome with 422; then GET the compact
// bytes), so a file saved from the page joins both checks as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { relayAndBrowser, ROOT } from './harness.mjs';

const env = relayAndBrowser();

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

test('the rollback arena steps and hashes bit for bit as natively', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local`);
  await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.arena_fingerprint, null, { timeout: 20_000 });
  // sim/tests/rollback_sync.rs pins 0x7d67_cea5_2987_4cdf natively.
  assert.equal(await page.evaluate(() => window.wasmBindings.arena_fingerprint(7, 3600)), '7d67cea529874cdf');
  assert.notEqual(await page.evaluate(() => window.wasmBindings.arena_fingerprint(8, 3600)), '7d67cea529874cdf');
  await page.close();
});
