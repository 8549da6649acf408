// The lab from the keyboard and the pointer: switches toggle with Space and Enter, the grid is
// one tab stop with arrow keys inside, and focusing or hovering a GPU highlights its groups.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { badgeFor, coreReport, openLab, screenshot, setSeams, useLab } from './harness.mjs';

let env;
let lab;
useLab((opened) => ({ env, lab } = opened));

const badge = (page) => page.locator('.badge').textContent();
const checked = (page, name) =>
  page.getByRole('switch', { name, exact: true }).getAttribute('aria-checked');
const focusedName = (page) => page.evaluate(() => document.activeElement?.textContent?.trim());

// Which highlight each tile carries (self, tp, pp, dp or none), by rank.
const highlights = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('.gpu-grid g.gpu')].map((g) => g.dataset.hl ?? 'none'),
  );

// The groups of a GPU, read off the core's ranks.
function groupsOf(report, rank) {
  const me = report.ranks[rank];
  const same = (keys) =>
    report.ranks.filter((q) => keys.every((k) => q[k] === me[k])).map((q) => q.rank);
  return { tp: same(['dp', 'pp']), pp: same(['dp', 'tp']), dp: same(['tp', 'pp']) };
}

function expectedHighlights(report, rank) {
  const hl = Array(report.gpus).fill('none');
  const g = groupsOf(report, rank);
  for (const key of ['tp', 'pp', 'dp']) for (const q of g[key]) hl[q] = key;
  hl[rank] = 'self';
  return hl;
}

describe('keyboard and pointer', () => {
  test('Tab reaches the switches in order; Space and Enter toggle them', async () => {
    const { page } = lab;
    await page.keyboard.press('Tab');
    assert.equal(await focusedName(page), 'Data parallel');
    await page.keyboard.press('Tab');
    assert.equal(await focusedName(page), 'Tensor parallel');
    assert.equal(await checked(page, 'Tensor parallel'), 'false');

    await page.keyboard.press('Space');
    assert.equal(await checked(page, 'Tensor parallel'), 'true');
    const dt = await coreReport({ data: true, tensor: true, pipeline: false });
    await page.waitForFunction(
      (t) => document.querySelector('.badge').textContent === t,
      badgeFor(dt),
    );

    await page.keyboard.press('Tab');
    assert.equal(await focusedName(page), 'Pipeline parallel');
    await page.keyboard.press('Enter');
    assert.equal(await checked(page, 'Pipeline parallel'), 'true');
    await page.waitForFunction(
      (t) => document.querySelector('.badge').textContent === t,
      'DP×TP×PP = 2×4×2 = 16',
    );

    await page.getByRole('switch', { name: 'Data parallel', exact: true }).focus();
    await page.keyboard.press('Enter');
    assert.equal(await checked(page, 'Data parallel'), 'false');
    const tp = await coreReport({ data: false, tensor: true, pipeline: true });
    await page.waitForFunction(
      (t) => document.querySelector('.badge').textContent === t,
      badgeFor(tp),
    );
    await page.keyboard.press('Space');
    assert.equal(await checked(page, 'Data parallel'), 'true');
    await page.waitForFunction(
      (t) => document.querySelector('.badge').textContent === t,
      'DP×TP×PP = 2×4×2 = 16',
    );
    assert.notEqual(await badge(page), badgeFor(tp));
  });

  test('focusing a GPU highlights its TP group, pipeline and DP group and names them', async () => {
    const { page } = lab;
    const report = await coreReport({ data: true, tensor: true, pipeline: true });
    await page.getByRole('switch', { name: 'Pipeline parallel', exact: true }).focus();
    // The grid comes right after the switches (no warning in this state: the strip has no
    // button); the nesting order, the book's fleet and Advanced come after the wire cards.
    await page.keyboard.press('Tab'); // into the grid: one tab stop, at GPU 0
    assert.equal(await page.evaluate(() => document.activeElement.dataset.rank), '0');
    assert.deepEqual(await highlights(page), expectedHighlights(report, 0));

    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.rank), '5');
    assert.deepEqual(await highlights(page), expectedHighlights(report, 5));
    const readout = await page.locator('.readout').textContent();
    const g = groupsOf(report, 5);
    assert.match(
      readout,
      /GPU 5 \(node 0\) is data-parallel replica 0, pipeline stage 1, tensor slice 1/,
    );
    assert.match(
      readout,
      new RegExp(`tensor-parallel group \\(solid\\): GPUs ${g.tp[0]}–${g.tp.at(-1)}`),
    );
    assert.match(readout, new RegExp(`pipeline \\(dashed\\): GPUs ${g.pp.join(', ')}`));
    assert.match(readout, new RegExp(`data-parallel group \\(dotted\\): GPUs ${g.dp.join(', ')}`));

    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.rank), '13');
    await page.keyboard.press('Tab'); // leaving the grid clears the highlight
    assert.deepEqual(await highlights(page), Array(16).fill('none'));
    await page.keyboard.press('Shift+Tab'); // and coming back returns to the last GPU
    assert.equal(await page.evaluate(() => document.activeElement.dataset.rank), '13');
    await page.locator('h1').click();
  });

  test('hovering a GPU highlights its groups too', async () => {
    const { page } = lab;
    const report = await coreReport({ data: true, tensor: true, pipeline: true });
    await page.hover('.gpu-grid rect.tile[data-rank="10"]');
    assert.deepEqual(await highlights(page), expectedHighlights(report, 10));
    await page.mouse.move(1, 1);
    assert.deepEqual(await highlights(page), Array(16).fill('none'));
  });

  test('dark colour scheme renders, all three on', async () => {
    const dark = await openLab(env, { colorScheme: 'dark' });
    const report = await coreReport({ data: true, tensor: true, pipeline: true });
    await setSeams(dark.page, { data: true, tensor: true, pipeline: true }, badgeFor(report));
    const bg = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(22, 23, 27)');
    await screenshot(dark.page, 'all-three-dark', { fullPage: true });
    assert.deepEqual(dark.problems, []);
    await dark.close();
  });

  test('no error along the way', () => assert.deepEqual(lab.problems, []));
});
