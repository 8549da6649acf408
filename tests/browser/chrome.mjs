// Which Chromium the browser tests drive: $CHROME_PATH (or the older $PE_CHROMIUM) if set, else
// the first of chromium, chromium-browser, google-chrome, google-chrome-stable on the PATH.
// One place for the rule: the tests import chromePath(), and scripts/setup runs this file
// (`node tests/browser/chrome.mjs` prints the path, or exits 1 saying what it looked for).
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function chromePath(env = process.env) {
  const given = env.CHROME_PATH || env.PE_CHROMIUM;
  if (given) {
    if (!executable(given)) throw new Error(`CHROME_PATH=${given} is not an executable file`);
    return given;
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of NAMES) {
    for (const dir of dirs) {
      if (executable(join(dir, name))) return join(dir, name);
    }
  }
  throw new Error(
    `no Chromium found: set CHROME_PATH, or put one of ${NAMES.join(', ')} on the PATH`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const path = chromePath();
    console.log(path === realpathSync(path) ? path : `${path} (${realpathSync(path)})`);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
