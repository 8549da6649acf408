// Which Chromium the browser tests drive. $CHROME_PATH (or the older $PE_CHROMIUM), if set, is
// used for everything. Else two roles:
//   the functional tests prefer a headless shell (chromium-headless-shell, chrome-headless-shell):
//     the same Blink and V8 without the browser's own layers, which runs the 140 browser tests
//     in about two thirds of the time (tests/README.md);
//   the timing budgets and the benchmark prefer the browser a reader has (chromium,
//     chromium-browser, google-chrome, google-chrome-stable), so their figures are the reader's.
// Each role falls back on the other's names. One place for the rule: the tests import
// chromePath(), and scripts/setup runs this file (`node tests/browser/chrome.mjs [--shell]`
// prints the path for the role, or exits 1 saying what it looked for).
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
export const SHELL_NAMES = ['chromium-headless-shell', 'chrome-headless-shell'];

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function chromePath({ shell = false, env = process.env } = {}) {
  const given = env.CHROME_PATH || env.PE_CHROMIUM;
  if (given) {
    if (!executable(given)) throw new Error(`CHROME_PATH=${given} is not an executable file`);
    return given;
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  const names = shell ? [...SHELL_NAMES, ...NAMES] : [...NAMES, ...SHELL_NAMES];
  for (const name of names) {
    for (const dir of dirs) {
      if (executable(join(dir, name))) return join(dir, name);
    }
  }
  throw new Error(
    `no Chromium found: set CHROME_PATH, or put one of ${names.join(', ')} on the PATH`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const path = chromePath({ shell: process.argv.includes('--shell') });
    console.log(path === realpathSync(path) ? path : `${path} (${realpathSync(path)})`);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
