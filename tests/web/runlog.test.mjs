// The run log reader (web/js/lib/runlog.js): the figures of what Megatron-LM and torchtitan
// print, in the lab's units (GB = 10^9 bytes), and a refusal saying what was expected.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MAX_CHARS, parseRunLog } from '../../web/js/lib/runlog.js';

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
  // Each figure with the text it came from, which the page shows beside the field.
  assert.deepEqual(r.from, {
    step_time_s: 'elapsed time per iteration (ms): 1234.5',
    tflops_per_gpu: 'throughput per GPU (TFLOP/s/GPU): 400.1',
  });
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
  assert.match(parseRunLog('x'.repeat(MAX_CHARS + 1)).error, /at most 2000000/);
  assert.ok(parseRunLog(42).error);
});

test('a figure not in the form the framework prints is refused with the text it could not read', () => {
  const refusals = [
    // Megatron prints '{:.1f}': no thousands separator, no decimal comma, no space.
    [MEGATRON.replace('1234.5', '1234,5'), '"1234,5"', 'elapsed time per iteration'],
    [MEGATRON.replace('400.1', '400,1'), '"400,1"', 'throughput per GPU'],
    [MEGATRON.replace('1234.5', '1 234.5'), '"1 234.5"', 'elapsed time per iteration'],
    [MEGATRON.replace('1234.5', '1.2e3'), '"1.2e3"', 'elapsed time per iteration'],
    [`${MEGATRON}\nmem-max-allocated-bytes: 1e+`, '"1e+"', 'mem-max-allocated-bytes'],
    [`${MEGATRON} max allocated: 45,678.9 |`, '"45,678.9"', 'max allocated'],
    // torchtitan groups by three digits with commas ('{:,}'), and prints GiB and % after.
    ['tps: 1,23  tflops: 456.78', '"1,23"', 'tps'],
    ['tps: 1,234  tflops: 400,1', '"400,1"', 'tflops'],
    ['tps: 1 234  tflops: 456.78', '"1 234"', 'tps'],
    ['tps: 1,234  memory: 45.67 GB', '"45.67"', 'memory'],
    ['tps: 1,234  mfu: 46.19', '"46.19"', 'mfu'],
    // A no-break, narrow no-break or thin space as a thousands separator splits the figure as
    // a space does: never read as the digits before it.
    [MEGATRON.replace('1234.5', '1\u00a0234.5'), '"1\u00a0234.5"', 'elapsed time per iteration'],
    [MEGATRON.replace('1234.5', '1\u202f234.5'), '"1\u202f234.5"', 'elapsed time per iteration'],
    ['tps: 1\u2009234  tflops: 456.78', '"1\u2009234"', 'tps'],
    // The decimals are the format's own: '{:.1f}' for Megatron-LM, '{:.2f}' for torchtitan.
    [MEGATRON.replace('1234.5', '1234'), '"1234"', 'elapsed time per iteration'],
    [MEGATRON.replace('400.1', '400.12'), '"400.12"', 'throughput per GPU'],
    [`${MEGATRON} max allocated: 45678 |`, '"45678"', 'max allocated'],
    ['tps: 1,234  tflops: 456.7', '"456.7"', 'tflops'],
    ['tps: 1,234  memory: 45.6GiB(57.81%)', '"45.6GiB(57.81%)"', 'memory'],
    ['tps: 1,234  mfu: 46.1%', '"46.1%"', 'mfu'],
    // Python prints no leading zero but 0 itself.
    [MEGATRON.replace('1234.5', '01234.5'), '"01234.5"', 'elapsed time per iteration'],
    ['tps: 01,234', '"01,234"', 'tps'],
    ['tps: 1,234  tflops: 0,456.78', '"0,456.78"', 'tflops'],
    ['tps: 1,234  mfu: 046.19%', '"046.19%"', 'mfu'],
    [`${MEGATRON}\nmem-max-allocated-bytes: 061234567890`, '"061234567890"', 'mem-max'],
  ];
  for (const [text, shown, label] of refusals) {
    const { error } = parseRunLog(text);
    assert.ok(error, text);
    assert.ok(error.startsWith(`Could not read ${shown} after`), error);
    assert.ok(error.includes(label), error);
  }
  assert.match(parseRunLog(`${MEGATRON}\nmem-max-allocated-bytes |`).error, /^No figure after/);
  assert.match(parseRunLog(MEGATRON.replace('1234.5', '0.0')).error, /above 0/);
  // The forms that are the framework's own are read.
  const r = parseRunLog(
    `${MEGATRON.replace('1234.5', '12345.0')} max allocated: 45678.9052734375 | reserved: 5.0`,
  );
  assert.equal(r.figures.step_time_s, 12.345);
  assert.ok(Math.abs(r.figures.peak_memory_gb - 47.8979) < 1e-4);
  const titan = parseRunLog('tps: 12,345,678  tflops: 1,234.56  mfu: 38.10%');
  assert.equal(titan.figures.tokens_per_s_per_gpu, 12345678);
  assert.equal(titan.figures.tflops_per_gpu, 1234.56);
  assert.equal(titan.mfu, 0.381);
  assert.equal(
    parseRunLog(`${MEGATRON} max allocated: 1.2e+16 |`).figures.peak_memory_gb,
    (1.2e16 * 1048576) / 1e9,
  );
  assert.equal(parseRunLog(MEGATRON.replace('1234.5', '0.5')).figures.step_time_s, 0.0005);
  const padded = parseRunLog('tps: 1,234  memory:  9.50GiB(12.00%)');
  assert.ok(Math.abs(padded.figures.peak_memory_gb - 10.2005) < 1e-4);
  const bytes = parseRunLog(`${MEGATRON}\nmem-max-allocated-bytes = 6.1234567890e+10`);
  assert.equal(bytes.figures.peak_memory_gb, 61.23456789);
});

test("torchtitan's validation lines are not read: their tps is of evaluation", () => {
  const step = 'step: 10  loss:  7.1234  memory: 45.67GiB(57.81%)  tps: 1,234  tflops: 456.78';
  const validation = 'validate step: 10  loss:  6.9000  memory: 30.00GiB(37.97%)  tps: 9,876';
  const r = parseRunLog(`${step}\n${validation}`);
  assert.equal(r.figures.tokens_per_s_per_gpu, 1234);
  assert.ok(Math.abs(r.figures.peak_memory_gb - 49.0378) < 1e-4);
  assert.deepEqual(r.read, ['memory: 45.67GiB(57.81%)', 'tps: 1,234', 'tflops: 456.78']);
  const coloured = `\u001b[33mvalidate step: 10  \u001b[34mtps: 9,876\u001b[39m`;
  assert.match(
    parseRunLog(coloured).error,
    /^Not understood: no time per step in it \(torchtitan's "validate step:" lines are not read/,
  );
});

test("torchtitan's colours are read through; the later of Megatron's two memories counts", () => {
  const esc = '\u001b';
  const coloured =
    `${esc}[31mstep: 10  ${esc}[32mloss:  7.1234  ${esc}[33mmemory: 45.67GiB(57.81%)  ` +
    `${esc}[34mtps: 1,234  ${esc}[36mtflops: 456.78  ${esc}[35mmfu: 46.19%${esc}[39m`;
  const r = parseRunLog(coloured);
  assert.equal(r.figures.tokens_per_s_per_gpu, 1234);
  assert.equal(r.mfu, 0.4619);
  const both = `${MEGATRON}\nmem-max-allocated-bytes: 61234567890\n max allocated: 1000.0 |`;
  assert.ok(Math.abs(parseRunLog(both).figures.peak_memory_gb - 1.048576) < 1e-9);
});

test("the TFLOP/s and torchtitan's mfu check the lab's GPU", () => {
  const h100 = { name: 'H100-80GB', peak_tflops: 989, fp8_tflops: 1979 };
  const a100 = { name: 'A100-80GB', peak_tflops: 312, fp8_tflops: 0 };
  const titan = 'tps: 1,234  tflops: 375.90  mfu: 38.10%';
  // 375.90 / 0.381 = 986.6 TFLOP/s: H100's 989, within 10%.
  assert.equal(parseRunLog(titan, { gpu: h100 }).figures.tflops_per_gpu, 375.9);
  const b200 = { name: 'B200', peak_tflops: 2250, fp8_tflops: 4500 };
  assert.match(
    parseRunLog(titan, { gpu: b200 }).error,
    /tflops 375\.9 at mfu 38\.1% imply a GPU peak of 987 TFLOP\/s; the lab's B200 has 2250/,
  );
  assert.match(parseRunLog(titan, { gpu: a100 }).error, /375\.9 TFLOP\/s per GPU is above/);
  assert.match(
    parseRunLog(MEGATRON, { gpu: a100 }).error,
    /400\.1 TFLOP\/s .* A100-80GB's peak, 312/,
  );
  // FP8 GEMMs may pass the BF16 peak, never the FP8 one.
  assert.ok(parseRunLog(MEGATRON.replace('400.1', '1500.0'), { gpu: h100 }).figures);
  assert.ok(parseRunLog(MEGATRON.replace('400.1', '2000.0'), { gpu: h100 }).error);
});

// One pass, no pattern over the whole text: adversarial lines of 1 MB are read in work
// linear in their length (the characters looked at, counted by the reader: no clock). The
// quadratic pattern this replaced took 1.3 s on 20,000 characters.
test('a 1 MB adversarial line is read in linear work, and refused with what it could not read', () => {
  const n = 1_000_000;
  const lines = [
    [`mem-max-allocated-bytes${' '.repeat(n)}`, /^No figure after Megatron-LM's "mem-max/],
    [`mem-max-allocated-bytes${'\u00a0'.repeat(n)}|`, /^No figure after Megatron-LM's "mem-max/],
    [`elapsed time per iteration (ms): ${'1'.repeat(n)}`, /^Could not read "1{40}…" after/],
    [`elapsed time per iteration (ms): 1${'\u202f'.repeat(n)}`, /^Could not read "1" after/],
    [`tps: ${'1,'.repeat(n / 2)}`, /^Could not read "(1,){20}…" after torchtitan's "tps"/],
    ['max allocated: '.repeat(n / 15), /^Could not read "max" after Megatron-LM's "max allocated"/],
    [`${'mem-max-allocated-bytes'.repeat(n / 23)}:`, /^Not understood: no time per step/],
    [`memory: ${'9'.repeat(n)}GiB`, /^Could not read "9{40}…" after torchtitan's "memory"/],
    [`${'\u001b['.repeat(n / 2)}`, /^Not understood: no time per step/],
    ['x'.repeat(n), /^Not understood: no time per step/],
  ];
  for (const [line, refusal] of lines) {
    const work = { steps: 0 };
    const r = parseRunLog(line, { work });
    assert.match(r.error ?? '', refusal, line.slice(0, 40));
    assert.ok(work.steps <= 12 * line.length, `${line.slice(0, 40)}: ${work.steps} steps`);
  }
});
