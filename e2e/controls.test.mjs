// The page's controls and counters tell the truth (issue #18): after a
// preset the controls show the link in force (or are disabled with the
// reason), counters say what they count and count what left the client,
// the Link card restarts its measurement on a change and shows the
// samples behind each figure, the send rate says what was achieved, and
// the client clock speed is a speed hack the server sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relayAndBrowser, waitForConn, metric, metricText, setControl, waitFor, sleep, readAtFrameOf } from './harness.mjs';

const env = relayAndBrowser();

const text = async (page, selector) => (await page.locator(selector).textContent()).trim();
/** The `<dt>` label next to a `data-metric` read-out. */
const label = async (page, name) =>
  (await page.locator(`[data-metric="${name}"]`).locator('xpath=ancestor::div[1]/dt').textContent()).trim();

test('a preset that splits the directions shows the link in force on every control', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=3`);
  await waitForConn(page, 'local');

  await t.test('a symmetric preset moves the basic sliders and leaves split off', async () => {
    await setControl(page, 'net-preset', 'naia-poor');
    await waitFor(async () => (await page.inputValue('#rtt')) === '700', 2_000, 'RTT slider at 700');
    assert.equal(await text(page, '#rtt-value'), '700');
    assert.equal(await text(page, '#loss-value'), '10');
    assert.equal(await page.isChecked('#net-split'), false);
    assert.equal(await page.isDisabled('#rtt'), false);
    assert.equal(await page.isDisabled('#up-latency'), true, 'per-direction latency follows the slider');
    assert.equal(await page.inputValue('#up-latency'), '350');
    assert.match(await text(page, '[data-note="rtt"]'), /^Net PktLag=350 \(one way\)$/);
  });

  await t.test('Mobile splits: the basic sliders show both directions and are disabled with the reason', async () => {
    // The frame that applies the preset also rewrites the Link card: no
    // read-out shows the old link next to the new one.
    const atFrame = readAtFrameOf(page, '#net-advanced[open]', ['#rtt-value', '[data-configured="rtt"]']);
    await setControl(page, 'net-preset', 'mobile');
    assert.deepEqual(await atFrame, ['85 + 65', '150'], 'the sliders and the Link card in the frame the preset applied');
    await waitFor(() => page.isChecked('#net-split'), 2_000, 'split turned on');
    for (const id of ['rtt', 'loss', 'jitter']) {
      assert.equal(await page.isDisabled(`#${id}`), true, `#${id} disabled`);
      assert.match(await text(page, `[data-note="${id}"]`), /^Split is on: each direction is set under Advanced network$/);
    }
    await waitFor(async () => (await text(page, '#rtt-value')) === '85 + 65', 2_000, 'RTT read-out 85 + 65');
    assert.equal(await text(page, '#loss-value'), '↑1 ↓1');
    assert.equal(await text(page, '#jitter-value'), '30 / 25');
    assert.equal(await page.inputValue('#up-latency'), '85');
    assert.equal(await page.inputValue('#down-latency'), '65');
    assert.equal(await page.isDisabled('#up-latency'), false);
    assert.match(await text(page, '[data-note="net-split"]'), /^In force: ↑ 85 ms ±30 · 1 % loss, ↓ 65 ms ±25 · 1 % loss · with bursts ≈ 2\.\d % ↑ \/ 2\.\d % ↓ mean$/);
    assert.equal(await page.locator('#net-advanced').getAttribute('open'), '', 'the per-direction table is opened');
    assert.equal(await text(page, '[data-configured="rtt"]'), '150');
  });

  await t.test('turning split off hands the link back to the sliders, which show what they set', async () => {
    await page.uncheck('#net-split');
    await waitFor(async () => !(await page.isDisabled('#rtt')), 2_000, 'RTT enabled');
    assert.equal(await page.inputValue('#rtt'), '150');
    await waitFor(async () => (await page.inputValue('#up-latency')) === '75', 2_000, 'uplink 75 ms (RTT / 2)');
    assert.equal(await page.isDisabled('#up-latency'), true);
    assert.equal(await page.inputValue('#net-preset'), 'custom', 'the link left the preset');
  });
  await page.close();
});

test('counters are labelled by what they count, and count what left the client', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=5`);
  await waitForConn(page, 'local');
  await waitFor(async () => (await metric(page, 'acks')) > 0, 5_000, 'acks');

  await t.test('sent and received are said on every counter', async () => {
    assert.match(await label(page, 'moves-sent'), /sent/i);
    assert.match(await label(page, 'acks'), /received/);
    assert.match(await label(page, 'adjustments'), /received/);
    assert.match(await label(page, 'server-acks'), /sent by the server/);
    assert.match(await label(page, 'server-adjustments'), /sent by the server/);
    assert.match(await label(page, 'forced-updates'), /^Forced position updates \(no move for 0\.25 s\)$/);
    await waitFor(async () => /^server sent \d+ acks, \d+ adjustments · \d+ forced position updates \(no move for 0\.25 s\)$/
      .test(await text(page, '[data-panel-text="authoritative-foot"]')), 2_000, 'the Authoritative footer says the server sent them');
  });

  await t.test('at 100 % forced ServerMove loss nothing leaves and the server forces position updates', async () => {
    const before = {
      moves: await metric(page, 'moves-sent'),
      old: await metric(page, 'old-moves'),
      dual: await metric(page, 'dual-moves'),
      drops: await metric(page, 'forced-drops'),
      forced: await metric(page, 'forced-updates'),
    };
    await setControl(page, 'forced-move-loss', 100);
    await sleep(400);
    const moves = await metric(page, 'moves-sent');
    const old = await metric(page, 'old-moves');
    await sleep(3000);
    const after = {
      moves: await metric(page, 'moves-sent'),
      old: await metric(page, 'old-moves'),
      dual: await metric(page, 'dual-moves'),
      drops: await metric(page, 'forced-drops'),
      forced: await metric(page, 'forced-updates'),
    };
    t.diagnostic(`before ${JSON.stringify(before)} after ${JSON.stringify(after)}`);
    assert.equal(after.moves, moves, 'no ServerMove sent');
    assert.equal(after.old, old, 'no old move resent: none left');
    assert.ok(after.drops > before.drops + 30, `forced drops counted (${before.drops} → ${after.drops})`);
    assert.ok(after.forced > before.forced, `forced position updates (${before.forced} → ${after.forced})`);
    await setControl(page, 'forced-move-loss', 0);
  });
  await page.close();
});

test('the Link card restarts its measurement on a change and shows the samples behind each figure', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?link=clean`);
  await waitForConn(page, 'connected');
  await setControl(page, 'rtt', 300);
  await setControl(page, 'loss', 15);
  await waitFor(async () => (await metric(page, 'rtt-samples')) >= 30, 15_000, '30 RTT samples of the slow link');
  assert.ok((await metric(page, 'rtt-p50')) > 250, 'the slow link measured');
  await setControl(page, 'net-preset', 'naia-perfect');
  // Packets never overtake each other, so the first Pongs after the drop
  // from 300 to 2 ms wait behind the old link's packets still in flight
  // (≈ 85 ms); none of the old link's samples (each ≥ 300 ms) is left. The
  // three figures are read together, and the last reading is named if the
  // window (the first 30 Pongs, ≈ 3 s) is missed; a long frame of a busy
  // machine lengthens a new sample, never to an old link's 300 ms.
  const read = () => page.evaluate(() => Object.fromEntries(['rtt-samples', 'rtt-p50', 'rtt-p99']
    .map((n) => [n, Number.parseFloat(document.querySelector(`[data-metric="${n}"]`).textContent)])));
  let last;
  const ms = await waitFor(async () => {
    last = await read();
    return last['rtt-samples'] > 0 && last['rtt-samples'] < 30 && last['rtt-p50'] < 60 && last['rtt-p99'] < 300;
  }, 6_000, 'p50 and p99 of the new link only, from fewer samples').catch((e) => {
    throw new Error(`${e.message}; last read ${JSON.stringify(last)}`);
  });
  t.diagnostic(`naia perfect: ${JSON.stringify(last)} ${ms} ms after the change`);
  // The slow link was measured for ≥ 3 s (30 Pongs at 10 a second): a
  // measurement that did not restart would be that much older.
  const since = Number.parseInt(await metricText(page, 'measuring-since'), 10);
  assert.ok(since <= Math.ceil(ms / 1000) + 1, `measuring since ${since} s, the change was ${ms} ms ago`);
  assert.ok((await metric(page, 'loss-up-n')) <= 64);
  await waitFor(async () => /^\d+\.\d % \(\d+\.\d–\d+\.\d\) of \d+$/.test(await metricText(page, 'loss-up-since')), 3_000, 'loss since the change with its interval and count');
  await page.close();
});

test('the client clock speed is a speed hack the server sees', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=9`);
  await waitForConn(page, 'local');
  assert.equal(await metric(page, 'time-discrepancy'), 0);
  await setControl(page, 'clock-speed', 1.5);
  await waitFor(async () => (await text(page, '#clock-speed-value')) === '1.5', 2_000, 'read-out 1.5');
  assert.match(await text(page, '[data-note="clock-speed"]'), /speed hack: claims 1\.50 s of movement per second/);
  await waitFor(async () => (await metric(page, 'time-discrepancy')) > 0, 10_000, 'time-discrepancy events');
  await page.close();
});

test('the send rate says what the page achieved', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=2`);
  await waitForConn(page, 'local');
  await waitFor(async () => /^ClientNetSendMoveDeltaTime=0\.0111 · sent \d+\/s · page \d+ fps/.test(await text(page, '[data-note="send-rate"]')), 5_000, 'achieved rate and frame rate beside the slider');
  await page.close();
});
