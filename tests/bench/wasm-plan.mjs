#!/usr/bin/env node
// The planner in a wasm module under Node, to compare build variants (README, Performance):
//   node tests/bench/wasm-plan.mjs [DIR with lab.js and lab-module.wasm, default web/lab] [RUNS]
// Prints, for 405B on 16,384 H100 and DeepSeek-V3 on 2,048 H800, the whole lab.plan call
// (search, JSON, JSON.parse) and the search alone (first to last progress call: every layout
// but the last), fastest and median, the first run dropped (compilation, warm-up).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const dir = resolve(process.argv[2] ?? 'web/lab');
const runs = Number(process.argv[3] ?? 21);
const { createLab } = await import(pathToFileURL(`${dir}/lab.js`).href);
// The module is built for the web and workers: Node hands it the bytes.
const lab = await createLab({ wasmBinary: await readFile(`${dir}/lab-module.wasm`) });

const cases = {
  '405B on 16,384 H100': {
    gpus: 16384,
    model: 'llama3-405b',
    gpu: 'H100-80GB',
    network_gb_s: 50,
    seq_len: 8192,
    global_batch: 2048,
  },
  'DeepSeek-V3 on 2,048 H800': {
    gpus: 2048,
    model: 'deepseek-v3',
    gpu: 'H800-80GB',
    network_gb_s: 50,
    seq_len: 4096,
    global_batch: 15360,
  },
};
const summary = (ms) => {
  const sorted = ms.slice(1).sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(2)} ms, p50 ${sorted[sorted.length >> 1].toFixed(2)} ms`;
};
for (const [name, scenario] of Object.entries(cases)) {
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
  console.log(
    `${name} (${result.evaluated} configurations): call ${summary(whole)}; ` +
      `search ${summary(search)}`,
  );
}
