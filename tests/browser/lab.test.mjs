// The lab in real Chromium: it loads cleanly, and for every seam combination the badge, the
// tiles' coordinates, the memory panel and the wire panel show what the core computes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as fmt from '../../web/js/lib/format.js';
import { badgeFor, COMBINATIONS, coreReport, screenshot, setSeams, useLab } from './harness.mjs';

let env;
let lab;
useLab((opened) => ({ env, lab } = opened));

// Everything the page shows for the current state, read in one round trip.
function readPage(page) {
  return page.evaluate(() => {
    const text = (sel) => document.querySelector(sel)?.textContent.trim();
    const value = (sel) => document.querySelector(sel)?.dataset.value;
    const wire = {};
    for (const li of document.querySelectorAll('.wire [data-seam]')) {
      const f = (name) => li.querySelector(`[data-field="${name}"]`);
      wire[li.dataset.seam] = {
        active: li.dataset.active,
        idle: li.classList.contains('idle'),
        collective: f('collective').textContent,
        bytes: f('bytes').textContent,
        bytesValue: f('bytes').dataset.value,
        bytesTitle: f('bytes').title,
        link: f('link').dataset.link,
        state: f('state').textContent,
      };
    }
    return {
      badge: text('.badge'),
      wire,
      tiles: [...document.querySelectorAll('.gpu-grid rect.tile')].map((r) => ({
        rank: r.dataset.rank,
        dp: r.dataset.dp,
        tp: r.dataset.tp,
        pp: r.dataset.pp,
        node: r.dataset.node,
        idle: r.dataset.idle,
      })),
      perGpu: text('[data-field="per-gpu"]'),
      perGpuValue: value('[data-field="per-gpu"]'),
      perGpuTitle: document.querySelector('[data-field="per-gpu"]').title,
      fit: text('[data-field="fit"]'),
      over: document.querySelector('.memory').classList.contains('over'),
      modelParams: text('[data-field="model-params"]'),
      bytesPerParam: text('[data-field="bytes-per-param"]'),
      paramsPerGpu: text('[data-field="params-per-gpu"]'),
      paramsPerGpuValue: value('[data-field="params-per-gpu"]'),
      shard: text('[data-field="shard-factor"]'),
      breakdown: text('[data-field="breakdown"]'),
      warnings: [...document.querySelectorAll('.warnings li')].map((li) => li.textContent),
      facts: [...document.querySelectorAll('.warn-facts li')].map((li) => li.textContent),
      replicas: [...document.querySelectorAll('.gpu-grid rect.replica')].filter(
        (r) => r.getAttribute('visibility') !== 'hidden',
      ).length,
    };
  });
}

describe('the lab page', () => {
  test('loads with no error, console error or failed request', async () => {
    const { page, problems } = lab;
    assert.deepEqual(problems, []);
    assert.equal(await page.title(), '3D parallelism explorer: splitting a model across GPUs');
    assert.equal(await page.locator('h1').textContent(), 'Splitting a model across 16 GPUs');
    for (const name of ['Data parallel', 'Tensor parallel', 'Pipeline parallel']) {
      assert.equal(await page.getByRole('switch', { name, exact: true }).count(), 1, name);
    }
    assert.equal(await page.locator('.gpu-grid rect.tile').count(), 16);
    for (const heading of [
      'Memory per GPU (weights + optimizer)',
      'What crosses the wire',
      'What to notice',
    ]) {
      assert.equal(await page.getByRole('heading', { name: heading }).count(), 1, heading);
    }
  });

  test("the default is the book's: data parallel only, 256 GB per GPU, 60 GB/step", async () => {
    const shown = await readPage(lab.page);
    assert.equal(shown.badge, 'DP×TP×PP = 16×1×1 = 16');
    assert.equal(shown.perGpu, '256 GB');
    assert.equal(shown.perGpuTitle, '256,000,000,000 bytes');
    assert.equal(shown.modelParams, '16 B params');
    assert.equal(shown.bytesPerParam, '16 B');
    assert.equal(shown.paramsPerGpu, '16 B params'); // never a bare B beside bytes
    assert.equal(shown.shard, '1×');
    assert.equal(
      shown.breakdown,
      '16 B/param = bf16 weight 2 + bf16 grad 2 + fp32 master 4 + Adam m 4 + Adam v 4.',
    );
    assert.ok(shown.over, 'marked as over the GPU');
    assert.match(shown.fit, /exceeds the 80 GB GPU by 176 GB/);
    assert.equal(shown.wire.data.bytes, '60 GB/step');
    assert.equal(shown.wire.tensor.bytes, '—');
    assert.equal(await lab.page.locator('[data-text="data-only-memory"]').textContent(), '256 GB');
    // The node's NVLink at its peak, the cards at what collectives reach on it, and why they
    // differ said beside the cards.
    assert.match(
      await lab.page.locator('.gpu-grid').textContent(),
      /node 0 · 8 GPUs on NVLink \(300 GB\/s peak\)/,
    );
    assert.equal(
      await lab.page.locator('.link-rates').textContent(),
      'Each card’s link runs at the rate collectives reach on it (nccl-tests’ bus bandwidth): ' +
        'NVLink 80% of its 300 GB/s peak, the network 100% of its 25 GB/s.',
    );
    await screenshot(lab.page, 'default', { fullPage: true });
  });

  for (const combo of COMBINATIONS) {
    test(`${combo.name}: badge, tiles, memory and wire match the core`, async () => {
      const report = await coreReport(combo);
      await setSeams(lab.page, combo, badgeFor(report));
      const shown = await readPage(lab.page);

      assert.equal(shown.tiles.length, report.gpus);
      assert.equal(report.ranks.length, 16);
      for (const place of report.ranks) {
        assert.deepEqual(
          shown.tiles[place.rank],
          {
            rank: String(place.rank),
            dp: String(place.dp),
            tp: String(place.tp),
            pp: String(place.pp),
            node: String(place.node),
            idle: undefined,
          },
          `tile ${place.rank}`,
        );
      }
      assert.equal(shown.replicas >= report.degrees.dp, true, 'a box per replica at least');

      const m = report.memory;
      assert.equal(Number(shown.perGpuValue), m.per_gpu_bytes);
      assert.equal(shown.perGpu, fmt.bytes(m.per_gpu_bytes));
      assert.equal(Number(shown.paramsPerGpuValue), m.params_per_gpu);
      assert.equal(shown.shard, `${m.shard_factor}×`);
      assert.equal(shown.over, !m.fits);

      for (const seam of ['data', 'tensor', 'pipeline']) {
        const c = report.comms[seam];
        const row = shown.wire[seam];
        assert.equal(row.active, String(c.active), seam);
        assert.equal(row.idle, !c.active, seam);
        assert.equal(Number(row.bytesValue), c.bytes_per_gpu_per_step, seam);
        if (c.active) {
          assert.equal(row.bytes, `${fmt.bytes(c.bytes_per_gpu_per_step)}/step`, seam);
          assert.equal(row.collective, c.collective, seam);
          assert.equal(row.link, c.link, seam);
        } else {
          assert.equal(row.bytes, '—', seam);
          assert.match(row.state, /idle/, seam);
        }
      }
      // The chapter's own points are facts of the layout, not warnings (256 GB past the GPU
      // with data parallelism alone; TP 16 across nodes; no seam on), and its 50 layers over 4
      // or 16 stages are said under the stages' memory: none of the eight states warns.
      assert.deepEqual(shown.warnings, []);
      assert.deepEqual(report.warnings, []);
      assert.deepEqual(shown.facts, report.facts);

      // The book's numbers, by hand, for the two cases the lab's text talks about.
      if (combo.name === 'D') {
        assert.equal(shown.perGpu, '256 GB');
        assert.equal(shown.wire.data.bytes, '60 GB/step');
      }
      if (combo.name === 'D+T+P') {
        assert.equal(shown.badge, 'DP×TP×PP = 2×4×2 = 16');
        assert.equal(shown.perGpu, '32 GB');
        assert.equal(shown.paramsPerGpu, '2 B params');
        assert.equal(shown.shard, '8×');
        assert.match(shown.fit, /fits the 80 GB GPU/);
        await screenshot(lab.page, 'all-three', { fullPage: true });
        // The README's picture (web/screenshot.png is a copy of this one).
        await screenshot(lab.page.locator('.pe-lab'), 'readme');
      }
    });
  }

  test("no seam on: one GPU busy, fifteen idle and greyed, the core's facts shown, no warning", async () => {
    const combo = { data: false, tensor: false, pipeline: false };
    const report = await coreReport(combo);
    assert.equal(report.active_gpus, 1);
    await setSeams(lab.page, combo, 'DP×TP×PP = 1×1×1 = 1');
    const shown = await readPage(lab.page);
    assert.equal(shown.tiles.filter((t) => t.idle === 'true').length, 15);
    assert.deepEqual(shown.tiles[0], {
      rank: '0',
      dp: '0',
      tp: '0',
      pp: '0',
      node: '0',
      idle: undefined,
    });
    assert.deepEqual(report.warnings, []);
    assert.deepEqual(shown.warnings, []);
    assert.deepEqual(shown.facts, report.facts);
    assert.equal(
      shown.facts[0],
      'No seam is on: one GPU trains the whole model and the other 15 GPUs sit idle. Turn on a seam to use them.',
    );
    // Two notes, no warning: the strip counts them and is not marked as a fault; the live
    // region says which is which.
    const strip = await lab.page.evaluate(() => ({
      first: document.querySelector('.warn-first').textContent,
      factsOnly: document.querySelector('.warn-more').classList.contains('facts-only'),
      live: document.querySelector('.warn-live').textContent,
    }));
    assert.equal(strip.first, `2 notes: ${report.facts[0]}`);
    assert.equal(strip.factsOnly, true);
    assert.equal(strip.live, `About this layout: ${report.facts.join(' ')}`);
    assert.equal(shown.wire.data.idle && shown.wire.tensor.idle && shown.wire.pipeline.idle, true);
    assert.equal(shown.perGpu, fmt.bytes(report.memory.per_gpu_bytes));
  });

  test('still no error after all the toggling', () => assert.deepEqual(lab.problems, []));
});
