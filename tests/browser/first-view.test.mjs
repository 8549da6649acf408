// The book's first view: at 1280 × 800 the switches, the badge, the whole 16-GPU grid, memory per
// GPU with whether it fits and the three wire cards are all on the first screen, with the nesting
// order, the book's fleet and "Try it" after them; at 390 × 844 the switches, the badge and a
// compact readout stay in view as the reader scrolls; and nothing moves, loading or toggling:
// the layout shifts Chromium reports (PerformanceObserver 'layout-shift', every one, even those
// right after an input that the CLS score forgives) are none, in every seam and order state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { openPage, startBrowser } from './harness.mjs';
import { settle } from './measure.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env?.close());

// Records every layout shift from the page's start (an init script, so the load's are in).
const watchShifts = () => {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const nodes = e.sources.map((s) => {
        const n = s.node;
        if (!n) return '?';
        const el = n.nodeType === 1 ? n : n.parentElement;
        return `${el?.tagName.toLowerCase()}.${[...(el?.classList ?? [])].join('.')}`;
      });
      window.__shifts.push(`${e.value.toFixed(4)} at ${Math.round(e.startTime)} ms: ${nodes}`);
    }
  }).observe({ type: 'layout-shift', buffered: true });
};
const shifts = (page) => page.evaluate(() => window.__shifts);

const box = (page, selector) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  });

async function openView(path, viewport, touch = false) {
  const context = await env.browser.newContext({
    viewport,
    reducedMotion: 'reduce',
    ...(touch ? { hasTouch: true, isMobile: true } : {}),
  });
  const lab = await openPage(env, path, { context, init: watchShifts });
  return {
    ...lab,
    async done() {
      await lab.close();
      await context.close();
    },
  };
}

const SWITCHES = ['Data parallel', 'Tensor parallel', 'Pipeline parallel'];
const ORDERS = ['tp,pp,dp', 'dp,pp,tp', 'pp,tp,dp'];

// Every seam combination (each switch flipped in turn, twice round) in each of three orders.
async function toggleEverything(page) {
  for (const order of ORDERS) {
    await page.locator('[data-state="order"]').selectOption(order);
    await settle(page);
    for (let i = 0; i < 6; i++) {
      await page.getByRole('switch', { name: SWITCHES[i % 3], exact: true }).click();
      await settle(page);
    }
  }
  await page.locator('[data-state="order"]').selectOption('tp,pp,dp');
  await settle(page);
}

describe('1280 × 800', () => {
  test('the seed: switches, badge, both nodes, memory and the three wire cards on one screen', async () => {
    for (const path of ['', '?seams=data,tensor,pipeline', '?seams=none&order=dp,pp,tp']) {
      const view = await openView(path, { width: 1280, height: 800 });
      const { page } = view;
      const parts = {
        switches: '[data-part="switches"]',
        badge: '[data-part="badge"]',
        grid: '.gpu-grid',
        memory: '[data-part="memory"]',
        fit: '.memory .fit',
        data: '.wire > li[data-seam="data"]',
        tensor: '.wire > li[data-seam="tensor"]',
        pipeline: '.wire > li[data-seam="pipeline"]',
      };
      let lowest = 0;
      for (const [name, selector] of Object.entries(parts)) {
        const b = await box(page, selector);
        assert.ok(b.top >= 0 && b.bottom <= 800, `${path}: ${name} at ${b.top}-${b.bottom}`);
        assert.ok(b.left >= 0 && b.right <= 1280, `${path}: ${name} at x ${b.left}-${b.right}`);
        lowest = Math.max(lowest, b.bottom);
      }
      // Both nodes: the grid's sixteen tiles.
      assert.equal(await page.locator('.gpu-grid rect.tile').count(), 16);
      for (const rank of [0, 15]) {
        const b = await box(page, `.gpu-grid rect.tile[data-rank="${rank}"]`);
        assert.ok(b.bottom <= 800, `GPU ${rank} at ${b.bottom}`);
      }
      for (const after of [
        '[data-part="order"]',
        '[data-part="fleet"]',
        '[data-part="exercises"]',
      ]) {
        const b = await box(page, after);
        assert.ok(b.top >= lowest, `${after} at ${b.top}, above ${lowest}`);
      }
      assert.deepEqual(await shifts(page), [], `${path}: layout shifts while loading`);
      assert.deepEqual(view.problems, []);
      await view.done();
    }
  });

  test('nothing moves, loading or toggling every seam and order', async () => {
    const view = await openView('', { width: 1280, height: 800 });
    const { page } = view;
    await toggleEverything(page);
    // A fact comes and goes in the strip (no seam on): its list opens over the page below it.
    await page.getByRole('switch', { name: 'Data parallel', exact: true }).click();
    await settle(page);
    await page.locator('.warn-more > summary').click();
    await settle(page);
    assert.equal(await page.locator('.warn-facts li').first().isVisible(), true);
    assert.deepEqual(await shifts(page), []);
    assert.deepEqual(view.problems, []);
    await view.done();
  });
});

describe('390 × 844', () => {
  test('switches, badge and the compact readout stay in view down to the wire cards', async () => {
    const view = await openView('', { width: 390, height: 844 }, true);
    const { page } = view;
    const status = page.locator('.book-status');
    assert.equal(await status.isVisible(), true);
    for (const [target, seam] of [
      ['.memory', 'Tensor parallel'],
      ['.wire > li[data-seam="pipeline"]', 'Pipeline parallel'],
    ]) {
      await page.locator(target).scrollIntoViewIfNeeded();
      await settle(page);
      await page.getByRole('switch', { name: seam, exact: true }).tap();
      await settle(page);
      for (const selector of ['[data-part="switches"]', '[data-part="badge"]', '.book-status']) {
        const b = await box(page, selector);
        assert.ok(b.top >= 0 && b.bottom <= 844, `${selector} at ${b.top}-${b.bottom}`);
      }
    }
    // All three now: the readout names the memory, whether it fits and the busiest seam.
    assert.match(await status.textContent(), /^32 GB per GPU ✓ fits · TP sends the most: /);
    assert.deepEqual(view.problems, []);
    await view.done();
  });

  test('nothing moves, loading or toggling every seam and order', async () => {
    const view = await openView('', { width: 390, height: 844 }, true);
    const { page } = view;
    await toggleEverything(page);
    assert.deepEqual(await shifts(page), []);
    assert.deepEqual(view.problems, []);
    await view.done();
  });
});
