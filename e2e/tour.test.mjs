// The guided tour (issue 24): the Tour button and ?tour=N links open a
// stop's run in the page (no relay needed), paused at its moment; every
// stop claims the number the native test pins (sim/tests/tour.rs: the
// same run in wasm gives the same number), the page's own read-outs agree
// where they show it, each stop's control turns the lesson around, and
// the card is usable by keyboard without trapping the focus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relayAndBrowser, waitForConn, metricText, waitFor, readAtFrameOf } from './harness.mjs';

const env = relayAndBrowser();

/** Each stop's number as shown and with its control turned (sim/tests/tour.rs),
 * and the read-out that shows the same number, if one does. */
const STOPS = [
  { key: 'predict', shown: 216.67, tried: 16.67, metric: ['key-delay-ms', '217'] },
  { key: 'saved-moves', shown: 17, tried: 5, metric: ['queue-len', '17'] },
  { key: 'adjustment', shown: 11, tried: 2, metric: ['replayed-moves', '11'] },
  { key: 'smoothing', shown: 26.1, tried: 10.8 },
  { key: 'reconciliation', shown: 2, tried: 0 },
  { key: 'impulse', shown: 2, tried: 0 },
  { key: 'speed-hack', shown: 300, tried: 0 },
  { key: 'misprediction', shown: 11, tried: 3, sub: /11 re-simulated/ },
  { key: 'redundancy', shown: 97, tried: 10, metric: ['missed-inputs', '97'] },
  { key: 'delay-based', shown: 216.67, tried: 16.67 },
  { key: 'lag-compensation', shown: 20, tried: 2 },
  { key: 'proxy', shown: 81.0, tried: 35.6 },
  { key: 'tcp', shown: 280, tried: 0, held: true },
];

/** The card's number: which stop, which run, the raw value. */
const number = (page) =>
  page.evaluate(() => {
    const n = document.querySelector('#tour [data-tour="number"]');
    return { stop: n.dataset.stop, variant: n.dataset.variant, value: Number.parseFloat(n.dataset.value), text: n.textContent };
  });

const waitForStop = (page, key, variant) =>
  waitFor(async () => {
    const n = await number(page);
    return n.stop === key && n.variant === variant;
  }, 10_000, `stop ${key} (${variant})`);

const near = (got, want, what) => assert.ok(Math.abs(got - want) < 0.05, `${what}: ${got} vs ${want}`);

test('the tour walks every stop and each claims the number the native run gives', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(env.relay.url);
  await waitForConn(page, 'connected');
  await page.click('#tour-open');
  await waitForStop(page, 'predict', 'shown');

  await t.test('the run is the page\'s own, paused at the stop\'s moment', async () => {
    await waitForConn(page, 'local', 5_000);
    assert.equal(await metricText(page, 'scenario-state'), 'paused');
    assert.equal(await page.isVisible('#opening'), false);
    assert.match(await page.locator('#tour [data-tour="step"]').textContent(), /^Stop 1 of 13$/);
    assert.equal(await page.isDisabled('#tour-back'), true);
  });

  for (const [i, s] of STOPS.entries()) {
    await t.test(`stop ${i + 1}, ${s.key}: ${s.shown} as shown, ${s.tried} with its control turned`, async () => {
      if (i > 0) {
        // The frame that opens the stop writes its read-outs too: the
        // card never stands next to the previous stop's numbers.
        const atFrame = readAtFrameOf(page, `#tour [data-tour="number"][data-stop="${s.key}"][data-variant="shown"]`,
          [`[data-metric="${s.metric?.[0] ?? 'scenario-state'}"]`]);
        await page.click('#tour-next');
        const [read] = await atFrame;
        if (s.metric) assert.equal(read, s.metric[1], `${s.metric[0]} in the frame the stop opened`);
        await waitForStop(page, s.key, 'shown');
      }
      const shown = await number(page);
      near(shown.value, s.shown, `${s.key} shown`);
      const body = await page.locator('#tour [data-tour="body"]').textContent();
      assert.ok(body.includes(shown.text), `the words carry the number: ${body}`);
      if (s.metric) assert.equal(await metricText(page, s.metric[0]), s.metric[1], s.metric[0]);
      if (s.held) assert.equal(Number(await metricText(page, 'held-up')) + Number(await metricText(page, 'held-down')), s.shown, 'the Link card holds as many');
      if (s.sub) assert.match(await page.locator('[data-panel-text="replayed-sub"]').textContent(), s.sub);
      assert.equal(await page.locator('.tour-target').count(), 1, 'one thing is pointed at');
      await page.click('#tour-try');
      await waitForStop(page, s.key, 'tried');
      near((await number(page)).value, s.tried, `${s.key} tried`);
      assert.equal(await page.getAttribute('#tour-try', 'aria-pressed'), 'true');
      await page.click('#tour-try');
      await waitForStop(page, s.key, 'shown');
    });
  }

  await t.test('the last stop has no Next; × leaves the tour and the run stays', async () => {
    assert.equal(await page.isDisabled('#tour-next'), true);
    await page.click('#tour-close');
    await waitFor(async () => !(await page.isVisible('#tour')), 2_000, 'card hidden');
    assert.equal(await page.locator('.tour-target').count(), 0);
    assert.equal(await metricText(page, 'scenario-state'), 'paused');
  });
  await page.close();
});

test('a ?tour= link opens its stop; the keyboard moves through the card and leaves it', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?tour=impulse`);
  await waitForStop(page, 'impulse', 'shown');

  await t.test('the heading has the focus; → and ← move between stops', async () => {
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.tour), 'title');
    await page.keyboard.press('ArrowRight');
    await waitForStop(page, 'speed-hack', 'shown');
    await page.keyboard.press('ArrowLeft');
    await waitForStop(page, 'impulse', 'shown');
  });

  await t.test('Tab goes through the buttons and on out of the card', async () => {
    const inCard = () => page.evaluate(() => document.getElementById('tour').contains(document.activeElement));
    let left = false;
    for (let i = 0; i < 8 && !left; i++) {
      await page.keyboard.press('Tab');
      left = !(await inCard());
    }
    assert.ok(left, 'the focus is not trapped');
  });

  await t.test('Esc in the card leaves the tour', async () => {
    await page.focus('#tour-next');
    await page.keyboard.press('Escape');
    await waitFor(async () => !(await page.isVisible('#tour')), 2_000, 'card hidden');
  });

  await t.test('?tour=N counts from 1; a stop that does not exist is named', async () => {
    await page.goto(`${env.relay.url}?tour=2`);
    await waitForStop(page, 'saved-moves', 'shown');
    await page.goto(`${env.relay.url}?tour=99`);
    await waitFor(async () => /tour=99 \(no such stop of the tour\)/.test(await page.locator('#scenario-message').textContent()), 5_000, 'the ignored parameter named');
    assert.equal(await page.isVisible('#tour'), false);
  });
  await page.close();
});
