// The page is seen and reached by everyone (issue #18): at 1280×720 the
// panels, the RTT and loss controls and the timeline are on screen
// together; the canvas draws at the device pixel ratio; at 800 px wide
// nothing overprints, at 200 % zoom the header does not cover the title; Tab leaves the canvas (WCAG 2.1.2) and keys reach the
// game only while it has focus; focus is visible; small text reaches
// 4.5:1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, launchBrowser, waitForConn, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

/** Bounding boxes of `selectors`, page coordinates (scrolled to the top). */
async function boxes(page, selectors) {
  return page.evaluate((sels) => Object.fromEntries(sels.map((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return [s, { top: Math.round(r.top + scrollY), bottom: Math.round(r.bottom + scrollY), left: Math.round(r.left), right: Math.round(r.right) }];
  })), selectors);
}

test('at 1280×720 the panels, the RTT and loss controls and the timeline are on screen together', async (t) => {
  const page = await env.browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${env.relay.url}?mode=local&seed=1`);
  await waitForConn(page, 'local');
  await sleep(1000);
  await page.screenshot({ path: join(ARTIFACTS, 'layout-1280x720.png') });
  const b = await boxes(page, ['.panels', '#rtt', '#loss', '#plots', '#play-pause']);
  t.diagnostic(JSON.stringify(b));
  const screens = 1.5 * 720;
  for (const [sel, box] of Object.entries(b)) {
    assert.ok(box.top >= 0 && box.bottom <= screens, `${sel} ends at ${box.bottom} px, beyond 1.5 screens (${screens} px)`);
  }
  // In fact on the first screen, and the panels at least 240 px tall.
  for (const sel of ['.panels', '#rtt', '#loss', '#play-pause']) {
    assert.ok(b[sel].bottom <= 720, `${sel} on the first screen (ends at ${b[sel].bottom})`);
  }
  assert.ok(b['.panels'].bottom - b['.panels'].top >= 240, 'panels at least 240 px tall');
  // Text in the panels is HTML at a readable size.
  const sizes = await page.evaluate(() => ['.panel-head h2', '.panel-sub', '.panel-foot', '.legend li']
    .map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize)));
  t.diagnostic(`font sizes ${sizes.join(', ')} px`);
  assert.ok(sizes.every((px) => px >= 11), `panel text ≥ 11 px (${sizes})`);
  await page.close();
});

test('the canvas draws at the device pixel ratio', async () => {
  const browser = await launchBrowser({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 2 });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${env.relay.url}?mode=local&seed=1`);
    await waitForConn(page, 'local');
    await waitFor(async () => {
      const c = await page.evaluate(() => {
        const e = document.getElementById('glcanvas');
        return { w: e.width, cw: e.clientWidth };
      });
      return c.cw > 0 && c.w === 2 * c.cw;
    }, 5_000, 'the drawing buffer at twice the CSS size');
  } finally {
    await browser.close();
  }
});

test('at 200 % zoom the header wraps instead of overlapping the title', async () => {
  // A 1280×720 window at 200 %: 640×360 CSS pixels at device pixel ratio 2.
  const browser = await launchBrowser({ viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${env.relay.url}?mode=local&seed=1`);
    await waitForConn(page, 'local');
    await page.evaluate(() => scrollTo(0, 0));
    await page.screenshot({ path: join(ARTIFACTS, 'layout-zoom-200.png') });
    const problems = await page.evaluate(() => {
      const box = (e) => e.getBoundingClientRect();
      const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      const title = document.querySelector('.brand h1');
      const bar = box(document.querySelector('.topbar'));
      const out = [];
      for (const e of document.querySelectorAll('.topbar-right > *')) {
        if (overlap(box(title), box(e))) out.push(`"${e.textContent.trim()}" overlaps the title`);
        if (box(e).right > bar.right + 0.5 || box(e).bottom > bar.bottom + 0.5) out.push(`"${e.textContent.trim()}" outside the header`);
      }
      if (box(title).right > bar.right + 0.5) out.push('the title runs out of the header');
      return out;
    });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test('at 800 px wide nothing overprints', async (t) => {
  const page = await env.browser.context.newPage();
  await page.setViewportSize({ width: 800, height: 1000 });
  await page.goto(`${env.relay.url}?mode=local&seed=1`);
  await waitForConn(page, 'local');
  await setControl(page, 'loss', 30);
  await sleep(3000);
  await page.screenshot({ path: join(ARTIFACTS, 'layout-800.png'), fullPage: true });
  const problems = await page.evaluate(() => {
    const out = [];
    const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    for (const panel of document.querySelectorAll('.panel')) {
      const parts = ['.panel-head h2', '.panel-tool', '.panel-sub', '.panel-body', '.panel-foot']
        .map((s) => [s, panel.querySelector(s)])
        .filter(([, e]) => e)
        .map(([s, e]) => [s, e.getBoundingClientRect()]);
      for (let i = 0; i < parts.length; i++) {
        for (let j = i + 1; j < parts.length; j++) {
          if (overlap(parts[i][1], parts[j][1])) out.push(`${panel.querySelector('h2').textContent}: ${parts[i][0]} overlaps ${parts[j][0]}`);
        }
      }
      for (const s of ['.panel-sub', '.panel-foot', '.panel-head h2']) {
        const e = panel.querySelector(s);
        if (e.scrollWidth > e.clientWidth + 1) out.push(`${s} clipped sideways`);
      }
    }
    for (const li of document.querySelectorAll('.legend li')) {
      if (li.scrollWidth > li.clientWidth + 1) out.push(`legend "${li.textContent}" clipped`);
    }
    return out;
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test('Tab leaves the canvas, keys reach the game only while it has focus, and focus is visible', async (t) => {
  const page = await env.browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${env.relay.url}?mode=local&seed=1`);
  await waitForConn(page, 'local');
  // The window must have the system focus: macroquad drops held keys when
  // the document loses it (a browser closed by an earlier test).
  await page.bringToFront();
  const active = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  const speed = async () => Number((await page.locator('[data-panel-text="predicted-foot"]').textContent()).match(/([\d.]+) cm\/s/)[1]);

  await t.test('Tab and Shift+Tab move focus off and back onto the canvas; Esc leaves it', async () => {
    await page.focus('#glcanvas');
    await page.keyboard.press('Tab');
    const next = await active();
    assert.notEqual(next, 'glcanvas', 'Tab left the canvas');
    const ring = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement);
      return `${s.outlineStyle} ${s.outlineWidth}`;
    });
    assert.match(ring, /^solid [1-9]/, `a visible focus ring on #${next} (${ring})`);
    await page.keyboard.press('Shift+Tab');
    assert.equal(await active(), 'glcanvas', 'Shift+Tab came back');
    await page.keyboard.press('Escape');
    assert.equal(await active(), 'BODY', 'Esc left the canvas');
    // The header follows focusout on the next task (the loader's setTimeout).
    await waitFor(async () => (await page.locator('#kbd-target').getAttribute('data-target')) === 'page', 1_000, 'keys → page');
    assert.equal(await page.locator('#kbd-target [data-kbd="page"]').isVisible(), true, 'keys → page shown');
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('#kbd-target [data-kbd="game"]')).visibility), 'hidden');
  });

  await t.test('keys move the character only while the canvas has focus', async () => {
    await page.click('#bot-toggle');            // take control from the bot
    await waitFor(async () => (await speed()) === 0, 5_000, 'standing still');
    await page.focus('#play-pause');
    await page.keyboard.down('KeyD');
    await sleep(700);
    const unfocused = await speed();
    await page.keyboard.up('KeyD');
    assert.equal(unfocused, 0, 'D with a button focused does not move the character');
    // The bot may have left the character against a wall: one of D and A
    // (opposite directions) has room to run at full speed.
    await page.focus('#glcanvas');
    const focused = {};
    for (const key of ['KeyD', 'KeyA']) {
      await page.keyboard.down(key);
      await sleep(700);
      focused[key] = await speed();
      await page.keyboard.up(key);
      await waitFor(async () => (await speed()) === 0, 3_000, `stops once ${key} is up`);
    }
    const key = focused.KeyD >= focused.KeyA ? 'KeyD' : 'KeyA';
    t.diagnostic(`speed with the canvas focused: D ${focused.KeyD} cm/s, A ${focused.KeyA} cm/s`);
    assert.ok(focused[key] > 300, `D or A with the canvas focused moves it (D ${focused.KeyD}, A ${focused.KeyA} cm/s)`);
    // Focus leaves while the key is held: the key is released, not stuck.
    await page.keyboard.down(key);
    await sleep(300);
    assert.ok((await speed()) > 0, `${key} moves it again`);
    await page.keyboard.press('Tab');
    await page.keyboard.up(key);
    // Braking from 600 cm/s takes about 0.3 s; a stuck key would run on.
    await waitFor(async () => (await speed()) === 0, 1_000, 'stops once focus left with the key held');
  });
  await page.close();
});

test('small text reaches a contrast of 4.5:1', async (t) => {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.relay.url}?mode=local&seed=1`);
  await waitForConn(page, 'local');
  await page.evaluate(() => { document.getElementById('net-advanced').open = true; });
  const result = await page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]) => [r, g, b]
      .map((v) => v / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    const background = (e) => {
      for (let n = e; n; n = n.parentElement) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
      }
      return [13, 17, 23];
    };
    const selectors = ['.unit', '.note', '.card-note', '.section-note', '.panel-sub', '.panel-foot', '.legend li',
      '.metrics dt', '.metric-group', '.run-message', '.kbd-target', '.mode', '.link-table .sub', '.link-table thead th', 'label', 'summary'];
    let worst = { ratio: 99 };
    const failing = [];
    for (const s of selectors) {
      for (const e of document.querySelectorAll(s)) {
        if (!e.offsetParent || !e.textContent.trim()) continue;
        const fg = rgb(getComputedStyle(e).color);
        const [a, b] = [lum(fg.slice(0, 3)), lum(background(e))];
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (ratio < worst.ratio) worst = { ratio, s, text: e.textContent.trim().slice(0, 30) };
        if (ratio < 4.5) failing.push(`${s} "${e.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}:1`);
      }
    }
    return { worst, failing };
  });
  t.diagnostic(`lowest contrast ${result.worst.ratio.toFixed(2)}:1 (${result.worst.s} "${result.worst.text}")`);
  assert.deepEqual(result.failing, []);
  await page.close();
});
