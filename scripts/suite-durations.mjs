// `npm run test:durations`: writes test/suite-durations.json (the order test/support/longest-first.ts
// runs the files in) from the durations vitest cached in the last run. Run it after a full `npm test`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheDir = 'node_modules/.vite/vitest';
const caches = readdirSync(cacheDir).map((d) => join(cacheDir, d, 'results.json'));
const { results } = JSON.parse(readFileSync(caches[0], 'utf8'));
const seconds = Object.fromEntries(
  results
    .filter(([, r]) => r.duration >= 1_000)
    .sort(([, a], [, b]) => b.duration - a.duration)
    .map(([file, r]) => [file, Math.round(r.duration / 1_000)]),
);
writeFileSync('test/suite-durations.json', `${JSON.stringify(seconds, null, 1)}\n`);
console.log(`test/suite-durations.json: ${Object.keys(seconds).length} files of a second or more, from ${caches[0]}`);
