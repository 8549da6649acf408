#!/usr/bin/env node
// scripts/test-browser.mjs [FILE...]: the browser test files (default: every
// tests/browser/*.test.mjs) side by side, one per core, printing TAP as `node --test` does (the
// closing "# pass N" and "# fail N" lines among it) and exiting 1 on any failure.
// `node --test` sorts its files by name and starts them in that order, so a long file could start
// last and run alone at the end. Here the files start longest first (LONGEST_FIRST, then the rest
// by name), so the two workers of a 2-core machine finish together.
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';

// The files' seconds in one run of the whole stage on a 2-core machine, longest first; a file
// not named here starts after them. Order only: nothing depends on it.
const LONGEST_FIRST = [
  'share', // 109 s
  'book', // 71
  'robust', // 68
  'advanced', // 67
  'embed', // 60
  'a11y', // 57
  'desk', // 55
  'planner', // 54
  'workspace', // 48
  'perf', // 48
  'hostile', // 44
  'site', // 36
  'fleet-domains', // 27
  'first-view', // 23
];

const dir = fileURLToPath(new URL('../tests/browser/', import.meta.url));
const all = readdirSync(dir)
  .filter((name) => name.endsWith('.test.mjs'))
  .sort();
const rank = (name) => {
  const i = LONGEST_FIRST.indexOf(name.replace(/\.test\.mjs$/, ''));
  return i < 0 ? LONGEST_FIRST.length : i;
};
const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : all.sort((a, b) => rank(a) - rank(b)).map((name) => dir + name);

// A file that hangs (a page that never answers) fails after FILE_LIMIT_MS instead of holding
// the gate until CI's own limit: node:test cancels its tests, and each cancelled test counts as
// failed. Not a timing check: the longest file takes about 75 s on a loaded 2-core machine, an
// eighth of it.
const FILE_LIMIT_MS = 10 * 60 * 1000;
const stream = run({ files, concurrency: availableParallelism(), timeout: FILE_LIMIT_MS });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(tap).pipe(process.stdout);
