// Rooms of real players (issue #13) in the real page against the real
// relay: two pages in one room see each other move, the room list shows
// both, a shot from one is confirmed and shown in four views, and the ammo
// counter jumps in naive mode at RTT 200 ms and never with sequence
// numbers. The two pages are two browsers (two windows): a second tab of
// one browser runs its frames a few times a second, as a hidden tab does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, launchBrowser, metric, metricText, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

/** Opens the page in room `name` in `browser` and waits until it is seated. */
async function openRoom(browser, name, errors) {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(`${env.relay.url}?room=${name}`);
  await waitFor(async () => (await metricText(page, 'room-state')).startsWith(name), 20_000, `${name} joined`);
  return page;
}

/** The other players' drawn positions: { P2: [x, y], … }. */
async function others(page) {
  const text = await metricText(page, 'room-others');
  const out = {};
  for (const part of text.split(' · ')) {
    const m = part.match(/^(\S+(?: \d+)?) (-?\d+),(-?\d+)$/);
    if (m) out[m[1]] = [Number(m[2]), Number(m[3])];
  }
  return out;
}

const fire = (page) => page.evaluate(() => document.getElementById('fire-shot').click());

test('two pages in one room', async (t) => {
  const errors = [];
  const second = await launchBrowser();
  t.after(() => second.close());
  const a = await openRoom(env.browser, 'e2e-lobby', errors);
  const b = await openRoom(second, 'e2e-lobby', errors);

  await t.test('see each other move', async () => {
    await waitFor(async () => (await metricText(a, 'room-players')) === 'P1 P2', 10_000, 'A sees P1 P2');
    await waitFor(async () => (await metricText(b, 'room-players')) === 'P1 P2', 10_000, 'B sees P1 P2');
    // The roster comes at once, the other's position with the next net
    // update (20 Hz) and the read-outs a few times a second after it.
    let a0, b0;
    await waitFor(async () => {
      [a0, b0] = [await others(a), await others(b)];
      return Boolean(a0.P2 && b0.P1);
    }, 5_000, 'each page draws the other');
    await sleep(1500);
    const [a1, b1] = [await others(a), await others(b)];
    const moved = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]);
    // Both pages' bots drive at up to 600 cm/s.
    assert.ok(moved(a0.P2, a1.P2) > 100, `A saw P2 go ${a0.P2} → ${a1.P2}`);
    assert.ok(moved(b0.P1, b1.P1) > 100, `B saw P1 go ${b0.P1} → ${b1.P1}`);
  });

  await t.test('the room list shows both', async () => {
    await waitFor(
      async () => /e2e-lobby\s*2 players/.test(await a.locator('#room-list').textContent()),
      6_000,
      'the room list on A',
    );
    const listed = await (await fetch(`${env.relay.url}api/rooms`)).json();
    assert.deepEqual(listed.rooms, [{ room: 'e2e-lobby', players: 2, bots: 0, max_players: 16 }]);
  });

  await t.test('a shot from one is confirmed and shown in four views', async () => {
    for (let i = 0; i < 4; i++) {
      await fire(a);
      await sleep(300);
    }
    await waitFor(async () => /\/ 4/.test(await metricText(a, 'shot-tally')), 5_000, 'four shots judged');
    const [hits] = (await metricText(a, 'shot-tally')).split(' / ').map(Number);
    assert.ok(hits >= 3, `hits / judged ${await metricText(a, 'shot-tally')}`);
    const sub = await a.locator('[data-panel-text="replayed-sub"]').textContent();
    assert.match(sub, /shot 4 of 4 · #4 (hit|miss)/);
    assert.equal(await a.locator('[data-panel-text="replayed-empty"]').isHidden(), true);
    assert.match(await a.locator('[data-panel-text="replayed-foot"]').textContent(), /1→3 \d+ cm · 3→2 \d+ cm/);
    await a.screenshot({ path: join(ARTIFACTS, 'rooms-shot.png') });
    // The target is told nothing of it (its own log is empty).
    assert.equal(await metricText(b, 'shot-tally'), '0 / 0');
  });

  await t.test('the naive ammo counter jumps at RTT 200 ms and the sequence counter does not', async () => {
    await setControl(a, 'rtt', 200);
    await a.evaluate(() => { document.getElementById('ammo-sequence').checked = false; });
    await sleep(1200);
    const before = await metric(a, 'ammo-jumps');
    for (let i = 0; i < 5; i++) {
      await fire(a);
      await sleep(150);
    }
    await sleep(1000);
    const naive = await metric(a, 'ammo-jumps');
    assert.ok(naive > before, `naive: ${before} → ${naive} upward jumps`);
    assert.match(await metricText(a, 'ammo-server'), /naive/);

    await a.evaluate(() => { document.getElementById('ammo-sequence').checked = true; });
    await a.evaluate(() => document.getElementById('reload').click());
    await sleep(2200);
    assert.match(await metricText(a, 'ammo'), /^30 \/ 30/);
    const sequence = await metric(a, 'ammo-jumps');
    for (let i = 0; i < 5; i++) {
      await fire(a);
      await sleep(150);
    }
    await sleep(1000);
    assert.equal(await metric(a, 'ammo-jumps'), sequence, 'no upward jump with sequence numbers');
    assert.match(await metricText(a, 'ammo'), /^25 \/ 30/);
  });

  await t.test('the clock-sync error is in the Link card', async () => {
    const bound = await metric(a, 'clock-error');
    // Half the best round trip at RTT 200 ms (plus the page's frame).
    assert.ok(bound >= 100 && bound < 140, `± ${bound} ms`);
  });

  await t.test('leaving returns to a private session and the other sees it go', async () => {
    await b.evaluate(() => document.getElementById('room-leave').click());
    await waitFor(async () => (await metricText(b, 'room-state')) === 'private session', 5_000, 'B left');
    await waitFor(async () => (await metricText(a, 'room-players')) === 'P1', 5_000, 'A sees B go');
    assert.ok(!new URL(b.url()).searchParams.has('room'), b.url());
  });

  assert.deepEqual(errors, []);
});
