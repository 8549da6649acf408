// The page's words for numbers (web/js/lib/format.js) that carry a rule: a share of a peak is
// never written as a utilisation above 100%.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ofPeak } from '../../web/js/lib/format.js';

test('a share of a peak reads as a percentage up to the peak, past it as a multiple', () => {
  assert.equal(ofPeak(0.52, 'FP8'), '52% of the FP8 peak');
  assert.equal(ofPeak(1, 'BF16'), '100% of the BF16 peak');
  // An FP8 run on GB200 whose model FLOPs pass the BF16 peak (its FP8 peak is twice it).
  assert.equal(ofPeak(1.04, 'BF16'), '1.04× the BF16 peak');
});
