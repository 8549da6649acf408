#!/usr/bin/env node
// The core's figures beside their targets, from Google Benchmark's JSON:
//   node tests/bench/core-figures.mjs build/core-bench.json
// Figures only, no pass/fail: timed assertions belong to no test (a busy machine is not a
// regression); "met" / "MISSED" says where today's run stands.
import { readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';

// The planner's yardstick: every configuration of Llama 3 405B on 16,384 H100s.
const TARGETS = { BM_Plan405BOn16384H100: { configsPerS: 10e6 } };

const json = JSON.parse(await readFile(process.argv[2] ?? 'build/core-bench.json', 'utf8'));
const scale = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };
const rows = [['benchmark', 'time (real / CPU)', 'configurations/s', 'target', '']];
for (const b of json.benchmarks) {
  if ((b.run_type ?? 'iteration') !== 'iteration') continue;
  const ms = (v) => `${(v * scale[b.time_unit]).toFixed(3)} ms`;
  const target = TARGETS[b.name];
  const rate = b.configs_per_s;
  rows.push([
    b.name,
    `${ms(b.real_time)} / ${ms(b.cpu_time)}`,
    rate ? `${(rate / 1e6).toFixed(2)}M` : '',
    target ? `≥ ${(target.configsPerS / 1e6).toFixed(0)}M` : '',
    target && rate ? (rate >= target.configsPerS ? 'met' : 'MISSED') : '',
  ]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
console.log(
  `core figures (${availableParallelism()} cores, load ${loadavg()[0].toFixed(1)}; ` +
    'configurations/s over CPU time):',
);
for (const r of rows)
  console.log(
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
