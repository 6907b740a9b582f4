// Takes a screenshot of the running playground after setting controls:
//   node e2e/screenshot.mjs [--loss 20] [--rtt 150] [--wait 8] [--out shot.png]
//     [--preset mobile] [--set up-burst-enter=3,up-burst-len=8] [--spike 3]
//     [--advanced] [--full]
// --preset picks a link profile, --set sets any controls by id (after the
// preset), --spike clicks the lag-spike button that many seconds before the
// shot, --advanced opens the "Advanced network" section, --full captures
// the whole page rather than the viewport.
// Starts its own relay on a free port unless --url is given. Used to look
// at the page the way a person sees it (1600×1000 by default).
import { parseArgs } from 'node:util';
import { startRelay, launchBrowser, setControl, sleep } from './harness.mjs';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    loss: { type: 'string', default: '20' },
    rtt: { type: 'string', default: '100' },
    jitter: { type: 'string', default: '0' },
    wait: { type: 'string', default: '8' },
    out: { type: 'string', default: 'e2e/artifacts/screenshot.png' },
    preset: { type: 'string' },
    set: { type: 'string' },
    spike: { type: 'string' },
    advanced: { type: 'boolean', default: false },
    full: { type: 'boolean', default: false },
  },
});
process.env.E2E_WIDTH ??= '1600';
process.env.E2E_HEIGHT ??= '1000';
const relay = values.url ? { url: values.url, stop() {} } : await startRelay();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.goto(relay.url);
  await sleep(1500);
  await setControl(page, 'rtt', values.rtt);
  await setControl(page, 'jitter', values.jitter);
  await setControl(page, 'loss', values.loss);
  if (values.preset) await setControl(page, 'net-preset', values.preset);
  if (values.advanced) await page.evaluate(() => { document.getElementById('net-advanced').open = true; });
  for (const pair of (values.set ?? '').split(',').filter(Boolean)) {
    const [id, value] = pair.split('=');
    if (value === 'on' || value === 'off') {
      await page.evaluate(([id, on]) => { document.getElementById(id).checked = on; }, [id, value === 'on']);
    } else {
      await setControl(page, id, value);
    }
  }
  const wait = Number(values.wait) * 1000;
  const spike = values.spike ? Number(values.spike) * 1000 : null;
  if (spike !== null && spike < wait) {
    await sleep(wait - spike);
    await page.evaluate(() => document.getElementById('lag-spike').click());
    await sleep(spike);
  } else {
    await sleep(wait);
  }
  await page.screenshot({ path: values.out, fullPage: values.full });
  console.log(`wrote ${values.out}`);
} finally {
  await browser.close();
  relay.stop();
}
