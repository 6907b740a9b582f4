// A rollback room survives a dropped link (issue 22, reference `003_…` §六
// 断线重连) in the real page against the real relay: one page plays
// `?room=NAME&model=rollback` through a TCP forwarder, a second page plays
// in the same match directly. The forwarder then ends every connection at
// once, with no Close frame — the link died, nobody left. The relay keeps
// the seat for its grace period; the page reconnects with its resume token
// and is in the same seat again ("reconnected"), its confirmed tick moving
// on from the world as it stands; the other page never lost it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { relayAndBrowser, metricText, connStatus, waitFor, sleep } from './harness.mjs';

const env = relayAndBrowser();
const ROOM = 'e2e-resume';

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

test('a page whose link drops takes its seat in the rollback match back', async (t) => {
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
  const resumed = await tick(dropped);
  await sleep(1000);
  const later = await tick(dropped);
  assert.ok(later > resumed + 30, `confirmed ticks after the resume: ${resumed} → ${later}`);
  assert.ok(later > before, `past the tick the other page had at the cut (${before})`);
  // The other page played on all along.
  assert.equal((await connStatus(other)).state, 'connected');
  assert.match((await connStatus(other)).text, /^rollback room /);
  assert.deepEqual(errors, []);
});
