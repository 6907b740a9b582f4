// Takes a screenshot of the running playground after setting controls:
//   node e2e/screenshot.mjs [--loss 20] [--rtt 150] [--wait 8] [--out shot.png]
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
  await sleep(Number(values.wait) * 1000);
  await page.screenshot({ path: values.out });
  console.log(`wrote ${values.out}`);
} finally {
  await browser.close();
  relay.stop();
}
