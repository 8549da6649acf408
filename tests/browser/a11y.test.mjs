// Automated accessibility checks (axe-core, injected offline) in light and dark, for the
// default state, all three seams on (with a GPU highlighted) and no seam on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { axe, badgeFor, coreReport, openLab, setSeams, startBrowser } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(() => env?.close());

const STATES = [
  { name: 'default', data: true, tensor: false, pipeline: false },
  { name: 'all three, GPU 5 highlighted', data: true, tensor: true, pipeline: true, hover: 5 },
  { name: 'no seam', data: false, tensor: false, pipeline: false },
];

for (const colorScheme of ['light', 'dark']) {
  test(`no axe violations (${colorScheme})`, async () => {
    const lab = await openLab(env, { colorScheme });
    for (const state of STATES) {
      await setSeams(lab.page, state, badgeFor(await coreReport(state)));
      if (state.hover !== undefined) await lab.page.hover(`.gpu-grid rect.tile[data-rank="${state.hover}"]`);
      assert.deepEqual(await axe(lab.page), [], state.name);
    }
    assert.deepEqual(lab.problems, []);
    await lab.close();
  });
}
