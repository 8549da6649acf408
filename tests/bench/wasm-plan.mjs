#!/usr/bin/env node
// The planner's module (lab-planner, the one the page's worker runs) under Node, to compare
// build variants (wasm/README.md, Build variables):
//   node tests/bench/wasm-plan.mjs [DIR with lab.js and lab-planner.wasm, default web/lab]
//     [RUNS] [core_bench JSON, default build/core-bench.json]
// Prints, for 405B on 16,384 H100 and DeepSeek-V3 on 2,048 H800, the whole lab.plan call
// (search, JSON, JSON.parse) and the search alone (first to last progress call: every layout
// but the last), fastest and median, the first run dropped (compilation, warm-up); with the
// native benchmark's JSON (scripts/bench writes it), the search's ratio to the native one.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { PLANNER_CASES } from './planner-cases.mjs';

const dir = resolve(process.argv[2] ?? 'web/lab');
const runs = Number(process.argv[3] ?? 21);
const benchJson = process.argv[4] ?? 'build/core-bench.json';
const { createLab } = await import(pathToFileURL(`${dir}/lab.js`).href);
// The module is built for the web and workers: Node hands it the bytes.
const lab = await createLab({
  planner: true,
  wasmBinary: await readFile(`${dir}/lab-planner.wasm`),
});

// The native search's time in ms per benchmark, { min, p50 } over its repetitions (one unless
// run with --benchmark_repetitions), from Google Benchmark's JSON; {} when there is none. On a
// shared machine the fastest of each side is the figure the load distorts least.
async function nativeMs() {
  let benchmarks;
  try {
    ({ benchmarks } = JSON.parse(await readFile(benchJson, 'utf8')));
  } catch {
    return {};
  }
  const scale = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };
  const times = {};
  for (const b of benchmarks) {
    if ((b.run_type ?? 'iteration') !== 'iteration') continue;
    (times[b.name.split('/')[0]] ??= []).push(b.real_time * scale[b.time_unit]);
  }
  return Object.fromEntries(
    Object.entries(times).map(([name, ms]) => {
      const s = ms.sort((a, b) => a - b);
      return [name, { min: s[0], p50: s[s.length >> 1] }];
    }),
  );
}
const native = await nativeMs();

// The native benchmark of each case (tests/bench/core_bench.cpp).
const benchmarkOf = {
  '405B on 16,384 H100': 'BM_Plan405BOn16384H100',
  'DeepSeek-V3 on 2,048 H800': 'BM_PlanDeepSeekV3On2048H800',
};
const sorted = (ms) => ms.slice(1).sort((a, b) => a - b);
const summary = (ms) => {
  const s = sorted(ms);
  return `min ${s[0].toFixed(2)} ms, p50 ${s[s.length >> 1].toFixed(2)} ms`;
};
for (const [name, scenario] of Object.entries(PLANNER_CASES)) {
  const whole = [];
  const search = [];
  let result;
  for (let i = 0; i < runs; i++) {
    let first = 0;
    let last = 0;
    const onProgress = () => {
      last = performance.now();
      if (!first) first = last;
    };
    const start = performance.now();
    result = lab.plan(scenario, 10, { onProgress });
    whole.push(performance.now() - start);
    search.push(last - first);
  }
  const base = native[benchmarkOf[name]];
  const s = sorted(search);
  const ratio = base
    ? `; wasm / native ${(s[0] / base.min).toFixed(2)}x (min / min), ` +
      `${(s[s.length >> 1] / base.p50).toFixed(2)}x (p50 / p50; native min ` +
      `${base.min.toFixed(2)} ms, p50 ${base.p50.toFixed(2)} ms)`
    : '';
  console.log(
    `${name} (${result.evaluated} configurations): call ${summary(whole)}; ` +
      `search ${summary(search)}${ratio}`,
  );
}
