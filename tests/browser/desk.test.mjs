// The planning desk: Compare (pins in the table and the URL, every
// number the core's), the sticky summary (goodput too) beside the Advanced form at 1280×900, explanations
// that follow ZeRO, the PNG's title and legend, closing Advanced keeps the sized run and says
// so, a seam switch on an explicit layout says what changed, headings that fit the state, the
// custom element's fallback when its module cannot load.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import { axe, mathText, openLab, openPage, settledUrl, startBrowser } from './harness.mjs';
import { setField, settle } from './measure.mjs';

let env;
let core;
before(async () => {
  const { createLab } = await import('../../web/lab/lab.js');
  const wasmBinary = await readFile(new URL('../../web/lab/lab-module.wasm', import.meta.url));
  core = await createLab({ wasmBinary });
  env = await startBrowser();
});
after(() => env?.close());

const BOOK = { gpus: 16, gpus_per_node: 8 };
const seams = (data, tensor, pipeline) => ({ ...BOOK, seams: { data, tensor, pipeline } });

async function table(page) {
  return page.locator('.compare-table').evaluate((t) => ({
    heads: [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
    rows: Object.fromEntries(
      [...t.querySelectorAll('tbody tr')].map((tr) => [
        tr.dataset.row,
        [...tr.querySelectorAll('td')].map((td) => ({
          value: td.dataset.value === undefined ? null : Number(td.dataset.value),
          text: td.textContent,
          diff: td.classList.contains('diff'),
        })),
      ]),
    ),
  }));
}

async function badge(page, text) {
  await page.waitForFunction((t) => document.querySelector('.badge')?.textContent === t, text);
  await settle(page);
}

describe('compare', () => {
  test('Pin… keeps states beside the current one, from the core, in the URL', async () => {
    const lab = await openLab(env, { path: '?seams=data,tensor,pipeline' });
    const { page } = lab;
    assert.equal(await page.locator('.compare-table').count(), 0);
    const pin = page.getByRole('button', { name: 'Pin…', exact: true });
    await pin.click();
    await settle(page);
    // Tensor off: 4×1×4 now, against the pinned 2×4×2.
    await page.getByRole('switch', { name: 'Tensor parallel', exact: true }).click();
    await badge(page, 'DP×TP×PP = 4×1×4 = 16');
    let t = await table(page);
    assert.deepEqual(
      t.heads.map((h) => h.replace(/\s+/g, ' ')),
      [
        'DP×TP×PP',
        '2×4×2pin 1ZeRO 0 · no recompute · 1F1B',
        '4×1×4currentZeRO 0 · no recompute · 1F1B',
      ],
    );
    const pinned = core.evaluateSummary(seams(true, true, true));
    const now = core.evaluateSummary(seams(true, false, true));
    assert.equal(t.rows['Memory per GPU'][0].value, pinned.memory.per_gpu_bytes);
    assert.equal(t.rows['Memory per GPU'][1].value, now.memory.per_gpu_bytes);
    assert.equal(t.rows['Step time'][0].value, pinned.time.step_s);
    assert.equal(t.rows.MFU[1].value, now.time.mfu);
    assert.equal(t.rows.Bubble[0].value, pinned.pipeline.bubble_fraction);
    assert.equal(t.rows['Cost per day'][1].value, now.cost.usd_per_day);
    // Goodput beside the cost: the share of a day's time that is new work, failures counted.
    assert.equal(t.rows.Goodput[0].value, pinned.goodput.effective_time);
    assert.equal(t.rows.Goodput[1].value, now.goodput.effective_time);
    assert.equal(t.rows.tensor[0].value, pinned.comms.tensor.bytes_per_gpu_per_step);
    assert.equal(t.rows.tensor[1].text, 'idle');
    assert.equal(t.rows['Memory per GPU'][0].diff, true, 'the pinned memory differs: marked');
    assert.match(t.rows['Memory per GPU'][0].text, /(less|more) than now/);
    assert.equal(
      await page
        .locator('.compare-table td.current [data-explain="time.step_s"].explained')
        .count(),
      1,
      "the current state's numbers show their math",
    );
    for (const row of Object.values(t.rows))
      for (const cell of row) assert.doesNotMatch(cell.text, /NaN|undefined|Infinity/);

    // Two more pins, then a fourth is refused with a message; pins are in the URL.
    await pin.click();
    await page.getByRole('switch', { name: 'Pipeline parallel', exact: true }).click();
    await badge(page, 'DP×TP×PP = 16×1×1 = 16');
    await pin.click();
    await settle(page);
    await pin.click();
    assert.match(await page.locator('.compare-status').textContent(), /already pinned/);
    await page.getByRole('switch', { name: 'Data parallel', exact: true }).click();
    await badge(page, 'DP×TP×PP = 1×1×1 = 1');
    await pin.click();
    assert.match(await page.locator('.compare-status').textContent(), /3 states are pinned/);
    t = await table(page);
    assert.equal(t.heads.length, 5);
    const url = await settledUrl(page);
    assert.match(new URL(url).searchParams.get('pins'), /^seams=data.*\|.*\|/);

    // The URL restores the pins and the table.
    const again = await openLab(env, { path: url.slice(env.url.length) });
    assert.deepEqual((await table(again.page)).heads, t.heads);
    // Unpin the first.
    await again.page.getByRole('button', { name: 'Unpin pin 1 (2×4×2)' }).click();
    await settle(again.page);
    assert.equal((await table(again.page)).heads.length, 4);
    // Show a pin: it becomes the current state, the pins stay.
    await again.page
      .getByRole('button', { name: 'Show pin 1 (4×1×4) as the current state' })
      .click();
    await badge(again.page, 'DP×TP×PP = 4×1×4 = 16');
    assert.equal((await table(again.page)).heads.length, 4);
    assert.deepEqual(again.problems, []);
    await again.close();
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a pin the core refuses shows as refused, never NaN', async () => {
    const lab = await openLab(env, { path: '?pins=gpus%3D16%26advanced%3D1%26degrees%3D3x1x1' });
    const t = await table(lab.page);
    assert.match(t.heads[1], /refused/);
    for (const row of Object.values(t.rows)) assert.equal(row[0].text, '—');
    assert.ok(await lab.page.locator('.compare-table tfoot .error-text').count());
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('layout', () => {
  test('at 1280×900 the summary stays in view beside the ZeRO control', async () => {
    const lab = await openLab(env, {
      path: '?advanced=1&gpus=64&model=llama3-8b',
      viewport: { width: 1280, height: 900 },
    });
    const { page } = lab;
    const zero = page.locator('details.advanced [data-state="zero_stage"]');
    await zero.scrollIntoViewIfNeeded();
    await setField(page, 'zero_stage', '3');
    const box = await page.locator('.desk-summary').boundingBox();
    const control = await zero.boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 900, `summary at ${box.y}`);
    assert.ok(control.y >= 0 && control.y + control.height <= 900, `ZeRO at ${control.y}`);
    const report = core.evaluateSummary({
      gpus: 64,
      model: 'llama3-8b',
      memory_model: 'full',
      zero_stage: 3,
    });
    const field = (k) =>
      page.locator(`.desk-summary [data-field="${k}"]`).evaluate((el) => Number(el.dataset.value));
    assert.equal(await field('memory'), report.memory.per_gpu_bytes);
    assert.equal(await field('step'), report.time.step_s);
    assert.equal(await field('mfu'), report.time.mfu);
    assert.equal(await field('cost'), report.cost.usd_per_day);
    // Goodput beside them; the day of the run is the planning desk's alone.
    assert.equal(await field('goodput'), report.goodput.effective_time);
    assert.equal(await page.locator('[data-part="goodput"]').isVisible(), false);
    // The summary's numbers show their math by keyboard, as the panels' do.
    await page.locator('.desk-summary [data-field="step"]').focus();
    await page.keyboard.press('Enter');
    assert.match(await mathText(page), / s = /);
    await page.keyboard.press('Escape');
    // The explanations follow ZeRO.
    const dpNote = await page.locator('.memory [data-field="dp-note"]').textContent();
    assert.match(dpNote, /ZeRO-3.*weights, gradients and optimizer states/);
    assert.doesNotMatch(dpNote, /does not shrink/);
    const dataCard = await page.locator('.wire [data-seam="data"] p.book').textContent();
    assert.match(dataCard, /reduce-scatter/);
    assert.match(dataCard, /all-gather/);
    assert.match(
      await page.locator('.memory [data-field="shard-label"]').textContent(),
      /ZeRO not counted/,
    );
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('the PNG carries a title and the legend', async () => {
    const lab = await openLab(env, { path: '?seams=data,tensor,pipeline' });
    const figure = await lab.page.evaluate(async () => {
      const { composeFigure, legendRows } = await import('/js/lib/figure.js');
      const rows = legendRows(document.querySelector('.legend'));
      const f = composeFigure(
        {
          text: '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"></svg>',
          width: 100,
          height: 50,
        },
        { title: 'A title', legend: rows, background: 'white', foreground: 'black' },
      );
      return { text: f.text, rows: rows.length };
    });
    assert.ok(figure.rows >= 4, `${figure.rows} legend rows`);
    assert.match(figure.text, />A title<\/text>/);
    assert.match(figure.text, />P0<\/text>/);
    assert.match(figure.text, /pipeline stage = hue/);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('no silent state changes', () => {
  test('closing Advanced keeps the sized run and says so; reopening restores it', async () => {
    const lab = await openLab(env, { path: '?advanced=1&gpus=64&model=llama3-8b' });
    const { page } = lab;
    await page.locator('details.advanced > summary').click();
    await badge(page, 'DP×TP×PP = 16×1×1 = 16');
    const kept = page.locator('.kept-run');
    await kept.waitFor();
    assert.match(await kept.textContent(), /64 GPUs.*llama3-8b.*kept/);
    await page.getByRole('button', { name: 'Reopen the sized run' }).click();
    await page.waitForFunction(() => document.querySelector('details.advanced').open);
    await settle(page);
    assert.equal(await kept.isHidden(), true);
    assert.match(await page.locator('.badge').textContent(), /= 64$/);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a seam switch on an explicit layout says what changed; the heading fits', async () => {
    const lab = await openLab(env, {
      path: '?advanced=1&gpus=10240&degrees=80x8x16&global_batch=2560',
    });
    const { page } = lab;
    const title = () => page.locator('.pe-lab h2 .title-text').textContent();
    assert.match(await title(), /80×8×16 set explicitly on 10,240 GPUs/);
    assert.doesNotMatch(await title(), /auto-factor to/);
    const notice = await page.locator('.notice').textContent();
    assert.doesNotMatch(notice, /small enough to see/);
    assert.match(notice, /10,240 GPUs, too many for a tile each/);
    await page.getByRole('switch', { name: 'Tensor parallel', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('.change-note').textContent !== '');
    assert.match(
      await page.locator('.change-note').textContent(),
      /Tensor parallel switched off: the explicit layout 80×8×16 gave way to auto-factoring/,
    );
    assert.match(await title(), /auto-factor to/);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('embedding', () => {
  test('the custom element says so when its module cannot load', async () => {
    const context = await env.browser.newContext();
    await context.route('**/js/app/embed.js', (route) => route.abort());
    const page = await context.newPage();
    await page.goto(new URL('examples/element.html', env.url).href);
    await page.waitForSelector('parallelism-explorer[data-failed]', { timeout: 30_000 });
    const text = await page
      .locator('parallelism-explorer')
      .first()
      .evaluate((el) => el.shadowRoot.querySelector('.pe-placeholder').textContent);
    assert.match(text, /could not load/);
    await context.close();
  });

  test('the snippet and web/README.md carry allow="clipboard-write"', async () => {
    const readme = await readFile(new URL('../../web/README.md', import.meta.url), 'utf8');
    for (const [frame] of readme.matchAll(/<iframe[^>]*>/g))
      assert.match(frame, /allow="clipboard-write"/);
    const share = await readFile(new URL('../../web/js/app/share-bar.js', import.meta.url), 'utf8');
    assert.match(share, /allow="clipboard-write"/);
  });
});

describe('the grid at scale', () => {
  test('64 GPUs: labels readable, the readout in view, the labels explained', async () => {
    const lab = await openLab(env, {
      path: '?advanced=1&gpus=64&seams=data,tensor,pipeline',
      viewport: { width: 1280, height: 900 },
    });
    const { page } = lab;
    const label = await page
      .locator('.gpu-grid text.tile-coords')
      .first()
      .evaluate((t) => t.getBoundingClientRect().height);
    assert.ok(label >= 10, `a tile's label is ${label} px tall`);
    for (const rank of [3, 60]) {
      const tile = page.locator(`.gpu-grid rect.tile[data-rank="${rank}"]`);
      await tile.scrollIntoViewIfNeeded();
      await tile.hover();
      await settle(page);
      const title = page.locator('.readout-title');
      assert.match(await title.textContent(), new RegExp(`^GPU ${rank} `));
      const box = await title.boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= 900, `readout at ${box.y} for GPU ${rank}`);
    }
    const labels = page.locator('.legend [data-legend="labels"]');
    assert.equal(await labels.isVisible(), true);
    assert.match(await labels.textContent(), /D0 = data-parallel replica 0.*P = pipeline/s);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test("10,240 GPUs: the fleet map's readout is in view beside the map", async () => {
    const lab = await openLab(env, {
      path: '?advanced=1&gpus=10240&degrees=80x8x16&global_batch=2560',
      viewport: { width: 1280, height: 900 },
    });
    const { page } = lab;
    const map = page.locator('svg.fleet');
    await map.scrollIntoViewIfNeeded();
    const b = await map.boundingBox();
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
    await settle(page);
    const title = page.locator('.readout-title');
    assert.match(await title.textContent(), /^GPU \d+ /);
    const box = await title.boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 900, `readout at ${box.y}`);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('stage hues stay apart up to 16 stages; past that the labels name the stage', async () => {
    const lab = await openLab(env, { path: '?advanced=1&gpus=32&degrees=1x1x32' });
    const { page } = lab;
    const distance = await page.evaluate(async () => {
      const { tileColour } = await import('/js/lib/grid-common.js');
      const lab = (s) => {
        const [l, c, h] = /oklch\(([\d.]+) ([\d.]+) ([\d.]+)\)/.exec(s).slice(1).map(Number);
        return [l, c * Math.cos((h * Math.PI) / 180), c * Math.sin((h * Math.PI) / 180)];
      };
      const colours = Array.from({ length: 16 }, (_, s) => lab(tileColour(s, 16, 0, 1).fill));
      let least = Infinity;
      for (let i = 0; i < 16; i++)
        for (let j = i + 1; j < 16; j++)
          least = Math.min(least, Math.hypot(...colours[i].map((v, k) => v - colours[j][k])));
      return least;
    });
    assert.ok(distance >= 0.04, `closest two of 16 stage hues: OKLab distance ${distance}`);
    assert.match(
      await page.locator('.gpu-grid rect.tile[data-rank="17"] + text + text').textContent(),
      /P17/,
    );
    assert.match(
      await page.locator('.legend [data-legend="stage"] .legend-note').textContent(),
      /32 stages.*P number/,
    );
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});

describe('axe with the desk open', () => {
  // Both schemes on one page, switched in place (emulateMedia; the colours are CSS light-dark()
  // pairs): a page for each cost a load, a pin and a field more. It ends light, as it came.
  const axeBoth = async (page, what) => {
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      await settle(page);
      assert.deepEqual(await axe(page), [], `${what} (${colorScheme})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };

  test('pins, summary and notes are axe-clean, light and dark', async () => {
    const lab = await openPage(env, '?advanced=1&gpus=64&zero_stage=1', { colorScheme: 'light' });
    await lab.page.getByRole('button', { name: 'Pin…', exact: true }).click();
    await setField(lab.page, 'zero_stage', '3');
    assert.equal(await lab.page.locator('.compare-table').count(), 1);
    await axeBoth(lab.page, 'open, a run pinned');
    await lab.page.locator('details.advanced > summary').click();
    await lab.page.locator('.kept-run').waitFor();
    await axeBoth(lab.page, 'closed, the kept run');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});
