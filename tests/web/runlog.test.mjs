// The run log reader (web/js/lib/runlog.js): the figures of what Megatron-LM and torchtitan
// print, in the lab's units (GB = 10^9 bytes), and a refusal saying what was expected.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseRunLog } from '../../web/js/lib/runlog.js';

const MEGATRON =
  ' [2026-11-28 10:00:00] iteration      100/  500000 | consumed samples:        51200 | ' +
  'elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 400.1 | ' +
  'learning rate: 3.000000E-04 | global batch size:   512 | lm loss: 2.345678E+00 |';

test('Megatron-LM: the iteration time in seconds and the TFLOP/s per GPU', () => {
  const r = parseRunLog(MEGATRON);
  assert.equal(r.tool, 'Megatron-LM');
  assert.equal(r.figures.step_time_s, 1.2345);
  assert.equal(r.figures.tflops_per_gpu, 400.1);
  assert.equal(r.figures.peak_memory_gb, undefined);
  assert.deepEqual(r.read, [
    'elapsed time per iteration (ms): 1234.5',
    'throughput per GPU (TFLOP/s/GPU): 400.1',
  ]);
});

test("Megatron-LM's memory: MB of 1024 × 1024 bytes, or bytes; the last step's figures", () => {
  const memory =
    '[Rank 0] (after 100 iterations) memory (MB) | allocated: 20000.0 | max allocated: ' +
    '45678.9 | reserved: 50000.0 | max reserved: 50000.0';
  const r = parseRunLog(`${MEGATRON}\n${memory}`);
  // 45,678.9 × 1,048,576 bytes = 47.898 GB (10^9 bytes).
  assert.ok(Math.abs(r.figures.peak_memory_gb - 47.8978) < 1e-4, String(r.figures.peak_memory_gb));
  const bytes = parseRunLog(`${MEGATRON}\nmem-max-allocated-bytes: 61234567890`);
  assert.equal(bytes.figures.peak_memory_gb, 61.23456789);
  const later = MEGATRON.replace('1234.5', '1200.0');
  assert.equal(parseRunLog(`${MEGATRON}\n${later}`).figures.step_time_s, 1.2);
});

test('torchtitan: tps with its thousands comma, tflops, memory in GiB', () => {
  const r = parseRunLog(
    'step: 10  loss:  7.1234  memory: 45.67GiB(57.81%)  tps: 1,234  tflops: 456.78  mfu: 46.19%',
  );
  assert.equal(r.tool, 'torchtitan');
  assert.equal(r.figures.tokens_per_s_per_gpu, 1234);
  assert.equal(r.figures.tflops_per_gpu, 456.78);
  // 45.67 GiB = 45.67 × 2^30 bytes = 49.038 GB.
  assert.ok(Math.abs(r.figures.peak_memory_gb - 49.0378) < 1e-4);
  // No step time: the core turns tps into the run's step (calibration.tokens_per_s_per_gpu).
  assert.equal(r.figures.step_time_s, undefined);
});

test('a line not understood is refused, saying what was expected', () => {
  for (const text of ['', 'hello', 'loss: 2.1 | lr: 3e-4', 'max allocated: 1000']) {
    const r = parseRunLog(text);
    assert.ok(r.error, text);
    assert.match(r.error, /elapsed time per iteration \(ms\)/);
    assert.match(r.error, /tps/);
  }
  assert.match(parseRunLog(`${MEGATRON} tps: 1,234`).error, /mixes/);
  assert.match(parseRunLog('x'.repeat(30_000)).error, /at most 20000/);
  assert.ok(parseRunLog(42).error);
});
