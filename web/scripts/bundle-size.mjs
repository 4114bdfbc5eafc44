// Initial-JS budget (BENCHMARKS.md B8: ≤ 300 KB gzipped): sums the gzipped size of the
// entry script and every module index.html preloads, and fails the build past the budget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const budget = 300 * 1024;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const files = new Set();
for (const m of html.matchAll(/<script[^>]+src="\/([^"]+\.js)"/g)) files.add(m[1]);
for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+\.js)"/g)) files.add(m[1]);
let total = 0;
for (const f of files) {
  const size = gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
  total += size;
  console.log(`${(size / 1024).toFixed(1).padStart(7)} KB  ${f}`);
}
console.log(`${(total / 1024).toFixed(1).padStart(7)} KB  initial JS, gzipped (budget ${budget / 1024} KB)`);
if (files.size === 0) {
  console.error('no entry script found in dist/index.html');
  process.exit(1);
}
if (total > budget) {
  console.error('initial JS is over budget');
  process.exit(1);
}
