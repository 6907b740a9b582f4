// Shared helpers for the browser end-to-end tests: start the real relay on
// a free port, launch Debian's headless Chromium through playwright-core,
// read `data-metric` values and drive the DOM controls.
import { before, after } from 'node:test';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ARTIFACTS = join(ROOT, 'e2e', 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

export const RELAY_BIN = process.env.RELAY_BIN ?? join(ROOT, 'target', 'release', 'relay-server');
export const SCENARIO_BIN = join(dirname(RELAY_BIN), 'scenario');
/**
 * The bench page (`scripts/build-web.sh --bench`): the page with the
 * golden suite's and the benches' wasm exports, which dist/ leaves out.
 */
export const BENCH_DIST = process.env.BENCH_DIST_DIR ?? join(ROOT, 'target', 'dist-bench');

/**
 * Every page of the suite saves from 127.0.0.1: the per-address save
 * budget (10 at once, then one every 6 s) is the relay tests' to check,
 * so the browser tests' relay gets a larger burst.
 */
const SAVE_BUDGET = ['--save-burst', '1000'];

/**
 * Starts `relay-server --addr 127.0.0.1:0` serving the page in `dist`
 * (`DIST_DIR`, else dist/; the bench page: {@link BENCH_DIST}) and
 * resolves with its URL, the scenario store it uses (`db`: a fresh
 * temporary SQLite file unless given) and `stop()`/`kill()`.
 */
export function startRelay({ db, addr = '127.0.0.1:0', dist = process.env.DIST_DIR ?? join(ROOT, 'dist') } = {}) {
  db ??= join(mkdtempSync(join(tmpdir(), 'np-db-')), 'scenarios.sqlite3');
  const child = spawn(RELAY_BIN, ['--addr', addr, '--dist', dist, '--seed', '1', '--db', db, ...SAVE_BUDGET], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('relay did not start within 20 s')), 20_000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], db, stop: () => child.kill('SIGTERM'), kill: () => child.kill('SIGKILL'), child });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`relay exited with ${code}`));
    });
  });
}

/**
 * Launches headless Chromium with the flags TOOLCHAIN.md measured; the
 * viewport is `E2E_WIDTH` × `E2E_HEIGHT` (1280 × 800) unless given, at
 * device pixel ratio `deviceScaleFactor` (1).
 */
export async function launchBrowser({ viewport, deviceScaleFactor = 1 } = {}) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'np-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    acceptDownloads: true,
    deviceScaleFactor,
    viewport: viewport ?? { width: Number(process.env.E2E_WIDTH ?? 1280), height: Number(process.env.E2E_HEIGHT ?? 800) },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--enable-unsafe-swiftshader',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      // Keep rAF and timers running at full speed in a background tab.
      '--disable-background-timer-throttling',
      '--disable-renderer-backgrounding',
      '--disable-backgrounding-occluded-windows',
    ],
  });
  const close = async () => {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, close };
}

/** Reads a `data-metric` element as a number (NaN while it shows "–"). */
export async function metric(page, name) {
  const text = await page.locator(`[data-metric="${name}"]`).textContent();
  return Number.parseFloat(text);
}

/** Reads a `data-metric` element's text. */
export async function metricText(page, name) {
  return (await page.locator(`[data-metric="${name}"]`).textContent()).trim();
}

/** Sets a range input or select like a user would (input + change events). */
export async function setControl(page, id, value) {
  await page.evaluate(
    ([id, value]) => {
      const el = document.getElementById(id);
      el.value = String(value);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [id, value],
  );
}

/** Polls `fn` every 100 ms until it returns truthy or `ms` pass. */
export async function waitFor(fn, ms, what) {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Resolves with the texts of `reads` (CSS selectors) as the page's frame
 * left them when it first made `when` (a CSS selector) exist: a
 * MutationObserver's callback runs once that frame's script is done, so
 * whatever one frame writes together is read together. Start it (do not
 * await) before the action that leads to the frame; rejects after `ms`.
 */
export function readAtFrameOf(page, when, reads, ms = 10_000) {
  return page.evaluate(
    ([when, reads, ms]) =>
      new Promise((resolve, reject) => {
        const read = () => reads.map((s) => document.querySelector(s)?.textContent.trim() ?? null);
        const timer = setTimeout(() => {
          obs.disconnect();
          reject(new Error(`no frame made ${when} within ${ms} ms`));
        }, ms);
        const obs = new MutationObserver(() => {
          if (!document.querySelector(when)) return;
          obs.disconnect();
          clearTimeout(timer);
          resolve(read());
        });
        obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      }),
    [when, reads, ms],
  );
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One relay (serving `dist`, as {@link startRelay}) and one browser for a
 * whole test file: registers `before` and `after` hooks that start and
 * stop them, and returns an object whose `relay` and `browser` are set
 * once `before` has run.
 */
export function relayAndBrowser({ dist } = {}) {
  const env = { relay: null, browser: null };
  before(async () => {
    env.relay = await startRelay({ dist });
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    env.relay?.stop();
  });
  return env;
}

/** The header's connection pill: `{ state, text }`. */
export async function connStatus(page) {
  const pill = page.locator('#conn-status');
  return { state: await pill.getAttribute('data-state'), text: (await pill.textContent()).trim() };
}

/** Waits until the connection pill's `data-state` is `state`. */
export async function waitForConn(page, state, ms = 20_000) {
  return waitFor(async () => (await connStatus(page)).state === state, ms, `connection state ${state}`);
}
