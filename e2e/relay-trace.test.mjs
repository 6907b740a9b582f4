// The inspector on the relay (issue 23), on the default page: the relay
// tells the page what its link did, and the page draws it in the packet
// lanes within 2 s; at 20 % loss a paused run's correction story names a
// ServerMove that the relay's trace marks lost (its chip selects the
// packet, whose fate the trace gives); the latency budget's relay
// processing is measured, not the expected 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, waitForConn, metricText, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

/** A `data-` count the lanes canvas mirrors (moves, acks, lost, shots). */
const drawn = (page, name) => page.evaluate((n) => Number(document.getElementById('lanes').dataset[n] ?? 0), name);

/** The latency budget's row for `term`: [name, expected, measured]. */
const budgetRow = (page, term) =>
  page.evaluate((t) => [...document.querySelectorAll(`#budget-body tr[data-term="${t}"] > *`)].map((c) => c.textContent.trim()), term);

test('the relay fills the lanes, names a lost ServerMove in a story, and measures its own time', async () => {
  const page = await env.browser.context.newPage();
  await page.setViewportSize({ width: 1600, height: 1000 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.relay.url}?link=clean`);
  await waitForConn(page, 'connected');
  // Moves and Acks in the lanes within 2 s of the connection.
  const took = await waitFor(async () => (await drawn(page, 'moves')) > 10 && (await drawn(page, 'acks')) > 2, 2_000, 'moves and acks in the lanes');
  assert.match(await metricText(page, 'lanes-mode'), /^relay · its trace/);
  console.log(`lanes filled ${took} ms after the connection`);

  // 20 % loss: corrections come, and the trace shows the lost packets.
  await setControl(page, 'rtt', 150);
  await setControl(page, 'loss', 20);
  await waitFor(async () => Number(await metricText(page, 'adjustments')) >= 4, 30_000, 'four corrections');
  await waitFor(async () => (await drawn(page, 'lost')) > 5, 5_000, 'lost packets drawn');
  await sleep(1_000);
  await waitFor(async () => !/–|— /.test(await budgetRow(page, 'relay processing').then((r) => r[2] ?? '–')), 3_000, 'the relay time measured');
  const [, expected, measured] = await budgetRow(page, 'relay processing');
  assert.equal(expected, '0.0');
  assert.notEqual(measured, expected, 'measured from the trace, not the expected value');
  assert.ok(Number(measured) > 0 && Number(measured) < 50, `relay processing ${measured} ms`);
  assert.match(await page.locator('#budget-note').textContent(), /relay's trace/);

  // Pause: the page goes back through its last minute.
  await page.click('#play-pause');
  await waitFor(async () => /^paused · the relay's last minute/.test(await metricText(page, 'lanes-mode')), 5_000, 'the relay run inspected');
  await waitFor(async () => (await page.locator('#correction-list button').count()) >= 2, 5_000, 'corrections listed');
  const rows = await page.locator('#correction-list button').count();
  let named = null;
  for (let i = 0; i < rows && !named; i++) {
    await page.locator('#correction-list button').nth(i).click();
    await waitFor(async () => (await page.locator('#story h3').count()) === 1, 3_000, 'a story');
    const causes = await page.locator('.story-causes li').allTextContents();
    const lost = causes.map((c) => c.match(/ServerMove #(\d+) sent at [\d.]+ s, lost/)).find(Boolean);
    if (lost) named = { row: i, index: lost[1] };
  }
  assert.ok(named, `a story among ${rows} names a lost ServerMove`);
  assert.match(await page.locator('#story h3').textContent(), /^Adjustment of move @\d+ ms$/);
  // Its chip selects the packet: the trace marks it lost.
  const chip = page.locator('.story-causes button.chip', { hasText: `↑ #${named.index} on the timeline` }).first();
  await chip.click();
  await waitFor(async () => new RegExp(`^↑ ServerMove #${named.index} · .* · lost`).test(await metricText(page, 'lane-tip')), 3_000, `the tip for #${named.index}`);
  await page.screenshot({ path: join(ARTIFACTS, 'relay-story-1600x1000.png') });
  // Scrubbing back moves the page's own end: an earlier frame, another state.
  const end = Number(await metricText(page, 'playhead-frame'));
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press(',');
  await waitFor(async () => Number(await metricText(page, 'playhead-frame')) < end, 3_000, 'a step back');
  assert.match(await metricText(page, 'trace-note'), /batches · [\d.]+ kB · 0 thinned · clock ± [\d.]+ ms/);
  assert.deepEqual(errors, []);
  await page.close();
});
