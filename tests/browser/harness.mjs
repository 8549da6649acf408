// Shared by the browser tests: a static server on a free port, headless Chromium (the one
// chrome.mjs finds: a headless shell for the functional tests, the reader's browser for the
// timings) driven by playwright-core, a page that collects every error, and the core's own report for
// a scenario (from the native CLI, so the page's wasm numbers are checked against a separate
// build of the same core).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { serve } from '../../scripts/serve.mjs';
import { chromePath } from './chrome.mjs';

const root = new URL('../../', import.meta.url);
export const READY_TIMEOUT_MS = 30_000;
export const screenshotDir = fileURLToPath(new URL('build/screenshots/', root));

// Screenshots are for a reader to look at, not checks: none is compared with anything. They
// are written only when PE_SCREENSHOTS is set (scripts/test leaves it unset): a full-page one
// cost Chromium 2.5-4 s of a 2-core machine at the advanced section's views, and the suite
// took 21.
export const SCREENSHOTS = Boolean(process.env.PE_SCREENSHOTS);

// Writes build/screenshots/<name>.png of `target` (a page or a locator) when SCREENSHOTS.
export async function screenshot(target, name, options = {}) {
  if (!SCREENSHOTS) return;
  await mkdir(screenshotDir, { recursive: true });
  await target.screenshot({ path: `${screenshotDir}${name}.png`, ...options });
}

export const SEAMS = [
  ['data', 'Data parallel'],
  ['tensor', 'Tensor parallel'],
  ['pipeline', 'Pipeline parallel'],
];

// The seven seam combinations of the book lab, plus "none".
export const COMBINATIONS = [
  { name: 'D', data: true, tensor: false, pipeline: false },
  { name: 'T', data: false, tensor: true, pipeline: false },
  { name: 'P', data: false, tensor: false, pipeline: true },
  { name: 'D+T', data: true, tensor: true, pipeline: false },
  { name: 'D+P', data: true, tensor: false, pipeline: true },
  { name: 'T+P', data: false, tensor: true, pipeline: true },
  { name: 'D+T+P', data: true, tensor: true, pipeline: true },
];

// A server for web/ (or `root`, e.g. the published folder) and a headless Chromium; `measure`
// for the timings, which take the reader's browser (chrome.mjs).
export async function startBrowser({ root, measure = false } = {}) {
  const server = await serve({ port: 0, files: TEST_FILES, ...(root ? { root } : {}) });
  servedOrigins.add(new URL(server.url).origin);
  const browser = await launchChromium({ measure });
  return {
    url: server.url,
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

export function launchChromium({ measure = false } = {}) {
  return chromium.launch({
    executablePath: chromePath({ shell: !measure }),
    args: [
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

// The published folder (scripts/build-site.mjs), written afresh to a directory of the test's
// own, so test files running side by side never share one: { dir, remove() }.
export async function buildSite() {
  const dir = await mkdtemp(join(tmpdir(), 'pe-site-'));
  execFileSync(process.execPath, [fileURLToPath(new URL('scripts/build-site.mjs', root)), dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

// Every page records its CSP refusals, in any frame, for cspViolations().
const recordCsp = () => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
  );
};

// Pages are reused: close() hands a page back to its browser, and the next openPage with the
// same context options navigates it afresh. A new page costs a renderer and a context of its
// own: measured on a 2-core machine, 1.4-1.7 s from the call to the lab's ready, against
// 0.5 s for a page that has shown the lab before; the test files open about 150 labs. A page
// comes back without its listeners, with its origin's storage cleared, at about:blank. Pages
// with an init script or permissions, or in a context a test passed, are not reused.
async function pooledPage(env, options) {
  env.pools ??= new Map();
  const key = JSON.stringify(options);
  if (!env.pools.has(key))
    env.pools.set(key, { context: env.browser.newContext(options), idle: [] });
  const pool = env.pools.get(key);
  const context = await pool.context;
  let page = pool.idle.pop();
  if (page) {
    // Else it may be a background tab, whose frames and timers Chromium throttles.
    await page.bringToFront();
  } else {
    page = await context.newPage();
    await page.addInitScript(recordCsp);
  }
  const release = async () => {
    if (page.isClosed()) return;
    page.removeAllListeners();
    await page.evaluate(() => (localStorage.clear(), sessionStorage.clear())).catch(() => {});
    await page.goto('about:blank');
    pool.idle.push(page);
  };
  return { page, context, release };
}

async function freshPage(env, { shared, permissions, init, ...options }) {
  const context = shared ?? (await env.browser.newContext(options));
  if (permissions) await context.grantPermissions(permissions, { origin: new URL(env.url).origin });
  const page = await context.newPage();
  await page.addInitScript(recordCsp);
  if (init) await page.addInitScript(init);
  return { page, context, release: () => (shared ? page.close() : context.close()) };
}

// Opens a page of web/ (the lab by default) and records everything that went wrong: page
// errors, console errors and warnings (a CSP refusal is one), securitypolicyviolation events
// in any frame, failed requests, HTTP errors, and any request outside the server's origin.
// Waits for `ready` (a selector; the lab's <html data-ready="1"> by default).
export async function openPage(
  env,
  path = '',
  {
    viewport = { width: 1200, height: 900 },
    colorScheme,
    reducedMotion = 'reduce',
    deviceScaleFactor,
    ready = 'html[data-ready="1"]',
    permissions,
    init,
    context: shared,
  } = {},
) {
  const options = { viewport, colorScheme, reducedMotion, deviceScaleFactor };
  const { page, context, release } =
    shared || permissions || init
      ? await freshPage(env, { shared, permissions, init, ...options })
      : await pooledPage(env, options);
  const problems = [];
  const origin = new URL(env.url).origin;
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning')
      problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin && url.protocol !== 'blob:' && url.protocol !== 'data:') {
      problems.push(`request outside the origin: ${r.url()}`);
    }
  });
  // ERR_ABORTED is a request the page itself dropped (a reload while the lazy modules were
  // still loading), not a failure; a missing file shows as its HTTP status below.
  page.on('requestfailed', (r) => {
    const error = r.failure()?.errorText ?? '';
    if (!error.includes('ERR_ABORTED')) problems.push(`request failed: ${r.url()} ${error}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  page.on('download', () => {}); // downloads are the export tests' business
  await page.goto(new URL(path, env.url).href);
  // Generous: the browser test files run side by side on shared 2-core machines, where a cold
  // start (compiling the wasm) can take seconds; a lab that never gets ready still fails.
  if (ready) await page.waitForSelector(ready, { timeout: READY_TIMEOUT_MS });
  return { page, problems, context, close: release };
}

// Two animation frames: whatever the last input scheduled has been rendered. Bounded: a page
// that draws no frame (a background tab, a renderer gone) fails here with a message instead of
// holding its test file until the runner gives up (one run hung so).
export const SETTLE_TIMEOUT_MS = 15_000;
export async function settle(page) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `settle: no two animation frames in ${SETTLE_TIMEOUT_MS / 1000} s at ${page.url()}`,
          ),
        ),
      SETTLE_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([
      page.evaluate(
        () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// Brings `locator` into view and waits until what is near it has stopped moving, for a click
// that must land on it. Try it's questions load when their section comes within half a screen
// of view (embed.js lazyExercises) and push everything below them down: scrolled to a control
// below one, the section loaded a moment later, and on a loaded machine Playwright's click
// landed where the control had been (a switch's aria-checked still false; "Copy embed snippet"
// never copied). So: every visible Try it section near the view has its questions, then two
// frames.
export async function settledForClick(locator) {
  await locator.scrollIntoViewIfNeeded();
  await locator.page().waitForFunction(() =>
    [...document.querySelectorAll('.exercises')].every((section) => {
      const box = section.getBoundingClientRect();
      const near = box.bottom > -innerHeight / 2 && box.top < innerHeight * 1.5;
      return !near || section.offsetParent === null || section.childElementCount > 0;
    }),
  );
  await settle(locator.page());
}

// The page's URL once every lab on it has written its state there (the labs throttle their
// history.replaceState and mark a write that is due with data-url-pending).
export async function settledUrl(page) {
  await settle(page);
  await page.waitForFunction(() => !document.querySelector('[data-url-pending]'));
  return page.url();
}

// The CSP violations every frame of the page has seen.
export async function cspViolations(page) {
  const all = [];
  for (const frame of page.frames()) {
    all.push(...(await frame.evaluate(() => window.__cspViolations ?? []).catch(() => [])));
  }
  return all;
}

export const openLab = (env, options = {}) => openPage(env, options.path ?? '', options);

// One Chromium and one open lab for a whole test file: registers the before/after hooks and
// hands `use` the { env, lab } pair once both are ready. `measure`: as startBrowser's.
export function useLab(use, { measure = false, ...options } = {}) {
  let opened;
  before(async () => {
    const env = await startBrowser({ measure });
    opened = { env, lab: await openLab(env, options) };
    use(opened);
  });
  after(async () => {
    await opened?.lab.close();
    await opened?.env.close();
  });
}

// Sets the switches to a combination (clicking only the ones that differ) and waits for the
// badge to show the degrees the core computed for it.
export async function setSeams(page, combo, expectedBadge) {
  for (const [key, label] of SEAMS) {
    const sw = page.getByRole('switch', { name: label, exact: true });
    if ((await sw.getAttribute('aria-checked')) !== String(combo[key])) await sw.click();
  }
  await page.waitForFunction(
    (text) => document.querySelector('.badge')?.textContent === text,
    expectedBadge,
    { timeout: READY_TIMEOUT_MS / 2 },
  );
}

const cli = fileURLToPath(new URL('build/native/core/explore', root));
let wasmLab;

// The core's report for the page's scenario (16 GPUs, 8 per node, the given seams): from the
// native CLI when it is built (scripts/test builds it first), else from the wasm module in Node.
export async function coreReport({ data, tensor, pipeline }) {
  const scenario = { gpus: 16, gpus_per_node: 8, seams: { data, tensor, pipeline } };
  if (existsSync(cli)) {
    return JSON.parse(execFileSync(cli, ['-'], { input: JSON.stringify(scenario) }).toString());
  }
  if (!wasmLab) {
    const { createLab } = await import('../../web/lab/lab.js');
    const wasmBinary = await readFile(new URL('web/lab/lab-module.wasm', root));
    wasmLab = await createLab({ wasmBinary });
  }
  return wasmLab.evaluate(scenario);
}

export const badgeFor = (report) => {
  const { dp, tp, pp } = report.degrees;
  return `DP×TP×PP = ${dp}×${tp}×${pp} = ${report.active_gpus}`;
};

// axe-core, offline, from the page's own origin: the pages run under a CSP that refuses inline
// scripts, so the tests serve axe.min.js at /__test__/axe.min.js (never on disk in web/) and
// add it as a script file. target is a page or a frame; returns "rule: targets" strings. The
// harness's servers serve it (serve()'s `files`); a page of another origin has it routed, which
// makes Playwright intercept every later request of that browser context.
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const AXE_PATH = '/__test__/axe.min.js';
const TEST_FILES = { [AXE_PATH]: axePath };
const servedOrigins = new Set();
const routed = new WeakSet();

export async function axe(target, context = 'document') {
  const page = typeof target.page === 'function' ? target.page() : target;
  const browserContext = page.context();
  const served = servedOrigins.has(new URL(target.url()).origin);
  if (!served && !routed.has(browserContext)) {
    routed.add(browserContext);
    await browserContext.route(`**${AXE_PATH}`, (route) =>
      route.fulfill({ path: axePath, contentType: 'text/javascript; charset=utf-8' }),
    );
  }
  if (!(await target.evaluate(() => typeof window.axe === 'object'))) {
    await target.addScriptTag({ url: new URL(AXE_PATH, target.url()).href });
  }
  return target.evaluate(async (selector) => {
    const root = selector === 'document' ? document : document.querySelector(selector);
    // Every rule axe runs by default: WCAG 2.x A and AA, and its best practices. preload off:
    // it would copy each shadow root's stylesheets into inline <style> elements (for its one
    // CSS orientation rule), which the page's CSP rightly refuses.
    const result = await window.axe.run(root, { resultTypes: ['violations'], preload: false });
    return result.violations.map(
      (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  }, context);
}

// The derivation's first line once it has come and is on the screen: derivations are built by
// the planner's module, which the page loads the first time a reader opens one (the tip is
// aria-busy meanwhile). `scope`: the page, or a lab's box when a page holds several.
export async function mathText(scope) {
  await scope.locator('.explain-tip[aria-busy="false"]').waitFor({ state: 'visible' });
  return scope.locator('.explain-text').textContent();
}
