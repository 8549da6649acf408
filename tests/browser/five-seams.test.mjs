// The fourth and fifth seams in real Chromium: the book's view keeps its three switches and
// three wire rows; the advanced section's Context and Expert switches drive the badge, the
// wire, the legend and the grid's hover groups, each from the core's report.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { useLab } from './harness.mjs';
import { setField, settle } from './measure.mjs';

let lab;
useLab((opened) => ({ lab } = opened));

const badge = (page) => page.locator('.badge').textContent();
const visibleWireRows = (page) =>
  page
    .locator('.wire > li')
    .evaluateAll((lis) => lis.filter((li) => !li.hidden).map((li) => li.dataset.seam));
const open = async (page) => {
  if (!(await page.locator('details.advanced').evaluate((d) => d.open))) {
    await page.locator('details.advanced > summary').click();
  }
  await page.waitForSelector('details.advanced [data-state="context"]');
  await settle(page);
};
const layoutLabel = (page) =>
  page.locator('details.advanced [data-row="degrees"] > label').textContent();
const check = async (page, name, on) => {
  const box = page.locator(`details.advanced [data-state="${name}"]`);
  if ((await box.isChecked()) !== on) await box.click();
  await settle(page);
};
// Hover the first GPU tile and read the groups the readout names.
const hoverGroups = async (page) => {
  await page.locator('.gpu-grid rect.tile').first().hover();
  return page.locator('.readout-groups li').evaluateAll((lis) => lis.map((li) => li.dataset.group));
};

describe('context and expert seams', () => {
  test("the book's view: three switches, three wire rows, no CP or EP legend", async () => {
    const { page } = lab;
    assert.equal(await page.locator('.switches [role="switch"]').count(), 3);
    assert.deepEqual(await visibleWireRows(page), ['data', 'tensor', 'pipeline']);
    assert.equal(await page.locator('[data-legend="context"]').isHidden(), true);
    assert.equal(await page.locator('[data-legend="expert"]').isHidden(), true);
    assert.equal(await badge(page), 'DP×TP×PP = 16×1×1 = 16');
  });

  test('Context splits the sequence: badge, wire row, legend and the hover group', async () => {
    const { page } = lab;
    await open(page);
    await setField(page, 'seq_len', 8192);
    await check(page, 'context', true);
    // 16 GPUs, data + context: the factors alternate, CP first on ties: 4 x 4.
    await page.waitForFunction(() => document.querySelector('.badge').textContent.includes('CP'));
    assert.equal(await badge(page), 'DP×TP×PP×CP = 4×1×1×4 = 16');
    // The menu of how CP exchanges K/V shows its longest choice whole, not cut off.
    const menu = await page
      .locator('details.advanced select[data-state="context_parallel"]')
      .evaluate((sel) => {
        const s = getComputedStyle(sel);
        const c = document.createElement('canvas').getContext('2d');
        c.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
        const text = Math.max(...[...sel.options].map((o) => c.measureText(o.textContent).width));
        return { width: sel.clientWidth, text };
      });
    assert.ok(menu.width >= menu.text + 24, JSON.stringify(menu));
    // The layout's label names the seams in it.
    assert.equal(await layoutLabel(page), 'Layout DP×TP×PP×CP');
    assert.deepEqual(await visibleWireRows(page), ['data', 'tensor', 'pipeline', 'context']);
    const row = page.locator('.wire > li[data-seam="context"]');
    assert.equal(await row.getAttribute('data-active'), 'true');
    assert.match(await row.locator('[data-field="collective"]').textContent(), /K\/V/);
    assert.equal(await page.locator('[data-legend="context"]').isHidden(), false);
    assert.ok((await hoverGroups(page)).includes('cp'));
    // The hue / shade / outline encoding is the book's: one stage, one slice, four replicas.
    assert.equal(await page.locator('[data-legend="stage"] .chip').count(), 1);
    assert.equal(await page.locator('[data-legend="slice"] .chip').count(), 1);
    await check(page, 'context', false);
    await setField(page, 'seq_len', 2048);
    assert.equal(await layoutLabel(page), 'Layout DP×TP×PP');
  });

  test('Expert splits a mixture of experts: EP carved out of DP, its wire row and hover group', async () => {
    const { page } = lab;
    await open(page);
    await setField(page, 'model', 'mixtral-8x7b');
    await page.getByRole('switch', { name: 'Tensor parallel', exact: true }).click();
    await check(page, 'expert', true);
    // 16 GPUs, data + tensor: 4 x 4; EP takes the largest divisor of DP and the 8 experts.
    await page.waitForFunction(() => document.querySelector('.badge').textContent.includes('EP'));
    assert.equal(await badge(page), 'DP×TP×PP = 4×4×1 (EP 4) = 16');
    assert.equal(await layoutLabel(page), 'Layout DP×TP×PP, EP');
    assert.deepEqual(await visibleWireRows(page), ['data', 'tensor', 'pipeline', 'expert']);
    const row = page.locator('.wire > li[data-seam="expert"]');
    assert.equal(await row.getAttribute('data-active'), 'true');
    assert.match(await row.locator('[data-field="collective"]').textContent(), /all-to-all/);
    assert.equal(await page.locator('[data-legend="expert"]').isHidden(), false);
    assert.ok((await hoverGroups(page)).includes('ep'));
    // The form says how many parameters each token uses.
    assert.match(await page.locator('details.advanced').textContent(), /active per token/);
  });

  test('the book model with Expert on: the core keeps it with a warning, nothing split', async () => {
    const { page } = lab;
    await open(page);
    await setField(page, 'model', 'book-16b');
    await check(page, 'expert', true);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.warnings li')].some((li) =>
        li.textContent.includes('seams.expert is ignored'),
      ),
    );
    assert.equal((await badge(page)).includes('EP'), false);
    await check(page, 'expert', false);
  });

  test("ZeRO with CP: the memory panel says it shards over DP × CP, the core's group", async () => {
    const { page } = lab;
    await page.goto(
      new URL('?advanced=1&context=true&seq_len=8192&degrees=2x2x1x4x1&zero_stage=1', page.url())
        .href,
    );
    await page.waitForSelector('html[data-ready="1"]');
    assert.equal(await badge(page), 'DP×TP×PP×CP = 2×2×1×4 = 16');
    assert.match(
      await page.locator('.memory [data-field="breakdown"]').textContent(),
      /ZeRO-1 shards the optimizer states over the 8 data- and context-parallel ranks \(DP × CP\)\./,
    );
  });
});
