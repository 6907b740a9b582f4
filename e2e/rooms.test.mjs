// Rooms of real players (issue #13) in the real page against the real
// relay: two pages in one room see each other move, the room list shows
// both, a shot from one is confirmed and shown in four views, and the ammo
// counter jumps in naive mode at RTT 200 ms and never with sequence
// numbers; a shot is in both players' packet lanes with its verdict
// (issue 23), and a fork of the room's recording with rewind off turns
// shots (issues 23, 24), one at 5 Hz redraws them, and a lost net update
// clicked in the lanes is delivered in a fork. The two pages are two browsers (two windows): a second tab
// of one browser runs its frames a few times a second, as a hidden tab does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { relayAndBrowser, launchBrowser, metric, metricText, setControl, waitFor, sleep, ARTIFACTS } from './harness.mjs';

const env = relayAndBrowser();

/** Opens the page in room `name` in `browser` and waits until it is seated. */
async function openRoom(browser, name, errors) {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(`${env.relay.url}?room=${name}`);
  await waitFor(async () => (await metricText(page, 'room-state')).startsWith(name), 20_000, `${name} joined`);
  return page;
}

/** The other players' drawn positions: { P2: [x, y], … }. */
async function others(page) {
  const text = await metricText(page, 'room-others');
  const out = {};
  for (const part of text.split(' · ')) {
    const m = part.match(/^(\S+(?: \d+)?) (-?\d+),(-?\d+)$/);
    if (m) out[m[1]] = [Number(m[2]), Number(m[3])];
  }
  return out;
}

const fire = (page) => page.evaluate(() => document.getElementById('fire-shot').click());

/** Sets the page's link, adds a bot, fires `shots` at it 250 ms apart and
 * waits until at least `judged` are judged. */
async function shootAtABot(page, { rtt, loss, shots, judged }) {
  await setControl(page, 'rtt', rtt);
  if (loss) await setControl(page, 'loss', loss);
  await page.click('#add-bot');
  await waitFor(async () => Object.keys(await others(page)).length > 0, 10_000, 'the bot drawn');
  await sleep(1500);
  for (let i = 0; i < shots; i++) {
    await fire(page);
    await sleep(250);
  }
  await waitFor(async () => new RegExp(`^\\d+ / [${judged}-9]`).test(await metricText(page, 'shot-tally')), 10_000, 'shots judged');
}

test('two pages in one room', async (t) => {
  const errors = [];
  const second = await launchBrowser();
  t.after(() => second.close());
  const a = await openRoom(env.browser, 'e2e-lobby', errors);
  const b = await openRoom(second, 'e2e-lobby', errors);

  await t.test('see each other move', async () => {
    await waitFor(async () => (await metricText(a, 'room-players')) === 'P1 P2', 10_000, 'A sees P1 P2');
    await waitFor(async () => (await metricText(b, 'room-players')) === 'P1 P2', 10_000, 'B sees P1 P2');
    // The roster comes at once, the other's position with the next net
    // update (20 Hz) and the read-outs a few times a second after it.
    let a0, b0;
    await waitFor(async () => {
      [a0, b0] = [await others(a), await others(b)];
      return Boolean(a0.P2 && b0.P1);
    }, 5_000, 'each page draws the other');
    await sleep(1500);
    const [a1, b1] = [await others(a), await others(b)];
    const moved = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]);
    // Both pages' bots drive at up to 600 cm/s.
    assert.ok(moved(a0.P2, a1.P2) > 100, `A saw P2 go ${a0.P2} → ${a1.P2}`);
    assert.ok(moved(b0.P1, b1.P1) > 100, `B saw P1 go ${b0.P1} → ${b1.P1}`);
  });

  await t.test('the room list shows both', async () => {
    await waitFor(
      async () => /e2e-lobby\s*2 players/.test(await a.locator('#room-list').textContent()),
      6_000,
      'the room list on A',
    );
    const listed = await (await fetch(`${env.relay.url}api/rooms`)).json();
    assert.deepEqual(listed.rooms, [{ room: 'e2e-lobby', players: 2, bots: 0, spectators: 0, max_players: 16, model: 'cmc' }]);
  });

  // The bots wander among the arena's blocks, which stop a shot: shots
  // whose ray reached the body A drew (its four views read "you saw →
  // tested") are the ones the server must confirm.
  let fired = 0;
  let confirmed = 0;
  await t.test('a shot from one is confirmed and shown in four views', async () => {
    const reached = [];
    while (fired < 24 && reached.length < 3) {
      await fire(a);
      fired += 1;
      const k = fired;
      await waitFor(
        async () => new RegExp(`shot ${k} of ${k} · #${k} (hit|miss|rejected)`).test(await a.locator('[data-panel-text="replayed-sub"]').textContent()),
        5_000,
        `shot ${k} judged`,
      ).catch(async (e) => {
        throw new Error(`${e.message}: ${await a.locator('[data-panel-text="replayed-sub"]').textContent()}`);
      });
      // A shot the server refused (too old: the page hitched on a busy
      // machine) was never tested against anyone.
      const sub = await a.locator('[data-panel-text="replayed-sub"]').textContent();
      const foot = await a.locator('[data-panel-text="replayed-foot"]').textContent();
      if (!/rejected/.test(sub) && /you saw → 3 tested/.test(foot)) {
        reached.push({ k, sub, foot });
      }
      await sleep(250);
    }
    t.diagnostic(`${fired} shots fired, ${reached.length} reached the body drawn: ${reached.map((r) => `#${r.k}`).join(' ')}`);
    assert.ok(reached.length >= 3, `${reached.length} of ${fired} shots reached the body A drew`);
    assert.equal(await a.locator('[data-panel-text="replayed-empty"]').isHidden(), true);
    for (const { k, sub, foot } of reached) {
      assert.match(sub, new RegExp(`#${k} hit`), `shot #${k} drawn on the target is confirmed`);
      // The boxes tested are where A drew B: "you saw → tested" reads at
      // most 1 cm (issue #26).
      const apart = foot.match(/1 you saw → 3 tested (\d+\.\d) cm · 3→2 \d+ cm/);
      assert.ok(apart, foot);
      assert.ok(Number(apart[1]) <= 1, foot);
    }
    confirmed = reached.at(-1).k;
    assert.match(await metricText(a, 'shot-tally'), new RegExp(`^\\d+ / ${fired}`));
    await a.screenshot({ path: join(ARTIFACTS, 'rooms-shot.png') });
    // The target is told nothing of it (its own log is empty).
    assert.equal(await metricText(b, 'shot-tally'), '0 / 0');
  });

  await t.test("a shot is in both players' lanes with its verdict", async () => {
    // The shooter's and the target's lists and lanes: the same shot and
    // verdict (the target learns of it from the relay's trace only).
    const shotRow = async (page, what) => {
      const rows = await page.locator('#correction-list button').allTextContents();
      return rows.find((r) => what.test(r));
    };
    let mine, theirs;
    await waitFor(async () => {
      mine = await shotRow(a, new RegExp(`your shot #${confirmed} → P2`));
      // No reload here: shot #k is action k (another's shot is named by
      // its action number, the only one the trace carries).
      theirs = await shotRow(b, new RegExp(`shot at you by P1 \\(action ${confirmed}\\)`));
      return mine && theirs && !/awaiting/.test(mine);
    }, 5_000, `shot #${confirmed} listed on both pages`).catch(async (e) => {
      const rows = async (page) => (await page.locator('#correction-list button').allTextContents()).filter((r) => !/jumped/.test(r)).join(' | ');
      throw new Error(`${e.message}: A lists ${await rows(a)}; B lists ${await rows(b)}`);
    });
    const verdict = (row) => row.match(/(hit head|hit body|miss|rejected: [a-z ]+) · (rewound|\d)/)?.[1];
    assert.ok(verdict(mine), mine);
    assert.equal(verdict(theirs), verdict(mine), `${mine} / ${theirs}`);
    assert.match(await metricText(a, 'list-title'), /Shots and jumps/);
    for (const page of [a, b]) {
      const shots = await page.evaluate(() => Number(document.getElementById('lanes').dataset.shots));
      assert.ok(shots >= (page === a ? fired : 1), `${shots} shots in the lanes`);
    }
    // Clicking the target's row opens the shot's views as the server
    // judged it; the shooter's shows its four views in the Replayed panel.
    // Found and clicked in one step: the live list gains rows (proxy
    // jumps) between a pointer's aim and its click.
    await b.evaluate((text) => [...document.querySelectorAll('#correction-list button')].find((r) => r.textContent.includes(text)).click(), `shot at you by P1 (action ${confirmed})`);
    await waitFor(async () => (await b.locator('#story h3').textContent().catch(() => '')) === `Shot at you by P1 (action ${confirmed})`, 3_000, 'the story on B').catch(async (e) => {
      throw new Error(`${e.message}: its title reads ${JSON.stringify(await b.locator('#story h3').textContent().catch(() => null))}`);
    });
    assert.match(await b.locator('.story-causes').textContent(), /3 · the server tested \(/);
    await a.evaluate(() => [...document.querySelectorAll('#correction-list button')].find((r) => r.textContent.includes('your shot #1')).click());
    await waitFor(async () => new RegExp(`shot 1 of ${fired}`).test(await a.locator('[data-panel-text="replayed-sub"]').textContent()), 3_000, 'shot 1 in the Replayed panel');
    await a.locator('#inspector').screenshot({ path: join(ARTIFACTS, 'rooms-lanes-shot.png') });
    await b.locator('#inspector').screenshot({ path: join(ARTIFACTS, 'rooms-lanes-shot-target.png') });
  });

  await t.test('the naive ammo counter jumps at RTT 200 ms and the sequence counter does not', async () => {
    await setControl(a, 'rtt', 200);
    await a.evaluate(() => { document.getElementById('ammo-sequence').checked = false; });
    await sleep(1200);
    const before = await metric(a, 'ammo-jumps');
    for (let i = 0; i < 5; i++) {
      await fire(a);
      await sleep(150);
    }
    await sleep(1000);
    const naive = await metric(a, 'ammo-jumps');
    assert.ok(naive > before, `naive: ${before} → ${naive} upward jumps`);
    assert.match(await metricText(a, 'ammo-server'), /naive/);

    await a.evaluate(() => { document.getElementById('ammo-sequence').checked = true; });
    await a.evaluate(() => document.getElementById('reload').click());
    await sleep(2200);
    assert.match(await metricText(a, 'ammo'), /^30 \/ 30/);
    const sequence = await metric(a, 'ammo-jumps');
    for (let i = 0; i < 5; i++) {
      await fire(a);
      await sleep(150);
    }
    await sleep(1000);
    assert.equal(await metric(a, 'ammo-jumps'), sequence, 'no upward jump with sequence numbers');
    assert.match(await metricText(a, 'ammo'), /^25 \/ 30/);
  });

  await t.test('the clock-sync error is in the Link card', async () => {
    const bound = await metric(a, 'clock-error');
    // Half the best round trip at RTT 200 ms (plus the page's frame).
    assert.ok(bound >= 100 && bound < 140, `± ${bound} ms`);
  });

  await t.test('leaving returns to a private session and the other sees it go', async () => {
    await b.evaluate(() => document.getElementById('room-leave').click());
    await waitFor(async () => (await metricText(b, 'room-state')) === 'private session', 5_000, 'B left');
    await waitFor(async () => (await metricText(a, 'room-players')) === 'P1', 5_000, 'A sees B go');
    assert.ok(!new URL(b.url()).searchParams.has('room'), b.url());
  });

  assert.deepEqual(errors, []);
});

test('the click that gives the arena the keyboard fires nothing; the next click fires', async () => {
  const errors = [];
  const page = await openRoom(env.browser, 'e2e-focus', errors);
  await waitFor(async () => /^30 \/ 30/.test(await metricText(page, 'ammo')), 5_000, 'a full magazine');
  await page.evaluate(() => document.activeElement?.blur());
  assert.equal(await page.locator('#kbd-target').getAttribute('data-target'), 'page');
  const body = await page.locator('[data-panel-body="predicted"]').boundingBox();
  const at = [body.x + body.width / 2, body.y + body.height / 2];
  await page.mouse.click(...at);
  await waitFor(async () => (await page.locator('#kbd-target').getAttribute('data-target')) === 'game', 2_000, 'the arena has the keyboard');
  await sleep(600);
  assert.match(await metricText(page, 'ammo'), /^30 \/ 30/, 'the focusing click fired no shot');
  await page.mouse.click(...at);
  await waitFor(async () => /^29 \/ 30/.test(await metricText(page, 'ammo')), 3_000, 'the next click fires one shot');
  await page.close();
  assert.deepEqual(errors, []);
});

test('What if rewind off, or net updates at 5 Hz: the room\'s recording forked in the page turns shots at RTT 200 ms', async () => {
  const errors = [];
  const page = await openRoom(env.browser, 'e2e-fork', errors);
  await shootAtABot(page, { rtt: '200', shots: 8, judged: 4 });
  await page.selectOption('#room-fork', 'off');
  await page.click('#room-fork-run');
  await waitFor(async () => /^rewind off: /.test(await metricText(page, 'room-fork')), 10_000, 'the fork');
  const summary = await metricText(page, 'room-fork');
  const m = summary.match(/^rewind off: (\d+) of (\d+) shots judged otherwise · hits (\d+) → (\d+)$/);
  assert.ok(m, summary);
  assert.ok(Number(m[2]) >= 4, `${summary}: every judged shot replayed`);
  assert.ok(Number(m[1]) >= 1, `${summary}: at RTT 200 ms some verdict turns`);
  assert.equal(await page.locator('#room-fork-changes li').count(), Number(m[1]));
  assert.match(await page.locator('#room-fork-changes li').first().textContent(), /^shot #\d+ \(player \d+, action \d+\): .+ → .+$/);
  // The Packets card draws the fork as a second lane: the same shots, as
  // the fork judged them.
  const lanes = page.locator('#lanes');
  await waitFor(async () => (await lanes.getAttribute('data-lanes')) === 'you | B · what if: rewind off', 5_000, 'the fork\'s lane');
  await waitFor(async () => Number(await lanes.getAttribute('data-shots-b')) >= 4, 5_000, 'the shots in the fork\'s lane');
  assert.equal(await lanes.getAttribute('data-shots-b'), await lanes.getAttribute('data-shots'));
  await page.locator('#inspector').screenshot({ path: join(ARTIFACTS, 'room-fork-lanes.png') });
  // A change of the screens: the same shots redrawn from the net updates
  // a 5 Hz rate would have delivered (their recorded fates), aim kept.
  await page.selectOption('#room-fork', 'hz-5');
  await page.click('#room-fork-run');
  await waitFor(async () => /^net updates at 5 Hz: /.test(await metricText(page, 'room-fork')), 10_000, 'the screens fork');
  const screens = await metricText(page, 'room-fork');
  const s = screens.match(/^net updates at 5 Hz: (\d+) of (\d+) shots judged otherwise · (\d+) drawn otherwise, aim kept · hits (\d+) → (\d+)$/);
  assert.ok(s, screens);
  assert.ok(Number(s[2]) >= Number(m[2]), `${screens}: the shots so far`);
  assert.ok(Number(s[3]) >= 1 && Number(s[3]) <= Number(s[2]), `${screens}: shots redrawn`);
  assert.equal(await page.locator('#room-fork-changes li').count(), Number(s[1]));
  await page.close();
  assert.deepEqual(errors, []);
});

test('at 20 % loss every shot fired gets its verdict (Facepunch/sbox-issues#2099)', async () => {
  // Sent once, a fifth of the verdicts never came and their shots waited
  // "for the server's verdict" for good; now a shot is sent again until
  // its verdict comes, and the repeat is answered with it.
  const errors = [];
  const page = await openRoom(env.browser, 'e2e-verdicts', errors);
  await shootAtABot(page, { rtt: '200', loss: '20', shots: 12, judged: 1 });
  const fired = 30 - Number((await metricText(page, 'ammo')).split(' / ')[0]);
  assert.ok(fired >= 10, `${fired} shots fired`);
  // "hits / judged · rejected": every shot has its answer.
  const answered = async () => {
    const m = (await metricText(page, 'shot-tally')).match(/^\d+ \/ (\d+)(?: · (\d+) rejected)?$/);
    return Number(m[1]) + Number(m[2] ?? 0);
  };
  await waitFor(async () => (await answered()) === fired, 10_000, `all ${fired} answered`);
  assert.notEqual(await metricText(page, 'shot-verdict'), '…');
  await page.close();
  assert.deepEqual(errors, []);
});

test('A lost net update clicked in the lanes: What if delivers it and judges the shots again', async () => {
  const errors = [];
  const page = await openRoom(env.browser, 'e2e-lost', errors);
  await shootAtABot(page, { rtt: '100', loss: '20', shots: 6, judged: 3 });
  // Hold the lanes: a click between the ruler and the client's row.
  const lanes = page.locator('#lanes');
  const box = await lanes.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + 25);
  await sleep(300);
  const spots = (await lanes.getAttribute('data-lost-updates')).split(' ').filter(Boolean).map((p) => p.split(',').map(Number));
  assert.ok(spots.length > 0, 'lost updates drawn at 20 % loss');
  let tick = null;
  for (const [x, y] of spots) {
    await page.mouse.move(box.x + x, box.y + y);
    await sleep(80);
    const m = (await metricText(page, 'lane-tip')).match(/^↓ net update #\d+ · tick (\d+) · .* · (lost|lost in a burst|dropped by a full queue)$/);
    if (m) {
      await page.mouse.down();
      await page.mouse.up();
      tick = m[1];
      break;
    }
  }
  assert.ok(tick, `a lost net update among ${spots.length} lines`);
  await waitFor(async () => (await page.locator('#room-fork').inputValue()) === `deliver-${tick}`, 3_000, 'the menu offers it');
  assert.match(await metricText(page, 'room-fork'), new RegExp(`^the net update of tick ${tick} was lost on its way to you`));
  await page.click('#room-fork-run');
  await waitFor(async () => new RegExp(`^net update of tick ${tick} delivered: `).test(await metricText(page, 'room-fork')), 10_000, 'the fork');
  const summary = await metricText(page, 'room-fork');
  const m = summary.match(/^net update of tick \d+ delivered: (\d+) of (\d+) shots judged otherwise · (\d+) drawn otherwise, aim kept · hits (\d+) → (\d+)$/);
  assert.ok(m, summary);
  assert.ok(Number(m[2]) >= 3, `${summary}: every shot so far judged again`);
  assert.ok(Number(m[3]) <= 1, `${summary}: one update redraws at most the shot fired while it was the newest`);
  console.log(summary);
  await page.screenshot({ path: join(ARTIFACTS, 'room-lost-update-1600x1000.png') });
  await page.close();
  assert.deepEqual(errors, []);
});
