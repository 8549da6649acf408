// The page's cost, asserted through figures that do not depend on the machine's speed or load:
// the bytes of the first load by file type, the DOM writes and the calls into the core per
// seam toggle, and the main-thread tasks over 50 ms while a large search runs in the worker
// and from the lab's ready to the table of a search the URL asks for.
// Each budget is a fixed ceiling, written here with its reason; a change that needs more says
// so in its commit. Wall-clock figures (time to ready, a toggle's milliseconds, the planner's
// time) are printed by scripts/bench beside their targets, not asserted: on a shared 2-core
// runner their spread is larger than the regressions they would catch.
// scripts/test runs this file alone, after the other browser tests.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { buildSite, useLab } from './harness.mjs';
import {
  longTasksDuringSearch,
  longTasksUntilUrlSearch,
  openFleet,
  payload,
  toggleCounts,
} from './measure.mjs';

// The first load's budget per file type, gzipped (level 9), of the published folder. The
// wasm holds the whole model (five seams, mixtures of experts, the derivations) and
// nlohmann/json (13 KB of it); the JS is the page, about 7 KB of it Emscripten's glue. The first
// load's target, 60 KB in all, is not met: scripts/bench prints the figure beside it. The SVG
// is the favicon. The HTML holds the book's first view (scripts/prerender.mjs: the switches,
// the 16-GPU grid, memory and the wire cards as markup, about 2.6 KB of the 4.1 KB), so the
// grid shows before the JS and wasm arrive: in about 0.65 s on the throttled profile of
// scripts/bench, where the lab is ready in about 1.5 s.
const FIRST_LOAD_GZIP_BYTES = { HTML: 5e3, CSS: 8e3, JS: 45e3, wasm: 90e3, svg: 1e3 };

// DOM writes per toggle: in the book's view at most 32 per GPU (a tile's place, size, label
// and data attributes, and the panels' numbers); on the fleet map, drawn as one path per colour
// rather than a tile per GPU, a bound that does not grow with the fleet.
const BOOK_GPUS = 16;
const DOM_WRITES_PER_TOGGLE = { book: 32 * BOOK_GPUS, fleet: 2048 };
const TOGGLES = 8;

let env;
let lab;
useLab((opened) => ({ env, lab } = opened), { measure: true });

let site;
let siteServer;
before(async () => {
  site = await buildSite();
  siteServer = await serve({ port: 0, root: site.dir });
});
after(async () => {
  await siteServer?.close();
  await site?.remove();
});

test('first load: bytes gzipped by file type within budget', async (t) => {
  const files = await payload({ url: siteServer.url, browser: env.browser });
  const byKind = {};
  for (const f of files) byKind[f.kind] = (byKind[f.kind] ?? 0) + f.gzip;
  t.diagnostic(JSON.stringify(byKind));
  assert.deepEqual(Object.keys(byKind).sort(), Object.keys(FIRST_LOAD_GZIP_BYTES).sort());
  for (const [kind, budget] of Object.entries(FIRST_LOAD_GZIP_BYTES)) {
    assert.ok(byKind[kind] <= budget, `${kind}: ${byKind[kind]} bytes, budget ${budget}`);
  }
});

// Every toggle asks the core once for the report and once for the rank list of the new
// layout, and writes no more than its budget to the DOM.
function assertToggles({ writes, calls }, budget) {
  for (const c of calls) assert.deepEqual(c, { evaluateSummary: 1, ranks: 1 });
  const most = Math.max(...writes);
  assert.ok(most <= budget, `DOM writes per toggle ${writes.join(', ')}: budget ${budget}`);
}

test(`a seam toggle at ${BOOK_GPUS} GPUs: one core call, at most ${DOM_WRITES_PER_TOGGLE.book} DOM writes`, async (t) => {
  const counts = await toggleCounts(lab.page, 'Tensor parallel', TOGGLES);
  t.diagnostic(`DOM writes per toggle: ${counts.writes.join(', ')}`);
  assertToggles(counts, DOM_WRITES_PER_TOGGLE.book);
});

test(`a seam toggle at 10,240 GPUs: one core call, at most ${DOM_WRITES_PER_TOGGLE.fleet} DOM writes`, async (t) => {
  await openFleet(lab.page);
  const counts = await toggleCounts(lab.page, 'Pipeline parallel', TOGGLES);
  t.diagnostic(`DOM writes per toggle: ${counts.writes.join(', ')}`);
  assertToggles(counts, DOM_WRITES_PER_TOGGLE.fleet);
});

// The search runs in a worker: the page stays responsive, with no main-thread task over 50 ms
// from the button to the table. A moment's preemption by another process can make one task
// long, so the best of three searches counts.
test('a half-million-configuration search: no main-thread task over 50 ms', async (t) => {
  const seen = [];
  for (let i = 0; i < 3 && !seen.includes(0); i++) {
    const { tasks, evaluated } = await longTasksDuringSearch(lab.page);
    assert.ok(evaluated > 5e5, `${evaluated} configurations`);
    seen.push(tasks);
  }
  t.diagnostic(`long tasks per search: ${seen.join(', ')}`);
  assert.ok(seen.includes(0), `long tasks in each of ${seen.length} searches: ${seen.join(', ')}`);
});

// A search the URL asks for (plan=1) starts once the lab is ready and the page idle, and the
// reference runs the Advanced section shows are computed in a worker: from the lab's ready to
// the search's table no main-thread task passes 50 ms. Before: the reference runs (30
// evaluations and 320 KB of JSON on the page's thread) made a 65-100 ms task right after ready,
// and the search's answer, its table with every variant row built, and the load's drawing piled
// onto it (116-233 ms). The load's own tasks, before ready, are the first load's cost, which
// bench.mjs times: on a contended 2-core machine one of them can pass 50 ms by a few (51-54 ms
// seen). Each attempt is a fresh page load, so the best of three counts, as above.
test('a search the URL asks for: no main-thread task over 50 ms from ready to its table', async (t) => {
  const seen = [];
  for (let i = 0; i < 3 && !seen.some((tasks) => tasks.length === 0); i++) {
    const { tasks: all, readyMs, rows, status, problems } = await longTasksUntilUrlSearch(env);
    const tasks = all.filter(([start, ms]) => start + ms > readyMs);
    assert.match(status, /^Evaluated 58,960 configurations; [\d,]+ fit .* in a worker\.$/);
    assert.equal(rows, 50, 'the table shows the search');
    assert.deepEqual(problems, []);
    seen.push(tasks);
  }
  const text = seen.map((tasks) => JSON.stringify(tasks)).join(', ');
  t.diagnostic(`tasks over 50 ms after ready per load, [start, ms]: ${text}`);
  assert.ok(
    seen.some((tasks) => tasks.length === 0),
    `tasks over 50 ms in each of ${seen.length} loads: ${text}`,
  );
});

test('no error along the way', () => assert.deepEqual(lab.problems, []));
