// A room recording shared as a link (issue 23): two pages (two browsers)
// in a CMC room with a bot, one at RTT 200 ms firing; Save link keeps the
// relay's recording in its store, and the link opened in a fresh profile
// (a third browser) replays the room in wasm with every tick hash equal
// to the relay's, lists the shots with their verdicts, follows any seat,
// and a shot's click puts its views in the Replayed panel and the
// playhead at it. Under the card, the followed seat's lanes: a ▲ per shot
// it fired (as many as the list's), a click on one opens that shot, a
// press on the lanes seeks, the playhead line moves with Play. Join
// during the playback closes it and joins the room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, launchBrowser, metricText, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

const WIDTH = process.env.E2E_WIDTH ?? '1280';
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
  // The others as P1's screen drew them, rebuilt from its net updates'
  // recorded fates: some way behind the server at RTT 200 ms.
  const drew = (await text(viewer, '[data-panel-text="predicted-sub"]')).match(/ · purple: its screen, (\d+) ms behind$/);
  assert.ok(drew, await text(viewer, '[data-panel-text="predicted-sub"]'));
  assert.ok(Number(drew[1]) >= 50 && Number(drew[1]) < 400, `${drew[1]} ms behind`);
  assert.match(await text(viewer, '[data-panel-text="predicted-foot"]'), /^followed ×2 · paths: 1 s · purple (interpolated|extrapolated)$/);

  // The lanes follow P1: one ▲ per shot of P1's in the list (the canvas
  // draws while in view).
  await viewer.locator('#recorded-lanes').scrollIntoViewIfNeeded();
  const p1Shots = await viewer.$$eval('#recorded-shots button', (b) => b.filter((x) => x.title.startsWith("P1's shot")).length);
  await waitFor(async () => /^P1 · ▲ \d+ fired/.test(await metricText(viewer, 'recorded-lanes')), 5_000, 'the lanes follow P1');
  const lanesLine = await metricText(viewer, 'recorded-lanes');
  const [, fired, atThem] = lanesLine.match(/^P1 · ▲ (\d+) fired · ▼ (\d+) at them$/).map(Number);
  console.log(`# lanes: ${lanesLine}; P1's shots in the list: ${p1Shots}`);
  assert.equal(fired, p1Shots, lanesLine);
  assert.equal(fired, shots, 'P1 fired every shot');
  assert.equal(Number(await viewer.getAttribute('#recorded-lanes', 'data-shots')), fired + atThem);
  // Where time s (from the start, as the card counts) is on the lanes, CSS
  // px from the canvas's left.
  const lanes = async () => {
    const a = (n) => viewer.getAttribute('#recorded-lanes', n).then(Number);
    const [from, to, left, right] = await Promise.all(['data-from-us', 'data-to-us', 'data-left', 'data-right'].map(a));
    return { xOf: (s) => left + (s * 1e6 - from) / (to - from) * (right - left), left, right };
  };
  // A click on P1's newest ▲ (client row, 36 px down) opens that shot.
  const newest = await viewer.$$eval('#recorded-shots button', (b) => b.find((x) => x.title.startsWith("P1's shot")).title);
  const [, n, atS] = newest.match(/^P1's shot #(\d+) at ([\d.]+) s$/);
  const geo = await lanes();
  await viewer.locator('#recorded-lanes').click({ position: { x: geo.xOf(Number(atS)), y: 36 } });
  await waitFor(async () => new RegExp(`^P1's shot #${n} · `).test(await text(viewer, '[data-panel-text="replayed-sub"]')), 5_000, `shot #${n} opened from its mark`)
    .catch(async (e) => { throw new Error(`${e.message}: ${await text(viewer, '[data-panel-text="replayed-sub"]')}`); });
  assert.equal(await viewer.locator('#recorded-shots button[aria-current="true"]').getAttribute('title'), newest);
  assert.equal((await metricText(viewer, 'recorded-time')).split(' ')[0], Number(atS).toFixed(2));
  // A press between the rows seeks there.
  const quarter = geo.left + (geo.right - geo.left) / 4;
  await viewer.locator('#recorded-lanes').click({ position: { x: quarter, y: 63 } });
  const end = Number((await metricText(viewer, 'recorded-time')).split(' / ')[1].split(' ')[0]);
  await waitFor(async () => Math.abs(Number((await metricText(viewer, 'recorded-time')).split(' ')[0]) - end / 4) < 0.05, 5_000, 'seeked to a quarter');
  await viewer.evaluate(() => window.scrollTo(0, 0));
  await viewer.screenshot({ path: join(ARTIFACTS, `room-recording-${WIDTH}.png`) });
  await viewer.screenshot({ path: join(ARTIFACTS, `room-recording-page-${WIDTH}.png`), fullPage: true });
  await viewer.locator('#recorded-room').screenshot({ path: join(ARTIFACTS, `room-recording-card-${WIDTH}.png`) });
  // The card sits right under the panels.
  const gap = await viewer.evaluate(() => document.getElementById('recorded-room').getBoundingClientRect().top - document.getElementById('panels').getBoundingClientRect().bottom);
  assert.ok(gap >= 0 && gap < 20, `the card ${gap} px under the panels`);
  // Back to shot #1 (before P2 joined the playhead was nowhere near it).
  await viewer.locator('#recorded-shots button').last().click();
  await waitFor(async () => /^P1's shot #1 · /.test(await text(viewer, '[data-panel-text="replayed-sub"]')), 5_000, 'shot #1 again');
  assert.equal(await viewer.locator('#inspector').isHidden(), true, 'the live packet lanes are set aside');
  // The recording's legend replaces the live one; the live link's card and sliders go.
  assert.deepEqual(await viewer.locator('.legend > ul:visible').evaluateAll((u) => u.map((x) => x.id)), ['recorded-legend']);
  assert.deepEqual(await viewer.locator('#recorded-legend li:visible').allTextContents(), ['the seat followed', 'the others, on the server', 'the others on its screen', 'shot', "a shot's views 2 · 3 · 4"]);
  assert.equal(await viewer.locator('#link-controls').isHidden(), true, 'the live link sliders are set aside');
  assert.equal(await viewer.evaluate(() => document.getElementById('play-pause').disabled), true, 'the run bar is off');

  // The other player's seat (the room's default link), the bot's, then
  // playing on from the shot.
  await viewer.selectOption('#recorded-seat', '2');
  await waitFor(async () => /^P2's seat, on the server · RTT 100 ms/.test(await text(viewer, '[data-panel-text="predicted-sub"]')), 5_000, 'P2 followed');
  await viewer.selectOption('#recorded-seat', '3');
  await waitFor(async () => /^bot 3's seat, on the server · a bot, run by the server · a bot has no screen$/.test(await text(viewer, '[data-panel-text="predicted-sub"]')), 5_000, 'the bot followed');
  await viewer.locator('#recorded-lanes').scrollIntoViewIfNeeded();
  const lineX = () => viewer.getAttribute('#recorded-lanes', 'data-playhead-x').then(Number);
  const x0 = await lineX();
  assert.ok(Math.abs(x0 - (await lanes()).xOf(at)) < 2, `the playhead line at shot #1's verdict: ${x0} px`);
  await viewer.click('#recorded-play');
  await sleep(1000);
  const later = Number((await metricText(viewer, 'recorded-time')).split(' ')[0]);
  assert.ok(later > at + 0.3, `playing moves the playhead: ${at} → ${later} s`);
  const x1 = await lineX();
  assert.ok(x1 > x0 + 5, `the playhead line moves with Play: ${x0} → ${x1} px`);

  // Join during the playback closes it and joins the room.
  await viewer.fill('#room-name', 'e2e-rec');
  await viewer.click('#room-join');
  await waitFor(async () => (await metricText(viewer, 'room-state').catch(() => '')).startsWith('e2e-rec'), 20_000, 'joined from the playback');
  assert.match(viewer.url(), /\?room=e2e-rec$/);
  assert.equal(await viewer.locator('#recorded-room').isHidden(), true, 'the recording closed');

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
