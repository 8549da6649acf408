// The book view's reader tools: the nesting-order what-if (each seam's link and time, the
// fact and the cost against the chapter's rule, the grid's new placement, the URL), the
// math behind every number of the memory and wire panels, the book's fleet and back, the
// "Try it" steps (checked against the core, kept across a reload, by keyboard), units that
// never read billions as bytes, the pipeline's claim following the links, and all of it in the
// custom element and the iframe, axe clean in light and dark.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { axe, mathText, openPage, screenshot, settledUrl, startBrowser } from './harness.mjs';
import { settle } from './measure.mjs';

const cli = fileURLToPath(new URL('../../build/native/core/explore', import.meta.url));
// The native core's report for a scenario, with every derivation: a separate build of the
// model the page runs.
const core = (scenario) =>
  JSON.parse(
    // A 10,240-GPU report with its ranks runs to several MB.
    execFileSync(cli, ['--explain', 'all', '-'], {
      input: JSON.stringify(scenario),
      maxBuffer: 256 << 20,
    }).toString(),
  );
const ALL = { data: true, tensor: true, pipeline: true };

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env?.close());

const badge = (page) => page.locator('.badge').textContent();
const waitBadge = (page, text) =>
  page.waitForFunction((t) => document.querySelector('.badge')?.textContent === t, text);

describe('nesting order', () => {
  test('choosing an order at 1280×800 brings the grid, whose tiles move, into view', async () => {
    const lab = await openPage(env, '?seams=data,tensor,pipeline', {
      viewport: { width: 1280, height: 800 },
    });
    const { page } = lab;
    const select = page.getByLabel('Nesting order (innermost first)');
    await select.scrollIntoViewIfNeeded();
    const grid = () => page.locator('.grid-panel svg').boundingBox();
    const before = await grid();
    assert.ok(before.y + before.height < 0, `the grid above the screen: ${before.y} px`);
    // By keyboard: the next order.
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() =>
      /Costs/.test(document.querySelector('.order-cost').textContent),
    );
    const after = await grid();
    assert.ok(after.y >= 0 && after.y + after.height <= 800, `the grid at ${after.y} px`);
    assert.equal(await select.evaluate((s) => s === document.activeElement), true);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a labelled select of the orders, the rule first; choosing one shows its cost', async () => {
    const lab = await openPage(env, '?seams=data,tensor,pipeline');
    const { page } = lab;
    const select = page.getByLabel('Nesting order (innermost first)');
    const options = await select
      .locator('option')
      .evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
    assert.equal(options.length, 6);
    assert.deepEqual(options[0], ['tp,pp,dp', "TP, PP, DP (the chapter's rule)"]);
    assert.ok(options.slice(1).every(([, text]) => !/rule/.test(text)));
    assert.match(await page.locator('.order-cost').textContent(), /The chapter's rule/);

    await select.selectOption('dp,pp,tp');
    const want = core({ seams: ALL, order: 'dp,pp,tp' });
    await page.waitForFunction(() =>
      /Costs/.test(document.querySelector('.order-cost').textContent),
    );
    // Innermost first, each seam's link and time as the core has them.
    const seams = await page
      .locator('.order-seams li')
      .evaluateAll((lis) =>
        lis.map((li) => ({ seam: li.dataset.seam, link: li.dataset.link, text: li.textContent })),
      );
    assert.deepEqual(
      seams.map((s) => s.seam),
      ['data', 'pipeline', 'tensor'],
    );
    for (const s of seams) {
      assert.equal(s.link, want.comms[s.seam].link, s.seam);
      assert.match(s.text, s.link === 'network' ? /span nodes/ : /inside a node/);
    }
    assert.equal(want.comms.tensor.link, 'network', 'TP outermost leaves the node');
    const tensorTime = await page
      .locator('.order-seams [data-explain="comms.tensor.time_s"]')
      .textContent();
    assert.equal(tensorTime, `${Number(want.comms.tensor.time_s.toPrecision(3))} s`);
    // The core's fact, and the cost against the rule from report.order.
    const facts = await page.locator('.warn-facts li').allTextContents();
    assert.ok(
      facts.some((w) => /^Tensor parallelism spans nodes/.test(w)),
      facts.join(),
    );
    const cost = page.locator('.order-cost [data-explain="order.order_cost_s"]');
    assert.equal(await cost.textContent(), `${Number(want.order.order_cost_s.toPrecision(3))} s`);
    assert.ok(want.order.order_cost_s > 1);

    // The grid shows the new placement: each tile's coordinates are the core's for its rank.
    const tiles = await page.locator('.gpu-grid rect.tile').evaluateAll((rs) =>
      rs.map((r) => ({
        dp: +r.dataset.dp,
        tp: +r.dataset.tp,
        pp: +r.dataset.pp,
        node: +r.dataset.node,
      })),
    );
    assert.deepEqual(
      tiles,
      want.ranks.map(({ dp, tp, pp, node }) => ({ dp, tp, pp, node })),
    );
    assert.match(
      await page.locator('[data-legend="replica"] .legend-note').textContent(),
      /interleaves/,
    );

    // In the URL like any other key, and read back from it.
    assert.match(await settledUrl(page), /order=dp,pp,tp/);
    await page.reload();
    await page.waitForSelector('html[data-ready="1"]');
    assert.equal(await page.getByLabel('Nesting order (innermost first)').inputValue(), 'dp,pp,tp');
    await screenshot(page, 'book-order-broken', { fullPage: true });
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a faster order says so, and a refused one is a note, not a state', async () => {
    // DP and PP at 4×1×4: with DP innermost its all-reduce rides NVLink and the pipeline's
    // small sends cross the network instead.
    const lab = await openPage(env, '?seams=data,pipeline&order=dp,pp,tp');
    const want = core({ seams: { data: true, pipeline: true }, order: 'dp,pp,tp' });
    assert.ok(want.order.order_cost_s < 0);
    assert.match(
      await lab.page.locator('.order-cost').textContent(),
      /^Saves .* the rule is not the fastest/,
    );
    await lab.close();
    const bad = await openPage(env, '?order=tp,tp,dp');
    assert.match(
      await bad.page.locator('.pe-notes-list').textContent(),
      /order: "tp,tp,dp" is not allowed/,
    );
    assert.equal(
      await bad.page.getByLabel('Nesting order (innermost first)').inputValue(),
      'tp,pp,dp',
    );
    await bad.close();
  });
});

describe('show the math', () => {
  test('every number of the memory and wire panels explains itself from the core', async () => {
    const lab = await openPage(env, '?seams=data,tensor,pipeline');
    const { page } = lab;
    const report = await page.evaluate(async () => {
      const { createLab } = await import('/lab/lab.js');
      return (await createLab({ planner: true })).explain({
        seams: { data: true, tensor: true, pipeline: true },
      });
    });
    // Every number shown in the two panels (data-value marks one) carries its report key.
    const numbers = await page
      .locator('.memory [data-value], .wire-panel [data-value]')
      .evaluateAll((els) =>
        // The context and expert rows stay hidden while their seams are off.
        els
          .filter((el) => !el.closest('[hidden]'))
          .map((el) => ({
            field: el.dataset.field ?? el.parentElement.dataset.field,
            key: el.dataset.explain ?? null,
            role: el.getAttribute('role'),
            tab: el.tabIndex,
          })),
      );
    assert.ok(numbers.length >= 25, `${numbers.length} numbers`);
    for (const n of numbers) {
      if (n.field === 'message') continue; // the row; its two numbers are inside it
      assert.ok(n.key, `${n.field} has data-explain`);
      assert.ok(report.explain[n.key], `the core explains ${n.key}`);
      assert.equal(n.role, 'button', n.key);
      assert.equal(n.tab, 0, n.key);
    }
    // Focus shows the derivation as the number's description; Enter pins it; Escape closes.
    const tip = page.locator('.explain-tip');
    for (const [field, key] of [
      ['per-gpu', 'memory.per_gpu_bytes'],
      ['params-per-gpu', 'memory.params_per_gpu'],
      ['shard-factor', 'memory.shard_factor'],
      ['model-params', 'model_params'],
    ]) {
      await page.locator(`[data-field="${field}"]`).focus();
      assert.equal(await tip.isVisible(), true, field);
      assert.equal(await mathText(page), report.explain[key].text);
      // Words, not a preset's key ("book-16b") or a code with underscores.
      assert.doesNotMatch(await mathText(page), /\b[a-z0-9]+-\d+b\b|_/, field);
      assert.equal(
        await page.locator('.explain-source').textContent(),
        `Source: ${report.explain[key].source}`,
      );
      const describedBy = await page
        .locator(`[data-field="${field}"]`)
        .getAttribute('aria-describedby');
      assert.equal(describedBy, await tip.getAttribute('id'));
    }
    const bytes = page.locator('li[data-seam="data"] [data-field="bytes"]');
    await bytes.focus();
    await page.keyboard.press('Enter');
    assert.equal(await bytes.getAttribute('aria-expanded'), 'true');
    assert.equal(await mathText(page), report.explain['comms.data.bytes_per_gpu_per_step'].text);
    await page.keyboard.press('Escape');
    assert.equal(await tip.isVisible(), false);
    assert.equal(await bytes.getAttribute('aria-expanded'), 'false');
    // Click pins, a click elsewhere closes; hover shows.
    const link = page.locator('li[data-seam="tensor"] [data-field="link"]');
    await link.click();
    assert.equal(await link.getAttribute('aria-expanded'), 'true');
    assert.match(await mathText(page), /^240 GB\/s = 300 GB\/s × 0.8, NVLink: TP groups/);
    await page.locator('.wire-panel h2').click();
    assert.equal(await tip.isVisible(), false);
    await page.locator('li[data-seam="pipeline"] [data-field="time"]').hover();
    assert.equal(await mathText(page), report.explain['comms.pipeline.time_s'].text);
    await screenshot(page, 'book-show-the-math');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test("the book's own numbers read as the chapter writes them", async () => {
    const lab = await openPage(env, '');
    const { page } = lab;
    const said = async (selector) => {
      await page.locator(selector).focus();
      return mathText(page);
    };
    assert.equal(await said('[data-field="per-gpu"]'), '256 GB = 16 billion params × 16 B/param');
    assert.equal(
      await said('li[data-seam="data"] [data-field="bytes"]'),
      '60 GB = 2 × (16 − 1) ÷ 16 × 16 billion params × 2 B × 1 per step',
    );
    assert.equal(
      await said('[data-field="params-per-gpu"]'),
      '16 billion = 16 billion params ÷ (TP 1 × PP 1)',
    );
    // An idle seam's dashes explain nothing and take no tab stop.
    const idle = page.locator('li[data-seam="tensor"] [data-field="bytes"]');
    assert.equal(await idle.textContent(), '—');
    assert.equal(await idle.getAttribute('role'), null);
    assert.equal(await idle.getAttribute('tabindex'), null);
    // Goodput (failures, checkpoints, restarts) is the planning desk's: the book's view has none.
    assert.equal(await page.locator('[data-part="goodput"], .desk-summary').count(), 0);
    assert.doesNotMatch(await page.locator('.pe-lab').innerText(), /goodput|failures?\b/i);
    await lab.close();
  });
});

describe("the book's fleet", () => {
  test('one click to TP8 × PP16 × DP80 with its links, and one back to 16 GPUs', async () => {
    const lab = await openPage(env, '?seams=data,tensor&order=tp,dp,pp');
    const { page } = lab;
    await page.getByRole('button', { name: "Book's fleet (10,240 GPUs)", exact: true }).click();
    await waitBadge(page, 'DP×TP×PP = 80×8×16 = 10240');
    await page.locator('svg.fleet').waitFor();
    await settle(page);
    const want = core({
      gpus: 10240,
      degrees: { dp: 80, tp: 8, pp: 16 },
      global_batch: 2560,
      memory_model: 'full',
      order: 'tp,dp,pp',
    });
    assert.match(await page.locator('.layout-text').textContent(), /10,240 GPUs in 1,280 nodes/);
    for (const seam of ['data', 'tensor', 'pipeline']) {
      assert.equal(
        await page.locator(`.order-seams li[data-seam="${seam}"]`).getAttribute('data-link'),
        want.comms[seam].link,
        seam,
      );
      assert.equal(
        await page.locator(`li[data-seam="${seam}"] [data-field="link"]`).getAttribute('data-link'),
        want.comms[seam].link,
      );
    }
    assert.equal(want.comms.tensor.link, 'nvlink');
    assert.equal(want.comms.pipeline.link, 'network', 'the pipeline spans machines');
    assert.equal(await page.getByLabel('Nesting order (innermost first)').inputValue(), 'tp,dp,pp');
    assert.match(await settledUrl(page), /gpus=10240&degrees=80x8x16/);

    const back = page.getByRole('button', { name: 'Back to 16 GPUs', exact: true });
    await back.click();
    await waitBadge(page, 'DP×TP×PP = 2×4×2 = 16');
    assert.equal(await page.locator('details.advanced').evaluate((d) => d.open), false);
    assert.equal(await page.getByLabel('Nesting order (innermost first)').inputValue(), 'tp,dp,pp');
    assert.equal(
      await page.getByRole('button', { name: "Book's fleet (10,240 GPUs)", exact: true }).count(),
      1,
    );
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

// A lab on a phone: 390 × 844, touch; close() closes its context too.
async function phoneLab(path) {
  const context = await env.browser.newContext({
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    isMobile: true,
    reducedMotion: 'reduce',
  });
  const lab = await openPage(env, path, { context });
  return {
    ...lab,
    async close() {
      await lab.close();
      await context.close();
    },
  };
}

describe('the book view on a phone', () => {
  test('hints say tap; a tap on a tile or a number shows its words, in view', async () => {
    const lab = await phoneLab('?seams=data,tensor,pipeline');
    const { page } = lab;
    const readout = page.locator('.readout-title');
    assert.match(await readout.textContent(), /^Tap a GPU to see/);
    assert.equal(await page.locator('.intro-more .on-touch').isVisible(), true);
    assert.equal(await page.locator('.intro-more .on-hover').isVisible(), false);
    const tile = page.locator('.gpu-grid rect.tile[data-rank="5"]');
    await tile.scrollIntoViewIfNeeded();
    await tile.tap();
    await settle(page);
    assert.match(await readout.textContent(), /^GPU 5 \(node 0\)/);
    const box = await readout.boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 844, `the readout at ${box.y}`);
    await page.locator('[data-field="per-gpu"]').tap();
    assert.equal(await page.locator('.explain-tip').isVisible(), true);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('the fleet map on a phone', () => {
  test('a tap picks the GPU under the finger, and the hint says tap', async () => {
    const lab = await phoneLab('?seams=data,tensor,pipeline');
    const { page } = lab;
    await page.getByRole('button', { name: "Book's fleet (10,240 GPUs)", exact: true }).click();
    await waitBadge(page, 'DP×TP×PP = 80×8×16 = 10240');
    const map = page.locator('svg.fleet');
    await map.waitFor();
    await settle(page);
    assert.match(await page.locator('.readout').textContent(), /Hover or tap on the map/);
    await map.scrollIntoViewIfNeeded();
    // The part of the map on screen.
    const whole = await map.boundingBox();
    const top = Math.max(whole.y, 0);
    const box = { ...whole, y: top, height: Math.min(whole.y + whole.height, 844) - top };
    const picked = async () =>
      /GPU (\d+) \(node/.exec(await page.locator('.readout').textContent())?.[1];
    const taps = [];
    for (const [fx, fy] of [
      [0.6, 0.3],
      [0.3, 0.6],
    ]) {
      const x = box.x + fx * box.width;
      const y = box.y + fy * box.height;
      await page.touchscreen.tap(x, y);
      await settle(page);
      const tapped = await picked();
      // The same point under a mouse names the same GPU.
      await page.mouse.move(x, y);
      await settle(page);
      assert.equal(tapped, await picked(), `tap at ${fx}, ${fy}`);
      taps.push(tapped);
    }
    assert.ok(
      taps.every((gpu) => gpu !== undefined && gpu !== '0'),
      taps.join(', '),
    );
    assert.notEqual(taps[0], taps[1]);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('text and units', () => {
  test('params per GPU say "params"; the pipeline claim follows the links', async () => {
    const lab = await openPage(env, '?seams=data,tensor,pipeline');
    const { page } = lab;
    assert.equal(await page.locator('[data-field="params-per-gpu"]').textContent(), '2 B params');
    assert.equal(await page.locator('[data-field="bytes-per-param"]').textContent(), '16 B');
    const notice = () => page.locator('.notice').textContent();
    // About the model the lab shows (the book's 16B), not another one.
    await page.waitForFunction(() =>
      /256 GB of training state each for the book's 16B model/.test(
        document.querySelector('.notice').textContent.replace(/\s+/g, ' '),
      ),
    );
    assert.doesNotMatch(await notice(), /70B/);
    assert.match(
      await notice(),
      /can span machines; not here: at 16 GPUs its stages share a node and ride NVLink, while DP crosses the network/,
    );
    await page.getByRole('button', { name: "Book's fleet (10,240 GPUs)", exact: true }).click();
    await waitBadge(page, 'DP×TP×PP = 80×8×16 = 10240');
    await page.waitForFunction(() =>
      /as it does here/.test(document.querySelector('.notice').textContent),
    );
    assert.match(
      await notice(),
      /can span machines, as it does here: at 10,240 GPUs its stages sit on different nodes/,
    );
    await lab.close();
  });
});

describe('articles', () => {
  test('the article before a number is the one it is read with: "an 8.03-billion"', async () => {
    const lab = await openPage(env, '?seams=data,tensor,pipeline');
    const { page } = lab;
    const intro = () => page.locator('[data-part="intro"] .explain').textContent();
    assert.match(await intro(), /for a\s+16-billion-parameter model/);
    await lab.close();
    const llama = await openPage(env, '?seams=data,tensor,pipeline&model=llama3-8b');
    await llama.page.waitForFunction(() =>
      /an\s+8\.03-billion-parameter/.test(
        document.querySelector('[data-part="intro"] .explain').textContent,
      ),
    );
    await llama.close();
  });
});

// Try it's questions load when their section nears the screen (embed.js lazyExercises), as
// a reader's scrolling brings them: scrolls `scope` (a page, a frame or a lab element) to the
// section and waits for them.
async function tryIt(scope) {
  const section = scope.locator('[data-part="exercises"]');
  await section.evaluate((el) => el.scrollIntoView());
  await section.locator('.exercise-list').waitFor();
  return section;
}

// The steps' answers, as a reader would give them: the right one for the first, a wrong one
// for the fifth.
// Answers step `id`; in an embedded lab, which shows one step at a time, Next goes to it first.
async function answer(page, id, value) {
  await tryIt(page);
  const step = page.locator(`[data-exercise="${id}"]`);
  const next = page.locator('.exercise-nav').getByRole('button', { name: 'Next →' });
  while (!(await step.isVisible()) && (await next.isEnabled())) await next.click();
  if ((await step.locator('input[type="number"]').count()) > 0) {
    await step.getByLabel('Your prediction').fill(String(value));
  } else {
    await step.locator(`input[value="${value}"]`).check();
  }
  await step.getByRole('button', { name: 'Check, and show it in the lab' }).click();
  return step;
}

describe('Try it', () => {
  test('steps to predict, checked against the core, shown in the lab, kept on reload', async () => {
    const lab = await openPage(env, '');
    const { page } = lab;
    // Not loaded with the first screen: none of its script until the reader comes near.
    assert.equal(await page.locator('.exercise-list').count(), 0);
    const section = await tryIt(page);
    assert.equal(await section.locator('h2').textContent(), 'Try it');
    const steps = await section.locator('[data-exercise]').count();
    assert.ok(steps >= 5 && steps <= 8, `${steps} steps`);
    assert.equal(await section.locator('[data-exercise] fieldset > legend').count(), steps);

    // A share, checked against report.memory; the lab goes to tensor parallel alone.
    let step = await answer(page, 'tp-alone-share', '0.0625');
    await waitBadge(page, 'DP×TP×PP = 1×16×1 = 16');
    const t = core({ seams: { data: false, tensor: true, pipeline: false } });
    const feedback = step.locator('.exercise-feedback');
    assert.equal(await feedback.getAttribute('role'), 'status');
    assert.match(await feedback.textContent(), /^✓ Right: A sixteenth\./);
    assert.ok((await feedback.textContent()).includes(t.explain['memory.params_per_gpu'].text));
    // What the step did to the lab, in words.
    assert.equal(
      await step.locator('.exercise-change').textContent(),
      'The lab switched Tensor parallel on and switched Data parallel off.',
    );

    // A number, checked against report.memory.per_gpu_bytes; the lab goes to data + tensor.
    step = await answer(page, 'tp-memory', 64);
    await waitBadge(page, 'DP×TP×PP = 4×4×1 = 16');
    assert.match(await step.locator('.verdict').textContent(), /^✓ Right: 64 GB\.$/);
    assert.match(
      await step.locator('.exercise-feedback').textContent(),
      /64 GB = 4 billion params × 16 B\/param/,
    );

    // Answered wrongly: the lab breaks the rule and says by how much.
    step = await answer(page, 'break-rule', 'same');
    await page.waitForFunction(
      () => document.querySelector('[data-state="order"]').value === 'dp,pp,tp',
    );
    const broken = core({ seams: ALL, order: 'dp,pp,tp' });
    // The choices' bounds: "a little" up to a quarter more, "much" past it.
    const slowdown = broken.time.step_s / core({ seams: ALL }).time.step_s;
    assert.ok(slowdown > 1, `TP outermost is slower: ${slowdown}`);
    assert.match(
      await step.locator('.verdict').textContent(),
      slowdown > 1.25
        ? /^✗ Not quite: the lab says Much slower/
        : /^✗ Not quite: the lab says A little slower/,
    );
    assert.ok(
      (await step.locator('.exercise-feedback').textContent()).includes(
        broken.explain['order.order_cost_s'].text,
      ),
    );
    assert.equal(
      await step.locator('.exercise-change').textContent(),
      'The lab switched Pipeline parallel on and set the nesting order to DP, PP, TP.',
    );

    // Two reports compared: zero bubble against 1F1B on the same 16 GPUs, both the core's.
    step = await answer(page, 'zero-bubble', 'part');
    const zb = core({ seams: ALL, memory_model: 'full', schedule: 'zb_h1' });
    const one = core({ seams: ALL, memory_model: 'full' });
    const left = zb.time.bubble_s / one.time.bubble_s;
    assert.ok(left > 0.25 && left < 0.75, `${left} of the bubble left`);
    assert.match(
      await step.locator('.verdict').textContent(),
      /^✓ Right: A quarter to three quarters\.$/,
    );
    await step.locator('.exercise-change').waitFor();
    const said = await step.locator('.exercise-feedback').textContent();
    // The bubble in words, not as a bare fraction: each schedule's idle time, the share left,
    // and the weight gradient's share that fills it (a term of the core's derivation).
    const pct = (x) => `${Number((x * 100).toPrecision(3))}%`;
    const w = zb.explain['pipeline.bubble_fraction'].terms.find((t) => t.symbol === 'w').value;
    assert.ok(said.includes(`so ${pct(left)} of the bubble is left`), said);
    assert.ok(said.includes(`(${pct(one.pipeline.bubble_fraction)})`), said);
    assert.ok(said.includes(`where w = ${pct(w)} is the weight gradient’s share`), said);
    assert.doesNotMatch(said, /0\.00\d+ =/);
    assert.match(
      said,
      /The lab set the nesting order to TP, PP, DP, opened Advanced and set the pipeline schedule to Zero bubble \(ZB-H1\)\./,
    );
    // Opening Advanced changes the memory count: said, with both figures.
    const book = core({ seams: ALL, schedule: 'zb_h1' });
    assert.ok(
      said.includes(
        `the busiest GPU needs ${(zb.memory.per_gpu_bytes / 1e9).toPrecision(3)} GB, where the ` +
          `book’s count of weights, gradients and optimizer gave ${book.memory.per_gpu_bytes / 1e9} GB.`,
      ),
      said,
    );
    assert.equal(
      await section.locator('.exercise-progress').textContent(),
      '4 of 7 answered, 3 right.',
    );

    // A reload keeps the answers and checks them again; the lab keeps its own state.
    await page.reload();
    await tryIt(page);
    await page.waitForSelector('html[data-ready="1"]');
    // Checked again with the math from the planner's module, which loads first.
    await page.waitForFunction(
      () =>
        document.querySelector('.exercise-progress')?.textContent === '4 of 7 answered, 3 right.',
    );
    assert.equal(await page.locator('[data-exercise="tp-memory"] input').inputValue(), '64');
    assert.equal(
      await page.locator('[data-exercise="break-rule"] input[value="same"]').isChecked(),
      true,
    );
    assert.match(
      await page.locator('[data-exercise="break-rule"] .verdict').textContent(),
      /Not quite/,
    );

    // Nothing chosen: a prompt, and the lab stays as it is.
    const before = await badge(page);
    await page
      .locator('[data-exercise="most-bytes"]')
      .getByRole('button', { name: 'Check, and show it in the lab' })
      .click();
    assert.equal(
      await page.locator('[data-exercise="most-bytes"] .exercise-feedback').textContent(),
      'Choose an answer first.',
    );
    assert.equal(await badge(page), before);

    // The last step opens the book's fleet, where the pipeline does span machines.
    step = await answer(page, 'book-fleet', 'data,pipeline');
    await waitBadge(page, 'DP×TP×PP = 80×8×16 = 10240');
    assert.match(await step.locator('.verdict').textContent(), /^✓ Right: PP and DP\.$/);

    await page.getByRole('button', { name: 'Start over' }).click();
    assert.equal(
      await section.locator('.exercise-progress').textContent(),
      '0 of 7 answered, 0 right.',
    );
    await page.reload();
    await tryIt(page);
    await page.waitForSelector('html[data-ready="1"]');
    assert.equal(await page.locator('[data-exercise="tp-memory"] input').inputValue(), '');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test("no step's answer is on screen before it is asked", async () => {
    // For each step, its own question asked of the lab's first state and of every earlier
    // step's state gets another answer from the core: so none of those screens shows it.
    const lab = await openPage(env, '');
    const clashes = await lab.page.evaluate(async () => {
      const { EXERCISES } = await import('./js/app/exercises.js');
      const { getLab } = await import('./js/app/embed.js');
      const { defaults, toScenario } = await import('./js/state/state.js');
      const core = await getLab();
      const report = (state) => core.evaluate(toScenario(state));
      const key = (a) => JSON.stringify(a?.shown ?? a);
      const seen = [defaults()];
      const found = [];
      for (const step of EXERCISES) {
        const before = step.before && report(step.before());
        const right = key(step.answer(report(step.state()), before));
        for (const state of seen) {
          if (key(step.answer(report(state), before)) === right) found.push(`${step.id}: ${right}`);
        }
        seen.push(step.state());
      }
      return found;
    });
    assert.deepEqual(clashes, []);
    await lab.close();
  });

  test('a check brings the changed part into view, and back returns to the step', async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const lab = await openPage(env, '', { viewport });
      const { page } = lab;
      const inView = (selector) =>
        page.locator(selector).evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top < innerHeight && r.bottom > 0;
        });
      // Whole on the screen, below a sticky toolbar (a phone's), outline included.
      const wholly = (selector) =>
        page.locator(selector).evaluate((el) => {
          const bar = el.closest('.pe-lab').querySelector('.toolbar');
          const sticky = getComputedStyle(bar).position === 'sticky';
          const top = sticky ? bar.getBoundingClientRect().bottom : 0;
          const r = el.getBoundingClientRect();
          return r.top - 7 >= top && r.bottom + 7 <= innerHeight;
        });
      for (const [id, value, part] of [
        ['most-bytes', 'tensor', '.wire'],
        ['tp-memory', 40, '.memory'],
        ['network-no-dp', 'pipeline', '.wire'],
        ['break-rule', 'much', '.order-out'],
        ['zero-bubble', 'none', '.timeline'],
      ]) {
        await answer(page, id, value);
        // The part is shown once the lab has drawn the step's state (its Advanced parts too).
        const back = page.locator(`${part} .back-to-step`);
        await back.waitFor();
        assert.equal(await wholly(part), true, `${id}: ${part} in view at ${viewport.width}`);
        assert.equal(await inView(`[data-exercise="${id}"] legend`), false, id);
        assert.equal(
          await back.evaluate((b) => b === document.activeElement),
          true,
          'the focus on the way back',
        );
        // Not under the toolbar: the button is what a tap at its middle reaches.
        assert.equal(
          await back.evaluate((b) => {
            const r = b.getBoundingClientRect();
            return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === b;
          }),
          true,
          `${id}: Back to step is uncovered at ${viewport.width}`,
        );
        await page.keyboard.press('Enter');
        assert.equal(await inView(`[data-exercise="${id}"] button[type="submit"]`), true, id);
        assert.equal(await page.locator('.back-to-step').count(), 0);
        assert.equal(
          await page.evaluate(
            () => document.activeElement.closest('[data-exercise]')?.dataset.exercise,
          ),
          id,
        );
      }
      assert.deepEqual(lab.problems, []);
      await lab.close();
    }
  });

  test('the fleet step says it opens Advanced, and Back returns to the state the reader left', async () => {
    const lab = await openPage(env, '?seams=data,tensor');
    const { page } = lab;
    await waitBadge(page, 'DP×TP×PP = 4×4×1 = 16');
    const step = await answer(page, 'book-fleet', 'data,pipeline');
    await waitBadge(page, 'DP×TP×PP = 80×8×16 = 10240');
    assert.equal(await page.locator('details.advanced').evaluate((d) => d.open), true);
    assert.match(
      await step.locator('.exercise-feedback').textContent(),
      /Advanced section is open now.*“Back to 16 GPUs” closes it and returns the lab to where you were\./,
    );
    await page.getByRole('button', { name: 'Back to 16 GPUs', exact: true }).click();
    await waitBadge(page, 'DP×TP×PP = 4×4×1 = 16');
    assert.equal(await page.locator('details.advanced').evaluate((d) => d.open), false);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('by keyboard alone: Tab to a choice, arrows to pick, Enter to check', async () => {
    const lab = await openPage(env, '');
    const { page } = lab;
    await tryIt(page);
    await page.locator('[data-exercise="most-bytes"] legend').scrollIntoViewIfNeeded();
    await page.locator('.compare .pin').focus(); // Compare comes just before Try it
    await page.keyboard.press('Tab'); // into the first step's radio group: one tab stop
    assert.equal(
      await page.evaluate(() => document.activeElement.closest('[data-exercise]').dataset.exercise),
      'most-bytes',
    );
    await page.keyboard.press('ArrowDown'); // DP -> TP
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await waitBadge(page, 'DP×TP×PP = 2×4×2 = 16');
    assert.match(
      await page.locator('[data-exercise="most-bytes"] .verdict').textContent(),
      /^✓ Right: TP \(tensor\)\.$/,
    );
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('embedded', () => {
  test('the custom element and the iframe: order, math, fleet and steps; parts hide', async () => {
    const view = await openPage(env, 'examples/element.html', { ready: '#near[data-ready]' });
    const near = view.page.locator('#near');
    await near.locator('[data-state="order"]').selectOption('pp,dp,tp');
    await view.page.waitForFunction(() =>
      /Costs/.test(
        document.querySelector('#near').shadowRoot.querySelector('.order-cost').textContent,
      ),
    );
    await near.locator('[data-field="per-gpu"]').focus();
    assert.equal(await near.locator('.explain-tip').isVisible(), true);
    await near.getByRole('button', { name: "Book's fleet (10,240 GPUs)" }).click();
    await view.page.waitForFunction(
      () =>
        document.querySelector('#near').shadowRoot.querySelector('.badge').textContent ===
        'DP×TP×PP = 80×8×16 = 10240',
    );
    assert.equal(await (await tryIt(near)).locator('[data-exercise]').count(), 7);
    assert.deepEqual(view.problems, []);
    await view.close();

    const frame = await openPage(env, 'examples/iframe.html', { ready: 'iframe.example-frame' });
    const lab = frame.page.frameLocator('iframe.example-frame');
    await lab.locator('html[data-ready="1"]').waitFor();
    await lab.locator('[data-state="order"]').selectOption('dp,pp,tp');
    await lab.locator('.order-seams li[data-seam="tensor"][data-link="network"]').waitFor();
    const step = await answer(lab, 'network-no-dp', 'pipeline');
    await lab.locator('[data-exercise="network-no-dp"] .verdict').waitFor();
    assert.match(await step.locator('.verdict').textContent(), /^✓ Right: PP\.$/);
    assert.deepEqual(frame.problems, []);
    await frame.close();

    const hidden = await openPage(env, 'embed.html?hide=exercises,order,fleet');
    for (const part of ['exercises', 'order', 'fleet']) {
      assert.equal(
        await hidden.page.locator(`[data-part="${part}"]`).first().isHidden(),
        true,
        part,
      );
    }
    assert.equal(await hidden.page.locator('[data-state="order"]').isHidden(), true);
    await hidden.close();
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`axe clean (${colorScheme}): order broken, a step answered, a derivation open`, async () => {
      const lab = await openPage(env, '?seams=data,tensor,pipeline&order=dp,pp,tp', {
        colorScheme,
      });
      const { page } = lab;
      await answer(page, 'most-bytes', 'data');
      await page.locator('[data-exercise="most-bytes"] .verdict').waitFor();
      await page.locator('[data-field="per-gpu"]').click();
      assert.deepEqual(await axe(page), []);
      await screenshot(page, `book-${colorScheme}`, { fullPage: true });
      assert.deepEqual(lab.problems, []);
      await lab.close();
    });
  }
});
