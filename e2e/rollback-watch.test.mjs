// A spectator of a rollback room (issue 22) in the real page against the
// real relay: one page plays `?room=NAME&model=rollback` (its own bot
// drives) with a server-driven bot added, and a second page opens the same
// link with `&watch=1`. The spectator takes no seat: its match card says
// watching and names the seated player and the bot, the Predicted panel
// says it predicts nothing, the newest View's tick advances, its table
// shows the player's reported RTT and every seat's buffer (the room's
// Seats), and `/api/rooms` counts one spectator beside one player and one
// bot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, metricText, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();
const ROOM = 'e2e-watch';

test('a page watches a rollback match of a page and a bot', async (t) => {
  const errors = [];
  const player = await env.browser.context.newPage();
  player.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await player.goto(`${env.relay.url}?room=${ROOM}&model=rollback`);
  await waitFor(async () => /seat P\d of \d/.test(await metricText(player, 'match-state')), 20_000, `${ROOM} seated`);
  await player.evaluate(() => document.getElementById('add-bot').click());
  await waitFor(async () => {
    const listed = await (await fetch(`${env.relay.url}api/rooms`)).json();
    return listed.rooms.find((r) => r.room === ROOM)?.bots === 1;
  }, 5_000, 'the bot listed');

  const watcher = await env.browser.context.newPage();
  watcher.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await watcher.goto(`${env.relay.url}?room=${ROOM}&model=rollback&watch=1`);

  await t.test('its match card says watching and names who is seated', async () => {
    await waitFor(
      async () => /watching \(rollback\) · seated P\d · bots P\d/.test(await metricText(watcher, 'match-state')),
      20_000,
      'the spectator watching',
    );
    const state = await metricText(watcher, 'match-state');
    t.diagnostic(`spectator's card: ${state}`);
    assert.match(state, new RegExp(`^${ROOM}: watching \\(rollback\\) · seated P1 · bots P2$`));
    // A row for the spectator, one per seated player or bot.
    assert.equal(await watcher.locator('#match-table tr').count(), 3);
    const caption = await watcher.locator('[data-panel-text="predicted-sub"]').textContent();
    assert.match(caption, /^watching: no prediction/);
  });

  await t.test('the newest View advances: the tick grows', async () => {
    const t0 = Number(await metricText(watcher, 'match-tick'));
    await sleep(1500);
    const t1 = Number(await metricText(watcher, 'match-tick'));
    t.diagnostic(`View tick ${t0} → ${t1}`);
    // 1.5 s at 60 Hz is 90 ticks; the card is written every 200 ms.
    assert.ok(t1 - t0 >= 60, `the tick advanced ${t0} → ${t1}`);
  });

  await t.test("its table shows every seat's numbers: the player's RTT, the bot's buffer", async () => {
    const rows = () =>
      watcher.evaluate(() =>
        [...document.querySelectorAll('#match-table tr')].map((tr) => [...tr.children].map((td) => td.textContent)));
    // The player reports once a second; Seats come twice a second.
    await waitFor(async () => /^\d+ ms$/.test((await rows())[1]?.[3] ?? ''), 5_000, "the player's RTT in the spectator's table");
    const [, p1, bot] = await rows();
    t.diagnostic(`spectator's rows: ${JSON.stringify([p1, bot])}`);
    assert.equal(p1[0], 'P1');
    assert.ok(Number.parseFloat(p1[3]) < 1000, `P1's RTT ${p1[3]}`);
    assert.match(p1[5], /^-?\d+ ticks$/);
    assert.match(p1[6], /^\d\.\d{3}$/);
    assert.match(p1[7], /^\d+ \/ \d+$/);
    // A bot reports nothing (no RTT, dilation) but has a buffer.
    assert.equal(bot[0], 'P2 (bot)');
    assert.deepEqual([bot[3], bot[6]], ['–', '–']);
    assert.match(bot[5], /^-?\d+ ticks$/);
  });

  await t.test('the relay counts a spectator, not a player', async () => {
    const listed = await (await fetch(`${env.relay.url}api/rooms`)).json();
    const room = listed.rooms.find((r) => r.room === ROOM);
    assert.deepEqual([room.players, room.bots, room.spectators, room.model], [1, 1, 1, 'rollback']);
    await watcher.locator('#match-card').screenshot({ path: join(ARTIFACTS, 'rollback-watch-card.png') });
  });

  await watcher.close();
  await player.close();
  assert.deepEqual(errors, []);
});
