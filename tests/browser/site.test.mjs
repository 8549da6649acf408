// The published folder (scripts/build-site) served by another static server, Python's
// http.server, which sends no CSP header and knows nothing of the project: the pages must carry
// their own policy, every name must resolve, and the book's seven seam combinations must show
// what the native core computes, as on the development page (lab.test.mjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import {
  badgeFor,
  buildSite,
  COMBINATIONS,
  coreReport,
  cspViolations,
  launchChromium,
  openPage,
  setSeams,
} from './harness.mjs';
import * as fmt from '../../web/js/lib/format.js';

let site;
let python;
let env;

// python3 -m http.server on a free port of 127.0.0.1; resolves with its URL once it listens.
function pythonServer(dir) {
  const child = spawn(
    'python3',
    ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  ); // its request log (stderr) is not needed
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (d) => {
      seen += d;
      const m = seen.match(/port (\d+)/);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}/` });
    });
    child.on('exit', (code) => reject(new Error(`python3 -m http.server exited ${code}: ${seen}`)));
  });
}

before(async () => {
  site = await buildSite();
  python = await pythonServer(site.dir);
  env = { url: python.url, browser: await launchChromium() };
});
after(async () => {
  await env?.browser.close();
  python?.child.kill();
  await site?.remove();
});

// The book's first view is in the published pages' HTML (scripts/prerender.mjs): before any
// script runs (JavaScript off) they show the 16 GPUs and the core's numbers for the book's first
// state, and once the lab is ready it has taken the picture's place without a layout shift.
describe("the published pages' first view", () => {
  const FIRST = { data: true, tensor: false, pipeline: false }; // the book's first state

  for (const [path, width] of [
    ['', 1280],
    ['embed.html', 1280],
  ]) {
    test(`${path || 'index.html'}: the grid's 16 GPUs and the core's numbers, before any script`, async () => {
      const report = await coreReport(FIRST);
      const context = await env.browser.newContext({
        viewport: { width, height: 800 },
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      await page.goto(new URL(path, env.url).href);
      const view = page.locator('.pe-first-view');
      assert.equal(await view.count(), 1);
      const tiles = await view
        .locator('.gpu-grid rect.tile')
        .evaluateAll((rects) =>
          rects.map((r) => [r.dataset.rank, r.dataset.dp, r.dataset.tp, r.dataset.pp].map(Number)),
        );
      assert.deepEqual(
        tiles,
        report.ranks.map((r) => [r.rank, r.dp, r.tp, r.pp]),
      );
      assert.equal(await view.locator('.badge').textContent(), badgeFor(report));
      assert.equal(
        await view.locator('[data-field="per-gpu"]').textContent(),
        fmt.bytes(report.memory.per_gpu_bytes),
      );
      for (const seam of ['data', 'tensor', 'pipeline']) {
        const text = await view
          .locator(`.wire [data-seam="${seam}"] [data-field="bytes"]`)
          .textContent();
        const { active, bytes_per_gpu_per_step: bytes } = report.comms[seam];
        assert.equal(text, active ? `${fmt.bytes(bytes)}/step` : '—', seam);
      }
      // The default state has a fact (it does not fit) and no warning.
      assert.deepEqual(report.warnings, []);
      assert.equal(
        await view.locator('.warn-first').textContent(),
        'Does not fit: the busiest GPU needs 256 GB, more than its 80 GB.',
      );
      // A picture: nothing in it takes a focus or a click.
      assert.equal(await view.getAttribute('inert'), '');
      await context.close();
    });
  }

  for (const [path, viewport] of [
    ['', { width: 1280, height: 800 }],
    ['embed.html', { width: 1280, height: 800 }],
    ['', { width: 390, height: 844 }],
  ]) {
    test(`${path || 'index.html'} at ${viewport.width}: the lab takes the picture's place, nothing moves`, async () => {
      const context = await env.browser.newContext({ viewport, reducedMotion: 'reduce' });
      await context.addInitScript(() => {
        window.__shifts = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__shifts.push(e.value);
        }).observe({ type: 'layout-shift', buffered: true });
      });
      const page = await context.newPage();
      const errors = []; // a CSP refusal (a style attribute in the picture, say) is one
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      // The module held back a moment, so the picture is on the screen first.
      await page.route('**/*.wasm', async (route) => {
        await new Promise((r) => setTimeout(r, 500));
        await route.continue();
      });
      await page.goto(new URL(path, env.url).href);
      await page.waitForSelector('html[data-ready="1"]');
      await page.evaluate(
        () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
      );
      assert.equal(await page.locator('.pe-first-view').count(), 0, 'the picture is gone');
      assert.equal(await page.locator('.pe-lab').count(), 1);
      assert.deepEqual(await page.evaluate(() => window.__shifts), []);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});

describe('the published folder under python3 -m http.server', () => {
  let lab;
  before(async () => {
    lab = await openPage(env);
  });
  after(() => lab?.close());

  test('names carry their content hash, except the pages, the public entry points and their types', async () => {
    const files = [];
    const walk = async (dir, prefix = '') => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(`${dir}/${e.name}`, `${prefix}${e.name}/`);
        else files.push(`${prefix}${e.name}`);
      }
    };
    await walk(site.dir);
    const stable = new Set([
      'index.html',
      'embed.html',
      'NOTES.md',
      'js/app/embed.js',
      'parallelism-explorer.js',
      'iframe-host.js',
      // The embedders' types, beside the entry points (and the lab API's they import).
      'js/app/embed.d.ts',
      'parallelism-explorer.d.ts',
      'lab/lab.d.ts',
    ]);
    for (const types of ['js/app/embed.d.ts', 'parallelism-explorer.d.ts', 'lab/lab.d.ts'])
      assert.ok(files.includes(types), `${types} is published`);
    for (const f of files) {
      if (stable.has(f) || (f.startsWith('examples/') && f.endsWith('.html'))) continue;
      assert.match(f, /-[0-9A-Za-z]{8,10}\.(js|css|wasm|svg)$/, f);
    }
    for (const m of ['lab-module', 'lab-planner']) {
      assert.ok(
        files.some((f) => new RegExp(`^js/${m}-[0-9a-f]{10}\\.wasm$`).test(f)),
        `${m}'s wasm is fingerprinted`,
      );
    }
    assert.ok(
      files.some((f) => /^js\/planner\/worker-[0-9A-Z]{8}\.js$/.test(f)),
      "the planner's worker is published",
    );
  });

  test("the first load fetches no planner code; the planner's workers load lab-planner", async () => {
    const view = await openPage(env);
    const { page } = view;
    const requested = []; // the page's and its workers' requests
    page.on('request', (r) => requested.push(r.url()));
    const loaded = () =>
      page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name));
    assert.deepEqual(
      (await loaded()).filter((u) => /planner/.test(u)),
      [],
      'nothing of the planner before the Advanced section opens',
    );
    await page.locator('details.advanced > summary').click();
    await page.locator('table.runs tbody tr').first().waitFor(); // the reference runs, in a worker
    assert.ok(
      (await loaded()).some((u) => /\/js\/planner\/worker-[0-9A-Z]{8}\.js$/.test(u)),
      (await loaded()).join('\n'),
    );
    assert.ok(
      requested.some((u) => /\/js\/lab-planner-[0-9a-f]{10}\.wasm$/.test(u)),
      requested.join('\n'),
    );
    await page.locator('button.run-planner').click();
    await page.waitForFunction(
      () => Number(document.querySelector('.plan-status')?.dataset.run ?? 0) > 0,
      null,
      { timeout: 60_000 },
    );
    assert.match(await page.locator('.plan-status').textContent(), /in a worker\./);
    assert.deepEqual(view.problems, []);
    await view.close();
  });

  test('the standalone page loads with its CSP from the <meta> tag and no error', async () => {
    const { page, problems } = lab;
    assert.deepEqual(problems, []);
    assert.deepEqual(await cspViolations(page), []);
    assert.equal(await page.locator('h1').textContent(), 'Splitting a model across 16 GPUs');
    // The policy is in force: an inline script is refused.
    const ran = await page.evaluate(() => {
      window.__inline = false;
      const s = document.createElement('script');
      s.textContent = 'window.__inline = true';
      document.head.append(s);
      return window.__inline;
    });
    assert.equal(ran, false, 'inline script ran: no CSP');
    // Loaded from hashed names, the wasm as application/wasm.
    const loaded = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((r) => r.name),
    );
    assert.ok(
      loaded.some((u) => /\/js\/lab-module-[0-9a-f]{10}\.wasm$/.test(u)),
      loaded.join('\n'),
    );
    const wasm = loaded.find((u) => u.endsWith('.wasm'));
    const type = await page.evaluate(
      async (u) => (await fetch(u)).headers.get('content-type'),
      wasm,
    );
    assert.equal(type, 'application/wasm');
    problems.length = 0; // the refused inline script above is the one expected complaint
  });

  for (const combo of COMBINATIONS) {
    test(`${combo.name}: badge, tiles, memory and wire match the native core`, async () => {
      const report = await coreReport(combo);
      await setSeams(lab.page, combo, badgeFor(report));
      const shown = await lab.page.evaluate(() => ({
        tiles: [...document.querySelectorAll('.gpu-grid rect.tile')].map((r) =>
          [r.dataset.rank, r.dataset.dp, r.dataset.tp, r.dataset.pp, r.dataset.node].map(Number),
        ),
        perGpu: Number(document.querySelector('[data-field="per-gpu"]').dataset.value),
        wire: Object.fromEntries(
          [...document.querySelectorAll('.wire [data-seam]')].map((li) => [
            li.dataset.seam,
            Number(li.querySelector('[data-field="bytes"]').dataset.value),
          ]),
        ),
        warnings: [...document.querySelectorAll('.warnings li')].map((li) => li.textContent),
        facts: [...document.querySelectorAll('.warn-facts li')].map((li) => li.textContent),
      }));
      assert.deepEqual(
        shown.tiles,
        report.ranks.map((r) => [r.rank, r.dp, r.tp, r.pp, r.node]),
      );
      assert.equal(shown.perGpu, report.memory.per_gpu_bytes);
      for (const seam of ['data', 'tensor', 'pipeline']) {
        assert.equal(shown.wire[seam], report.comms[seam].bytes_per_gpu_per_step, seam);
      }
      assert.deepEqual(shown.warnings, report.warnings);
      assert.deepEqual(shown.facts, report.facts);
    });
  }

  test('the stable entry points re-export the hashed modules', async () => {
    const { page } = lab;
    const kinds = await page.evaluate(async () => {
      const embed = await import('/js/app/embed.js');
      const element = await import('/parallelism-explorer.js');
      return [typeof embed.mount, typeof element.ParallelismExplorer];
    });
    assert.deepEqual(kinds, ['function', 'function']);
  });

  test('the iframe page starts too', async () => {
    const view = await openPage(env, 'embed.html?seams=data,tensor,pipeline');
    assert.equal(await view.page.locator('.badge').textContent(), 'DP×TP×PP = 2×4×2 = 16');
    assert.deepEqual(view.problems, []);
    await view.close();
  });

  test('still no error after all the toggling', () => assert.deepEqual(lab.problems, []));
});
