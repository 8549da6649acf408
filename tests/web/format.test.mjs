// The page's words for numbers (web/js/lib/format.js) that carry a rule: a share of a peak is
// never written as a utilisation above 100%; a duration read aloud names its unit in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { durationWords, ofPeak, share } from '../../web/js/lib/format.js';

test('a share of a peak reads as a percentage up to the peak, past it as a multiple', () => {
  assert.equal(ofPeak(0.52, 'FP8'), '52% of the FP8 peak');
  assert.equal(ofPeak(1, 'BF16'), '100% of the BF16 peak');
  // An FP8 run on GB200 whose model FLOPs pass the BF16 peak (its FP8 peak is twice it).
  assert.equal(ofPeak(1.04, 'BF16'), '1.04× the BF16 peak');
});

test('a duration in words names its unit, singular for one', () => {
  assert.equal(durationWords(0.75), '750 milliseconds');
  assert.equal(durationWords(45.3), '45.3 seconds');
  assert.equal(durationWords(600), '10 minutes');
  assert.equal(durationWords(11124), '3.09 hours');
  assert.equal(durationWords(86400), '24 hours');
  assert.equal(durationWords(11402325), '132 days');
  assert.equal(durationWords(1), '1 second');
});

test('a share below all of it never reads 100%', () => {
  assert.equal(share(0.945), '94.5%');
  assert.equal(share(0.99984), '99.98%');
  assert.equal(share(0.9999999), '99.9999%');
  assert.equal(share(1), '100%');
  assert.equal(share(0), '0%');
});
