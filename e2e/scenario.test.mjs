// Scenarios end to end (issue #5): record input in the browser, save it on
// the relay, open the short link in a fresh browser (new profile) and see
// the identical run; the CLI gives the same hash from the relay's store;
// the self-contained link plays from a plain static file server with no
// relay at all; broken links say so and the page still runs; links saved
// by older versions of the playground (scenarios/frozen/) open, upgraded,
// and their end says whether today's model gives the original run
// (issue #25); a link from a newer version names both versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { join, normalize, extname } from 'node:path';
import { execFileSync } from 'node:child_process';
import { relayAndBrowser, waitForConn, launchBrowser, metric, metricText, setControl, waitFor, sleep, ROOT, SCENARIO_BIN, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

/** The recorded outcome the page shows after Stop or when a scenario loads. */
async function recordedOutcome(page) {
  return page.locator('#recorded-outcome').evaluate((e) => ({ ...e.dataset }));
}

/** Plays the page's scenario at 4× and waits for the end. */
async function playToEnd(page, what) {
  await waitFor(async () => ['playing', 'finished'].includes(await metricText(page, 'scenario-state')), 20_000, `${what}: playback starts`);
  await setControl(page, 'speed', '4');
  await waitFor(async () => (await metricText(page, 'scenario-state')) === 'finished', 30_000, `${what}: playback finishes`);
  return {
    verdict: await metricText(page, 'scenario-verdict'),
    trajectory: await metricText(page, 'trajectory-hash'),
    stateHash: await metricText(page, 'state-hash'),
    adjustments: await metric(page, 'adjustments'),
  };
}

/** A static file server for dist/ (no relay, no API, no WebSocket). */
async function staticServer() {
  const dist = join(ROOT, 'dist');
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    try {
      const body = await readFile(join(dist, path === '/' ? 'index.html' : path));
      res.writeHead(200, { 'Content-Type': types[extname(path)] ?? (path === '/' ? 'text/html' : 'application/octet-stream') });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

test('record, save, and the link replays identically for someone else', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?link=clean`);
  await waitForConn(page, 'connected');
  await setControl(page, 'rtt', 150);
  await setControl(page, 'loss', 15);

  let recorded;
  let link;
  let fragmentLink;
  await t.test('records 5 s of keyboard input and a slider change', async () => {
    await page.click('#rec-toggle');
    await waitFor(async () => (await metricText(page, 'scenario-state')) === 'recording', 2_000, 'recording');
    assert.match(await page.locator('#mode-label').textContent(), /recording/);
    await page.focus('#glcanvas');
    const hold = async (key, ms) => { await page.keyboard.down(key); await sleep(ms); await page.keyboard.up(key); };
    await hold('KeyD', 1200);
    await hold('KeyS', 600);
    await page.keyboard.press('Space');
    await hold('KeyA', 900);
    await setControl(page, 'loss', 30);
    await page.focus('#glcanvas');
    await hold('KeyW', 1000);
    await hold('KeyD', 800);
    await page.click('#rec-toggle');
    await waitFor(async () => (await metricText(page, 'scenario-state')) === 'recorded', 2_000, 'recorded');
    recorded = await recordedOutcome(page);
    assert.match(recorded.stateHash, /^[0-9a-f]{16}$/);
    assert.match(recorded.trajectoryHash, /^[0-9a-f]{16}$/);
    assert.match(await page.locator('#scenario-message').textContent(), /^Recorded [4-9]\.\d s/);
  });

  await t.test('saves and shows a short link', async () => {
    await page.fill('#scenario-name', 'e2e: D S dash A, loss 15 → 30 %');
    await page.click('#save-scenario');
    await waitFor(async () => (await page.inputValue('#scenario-link')).includes('/s/'), 10_000, 'share link');
    link = await page.inputValue('#scenario-link');
    assert.match(link, /\/s\/[A-Za-z0-9_-]{12}$/);
    fragmentLink = await page.locator('#scenario-fragment-link').getAttribute('href');
    assert.match(fragmentLink, /\/#s=[A-Za-z0-9_-]+$/);
    // Saving the same recording again gives the same link, not a copy.
    await page.click('#save-scenario');
    await waitFor(async () => /^Already saved as [A-Za-z0-9_-]{12}/.test(await page.locator('#scenario-message').textContent()), 5_000, 'second save');
    assert.equal(await page.inputValue('#scenario-link'), link);
    await page.screenshot({ path: join(ARTIFACTS, 'scenario-saved.png') });
  });

  await t.test('the short link replays identically in a fresh browser', async () => {
    const other = await launchBrowser();
    try {
      const p2 = await other.context.newPage();
      await p2.goto(link);
      await waitFor(async () => (await metricText(p2, 'scenario-state')) === 'playing', 20_000, 'playback starts');
      // Pause, then step three recorded frames one by one.
      await p2.click('#play-pause');
      await waitFor(async () => (await metricText(p2, 'scenario-state')) === 'paused', 2_000, 'paused');
      const frame = async () => Number((await metricText(p2, 'scenario-progress')).match(/^frame (\d+)/)[1]);
      const paused = await frame();
      for (let i = 0; i < 3; i++) await p2.click('#step-frame');
      await waitFor(async () => (await frame()) === paused + 3, 2_000, 'three steps');
      await sleep(300);
      assert.equal(await frame(), paused + 3, 'paused playback stays put');
      await p2.click('#play-pause');
      const end = await playToEnd(p2, 'short link');
      await p2.screenshot({ path: join(ARTIFACTS, 'scenario-replayed.png') });
      assert.equal(end.verdict, 'identical to the original');
      assert.equal(end.trajectory, recorded.trajectoryHash);
      assert.equal(end.stateHash, recorded.stateHash);
      assert.equal(end.adjustments, Number(recorded.adjustments));
      // The controls show the recording's last settings.
      assert.equal(await p2.inputValue('#loss'), '30');
      assert.equal(await p2.inputValue('#rtt'), '150');
      // The viewer gets the links to pass on, and cannot re-save a copy.
      assert.equal(await p2.inputValue('#scenario-link'), link);
      assert.equal(await p2.locator('#save-scenario').isDisabled(), true);
    } finally {
      await other.close();
    }
  });

  await t.test('the CLI gives the same hash from the relay store', () => {
    const id = link.split('/s/')[1];
    const out = JSON.parse(execFileSync(SCENARIO_BIN, ['run', '--db', env.relay.db, '--json', '--', id], { encoding: 'utf8' }));
    assert.equal(out.state_hash, recorded.stateHash);
    assert.equal(out.trajectory_hash, recorded.trajectoryHash);
    assert.equal(out.matches_recording, true);
  });

  await t.test('a #s= link typed into an open page plays at once', async () => {
    await page.evaluate((hash) => { location.hash = hash; }, fragmentLink.slice(fragmentLink.indexOf('#')));
    const end = await playToEnd(page, 'same-tab link');
    assert.equal(end.trajectory, recorded.trajectoryHash);
  });

  await t.test('the self-contained link plays from a static copy with no relay', async () => {
    const files = await staticServer();
    try {
      const p3 = await env.browser.context.newPage();
      await p3.goto(files.url + fragmentLink.slice(fragmentLink.indexOf('#')));
      const end = await playToEnd(p3, 'self-contained link');
      assert.equal(end.verdict, 'identical to the original');
      assert.equal(end.trajectory, recorded.trajectoryHash);
      await p3.close();
    } finally {
      files.close();
    }
  });
  await page.close();
});

test('broken links say so and the page still runs', async (t) => {
  const page = await env.browser.context.newPage();
  await t.test('unknown id', async () => {
    const res = await page.goto(`${env.relay.url}s/AAAAAAAAAAAA`);
    assert.equal(res.status(), 404);
    await waitFor(async () => (await page.locator('#scenario-message').getAttribute('data-kind')) === 'error', 20_000, 'error message');
    assert.match(await page.locator('#scenario-message').textContent(), /no scenario with id AAAAAAAAAAAA/);
    const t0 = await metric(page, 'moves-sent');
    await sleep(1000);
    assert.ok((await metric(page, 'moves-sent')) > t0, 'the page keeps simulating');
  });
  await t.test('a trailing slash still loads the page', async () => {
    await page.goto(`${env.relay.url}s/AAAAAAAAAAAA/`);
    await waitFor(async () => (await page.locator('#scenario-message').getAttribute('data-kind')) === 'error', 20_000, 'error message');
    assert.match(await page.locator('#scenario-message').textContent(), /no scenario with id AAAAAAAAAAAA/);
  });
  await t.test('corrupt fragment', async () => {
    await page.goto(`${env.relay.url}#s=AQ-not-a-scenario`);
    await waitFor(async () => (await page.locator('#scenario-message').getAttribute('data-kind')) === 'error', 20_000, 'error message');
    assert.match(await page.locator('#scenario-message').textContent(), /cannot be played/);
    assert.equal(await metricText(page, 'scenario-state'), 'local');
  });
  await page.close();
});

/** The self-contained link fragment of compact scenario bytes. */
const fragmentOf = (bytes) => `#s=${Buffer.from(bytes).toString('base64url')}`;

test('old links open upgraded, and their end says whether the model changed', async (t) => {
  const page = await env.browser.context.newPage();
  const frozen = (name) => readFileSync(join(ROOT, 'scenarios', 'frozen', name));
  await t.test('a version-1 link the model has not changed for replays identically to the original', async () => {
    // A link is opened in a fresh load, as a colleague opens it (a
    // fragment change alone may be read after the old run's end).
    await page.goto('about:blank');
    await page.goto(env.relay.url + fragmentOf(frozen('v1b.bin')));
    await waitFor(async () => /saved as scenario version 1, read as version 5/.test(await page.locator('#scenario-message').textContent()), 20_000, 'the version note');
    const end = await playToEnd(page, 'version 1');
    assert.equal(end.verdict, 'identical to the original');
    assert.equal(end.trajectory, '4e2fc6b2ace32e43');
    assert.equal(await page.locator('#scenario-message').getAttribute('data-kind'), 'ok');
  });
  await t.test('a version-1 link recorded before the fault fixes says it differs', async () => {
    // A link is opened in a fresh load, as a colleague opens it (a
    // fragment change alone may be read after the old run's end).
    await page.goto('about:blank');
    await page.goto(env.relay.url + fragmentOf(frozen('v1a.bin')));
    const end = await playToEnd(page, 'version 1');
    assert.equal(end.verdict, 'differs (from when unknown)');
    const message = await page.locator('#scenario-message').textContent();
    t.diagnostic(message);
    assert.ok(message.startsWith('Replay finished: recorded with an older model; this replay differs from the original (a scenario saved before version 3 keeps no checkpoints, so from when is not known).'), message);
    assert.equal(await page.locator('#scenario-message').getAttribute('data-kind'), 'error');
  });
  await t.test('a link from a newer playground names both versions', async () => {
    // The newest frozen file (this build's version) with its version
    // (postcard's first byte) raised.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'scenarios', 'frozen', 'manifest.json'), 'utf8'));
    const current = Math.max(...manifest.scenarios.map((s) => s.version));
    const bytes = frozen(`v${current}.bin`);
    const body = inflateRawSync(bytes.subarray(1));
    body[0] = 9;
    const newer = Buffer.concat([bytes.subarray(0, 1), deflateRawSync(body)]);
    // A link is opened in a fresh load, as a colleague opens it (a
    // fragment change alone may be read after the old run's end).
    await page.goto('about:blank');
    await page.goto(env.relay.url + fragmentOf(newer));
    await waitFor(async () => (await page.locator('#scenario-message').getAttribute('data-kind')) === 'error', 20_000, 'error message');
    assert.match(await page.locator('#scenario-message').textContent(), new RegExp(`this scenario is version 9, made by a newer version of the playground; this build reads versions 1 to ${current}`));
  });
  await page.close();
});
