// The page's files are served precompressed (issue #28 item 5): the real
// release wasm, asked for with Accept-Encoding br (or gzip), comes with
// that Content-Encoding, ≤ 500 kB on the wire, and a year's immutable
// cache on its hashed name; without the header it is the plain file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { relayAndBrowser } from './harness.mjs';

const env = relayAndBrowser();

/** GET `url` with `accept` as Accept-Encoding: status, headers, body bytes. */
function fetchRaw(url, accept) {
  return new Promise((resolve, reject) => {
    get(url, { headers: accept ? { 'Accept-Encoding': accept } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, bytes }));
    }).on('error', reject);
  });
}

test('the wasm is sent brotli or gzip compressed, ≤ 500 kB, cached a year under its hashed name', async (t) => {
  const html = await (await fetch(env.relay.url)).text();
  const name = html.match(/[\w-]+-[0-9a-f]{8,16}_bg\.wasm/)?.[0];
  assert.ok(name, 'the page names its wasm');
  const url = `${env.relay.url}${name}`;
  const plain = await fetchRaw(url, '');
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  for (const [accept, encoding] of [['br, gzip', 'br'], ['gzip', 'gzip']]) {
    const r = await fetchRaw(url, accept);
    t.diagnostic(`${encoding}: ${r.bytes} B of ${plain.bytes} B`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], encoding);
    assert.ok(r.bytes <= 500_000, `${r.bytes} B ${encoding}`);
    assert.ok(r.bytes < plain.bytes / 2, `${r.bytes} B < half of ${plain.bytes} B`);
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(r.headers.vary ?? '', /accept-encoding/i);
  }
  const page = await fetchRaw(env.relay.url, 'br');
  assert.equal(page.headers['cache-control'], 'no-cache');
});
