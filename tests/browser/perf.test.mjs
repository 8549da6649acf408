// The page's cost, asserted through figures that do not depend on the machine's speed or load:
// the bytes of the first load by file type, the DOM writes and the calls into the core per
// seam toggle, and what reaches the page's thread while a large search runs in the worker and
// while a search the URL asks for loads (messages, core calls, DOM writes, files).
// Each budget is a fixed ceiling, written here with its reason; a change that needs more says
// so in its commit. Wall-clock figures (time to ready, a toggle's milliseconds, the planner's
// time, the long tasks) are printed by scripts/bench beside their targets, not asserted: on a
// shared 2-core runner their spread is larger than the regressions they would catch.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { buildSite, openPage, useLab } from './harness.mjs';
import {
  countWorkerMessages,
  openFleet,
  payload,
  searchTraffic,
  toggleCounts,
  urlSearchTraffic,
} from './measure.mjs';

// The first load's budget per file type, gzipped (level 9), of the published folder. The
// wasm holds the whole model (five seams, mixtures of experts, the derivations) and
// nlohmann/json (13 KB of it); the JS is the page, about 7 KB of it Emscripten's glue. The first
// load's target, 60 KB in all, is not met: scripts/bench prints the figure beside it. The SVG
// is the favicon. The HTML holds the book's first view (scripts/prerender.mjs: the switches,
// the 16-GPU grid, memory and the wire cards as markup, about 2.6 KB of the 4.1 KB), so the
// grid shows before the JS and wasm arrive: in about 0.65 s on the throttled profile of
// scripts/bench, where the lab is ready in about 1.5 s.
// CSS 8.2 KB: the fit verdict's third colour (tight: past 80%, within the GPU) took it from
// 7,985 to 8,079 bytes. wasm 90.5 KB: each pass hiding its own traffic, DualPipe's lone
// backward and the all-to-all's two routes in a multi-node domain (the laws) took it from
// 89,841 to 90,317 bytes; NVFP4, the GB300 NVL72 and HGX B300 presets and their refusals to
// 90,831 (wasm 91 KB); MFU against the GEMMs' peak to 90,990, and Hopper's measured FP8
// speedup to 91,005 (wasm 91.1 KB); the attention kernel's measured efficiency on CP's short
// chunks and the chunk rule the planner now shares with evaluate to 91,263 (after cutting a
// duplicate BF16 path in the matmul time and a logarithm), and Transformer Engine's cross
// entropy (cross_entropy) to 91,350 (wasm 91.4 KB); the small GEMMs' measured curves by size
// (gemm_shape: two tables, a layer's GEMMs, a log and an exp of its own: 716 bytes) and the
// calibration's refusal of a TFLOP/s and a step that disagree (about 420) to 92,485 (wasm 92.5
// KB); the ZB-V timeline's own V and the small GEMMs' derivation key to 92,535 (wasm 92.6 KB);
// goodput (the reliability block and report.goodput) would have added about 1,950 more, and
// writing the report's numbers from tables of members instead of one initializer list per key
// (contract_write.cpp) cut it all to 92,197; the model's changes since took it to 92,537 and the
// planner's three speed-ups (the stages' times per kind of schedule, chunks_fit, the activations'
// parts) to 92,658, and reading a scenario in one SAX pass (contract_read.cpp read_strict) cut it
// to 90,014. The ceiling has
// moved with every model change since 89.8 KB: the first load needs a cut (the 60 KB target:
// the derivations' text, explain, loaded when a reader first asks for the math), not another
// raise.
// HTML 5.5 KB and CSS 7.5 KB: the page's own stylesheet (0.8 KB gzipped) moved into the
// standalone page's HTML, so that its header paints behind no fetch (the test below).
const FIRST_LOAD_GZIP_BYTES = { HTML: 5.5e3, CSS: 7.5e3, JS: 45e3, wasm: 92.6e3, svg: 1e3 };

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

// What the standalone page's first paint waits for, counted (scripts/bench prints its time
// against a bare page's): in <head>, no stylesheet link and no script (the page's modules
// follow the lab's stylesheet, so they are not fetched and compiled beside the first paint),
// only the page's own stylesheet inline (within INLINE_CSS_BYTES); in <body>, the lab's
// stylesheet, which blocks only the parser, so what paints first is what comes before it: the
// header, within FIRST_PAINT_ELEMENTS elements (11 now). The whole page in the first frame, as
// before, cost 2-4x a bare page's first paint (tests/README.md).
const INLINE_CSS_BYTES = 2048;
const FIRST_PAINT_ELEMENTS = 16;
test('first paint: the header, behind nothing fetched', async (t) => {
  const html = await readFile(join(site.dir, 'index.html'), 'utf8');
  const head = html.slice(0, html.indexOf('</head>'));
  assert.doesNotMatch(head, /<link rel="stylesheet"/, 'a render-blocking stylesheet');
  assert.doesNotMatch(head, /<script|rel="modulepreload"/, 'a script or module fetched at once');
  const inline = [...head.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
  assert.equal(inline.length, 1);
  const cssBytes = Buffer.byteLength(inline[0]);
  const body = html.slice(html.indexOf('<body'));
  const lab = body.indexOf('<link rel="stylesheet"');
  assert.ok(lab > 0, "the lab's stylesheet is linked in <body>");
  assert.ok(body.indexOf('<div id="lab"') > lab, "the lab's first view comes after it");
  const elements = body.slice(0, lab).match(/<[a-z]/g).length;
  t.diagnostic(`inline CSS ${cssBytes} bytes, ${elements} elements before the lab's stylesheet`);
  assert.ok(cssBytes <= INLINE_CSS_BYTES, `inline CSS ${cssBytes} bytes`);
  assert.ok(elements <= FIRST_PAINT_ELEMENTS, `${elements} elements in the first paint`);
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

// The search runs in a worker, so the page stays responsive: what reaches the page's thread is
// counted, not timed (the long tasks a search leaves there depend on the machine's load, and
// scripts/bench prints them beside their 50 ms target). From the button to the table the page's
// thread receives a progress message before the search and after each DP×TP×PP layout, the
// answer, and perhaps the reference runs' one answer, and calls the core for nothing: the
// search is the worker's. Its DOM writes: the progress bar's value per message, the status, and
// the table of 50 layouts with their variant rows, built once (7,700 writes measured).
const SEARCH_MESSAGES_BEYOND_LAYOUTS = 3;
const SEARCH_TABLE_DOM_WRITES = 8192;
test('a half-million-configuration search: the page only receives it', async (t) => {
  const view = await openPage(env, '', { init: countWorkerMessages });
  const seen = await searchTraffic(view.page);
  t.diagnostic(JSON.stringify(seen));
  assert.ok(seen.evaluated > 5e5, `${seen.evaluated} configurations`);
  assert.match(seen.status, /in a worker\.$/);
  assert.ok(seen.layouts > 0, 'the progress bar counted the layouts');
  const most = seen.layouts + SEARCH_MESSAGES_BEYOND_LAYOUTS;
  assert.ok(seen.messages <= most, `${seen.messages} messages for ${seen.layouts} layouts`);
  assert.deepEqual(seen.calls, {}, "no call into the core on the page's thread");
  const writes = seen.layouts + SEARCH_TABLE_DOM_WRITES;
  assert.ok(seen.writes <= writes, `${seen.writes} DOM writes, budget ${writes}`);
  assert.deepEqual(view.problems, []);
  await view.close();
});

// A search the URL asks for (plan=1) starts once the lab is ready, and the reference runs the
// Advanced section shows are computed in a worker (before: 30 evaluations and 320 KB of JSON on
// the page's thread made a 65-100 ms task right after ready). The page's thread never fetches
// the planner's module, receives the search's messages and the reference runs' answer, and
// calls the core only for the lab's own view: its report (twice: the state as loaded, then as
// the URL's plan=1 leaves it) and its rank list.
test('a search the URL asks for: the planner stays in the workers', async (t) => {
  const seen = await urlSearchTraffic(env);
  t.diagnostic(JSON.stringify(seen));
  assert.match(seen.status, /^Evaluated 1,382,104 configurations; [\d,]+ fit .* in a worker\.$/);
  assert.equal(seen.rows, 50, 'the table shows the search');
  assert.deepEqual(seen.plannerFiles, [], "the planner's module is the workers'");
  const most = seen.layouts + SEARCH_MESSAGES_BEYOND_LAYOUTS;
  assert.ok(seen.messages <= most, `${seen.messages} messages for ${seen.layouts} layouts`);
  assert.deepEqual(Object.keys(seen.calls).sort(), ['evaluateSummary', 'ranks']);
  assert.ok(seen.calls.evaluateSummary <= 4, JSON.stringify(seen.calls));
  assert.deepEqual(seen.problems, []);
});

test('no error along the way', () => assert.deepEqual(lab.problems, []));
