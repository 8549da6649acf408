// The wasm modules against the native core: for every golden scenario the report computed in
// WebAssembly must equal the golden report written by the native CLI (scripts/update-golden),
// in both modules (lab-module, the page's first load, and lab-planner, built for speed from the
// same sources). The planner's plans equal the native CLI's (`explore --plan`), and every plan
// and reference run the planner's module computes is what the first-load module reports for
// its scenario. Needs the modules built first (scripts/build-wasm).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';

import { LabError } from '../../web/lab/lab.js';
import { PLANNER_CASES } from '../bench/planner-cases.mjs';
import { firstLoadLab, plannerLab } from './labs.mjs';

const golden = new URL('../golden/', import.meta.url);
const scenarios = (await readdir(golden)).filter((f) => f.endsWith('.scenario.json')).sort();
const readJson = async (name) => JSON.parse(await readFile(new URL(name, golden), 'utf8'));
const cli = fileURLToPath(new URL('../../build/native/core/explore', import.meta.url));

let lab; // lab-module
let planner; // lab-planner
before(async () => {
  [lab, planner] = await Promise.all([firstLoadLab(), plannerLab()]);
});

describe('wasm report equals the native golden report, in both modules', () => {
  test('there are golden scenarios', () => assert.ok(scenarios.length >= 8, scenarios.join()));
  for (const file of scenarios) {
    const name = file.replace('.scenario.json', '');
    test(name, async () => {
      const scenario = await readJson(file);
      const expected = await readJson(`${name}.report.json`);
      assert.deepStrictEqual(lab.evaluate(scenario), expected, 'lab-module');
      assert.deepStrictEqual(planner.evaluate(scenario), expected, 'lab-planner');
    });
  }
});

// Exact ties: Llama 3 405B at 65,536 tokens on 128 H100s takes the same step and memory, to
// the bit, at DP 16 x TP 4 x CP 2 and DP 8 x TP 4 x CP 4, down the list; on 128 B200s the
// fastest three tie, DP 128, DP 64 x CP 2 and DP 32 x CP 4 (650.75 s, the same memory), so the
// planner's total order (core/README.md "The planner") picks the winner, the next layout
// why_best compares it with and the CP layout `dropped` names: the fewest GPUs per model replica
// first. Native and wasm must agree on all three.
const TIES = { gpus: 128, model: 'llama3-405b', gpu: 'H100-80GB', seq_len: 65536 };
const TIED_BEST = { gpus: 128, model: 'llama3-405b', gpu: 'B200-192GB', seq_len: 65536 };

// The planner's yardsticks (tests/bench/core_bench.cpp) and the book's default.
const PLANS = {
  "the book's default": {},
  ...PLANNER_CASES,
  'exact ties (405B, 65,536 tokens, 128 H100)': TIES,
  'the fastest plans tie exactly (405B, 65,536 tokens, 128 B200)': TIED_BEST,
};

// A grouped GEMM between two of its measured row counts (moe.h) is interpolated on a log
// scale: with the libm's log10, glibc and Emscripten's musl differed in the last bit here
// (Mixtral 8x7B's 366.08 rows a GEMM: a step of 3.1379111854122477 s natively, ...247 in wasm),
// so a tie in one build could be a lead in the other.
const GROUPED_GEMM = {
  gpus: 8,
  model: 'mixtral-8x7b',
  gpu: 'H100-80GB',
  seq_len: 1024,
  capacity_factor: 1.43,
  global_batch: 64,
  degrees: { dp: 8, tp: 1, pp: 1, cp: 1, ep: 1 },
  seams: { data: true, expert: true },
};

describe('wasm report equals the native CLI report, to the bit', () => {
  test(
    'a grouped GEMM interpolated between its measured sizes',
    { skip: !existsSync(cli) && 'no native CLI (scripts/build-native)' },
    () => {
      const native = JSON.parse(
        execFileSync(cli, ['-'], { input: JSON.stringify(GROUPED_GEMM) }).toString(),
      );
      assert.ok(native.time.tokens_per_expert > 256 && native.time.tokens_per_expert < 512);
      assert.deepStrictEqual(lab.evaluate(GROUPED_GEMM), native, 'lab-module');
      assert.deepStrictEqual(planner.evaluate(GROUPED_GEMM), native, 'lab-planner');
    },
  );
});

describe("the planner's module", () => {
  for (const [name, scenario] of Object.entries(PLANS)) {
    test(
      `${name}: the plans equal the native CLI's`,
      {
        skip:
          !existsSync(cli) &&
          'no native CLI (scripts/build-native builds build/native/core/explore)',
      },
      () => {
        const native = JSON.parse(
          execFileSync(cli, ['--plan', '-'], { input: JSON.stringify(scenario) }).toString(),
        );
        // The same plans in the same order, ties too: one total order (planner.cpp `better`).
        assert.deepStrictEqual(planner.plan(scenario, 10), native);
      },
    );

    test(`${name}: each plan is what the first-load module reports for its scenario`, () => {
      const { plans } = planner.plan(scenario, 10);
      assert.ok(plans.length > 0);
      for (const p of plans) {
        const report = lab.evaluateSummary(p.scenario);
        assert.deepEqual(report.degrees, p.degrees);
        assert.equal(report.time.step_s, p.step_s);
        assert.equal(report.memory.per_gpu_bytes, p.per_gpu_bytes);
      }
    });
  }

  test('exact ties break by the stated order: fewest GPUs per model replica, then the name', () => {
    const { plans } = planner.plan(TIES, 10);
    // Every run of plans tied to the bit (step and memory), wherever it is in the ten.
    const replica = (d) => d.tp * d.pp * d.cp;
    let ties = 0;
    for (let i = 1; i < plans.length; i++) {
      const [a, b] = [plans[i - 1], plans[i]];
      if (a.step_s !== b.step_s || a.per_gpu_bytes !== b.per_gpu_bytes) continue;
      ties++;
      assert.ok(replica(a.degrees) < replica(b.degrees), `plans ${i - 1} and ${i}`);
    }
    assert.ok(ties >= 1, 'no plans tie to the bit: this test needs a tie');
  });

  test('a tie for the fastest: the winner, why_best and dropped follow the order', () => {
    const { plans, why_best, dropped } = planner.plan(TIED_BEST, 10);
    const [a, b, c] = plans;
    for (const p of [b, c]) {
      assert.equal(p.step_s, a.step_s);
      assert.equal(p.per_gpu_bytes, a.per_gpu_bytes);
    }
    assert.deepEqual(
      plans.slice(0, 3).map((p) => [p.degrees.dp, p.degrees.cp]),
      [
        [128, 1],
        [64, 2],
        [32, 4],
      ],
    );
    assert.match(why_best, /^DP 128 x TP 1 x PP 1 wins: .*the next layout is 0% slower/);
    // CP's fastest plans tie too (CP 2 and CP 4, the second and third): the order names CP 2.
    const cp = dropped.find((d) => d.what.startsWith('CP'));
    assert.deepEqual(cp, {
      what: 'CP 2',
      why: 'its fastest plan, DP 64 x TP 1 x PP 1 x CP 2, takes 651 s a step, 0% slower',
    });
  });

  test('each reference run is what the first-load module reports for its scenario', () => {
    const runs = planner.referenceRuns();
    assert.ok(runs.length >= 20, `${runs.length} runs`);
    for (const run of runs) {
      assert.deepStrictEqual(run.report, lab.evaluateSummary(run.report.scenario), run.name);
    }
  });
});

describe('bad scenarios', () => {
  test('come back as LabError with the core message, and the module keeps working', () => {
    assert.throws(
      () => lab.evaluate({ gpus: 0 }),
      (e) => {
        assert.ok(e instanceof LabError);
        assert.equal(e.name, 'LabError');
        assert.equal(e.message, 'gpus is 0: allowed 1 to 16384');
        return true;
      },
    );
    assert.throws(() => lab.evaluate({ seams: { data: 'yes' } }), {
      name: 'LabError',
      message: 'seams.data is "yes": allowed true or false',
    });
    assert.throws(
      () => lab.evaluate({ gpus: 16, bogus: 1 }),
      (e) => {
        assert.ok(e instanceof LabError);
        assert.match(e.message, /^unknown key "bogus": allowed gpus, /);
        return true;
      },
    );
    assert.throws(() => lab.evaluate([]), LabError);
    assert.deepEqual(lab.evaluate({}).degrees, { dp: 16, tp: 1, pp: 1, cp: 1, ep: 1 });
  });

  test('many errors in a row leave the module healthy', () => {
    for (let i = 0; i < 200; i++) assert.throws(() => lab.evaluate({ gpus: -i }), LabError);
    const report = lab.evaluate({ seams: { data: true, tensor: true, pipeline: true } });
    assert.deepEqual(report.degrees, { dp: 2, tp: 4, pp: 2, cp: 1, ep: 1 });
    assert.equal(report.memory.per_gpu_bytes, 32e9);
  });

  test("the planner's module refuses a bad plan with the key at fault, and keeps planning", () => {
    assert.throws(() => planner.plan({ gpus: 0 }, 10), { name: 'LabError', key: 'gpus' });
    assert.equal(planner.plan({}, 3).plans.length, 3);
  });
});
