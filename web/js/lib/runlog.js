// A measured run's figures, read from what the training frameworks print: a log line (or a few)
// of Megatron-LM or torchtitan, pasted by the reader. Pure: text in, figures out, or a refusal
// that says what was expected. Sizes come out in the lab's GB (10^9 bytes).
//
// Megatron-LM (megatron/training/training.py training_log, report_memory):
//   ... | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 400.1 | ...
//   [Rank 0] (after 10 iterations) memory (MB) | allocated: ... | max allocated: 45678.9 | ...
//   mem-max-allocated-bytes: 45678901234   (its tensorboard/wandb scalar, torch's peak)
// Megatron's "MB" is 1024 × 1024 bytes (report_memory divides by 1024.0 * 1024.0).
// torchtitan (torchtitan/train.py, its metrics logger), one line per logged step:
//   step: 10  loss: 7.1234  memory: 45.67GiB(57.81%)  tps: 1,234  tflops: 456.78  mfu: 46.19%
// tps is tokens per second per GPU; memory is torch's max reserved, in GiB (2^30 bytes).

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const NUM = '([0-9][0-9,]*(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)';

// Each figure a tool prints: its pattern, the figure it gives and how to turn it into the
// lab's unit. The last match in the text counts (a pasted log's latest step).
const READS = [
  {
    tool: 'Megatron-LM',
    re: new RegExp(`elapsed time per iteration \\(ms\\):\\s*${NUM}`, 'g'),
    figure: 'step_time_s',
    to: (v) => v / 1000,
    says: 'elapsed time per iteration (ms)',
  },
  {
    tool: 'Megatron-LM',
    re: new RegExp(`throughput per GPU \\(TFLOP/s/GPU\\):\\s*${NUM}`, 'g'),
    figure: 'tflops_per_gpu',
    to: (v) => v,
    says: 'throughput per GPU (TFLOP/s/GPU)',
  },
  {
    tool: 'Megatron-LM',
    re: new RegExp(`mem-max-allocated-bytes\\s*[:=]?\\s*${NUM}`, 'g'),
    figure: 'peak_memory_gb',
    to: (v) => v / 1e9,
    says: 'mem-max-allocated-bytes',
  },
  {
    tool: 'Megatron-LM',
    re: new RegExp(`max allocated:\\s*${NUM}`, 'g'),
    figure: 'peak_memory_gb',
    to: (v) => (v * MIB) / 1e9,
    says: 'max allocated (MB of 1024 × 1024 bytes)',
  },
  {
    tool: 'torchtitan',
    re: new RegExp(`memory:\\s*${NUM}\\s*GiB`, 'g'),
    figure: 'peak_memory_gb',
    to: (v) => (v * GIB) / 1e9,
    says: 'memory (GiB, max reserved)',
  },
  {
    tool: 'torchtitan',
    re: new RegExp(`\\btps:\\s*${NUM}`, 'g'),
    figure: 'tokens_per_s_per_gpu',
    to: (v) => v,
    says: 'tps (tokens per second per GPU)',
  },
  {
    tool: 'torchtitan',
    re: new RegExp(`\\btflops:\\s*${NUM}`, 'g'),
    figure: 'tflops_per_gpu',
    to: (v) => v,
    says: 'tflops (per GPU)',
  },
];

export const EXPECTED =
  'a Megatron-LM line with "elapsed time per iteration (ms): 1234.5" (and optionally ' +
  '"throughput per GPU (TFLOP/s/GPU): 400.1", "max allocated: 45678.9" MB or ' +
  '"mem-max-allocated-bytes: 45678901234"), or a torchtitan line with ' +
  '"tps: 1,234" (and optionally "tflops: 456.78", "memory: 45.67GiB")';

const MAX_CHARS = 20_000;

// The text -> { tool, figures: { step_time_s?, tflops_per_gpu?, peak_memory_gb?,
// tokens_per_s_per_gpu? }, read: [what each figure was read from] } or { error }. A text with
// no time of a step (Megatron's iteration time, torchtitan's tps) is refused: a calibration
// needs one.
export function parseRunLog(text) {
  if (typeof text !== 'string' || !text.trim()) return { error: `Paste ${EXPECTED}.` };
  if (text.length > MAX_CHARS) {
    return { error: `That is ${text.length} characters; paste at most ${MAX_CHARS}: ${EXPECTED}.` };
  }
  const figures = {};
  const read = [];
  const tools = new Set();
  for (const r of READS) {
    const matches = [...text.matchAll(r.re)];
    if (!matches.length || r.figure in figures) continue;
    const v = Number(matches.at(-1)[1].replaceAll(',', ''));
    if (!Number.isFinite(v) || v <= 0) continue;
    figures[r.figure] = r.to(v);
    read.push(`${r.says}: ${matches.at(-1)[1]}`);
    tools.add(r.tool);
  }
  if (!('step_time_s' in figures) && !('tokens_per_s_per_gpu' in figures)) {
    return { error: `Not understood: no time per step in it. Expected ${EXPECTED}.` };
  }
  if (tools.size > 1) {
    return {
      error: `That mixes Megatron-LM's and torchtitan's lines: paste one tool's. Expected ${EXPECTED}.`,
    };
  }
  return { tool: [...tools][0], figures, read };
}
