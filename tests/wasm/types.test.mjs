// wasm/lab.d.ts, the lab API's hand-written types, held to the API (web/lab/, as
// scripts/build-wasm builds it): the methods createLab() returns on each module are the ones
// declared, and what the calls return type-checks against the declared types with tsc, no key
// missing and none unknown (an object literal's excess keys are errors), for scenarios that
// reach every part of the report. tests/types/example.ts is the embedder's side.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { before, test } from 'node:test';

import { firstLoadLab, plannerLab } from './labs.mjs';

const root = new URL('../../', import.meta.url);
const TSC = fileURLToPath(new URL('node_modules/.bin/tsc', root));

let lab;
let planner;
before(async () => {
  [lab, planner] = await Promise.all([firstLoadLab(), plannerLab()]);
});

// The method names of an interface declared in a .d.ts (one member a line, as prettier
// writes them).
async function declaredMethods(path, name) {
  const text = await readFile(new URL(path, root), 'utf8');
  const body = text.match(new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm'));
  assert.ok(body, `${path} declares interface ${name}`);
  return [...new Set([...body[1].matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]))].sort();
}

test('lab.d.ts declares every method createLab() returns, and no other', async () => {
  const declared = await declaredMethods('wasm/lab.d.ts', 'Lab');
  assert.ok(declared.length >= 10, declared.join());
  for (const module of [lab, planner]) assert.deepEqual(Object.keys(module).sort(), declared);
});

// A scenario of every field's default, nested by its dotted key (a preset's fields as its
// object, so each field of the table is a key the Scenario type must have), and one scenario
// per choice of every field that has choices.
function scenariosOf(schema) {
  const put = (into, key, value) => {
    const parts = key.split('.');
    let at = into;
    for (const p of parts.slice(0, -1)) at = at[p] = typeof at[p] === 'object' ? at[p] : {};
    at[parts.at(-1)] = value;
    return into;
  };
  const fields = schema.fields.filter((f) => !['object', 'scenario'].includes(f.type));
  const nested = new Set(
    fields.map((f) => f.key.split('.')[0]).filter((k, i, a) => a.indexOf(k) !== i),
  );
  const all = {};
  for (const f of fields) if (!nested.has(f.key)) put(all, f.key, f.default);
  const each = [all];
  for (const f of fields) {
    if (!f.choices || f.type === 'order') continue;
    for (const c of f.choices) each.push(put({}, f.key, f.type === 'set' ? [c] : c));
  }
  return each;
}

test("what the calls return type-checks against lab.d.ts's types", async () => {
  const seams = { data: true, tensor: true, pipeline: true };
  const scenarios = [
    {},
    { seams, memory_model: 'full', train_tokens: 1e12 },
    { gpus: 64, model: 'deepseek-v3', gpu: 'H100-80GB', seams: { ...seams, expert: true } },
    { calibration: { name: 'ours', scenario: {}, step_time_s: 30, peak_memory_gb: 50 } },
    { virtual_stages: 2 }, // a warning
  ];
  const schema = lab.schema();
  // Each TypeScript type (of lab.d.ts, imported as T), with values the calls returned.
  const values = {
    'T.Report': scenarios.map((s) => planner.evaluate(s)),
    'T.SummaryReport': scenarios.map((s) => lab.evaluateSummary(s)),
    'T.ExplainedReport': [planner.explain(scenarios[1])],
    'T.Derivation': planner.evaluate({}).explained.map((key) => planner.explain({}, key)),
    'T.PlanResult': [
      planner.plan({ gpus: 64 }, 3),
      planner.plan({ gpus: 32 }, 2, { headroom: 0.2 }),
    ],
    'T.Timeline': ['1f1b', 'zb_v', 'dualpipe'].map((s) => planner.timeline(4, 8, s)),
    'T.Layout': planner.layouts({ seams: { ...seams, context: true } }),
    'T.Presets': [lab.presets()],
    'T.Schema': [schema],
    'T.ReferenceRun': planner.referenceRuns(),
    'T.Scenario': scenariosOf(schema),
  };
  const lines = [
    `import type * as T from ${JSON.stringify(fileURLToPath(new URL('web/lab/lab.js', root)))};`,
    ...Object.entries(values).map(
      ([type, list], i) => `export const v${i}: ${type}[] = ${JSON.stringify(list)};`,
    ),
  ];
  const dir = new URL('build/types/', root);
  await mkdir(dir, { recursive: true });
  const file = fileURLToPath(new URL('values.ts', dir));
  await writeFile(file, `${lines.join('\n')}\n`);
  const tsc = spawnSync(
    TSC,
    [
      ...['--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext'],
      ...['--moduleResolution', 'bundler', '--lib', 'es2022,dom', '--types', ''],
      file,
    ],
    { encoding: 'utf8' },
  );
  assert.ifError(tsc.error); // no tsc: scripts/setup installs it (npm ci)
  // tsc names the value's line and column; each type's values are on a line of their own.
  const errors = (tsc.stdout + tsc.stderr).split('\n').filter(Boolean).slice(0, 10);
  assert.equal(tsc.status, 0, errors.join('\n'));
});
