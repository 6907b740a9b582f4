// A rollback room of real players (issue 22) in the real page against the
// real relay: two browsers open `?room=NAME&model=rollback`, both are
// seated in one fixed-tick match, each sees the other move, a projectile
// fired with F by one hits the other, both pages show the same HP once the
// match is confirmed and quiet, and each counts rebases caused by the
// other player's mispredicted input — at RTT 150 ms (A) and 250 ms (B),
// 5 % loss each way, each page's own link; each page's per-player table
// shows the other's RTT as the other measured it (the room's Seats). The
// bots are off: the keys drive, so the
// shot is aimed — both players walk to the arena's bottom-left corner
// (along the bottom wall, clear of the pillars), the target walks right,
// the shooter turns right and fires.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, launchBrowser, metricText, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();
const ROOM = 'e2e-rollback';

/** Opens the page in the rollback room in `browser`, bot off, and waits until it is seated. */
async function openMatch(browser, errors) {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(`${env.relay.url}?room=${ROOM}&model=rollback`);
  // The page runs (its first frame writes the card) before the match's
  // Start seats it: the bot is taken off before it can walk.
  await waitFor(async () => (await metricText(page, 'match-state')) !== '–', 20_000, 'the page runs');
  const bot = page.locator('#bot-toggle');
  await waitFor(async () => (await bot.getAttribute('aria-pressed')) === 'true', 5_000, 'the bot drives');
  await page.evaluate(() => document.getElementById('bot-toggle').click());
  await waitFor(async () => (await bot.getAttribute('aria-pressed')) === 'false', 10_000, 'the bot is off');
  await waitFor(async () => /seat P\d of \d/.test(await metricText(page, 'match-state')), 20_000, `${ROOM} seated`);
  return page;
}

/** The seat's number (1-based) this page plays. */
async function seat(page) {
  return Number((await metricText(page, 'match-state')).match(/seat P(\d)/)[1]);
}

/** Everyone's predicted position by seat: { 1: [x, y], 2: [x, y] }. */
async function positions(page) {
  const out = {};
  for (const part of (await metricText(page, 'match-players')).split(' · ')) {
    const m = part.match(/^P(\d) (-?\d+),(-?\d+)$/);
    if (m) out[Number(m[1])] = [Number(m[2]), Number(m[3])];
  }
  return out;
}

/** Everyone's confirmed HP by seat: { 1: 100, 2: 90 }. */
async function hp(page) {
  const out = {};
  for (const part of (await metricText(page, 'match-hp')).split(' · ')) {
    const m = part.match(/^P(\d) (\d+)$/);
    if (m) out[Number(m[1])] = Number(m[2]);
  }
  return out;
}

/** Rebases caused by each remote player: { 2: 5 }. */
async function rebasesCaused(page) {
  const out = {};
  for (const part of (await metricText(page, 'match-remote')).split(' · ')) {
    const m = part.match(/^P(\d) (\d+)\/(\d+)$/);
    if (m) out[Number(m[1])] = Number(m[3]);
  }
  return out;
}

/** The match card's table as rows of cells. */
async function table(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('#match-table tr')].map((tr) => [...tr.children].map((td) => td.textContent)));
}

/** Walks `page`'s player (seat `seat`) to the arena's bottom-left corner. */
async function toCorner(page, seat) {
  await hold(page, 'KeyS', 1800);
  if ((await positions(page))[seat][1] < 1400) {
    await hold(page, 'KeyA', 500);
    await hold(page, 'KeyS', 1500);
  }
  await hold(page, 'KeyA', 4500);
  await sleep(300);
  const [x, y] = (await positions(page))[seat];
  assert.ok(x < 150 && y > 1400, `P${seat} in the bottom-left corner: ${x},${y}`);
}

async function hold(page, key, ms) {
  await page.focus('#glcanvas');
  await page.keyboard.down(key);
  await sleep(ms);
  await page.keyboard.up(key);
}

test('two pages in one rollback room', async (t) => {
  const errors = [];
  const second = await launchBrowser();
  t.after(() => second.close());
  const a = await openMatch(env.browser, errors);
  const b = await openMatch(second, errors);
  const [sa, sb] = [await seat(a), await seat(b)];
  assert.notEqual(sa, sb, 'two seats');
  // The shooter is seat 1, the target the other.
  const [shooter, target, ss, st] = sa === 1 ? [a, b, sa, sb] : [b, a, sb, sa];

  await t.test('the relay lists one rollback room of two', async () => {
    const listed = await (await fetch(`${env.relay.url}api/rooms`)).json();
    assert.deepEqual(listed.rooms.map((r) => [r.room, r.players, r.model]), [[ROOM, 2, 'rollback']]);
  });

  await t.test('each sees the other move', async () => {
    // The link: RTT 150 ms (B 250 ms) and 5 % loss, each page
    // its own.
    for (const [page, rtt] of [[a, 150], [b, 250]]) {
      await setControl(page, 'rtt', rtt);
      await setControl(page, 'loss', 5);
    }
    await sleep(500);
    const [a0, b0] = [await positions(a), await positions(b)];
    // Both walk to the bottom-left corner (down to the bottom wall, off a
    // pillar's top if one stopped them, then left along the wall, which
    // nothing blocks), then the target walks right: one line, clear.
    await Promise.all([toCorner(a, sa), toCorner(b, sb)]);
    await hold(target, 'KeyD', 800);
    await sleep(1000);
    const [a1, b1] = [await positions(a), await positions(b)];
    const moved = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]);
    t.diagnostic(`A (P${sa}) saw P${sb} go ${a0[sb]} → ${a1[sb]}; B (P${sb}) saw P${sa} go ${b0[sa]} → ${b1[sa]}`);
    assert.ok(moved(a0[sb], a1[sb]) > 100, `A saw P${sb} go ${a0[sb]} → ${a1[sb]}`);
    assert.ok(moved(b0[sa], b1[sa]) > 100, `B saw P${sa} go ${b0[sa]} → ${b1[sa]}`);
    // Once quiet, both pages predict the same world.
    assert.deepEqual(a1, b1, 'both pages see everyone at the same place');
  });

  let shown;
  await t.test('a projectile fired by one hits the other; both show the same HP', async () => {
    const before = await hp(target);
    assert.deepEqual([before[ss], before[st]], [100, 100], 'nobody hit yet');
    // Turn right (the aim follows the stick; long enough for a slow frame
    // to see the key down).
    await hold(shooter, 'KeyD', 300);
    await hold(shooter, 'KeyF', 700); // 3 shots at the 250 ms cooldown
    await waitFor(async () => (await hp(target))[st] < 100, 5_000, `P${st} hit on its own page`);
    // Projectiles live 1 s; then the confirmed worlds are quiet.
    await sleep(1500);
    const [ha, hb] = [await hp(a), await hp(b)];
    t.diagnostic(`HP after confirmation: A ${JSON.stringify(ha)}, B ${JSON.stringify(hb)}`);
    assert.deepEqual(ha, hb, 'both pages show the same HP');
    assert.ok(ha[st] < 100, `the target lost HP: ${JSON.stringify(ha)}`);
    assert.equal(ha[ss], 100, `the shooter was not hit: ${JSON.stringify(ha)}`);
    shown = ha;
    await shooter.screenshot({ path: join(ARTIFACTS, 'rollback-room-shooter.png') });
    await target.screenshot({ path: join(ARTIFACTS, 'rollback-room-target.png') });
  });

  await t.test("each page's own link is in force, and each table shows the other's RTT as the other measured it", async () => {
    // Each page's own RTT (its first row) and the other's row, read every
    // 100 ms for 4 s: a single Pong's RTT wanders with loss and frame
    // timing, and a report is up to a second old.
    const own = { [sa]: [], [sb]: [] };
    const seen = { [sa]: [], [sb]: [] };
    let last;
    for (let i = 0; i < 40; i += 1) {
      for (const [page, mine, other] of [[a, sa, sb], [b, sb, sa]]) {
        const rows = await table(page);
        own[mine].push(Number.parseFloat(rows[0][3]));
        const row = rows.find((r) => r[0] === `P${other}`);
        assert.ok(row, `a row for P${other}`);
        // The other's row: its reported RTT, input delay, its buffer at
        // the server, its dilation, missed / late.
        assert.match(row[3], /^\d+ ms$/);
        assert.match(row[4], /^\d+ ticks$/);
        assert.match(row[5], /^-?\d+ ticks$/);
        assert.match(row[6], /^\d\.\d{3}$/);
        assert.match(row[7], /^\d+ \/ \d+$/);
        seen[other].push(Number.parseFloat(row[3]));
        last = rows;
      }
      await sleep(100);
    }
    t.diagnostic(`B's last table: ${JSON.stringify(last)}`);
    const range = (v) => `${Math.min(...v)}–${Math.max(...v)}`;
    const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
    t.diagnostic(`P${sa} (slider 150): measured ${range(own[sa])} ms, shown by the other ${range(seen[sa])} ms`);
    t.diagnostic(`P${sb} (slider 250): measured ${range(own[sb])} ms, shown by the other ${range(seen[sb])} ms`);
    for (const [who, slider] of [[sa, 150], [sb, 250]]) {
      // Its own link is in force ...
      assert.ok(own[who].every((ms) => ms >= slider - 5 && ms < slider + 400), `P${who}: ${own[who]} at the ${slider} ms slider`);
      // ... and the other page shows what it measured.
      assert.ok(seen[who].every((ms) => ms >= slider - 5), `P${who} shown at ${seen[who]} (slider ${slider})`);
      assert.ok(Math.abs(median(seen[who]) - median(own[who])) <= 60, `P${who}: shown ${median(seen[who])} ms, measured ${median(own[who])} ms (medians)`);
    }
    assert.ok(median(seen[sb]) - median(seen[sa]) >= 50, `P${sb} shown slower than P${sa}`);
  });

  await t.test('each counts rebases caused by the other', async () => {
    const [ra, rb] = [await rebasesCaused(a), await rebasesCaused(b)];
    t.diagnostic(`rebases caused: on A by P${sb} ${ra[sb]}, on B by P${sa} ${rb[sa]}; HP ${JSON.stringify(shown)}`);
    assert.ok(ra[sb] > 0, `A counts rebases caused by P${sb}: ${JSON.stringify(ra)}`);
    assert.ok(rb[sa] > 0, `B counts rebases caused by P${sa}: ${JSON.stringify(rb)}`);
    assert.match(await metricText(a, 'match-replayed'), /^rebase to tick \d+: /);
    assert.match(await metricText(b, 'hash-mismatches'), /^0$/);
    assert.match(await metricText(a, 'hash-mismatches'), /^0$/);
  });

  await t.test('the Room card joins a rollback room with the model selector on Rollback, adds a bot, and Leave leaves', async () => {
    const c = await env.browser.context.newPage();
    c.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await c.goto(`${env.relay.url}?link=clean`);
    await waitFor(async () => (await metricText(c, 'room-state')) === 'private session', 20_000, 'a private session');
    await c.evaluate(([room]) => {
      const model = document.getElementById('model');
      model.value = 'rollback';
      model.dispatchEvent(new Event('change', { bubbles: true }));
      document.getElementById('room-name').value = room;
      document.getElementById('room-join').click();
    }, ['e2e-card']);
    await waitFor(async () => /seat P\d of \d/.test(await metricText(c, 'match-state')), 20_000, 'the third page seated');
    // (A new room: the relay seats at most two players of one address in
    // a room, and every page here is 127.0.0.1.)
    const listed = await (await fetch(`${env.relay.url}api/rooms`)).json();
    const card = listed.rooms.find((r) => r.room === 'e2e-card');
    assert.deepEqual([card.players, card.model], [1, 'rollback']);
    // Add bot seats a server-driven bot, which walks; the card lists the
    // seats taken once the room's Seats names them (empty ones are not).
    await c.evaluate(() => document.getElementById('add-bot').click());
    await waitFor(async () => {
      const listed = await (await fetch(`${env.relay.url}api/rooms`)).json();
      return listed.rooms.find((r) => r.room === 'e2e-card')?.bots === 1;
    }, 5_000, 'the bot listed');
    await waitFor(async () => Object.keys(await positions(c)).length === 2, 5_000, 'two seats on the card');
    const own = await seat(c);
    const p0 = await positions(c);
    await sleep(1500);
    const p1 = await positions(c);
    const [bot] = Object.keys(p1).map(Number).filter((k) => k !== own);
    t.diagnostic(`the bot sits in P${bot}: ${p0[bot]} → ${p1[bot]}`);
    assert.ok(Math.hypot(p1[bot][0] - p0[bot][0], p1[bot][1] - p0[bot][1]) > 50, `the bot walks: ${JSON.stringify(p0)} → ${JSON.stringify(p1)}`);
    // Its table: you and the bot, not the six empty seats.
    const rows = await c.locator('#match-table tr').count();
    assert.equal(rows, 2, 'one row per seat taken');
    assert.equal(Object.keys(await hp(c)).length, 2);
    await c.screenshot({ path: join(ARTIFACTS, 'rollback-room-empty-seats.png') });
    await a.locator('#match-card').screenshot({ path: join(ARTIFACTS, 'rollback-room-card.png') });
    await c.evaluate(() => document.getElementById('room-leave').click());
    await waitFor(async () => (await metricText(c, 'room-state')) === 'private session', 10_000, 'left');
    await c.close();
  });

  assert.deepEqual(errors, []);
});
