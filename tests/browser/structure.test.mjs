// The page's code keeps its shape: the core's field table is the only place a scenario
// field's range or default is written (the page reads it from lab.schema()); no top-level
// function under web/ or in the lab's JS API (wasm/lab.js) runs past 120 lines; comments
// point at nothing outside the repository and at no issue number. Which layer of web/js/
// imports which (a panel no other panel, only lib/) is tests/layers.test.mjs's.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import { openPage, startBrowser } from './harness.mjs';

const root = new URL('../../', import.meta.url);

// Every file under `dir` (a path from the repository's root) whose name matches `re`.
async function files(dir, re) {
  const out = [];
  for (const e of await readdir(new URL(dir, root), { withFileTypes: true })) {
    const path = `${dir}${e.name}`;
    if (e.isDirectory() && !['lab', 'node_modules', 'build', 'golden', 'corpus'].includes(e.name)) {
      out.push(...(await files(`${path}/`, re)));
    } else if (e.isFile() && re.test(e.name)) {
      out.push(path);
    }
  }
  return out;
}
const read = (path) => readFile(new URL(path, root), 'utf8');
const WEB = /\.(js|mjs|html)$/;

let schema;
before(async () => {
  const { createLab } = await import('../../web/lab/lab.js');
  const wasmBinary = await readFile(new URL('web/lab/lab-module.wasm', root));
  schema = (await createLab({ wasmBinary })).schema();
});

describe('one table: the page holds no range or default of its own', () => {
  test("the page's code holds none of the schema's ranges or defaults", async () => {
    // Numbers a page could only have copied from the core's table: ranges and defaults of
    // 100 and more, and fractions (small whole numbers, 8 or 16, are everywhere for other
    // reasons), written as code writes them (16384, 16,384, 1e7, 1 << 20), in code and in
    // the page's text, comments aside.
    const numbers = new Set();
    for (const f of schema.fields) {
      for (const v of [f.default, f.min, f.max]) {
        if (typeof v === 'number' && v !== 0 && (Math.abs(v) >= 100 || !Number.isInteger(v)))
          numbers.add(v);
      }
    }
    assert.ok(numbers.has(16384), 'the GPU limit is among them');
    const forms = (v) => {
      const out = [String(v), v.toLocaleString('en-US', { maximumFractionDigits: 6 })];
      out.push(
        v
          .toExponential()
          .replace('e+', 'e')
          .replace(/\.?0*e/, 'e'),
      );
      if (Number.isInteger(Math.log2(v))) out.push(`1 << ${Math.log2(v)}`, `2 ** ${Math.log2(v)}`);
      return [...new Set(out)];
    };
    // The same digits for other reasons: the drawing's height budget in SVG units, the size
    // CSS gives an SVG without one, a URL's path (the SVG namespace's /2000/) and an exported
    // PNG's width in pixels, and a Try it answer's tolerance (within a tenth of the core's
    // value; bubble_paid's least is 0.1 too). format.js converts units (1e-3 s is 1 ms) and knows
    // no field; so does runlog.js (a log's MiB and GiB, 2^20 and 2^30 bytes, into GB).
    const coincidences = new Set([
      'web/js/panels/timeline.js: 300',
      'web/js/lib/share.js: 300',
      'web/js/lib/share.js: 2000',
      'web/js/app/exercises.js: 0.1',
    ]);
    const found = [];
    for (const path of await files('web/', WEB)) {
      if (path === 'web/js/lib/format.js' || path === 'web/js/lib/runlog.js') continue;
      const code = (await read(path))
        .replace(/\/\*[\s\S]*?\*\/|<!--[\s\S]*?-->/g, '')
        .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
      for (const v of numbers) {
        for (const form of forms(v)) {
          const re = new RegExp(
            `(?<![\\w.,/])${form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.]|,\\d)`,
          );
          const m = re.exec(code);
          if (m && !coincidences.has(`${path}: ${form}`)) {
            found.push(
              `${path}: ${form} (${code.slice(Math.max(0, m.index - 30), m.index + 30).replace(/\s+/g, ' ')})`,
            );
          }
        }
      }
    }
    assert.deepEqual(found, []);
  });

  test("the page's effective types, defaults and ranges are the schema's", async () => {
    const env = await startBrowser();
    try {
      const lab = await openPage(env);
      const rows = await lab.page.evaluate(async () => {
        const { rows } = await import('/js/state/state.js');
        return rows().map(
          ({ name, scenario, own, core, scale, type, default: d, range, above, choices }) => ({
            name,
            scenario,
            own: Boolean(own),
            core: Boolean(core),
            scale: scale ?? 1,
            type,
            default: d,
            range,
            above,
            choices,
          }),
        );
      });
      await lab.close();
      const fields = new Map(schema.fields.map((f) => [f.key, f]));
      let checked = 0;
      for (const row of rows) {
        if (row.own) continue; // the page's own state: the Advanced switch, 'auto'
        const f = fields.get(row.scenario);
        assert.ok(f, `${row.name}: no scenario field ${row.scenario}`);
        const type = { preset: 'enum', order: 'enum' }[f.type] ?? f.type;
        assert.equal(row.type, type, row.name);
        // A row the core chooses for (default null) is not sent until set.
        // A list (a set field) is held as its choices joined by commas: "core_attn,mlp".
        const listed = f.type === 'set' ? f.default.join(',') : f.default;
        assert.equal(
          row.default,
          row.core ? null : typeof f.default === 'number' ? f.default / row.scale : listed,
          row.name,
        );
        if ('min' in f) {
          assert.deepEqual(row.range, [f.min / row.scale, f.max / row.scale], row.name);
          assert.equal(row.above, Boolean(f.min_exclusive), row.name);
        }
        if (f.type === 'order') {
          // Every order of the schema's seams, each once, the default (the chapter's) first.
          assert.equal(row.choices[0], f.default, row.name);
          const orders = (n) => (n <= 1 ? 1 : n * orders(n - 1));
          assert.equal(new Set(row.choices).size, orders(f.choices.length), row.name);
          for (const o of row.choices) assert.deepEqual(o.split(',').sort(), [...f.choices].sort());
        } else if (f.choices)
          assert.deepEqual(
            row.choices,
            f.type === 'preset' ? [...f.choices, 'custom'] : f.choices,
            row.name,
          );
        checked += 1;
      }
      assert.ok(checked >= 30, `${checked} rows checked`);
    } finally {
      await env.close();
    }
  });
});

describe('small parts', () => {
  test('no top-level function under web/ or in wasm/lab.js is over 120 lines', async () => {
    const long = [];
    for (const path of [...(await files('web/', /\.m?js$/)), 'wasm/lab.js']) {
      const lines = (await read(path)).split('\n');
      let start = -1;
      let name = '';
      let last = -1; // the function's last line of code so far
      const end = (i) => {
        if (i - start + 1 > 120) long.push(`${path}: ${name} is ${i - start + 1} lines`);
        start = -1;
      };
      lines.forEach((line, i) => {
        // A function ends at the closer in the first column, or where the next top-level
        // statement starts; a parameter list closing on a line of its own (`) {`, as prettier
        // writes a long signature) does not end it.
        if (start >= 0 && /^[^\s/]/.test(line) && !/^\) \{$/.test(line)) {
          if (/^[}\])]/.test(line)) return end(i);
          end(last);
        }
        if (start >= 0 && line.trim() && !/^\/\//.test(line)) last = i;
        const fn =
          /^(?:export )?(?:async )?function\*?\s*(\w*)|^(?:export )?(?:const|let) (\w+) = (?:async )?(?:function|\(|\w+ =>)/.exec(
            line,
          );
        if (start < 0 && fn && !/[;}]\s*$/.test(line)) {
          start = i;
          name = fn[1] ?? fn[2];
        }
      });
    }
    assert.deepEqual(long, []);
  });

  test('comments point at nothing outside the repository and at no issue number', async () => {
    const bad = [];
    const dirs = ['web/', 'wasm/', 'tests/', 'scripts/', 'core/'];
    const sources = /\.(js|mjs|html|css|cpp|h|sh)$|^[a-z-]+$/;
    for (const dir of dirs) {
      for (const path of await files(dir, sources)) {
        const text = await read(path);
        const comments =
          text.match(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|<!--[\s\S]*?-->|^\s*#[^\n]*/gm) ?? [];
        for (const c of comments) {
          if (/\b(toolchain|style|formulas)\.md\b|\/work\/|\bissues? #?\d+|\(#\d+\)/i.test(c))
            bad.push(`${path}: ${c.trim().slice(0, 100)}`);
        }
      }
    }
    assert.deepEqual(bad, []);
  });
});

// The page reads the core's facts and derives none (a copied rule drifts: the memory panel once
// said ZeRO shards over DP where the core shards over DP×CP). What arithmetic on report values
// is left in web/js/ is listed here, each with why it may stay: a drawing's lengths, a reader's
// answer judged against the report, a unit the reader answers in. Two report values compared
// (a domain wider than a node, the seam that sends the most) are facts the report carries, and
// none is listed. A new one fails this test
// until it is moved into the core's report or listed with its reason.
const REPORT_ARITHMETIC = [
  [
    'app/advanced.js',
    'state.plan_headroom *',
    "a state value in the core's unit: the schema's own scale",
  ],
  [
    'app/exercises.js',
    'r.memory.params_per_gpu / r.model_params',
    "Try it judges the reader's answer: the share one GPU holds, to find the nearest choice",
  ],
  [
    'app/exercises.js',
    'r.time.bubble_s / before.time.bubble_s',
    "Try it judges the reader's answer: the share of 1F1B's bubble left, the question's own measure",
  ],
  [
    'app/exercises.js',
    'r.memory.per_gpu_bytes / 1e9',
    'Try it: the report’s bytes in GB, the unit the reader answers in',
  ],
  [
    'app/exercises.js',
    'r.order.order_cost_s / r.order.rule_order_step_s',
    "Try it judges the reader's answer: the order's cost against the choices' bounds",
  ],
  [
    'panels/breakdown.js',
    '(100 * m.gpu_memory_bytes) / full',
    "a drawing: the GPU's capacity as a place on the bar",
  ],
  ['panels/breakdown.js', 'm.peak_stage * slot', "a drawing: the busiest stage's bar's place"],
  [
    'panels/desk.js',
    '(100 * m.per_gpu_bytes) / m.gpu_memory_bytes',
    "a drawing: the memory bar's length",
  ],
  ['panels/memory.js', '(100 * m.per_gpu_bytes) / scale', "a drawing: the memory bar's length"],
  [
    'panels/memory.js',
    '(100 * m.gpu_memory_bytes) / scale',
    "a drawing: the GPU's capacity as a place on the bar",
  ],
  [
    'panels/summary.js',
    'report.gpus - report.active_gpus',
    'words: the GPUs no seam uses, the difference of two counts the report gives',
  ],
  [
    'lib/format.js',
    'r === ranks[i - 1] + 1',
    'words: a list of GPU numbers read as one run ("GPUs 4–7")',
  ],
  ['lib/format.js', 'ranks[1] - ranks[0]', 'words: a list of GPU numbers read by its stride'],
  [
    'lib/format.js',
    'r - ranks[i - 1] === stride',
    'words: a list of GPU numbers read by its stride',
  ],
  [
    'panels/fleet.js',
    'ranks[RANK_INTS * r + 2] * hues',
    "a drawing: a rank's hue from its stage, as the tiles colour it",
  ],
  [
    'panels/fleet.js',
    'ranks[RANK_INTS * r + 1] * shades',
    "a drawing: a rank's shade from its tensor slice, as the tiles colour it",
  ],
  [
    'panels/time.js',
    '(100 * t[field]) / t.step_s',
    "a drawing: each part's length on the step's bar",
  ],
];

describe('the page derives nothing', () => {
  test('its arithmetic on report values is listed, with why each may stay', async () => {
    // A snake_case member (a report key, not a method) on either side of an arithmetic operator.
    const KEY = String.raw`\.[a-z]+_[a-z0-9_]+\b(?!\s*\()`;
    const OP = String.raw`\s*(?:[-+*/%](?![=+-])|\*\*)\s*`;
    // Or two report values compared: a fact the report should carry (the domain spans nodes).
    const CMP = String.raw`\s*[<>]=?\s*[\w.?[\]]*`;
    // Or the ranks' coordinates computed with (a group worked out from them, as expert groups
    // once were: the core numbers each rank's).
    const RANKS = String.raw`\branks\[[^\]]+\]${OP}|${OP}\branks\[`;
    const arithmetic = new RegExp(
      `${KEY}${OP}[\\w(.]|[\\w)]${OP}[\\w.?]*${KEY}|${KEY}${CMP}${KEY}|${RANKS}`,
    );
    const found = [];
    for (const path of await files('web/js/', /\.js$/)) {
      for (const line of (await read(path)).split('\n')) {
        const code = line.replace(/\/\/.*$/, '').replace(/'[^']*'/g, "''");
        if (arithmetic.test(code)) found.push(`${path.slice('web/js/'.length)}: ${line.trim()}`);
      }
    }
    const listed = (f) =>
      REPORT_ARITHMETIC.some(([file, text]) => f.startsWith(`${file}: `) && f.includes(text));
    assert.deepEqual(
      found.filter((f) => !listed(f)),
      [],
      'arithmetic on report values not listed',
    );
    const stale = REPORT_ARITHMETIC.filter(
      ([file, text]) => !found.some((f) => f.startsWith(`${file}: `) && f.includes(text)),
    );
    assert.deepEqual(stale, [], 'listed, but no longer in the page');
  });
});
