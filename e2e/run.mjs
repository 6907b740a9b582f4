// The browser test command (`npm test`, run by scripts/test.sh): every
// `*.test.mjs` here (or the files named on the command line), one file at
// a time, node's spec report as it goes, then one summary line that counts
// passed, failed and skipped checks and names each skipped one with its
// reason. A skipped check fails the command as a failed one does: a check
// that did not run proves nothing, and a skip that only says so in a log
// stays green forever (the "no visible rollback at loss 0" check skips on
// a machine too busy to give it a clean window).
import { run } from 'node:test';
import { spec as Spec } from 'node:test/reporters';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const named = process.argv.slice(2);
const files = (named.length ? named : readdirSync(here).filter((f) => f.endsWith('.test.mjs')).sort())
  .map((f) => resolve(here, f));

const counts = { passed: 0, failed: 0, skipped: 0 };
const skipped = [];
const stream = run({ files, concurrency: 1 });
stream.on('test:pass', (t) => {
  if (t.skip === undefined) {
    counts.passed++;
  } else {
    counts.skipped++;
    skipped.push(`${t.name} (${t.file ? t.file.slice(here.length + 1) : '?'}): ${t.skip === true ? 'skipped' : t.skip}`);
  }
});
stream.on('test:fail', () => counts.failed++);
const report = stream.compose(new Spec());
report.pipe(process.stdout);
report.on('end', () => {
  const line = `e2e summary: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
  console.log(`\n${line}`);
  for (const s of skipped) console.log(`  skipped, so not checked: ${s}`);
  if (counts.failed > 0 || counts.skipped > 0) {
    const why = [counts.failed > 0 ? `${counts.failed} failed` : '', counts.skipped > 0 ? 'a skipped check has not run (its reason is above)' : ''];
    console.log(`FAILED: ${why.filter(Boolean).join('; ')}`);
    process.exitCode = 1;
  }
});
