// Accessibility and comfort: axe-core (injected offline) in light and dark for the default
// state, all three seams on (with a GPU highlighted) and no seam on, with the theme option and
// on the embed examples; 320 px and 200% zoom without horizontal scrolling; every control
// reached by Tab with a visible focus; polite, debounced announcements; the grid's layout in
// words; reduced motion.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  axe,
  badgeFor,
  coreReport,
  openLab,
  openPage,
  screenshot,
  setSeams,
  startBrowser,
} from './harness.mjs';
import { settle } from './measure.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env?.close());

const STATES = [
  { name: 'default', data: true, tensor: false, pipeline: false },
  { name: 'all three, GPU 5 highlighted', data: true, tensor: true, pipeline: true, hover: 5 },
  { name: 'no seam', data: false, tensor: false, pipeline: false },
];

// Each state in both schemes on one page, the scheme switched in place (emulateMedia; the
// colours are CSS light-dark() pairs): a page for each scheme cost a load and the states again.
// It ends light, as the pool's page came.
test('no axe violations, light and dark', async () => {
  const lab = await openLab(env, { colorScheme: 'light' });
  for (const state of STATES) {
    await setSeams(lab.page, state, badgeFor(await coreReport(state)));
    if (state.hover !== undefined)
      await lab.page.hover(`.gpu-grid rect.tile[data-rank="${state.hover}"]`);
    for (const colorScheme of ['light', 'dark']) {
      await lab.page.emulateMedia({ colorScheme });
      await settle(lab.page);
      assert.deepEqual(await axe(lab.page), [], `${state.name} (${colorScheme})`);
    }
    await lab.page.emulateMedia({ colorScheme: 'light' });
  }
  assert.deepEqual(lab.problems, []);
  await lab.close();
});

test('the theme option beats the system setting; axe with a note showing, both ways', async () => {
  for (const [colorScheme, theme, panel] of [
    ['light', 'dark', 'rgb(31, 32, 38)'],
    ['dark', 'light', 'rgb(255, 255, 255)'],
  ]) {
    const lab = await openLab(env, {
      colorScheme,
      path: `?theme=${theme}&seams=data,tensor,pipeline&colour=red`,
    });
    const root = lab.page.locator('.pe-lab');
    assert.equal(await root.evaluate((el) => getComputedStyle(el).backgroundColor), panel, theme);
    assert.equal(await lab.page.locator('.pe-notes-body').isVisible(), true);
    assert.deepEqual(await axe(lab.page), [], `${theme} lab on a ${colorScheme} page`);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  }
});

test('the embed examples in dark: no axe violations', async () => {
  for (const [path, ready] of [
    ['examples/module.html', 'html[data-ready="1"]'],
    ['examples/element.html', '#near[data-ready]'],
    ['examples/iframe.html', 'iframe'],
  ]) {
    const view = await openPage(env, path, { colorScheme: 'dark', ready });
    if (path.includes('element')) {
      await view.page.locator('#far').scrollIntoViewIfNeeded();
      await view.page.waitForSelector('#far[data-ready]');
    }
    if (path.includes('iframe')) {
      await view.page.frameLocator('iframe').locator('html[data-ready="1"]').waitFor();
      assert.deepEqual(await axe(view.page.frames()[1]), [], `${path}: inside the iframe`);
    }
    assert.deepEqual(await axe(view.page), [], path);
    assert.deepEqual(view.problems, [], path);
    await view.close();
  }
});

// No horizontal page scroll: the page is no wider than the viewport (tables may scroll inside).
const pageWidth = (page) => page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);

test('readable at 320 px: no horizontal scroll, four tiles a row, in every view', async () => {
  for (const [path, shot] of [
    ['?seams=data,tensor,pipeline', 'narrow-320'],
    ['?seams=data,tensor,pipeline&advanced=1', null],
    ['?advanced=1&gpus=10240&degrees=80x8x16&global_batch=2560', null],
    ['examples/module.html', null],
    ['examples/iframe.html', null],
  ]) {
    for (const colorScheme of shot ? ['light', 'dark'] : ['light']) {
      const view = await openPage(env, path, {
        viewport: { width: 320, height: 800 },
        colorScheme,
        ready: path.includes('iframe') ? 'iframe' : undefined,
      });
      if (path.includes('iframe'))
        await view.page.frameLocator('iframe').locator('html[data-ready="1"]').waitFor();
      await settle(view.page);
      const [scroll, width] = await pageWidth(view.page);
      assert.ok(scroll <= width, `${path}: ${scroll} px of content in ${width} px`);
      if (path === '?seams=data,tensor,pipeline') {
        const tile = await view.page.locator('.gpu-grid rect.tile').first().boundingBox();
        assert.ok(tile.width >= 40, `a tile is ${tile.width} px wide`);
      }
      if (shot) {
        await screenshot(view.page, `${shot}${colorScheme === 'dark' ? '-dark' : ''}`, {
          fullPage: true,
        });
      }
      assert.deepEqual(view.problems, [], path);
      await view.close();
    }
  }
});

test('readable at 200% zoom (1280 × 900 at 200%: 640 CSS px, device scale 2)', async () => {
  for (const path of ['?seams=data,tensor,pipeline', '?seams=data,tensor,pipeline&advanced=1']) {
    const view = await openPage(env, path, {
      viewport: { width: 640, height: 450 },
      deviceScaleFactor: 2,
    });
    await settle(view.page);
    const [scroll, width] = await pageWidth(view.page);
    assert.ok(scroll <= width, `${path}: ${scroll} px of content in ${width} px`);
    if (!path.includes('advanced')) {
      await screenshot(view.page, 'zoom-200', { fullPage: true });
    }
    assert.deepEqual(view.problems, []);
    await view.close();
  }
});

test('every control is reached by Tab and shows a visible focus', async () => {
  const lab = await openLab(env, { path: '?seams=data,tensor,pipeline&advanced=1' });
  const { page } = lab;
  await page.locator('button.run-planner').click();
  await page.waitForSelector('table.plans:not([hidden])');
  // Try it's questions load as the reader comes near them (embed.js): bring them in first.
  await page.locator('[data-part="exercises"]').evaluate((el) => el.scrollIntoView());
  await page.locator('.exercise-list').waitFor();
  // What a keyboard user must be able to reach: every visible control in the lab.
  const expected = await page.evaluate(() => {
    const lab = document.querySelector('.pe-lab');
    // A radio group is one tab stop (the arrow keys move inside it): its first radio stands
    // for it.
    const firstRadio = (el) =>
      el.type !== 'radio' || lab.querySelector(`input[type="radio"][name="${el.name}"]`) === el;
    const all = [
      ...lab.querySelectorAll('button, input, select, textarea, summary, a[href], [tabindex="0"]'),
    ].filter((el) => el.getClientRects().length > 0 && !el.disabled && firstRadio(el));
    all.forEach((el, i) => {
      el.dataset.tabProbe = String(i);
    });
    return all.length;
  });
  // From the keyboard (a focus() after a click would not count as keyboard focus).
  await page.getByRole('switch', { name: 'Tensor parallel', exact: true }).focus();
  await page.keyboard.press('Shift+Tab');
  const seen = new Map();
  for (let i = 0; i < expected + 10; i++) {
    const focus = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el?.closest('.pe-lab')) return null;
      const cs = getComputedStyle(el);
      const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2;
      const stroke = el instanceof SVGElement && parseFloat(cs.strokeWidth) >= 4;
      return {
        probe: el.dataset.tabProbe ?? el.getAttribute('data-tab-probe'),
        name: el.textContent?.trim().slice(0, 40) || el.tagName,
        visible: outline || stroke,
      };
    });
    if (!focus) break;
    seen.set(focus.probe, focus);
    await page.keyboard.press('Tab');
  }
  const missing = [];
  for (let i = 0; i < expected; i++) if (!seen.has(String(i))) missing.push(i);
  assert.deepEqual(missing, [], 'every control reached');
  assert.deepEqual(
    [...seen.values()].filter((f) => !f.visible).map((f) => f.name),
    [],
    'a visible focus on each',
  );
  assert.ok(expected > 40, `${expected} controls`);
  assert.deepEqual(lab.problems, []);
  await lab.close();
});

test('changes are announced politely, once per burst of clicks', async () => {
  const lab = await openLab(env);
  const { page } = lab;
  const announcer = page.locator('.pe-announce');
  assert.equal(await announcer.getAttribute('aria-live'), 'polite');
  await page.evaluate(() => {
    window.__announced = [];
    new MutationObserver(() =>
      window.__announced.push(document.querySelector('.pe-announce').textContent),
    ).observe(document.querySelector('.pe-announce'), {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  const tensor = page.getByRole('switch', { name: 'Tensor parallel', exact: true });
  for (let i = 0; i < 3; i++) await tensor.click();
  await page.waitForFunction(() => window.__announced.length > 0);
  await page.waitForTimeout(900);
  assert.deepEqual(await page.evaluate(() => window.__announced), [
    '16 GPUs in 2 nodes: 4 data-parallel replicas × 4 tensor slices × 1 pipeline stage. ' +
      '64 GB per GPU: fits the 80 GB GPU.',
  ]);
  assert.deepEqual(lab.problems, []);
  await lab.close();
});

test('the grid says its layout in words, and points to them', async () => {
  const lab = await openLab(env, { path: '?seams=data,tensor,pipeline' });
  const { page } = lab;
  const caption = page.locator('.layout-text');
  assert.equal(
    await caption.textContent(),
    '16 GPUs in 2 nodes: 2 data-parallel replicas × 4 tensor slices × 2 pipeline stages.',
  );
  assert.equal(
    await page.locator('.gpu-grid').getAttribute('aria-describedby'),
    await caption.getAttribute('id'),
  );
  await setSeams(page, { data: false, tensor: false, pipeline: false }, 'DP×TP×PP = 1×1×1 = 1');
  assert.equal(
    await caption.textContent(),
    '16 GPUs in 2 nodes: 1 data-parallel replica × 1 tensor slice × 1 pipeline stage on 1 GPU, 15 idle.',
  );
  assert.deepEqual(lab.problems, []);
  await lab.close();
});

test('reduced motion is respected', async () => {
  for (const [reducedMotion, duration] of [
    ['no-preference', '0.15s'],
    ['reduce', '0s'],
  ]) {
    const lab = await openLab(env, { reducedMotion });
    assert.equal(
      await lab.page
        .locator('.switch-track')
        .first()
        .evaluate((el) => getComputedStyle(el).transitionDuration),
      duration,
      reducedMotion,
    );
    await lab.close();
  }
});
