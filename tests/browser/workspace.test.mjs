// The planning desk as a workspace (view=desk): inputs and results side by side at 1440×900
// with the planner and Compare a tab away; reached by its own link and from the book's view,
// its heading saying which model applies; "Pin" on a planner row into Compare; ties marked
// with the core's rule; a run that does not fit shows no MFU and no cost; the headroom
// margin changing the planner's answer at 40%; "Calibrate to your run" from a pasted
// Megatron-LM line to the heading, the URL and the exported report, and a line refused;
// goodput in the summary and one day of the run drawn to scale, following the form's restart.
// axe on its tabs. Screenshots: build/screenshots/desk-1440.png, desk-390.png and
// desk-goodput.png.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import * as fmt from '../../web/js/lib/format.js';
import { firstLoadLab, plannerLab } from '../wasm/labs.mjs';
import { axe, mathText, openLab, screenshot, settledUrl, startBrowser } from './harness.mjs';
import { runPlannerSearch, settle } from './measure.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env?.close());

const WIDE = { width: 1440, height: 900 };
// Llama 2 70B on 64 A100s: the fastest plan is tight (77 GB of 80), so a margin (40%: a plan
// under 48 GB) hands the lead to another layout.
const LLAMA70 = '?view=desk&gpus=64&model=llama2-70b&gpu=A100-80GB&seq_len=4096&global_batch=256';
// Llama 3 8B on one H100 node, TP 2 with SP × DP 4, ZeRO-1: a run a reader could measure.
const NODE =
  '?view=desk&gpus=8&model=llama3-8b&gpu=H100-80GB&seq_len=8192&global_batch=64' +
  '&degrees=4x2x1&sequence_parallel=true&zero_stage=1';

// The same run as NODE, as the core reads it.
const NODE_SCENARIO = {
  gpus: 8,
  model: 'llama3-8b',
  gpu: 'H100-80GB',
  seq_len: 8192,
  global_batch: 64,
  degrees: { dp: 4, tp: 2, pp: 1 },
  sequence_parallel: true,
  zero_stage: 1,
  memory_model: 'full',
};

const box = (page, selector) => page.locator(selector).first().boundingBox();
const search = runPlannerSearch;
// The same run as LLAMA70, as the core reads it (the rest at the defaults).
const LLAMA70_SCENARIO = {
  gpus: 64,
  model: 'llama2-70b',
  gpu: 'A100-80GB',
  seq_len: 4096,
  global_batch: 256,
  memory_model: 'full',
};

// Goodput beside the step and the cost, its math on a click; the day drawn to scale and named
// in words; a longer restart in the form lowers it; a token budget shows the time to train.
async function goodputOnTheDesk(page) {
  const core = await firstLoadLab();
  const before = core.evaluateSummary(NODE_SCENARIO).goodput;
  const strip = (field) => page.locator(`.desk-summary [data-field="${field}"]`);
  const value = async (field) => Number(await strip(field).getAttribute('data-value'));
  assert.equal(await value('goodput'), before.effective_time);
  assert.equal(await strip('goodput').textContent(), fmt.share(before.effective_time));
  assert.equal(await strip('train').isVisible(), false, 'no token budget: no time to train');
  await strip('goodput').click();
  assert.match(await mathText(page), /^\d+(\.\d+)?% = \(1 − [\d,]+ s ÷ [\d,]+ s\) × /);
  await page.keyboard.press('Escape');

  // One day of the run: four parts end to end, each its share of the day, filling the bar.
  const day = page.locator('.desk [data-pane="results"] [data-part="goodput"]');
  assert.ok(await day.isVisible(), "the day's picture is on the results tab");
  const drawn = await day.locator('svg.goodput-day').evaluate((svg) => ({
    width: svg.getBoundingClientRect().width,
    label: svg.getAttribute('aria-label'),
    role: svg.getAttribute('role'),
    parts: [...svg.querySelectorAll('rect[data-day]')].map((r) => ({
      key: r.dataset.day,
      x: parseFloat(r.getAttribute('x')), // percent of the bar
      w: parseFloat(r.getAttribute('width')),
      px: r.getBoundingClientRect().width,
    })),
  }));
  assert.deepEqual(
    drawn.parts.map((p) => p.key),
    ['work_s', 'checkpoint_s', 'redone_s', 'restart_s'],
  );
  let end = 0;
  let px = 0;
  for (const p of drawn.parts) {
    assert.ok(Math.abs(p.x - end) < 1e-9, `${p.key} starts where the last part ends`);
    assert.ok(Math.abs(p.w / 100 - before.day[p.key] / 86400) < 1e-12, p.key);
    end = p.x + p.w;
    px += p.px;
  }
  assert.ok(Math.abs(end - 100) < 1e-9, `the parts fill ${end}% of the bar`);
  assert.ok(drawn.width > 500 && Math.abs(px - drawn.width) < 0.5, `${px} px of ${drawn.width}`);
  assert.equal(drawn.role, 'img');
  assert.match(
    drawn.label,
    /^One day of the run, to scale: new work 24 hours, checkpoint pauses 5\.55 seconds, work done again after failures 5\.55 seconds, restarts and reloads 2\.27 seconds\. 0\.00379 failures a day, one every 264 days\. A checkpoint every 48\.8 minutes, the best interval\.$/,
  );
  const text = await day.textContent();
  assert.match(text, /a failure every 264 days/);
  assert.match(text, /A checkpoint every 48\.8 minutes, the best interval/);
  assert.doesNotMatch(text, /NaN|undefined|Infinity|_s\b|0\.99/);

  // A restart of an hour and a half, typed in the form: less new work; then a token budget.
  await page.locator('[data-state="restart_s"]').fill('5400');
  await page.locator('[data-state="restart_s"]').press('Tab');
  await settle(page);
  const slower = core.evaluateSummary({ ...NODE_SCENARIO, reliability: { restart_s: 5400 } });
  assert.ok(slower.goodput.effective_time < before.effective_time);
  assert.equal(await value('goodput'), slower.goodput.effective_time);
  assert.match(await settledUrl(page), /[?&]restart_s=5400(&|$)/);
  // GPUs that fail as often as one every 50 hours: about four failures a day on 8 GPUs.
  await page.locator('[data-state="gpu_failures_per_million_gpu_hours"]').fill('20000');
  await page.locator('[data-state="gpu_failures_per_million_gpu_hours"]').press('Tab');
  await settle(page);
  const failing = { restart_s: 5400, gpu_failures_per_million_gpu_hours: 20000 };
  const worse = core.evaluateSummary({ ...NODE_SCENARIO, reliability: failing }).goodput;
  assert.ok(worse.effective_time < 0.8, `${worse.effective_time}`);
  assert.equal(await value('goodput'), worse.effective_time);
  assert.equal(
    await day.locator('.big').textContent(),
    `${fmt.share(worse.effective_time)} new work`,
  );
  await screenshot(day, 'desk-goodput');
  assert.deepEqual(await axe(page, '.desk [data-part="goodput"]'), []);
  await page.locator('[data-state="train_tokens"]').fill('100');
  await page.locator('[data-state="train_tokens"]').press('Tab');
  await settle(page);
  const budget = core.evaluateSummary({
    ...NODE_SCENARIO,
    reliability: failing,
    train_tokens: 100e9,
  }).goodput;
  assert.equal(await value('train'), budget.time_to_train_s);
  assert.equal(
    await strip('train').textContent(),
    `${fmt.duration(budget.time_to_train_s)}, ${fmt.usd(budget.usd_to_train)}`,
  );
}

describe('the desk', () => {
  test('1440×900: inputs beside results, the tabs and the planner in the first screen', async () => {
    const lab = await openLab(env, { path: LLAMA70, viewport: WIDE });
    const { page, problems } = lab;
    try {
      const inputs = await box(page, '.desk-inputs');
      const results = await box(page, '.desk-results');
      assert.ok(inputs.x + inputs.width <= results.x, 'inputs left of the results');
      assert.ok(Math.abs(inputs.y - results.y) < 5, 'side by side, tops aligned');
      assert.ok(results.width > 800, `results ${results.width} px wide`);
      // The results: memory per stage, the step time's parts and the wire, on their tab.
      for (const part of ['.breakdown .stages-chart', '.steptime', '.wire-panel']) {
        assert.ok(await page.locator(`.desk [data-pane="results"] ${part}`).isVisible(), part);
      }
      const tabs = await box(page, '.desk-tabs');
      assert.ok(tabs.y + tabs.height < WIDE.height / 2, `tabs at ${tabs.y} px`);
      // The form's first field and the seams are in view in the inputs column.
      assert.ok((await box(page, '.desk-inputs [data-state="gpus"]')).y < WIDE.height);
      await screenshot(page, 'desk-1440');
      assert.deepEqual(await axe(page), [], 'axe, the results tab');
      // The planner and Compare: one click away, in the first screen without scrolling.
      await page.getByRole('tab', { name: 'Planner and Compare' }).click();
      assert.equal(await page.evaluate(() => scrollY), 0);
      for (const part of ['.desk .compare', '.desk .planner button.run-planner']) {
        const b = await box(page, part);
        assert.ok(b && b.y < WIDE.height, `${part} at ${b?.y} px`);
      }
      // The fit rule beside the planner, with its source and the core's fraction.
      assert.match(
        await page.locator('.plan-rule').textContent(),
        /under 80% of GPU memory: Fujii et al\. 2024 \(arXiv:2411\.06465\)/,
      );
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), WIDE.width);
      await page.getByRole('tab', { name: 'Calibrate to your run' }).click();
      assert.deepEqual(await axe(page), [], 'axe, the planner, Compare and the calibration');
      assert.deepEqual(problems, []);
    } finally {
      await lab.close();
    }
  });

  test("the desk's numbers show their math, by click and by keyboard", async () => {
    const lab = await openLab(env, { path: NODE, viewport: WIDE });
    const { page, problems } = lab;
    try {
      const step = page.locator('.desk [data-explain="time.step_s"]').first();
      await step.click();
      assert.match(await mathText(page), / s = /);
      const tip = await box(page, '.explain-tip');
      assert.ok(tip.y >= 0 && tip.y + tip.height <= WIDE.height, `the tip at ${tip.y} px`);
      await page.keyboard.press('Escape');
      await page.locator('.explain-tip').waitFor({ state: 'hidden' });
      const memory = page.locator('.desk [data-explain="memory.per_gpu_bytes"]').first();
      await memory.focus();
      await page.keyboard.press('Enter');
      assert.match(await mathText(page), / GB = .* params/);
      await page.keyboard.press('Escape');
      await goodputOnTheDesk(page);
      assert.deepEqual(problems, []);
    } finally {
      await lab.close();
    }
  });

  test('?view=desk, the link from the book, the heading, and back to the book', async () => {
    const lab = await openLab(env, { viewport: WIDE });
    const { page } = lab;
    try {
      const title = page.locator('.pe-lab h2').first();
      assert.doesNotMatch(await title.textContent(), /activations/);
      await page.getByRole('button', { name: 'Open the planning desk' }).click();
      await page.waitForSelector('.pe-lab.pe-desk .desk:not([hidden])');
      await settle(page);
      assert.match(await settledUrl(page), /[?&]view=desk(&|$)/);
      // The fuller model's 276 GB is not the book's 256 GB: the heading says why.
      assert.match(
        await title.textContent(),
        /^Planning desk: the book's 16B model on 16 × A100-80GB, 16×1×1 \(with activations and overhead\)$/,
      );
      // Names in words: a preset model by its name, the reader's own GPU as such.
      await page.goto(
        new URL('?view=desk&model=llama3-70b&gpu=custom&gpu_peak_tflops=5000', env.url).href,
      );
      await page.waitForSelector('html[data-ready="1"]');
      assert.match(await title.textContent(), /^Planning desk: Llama 3 70B on 16 × custom GPU, /);
      // A log line past that GPU's peak names it in words too, never "undefined".
      await page.getByRole('tab', { name: 'Calibrate to your run' }).click();
      await page
        .getByLabel('Paste a log line')
        .fill(
          'iteration 100/500 | elapsed time per iteration (ms): 1234.5 | ' +
            'throughput per GPU (TFLOP/s/GPU): 9000.1 |',
        );
      await page.getByRole('button', { name: 'Read the line' }).click();
      assert.match(
        await page.locator('.log-note').textContent(),
        /above the custom GPU's peak, 5000 TFLOP\/s/,
      );
      await page.goto(new URL('?view=desk', env.url).href);
      await page.waitForSelector('html[data-ready="1"]');
      await page.getByRole('button', { name: "← The book's view" }).click();
      await page.waitForFunction(() => !document.querySelector('.pe-lab.pe-desk'));
      assert.doesNotMatch(await settledUrl(page), /view=desk/);
      assert.match(await title.textContent(), /^Toggle the three seams/);
      assert.ok(await page.locator('.columns .grid-panel').isVisible(), "the book's grid is back");
    } finally {
      await lab.close();
    }
  });
});

describe('planner and Compare', () => {
  test('Pin on a row, ties with the rule, no MFU or cost where nothing fits', async () => {
    const lab = await openLab(env, { path: LLAMA70, viewport: WIDE });
    const { page, problems } = lab;
    try {
      await page.getByRole('tab', { name: 'Planner and Compare' }).click();
      await search(page);
      // The core's own answer for the same inputs: its tie tolerance, its plans.
      const core = (await plannerLab()).plan(LLAMA70_SCENARIO, 50, { headroom: 0 });
      assert.equal(core.tie_within, 0.05);
      const ties = core.plans.filter((p) => p.tie).length;
      assert.equal(core.plans[0].tie, true);
      assert.ok(core.plans.every((p) => p.tie === p.step_s / core.plans[0].step_s - 1 < 0.05));
      assert.ok(ties >= 2 && ties < core.plans.length, `${ties} ties of ${core.plans.length}`);
      assert.equal(await page.locator('table.plans tr.layout.tie').count(), ties);
      assert.match(
        await page.locator('.plan-ties').textContent(),
        /within 5% of the fastest step, the model cannot tell them apart/,
      );
      assert.match(await page.locator('.why-best').textContent(), /within 5%|faster than/);
      // The current state (DP only, 64 replicas of 70B) does not fit: no MFU, no cost.
      const summary = page.locator('.desk-summary');
      assert.equal(await summary.locator('[data-field="mfu"]').textContent(), '—');
      assert.equal(await summary.locator('[data-field="cost"]').textContent(), '—');
      // Pin the second layout: Compare shows it beside the current state, in view.
      const second = page.locator('table.plans tbody tr.layout').nth(1);
      await second.getByRole('button', { name: /^Pin layout 2/ }).click();
      await page.waitForSelector('.compare-table');
      await settle(page);
      const table = page.locator('.compare-table');
      const b = await table.boundingBox();
      assert.ok(b.y < WIDE.height && b.y + 40 > 0, `Compare at ${b.y} px`);
      const heads = await table.locator('thead th').allTextContents();
      const plan = core.plans[1];
      const layout = fmt.degrees(plan.degrees);
      assert.ok(heads[1].startsWith(`${layout}pin 1ZeRO ${plan.zero_stage}`), heads[1]);
      // Every setting that differs has a row: the ZeRO stage at least (the plan's ZeRO-1
      // against the current ZeRO-0).
      const settings = await table
        .locator('tr.setting')
        .evaluateAll((trs) => trs.map((tr) => tr.dataset.row));
      assert.ok(settings.includes('zero_stage'), settings.join(', '));
      const cells = async (row) =>
        table
          .locator(`tr[data-row="${row}"] td`)
          .evaluateAll((tds) =>
            tds.map((td) => ({ text: td.textContent, value: td.dataset.value })),
          );
      const mfu = await cells('MFU');
      assert.equal(Number(mfu[0].value), plan.mfu, "the pinned plan's MFU is its report's");
      assert.equal(mfu[1].text, 'does not fit');
      assert.equal(mfu[1].value, undefined);
      const perTokens = await cells('Cost per trillion tokens');
      assert.ok(Math.abs(Number(perTokens[0].value) / plan.usd_per_trillion_tokens - 1) < 1e-9);
      assert.equal(perTokens[1].text, 'does not fit');
      assert.match(await settledUrl(page), /[?&]pins=/);
      assert.deepEqual(problems, []);
    } finally {
      await lab.close();
    }
  });

  test('a plan with FP8 GEMMs differs from the current state in one precision row', async () => {
    const lab = await openLab(env, { path: NODE, viewport: WIDE });
    const { page, problems } = lab;
    try {
      await page.getByRole('tab', { name: 'Planner and Compare' }).click();
      await search(page);
      // The first row that turns FP8 on (the current state's mixed_bf16 has it off).
      const rows = page.locator('table.plans tbody tr.layout');
      const core = (await plannerLab()).plan(NODE_SCENARIO, 50, { headroom: 0 });
      const i = core.plans.findIndex((p) => p.fp8);
      assert.ok(i >= 0, 'a plan with FP8 GEMMs');
      // The reason in words: the best layout splits the sequence, its K/V on "NVLink".
      assert.equal(core.plans[0].degrees.cp, 2);
      assert.match(await page.locator('.why-best').textContent(), /its K\/V ride NVLink\)/);
      // Its row says FP8 in a column of its own, not in the recomputation's ("none, FP8").
      const head = await page.locator('table.plans thead th').allTextContents();
      const cells = await rows.nth(i).evaluate((tr) => [...tr.cells].map((c) => c.textContent));
      assert.equal(cells[head.findIndex((h) => h.startsWith('FP8'))], 'on');
      assert.doesNotMatch(cells[head.findIndex((h) => h.startsWith('Recompute'))], /FP8|_/);
      await rows
        .nth(i)
        .getByRole('button', { name: new RegExp(`^Pin layout ${i + 1}\\b`) })
        .click();
      await page.waitForSelector('.compare-table');
      const settings = await page
        .locator('.compare-table tr.setting')
        .evaluateAll((trs) => trs.map((tr) => tr.dataset.row));
      // The precision is one row: the same bytes, the matmuls in FP8 against BF16.
      assert.deepEqual(
        settings.filter((key) => key.startsWith('precision')),
        ['precision'],
        settings.join(', '),
      );
      const precisionCells = () =>
        page
          .locator('.compare-table tr[data-row="precision"] td')
          .evaluateAll((tds) => tds.map((td) => td.textContent));
      assert.deepEqual(await precisionCells(), [
        '16 B/param (2 weight, 2 gradient, 4 master, 4 + 4 Adam), FP8 matmuls',
        '16 B/param (2 weight, 2 gradient, 4 master, 4 + 4 Adam)',
      ]);
      // Pinned full (three plans): the table fits its column at 1440 px, the current state's
      // column whole on the screen, not cut off behind a scroll.
      for (const k of [0, 1, 2].filter((k) => k !== i).slice(0, 2)) {
        await rows
          .nth(k)
          .getByRole('button', { name: new RegExp(`^Pin layout ${k + 1}\\b`) })
          .click();
      }
      await page.waitForFunction(
        () => document.querySelectorAll('.compare-table th[data-pin]').length === 4,
      );
      const wrap = page.locator('.compare .table-wrap');
      const [scrolled, room] = await wrap.evaluate((w) => [w.scrollWidth, w.clientWidth]);
      assert.ok(scrolled <= room, `the table is ${scrolled} px wide in ${room}`);
      const current = await box(page, '.compare-table th[data-pin="current"]');
      assert.ok(
        current.x + current.width <= WIDE.width,
        `the current column ends at ${current.x + current.width}`,
      );
      // Another precision preset for the current state: still one row, not one per byte.
      await page.locator('[data-state="precision"]').first().selectOption('fp32');
      await page.waitForFunction(() =>
        /16 B\/param \(4 weight/.test(
          document.querySelector('.compare-table tr[data-row="precision"] td.current')?.textContent,
        ),
      );
      assert.deepEqual(
        await page
          .locator('.compare-table tr.setting')
          .evaluateAll((trs) =>
            trs.map((tr) => tr.dataset.row).filter((k) => /^precision/.test(k)),
          ),
        ['precision'],
      );
      assert.deepEqual(problems, []);
    } finally {
      await lab.close();
    }
  });

  test('a 40% headroom margin keeps every plan under 60% of the GPU', async () => {
    const lab = await openLab(env, { path: LLAMA70, viewport: WIDE });
    const { page } = lab;
    try {
      await page.getByRole('tab', { name: 'Planner and Compare' }).click();
      await page.locator('input[name="plan_headroom"]').fill('40');
      await page.locator('input[name="plan_headroom"]').press('Enter');
      await search(page);
      const memory = await page
        .locator('table.plans tbody tr.layout')
        .evaluateAll((trs) =>
          trs.map((tr) => parseFloat(tr.querySelectorAll('td')[7].textContent)),
        );
      assert.ok(memory.length > 0 && memory.every((gb) => gb <= 48), memory.join(', '));
      assert.match(await page.locator('.plan-status').textContent(), /under 48 GB per GPU/);
      assert.match(await page.locator('.plan-rule').textContent(), /keeps 40% of GPU memory free/);
    } finally {
      await lab.close();
    }
  });
});

describe('calibrate to your run', () => {
  const megatron = (ms, tflops) =>
    ` [2026-11-28 10:00:00] iteration      100/   1000 | consumed samples:  6400 | ` +
    `elapsed time per iteration (ms): ${ms} | throughput per GPU (TFLOP/s/GPU): ${tflops} | ` +
    'lm loss: 2.345678E+00 |';

  test('a pasted Megatron-LM line: the fit, the heading, the planner before and after, the URL and the export', async () => {
    const lab = await openLab(env, { path: NODE, viewport: WIDE });
    const { page, problems } = lab;
    try {
      const value = async (field) =>
        Number(
          await page.locator(`.desk-summary [data-field="${field}"]`).getAttribute('data-value'),
        );
      const step = await value('step');
      // 20% slower, the same FLOPs: the model's TFLOP/s (MFU x H100's BF16 peak, 989) / 1.2.
      const tflops = ((await value('mfu')) * 989) / 1.2;
      await page.getByRole('tab', { name: 'Calibrate to your run' }).click();
      await page.getByRole('button', { name: "Use the lab's current layout as my run" }).click();
      // A run 20% slower than the model says.
      const ms = (step * 1200).toFixed(1);
      await page.getByLabel('Paste a log line').fill(megatron(ms, tflops.toFixed(1)));
      await page.getByRole('button', { name: 'Read the line' }).click();
      assert.match(await page.locator('.log-note').textContent(), /^Read from Megatron-LM/);
      const typed = page.locator('input[name="calibration.step_time_s"]');
      assert.equal(Number(await typed.inputValue()), Number((ms / 1000).toPrecision(6)));
      // Each figure says where it came from: the line and its text, or typed by hand.
      const source = (key) => page.locator(`.calibrate [data-key="${key}"] .figure-source`);
      assert.equal(
        await source('step_time_s').textContent(),
        `From the pasted Megatron-LM line: “elapsed time per iteration (ms): ${ms}”.`,
      );
      await page.locator('input[name="calibration.peak_memory_gb"]').fill('60');
      assert.equal(await source('peak_memory_gb').textContent(), 'Typed by hand.');
      await page.locator('input[name="calibration.peak_memory_gb"]').fill('');
      await page.getByRole('button', { name: 'Calibrate', exact: true }).click();
      await page.waitForSelector('.calibration-out table[data-table="constants"]');
      const title = page.locator('.pe-lab h2').first();
      assert.match(await title.textContent(), /calibrated to your run: 8 × H100-80GB\)$/);
      const constants = await page
        .locator('table[data-table="constants"] tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
      assert.equal(constants[0][0], 'Matmul efficiency');
      assert.equal(constants[0][1], '0.57');
      assert.ok(Number(constants[0][2]) < 0.57, constants[0][2]);
      const residual = await page
        .locator('table[data-table="residuals"] tbody tr')
        .first()
        .evaluate((tr) => [...tr.children].map((c) => c.textContent));
      assert.equal(residual[0], 'Step time');
      assert.equal(residual[4], '+0.0%');
      // The planner before and after: the same fastest layout, slower after.
      await page.waitForSelector('table[data-table="after"]', { timeout: 120_000 });
      const stepOf = (which) =>
        page.locator(`table[data-table="${which}"] tbody tr`).first().locator('td').nth(1);
      assert.notEqual(await stepOf('before').textContent(), await stepOf('after').textContent());
      // In the URL, strictly read back: the same calibration and heading on a fresh load.
      const url = await settledUrl(page);
      assert.match(url, /[?&]calibration=%7B/);
      const text = await title.textContent();
      const again = await openLab(env, { path: url.slice(url.indexOf('?')), viewport: WIDE });
      try {
        assert.equal(await again.page.locator('.pe-lab h2').first().textContent(), text);
        assert.deepEqual(again.problems, []);
      } finally {
        await again.close();
      }
      // In the exported report: the block in the scenario, the fit beside it.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Report (JSON)' }).click(),
      ]);
      const report = JSON.parse(await readFile(await download.path(), 'utf8'));
      assert.equal(report.calibration.says, 'calibrated to your run: 8 × H100-80GB');
      assert.ok(Math.abs(report.scenario.calibration.step_time_s - ms / 1000) < 1e-6);
      assert.deepEqual(problems, []);
    } finally {
      await lab.close();
    }
  });

  test('a line not understood, a bad URL value, a step no efficiency reaches', async () => {
    const lab = await openLab(env, {
      path: `${NODE}&calibration=%7B%22steps%22%3A1%7D`,
      viewport: WIDE,
    });
    const { page } = lab;
    try {
      // The URL's value is refused by name, and the lab starts uncalibrated.
      assert.match(
        await page.locator('.pe-notes-list').textContent(),
        /calibration: .* is not allowed \(empty, or one JSON object of the measured run with the keys name, scenario, step_time_s/,
      );
      await page.getByRole('tab', { name: 'Calibrate to your run' }).click();
      await page.getByLabel('Paste a log line').fill('loss: 2.1 | lr: 3e-4 | grad norm: 1.0');
      await page.getByRole('button', { name: 'Read the line' }).click();
      const note = await page.locator('.log-note').textContent();
      assert.match(note, /^Not understood: no time per step in it\. Expected a Megatron-LM line/);
      assert.match(note, /torchtitan line with "tps: 1,234"/);
      // A step faster than the GPU's peak allows: the core's refusal beside the step field.
      await page.getByRole('button', { name: "Use the lab's current layout as my run" }).click();
      await page.locator('input[name="calibration.step_time_s"]').fill('0.001');
      await page.getByRole('button', { name: 'Calibrate', exact: true }).click();
      const error = page.locator('.calibrate [data-key="step_time_s"] .field-error');
      await error.waitFor();
      assert.match(
        await error.textContent(),
        /calibration\.step_time_s .* no efficiency reaches it/,
      );
      assert.equal(await page.locator('.lab-error').isVisible(), false);
      assert.doesNotMatch(await settledUrl(page), /calibration=/, 'the refused block is not kept');
      // A step and a TFLOP/s that imply different FLOP counts: the contradiction is named.
      await page.locator('input[name="calibration.step_time_s"]').fill('10');
      await page.locator('input[name="calibration.tflops_per_gpu"]').fill('50');
      await page.getByRole('button', { name: 'Calibrate', exact: true }).click();
      const flops = page.locator('.calibrate [data-key="tflops_per_gpu"] .field-error');
      await flops.waitFor();
      assert.match(await flops.textContent(), /the two figures contradict each other/);
    } finally {
      await lab.close();
    }
  });

  // Llama 3 8B on one H100 node in 4 pipeline stages (8 micro-batches: a bubble of about a
  // quarter of the step), and the same model with no pipeline (none): two runs whose bubbles
  // differ, the second measured 10% slower than the model has it.
  const DEEP_SCENARIO = { ...NODE_SCENARIO, global_batch: 8, degrees: { dp: 1, tp: 2, pp: 4 } };
  const FLAT_SCENARIO = { ...NODE_SCENARIO, global_batch: 8, zero_stage: 0 };
  const DEEP =
    '?view=desk&gpus=8&model=llama3-8b&gpu=H100-80GB&seq_len=8192&global_batch=8' +
    '&degrees=1x2x4&sequence_parallel=true';
  const tableRows = (page, name) =>
    page
      .locator(`table[data-table="${name}"] tbody tr`)
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));

  test('a second run: taken like the first, the bubble fitted or held, from the link too', async () => {
    const core = await firstLoadLab();
    const stepOf = (scenario) => core.evaluate(scenario).time.step_s;
    // Twice the same layout: nothing tells the bubble from the matmuls, and the table says so.
    let lab = await openLab(env, { path: DEEP, viewport: WIDE });
    try {
      const deep = String(stepOf(DEEP_SCENARIO));
      await lab.page.getByRole('tab', { name: 'Calibrate to your run' }).click();
      await lab.page
        .getByRole('button', { name: "Use the lab's current layout as my run" })
        .click();
      const second = "Use the lab's current layout as my second run";
      await lab.page.getByRole('button', { name: second }).click();
      assert.match(await lab.page.locator('.second-text').textContent(), /^ Your second run: 8 ×/);
      await lab.page.locator('input[name="calibration.step_time_s"]').fill(deep);
      await lab.page.locator('input[name="calibration.second_step_time_s"]').fill(deep);
      await lab.page.getByRole('button', { name: 'Calibrate', exact: true }).click();
      await lab.page.waitForSelector('.calibration-out table[data-table="constants"]');
      const held = (await tableRows(lab.page, 'constants')).at(-1);
      assert.equal(held[0], 'Share of the pipeline bubble paid');
      assert.match(held[3], /too alike to tell from the matmuls/);
      assert.equal((await tableRows(lab.page, 'residuals')).at(-1)[0], 'Second run’s step time');
      assert.deepEqual(lab.problems, []);
    } finally {
      await lab.close();
    }
    // A deep run as the model has it and a flat one 10% slower, from the link: less of the
    // bubble paid, both steps met.
    const block = {
      scenario: DEEP_SCENARIO,
      step_time_s: stepOf(DEEP_SCENARIO),
      second_scenario: FLAT_SCENARIO,
      second_step_time_s: 1.1 * stepOf(FLAT_SCENARIO),
    };
    const path = `${DEEP}&calibration=${encodeURIComponent(JSON.stringify(block))}`;
    lab = await openLab(env, { path, viewport: WIDE });
    try {
      await lab.page.getByRole('tab', { name: 'Calibrate to your run' }).click();
      await lab.page.waitForSelector('.calibration-out table[data-table="constants"]');
      const fitted = (await tableRows(lab.page, 'constants')).at(-1);
      assert.ok(Number(fitted[2]) < 1, fitted[2]);
      assert.equal(fitted[3], "fitted with the matmul efficiency to both runs' steps");
      for (const row of await tableRows(lab.page, 'residuals')) {
        if (/step time/i.test(row[0])) assert.equal(row[4], '+0.0%', row[0]);
      }
      assert.equal(
        await lab.page.locator('.second-text').textContent(),
        ' Your second run: from the link.',
      );
      // Removing the calibration drops the second run too.
      await lab.page.getByRole('button', { name: 'Remove the calibration' }).click();
      assert.equal(
        await lab.page.locator('.second-text').textContent(),
        ' No second run (optional).',
      );
      assert.deepEqual(lab.problems, []);
    } finally {
      await lab.close();
    }
  });

  test('390×844: the desk in one column', async () => {
    const lab = await openLab(env, { path: LLAMA70, viewport: { width: 390, height: 844 } });
    const { page, problems } = lab;
    try {
      const inputs = await box(page, '.desk-inputs');
      const results = await box(page, '.desk-results');
      assert.ok(results.y >= inputs.y + inputs.height - 1, 'results under the inputs');
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390));
      await screenshot(page, 'desk-390');
      assert.deepEqual(problems, []);
    } finally {
      await lab.close();
    }
  });
});
