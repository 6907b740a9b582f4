// A room recording shared as a link (issue 23): two pages (two browsers)
// in a CMC room with a bot, one at RTT 200 ms firing; Save link keeps the
// relay's recording in its store, and the link opened in a fresh profile
// (a third browser) replays the room in wasm with every tick hash equal
// to the relay's, lists the shots with their verdicts, follows any seat,
// and a shot's click puts its views in the Replayed panel and the
// playhead at it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, launchBrowser, metricText, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

const text = (page, selector) => page.evaluate((s) => document.querySelector(s)?.textContent ?? '', selector);

test('a saved room recording replays in a fresh profile with the relay\'s hashes', async (t) => {
  const errors = [];
  const page = await env.browser.context.newPage();
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(`${env.relay.url}?room=e2e-rec`);
  await waitFor(async () => (await metricText(page, 'room-state')).startsWith('e2e-rec'), 20_000, 'joined');
  const second = await launchBrowser();
  t.after(() => second.close());
  const guest = await second.context.newPage();
  guest.on('pageerror', (e) => errors.push(`guest pageerror: ${e.message}`));
  await guest.goto(`${env.relay.url}?room=e2e-rec`);
  await waitFor(async () => (await metricText(guest, 'room-state')).startsWith('e2e-rec'), 20_000, 'P2 joined');
  await setControl(page, 'rtt', '200');
  await page.click('#add-bot');
  await sleep(2500);
  for (let i = 0; i < 6; i++) {
    await page.evaluate(() => document.getElementById('fire-shot').click());
    await sleep(300);
  }
  // "hits / judged · n rejected": every shot answered, judged or refused.
  const answered = (tally) => {
    const m = tally.match(/^\d+ \/ (\d+)(?: · (\d+) rejected)?/);
    return m ? Number(m[1]) + Number(m[2] ?? 0) : 0;
  };
  await waitFor(async () => answered(await metricText(page, 'shot-tally')) >= 5, 10_000, 'shots answered')
    .catch(async (e) => { throw new Error(`${e.message}: ${await metricText(page, 'shot-tally')}; ${await text(page, '[data-note="room"]')}`); });
  await page.evaluate(() => document.getElementById('room-save').click());
  await waitFor(async () => (await page.getAttribute('#room-save-link', 'href'))?.includes('room-recording='), 10_000, 'the link');
  const link = await page.getAttribute('#room-save-link', 'href');
  assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/\?room-recording=[A-Za-z0-9_-]{12}$/);
  assert.match(await metricText(page, 'room-save'), /^saved: /);

  const fresh = await launchBrowser();
  t.after(() => fresh.close());
  const viewer = await fresh.context.newPage();
  viewer.on('pageerror', (e) => errors.push(`viewer pageerror: ${e.message}`));
  await viewer.goto(link);
  await waitFor(async () => /tick hashes/.test(await metricText(viewer, 'recorded-verdict')), 20_000, 'the playback');
  const verdict = await metricText(viewer, 'recorded-verdict');
  const m = verdict.match(/^replayed in this page in (\d+) ms: all (\d+) tick hashes equal the relay's · shots: (\d+), hits: (\d+)$/);
  assert.ok(m, verdict);
  const [, buildMs, ticks, shots] = m.map(Number);
  console.log(`# room recording: ${ticks} ticks, ${shots} shots, played back in ${buildMs} ms`);
  assert.ok(ticks >= 60 * 4, `${ticks} ticks: at least the 4 s before the save`);
  assert.ok(shots >= 4, verdict);
  assert.equal(await viewer.locator('#recorded-shots button').count(), shots);
  const seats = await viewer.$$eval('#recorded-seat option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(seats, ['P1', 'P2', 'bot 3']);
  // At the start P1 had the room's default link; by its shots, RTT 200 ms.
  assert.match(await text(viewer, '[data-panel-text="predicted-sub"]'), /^P1's seat, on the server · RTT 100 ms/);

  // The oldest shot (the list is newest first): its views, the playhead at its verdict.
  await viewer.evaluate(() => [...document.querySelectorAll('#recorded-shots button')].at(-1).click());
  await waitFor(async () => /^P1's shot #1 · /.test(await text(viewer, '[data-panel-text="replayed-sub"]')), 5_000, 'shot #1 shown');
  const at = Number((await metricText(viewer, 'recorded-time')).split(' ')[0]);
  assert.ok(at > 2, `the playhead at the first shot's verdict, ${at} s`);
  assert.match(await text(viewer, '[data-panel-text="predicted-sub"]'), /^P1's seat, on the server · RTT 200 ms, loss 0\.0 %/);
  await viewer.screenshot({ path: join(ARTIFACTS, 'room-recording.png') });
  await viewer.locator('#recorded-room').screenshot({ path: join(ARTIFACTS, 'room-recording-card.png') });
  assert.equal(await viewer.locator('#inspector').isHidden(), true, 'the live packet lanes are set aside');
  assert.equal(await viewer.evaluate(() => document.getElementById('play-pause').disabled), true, 'the run bar is off');

  // The other player's seat (the room's default link), the bot's, then
  // playing on from the shot.
  await viewer.selectOption('#recorded-seat', '2');
  await waitFor(async () => /^P2's seat, on the server · RTT 100 ms/.test(await text(viewer, '[data-panel-text="predicted-sub"]')), 5_000, 'P2 followed');
  await viewer.selectOption('#recorded-seat', '3');
  await waitFor(async () => /^bot 3's seat, on the server · a bot, run by the server/.test(await text(viewer, '[data-panel-text="predicted-sub"]')), 5_000, 'the bot followed');
  await viewer.click('#recorded-play');
  await sleep(1000);
  const later = Number((await metricText(viewer, 'recorded-time')).split(' ')[0]);
  assert.ok(later > at + 0.3, `playing moves the playhead: ${at} → ${later} s`);

  // An unknown id says so.
  const other = await fresh.context.newPage();
  await other.goto(`${env.relay.url}?room-recording=AAAAAAAAAAAA`);
  await waitFor(async () => /^room recording AAAAAAAAAAAA: no room recording with id AAAAAAAAAAAA.* · running live instead$/.test(await text(other, '[data-note="room"]')), 10_000, 'the unknown id named');
  // One that cannot be an id is named at once, in the run bar too.
  await other.goto(`${env.relay.url}?room-recording=`);
  await waitFor(async () => /^\?room-recording=: not a recording's id/.test(await text(other, '[data-note="room"]')), 10_000, 'the blank id named');
  await page.close();
  assert.deepEqual(errors, []);
});
