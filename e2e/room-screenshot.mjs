// Two browser windows in one shared room, looked at the way two people see
// them: both join `?room=<name>`, their links set to RTT and loss, one adds
// a bot, window A fires at what it sees, then both are photographed.
//   node e2e/room-screenshot.mjs [--room look] [--rtt 200] [--loss 5]
//     [--smoothing exponential] [--shots 6] [--wait 6] [--out e2e/artifacts/room]
//     [--fork interpolation]
// Writes <out>-a.png and <out>-b.png (1600×1000 unless E2E_WIDTH/HEIGHT);
// with --fork (a #room-fork option: off, cap-100, hz-5, interpolation, …)
// window A forks the room's recording first, and <out>-fork.png is its
// What if row.
import { parseArgs } from 'node:util';
import { startRelay, launchBrowser, setControl, sleep, metricText } from './harness.mjs';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    room: { type: 'string', default: 'look' },
    rtt: { type: 'string', default: '200' },
    loss: { type: 'string', default: '5' },
    smoothing: { type: 'string', default: 'exponential' },
    shots: { type: 'string', default: '6' },
    wait: { type: 'string', default: '6' },
    bot: { type: 'boolean', default: true },
    naive: { type: 'boolean', default: false },
    out: { type: 'string', default: 'e2e/artifacts/room' },
    fork: { type: 'string' },
  },
});
process.env.E2E_WIDTH ??= '1600';
process.env.E2E_HEIGHT ??= '1000';
const relay = values.url ? { url: values.url, stop() {} } : await startRelay();
// Two browsers: two windows (a second tab of one browser runs its frames a
// few times a second, as a hidden tab does).
const browsers = [await launchBrowser(), await launchBrowser()];
try {
  const open = async (browser) => {
    const page = await browser.context.newPage();
    await page.goto(`${relay.url}?room=${values.room}`);
    return page;
  };
  const a = await open(browsers[0]);
  const b = await open(browsers[1]);
  await sleep(2500);
  for (const page of [a, b]) {
    await setControl(page, 'rtt', values.rtt);
    await setControl(page, 'loss', values.loss);
    await setControl(page, 'smoothing', values.smoothing);
  }
  if (values.naive) await a.evaluate(() => document.getElementById('ammo-sequence').click());
  if (values.bot) await b.evaluate(() => document.getElementById('add-bot').click());
  await sleep(2000);
  for (let i = 0; i < Number(values.shots); i++) {
    await a.evaluate(() => document.getElementById('fire-shot').click());
    await sleep(250);
  }
  await sleep(Number(values.wait) * 1000);
  if (values.fork) {
    await a.selectOption('#room-fork', values.fork);
    await a.click('#room-fork-run');
    await sleep(1500);
    const row = a.locator('.room-fork');
    await row.scrollIntoViewIfNeeded();
    const path = `${values.out}-fork.png`;
    await row.screenshot({ path });
    console.log(`wrote ${path}: ${await metricText(a, 'room-fork')}`);
  }
  for (const [name, page] of [['a', a], ['b', b]]) {
    const path = `${values.out}-${name}.png`;
    await page.screenshot({ path });
    console.log(`wrote ${path}: players ${await metricText(page, 'room-players')} · last shot ${await metricText(page, 'shot-verdict')} · hits ${await metricText(page, 'shot-tally')}`);
  }
} finally {
  for (const b of browsers) await b.close();
  relay.stop();
}
