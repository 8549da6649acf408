// "Advanced: size a real run" in real Chromium: closed it leaves the book's scenario alone;
// open, every panel shows what the core computes for the same scenario (the wasm modules in
// Node are the reference here: tests/wasm checks them against the native core).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as fmt from '../../web/js/lib/format.js';
import { firstLoadLab, plannerLab } from '../wasm/labs.mjs';
import { axe, mathText, openLab, screenshot, useLab } from './harness.mjs';
import { openFleet, setField, settle } from './measure.mjs';

let env;
let lab;
let core; // the page's first-load module
let plannerCore; // the planner's module: plan() and referenceRuns()
before(async () => {
  [core, plannerCore] = await Promise.all([firstLoadLab(), plannerLab()]);
});
useLab((opened) => ({ env, lab } = opened));

const badge = (page) => page.locator('.badge').textContent();
const open = async (page) => {
  if (!(await page.locator('details.advanced').evaluate((d) => d.open))) {
    await page.locator('details.advanced > summary').click();
  }
  await page.waitForSelector('.advanced-out .breakdown');
  await settle(page);
};
const value = (page, selector) => page.locator(selector).evaluate((el) => Number(el.dataset.value));

// The scenario the page sends with the advanced section open at its defaults.
const ADVANCED = {
  seams: { data: true, tensor: false, pipeline: false },
  memory_model: 'full',
  gpus: 16,
  gpus_per_node: 8,
};

describe('advanced section', () => {
  test('closed by default; opening switches to the full memory model, closing restores the book', async () => {
    const { page } = lab;
    assert.equal(await page.locator('details.advanced').evaluate((d) => d.open), false);
    assert.equal(await page.locator('.advanced-out').isHidden(), true);
    assert.equal(await value(page, '[data-field="per-gpu"]'), 256e9);

    await open(page);
    const full = core.evaluateSummary(ADVANCED);
    assert.equal(await value(page, '[data-field="per-gpu"]'), full.memory.per_gpu_bytes);
    assert.equal(await value(page, '.breakdown .big'), full.memory.per_gpu_bytes);
    assert.equal(
      await page.locator('.memory h2').textContent(),
      'Memory per GPU (busiest GPU, activations included)',
    );
    // Why 256 GB became more: the parts the practitioner's model adds, in the core's numbers.
    const note = page.locator('.memory [data-field="model-note"]');
    assert.equal(await note.isVisible(), true);
    const b = full.memory.breakdown;
    const said = await note.textContent();
    for (const part of [b.weights_bytes, b.activations_bytes, b.overhead_bytes]) {
      assert.ok(said.includes(`(${fmt.bytes(part)})`), said);
    }
    assert.ok(said.includes(`${fmt.bytes(full.memory.per_gpu_bytes)} on the busiest GPU`), said);
    assert.match(said, /activations .* and overhead for the CUDA context, NCCL and the allocator/);

    await page.locator('details.advanced > summary').click();
    await page.waitForFunction(
      () => document.querySelector('[data-field="per-gpu"]').dataset.value === '256000000000',
    );
    assert.equal(
      await page.locator('.memory h2').textContent(),
      'Memory per GPU (weights + optimizer)',
    );
    assert.equal(await note.isHidden(), true);
    assert.equal(await page.locator('.advanced-out').isHidden(), true);
  });

  test('the memory split, the step time and the wire match the core; ZeRO-3 lowers memory as it says', async () => {
    const { page } = lab;
    await open(page);
    const zero0 = core.evaluateSummary(ADVANCED);
    const zero3 = core.evaluateSummary({ ...ADVANCED, zero_stage: 3 });
    assert.ok(zero3.memory.per_gpu_bytes < zero0.memory.per_gpu_bytes);
    await setField(page, 'zero_stage', 3);
    await page.waitForFunction(
      (v) => document.querySelector('.breakdown .big').dataset.value === String(v),
      zero3.memory.per_gpu_bytes,
    );
    const parts = await page
      .locator('.breakdown dl.parts > div')
      .evaluateAll((divs) =>
        Object.fromEntries(
          divs.map((d) => [d.dataset.part, Number(d.querySelector('dd').dataset.value)]),
        ),
      );
    const b = zero3.memory.breakdown;
    assert.deepEqual(parts, {
      weights: b.weights_bytes,
      grads: b.grads_bytes,
      optimizer: b.optimizer_bytes,
      activations: b.activations_bytes,
      overhead: b.overhead_bytes,
      transient: b.transient_bytes,
      total: zero3.memory.per_gpu_bytes,
      gpu: zero3.memory.gpu_memory_bytes,
      headroom: zero3.memory.headroom_bytes,
    });
    // ZeRO-3 at DP = 16: every model state is sharded 16 ways.
    assert.equal(b.weights_bytes, zero0.memory.breakdown.weights_bytes / 16);
    assert.match(
      await page.locator('.breakdown .fit').textContent(),
      { fits: /✓ fits/, tight: /⚠ tight/, over: /✗/ }[zero3.memory.verdict],
    );

    const times = await page
      .locator('.steptime dl > div')
      .evaluateAll((divs) =>
        Object.fromEntries(
          divs.map((d) => [d.dataset.time, Number(d.querySelector('[data-value]').dataset.value)]),
        ),
      );
    const t = zero3.time;
    assert.equal(times.compute, t.compute_s);
    assert.equal(times.bubble, t.bubble_s);
    assert.equal(times.data, t.exposed_data_s);
    assert.equal(times.tensor, t.exposed_tensor_s);
    assert.equal(times.pipeline, t.exposed_pipeline_s);
    assert.equal(times.optimizer, t.optimizer_s);
    assert.equal(times.hfu, t.hfu);
    assert.equal(times.mfu, t.mfu);
    // MFU against the peak its GEMMs run at (BF16 here: the A100 has no FP8 peak, so no
    // second figure beside it).
    assert.equal(t.mfu_peak, 'bf16');
    assert.equal(t.mfu_fp8_peak, 0);
    assert.equal(
      await page.locator('.steptime [data-time="mfu"] dd').textContent(),
      `${fmt.percent(t.mfu)} of the BF16 peak`,
    );
    assert.equal(times.tflops, t.tflops_per_gpu);
    assert.equal(times.tokens, t.tokens_per_s);
    assert.equal(await value(page, '.steptime .big'), t.step_s);
    assert.equal(
      await value(page, '.wire [data-seam="data"] [data-field="time"]'),
      zero3.comms.data.time_s,
    );
    await setField(page, 'zero_stage', 0);
  });

  test('layouts offered are the valid factorizations; an explicit layout drives the badge and the seams', async () => {
    const { page } = lab;
    await open(page);
    const options = await page
      .locator('details.advanced [data-state="degrees"] option')
      .evaluateAll((os) => os.map((o) => o.value));
    assert.equal(options[0], 'auto');
    // 16 = 2^4 over three seams: C(6, 2) = 15 ordered factorizations, all with PP <= 50 layers.
    assert.equal(options.length, 1 + 15);
    for (const o of options.slice(1)) {
      const [dp, tp, pp] = o.split('x').map(Number);
      assert.equal(dp * tp * pp, 16, o);
    }
    await setField(page, 'degrees', '1x16x1');
    await page.waitForFunction(
      () => document.querySelector('.badge').textContent === 'DP×TP×PP = 1×16×1 = 16',
    );
    const report = core.evaluateSummary({ ...ADVANCED, degrees: { dp: 1, tp: 16, pp: 1 } });
    assert.deepEqual(await page.locator('.warnings li').allTextContents(), report.warnings);
    const facts = await page.locator('.warn-facts li').allTextContents();
    assert.deepEqual(facts, report.facts);
    assert.ok(
      facts.some((w) => /Tensor parallelism spans nodes/.test(w)),
      'TP across nodes is said',
    );
    assert.equal(
      await page
        .getByRole('switch', { name: 'Data parallel', exact: true })
        .getAttribute('aria-checked'),
      'false',
    );
    assert.equal(
      await page
        .getByRole('switch', { name: 'Tensor parallel', exact: true })
        .getAttribute('aria-checked'),
      'true',
    );
    // A seam switch goes back to auto-factoring.
    await page.getByRole('switch', { name: 'Data parallel', exact: true }).click();
    const auto = core.evaluateSummary({
      ...ADVANCED,
      seams: { data: true, tensor: true, pipeline: false },
    });
    await page.waitForFunction(
      (t) => document.querySelector('.badge').textContent === t,
      `DP×TP×PP = ${fmt.degrees(auto.degrees)} = 16`,
    );
    assert.equal(
      await page.locator('details.advanced [data-state="degrees"]').inputValue(),
      'auto',
    );
  });

  test('a zero-bubble schedule draws F, B and W apart, with the bubble from the core', async () => {
    const { page } = lab;
    await open(page);
    await setField(page, 'degrees', '4x1x4');
    await setField(page, 'global_batch', 16); // m = 4 = p: what ZB-H1 needs
    await setField(page, 'schedule', 'zb_h1');
    const report = core.evaluateSummary({
      ...ADVANCED,
      degrees: { dp: 4, tp: 1, pp: 4 },
      global_batch: 16,
      schedule: 'zb_h1',
    });
    // The drawing waits for the panel to come near the screen (timeline.js), as a reader's
    // scrolling brings it.
    await page.locator('.timeline').evaluate((el) => el.scrollIntoView());
    await page.waitForFunction(
      () => document.querySelector('.timeline .tl-wgt').dataset.blocks === '16',
    );
    const seen = await page.locator('.timeline').evaluate((el) => ({
      heading: el.querySelector('h3').textContent,
      fwd: el.querySelector('.tl-fwd').dataset.blocks,
      bwd: el.querySelector('.tl-bwd').dataset.blocks,
      key: el.querySelector('.timeline-key').textContent,
      bubble: el.querySelectorAll('dl dd')[2].textContent,
    }));
    assert.equal(seen.heading, 'Pipeline schedule (Zero bubble (ZB-H1))');
    assert.deepEqual([seen.fwd, seen.bwd], ['16', '16']);
    assert.match(seen.key, /weight gradient/);
    assert.equal(seen.bubble, fmt.percent(report.pipeline.bubble_fraction));

    // ZB-V: the core counts no bubble, and the drawing shows no idle slot. Llama 3 8B's 32
    // layers split into 2 chunks on each of 4 stages; m = 32 / 4 = 8 = 2p.
    await setField(page, 'model', 'llama3-8b');
    await setField(page, 'global_batch', 32);
    await setField(page, 'schedule', 'zb_v');
    await page.waitForFunction(
      () => document.querySelector('.timeline .tl-wgt').dataset.blocks === String(2 * 4 * 8),
    );
    const v = await page.locator('.timeline').evaluate((el) => ({
      bubble: el.querySelectorAll('dl dd')[2].textContent,
      // Each stage's row (where an idle slot would show) against its blocks' length.
      rows: [
        ...el
          .querySelector('.tl-idle')
          .getAttribute('d')
          .matchAll(/h([\d.]+)v/g),
      ].map((x) => Number(x[1])),
      note: el.querySelector('.timeline-key + p').textContent,
    }));
    assert.equal(v.bubble, '0%');
    const u = (640 - 34) / (6 * 8 + 4 - 1); // the span: 6m slots and p - 1 of stagger
    assert.equal(v.rows.length, 4);
    for (const w of v.rows) assert.ok(Math.abs(w - 6 * 8 * u) < 1e-6, `a row ${w} wide`);
    assert.match(v.note, /without an idle slot.*the bubble is 0\./);
    // m = 6, between p and 2p: drawn with the 2p its order needs, and said so.
    await setField(page, 'global_batch', 24);
    await page.waitForFunction(() =>
      /^Drawn with 8 micro-batches, .*the step runs 6\.$/.test(
        document.querySelector('.timeline-shown').textContent,
      ),
    );
    await setField(page, 'schedule', '1f1b');
    await setField(page, 'model', 'book-16b');
    await setField(page, 'global_batch', 16);
    await setField(page, 'degrees', 'auto');
  });

  test('the 1F1B timeline: p × m × 2 blocks for a small pipeline, and "showing k of m" for a long one', async () => {
    const { page } = lab;
    await open(page);
    await setField(page, 'degrees', '4x1x4');
    await setField(page, 'global_batch', 16); // m = 16 / (DP 4 × micro-batch 1) = 4
    const report = core.evaluateSummary({
      ...ADVANCED,
      degrees: { dp: 4, tp: 1, pp: 4 },
      global_batch: 16,
    });
    assert.equal(report.pipeline.microbatches, 4);
    await page.locator('.timeline').evaluate((el) => el.scrollIntoView());
    await page.waitForFunction(
      () => document.querySelector('.timeline .tl-fwd').dataset.blocks === '16',
    );
    const blocks = await page.locator('.timeline-chart').evaluate((svg) => ({
      fwd: Number(svg.querySelector('.tl-fwd').dataset.blocks),
      bwd: Number(svg.querySelector('.tl-bwd').dataset.blocks),
      subpaths:
        (svg.querySelector('.tl-fwd').getAttribute('d').match(/M/g) ?? []).length +
        (svg.querySelector('.tl-bwd').getAttribute('d').match(/M/g) ?? []).length,
      labels: svg.querySelectorAll('.tl-labels text').length,
    }));
    assert.deepEqual(blocks, { fwd: 4 * 4, bwd: 4 * 4, subpaths: 4 * 4 * 2, labels: 4 * 4 * 2 });
    const dd = await page.locator('.timeline dl dd').allTextContents();
    assert.deepEqual(dd, ['4', '4', fmt.percent(report.pipeline.bubble_fraction)]);
    // The idle share of the step: the bubble over the whole step, below 1.
    assert.equal(report.pipeline.bubble_fraction, report.time.bubble_s / report.time.step_s);
    assert.ok(report.pipeline.bubble_fraction > 0.3 && report.pipeline.bubble_fraction < 1);
    assert.match(await page.locator('.timeline-shown').textContent(), /All 4 micro-batches/);

    await setField(page, 'global_batch', 512); // m = 128: more than the drawing shows
    await page.waitForFunction(() =>
      /Showing/.test(document.querySelector('.timeline-shown').textContent),
    );
    const shown = Number(await page.locator('.timeline-shown').getAttribute('data-shown'));
    assert.ok(shown < 128);
    assert.equal(
      await page.locator('.timeline-shown').textContent(),
      `Showing ${shown} of 128 micro-batches (the schedule repeats; the bubble is at the start and the end).`,
    );
    // One stage: no schedule to draw, so no empty drawing area, only the note that says so;
    // a pipeline again draws again.
    await setField(page, 'degrees', '16x1x1');
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.timeline-chart')).display === 'none',
    );
    assert.equal(
      await page.locator('.timeline-key + p').textContent(),
      'One stage: no pipeline, so no bubble.',
    );
    assert.equal(await page.locator('.timeline-shown').textContent(), '');
    await setField(page, 'degrees', '4x1x4');
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.timeline-chart')).display !== 'none',
    );
    await setField(page, 'degrees', 'auto');
  });

  test('reference runs: each with the published figure beside the prediction, and loadable', async () => {
    const { page } = lab;
    await open(page);
    const runs = plannerCore.referenceRuns();
    await page.locator('table.runs tbody tr').first().waitFor(); // once the planner's module loads
    const rows = await page.locator('table.runs tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        name: tr.dataset.run,
        published: Number(tr.querySelector('[data-field="published"]').dataset.value),
        model: Number(tr.querySelector('[data-field="model"]').dataset.value),
        error: tr.querySelector('[data-field="error"]').dataset.value,
      })),
    );
    assert.deepEqual(
      rows,
      runs.map((r) => ({
        name: r.name,
        published: r.published,
        model: (r.section ? r.report[r.section] : r.report)[r.metric],
        error: String(r.error),
      })),
    );
    assert.ok(rows.filter((r) => r.published > 0).length >= 20, 'published figures shown');
    // Each table's summary: Korthikanti Table 5's mean error is within 5%.
    const totals = await page.locator('.run-summary li').allTextContents();
    const k5 = totals
      .map((t) => /^Korthikanti et al\. 2022, Table 5 \(8 runs\): mean error (\d+\.\d)%/.exec(t))
      .find(Boolean);
    assert.ok(k5 && Number(k5[1]) <= 5.0, totals.join('\n'));
    const megatron = runs.find((r) => /145\.6B/.test(r.name));
    await page.locator('table.runs tbody tr', { hasText: '145.6B' }).getByRole('button').click();
    const { dp, tp, pp } = megatron.report.degrees;
    await page.waitForFunction(
      (t) => document.querySelector('.badge').textContent === t,
      `DP×TP×PP = ${dp}×${tp}×${pp} = ${megatron.report.gpus}`,
    );
    assert.equal(
      await value(page, '.steptime dl [data-time="tflops"] dd'),
      megatron.report.time.tflops_per_gpu,
    );
    assert.equal(await value(page, '.breakdown .big'), megatron.report.memory.per_gpu_bytes);
    assert.equal(
      await page.locator('details.advanced [data-state="model"]').inputValue(),
      'megatron-145b',
    );
    // 1,536 GPUs: the fleet map (its module loads the first time a fleet needs it).
    await page.locator('svg.fleet').waitFor({ state: 'visible' });
  });

  test("a custom architecture: the parameter count is the core's", async () => {
    const { page } = lab;
    await page.locator('button[data-preset="book"]').click();
    await page.waitForFunction(() => document.querySelector('.badge').textContent.endsWith('= 16'));
    await setField(page, 'model', 'custom');
    await setField(page, 'layers', 32);
    await setField(page, 'hidden', 4096);
    await setField(page, 'heads', 32);
    await setField(page, 'vocab', 32000);
    const report = core.evaluateSummary({
      ...ADVANCED,
      model: { layers: 32, hidden: 4096, heads: 32, vocab: 32000 },
    });
    await page.waitForFunction(
      (v) => document.querySelector('details.advanced .field-output').dataset.value === String(v),
      report.model_params,
    );
    assert.match(
      await page.locator('details.advanced .field-output').textContent(),
      /Narayanan Eq\. 2/,
    );
    // A refused value is explained beside the field the core names, the panels keep the last
    // report the core accepted, and the page keeps working.
    const before = await value(page, '.breakdown .big');
    await setField(page, 'heads', 30);
    const heads = page.locator('details.advanced [data-row="heads"]');
    await heads.locator('.field-error:not([hidden])').waitFor();
    assert.match(
      await heads.locator('.field-error').textContent(),
      /heads is 30: it must divide model.hidden/,
    );
    assert.equal(await heads.locator('input').getAttribute('aria-invalid'), 'true');
    assert.match(
      await heads.locator('input').getAttribute('aria-describedby'),
      new RegExp(await heads.locator('.field-error').getAttribute('id')),
    );
    assert.equal(await page.locator('details.advanced .form-error').isHidden(), true);
    assert.equal(await value(page, '.breakdown .big'), before, 'the last good report stays');
    await setField(page, 'heads', 32);
    await page.waitForSelector('details.advanced [data-row="heads"] .field-error[hidden]', {
      state: 'attached',
    });
    assert.equal(await heads.locator('input').getAttribute('aria-invalid'), null);
    await setField(page, 'model', 'book-16b');
  });

  test('the planner: counts and time shown, the fastest rows, and a chosen row applied to every panel', async () => {
    const { page } = lab;
    await page.locator('button[data-preset="book"]').click();
    await page.waitForFunction(
      () => document.querySelector('.badge').textContent === 'DP×TP×PP = 16×1×1 = 16',
    );
    // The page's margin starts at 0: the core's 80% fit rule alone.
    const result = plannerCore.plan({ ...ADVANCED, model: 'book-16b' }, 50, { headroom: 0 });
    await page.locator('button.run-planner').click();
    await page.waitForSelector('table.plans:not([hidden])');
    const status = page.locator('.plan-status');
    assert.equal(Number(await status.getAttribute('data-evaluated')), result.evaluated);
    assert.equal(Number(await status.getAttribute('data-feasible')), result.feasible);
    assert.match(
      await status.textContent(),
      new RegExp(
        `Evaluated ${fmt.integer(result.evaluated)} configurations; ${fmt.integer(result.feasible)} ` +
          `fit under ${fmt.bytes(result.memory_limit_bytes)} per GPU with a 0% margin, ` +
          `${result.plans.length} layouts shown\\. ` +
          'The search took \\d+\\.\\d ms in a worker\\.',
      ),
    );
    assert.equal(await page.locator('.why-best').textContent(), result.why_best);
    const rows = await page
      .locator('table.plans tbody tr.layout')
      .evaluateAll((trs) => trs.map((tr) => [...tr.cells].slice(1, 11).map((c) => c.textContent)));
    assert.equal(rows.length, result.plans.length);
    result.plans.forEach((p, i) => {
      assert.equal(rows[i][0], fmt.degrees(p.degrees), `row ${i + 1}`);
      assert.equal(rows[i][1], String(p.zero_stage));
      // Recomputation in words, FP8 in a column of its own.
      assert.doesNotMatch(rows[i][2], /_|FP8/);
      assert.equal(rows[i][4], p.fp8 ? 'on' : 'off');
      // A plan past the 80% rule is marked tight in words (the core's verdict).
      assert.equal(
        rows[i][7],
        fmt.bytes(p.per_gpu_bytes) + (p.verdict === 'tight' ? ' tight' : ''),
      );
      assert.equal(rows[i][8], fmt.seconds(p.step_s));
    });

    const chosen = result.plans[1];
    await page
      .getByRole('button', { name: `Use layout 2: ${fmt.degrees(chosen.degrees)}` })
      .click();
    await page.waitForFunction(
      (t) => document.querySelector('.badge').textContent === t,
      `${fmt.degreesName(chosen.degrees)} = ${fmt.degrees(chosen.degrees)} = 16`,
    );
    await settle(page);
    assert.equal(await value(page, '.breakdown .big'), chosen.per_gpu_bytes);
    assert.equal(await value(page, '.steptime .big'), chosen.step_s);
    assert.equal(
      await page.locator('details.advanced [data-state="zero_stage"]').inputValue(),
      String(chosen.zero_stage),
    );
    assert.equal(
      await page.locator('details.advanced [data-state="recompute"]').inputValue(),
      chosen.recompute,
    );
    assert.equal(
      await page.locator('.plan-stale').isHidden(),
      true,
      'a chosen row keeps the inputs',
    );
    await setField(page, 'seq_len', 4096);
    assert.equal(await page.locator('.plan-stale').isVisible(), true, 'new inputs: search again');
    await setField(page, 'seq_len', 2048);
  });

  test("time to train on a token budget is the core's", async () => {
    const { page } = lab;
    await page.locator('button[data-preset="book"]').click();
    await page.waitForFunction(
      () => document.querySelector('.badge').textContent === 'DP×TP×PP = 16×1×1 = 16',
    );
    // 277 GB per GPU: a run that does not fit has no time to train (nor MFU); ZeRO-3 fits it.
    const train = page.locator('.steptime [data-time="train"] dd');
    assert.equal(await train.textContent(), '—');
    assert.equal(await train.getAttribute('title'), 'the run does not fit its GPUs');
    await setField(page, 'zero_stage', 3);
    assert.equal(await train.textContent(), 'set a token budget');
    await setField(page, 'train_tokens', 300); // billions
    const report = core.evaluateSummary({ ...ADVANCED, zero_stage: 3, train_tokens: 300e9 });
    await page.waitForFunction(
      (v) => document.querySelector('.steptime [data-time="train"] dd').dataset.value === String(v),
      report.time.time_to_train_s,
    );
    assert.equal(
      await page.locator('.steptime [data-time="train"] dd').textContent(),
      `${fmt.duration(report.time.time_to_train_s)} for 300 B tokens`,
    );
    await setField(page, 'train_tokens', 0);
    await setField(page, 'zero_stage', 0);
  });

  test("the network is the GPU preset's fleet, shown in its field, until a reader sets one", async () => {
    const { page } = lab;
    await open(page);
    const field = page.locator('details.advanced [data-state="network_gb_s"]');
    const shown = (v) =>
      page.waitForFunction(
        (want) =>
          document.querySelector('details.advanced [data-state="network_gb_s"]').value === want,
        v,
      );
    await shown('25'); // A100: DGX A100's HDR 200 Gb/s
    await setField(page, 'gpu', 'H100-80GB');
    await shown('50'); // DGX H100's 400 Gb/s per GPU
    await setField(page, 'network_gb_s', 12.5);
    await setField(page, 'gpu', 'B200-192GB');
    await shown('12.5'); // the reader's own value wins over the preset's
    assert.equal(
      await page.locator('details.advanced [data-state="gpu"]').inputValue(),
      'B200-192GB',
    );
    await field.fill('');
    await field.press('Tab');
    await settle(page);
    await shown('50');
    await setField(page, 'gpu', 'A100-80GB');
    await shown('25');
  });

  test("the book's fleet: an aggregate map of 10,240 GPUs, badge 80×8×16, no tile per GPU", async () => {
    const { page } = lab;
    await openFleet(page);
    assert.equal(await badge(page), 'DP×TP×PP = 80×8×16 = 10240');
    const map = await page.evaluate(() => {
      const svg = document.querySelector('svg.fleet');
      const cells = [...svg.querySelectorAll('.fleet-cells path')];
      return {
        visible: svg.getBoundingClientRect().height > 100,
        tiles: document.querySelectorAll('.gpu-grid rect.tile').length,
        elements: svg.querySelectorAll('*').length,
        squares: cells.reduce((n, p) => n + (p.getAttribute('d').match(/M/g) ?? []).length, 0),
        replicas: (svg.querySelector('.fleet-replicas').getAttribute('d').match(/M/g) ?? []).length,
      };
    });
    assert.equal(map.visible, true);
    assert.equal(map.tiles, 0);
    assert.equal(map.squares, 10240);
    assert.equal(map.replicas, 80, 'one outline per replica: a row of 16 nodes each');
    assert.ok(map.elements < 400, `${map.elements} SVG elements`);
    const report = core.evaluateSummary({
      ...ADVANCED,
      gpus: 10240,
      degrees: { dp: 80, tp: 8, pp: 16 },
      global_batch: 2560,
    });
    // The book's 50 layers do not divide over 16 stages: a fact of the layout, not a warning
    // (3 + 12 × 3 + 2 × 4 + 3 = 50).
    assert.deepEqual(report.warnings, []);
    assert.equal(report.pipeline.stage_layers.rule, 'balanced');
    assert.match(
      await page.locator('.breakdown .stage-split').textContent(),
      /^Layers per stage: first 3, middle stages 3, 4 from stage 13 on, last 3 \(Megatron-LM would refuse/,
    );
    assert.equal(await value(page, '.breakdown .big'), report.memory.per_gpu_bytes);
    assert.equal(await page.locator('.timeline dl dd').nth(1).textContent(), '32');

    // Hover and keys pick a GPU by arithmetic; the readout names its groups.
    await page.locator('svg.fleet').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const readout = await page.locator('.readout').textContent();
    assert.match(
      readout,
      /GPU 129 \(node 16\) is data-parallel replica 1, pipeline stage 0, tensor slice 1/,
    );
    assert.match(readout, /tensor-parallel group \(solid\): GPUs 128–135/);
    assert.match(
      readout,
      /data-parallel group \(dotted\): 80 GPUs: 1, 129, 257, …, 10113, 128 apart/,
    );

    await screenshot(page, 'fleet-10240', { fullPage: true });
  });

  // One page for both schemes: the system's scheme switched in place (emulateMedia), as a
  // reader's would, where a page for each cost a load, a fleet and a search more. The colours
  // are CSS light-dark() pairs, so a switch repaints them all. It ends light, as the pool's page
  // came.
  test('no axe violations with the section open, at 16 and 10,240 GPUs, light and dark', async () => {
    const view = await openLab(env, { colorScheme: 'light' });
    const check = async (colorScheme, gpus) => {
      await view.page.emulateMedia({ colorScheme });
      await settle(view.page);
      assert.deepEqual(await axe(view.page), [], `${colorScheme}, ${gpus} GPUs`);
      await screenshot(view.page, `advanced-${gpus.replace(',', '')}-${colorScheme}`, {
        fullPage: true,
      });
    };
    await open(view.page);
    await check('light', '16');
    await check('dark', '16');
    await openFleet(view.page);
    await view.page.locator('button.run-planner').click();
    await view.page.waitForSelector('table.plans:not([hidden])');
    await check('dark', '10,240');
    await check('light', '10,240');
    assert.deepEqual(view.problems, []);
    await view.close();
  });

  test('each part of the step time has its own colour, light and dark', async () => {
    const view = await openLab(env, { colorScheme: 'light' });
    await open(view.page);
    for (const colorScheme of ['light', 'dark']) {
      await view.page.emulateMedia({ colorScheme });
      await settle(view.page);
      const paints = await view.page.locator('.swatch[class*="time-"]').evaluateAll((els) =>
        els.map((el) => {
          const s = getComputedStyle(el);
          return [el.className, `${s.backgroundColor} ${s.backgroundImage}`];
        }),
      );
      assert.equal(paints.length, 8, colorScheme);
      const seen = new Map();
      for (const [name, paint] of paints) {
        assert.ok(!seen.has(paint), `${colorScheme}: ${name} painted as ${seen.get(paint)}`);
        seen.set(paint, name);
      }
    }
    await view.page.emulateMedia({ colorScheme: 'light' }); // the pool's page as it came
    await view.close();
  });

  test('a tight estimate (past 80%, within the GPU) says "tight" in words and colour, not "does not fit"', async () => {
    const { page } = lab;
    await open(page);
    await page.locator('button[data-preset="book"]').click();
    await open(page);
    await setField(page, 'zero_stage', 3);
    const zero3 = core.evaluateSummary({ ...ADVANCED, zero_stage: 3 });
    // The GPU's memory set so that the estimate is 90% of it: tight.
    const gb = Math.ceil(zero3.memory.per_gpu_bytes / 0.9 / 1e9);
    const tight = core.evaluateSummary({ ...ADVANCED, zero_stage: 3, gpu_memory_gb: gb });
    assert.equal(tight.memory.verdict, 'tight');
    assert.equal(tight.memory.fits, true);
    await setField(page, 'gpu', 'custom'); // the GPU's fields show for a custom GPU
    await setField(page, 'gpu_memory_gb', gb);
    await page.waitForFunction(() =>
      document.querySelector('.advanced-out .breakdown')?.classList.contains('tight'),
    );
    for (const selector of ['.memory .fit', '.breakdown .fit']) {
      const text = await page.locator(selector).textContent();
      assert.match(text, /⚠ tight/, selector);
      assert.doesNotMatch(text, /does not fit|exceeds/, selector);
    }
    assert.equal(
      await page.locator('.memory').evaluate((el) => el.classList.contains('over')),
      false,
    );
    // In colour: the warning colour, neither the fit's nor the overflow's.
    const colours = await page.evaluate(() => {
      const probe = (v) => {
        const el = document.createElement('span');
        el.style.color = `var(${v})`;
        document.querySelector('.pe-lab').append(el);
        const c = getComputedStyle(el).color;
        el.remove();
        return c;
      };
      return {
        fit: getComputedStyle(document.querySelector('.breakdown .fit')).color,
        warn: probe('--warn'),
        bad: probe('--bad'),
        ok: probe('--ok'),
      };
    });
    assert.equal(colours.fit, colours.warn);
    assert.notEqual(colours.fit, colours.bad);
    assert.notEqual(colours.fit, colours.ok);
    // Past the GPU: over, in words.
    await setField(page, 'gpu_memory_gb', Math.floor(zero3.memory.per_gpu_bytes / 1.1 / 1e9));
    await page.waitForFunction(() =>
      document.querySelector('.advanced-out .breakdown')?.classList.contains('over'),
    );
    assert.match(await page.locator('.breakdown .fit').textContent(), /✗ exceeds/);
    await page.locator('button[data-preset="book"]').click(); // the book's state back
  });

  test('no error along the way', () => assert.deepEqual(lab.problems, []));

  test('the step time and MFU show their math from the core', async () => {
    // ZeRO-3: a run that fits (one that does not shows no MFU).
    const view = await openLab(env, { path: '?advanced=1&zero_stage=3' });
    const { page } = view;
    await open(page);
    const report = plannerCore.explain({ ...ADVANCED, zero_stage: 3 });
    for (const key of ['time.step_s', 'time.mfu']) {
      await page.locator(`.steptime [data-explain="${key}"]`).focus();
      assert.equal(await page.locator('.explain-tip').isVisible(), true, key);
      assert.equal(await mathText(page), report.explain[key].text);
    }
    assert.deepEqual(view.problems, []);
    await view.close();
  });
});
