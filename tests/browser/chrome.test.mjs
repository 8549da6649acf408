// Which Chromium each role gets (chrome.mjs), on a PATH of stand-in executables: the functional
// tests take a headless shell first, the timings the browser a reader has, each falls back on
// the other, and CHROME_PATH wins for both.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { chromePath } from './chrome.mjs';

let dir;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pe-chrome-'));
});
after(() => rm(dir, { recursive: true, force: true }));

// A folder holding executables with these names, as a PATH.
async function pathWith(...names) {
  const sub = await mkdtemp(join(dir, 'bin-'));
  for (const name of names) {
    await writeFile(join(sub, name), '#!/bin/sh\n');
    await chmod(join(sub, name), 0o755);
  }
  return sub;
}

test('with both: the shell for the functional tests, the browser for the timings', async () => {
  const PATH = await pathWith('chromium', 'chromium-headless-shell');
  assert.equal(chromePath({ shell: true, env: { PATH } }), join(PATH, 'chromium-headless-shell'));
  assert.equal(chromePath({ env: { PATH } }), join(PATH, 'chromium'));
});

test('with one of them, both roles use it', async () => {
  const browserOnly = await pathWith('google-chrome');
  assert.equal(
    chromePath({ shell: true, env: { PATH: browserOnly } }),
    join(browserOnly, 'google-chrome'),
  );
  const shellOnly = await pathWith('chrome-headless-shell');
  assert.equal(chromePath({ env: { PATH: shellOnly } }), join(shellOnly, 'chrome-headless-shell'));
});

test('CHROME_PATH wins for both roles; one that is not executable is refused by name', async () => {
  const PATH = await pathWith('chromium', 'chromium-headless-shell', 'mine');
  const CHROME_PATH = join(PATH, 'mine');
  assert.equal(chromePath({ shell: true, env: { PATH, CHROME_PATH } }), CHROME_PATH);
  assert.equal(chromePath({ env: { PATH, CHROME_PATH } }), CHROME_PATH);
  assert.throws(
    () => chromePath({ env: { PATH, CHROME_PATH: join(PATH, 'missing') } }),
    /CHROME_PATH=.*missing is not an executable file/,
  );
});

test('with none: the error names every name it looked for, in the role order', async () => {
  const PATH = await pathWith('firefox');
  assert.throws(
    () => chromePath({ shell: true, env: { PATH } }),
    /no Chromium found: set CHROME_PATH, or put one of chromium-headless-shell, chrome-headless-shell, chromium, .* on the PATH/,
  );
});
