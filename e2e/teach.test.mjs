// Each technique switched off, live in the page (issue 24): at RTT 200 ms a
// key moves the character a round trip later without prediction and
// within two frames with it (the Metrics card's key to movement, measured
// as drawn), and the A/B view runs delay-based (rollback off) beside
// rollback at RTT 150 ms: no rebase on the delay-based side, rebases on
// the other; and datagrams beside reliable-ordered at 2 % loss: packets
// held behind resends only on the TCP-like side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relayAndBrowser, waitForConn, metric, metricText, setControl, waitFor, sleep } from './harness.mjs';

const env = relayAndBrowser();

/** Stands still 1.5 s, holds `key` (away from the walls: there and back) for 0.8 s: the key-to-movement
 * read-out, ms. */
async function keyDelay(page, key) {
  await page.focus('#glcanvas');
  await sleep(1500);
  await page.keyboard.down(key);
  await sleep(800);
  await page.keyboard.up(key);
  return metric(page, 'key-delay-ms');
}

test('at RTT 200 ms a key moves the character a round trip later without prediction', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=4`);
  await waitForConn(page, 'local');
  await setControl(page, 'rtt', '200');
  await page.click('#bot-toggle');
  await waitFor(async () => (await page.getAttribute('#bot-toggle', 'aria-pressed')) === 'false' || /Give control/.test(await page.locator('#bot-toggle').textContent()), 2_000, 'the bot off');

  await t.test('prediction off: ≥ 200 ms', async () => {
    await page.click('#prediction');
    assert.equal(await page.isChecked('#prediction'), false);
    const off = await keyDelay(page, 'ArrowRight');
    t.diagnostic(`prediction off: ${off} ms`);
    assert.ok(off >= 200, `${off} ms`);
  });

  await t.test('prediction on: within two frames', async () => {
    await page.click('#prediction');
    const on = await keyDelay(page, 'ArrowLeft');
    const frame = await metric(page, 'frame-ms');
    t.diagnostic(`prediction on: ${on} ms, frames of ${frame} ms`);
    assert.ok(on <= 2 * frame + 1, `${on} ms with frames of ${frame} ms`);
  });
  await page.close();
});

test('A/B at RTT 150 ms: delay-based (rollback off) never rebases, rollback does', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=3`);
  await waitForConn(page, 'local');
  await setControl(page, 'rtt', '150');
  await setControl(page, 'model', 'rollback');
  await setControl(page, 'ab-knob', 'rollback');
  await setControl(page, 'ab-value', '0');
  await page.click('#ab');
  await waitFor(async () => (await metric(page, 'ab-a-restored')) > 100, 20_000, 'both columns running');
  await sleep(4000);
  assert.match((await page.locator('[data-panel-text="ab-head-b"]').textContent()).trim(), /rollback off/);
  const a = await metric(page, 'ab-a-resimulated');
  const b = await metric(page, 'ab-b-resimulated');
  assert.ok(a > 100, `rollback re-simulated ${a} ticks`);
  assert.equal(b, 0, 'delay-based re-simulates nothing');
  assert.equal(await metricText(page, 'ab-b-resimulated'), '0');
  await page.close();
});

test('A/B at 2 % loss: reliable-ordered holds packets behind resends, datagrams hold none', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=5`);
  await waitForConn(page, 'local');
  await setControl(page, 'loss', '2');
  await setControl(page, 'ab-knob', 'transport');
  await setControl(page, 'ab-value', '1');
  await page.click('#ab');
  await waitFor(async () => (await metric(page, 'ab-b-held')) > 20, 20_000, 'B holds packets');
  assert.match((await page.locator('[data-panel-text="ab-head-b"]').textContent()).trim(), /reliable/);
  assert.equal(await metric(page, 'ab-a-held'), 0, 'datagrams hold nothing');
  assert.equal(await metricText(page, 'ab-ratio-held'), 'A 0');
  await page.close();
});
