// The inspector end to end (issue 14): pause a live run, scrub back 2 s on
// the packet timeline and step 10 frames forward — the metrics are the
// ones the run showed at those frames; open the golden run's second
// correction from its ◆ on the timeline — the story names its rule and its
// lost ServerMove — and fork it with that packet delivered: the
// correction is gone in B; UE's console moves the sliders, refuses bad
// lines, and its changes are recorded like a slider's; on the relay one
// click runs the page locally (the relay's own lanes: relay-trace.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { relayAndBrowser, waitForConn, metricText, setControl, waitFor, sleep, ROOT, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

/** The sim's read-outs compared between the live run and the playhead. */
const METRICS = ['state-hash', 'moves-sent', 'acks', 'adjustments', 'replayed-moves', 'queue-len', 'pos-error-cm', 'server-moves'];

/** Page coordinates of run time `tUs` on the timeline, at height `y` px from its top. */
async function laneAt(page, tUs, y) {
  return page.evaluate(([t, y]) => {
    const c = document.getElementById('lanes');
    const d = c.dataset;
    const r = c.getBoundingClientRect();
    return { x: r.left + Number(d.left) + ((t - Number(d.fromUs)) / (Number(d.toUs) - Number(d.fromUs))) * (Number(d.right) - Number(d.left)), y: r.top + y };
  }, [tUs, y]);
}

const frame = async (page) => Number(await metricText(page, 'playhead-frame'));
const seconds = async (page) => Number(await metricText(page, 'playhead-time'));

/** Presses `key` on the page (not in a text field) and waits for the playhead to reach `to`. */
async function stepTo(page, key, to) {
  await page.keyboard.press(key);
  await waitFor(async () => (await frame(page)) === to, 3_000, `playhead at frame ${to}`);
}

async function readMetrics(page) {
  return page.evaluate((names) => Object.fromEntries(names.map((n) => [n, document.querySelector(`[data-metric="${n}"]`).textContent.trim()])), METRICS);
}

test('pause, scrub back 2 s, step 10 frames: the metrics are the ones the run showed', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=7`);
  await waitForConn(page, 'local');
  await setControl(page, 'rtt', 150);
  await setControl(page, 'loss', 10);
  assert.match(await metricText(page, 'lanes-mode'), /^live/);
  // The history: the metrics as the live run wrote them, by frame.
  await page.evaluate((names) => {
    window.__history = {};
    window.__recording = true;
    const read = () => {
      if (!window.__recording) return;
      const f = document.querySelector('[data-metric="playhead-frame"]').textContent.trim();
      if (!(f in window.__history)) {
        window.__history[f] = Object.fromEntries(names.map((n) => [n, document.querySelector(`[data-metric="${n}"]`).textContent.trim()]));
      }
      requestAnimationFrame(read);
    };
    read();
  }, METRICS);
  await sleep(8_000);
  const history = await page.evaluate(() => {
    window.__recording = false;
    return window.__history;
  });
  await page.click('#play-pause');
  await waitFor(async () => /^paused/.test(await metricText(page, 'lanes-mode')), 3_000, 'the timeline inspects');
  await waitFor(async () => (await metricText(page, 'inspect-ms')) !== '–', 3_000, 'the inspection is built');
  const end = await frame(page);
  const endS = await seconds(page);
  assert.ok(end > 150, `${end} frames played`);

  // Drag the playhead 2 s back along the ruler.
  const from = await laneAt(page, endS * 1e6, 10);
  const to = await laneAt(page, (endS - 2) * 1e6, 10);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, to.y, { steps: 4 });
  await page.mouse.move(to.x, to.y, { steps: 4 });
  await page.mouse.up();
  await waitFor(async () => Math.abs(endS - (await seconds(page)) - 2) < 0.1, 3_000, 'the playhead 2 s back');
  const back = await frame(page);
  assert.ok(Number(await metricText(page, 'seek-ms')) >= 0, 'the seek is timed');

  // Step (the `.` key) to the next frame the live run wrote its metrics for.
  await page.evaluate(() => document.activeElement?.blur());
  const recorded = Object.keys(history).map(Number).filter((f) => f >= back).sort((a, b) => a - b);
  assert.ok(recorded.length > 10, 'history around the playhead');
  let at = back;
  while (at < recorded[0]) await stepTo(page, '.', ++at);
  await sleep(250);
  assert.deepEqual(await readMetrics(page), history[String(at)], `metrics at frame ${at}`);

  // Ten frames on, one press each; then on to a recorded frame.
  const start = at;
  for (let i = 0; i < 10; i++) await stepTo(page, '.', ++at);
  assert.equal(at, start + 10);
  const next = recorded.find((f) => f >= at);
  while (at < next) await stepTo(page, '.', ++at);
  await sleep(250);
  assert.deepEqual(await readMetrics(page), history[String(at)], `metrics at frame ${at}`);
  // And one back with `,`.
  await stepTo(page, ',', at - 1);
  await page.close();
});

test('a correction names its rule and its lost packet; delivering it removes the correction', async () => {
  const json = readFileSync(join(ROOT, 'scenarios', 'golden-bot-150ms-10pct.json'), 'utf8');
  const res = await fetch(`${env.relay.url}api/scenarios`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: json,
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { id } = await res.json();
  const page = await env.browser.context.newPage();
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.goto(`${env.relay.url}s/${id}`);
  await waitFor(async () => (await metricText(page, 'scenario-state')) === 'playing', 20_000, 'playback starts');
  assert.match(await metricText(page, 'lanes-mode'), /^scenario/);
  await setControl(page, 'speed', '4');
  await waitFor(async () => (await metricText(page, 'scenario-state')) === 'finished', 30_000, 'playback finishes');
  await waitFor(async () => (await page.locator('#correction-list button').count()) === 3, 5_000, 'three corrections listed');

  // The second correction's ◆ on the client row (the list says when).
  const at = await page.locator('#correction-list button').nth(1).locator('.at').textContent();
  assert.equal(at.trim(), '8.97 s');
  const mark = await laneAt(page, 8_967_000, 22 + 6 + 8);
  await page.mouse.click(mark.x, mark.y);
  await waitFor(async () => (await page.locator('#story h3').count()) === 1, 3_000, 'the story opens');
  assert.equal(await page.locator('#story h3').textContent(), 'Adjustment of move @8783 ms');
  assert.equal(await page.locator('#story [data-rule]').textContent(), 'position error 17.8 cm over the 16 cm threshold');
  const cause = await page.locator('.story-causes li').first().textContent();
  assert.match(cause, /move @8716 ms .* never reached the server \(ServerMove #585 sent at 8\.717 s, lost\)/);
  assert.equal((await page.locator('.story-causes button.chip').first().textContent()).trim(), '↑ #585 on the timeline');
  // The playhead is right after the correction was applied (the read-outs
  // are written every 100 ms, the story at once).
  await waitFor(async () => (await frame(page)) === 537, 3_000, 'the playhead right after the correction, frame 537');
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-story-1600x1000.png') });

  // What if ServerMove #585 had arrived?
  const deliver = page.locator('.story-forks button').first();
  assert.match(await deliver.textContent(), /^deliver ServerMove #585/);
  await deliver.click();
  await waitFor(async () => (await page.locator('.fork-result').count()) === 1, 5_000, 'the fork is made');
  const result = await page.locator('.fork-result').textContent();
  assert.match(result, /Corrections: A 3 · B 1/);
  assert.match(result, /Gone in B: Adjustment @8783 ms, Adjustment @8916 ms/);
  assert.match(result, /The correction inspected \(Adjustment @8783 ms\) does not happen in B\./);
  assert.match(await page.locator('#correction-list button').nth(1).textContent(), /gone in B/);
  await page.locator('#inspector').screenshot({ path: join(ARTIFACTS, 'inspector-fork.png') });

  // Save B: stored like any scenario, with one change more than A.
  await page.locator('.fork-tools button', { hasText: 'Save B' }).click();
  await waitFor(async () => /\/s\/[\w-]{12}/.test(await page.locator('.fork-saved').textContent().catch(() => '')), 10_000, 'the fork saved');
  const forkId = (await page.locator('.fork-saved a').first().textContent()).split('/s/')[1];
  const saved = await (await fetch(`${env.relay.url}api/scenarios/${forkId}`)).json();
  const original = JSON.parse(json);
  assert.equal(saved.changes.length, original.changes.length + 1);
  assert.deepEqual(saved.changes.at(-1).setting, { Deliver: { direction: 'Up', index: 585 } });
  assert.match(saved.name, /what if: deliver ServerMove #585/);
  await page.close();
});

test('the console moves the sliders, refuses bad lines, and is recorded like a slider', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=3`);
  await waitForConn(page, 'local');
  const run = async (line) => {
    const before = await page.locator('#console-out > div').count();
    await page.fill('#console', line);
    await page.press('#console', 'Enter');
    await waitFor(async () => (await page.locator('#console-out > div').count()) > before, 2_000, `an answer to ${line}`);
    return page.locator('#console-out > div').last().textContent();
  };
  assert.match(await run('Net PktLag=200'), /RTT 400 ms/);
  await waitFor(async () => (await page.inputValue('#rtt')) === '400', 2_000, 'the RTT slider at 400');
  assert.equal(await page.locator('#rtt-value').textContent(), '400');
  assert.match(await run('Net PktLoss=abc'), /Net PktLoss needs a number, got "abc" — nothing changed/);
  assert.match(await run('r.ScreenPercentage 50'), /^unknown command "r\.ScreenPercentage 50"/);
  assert.equal(await page.inputValue('#loss'), '0');
  await run('help');
  assert.match(await page.locator('#console-out').textContent(), /p\.NetCorrectionLifetime <s>/);
  await run('stat net');
  assert.match(await page.locator('#console-out').textContent(), /configured {2}↑ 200 ms ±0, 0\.0 % loss/);

  // Recorded like a slider: record, change the loss from the console,
  // stop, replay — the loss slider follows the recording.
  await page.click('#rec-toggle');
  await waitFor(async () => (await metricText(page, 'scenario-state')) === 'recording', 2_000, 'recording');
  await sleep(1_000);
  await run('Net PktLoss=20');
  await waitFor(async () => (await page.inputValue('#loss')) === '20', 2_000, 'the loss slider at 20');
  await sleep(1_000);
  await page.click('#rec-toggle');
  await waitFor(async () => (await metricText(page, 'scenario-state')) === 'recorded', 2_000, 'recorded');
  await page.click('#restart');
  await waitFor(async () => (await page.inputValue('#loss')) === '0', 2_000, 'the replay starts at 0 % loss');
  await waitFor(async () => (await page.inputValue('#loss')) === '20', 5_000, 'the replay takes the console change');
  await page.close();
});

test('on the relay one click runs the page locally', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?link=clean`);
  await waitForConn(page, 'connected');
  await waitFor(async () => (await metricText(page, 'lanes-mode')).startsWith('relay'), 3_000, 'relay mode');
  assert.equal(await page.locator('#go-local').isVisible(), true);
  await page.click('#go-local');
  await waitForConn(page, 'local');
  await waitFor(async () => (await metricText(page, 'lanes-mode')).startsWith('live'), 3_000, 'the live timeline');
  assert.equal(await page.locator('#go-local').isVisible(), false);
  await page.close();
});
