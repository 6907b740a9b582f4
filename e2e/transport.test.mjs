// Watching the effect (issue #18): live pause, step and 0.25× (the run
// freezes in local mode; on the relay the view freezes while the relay
// runs on), the timeline as a CSV download, and ◀ ▶ through the
// corrections the Replayed panel keeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relayAndBrowser, waitForConn, metric, metricText, setControl, waitFor, sleep } from './harness.mjs';

const env = relayAndBrowser();

const text = async (page, selector) => (await page.locator(selector).textContent()).trim();
/** The run's clock as the run bar shows it in a live local run, s. */
const runSecs = async (page) => Number.parseFloat(await metricText(page, 'scenario-progress'));

test('a live local run pauses, steps one frame at a time and slows to a quarter', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=2`);
  await waitForConn(page, 'local');
  await waitFor(async () => (await metric(page, 'acks')) > 0, 5_000, 'running');
  assert.equal(await page.locator('#speed option[value="4"]').isDisabled(), true, 'faster than real time is for replays');

  await t.test('pause freezes the run', async () => {
    await page.click('#play-pause');
    await waitFor(async () => (await metricText(page, 'scenario-state')) === 'paused', 2_000, 'paused');
    assert.equal(await text(page, '#play-pause'), '▶ Resume');
    assert.equal(await page.isDisabled('#step-frame'), false);
    const hash = await metricText(page, 'trajectory-hash');
    const secs = await runSecs(page);
    await sleep(1000);
    assert.equal(await metricText(page, 'trajectory-hash'), hash, 'no frame ran');
    assert.equal(await runSecs(page), secs);
  });

  await t.test('Step › runs exactly one frame', async () => {
    const hash = await metricText(page, 'trajectory-hash');
    await page.click('#step-frame');
    await waitFor(async () => (await metricText(page, 'trajectory-hash')) !== hash, 2_000, 'one frame');
    const stepped = await metricText(page, 'trajectory-hash');
    await sleep(600);
    assert.equal(await metricText(page, 'trajectory-hash'), stepped, 'and only one');
  });

  await t.test('at 0.25× the run clock advances a quarter as fast as the page', async () => {
    await setControl(page, 'speed', '0.25');
    await page.click('#play-pause');
    await waitFor(async () => (await metricText(page, 'scenario-state')) === 'local', 2_000, 'running again');
    const s0 = await runSecs(page);
    const w0 = Date.now();
    await sleep(2000);
    const ratio = (await runSecs(page) - s0) / ((Date.now() - w0) / 1000);
    t.diagnostic(`run clock / wall clock at 0.25×: ${ratio.toFixed(2)}`);
    assert.ok(ratio > 0.15 && ratio < 0.35, `ratio ${ratio}`);
    await setControl(page, 'speed', '1');
  });
  await page.close();
});

test('on the relay, pause holds the view on the playhead while the relay runs on', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?link=clean`);
  await waitForConn(page, 'connected');
  await waitFor(async () => (await metric(page, 'acks')) > 0, 5_000, 'acks');
  await page.click('#play-pause');
  await waitFor(async () => (await metricText(page, 'scenario-state')) === 'paused', 2_000, 'paused');
  assert.equal(await page.isDisabled('#step-frame'), true, 'the relay cannot be stepped');
  assert.equal(await page.locator('#speed option[value="0.25"]').isDisabled(), true, 'nor slowed');
  assert.match(await text(page, '[data-panel-text="predicted-sub"]'), /^PAUSED · the relay runs on/);
  const foot = await text(page, '[data-panel-text="predicted-foot"]');
  const batches = async () => Number((await metricText(page, 'trace-note')).split(' ')[0]);
  const before = await batches();
  await sleep(1200);
  assert.equal(await text(page, '[data-panel-text="predicted-foot"]'), foot, 'the panels stay put');
  assert.ok((await batches()) > before, 'the run goes on: its trace keeps coming');
  await page.click('#play-pause');
  await waitFor(async () => (await text(page, '[data-panel-text="predicted-foot"]')) !== foot, 2_000, 'the view follows again');
  await page.close();
});

test('the timeline downloads as CSV, one row per frame', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=4`);
  await waitForConn(page, 'local');
  await sleep(2000);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
  assert.match(download.suggestedFilename(), /^netcode-timeline-\d+s\.csv$/);
  const lines = readFileSync(await download.path(), 'utf8').trim().split('\n');
  t.diagnostic(`${lines.length - 1} rows; last: ${lines.at(-1)}`);
  assert.equal(lines[0], 't_s,position_error_cm,mesh_offset_cm,proxy_offset_cm,saved_moves,rtt_ms,adjustments_per_s,dropped_up,dropped_down,adjustment,loss_burst,lag_spike,model,input_buffer_ticks,ammo,ammo_jump');
  assert.ok(lines.length > 30, `${lines.length - 1} rows for 2 s`);
  // A private session has no ammo counter: its cell is empty, no jump.
  for (const row of lines.slice(1)) {
    assert.equal(row.split(',').length, 16, row);
    assert.ok(row.endsWith(',,0'), row);
  }
  assert.ok(lines.slice(1).every((l) => l.split(',')[12] === 'cmc'), 'the CMC model ran');
  const times = lines.slice(1).map((l) => Number(l.split(',')[0]));
  assert.ok(times.every((v, i) => i === 0 || v > times[i - 1]), 'time goes forward');
  await page.close();
});

test('◀ ▶ step through the corrections the Replayed panel keeps', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=7`);
  await waitForConn(page, 'local');
  await setControl(page, 'rtt', 300);
  await setControl(page, 'loss', 20);
  const shown = async () => {
    const m = (await text(page, '[data-panel-text="replayed-sub"]')).match(/^correction (\d+) of (\d+) \(#(\d+) received\)/);
    return m && { i: Number(m[1]), n: Number(m[2]), number: Number(m[3]) };
  };
  await waitFor(async () => (await shown())?.n >= 3, 25_000, 'three corrections that moved the character');
  assert.match(await text(page, '[data-panel-text="replayed-foot"]'), /^server saw [\d.]+ cm · (moved the character [\d.]+ cm|redundant: [\d.]+ cm on arrival)/);
  await page.click('#play-pause'); // hold the run still while stepping
  const newest = await shown();
  assert.equal(newest.i, newest.n, 'the newest is shown');
  await page.click('#correction-older');
  await waitFor(async () => (await shown()).i === newest.n - 1, 2_000, 'one older');
  const older = await shown();
  assert.ok(older.number < newest.number, `#${older.number} is older than #${newest.number}`);
  await page.click('#correction-newer');
  await waitFor(async () => (await shown()).i === newest.n, 2_000, 'back to the newest');
  assert.equal(await page.isDisabled('#correction-newer'), true, 'nothing newer');
  t.diagnostic(`corrections kept ${newest.n}; stepped #${newest.number} → #${older.number} → #${newest.number}`);
  await page.close();
});
