// The page's rows (web/js/state/rows.js): one row per state name and per scenario key, so no
// field shows twice in the form (an FP8 checkbox once did).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ROWS } from '../../web/js/state/rows.js';

test('each row name and scenario key appears once', () => {
  for (const key of ['name', 'scenario']) {
    const seen = ROWS.map((r) => r[key]).filter(Boolean);
    const twice = seen.filter((v, i) => seen.indexOf(v) !== i);
    assert.deepEqual(twice, [], `${key}s given twice`);
  }
});
