// A rollback match page's own link (issue 22) in the real page against
// the real relay: one page plays `?room=NAME&model=rollback` through a TCP
// forwarder at 10 % loss each way, a second page plays in the same match
// directly; both pages' own bots drive, turning often.
// - Its lanes: the relay's trace of its link (Inputs up, Acks and States
//   down, lost ones among them) and the rebases the other player's
//   mispredicted input caused, listed; a click on one holds it in the
//   Replayed panel.
// - A dropped link (reference `003_…` §六 断线重连): the forwarder ends
//   every connection at once, with no Close frame — the link died, nobody
//   left. The relay keeps the seat for its grace period; the page
//   reconnects with its resume token and is in the same seat again
//   ("reconnected"), its confirmed tick moving on from the world as it
//   stands; the other page never lost it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { join } from 'node:path';
import { relayAndBrowser, metricText, connStatus, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();
const ROOM = 'e2e-link';

/**
 * A TCP forwarder to `target` (the relay's URL): pages load through its
 * `url`, and `cut()` ends every connection through it at once.
 */
async function forwarder(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  const server = net.createServer((page) => {
    const relay = net.connect(Number(port), hostname);
    for (const s of [page, relay]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    page.pipe(relay);
    relay.pipe(page);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () => server.close(),
  };
}

/** The seat a page plays, from its match card ("NAME: seat P2 of 8 …"). */
async function seat(page) {
  const m = (await metricText(page, 'match-state')).match(/seat P(\d) of/);
  return m ? Number(m[1]) : null;
}

/** The page's newest confirmed tick. */
async function tick(page) {
  return Number(await metricText(page, 'match-tick'));
}

/** The lanes canvas's counts of what it draws. */
async function drawn(page) {
  return page.evaluate(() => {
    const d = document.getElementById('lanes').dataset;
    return { moves: Number(d.moves), acks: Number(d.acks), lost: Number(d.lost) };
  });
}

test("a rollback match page's own link: its lanes, and a drop it survives", async (t) => {
  const errors = [];
  const fwd = await forwarder(env.relay.url);
  t.after(() => fwd.close());
  const open = async (base) => {
    const page = await env.browser.context.newPage();
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(`${base}?room=${ROOM}&model=rollback`);
    await waitFor(async () => (await seat(page)) !== null, 20_000, `${ROOM} seated`);
    return page;
  };
  const dropped = await open(fwd.url);
  const other = await open(env.relay.url);
  const mine = await seat(dropped);
  assert.notEqual(mine, await seat(other));
  await waitFor(async () => (await tick(dropped)) > 60, 10_000, 'confirmed ticks');

  await t.test('its lanes show its link and the rebases the other caused', async () => {
    await setControl(dropped, 'loss', 10);
    await waitFor(async () => {
      const d = await drawn(dropped);
      return d.moves > 20 && d.acks > 20 && d.lost > 0;
    }, 10_000, 'Inputs, Acks and lost packets in the lanes').catch(async (e) => {
      throw new Error(`${e.message}: ${JSON.stringify(await drawn(dropped))}, trace ${await metricText(dropped, 'trace-note')}`);
    });
    t.diagnostic(`lanes: ${JSON.stringify(await drawn(dropped))} · trace ${await metricText(dropped, 'trace-note')}`);
    assert.match(await metricText(dropped, 'trace-note'), /^\d+ batches · /);
    assert.equal(await metricText(dropped, 'list-title'), 'Rebases by remote input');
    const otherName = `P${await seat(other)}`;
    const rows = () => dropped.locator('#correction-list button').allTextContents();
    await waitFor(async () => (await rows()).length >= 2, 15_000, 'rebases listed');
    const listed = await rows();
    t.diagnostic(`${listed.length} rebases listed, first: ${listed[0]}`);
    assert.ok(listed.every((r) => new RegExp(`Rebase to tick \\d+.*${otherName}'s input mispredicted · \\d+ ticks re-simulated`).test(r)), listed.join(' | '));
    // A click holds that rebase in the Replayed panel.
    const first = listed[0].match(/Rebase to tick (\d+)/)[1];
    await dropped.locator('#correction-list button').first().click();
    await waitFor(
      async () => (await dropped.locator('[data-panel-text="replayed-sub"]').textContent()).startsWith(`rebase to tick ${first}:`),
      3_000,
      `rebase to tick ${first} in the Replayed panel`,
    );
    await sleep(1000);
    assert.match(await dropped.locator('[data-panel-text="replayed-sub"]').textContent(), new RegExp(`^rebase to tick ${first}:`), 'held');
    await dropped.screenshot({ path: join(ARTIFACTS, 'rollback-lanes.png') });
    await setControl(dropped, 'loss', 0);
  });

  fwd.cut();
  const cutAt = Date.now();
  const before = await tick(other);
  await waitFor(
    async () => /rollback room .* · reconnected/.test((await connStatus(dropped)).text),
    10_000,
    'the page reconnected',
  );
  t.diagnostic(`reconnected ${Date.now() - cutAt} ms after the cut: ${(await connStatus(dropped)).text}`);
  assert.equal(await seat(dropped), mine, 'the same seat');
  // Its confirmed world moves on from the one the relay has now.
  // (60 ticks a second; a page starved of frames by a busy machine
  // confirms them in bursts, so allow 5 s of wall clock.)
  const resumed = await tick(dropped);
  await waitFor(async () => (await tick(dropped)) > resumed + 60, 5_000, `confirmed ticks moving on from ${resumed}`);
  const later = await tick(dropped);
  assert.ok(later > before, `past the tick the other page had at the cut (${before})`);
  // The other page played on all along.
  assert.equal((await connStatus(other)).state, 'connected');
  assert.match((await connStatus(other)).text, /^rollback room /);
  assert.deepEqual(errors, []);
});
