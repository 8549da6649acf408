// The lab's JS API (wasm/lab.js) around its two modules: errors carry the key at fault, and
// the calls that take plain numbers refuse what a 32-bit int would wrap or cut; the first-load
// module refuses plan() and referenceRuns(), saying which module has them. Needs the modules
// built first (scripts/build-wasm).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { LabError } from '../../web/lab/lab.js';
import { firstLoadLab, plannerLab } from './labs.mjs';

let lab; // lab-module, the page's first load
let planner; // lab-planner
before(async () => {
  [lab, planner] = await Promise.all([firstLoadLab(), plannerLab()]);
});

const refused = (key, message) => (e) => {
  assert.ok(e instanceof LabError, String(e));
  assert.equal(e.name, 'LabError');
  assert.equal(e.key, key);
  if (message) assert.match(e.message, message);
  return true;
};

describe('LabError carries the key of the field at fault', () => {
  test('a field out of range, a nested one, a wrong type', () => {
    assert.throws(
      () => lab.evaluate({ gpus: 0 }),
      refused('gpus', /^gpus is 0: allowed 1 to 16384$/),
    );
    assert.throws(
      () => lab.evaluate({ model: { preset: 'book-16b', layers: 0 } }),
      refused('model.layers'),
    );
    assert.throws(() => lab.evaluate({ seams: { data: 'yes' } }), refused('seams.data'));
    assert.throws(() => lab.evaluateSummary({ micro_batch: 4096 }), refused('micro_batch'));
  });

  test('the key is the same for every call that reads a scenario, on either module', () => {
    for (const call of [
      lab.evaluate,
      lab.evaluateSummary,
      lab.layouts,
      planner.evaluate,
      planner.plan,
      planner.layouts,
    ]) {
      assert.throws(() => call({ gpus_per_node: -1 }), refused('gpus_per_node'));
    }
  });
});

describe('the first-load module has no planner, no reference runs and no timeline', () => {
  test('plan(), referenceRuns() and timeline() throw a LabError naming the planner module', () => {
    const toPlanner = /is in the planner's module.*createLab\(\{ planner: true \}\)/;
    assert.throws(() => lab.plan({}, 3), refused(null, toPlanner));
    assert.throws(() => lab.referenceRuns(), refused(null, toPlanner));
    assert.throws(() => lab.timeline(4, 8), refused(null, toPlanner));
    assert.deepEqual(lab.evaluate({}).degrees, planner.evaluate({}).degrees, 'and keeps answering');
  });
});

describe('ranks() and timeline() refuse what a 32-bit int would wrap or cut', () => {
  const bad = [0, -1, 2.5, 2 ** 31, 2 ** 32 + 16, NaN, Infinity, '16', null, undefined, {}];

  test('ranks: each degree and gpus_per_node a whole number from 1', () => {
    for (const v of bad) {
      assert.throws(() => lab.ranks({ dp: v, tp: 1, pp: 1 }, 8), refused('degrees.dp'), String(v));
      assert.throws(
        () => lab.ranks({ dp: 1, tp: 1, pp: 1 }, v),
        refused('gpus_per_node'),
        String(v),
      );
    }
    assert.throws(() => lab.ranks(null, 8), refused('degrees.dp'));
  });

  test('ranks: more GPUs than a scenario may have is refused, not an empty list', () => {
    assert.throws(
      () => lab.ranks({ dp: 2 ** 16, tp: 2 ** 15, pp: 1 }, 8),
      refused('degrees', /allowed up to 16384 GPUs/),
    );
    assert.throws(() => lab.ranks({ dp: 16385, tp: 1, pp: 1 }, 8), refused('degrees'));
    assert.equal(lab.ranks({ dp: 16384, tp: 1, pp: 1 }, 8).length, 7 * 16384);
    // A product past 64 bits aborted the module before the core counted one degree at a time.
    assert.throws(
      () => lab.ranks({ dp: 1722007169, tp: 714156689, pp: 15 }, 8),
      refused('degrees', /allowed up to 16384 GPUs/),
    );
    assert.equal(lab.ranks({ dp: 2, tp: 1, pp: 1 }, 8).length, 14);
    assert.throws(
      () => lab.ranks({ dp: 2, tp: 1, pp: 1, cp: 2, ep: 3 }, 8),
      refused('degrees.ep', /must divide dp x cp = 4/),
    );
  });

  test('ranks: [dp, tp, pp, cp, ep, node, expert group] per rank, TP fastest unless the order says otherwise', () => {
    assert.deepEqual(
      [...lab.ranks({ dp: 2, tp: 2, pp: 1 }, 2)],
      [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1],
    );
    assert.deepEqual(
      [...lab.ranks({ dp: 2, tp: 2, pp: 1 }, 2, 'dp,pp,tp')],
      [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1],
    );
    // CP sits just outside TP; EP 2 runs over x = cp + CP dp (core/model/layout.h).
    assert.deepEqual(
      [...lab.ranks({ dp: 1, tp: 1, pp: 1, cp: 2, ep: 2 }, 8)],
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0],
    );
    // Two expert groups of EP 2 over DP 4: the group is x / ep, the core's, not the page's.
    assert.deepEqual(
      [...lab.ranks({ dp: 4, tp: 1, pp: 1, ep: 2 }, 8)],
      [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 1, 0, 1],
    );
    for (const order of ['tp,tp,dp', '', 'javascript:1', 42, {}]) {
      assert.throws(
        () => lab.ranks({ dp: 2, tp: 2, pp: 1 }, 2, order),
        refused('order'),
        String(order),
      );
    }
  });

  test('timeline: stages and micro-batches whole numbers from 1, up to what the core draws', () => {
    for (const v of bad) {
      assert.throws(() => planner.timeline(v, 4), refused('stages'), String(v));
      assert.throws(() => planner.timeline(4, v), refused('microbatches'), String(v));
    }
    assert.throws(
      () => planner.timeline(4096, 4),
      refused('stages', /^stages is 4096: allowed 1 to \d+$/),
    );
    const tl = planner.timeline(4, 8);
    assert.equal(tl.stages, 4);
    assert.equal(tl.blocks.length, 4 * 8 * 2);
    // A schedule that splits the backward: F, B and W per stage and micro-batch (pass 2 is W);
    // it draws at most 32 stages, and an unknown schedule is refused under its key.
    const zb = planner.timeline(4, 8, 'zb_h1');
    assert.equal(zb.blocks.length, 4 * 8 * 3);
    assert.equal(zb.blocks.filter((b) => b[2] === 2).length, 4 * 8);
    assert.equal(zb.span, 3 * 8 + 3);
    assert.throws(
      () => planner.timeline(64, 8, 'dualpipe'),
      refused('stages', /^stages is 64: allowed 1 to 32$/),
    );
    assert.throws(() => planner.timeline(4, 8, 'zb_h9'), refused('schedule', /allowed 1f1b, /));
    // What evaluate refuses of a schedule, by its rule (core/model/pipeline.h), under the
    // argument at fault: DualPipe on an odd number of stages, too few micro-batches.
    assert.throws(
      () => planner.timeline(3, 4, 'dualpipe'),
      refused('stages', /^schedule dualpipe needs an even number of pipeline stages: PP is 3 /),
    );
    assert.throws(
      () => planner.timeline(4, 6, 'dualpipe'),
      refused('microbatches', /needs an even number of at least 2 x PP = 8 micro-batches: 6 /),
    );
    assert.throws(
      () => planner.timeline(4, 3, 'zb_h1'),
      refused('microbatches', /at least PP = 4/),
    );
    assert.throws(() => planner.evaluate({ gpus: 3, degrees: { pp: 3 }, schedule: 'dualpipe' }), {
      name: 'LabError',
      message: /^schedule dualpipe needs an even number of pipeline stages: PP is 3 /,
    });
    // drawn: at most that many micro-batches laid out, at least what the schedule needs.
    assert.equal(planner.timeline(4, 100, '1f1b', { drawn: 10 }).shown_microbatches, 10);
    assert.equal(planner.timeline(4, 100, 'dualpipe', { drawn: 2 }).shown_microbatches, 8);
    assert.throws(() => planner.timeline(4, 8, '1f1b', { drawn: 0.5 }), refused('drawn'));
  });

  test('plan: top is a whole number from 1', () => {
    assert.throws(() => planner.plan({}, 2 ** 32 + 1), refused('top'));
    assert.throws(() => planner.plan({}, 0.5), refused('top'));
    assert.equal(planner.plan({}, 3).plans.length, 3);
  });

  test("plan: headroom is a number in the core's range, which the schema publishes", () => {
    const range = planner.schema().planner.headroom;
    assert.deepEqual([range.min, range.max, range.default], [0, 0.7, 0]);
    // At 0.8 nothing could fit the 80% rule: refused by name, not an empty answer.
    for (const v of [0.8, -0.1, NaN, Infinity]) {
      assert.throws(() => planner.plan({}, 3, { headroom: v }), refused('headroom'), String(v));
    }
    assert.throws(() => planner.plan({}, 3, { headroom: '0.1' }), refused('headroom'));
    assert.equal(planner.plan({}, 3, { headroom: 0.7 }).headroom, 0.7);
    assert.match(planner.schema().planner.fit_rule, /under 80% of GPU memory: Fujii et al/);
  });

  test("plan: rank is one of the schema's choices, and time_with_failures divides by goodput", () => {
    assert.deepEqual(planner.schema().planner.rank.choices, ['step', 'time_with_failures']);
    for (const v of ['fastest', 7, null]) {
      assert.throws(() => planner.plan({}, 3, { rank: v }), refused('rank'), String(v));
    }
    const r = planner.plan({}, 3, { rank: 'time_with_failures' });
    assert.equal(r.rank, 'time_with_failures');
    for (const p of r.plans) assert.ok(p.effective_time > 0 && p.effective_time < 1);
    assert.match(r.why_best, /with failures and checkpoints \d+(\.\d+)?% of its time is new work/);
  });
});

describe('plan(): onProgress may stop the search, and nothing it does harms the module', () => {
  test('onProgress returning false cancels the search with a LabError saying so', () => {
    let calls = 0;
    const onProgress = () => ++calls < 3;
    assert.throws(
      () => planner.plan({}, 3, { onProgress }),
      (e) => refused('onProgress', /cancelled/)(e) && e.cancelled === true,
    );
    assert.equal(calls, 3);
  });

  test('an exception in onProgress ends the search as a LabError, its cause the exception', () => {
    const thrown = new Error('boom');
    assert.throws(
      () =>
        planner.plan({}, 3, {
          onProgress: () => {
            throw thrown;
          },
        }),
      (e) => refused('onProgress', /onProgress threw.*boom/)(e) && e.cause === thrown,
    );
  });

  test('after 2,000 searches ended by a throwing onProgress, every call answers as before', () => {
    const before = {
      summary: planner.evaluateSummary({ gpus: 64 }),
      plan: planner.plan({}, 3),
      presets: planner.presets(),
    };
    // Before the fix, about 1,300 of these left "memory access out of bounds" behind.
    const onProgress = (done) => {
      if (done > 0) throw new Error('stop');
    };
    for (let i = 0; i < 2000; ++i) {
      assert.throws(() => planner.plan({ gpus: 64 }, 3, { onProgress }), refused('onProgress'));
    }
    assert.deepEqual(planner.evaluateSummary({ gpus: 64 }), before.summary);
    assert.deepEqual(planner.plan({}, 3), before.plan);
    assert.deepEqual(planner.presets(), before.presets);
  });
});

describe('explain(): the math behind one number, asked for when a reader opens it', () => {
  test('each key the first-load report lists gives its derivation in lab-planner; its result is the number shown', () => {
    const scenario = { seams: { data: true, tensor: true, pipeline: true } };
    const report = lab.evaluate(scenario);
    assert.equal(report.explain, undefined);
    assert.deepEqual(report.explained, planner.evaluate(scenario).explained);
    assert.ok(report.explained.includes('memory.per_gpu_bytes'));
    const d = planner.explain(report.scenario, 'memory.per_gpu_bytes');
    assert.equal(d.result, report.memory.per_gpu_bytes);
    assert.match(d.text, /^32 GB = /);
    assert.deepEqual(planner.explain(scenario).explain['memory.per_gpu_bytes'], d);
  });

  test('the first-load module builds no derivation: explain() there says where it is', () => {
    assert.throws(() => lab.explain({}, 'time.step_s'), /in the planner's module/);
  });

  test('a key the report does not explain, or no text, is a LabError naming key', () => {
    assert.throws(
      () => planner.explain({}, 'comms.tensor.time_s'),
      refused('key', /allowed memory/),
    );
    assert.throws(() => planner.explain({}, 42), refused('key'));
    assert.throws(() => planner.explain({ gpus: 0 }, 'time.step_s'), refused('gpus'));
  });
});
