// Measurements of the page in headless Chromium, shared by the benchmark (bench.mjs, which
// prints the timings beside their targets) and the budget test (perf.test.mjs, which asserts
// the figures that do not depend on the machine: bytes, DOM writes, core calls, worker messages).
// Every timing is taken inside the page with performance.now(); playwright only drives.
import { gzipSync } from 'node:zlib';

import { PLANNER_CASES } from '../bench/planner-cases.mjs';
import { openPage, settle } from './harness.mjs';

// The page's performance targets, on this project's 2-core machines, printed by bench.mjs.
export const TARGETS = {
  payloadGzipBytes: 60e3,
  readyMs: 1000,
  // The book's grid on the screen within a second on a slow connection and a slow phone's
  // processor (THROTTLED: what DevTools calls a slow 3G profile, and a 4x CPU slowdown).
  firstDrawThrottledMs: 1000,
  // The published page's first paint within 1.3× a bare static page's, in the same run, on
  // the machine and on the throttled profile: the pre-rendered grid paints with the HTML.
  firstPaintOverBare: 1.3,
  // A seam toggle's work (handler, drawing, style and layout) at p95: 4 ms at 16 GPUs, a 60 Hz
  // frame at 10,240; and the next frame within two.
  toggleWorkP95Ms16: 4,
  toggleWorkP95Ms10240: 16,
  nextFrameP95Ms16: 33,
  nextFrameP95Ms10240: 33,
  // A search from the button to its table (now 50 layouts with their variants, in a worker):
  // 100 ms for the planner's whole five-seam search of 405B on 16,384 GPUs.
  plannerMs: 100,
  plannerLongestTaskMs: 50, // the longest main-thread task while a big search runs
  // The planner's search in its wasm module (lab-planner) against the native one.
  wasmOverNative: 1.5,
};

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

// Two animation frames (harness.mjs), here too for the files that import it from here.
export { settle };

// Everything the page downloads up to "ready", each response's real body gzipped (level 9,
// what a static host would serve): [{ url, kind, bytes, gzip }].
export async function payload(env) {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const pending = [];
  // Chromium asks for the page's icon after the load, when it chooses: a first load counted
  // before it came listed no SVG (a run in ten on a busy machine). Waited for, the files are
  // the same on every run.
  let iconCame;
  const icon = new Promise((resolve) => (iconCame = resolve));
  page.on('response', (r) => {
    if (new URL(r.url()).pathname.endsWith('.svg')) iconCame();
    pending.push(
      r.body().then(
        (body) => ({ url: r.url(), body }),
        () => null,
      ),
    );
  });
  await page.goto(env.url);
  await page.waitForSelector('html[data-ready="1"]');
  await settle(page);
  await icon;
  const files = (await Promise.all(pending)).filter(Boolean).map(({ url, body }) => {
    const path = new URL(url).pathname;
    const ext = path.endsWith('/') ? 'html' : path.split('.').pop();
    const kind = { html: 'HTML', css: 'CSS', js: 'JS', mjs: 'JS', wasm: 'wasm' }[ext] ?? ext;
    return { url: path, kind, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length };
  });
  await context.close();
  return files;
}

// Milliseconds from navigation start to the lab's 'lab-ready' mark, in a fresh context each
// time (nothing cached).
export async function readyMs(env) {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(env.url);
  await page.waitForSelector('html[data-ready="1"]');
  const ms = await page.evaluate(() => performance.getEntriesByName('lab-ready')[0].startTime);
  await context.close();
  return ms;
}

// The throttled profile of the first-draw figure: 1.6 Mbps down, 750 kbps up, 150 ms round
// trip (Network.emulateNetworkConditions), the processor 4x slower (Emulation.
// setCPUThrottlingRate).
export const THROTTLED = {
  network: {
    offline: false,
    latency: 150,
    downloadThroughput: 1.6e6 / 8,
    uploadThroughput: 750e3 / 8,
  },
  cpuRate: 4,
};

// Milliseconds from navigation start to the first frame that shows the book's grid (its 16
// tiles in the document and the page's styles applied: a render-blocked page runs no
// animation frame), in a fresh context under the THROTTLED profile. The server should
// compress, as a host does (serve({ gzip: true })). Also the lab's ready, for comparison:
// { gridMs, readyMs }.
export async function firstDrawMs(env, path = '') {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const look = (t) => {
      if (document.querySelectorAll('.gpu-grid .tile').length >= 16) window.__gridDrawn = t;
      else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', THROTTLED.network);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLED.cpuRate });
  await page.goto(new URL(path, env.url).href);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 60_000 });
  await page.waitForFunction(() => window.__gridDrawn !== undefined);
  const out = await page.evaluate(() => ({
    gridMs: window.__gridDrawn,
    readyMs: performance.getEntriesByName('lab-ready')[0]?.startTime ?? NaN,
  }));
  await context.close();
  return out;
}

// The first contentful paint of a page (PerformancePaintTiming), in a fresh context, on the
// machine as it is or on the THROTTLED profile: ms from navigation.
export async function firstPaintMs(env, path = '', { throttled = false } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  if (throttled) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', THROTTLED.network);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLED.cpuRate });
  }
  await page.goto(new URL(path, env.url).href);
  const ms = await page.evaluate(
    () =>
      new Promise((resolve) => {
        new PerformanceObserver((list, observer) => {
          const fcp = list.getEntriesByName('first-contentful-paint')[0];
          if (fcp) (observer.disconnect(), resolve(fcp.startTime));
        }).observe({ type: 'paint', buffered: true });
      }),
  );
  await context.close();
  return ms;
}

// Clicks a seam switch `n` times (on, off, on, ...) and measures each click in the page:
//   work: the click handler, plus the frame's work up to a forced style and layout: the
//         controller renders in requestAnimationFrame, so a rAF callback queued before the
//         click marks the frame's start and one queued after it (it runs after the render)
//         forces style and layout and marks the end;
//   next: click to the next frame (a rAF, then a setTimeout, so the frame has been produced).
export async function toggleSamples(page, label, n) {
  return page.evaluate(
    async ({ label, n }) => {
      const button = [...document.querySelectorAll('button[role="switch"]')].find(
        (b) => b.textContent.trim() === label,
      );
      const idle = () => new Promise((r) => setTimeout(r, 30));
      const once = () =>
        new Promise((resolve) => {
          let frameStart = 0;
          requestAnimationFrame(() => {
            frameStart = performance.now();
          });
          const t0 = performance.now();
          button.click();
          const t1 = performance.now();
          requestAnimationFrame(() => {
            void document.body.offsetHeight; // forced style and layout
            const t2 = performance.now();
            setTimeout(() =>
              resolve({ work: t1 - t0 + (t2 - frameStart), next: performance.now() - t0 }),
            );
          });
        });
      const work = [];
      const next = [];
      for (let i = 0; i < n; i++) {
        await idle();
        const s = await once();
        work.push(s.work);
        next.push(s.next);
      }
      return { work, next };
    },
    { label, n },
  );
}

// Opens the advanced section and loads the book's canonical fleet (80×8×16 = 10,240 GPUs).
export async function openFleet(page) {
  if (!(await page.locator('details.advanced').evaluate((d) => d.open))) {
    await page.locator('details.advanced > summary').click();
  }
  await page.locator('button[data-preset="fleet"]').click();
  await page.waitForFunction(
    () => document.querySelector('.badge').textContent === 'DP×TP×PP = 80×8×16 = 10240',
  );
  await page.locator('svg.fleet').waitFor(); // the map's module loads the first time it is needed
  // The reference runs arrive from their worker once the page is idle: counted toggles come
  // after, or one of them draws the runs' table too (2,311 writes seen instead of 1,115).
  await page.locator('table.runs:not([hidden])').waitFor();
  await settle(page);
}

// Sets an advanced field as a person would: pick an option, or type and leave the field.
export async function setField(page, name, value) {
  const input = page.locator(`details.advanced [data-state="${name}"]`);
  if ((await input.evaluate((el) => el.tagName)) === 'SELECT') {
    await input.selectOption(String(value));
  } else {
    await input.fill(String(value));
    await input.press('Tab');
  }
  await settle(page);
}

// The planner's yardstick: Llama 3 405B on 16,384 H100s, sequence 8,192, global batch 2,048,
// the H100 preset's network (50 GB/s per GPU), as tests/bench/core_bench.cpp runs it natively.
export async function setPlannerCase(page) {
  if (!(await page.locator('details.advanced').evaluate((d) => d.open))) {
    await page.locator('details.advanced > summary').click();
  }
  await setField(page, 'gpus', 16384);
  await setField(page, 'model', 'llama3-405b');
  await setField(page, 'gpu', 'H100-80GB');
  await setField(page, 'seq_len', 8192);
  await setField(page, 'global_batch', 2048);
}

// The largest search the page offers a reason to run: DeepSeek-V3 (128 heads, 256 experts) on
// 15,360 H800s at 131,072 tokens, where TP, CP, PP and EP all have many divisors to try: about
// 549,000 configurations (the native CLI's --plan counts them).
export async function setLargeSearchCase(page) {
  if (!(await page.locator('details.advanced').evaluate((d) => d.open))) {
    await page.locator('details.advanced > summary').click();
  }
  await setField(page, 'gpus', 15360);
  await setField(page, 'model', 'deepseek-v3');
  await setField(page, 'gpu', 'H800-80GB');
  await setField(page, 'seq_len', 131072);
  await setField(page, 'global_batch', 122880);
}

// The main-thread tasks over 50 ms (PerformanceObserver 'longtask') from the planner's button
// to its answer on the page, for the large search case, which runs in the worker: the longest
// (0 when none) and how many, and how many configurations that search evaluated:
// { longest, tasks, evaluated, status }.
export async function longTasksDuringSearch(page) {
  await setLargeSearchCase(page);
  await settle(page); // the fleet map of the new case is drawn before the watch starts
  const before = await page.evaluate(() => {
    window.__longestTask = 0;
    window.__longTaskCount = 0;
    window.__longTasks?.disconnect();
    window.__longTasks = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__longestTask = Math.max(window.__longestTask, e.duration);
        window.__longTaskCount += 1;
      }
    });
    window.__longTasks.observe({ type: 'longtask' });
    return Number(document.querySelector('.plan-status')?.dataset.run ?? 0);
  });
  await page.locator('button.run-planner').click();
  await page.waitForFunction(
    (k) => Number(document.querySelector('.plan-status')?.dataset.run ?? 0) > k,
    before,
    { timeout: 120_000 },
  );
  await settle(page);
  return page.evaluate(() => {
    const el = document.querySelector('.plan-status');
    return {
      longest: window.__longestTask,
      tasks: window.__longTaskCount,
      evaluated: Number(el.dataset.evaluated),
      status: el.textContent,
    };
  });
}

// An init script: every worker the page starts counts the messages it posts to the page's
// thread (each one a task there) in window.__workerMessages.
export function countWorkerMessages() {
  window.__workerMessages = 0;
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => (window.__workerMessages += 1));
    }
  };
}

// Starts counting, on a page opened with countWorkerMessages: the worker messages, the calls
// into the core on the page's thread ('lab-core-call' marks, by name) and the DOM writes
// (MutationObserver records) from now until readTraffic(page).
export const watchTraffic = (page) =>
  page.evaluate(() => {
    window.__workerMessages = 0;
    performance.clearMarks('lab-core-call');
    window.__writes = 0;
    window.__writeObserver?.disconnect();
    window.__writeObserver = new MutationObserver((records) => (window.__writes += records.length));
    window.__writeObserver.observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
  });

// What watchTraffic counted: { messages, calls: { name: count }, writes }.
export const readTraffic = (page) =>
  page.evaluate(() => {
    window.__writes += window.__writeObserver.takeRecords().length;
    window.__writeObserver.disconnect();
    const calls = {};
    for (const m of performance.getEntriesByName('lab-core-call'))
      calls[m.detail] = (calls[m.detail] ?? 0) + 1;
    return { messages: window.__workerMessages, calls, writes: window.__writes };
  });

// The large search case run from the planner's button on a page opened with
// countWorkerMessages: what reached the page's thread from the button to the table (readTraffic),
// the layouts the search walked (its progress bar's total), and its status line.
export async function searchTraffic(page) {
  await setLargeSearchCase(page);
  await settle(page); // the fleet map of the new case is drawn before the watch starts
  await watchTraffic(page);
  await runPlannerSearch(page);
  await settle(page);
  const traffic = await readTraffic(page);
  return {
    ...traffic,
    layouts: await page.locator('.plan-progress').evaluate((el) => Number(el.max)),
    evaluated: await page.locator('.plan-status').evaluate((el) => Number(el.dataset.evaluated)),
    status: await page.locator('.plan-status').textContent(),
  };
}

// The planner's yardstick as a scenario, for the lab's API.
const PLANNER_CASE = PLANNER_CASES['405B on 16,384 H100'];

// The planner's search alone, in the page's browser on the planner's module (the worker's),
// n times: first to last progress call, as tests/bench/wasm-plan.mjs times it in Node, sorted.
// Twenty searches first are not counted: Chromium runs new wasm code from its baseline
// compiler and optimises the hot functions as they run, so the first searches measure that
// (seen: 9.5, 5.5, 1.3 ms, then 0.6-0.8 ms, then 0.5-0.6 ms). The page's clock ticks every
// 0.1 ms here (no cross-origin isolation), against a search of about 0.5 ms: the median is the
// figure to read.
const WARM_UP = 20;
export async function plannerSearchMs(page, n) {
  return page.evaluate(
    async ({ scenario, n, warmUp }) => {
      const { createLab } = await import('/lab/lab.js');
      const lab = await createLab({ planner: true });
      const ms = [];
      for (let i = 0; i < warmUp + n; i++) {
        let first = 0;
        let last = 0;
        const onProgress = () => {
          last = performance.now();
          if (!first) first = last;
        };
        lab.plan(scenario, 10, { onProgress });
        ms.push(last - first);
      }
      return ms.slice(warmUp).sort((a, b) => a - b);
    },
    { scenario: PLANNER_CASE, n, warmUp: WARM_UP },
  );
}

// Runs the planner n times from its button; the page reports each search's time.
export async function plannerSamples(page, n) {
  const out = [];
  const done = await page.evaluate(() =>
    Number(document.querySelector('.plan-status')?.dataset.run ?? 0),
  );
  for (let i = 0; i < n; i++) {
    await page.locator('button.run-planner').click();
    await page.waitForFunction(
      (k) => document.querySelector('.plan-status')?.dataset.run === String(k),
      done + i + 1,
    );
    out.push(
      await page.locator('.plan-status').evaluate((el) => ({
        ms: Number(el.dataset.ms),
        evaluated: Number(el.dataset.evaluated),
        feasible: Number(el.dataset.feasible),
      })),
    );
  }
  return out;
}

// Deterministic proxies of a toggle's cost, for n clicks of a seam's switch: per click, the DOM
// writes (MutationObserver records: an attribute set, a node added or removed, a text changed)
// anywhere in the document, and the calls into the core (the page's 'lab-core-call' marks, by
// name): { writes: [...], calls: [{ evaluateSummary, ranks }, ...] }.
export async function toggleCounts(page, label, n) {
  return page.evaluate(
    async ({ label, n }) => {
      const button = [...document.querySelectorAll('button[role="switch"]')].find(
        (b) => b.textContent.trim() === label,
      );
      const frames = () =>
        new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r))));
      const writes = [];
      const calls = [];
      for (let i = 0; i < n; i++) {
        await frames();
        performance.clearMarks('lab-core-call');
        let count = 0;
        const observer = new MutationObserver((records) => (count += records.length));
        observer.observe(document, {
          subtree: true,
          childList: true,
          attributes: true,
          characterData: true,
        });
        button.click();
        await frames(); // what the click scheduled has been drawn
        count += observer.takeRecords().length;
        observer.disconnect();
        writes.push(count);
        const byName = { evaluateSummary: 0, ranks: 0 };
        for (const m of performance.getEntriesByName('lab-core-call')) byName[m.detail] += 1;
        calls.push(byName);
      }
      return { writes, calls };
    },
    { label, n },
  );
}

// The planner's yardstick (405B on 16,384 H100s) as the standalone page's URL, asking for a
// search on load (plan=1), as a reader's shared link would.
export const PLANNER_URL =
  '?advanced=1&gpus=16384&model=llama3-405b&gpu=H100-80GB&seq_len=8192' +
  '&global_batch=2048&plan=1';

// Every main-thread task over 50 ms (PerformanceObserver 'longtask', watched from before the
// page's first script) from navigation to the table of the search PLANNER_URL asks for, in a
// fresh context (nothing cached), and when the lab was ready (its 'lab-ready' mark):
// { tasks: [[start ms, duration ms], ...], readyMs, rows, status }.
export async function longTasksUntilUrlSearch(env) {
  const lab = await openPage(env, PLANNER_URL, {
    ready: 'table.plans:not([hidden])',
    init: () => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
      }).observe({ type: 'longtask' });
    },
  });
  await settle(lab.page);
  const out = await lab.page.evaluate(() => ({
    tasks: window.__longTasks.map(([s, d]) => [Math.round(s), Math.round(d)]),
    readyMs: Math.round(performance.getEntriesByName('lab-ready')[0].startTime),
    rows: document.querySelectorAll('table.plans tbody tr.layout').length,
    status: document.querySelector('.plan-status').textContent,
  }));
  out.problems = lab.problems;
  await lab.close();
  return out;
}

// What reached the page's thread from navigation to the table of the search PLANNER_URL asks
// for, in a fresh context: the worker messages (countWorkerMessages), the calls into the core
// ('lab-core-call' marks, by name), the files the page's own thread fetched whose name holds
// 'lab-planner' (the planner's module belongs in the workers), the layouts the search walked,
// its rows and status: { messages, calls, plannerFiles, layouts, rows, status, problems }.
export async function urlSearchTraffic(env) {
  const lab = await openPage(env, PLANNER_URL, {
    ready: 'table.plans:not([hidden])',
    init: countWorkerMessages,
  });
  await settle(lab.page);
  const out = await lab.page.evaluate(() => {
    const calls = {};
    for (const m of performance.getEntriesByName('lab-core-call'))
      calls[m.detail] = (calls[m.detail] ?? 0) + 1;
    return {
      messages: window.__workerMessages,
      calls,
      plannerFiles: performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name).pathname)
        .filter((path) => path.includes('lab-planner')),
      layouts: Number(document.querySelector('.plan-progress').max),
      rows: document.querySelectorAll('table.plans tbody tr.layout').length,
      status: document.querySelector('.plan-status').textContent,
    };
  });
  out.problems = lab.problems;
  await lab.close();
  return out;
}

// Clicks "Find the best layout" and waits for the search's table (the status line counts the
// searches shown, data-run).
export async function runPlannerSearch(page) {
  const runs = () => page.locator('.plan-status').evaluate((el) => Number(el.dataset.run ?? 0));
  const before = await runs();
  await page.locator('button.run-planner').click();
  await page.waitForFunction(
    (k) => Number(document.querySelector('.plan-status')?.dataset.run ?? 0) > k,
    before,
    { timeout: 120_000 },
  );
}
