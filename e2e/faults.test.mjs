// Faults and hardening in the real browser (issue #7): the page runs under
// the relay's Content-Security-Policy with no violation; when the relay
// dies and comes back on the same address within the 10 s grace period the
// page reconnects (with backoff) instead of dropping to local mode; when it
// stays away past the grace period the page falls back to local mode.
// Every way the relay ends a connection reaches the page with its close
// code and reason (issue #16: 1009 for an oversized message, 1001 on
// shutdown).
// Screenshots of each stage go to e2e/artifacts/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startRelay, launchBrowser, connStatus as status, metric, waitFor, sleep, ARTIFACTS } from './harness.mjs';

let relay;
let browser;

after(async () => {
  await browser?.close();
  relay?.kill();
});

test('CSP holds, and the page reconnects to a restarted relay, then falls back to local', async (t) => {
  relay = await startRelay();
  const addr = new URL(relay.url).host;
  browser = await launchBrowser();
  const page = await browser.context.newPage();
  const log = [];
  page.on('console', (m) => log.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
  const response = await page.goto(relay.url);
  const csp = response.headers()['content-security-policy'];

  await t.test('the page runs under its Content-Security-Policy', async () => {
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'( 'sha256-[A-Za-z0-9+/=]+')+;/);
    assert.equal(response.headers()['x-content-type-options'], 'nosniff');
    await waitFor(async () => (await status(page)).state === 'connected', 20_000, `connection (console: ${log.join(' | ')})`);
    await waitFor(async () => (await metric(page, 'acks')) > 0, 5_000, 'acks');
    const violations = log.filter((l) => /Content Security Policy|Refused to/i.test(l));
    assert.deepEqual(violations, [], violations.join('\n'));
  });

  await t.test('a message over the size limit gets close 1009 with its reason, in the browser too', async () => {
    for (const size of [9 * 1024, 2 * 1024 * 1024]) {
      const closed = await page.evaluate(async ([url, size]) => new Promise((resolve) => {
        const ws = new WebSocket(url);
        ws.binaryType = 'arraybuffer';
        ws.onopen = () => ws.send(new Uint8Array(size));
        ws.onclose = (e) => resolve({ code: e.code, reason: e.reason, wasClean: e.wasClean });
      }), [relay.url.replace('http', 'ws') + 'ws', size]);
      t.diagnostic(`${size} B: ${JSON.stringify(closed)}`);
      assert.equal(closed.code, 1009, JSON.stringify(closed));
      assert.match(closed.reason, /the limit is 8192 bytes/);
    }
  });

  await t.test('relay shut down: the page says why (close 1001) and reconnects when it is back', async () => {
    relay.stop();
    await waitFor(async () => /closed 1001: relay shutting down/.test((await status(page)).text), 5_000, 'the close reason in the status');
    relay = await startRelay({ addr });
    await waitFor(async () => /reconnected/.test((await status(page)).text), 8_000, 'reconnected status');
    // The new relay refused the resume and the page started a new session:
    // it is resumable once its Welcome (and session token) is in, which
    // the first Acks prove. Killing the relay before that would leave the
    // page nothing to resume.
    const acks0 = await metric(page, 'acks');
    await waitFor(async () => (await metric(page, 'acks')) > acks0, 5_000, 'acks on the new session');
  });

  await t.test('relay killed: the page keeps trying, not local mode', async () => {
    relay.kill();
    await waitFor(async () => /reconnecting/.test((await status(page)).text), 5_000, 'reconnecting status');
    await sleep(1500);
    const s = await status(page);
    assert.equal(s.state, 'connecting', JSON.stringify(s));
    await page.screenshot({ path: join(ARTIFACTS, 'faults-relay-down.png') });
  });

  await t.test('relay back on the same address within 10 s: reconnected, acks flow again', async () => {
    relay = await startRelay({ addr });
    // The new relay never saw this session: the resume is refused and the
    // page starts a new session on it.
    const ms = await waitFor(async () => /reconnected/.test((await status(page)).text), 8_000, 'reconnected status');
    const acks0 = await metric(page, 'acks');
    await waitFor(async () => (await metric(page, 'acks')) > acks0, 5_000, 'acks after the reconnect');
    await page.screenshot({ path: join(ARTIFACTS, 'faults-reconnected.png') });
    t.diagnostic(`reconnected ${ms} ms after the restart`);
  });

  await t.test('relay gone for good: local mode after the grace period', async () => {
    relay.kill();
    const t0 = Date.now();
    await waitFor(async () => /relay lost · local/.test((await status(page)).text), 16_000, 'local mode');
    const waited = Date.now() - t0;
    assert.ok(waited >= 9_000, `fell back after only ${waited} ms`);
    await waitFor(async () => (await metric(page, 'acks')) > 0, 5_000, 'acks in local mode');
    await page.screenshot({ path: join(ARTIFACTS, 'faults-local.png') });
    t.diagnostic(`local mode ${waited} ms after the relay died`);
  });
});
