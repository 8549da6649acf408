// The fleet map on a GB200 NVL72 fleet (72 GPUs per NVLink domain over trays of 4): one tinted
// band per domain, named in its header, rows chosen so a domain is whole rows; a GPU picked
// inside a band is the one drawn there; and when a seam's groups ride one rail, picking a GPU
// shows its rail (GPU k of every tray) and the readout says "on rail k".
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { describe, test } from 'node:test';

import { openLab, screenshot, screenshotDir, SCREENSHOTS, useLab } from './harness.mjs';
import { settle } from './measure.mjs';

let env;
useLab((opened) => ({ env } = opened));

const NVL72 = '?advanced=1&gpu=GB200-NVL72&model=llama3-405b';
const badge = (page) => page.locator('.badge').textContent();

// What the map draws: bands (one "M" per band in either tint), their names, the rail.
const drawn = (page) =>
  page.evaluate(() => {
    const svg = document.querySelector('svg.fleet');
    const moves = (sel) =>
      [...svg.querySelectorAll(sel)].reduce(
        (n, p) => n + (p.getAttribute('d')?.match(/M/g) ?? []).length,
        0,
      );
    return {
      bands: moves('path.fleet-domains'),
      names: [...svg.querySelectorAll('.fleet-domain-label')].map((t) => t.textContent),
      rail: moves('.fleet-hl .hl-rail'),
      note: document.querySelector('.fleet-note').textContent,
    };
  });

// The centre of the first square of the bottom row of band `i`, in page pixels.
const bottomLeftOfBand = (page, i) =>
  page.evaluate((i) => {
    const svg = document.querySelector('svg.fleet');
    const d = [...svg.querySelectorAll('path.fleet-domains')]
      .map((p) => p.getAttribute('d'))
      .join('');
    const bands = [...d.matchAll(/M([\d.]+) ([\d.]+)H([\d.]+)V([\d.]+)/g)]
      .map((m) => m.slice(1).map(Number))
      .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    const [x0, , , y1] = bands[i];
    // BAND_PAD (4) inside the band's edge, half a square (4) in.
    const p = new DOMPoint(x0 + 8, y1 - 8).matrixTransform(svg.getScreenCTM());
    return { x: p.x, y: p.y };
  }, i);

describe('NVLink domains on the fleet map', () => {
  test('GB200 NVL72, 288 GPUs as 4×8×9: four named bands, two rows of 9 trays each; DP on its rail', async () => {
    const lab = await openLab(env, {
      path: `${NVL72}&gpus=288&degrees=4x8x9`,
      deviceScaleFactor: 2,
    });
    const { page } = lab;
    await page.locator('svg.fleet').waitFor();
    await settle(page);
    assert.equal(await badge(page), 'DP×TP×PP = 4×8×9 = 288');
    const map = await drawn(page);
    assert.equal(map.bands, Math.ceil(288 / 72));
    assert.deepEqual(
      map.names,
      [1, 2, 3, 4].map((i) => `NVLink domain ${i} · 72 GPUs`),
    );
    assert.match(map.note, /each tinted band is an NVLink domain of 72 GPUs/);
    assert.match(map.note, /a row holds 9 nodes, 36 GPUs/);
    assert.equal(map.rail, 0, 'no rail before a GPU is picked');

    // The bottom row of domain 2 (GPUs 72-143 in two rows of 36) starts at GPU 108.
    const at = await bottomLeftOfBand(page, 1);
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(() =>
      /GPU 108 /.test(document.querySelector('.readout').textContent),
    );

    // Its data-parallel group (stride 72, a whole number of trays) sits at index 108 mod 4 = 0
    // of its trays: rail 0. TP and PP stay inside the domain, on NVLink.
    const group = (g) => page.locator(`.readout-groups li[data-group="${g}"]`).textContent();
    assert.match(await group('dp'), /\(dotted\): GPUs 36, 108, 180, 252 — .* on rail 0$/);
    assert.match(await group('tp'), /over NVLink$/);
    assert.match(await group('pp'), /over NVLink$/);
    assert.equal((await drawn(page)).rail, 288 / 4, 'GPU 0 of each of the 72 trays');

    await screenshot(page.locator('svg.fleet'), 'nvl72-288-map');
    await screenshot(page, 'nvl72-288', { fullPage: true });
    if (SCREENSHOTS && process.env.PE_SHOTS) {
      await mkdir(process.env.PE_SHOTS, { recursive: true });
      for (const name of ['nvl72-288-map.png', 'nvl72-288.png']) {
        await copyFile(`${screenshotDir}${name}`, `${process.env.PE_SHOTS}/${name}`);
      }
    }
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('no seam on a rail, no rail drawn: DP 16 × TP 2 × PP 9 crosses rails (the spine)', async () => {
    const lab = await openLab(env, { path: `${NVL72}&gpus=288&degrees=16x2x9` });
    const { page } = lab;
    await page.locator('svg.fleet').focus();
    await page.keyboard.press('ArrowRight');
    await settle(page);
    const readout = await page.locator('.readout').textContent();
    assert.match(readout, /GPU 1 \(node 0\)/);
    assert.doesNotMatch(readout, /on rail/);
    assert.equal((await drawn(page)).rail, 0);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('the wire says which level each seam rides: the 72-GPU domain, one rail, the spine', async () => {
    const lab = await openLab(env, {
      path: `${NVL72}&gpus=288&degrees=16x2x9&network_oversubscription=4`,
    });
    const { page } = lab;
    const link = (seam) => page.locator(`.wire [data-seam="${seam}"] [data-field="link"]`);
    await page.waitForFunction(() =>
      /4:1 spine/.test(document.querySelector('.wire [data-seam="data"]')?.textContent),
    );
    assert.match(await link('tensor').textContent(), /^NVLink \(in its 72-GPU domain\), /);
    assert.match(await link('data').textContent(), /^network \(across rails, a 4:1 spine\), /);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });

  test('past 64 domains the bands stay, unnamed: 16,384 GPUs are 228 domains', async () => {
    const lab = await openLab(env, { path: `${NVL72}&gpus=16384` });
    const { page } = lab;
    await page.locator('svg.fleet').waitFor();
    await settle(page);
    const map = await drawn(page);
    assert.equal(map.bands, Math.ceil(16384 / 72));
    assert.deepEqual(map.names, []);
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
});
