// Browser benchmarks (issue #6), run by scripts/bench.sh — not part of
// `npm test`. Starts the real relay serving the real release page (and a
// second serving the bench page, for the wasm exports: `scripts/build-web.sh
// --bench`), drives Debian's headless Chromium (SwiftShader WebGL, no GPU)
// and prints one JSON object:
//
//   first_frame  time from navigation start to the end of the first
//                animation frame that issued a WebGL draw call (cold load
//                first, then warm reloads), plus when the wasm started;
//   first_frame_10mbit  the same, cold, over an emulated 10 Mbit/s, 40 ms
//                link: the relay's precompressed files against the plain
//                ones (Accept-Encoding: identity), median ms and kB;
//   frames       over 10 s with all panels, the bot driving and 10 % loss:
//                frame interval (start to start) and frame work (the wasm
//                `frame()` call) — mean / p95 / max, and the frame rate.
//                On software WebGL the page paces itself at 30 Hz
//                (www/index.html), so ~33 ms intervals are by design;
//   replay       `bench_replay(N, iters)` (web-client/src/lib.rs): ns per
//                replaying tick in wasm, median of several batches;
//   scrub        `bench_scrub(60, rollback)` (web-client/src/inspector/
//                bench.rs): building the inspection of a 60 s run and
//                seeking in it (worst case: 59 frames re-simulated), ms;
//   rollback     `bench_rollback(iters)` (web-client/src/bench.rs): ns per
//                rollback — a State 8 ticks old received and applied, 8
//                ticks re-simulated — in wasm, median of several batches
//                (native: `rollback_rebase/8` in sim/benches/rollback.rs);
//                `rebase_8x8`: the same with 8 players, `bench_match_rebase`
//                (native: `match_rebase/8`, issue 22);
//   match        `bench_match(n, 10)` for n = 2, 4, 8 (issue 22): a rollback
//                match of n bot pages over 10 s in wasm — the room's tick
//                mean / p50 / p99 (µs; performance.now() ticks by 100 µs
//                here, so the mean is the figure) and the bytes/s per page
//                each way (native: `match_report` in
//                sim/benches/rollback.rs).
//   playback     `bench_room_playback(60)` (issue 23): a saved room
//                recording of 4 players over 60 s played back as the page
//                opens one — build ms and the worst of 1000 seeks (native:
//                `room_playback/4x60s` in sim/benches/room.rs); and
//                `bench_match_playback()`: the golden 4-player match (63 s)
//                opened as a match recording, build ms and the worst of
//                1000 seeks (each the world and the second before it).
//
// `--only rollback,match` runs just those sections (names as above;
// `frames` also takes first_frame and first_frame_10mbit), for measuring
// one change without the rest.
//
// Frames are observed without touching the page: an init script wraps
// `requestAnimationFrame` for gl.js's `animation` callback and counts
// WebGL draw calls.
//
//   node e2e/bench-wasm.mjs [--out file.json] [--seconds 10] [--loss 10] [--only a,b]
import { writeFileSync } from 'node:fs';
import { startRelay, launchBrowser, setControl, waitForConn, sleep, BENCH_DIST } from './harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const OUT = arg('out', null);
const SECONDS = Number(arg('seconds', 10));
const LOSS = Number(arg('loss', 10));
const RELOADS = Number(arg('reloads', 3));
const REPLAY_MOVES = [10, 60, 95];
const REPLAY_SAMPLES = Number(arg('samples', 15));
const ONLY = arg('only', null);
const want = (section) => ONLY === null || ONLY.split(',').includes(section);

function initScript() {
  const b = (window.__bench = { frames: [], recording: false, draws: 0, firstFrame: null, firstDrawnFrame: null, started: null });
  const drawCalls = ['drawElements', 'drawArrays', 'drawElementsInstanced', 'drawArraysInstanced'];
  for (const C of [window.WebGLRenderingContext, window.WebGL2RenderingContext]) {
    if (!C) continue;
    for (const name of drawCalls) {
      const f = C.prototype[name];
      if (typeof f !== 'function') continue;
      C.prototype[name] = function (...a) {
        b.draws++;
        return f.apply(this, a);
      };
    }
  }
  // miniquad on WebGL 1 draws through ANGLE_instanced_arrays: count those.
  const getExtension = WebGLRenderingContext.prototype.getExtension;
  WebGLRenderingContext.prototype.getExtension = function (name) {
    const ext = getExtension.call(this, name);
    if (ext && /instanced_arrays/i.test(name) && !ext.__counted) {
      ext.__counted = true;
      for (const m of ['drawElementsInstancedANGLE', 'drawArraysInstancedANGLE']) {
        const f = ext[m];
        if (typeof f === 'function') {
          ext[m] = function (...a) {
            b.draws++;
            return f.apply(ext, a);
          };
        }
      }
    }
    return ext;
  };
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = function (cb) {
    if (typeof cb !== 'function' || cb.name !== 'animation') return raf(cb);
    return raf(function (ts) {
      const d0 = b.draws;
      const t0 = performance.now();
      try {
        return cb(ts);
      } finally {
        const t1 = performance.now();
        const drew = b.draws > d0;
        if (b.firstFrame === null) b.firstFrame = t1;
        if (drew && b.firstDrawnFrame === null) b.firstDrawnFrame = t1;
        if (b.recording) b.frames.push([t0, t1 - t0, drew ? 1 : 0]);
      }
    });
  };
  window.addEventListener('TrunkApplicationStarted', () => {
    b.started = performance.now();
  });
}

const stats = (xs) => {
  if (xs.length === 0) return { n: 0, mean: null, p50: null, p95: null, max: null };
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.round((s.length - 1) * p))];
  const r = (v) => Math.round(v * 1000) / 1000;
  return { n: s.length, mean: r(s.reduce((a, b) => a + b, 0) / s.length), p50: r(q(0.5)), p95: r(q(0.95)), max: r(s[s.length - 1]) };
};
const median = (xs) => stats(xs).p50;

// The page users load (dist/) for the load and frame timings; the bench
// page (its wasm exports) for the rest.
const relay = await startRelay();
const benchRelay = await startRelay({ dist: BENCH_DIST });
const browser = await launchBrowser();
const result = { date: new Date().toISOString(), chromium: null, renderer: null };
// Stop by itself whatever happens.
const watchdog = setTimeout(() => {
  console.error('bench-wasm: 5 min watchdog fired, stopping');
  relay.stop();
  benchRelay.stop();
  process.exit(2);
}, 300_000);
try {
  await browser.context.addInitScript(initScript);
  result.chromium = browser.context.browser()?.version() ?? null;

  if (want('frames')) {
  // 1. Navigation → first drawn frame: a cold load, then warm reloads.
  const loads = [];
  for (let i = 0; i < RELOADS; i++) {
    const page = await browser.context.newPage();
    await page.goto(relay.url);
    await page.waitForFunction(() => window.__bench && window.__bench.firstDrawnFrame !== null, null, { timeout: 30_000 });
    loads.push(
      await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        return {
          first_drawn_frame_ms: window.__bench.firstDrawnFrame,
          wasm_started_ms: window.__bench.started,
          dom_content_loaded_ms: nav ? nav.domContentLoadedEventEnd : null,
        };
      }),
    );
    await page.close();
  }
  const round = (v) => (v === null ? null : Math.round(v * 10) / 10);
  result.first_frame = {
    cold_ms: round(loads[0].first_drawn_frame_ms),
    warm_median_ms: round(median(loads.slice(1).map((l) => l.first_drawn_frame_ms))),
    wasm_started_cold_ms: round(loads[0].wasm_started_ms),
    loads: loads.map((l) => ({ first_drawn_frame_ms: round(l.first_drawn_frame_ms), wasm_started_ms: round(l.wasm_started_ms), dom_content_loaded_ms: round(l.dom_content_loaded_ms) })),
  };

  // 1b. Over a 10 Mbit/s, 40 ms link (Chromium's network emulation,
  // cache off): the first drawn frame with the relay's precompressed files
  // (brotli) against the plain ones (Accept-Encoding: identity), cold
  // loads, alternating; and the bytes each load took.
  const throttled = { compressed: [], identity: [] };
  for (let i = 0; i < 2 * RELOADS; i++) {
    const mode = i % 2 === 0 ? 'identity' : 'compressed';
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 5e6 / 8 });
    if (mode === 'identity') await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': 'identity' } });
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
    await page.goto(relay.url);
    await page.waitForFunction(() => window.__bench && window.__bench.firstDrawnFrame !== null, null, { timeout: 60_000 });
    throttled[mode].push({ ms: await page.evaluate(() => window.__bench.firstDrawnFrame), bytes });
    await page.close();
  }
  result.first_frame_10mbit = Object.fromEntries(Object.entries(throttled).map(([k, v]) => [k, {
    median_ms: round(median(v.map((x) => x.ms))),
    kB: Math.round(median(v.map((x) => x.bytes)) / 1000),
  }]));
  }


  const page = await browser.context.newPage();
  await page.goto(relay.url);
  await waitForConn(page, 'connected');
  result.renderer = await page.evaluate(() => document.documentElement.dataset.renderer ?? null);
  if (want('frames')) {
  await setControl(page, 'loss', LOSS);
  await sleep(2000);
  await page.evaluate(() => {
    window.__bench.frames = [];
    window.__bench.recording = true;
  });
  await sleep(SECONDS * 1000);
  const frames = await page.evaluate(() => {
    window.__bench.recording = false;
    return window.__bench.frames;
  });
  const intervals = frames.slice(1).map((f, i) => f[0] - frames[i][0]);
  const span = frames.length > 1 ? (frames[frames.length - 1][0] - frames[0][0]) / 1000 : 0;
  result.frames = {
    seconds: SECONDS,
    loss_percent: LOSS,
    paced_30hz: result.renderer === 'software',
    fps: span > 0 ? Math.round(((frames.length - 1) / span) * 10) / 10 : null,
    interval_ms: stats(intervals),
    work_ms: stats(frames.map((f) => f[1])),
    drawn_fraction: frames.length ? Math.round((frames.filter((f) => f[2]).length / frames.length) * 1000) / 1000 : null,
  };
  }

  await page.close();

  const bench = await browser.context.newPage();
  await bench.goto(benchRelay.url);
  await bench.waitForFunction(() => window.wasmBindings && window.wasmBindings.bench_replay, null, { timeout: 30_000 });

  // 3. Replay in wasm: batches of ~40 ms, median ns per replaying tick.
  if (want('replay')) {
  result.replay = {};
  for (const n of REPLAY_MOVES) {
    const probe = await bench.evaluate((n) => window.wasmBindings.bench_replay(n, 200), n);
    const iters = Math.max(50, Math.min(20_000, Math.round(40e6 / Math.max(probe, 1))));
    const samples = [];
    for (let s = 0; s < REPLAY_SAMPLES; s++) {
      samples.push(await bench.evaluate(([n, it]) => window.wasmBindings.bench_replay(n, it), [n, iters]));
    }
    result.replay[n] = { median_ns: Math.round(median(samples)), iters, samples: samples.map((v) => Math.round(v)) };
  }
  }

  // 4. The inspector in wasm: build the inspection of a 60 s run, seek in it.
  if (want('scrub')) {
  result.scrub = {};
  for (const [name, rollback] of [['cmc', false], ['rollback', true]]) {
    const text = await bench.evaluate((r) => window.wasmBindings.bench_scrub(60, r), rollback);
    result.scrub[name] = Object.fromEntries(text.split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]));
  }
  }

  // 5. A rollback of 8 ticks in wasm, with 2 and with 8 players: batches
  // of ~40 ms, median ns each.
  if (want('rollback')) {
    result.rollback = {};
    for (const [name, fn] of [['rebase_8', 'bench_rollback'], ['rebase_8x8', 'bench_match_rebase']]) {
      const probe = await bench.evaluate((f) => window.wasmBindings[f](200), fn);
      const iters = Math.max(50, Math.min(20_000, Math.round(40e6 / Math.max(probe, 1))));
      const samples = [];
      for (let s = 0; s < REPLAY_SAMPLES; s++) {
        samples.push(await bench.evaluate(([f, it]) => window.wasmBindings[f](it), [fn, iters]));
      }
      result.rollback[name] = { median_ns: Math.round(median(samples)), iters, samples: samples.map((v) => Math.round(v)) };
    }
  }

  // 6. A rollback match of 2 / 4 / 8 pages over 10 s in wasm.
  if (want('match')) {
    result.match = [];
    for (const n of [2, 4, 8]) {
      const text = await bench.evaluate((n) => window.wasmBindings.bench_match(n, 10), n);
      result.match.push(text.startsWith('{') ? JSON.parse(text) : { players: n, error: text });
    }
  }

  // 7. A saved room recording of 4 players over 60 s played back in wasm.
  if (want('playback')) {
    const text = await bench.evaluate(() => window.wasmBindings.bench_room_playback(60));
    result.room_playback = text.startsWith('{') ? JSON.parse(text) : { error: text };
    const match = await bench.evaluate(() => window.wasmBindings.bench_match_playback());
    result.match_playback = match.startsWith('{') ? JSON.parse(match) : { error: match };
  }
  await bench.close();
} finally {
  clearTimeout(watchdog);
  await browser.close();
  relay.stop();
  benchRelay.stop();
}
const json = JSON.stringify(result);
if (OUT) writeFileSync(OUT, json + '\n');
console.log(json);
