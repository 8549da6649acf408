// Sharing: every state the page reaches is written to its query string (throttled
// history.replaceState) and opening that URL restores it exactly; refused URL values fall back
// with a note; "Copy link" and "Copy embed snippet" copy what restores the state; the report
// and the grid download as JSON, SVG and PNG.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import { openLab, settledForClick, settledUrl, startBrowser } from './harness.mjs';
import { openFleet, setField, settle } from './measure.mjs';

let env;
let core;
before(async () => {
  const { createLab } = await import('../../web/lab/lab.js');
  const wasmBinary = await readFile(new URL('../../web/lab/lab-module.wasm', import.meta.url));
  core = await createLab({ wasmBinary });
  env = await startBrowser();
});
after(() => env?.close());

// Everything a reader sees of one lab, including every field of the advanced form that shows.
export function snapshot(page, root = '.pe-lab') {
  return page
    .locator(root)
    .first()
    .evaluate((el) => {
      const q = (s) => el.querySelector(s);
      const fields = {};
      for (const input of el.querySelectorAll('details.advanced [data-state]')) {
        if (input.closest('.field').hidden) continue;
        fields[input.dataset.state] = input.type === 'checkbox' ? input.checked : input.value;
      }
      return {
        switches: [...el.querySelectorAll('button[role="switch"]')].map((b) =>
          b.getAttribute('aria-checked'),
        ),
        open: q('details.advanced').open,
        badge: q('.badge').textContent,
        perGpu: q('[data-field="per-gpu"]').dataset.value,
        layout: q('.layout-text').textContent,
        warnings: [...el.querySelectorAll('.warnings li')].map((li) => li.textContent),
        facts: [...el.querySelectorAll('.warn-facts li')].map((li) => li.textContent),
        fields: q('details.advanced').open ? fields : null,
        step: q('details.advanced').open ? q('.steptime .big')?.dataset.value : null,
        errors: [...el.querySelectorAll('.error:not([hidden])')].map((e) => e.textContent),
      };
    });
}

const open = async (page) => {
  if (!(await page.locator('details.advanced').evaluate((d) => d.open))) {
    await page.locator('details.advanced > summary').click();
  }
  await page.waitForSelector('.advanced-out .breakdown');
  await settle(page);
};

// Reaches a state by hand, then checks its URL (its query, when given) and that a fresh page
// opened at it shows exactly the same.
async function roundTrip(name, steps, { query, alsoOpen = false } = {}) {
  const lab = await openLab(env);
  await steps(lab.page);
  const url = await settledUrl(lab.page);
  if (process.env.PE_SHOW_URLS) console.log(name, new URL(url).search);
  if (query !== undefined) assert.equal(new URL(url).search, query, name);
  const shown = await snapshot(lab.page);
  const again = await openLab(env, { path: url });
  assert.deepEqual(await snapshot(again.page), shown, name);
  assert.equal(await settledUrl(again.page), url, `${name}: the URL is already canonical`);
  if (alsoOpen) {
    // values kept while the section is closed come back too
    await open(lab.page);
    await open(again.page);
    assert.deepEqual(await snapshot(again.page), await snapshot(lab.page), `${name}, opened`);
  }
  assert.deepEqual(lab.problems, [], name);
  assert.deepEqual(again.problems, [], name);
  await lab.close();
  await again.close();
  return url;
}

const click = (page, name) => page.getByRole('switch', { name, exact: true }).click();

describe('the URL', () => {
  test("the book's states: nothing for the default, the seams as a list", async () => {
    await roundTrip('default', async () => {}, { query: '' });
    await roundTrip(
      'all seams',
      async (page) => {
        await click(page, 'Tensor parallel');
        await click(page, 'Pipeline parallel');
      },
      { query: '?seams=data,tensor,pipeline' },
    );
    await roundTrip('no seam', (page) => click(page, 'Data parallel'), { query: '?seams=none' });
  });

  test('advanced states round-trip: custom model, GPU, precision, schedule, ZeRO, budget', async () => {
    await roundTrip('custom everything', async (page) => {
      await open(page);
      await setField(page, 'gpus', 64);
      await setField(page, 'gpus_per_node', 4);
      await setField(page, 'model', 'custom');
      await setField(page, 'layers', 32);
      await setField(page, 'hidden', 4096);
      await setField(page, 'heads', 32);
      await setField(page, 'vocab', 32000);
      await setField(page, 'seq_len', 4096);
      await setField(page, 'global_batch', 256);
      await setField(page, 'train_tokens', 300);
      await setField(page, 'gpu', 'custom');
      await setField(page, 'gpu_memory_gb', 40);
      await setField(page, 'network_gb_s', 50);
      await setField(page, 'efficiency', 0.45);
      await setField(page, 'precision', 'custom');
      await setField(page, 'master_bytes', 2);
      await setField(page, 'zero_stage', 2);
      await setField(page, 'recompute', 'selective');
      await page.locator('details.advanced [data-state="sequence_parallel"]').check();
      await setField(page, 'schedule', 'interleaved');
      await setField(page, 'virtual_stages', 4);
      await click(page, 'Pipeline parallel');
    });
  });

  test('a fleet of NVLink domains round-trips: the GPU, its domain and the spine', async () => {
    const url = await roundTrip('GB200 NVL72, domain 36, spine 4:1', async (page) => {
      await open(page);
      await setField(page, 'gpu', 'GB200-NVL72');
      await setField(page, 'gpus', 288);
      await setField(page, 'nvlink_domain_gpus', 36);
      await setField(page, 'network_oversubscription', 4);
    });
    const query = new URL(url).searchParams;
    assert.equal(query.get('gpu'), 'GB200-NVL72');
    assert.equal(query.get('nvlink_domain_gpus'), '36');
    assert.equal(query.get('network_oversubscription'), '4');
    // The domain left to the GPU's system (empty) stays out of the URL.
    const system = await roundTrip('GB200 NVL72, its own domain', async (page) => {
      await open(page);
      await setField(page, 'gpu', 'GB200-NVL72');
      await setField(page, 'network_oversubscription', 2);
    });
    assert.equal(new URL(system).searchParams.has('nvlink_domain_gpus'), false);
    assert.equal(new URL(system).searchParams.get('network_oversubscription'), '2');
  });

  test("an explicit layout, the book's fleet, and values kept while the section is closed", async () => {
    await roundTrip(
      'explicit layout',
      async (page) => {
        await open(page);
        await setField(page, 'degrees', '2x4x2');
      },
      { query: '?advanced=1&degrees=2x4x2' },
    );
    await roundTrip('the fleet preset', (page) => openFleet(page), {
      query: '?advanced=1&gpus=10240&degrees=80x8x16&global_batch=2560',
    });
    await roundTrip(
      'closed, 64 GPUs kept',
      async (page) => {
        await open(page);
        await setField(page, 'gpus', 64);
        await page.locator('details.advanced > summary').click();
        await page.waitForFunction(() =>
          document.querySelector('.badge').textContent.endsWith('= 16'),
        );
      },
      { query: '?advanced=0&gpus=64', alsoOpen: true },
    );
  });

  test('a layout applied from the planner round-trips', async () => {
    await roundTrip('planner row 3', async (page) => {
      await open(page);
      await page.locator('button.run-planner').click();
      await page.waitForSelector('table.plans:not([hidden])');
      await page
        .locator('table.plans tbody tr.layout')
        .nth(2)
        .getByRole('button', { name: /^Use/ })
        .click();
      await settle(page);
    });
  });

  test('writes are throttled: ten quick toggles, a few replaceState calls, the last state', async () => {
    const lab = await openLab(env, {
      init: () => {
        window.__writes = 0;
        const replace = history.replaceState.bind(history);
        history.replaceState = (...args) => {
          window.__writes += 1;
          return replace(...args);
        };
      },
    });
    const sw = lab.page.getByRole('switch', { name: 'Tensor parallel', exact: true });
    await lab.page.evaluate(() => {
      window.__writes = 0;
    });
    // The page's clock, not the machine's: nine toggles a frame (20 ms) apart, 180 ms in all,
    // inside one 250 ms throttle window however long each click takes on a busy machine. One
    // write, then, with the last state; a write per toggle, or per frame, would be nine.
    await lab.page.clock.install();
    await lab.page.clock.pauseAt(Date.now() + 1000);
    for (let i = 0; i < 9; i++) {
      await sw.click({ delay: 0 });
      await lab.page.clock.runFor(20);
    }
    assert.equal(await lab.page.evaluate(() => window.__writes), 0, 'none inside the window');
    await lab.page.clock.runFor(1000);
    await lab.page.clock.resume();
    const url = await settledUrl(lab.page);
    assert.equal(new URL(url).search, '?seams=data,tensor');
    assert.equal(await lab.page.evaluate(() => window.__writes), 1, 'one write for 9 toggles');
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('refused URL values fall back to their defaults, with a polite note; the rest is kept', async () => {
    const lab = await openLab(env, {
      path: '?seams=data,tensor&gpus=abc&advanced=1&model=custom&heads=30&zero_stage=7&colour=red',
    });
    const notes = lab.page.locator('.pe-notes');
    assert.equal(await notes.getAttribute('role'), 'status');
    const text = await notes.textContent();
    assert.match(
      text,
      /gpus: "abc" is not allowed \(a whole number from 1 to 16,384\); using 16\./,
    );
    assert.match(text, /zero_stage: "7" is not allowed \(a whole number from 0 to 3\); using 0\./);
    assert.match(text, /"colour" is not an option of this lab \(ignored\)/);
    assert.match(
      text,
      /heads: "30" was refused by the model \(model\.heads is 30: it must divide model\.hidden/,
    );
    const shown = await snapshot(lab.page);
    assert.deepEqual(shown.switches, ['true', 'true', 'false']);
    assert.equal(shown.fields.model, 'custom');
    assert.equal(shown.fields.heads, '80');
    assert.deepEqual(shown.errors, []);
    // The URL now says only what the lab shows.
    assert.equal(
      new URL(await settledUrl(lab.page)).search,
      '?seams=data,tensor&advanced=1&model=custom',
    );
    await lab.page.locator('.pe-notes-dismiss').click();
    assert.equal(await lab.page.locator('.pe-notes-body').isHidden(), true);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('a value the core refuses in the form: error beside it, the URL keeps the last good state', async () => {
    const lab = await openLab(env);
    const { page } = lab;
    await open(page);
    await setField(page, 'model', 'custom');
    const good = await settledUrl(page);
    assert.equal(new URL(good).search, '?advanced=1&model=custom');
    const before = await snapshot(page);
    await setField(page, 'heads', 30);
    await page.locator('[data-row="heads"] .field-error:not([hidden])').waitFor();
    assert.equal(await settledUrl(page), good, 'the refused value is not shared');
    const after = await snapshot(page);
    assert.equal(after.perGpu, before.perGpu, 'the panels keep the last good report');
    assert.equal(after.badge, before.badge);
    const again = await openLab(env, { path: page.url() });
    assert.equal((await snapshot(again.page)).fields.heads, '80');
    assert.deepEqual([...lab.problems, ...again.problems], []);
    await again.close();
    await lab.close();
  });
});

describe('copy and export', () => {
  const clipboard = ['clipboard-read', 'clipboard-write'];
  const readClipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

  test('"Copy link" copies the URL that restores the state', async () => {
    const lab = await openLab(env, { permissions: clipboard });
    await click(lab.page, 'Tensor parallel');
    await open(lab.page);
    await setField(lab.page, 'zero_stage', 1);
    const url = await settledUrl(lab.page);
    const copy = lab.page.getByRole('button', { name: 'Copy link' });
    await settledForClick(copy);
    await copy.click();
    await lab.page.locator('.share-status', { hasText: 'Link copied.' }).waitFor();
    assert.equal(await readClipboard(lab.page), url);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('"Copy embed snippet" copies an iframe that shows the same lab, and its resize listener', async () => {
    const lab = await openLab(env, { permissions: clipboard });
    await click(lab.page, 'Pipeline parallel');
    await open(lab.page);
    await setField(lab.page, 'recompute', 'full');
    const copy = lab.page.getByRole('button', { name: 'Copy embed snippet' });
    await settledForClick(copy);
    await copy.click();
    await lab.page.locator('.share-status', { hasText: 'Embed snippet copied.' }).waitFor();
    const snippet = await readClipboard(lab.page);
    const src = /<iframe src="([^"]+)"/.exec(snippet)?.[1].replaceAll('&amp;', '&');
    assert.ok(src?.startsWith(`${env.url}embed.html?`), snippet);
    assert.match(snippet, /title="3D parallelism explorer"/);
    // The listener is a script file of the lab's, so the snippet holds no inline script.
    assert.match(snippet, /<script src="http:\/\/127\.0\.0\.1:\d+\/iframe-host\.js"><\/script>$/);
    const embed = await openLab(env, { path: src });
    assert.deepEqual(await snapshot(embed.page), await snapshot(lab.page));
    assert.deepEqual([...lab.problems, ...embed.problems], []);
    await embed.close();
    await lab.close();
  });

  test('without clipboard access the text is shown selected, ready for Ctrl+C', async () => {
    const lab = await openLab(env, {
      init: () => {
        Object.defineProperty(navigator, 'clipboard', {
          value: {
            writeText: () => Promise.reject(new DOMException('not allowed', 'NotAllowedError')),
          },
        });
      },
    });
    await click(lab.page, 'Tensor parallel');
    const url = await settledUrl(lab.page);
    const copy = lab.page.getByRole('button', { name: 'Copy link' });
    await settledForClick(copy);
    await copy.click();
    const box = lab.page.locator('.copy-fallback textarea');
    await box.waitFor();
    assert.equal(await box.inputValue(), url);
    assert.deepEqual(
      await box.evaluate((t) => [document.activeElement === t, t.selectionStart, t.selectionEnd]),
      [true, 0, url.length],
    );
    assert.match(await lab.page.locator('.share-status').textContent(), /copied|Ctrl\+C/);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  async function downloadOf(page, name) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name }).click(),
    ]);
    return { name: download.suggestedFilename(), body: await readFile(await download.path()) };
  }

  // Whole numbers exact, the rest to 6 significant digits, as the export rounds them.
  const rounded = (key, value) =>
    typeof value === 'number' && !Number.isInteger(value) && Number.isFinite(value)
      ? Number(value.toPrecision(6))
      : value;

  test("the report as JSON is the core's full report for the state, rounded", async () => {
    const lab = await openLab(env, { path: '?seams=data,tensor,pipeline' });
    const { name, body } = await downloadOf(lab.page, 'Report (JSON)');
    assert.equal(name, 'parallelism-16gpus-2x4x2.json');
    const scenario = {
      seams: { data: true, tensor: true, pipeline: true },
      gpus: 16,
      gpus_per_node: 8,
    };
    const full = core.evaluate(scenario);
    assert.deepEqual(JSON.parse(body.toString()), JSON.parse(JSON.stringify(full, rounded)));
    for (const [, digits] of body.toString().matchAll(/: -?(\d+\.\d+)/g)) {
      assert.ok(digits.replace('.', '').replace(/^0+/, '').length <= 6, digits);
    }
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  function pngSize(body) {
    assert.deepEqual([...body.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
    return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) };
  }

  test('the grid as SVG (self-contained: colours inlined, no stylesheet) and as PNG', async () => {
    const lab = await openLab(env, { path: '?seams=data,tensor,pipeline' });
    const svg = await downloadOf(lab.page, 'Grid (SVG)');
    assert.equal(svg.name, 'parallelism-16gpus-2x4x2.svg');
    const text = svg.body.toString();
    assert.match(text, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(
      text,
      /<title>16 GPUs in 2 nodes: 2 data-parallel replicas × 4 tensor slices × 2 pipeline stages\.<\/title>/,
    );
    const tiles = [...text.matchAll(/<rect [^>]*data-rank="(\d+)"[^>]*>/g)];
    assert.equal(tiles.length, 16);
    for (const [tag] of tiles) assert.match(tag, /fill="#[0-9a-f]{6}"/, tag);
    assert.doesNotMatch(
      text,
      /var\(|oklch|class=|style=/,
      "nothing that needs the page's stylesheet",
    );
    const { width, height } = /width="(?<width>[\d.]+)" height="(?<height>[\d.]+)"/.exec(
      text,
    ).groups;

    const png = await downloadOf(lab.page, 'Grid (PNG)');
    assert.equal(png.name, 'parallelism-16gpus-2x4x2.png');
    const size = pngSize(png.body);
    // The grid under a title and over its legend: taller for its width than the grid alone.
    assert.ok(size.height / size.width > height / width, 'a title and the legend around the grid');
    assert.ok(size.width >= 2 * width - 1, `${size.width} px wide`);
    assert.ok(png.body.length > 10_000, `${png.body.length} bytes: a drawing, not a blank`);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('the fleet map exports too (one path per colour)', async () => {
    const lab = await openLab(env, {
      path: '?advanced=1&gpus=10240&degrees=80x8x16&global_batch=2560',
    });
    const svg = (await downloadOf(lab.page, 'Grid (SVG)')).body.toString();
    assert.ok((svg.match(/<path /g) ?? []).length > 16);
    assert.doesNotMatch(svg, /var\(|oklch|style=/);
    assert.match(
      svg,
      /<title>10,240 GPUs in 1,280 nodes: 80 data-parallel replicas × 8 tensor slices × 16 pipeline stages\.<\/title>/,
    );
    pngSize((await downloadOf(lab.page, 'Grid (PNG)')).body);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});
