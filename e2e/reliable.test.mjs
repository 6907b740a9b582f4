// Issue 24's "why not TCP" on the page: the Link section's Reliable-
// ordered switch in local mode at 2 % loss. The Link card names the
// transport with its RTO, and counts the packets resent after the RTO and
// those held behind them (head-of-line blocking), which stay at 0 over
// datagrams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relayAndBrowser, waitForConn, metric, setControl, waitFor, sleep } from './harness.mjs';

const env = relayAndBrowser();

const configured = async (page, name) => (await page.locator(`[data-configured="${name}"]`).textContent()).trim();
const both = async (page, name) => (await metric(page, `${name}-up`)) + (await metric(page, `${name}-down`));

test('reliable-ordered at 2 % loss resends lost packets and holds the ones behind them', async () => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&link=clean&seed=3`);
  await waitForConn(page, 'local');
  await waitFor(async () => (await metric(page, 'acks')) > 0, 5_000, 'running');
  await setControl(page, 'loss', '2');
  await sleep(3000);
  assert.equal(await configured(page, 'transport'), 'datagrams');
  assert.equal(await both(page, 'resent'), 0, 'datagrams resend nothing');
  assert.equal(await both(page, 'held'), 0, 'and hold nothing');

  await page.check('#net-reliable');
  await waitFor(async () => (await configured(page, 'transport')) === 'reliable-ordered, RTO 200 ms', 5_000, 'the card names the transport and its RTO');
  await waitFor(async () => (await both(page, 'resent')) > 0 && (await both(page, 'held')) > 0, 30_000, 'resent and held packets');
  const mean = await metric(page, 'held-mean');
  assert.ok(mean > 0 && mean <= 200, `a held packet waits at most one RTO: ${mean} ms`);
  await page.close();
});
