// A measured run's figures, read from what the training frameworks print: a log line (or a few)
// of Megatron-LM or torchtitan, pasted by the reader. Pure: text in, figures out, or a refusal
// that says what it could not read and what was expected. Sizes come out in the lab's GB
// (10^9 bytes).
//
// Megatron-LM (megatron/training/training.py training_log, report_memory):
//   ... | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 400.1 | ...
//   [Rank 0] (after 10 iterations) memory (MB) | allocated: ... | max allocated: 45678.9 | ...
//   mem-max-allocated-bytes: 45678901234   (its tensorboard/wandb scalar, torch's peak)
// Its times and TFLOP/s are '{:.1f}' (no thousands separator); "max allocated" is a Python
// float (str(): 45678.9052734375, or 1.2e+16 past 10^16). Its "MB" is 1024 × 1024 bytes
// (report_memory divides by 1024.0 * 1024.0).
// torchtitan (torchtitan/train.py, its metrics logger), one line per logged step:
//   step: 10  loss: 7.1234  memory: 45.67GiB(57.81%)  tps: 1,234  tflops: 456.78  mfu: 46.19%
// f"tps: {round(tps):,}", f"tflops: {tflops:,.2f}", f"mfu: {mfu:.2f}%" (commas only between
// groups of three digits); memory is torch's max reserved, f"{gib:5.2f}GiB", in GiB (2^30
// bytes). tps is tokens per second per GPU; its mfu is tflops over the GPU's dense BF16 peak
// (utils.get_peak_flops), so the two give the peak of the GPU the run was on: a check.
//
// The reader is one pass with no pattern over the whole text: each label is found with
// indexOf, and the figure after it is the run of characters up to the next space or "|", at most
// MAX_TOKEN long, matched whole against the framework's form. A figure in any other form
// ("1234,5", "400,1", "1 234.5" with any space but a line break, "1e+", "1234" where the format
// prints one decimal) is refused with the text it could not read.

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const MAX_TOKEN = 40;

// The forms, each the framework's own and anchored, with one way to match a token (no two
// quantifiers over one class side by side; "0|[1-9]..." parts start apart): linear in its
// length, which MAX_TOKEN bounds anyway. Python prints no leading zero but 0 itself.
// '{:.1f}': Megatron-LM's times and TFLOP/s, one decimal, no separator.
const ONE_DECIMAL = /^((?:0|[1-9][0-9]*)\.[0-9])$/;
// Python's str(float): a point always, or past 10^16 an exponent ("1.2e+16", "1e+16").
const PY_FLOAT = /^((?:0|[1-9][0-9]*)\.[0-9]+|[1-9](?:\.[0-9]+)?e[+-][0-9]{2,3})$/;
// A tensorboard or wandb scalar: its viewer's form, an integer or a float with an exponent.
const BYTES = /^((?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)$/;
// '{:,}': commas between groups of three digits.
const GROUPED = /^(0|[1-9][0-9]{0,2}(?:,[0-9]{3})*)$/;
// '{:,.2f}': the same, and two decimals.
const GROUPED_TWO_DECIMALS = /^((?:0|[1-9][0-9]{0,2}(?:,[0-9]{3})*)\.[0-9]{2})$/;
// '{:5.2f}GiB({:.2f}%)': the width's padding is spaces before the figure, skipped as a gap.
const GIB_FORM = /^((?:0|[1-9][0-9]*)\.[0-9]{2})GiB(?:\((?:0|[1-9][0-9]*)\.[0-9]{2}%\))?$/;
// '{:.2f}%'.
const PERCENT = /^((?:0|[1-9][0-9]*)\.[0-9]{2})%$/;

// Each figure a tool prints: its label, the form of the figure after it, the figure it gives
// and how to turn it into the lab's unit. The last one in the text counts (a pasted log's
// latest step). `sep`: a character that may stand between the label and the figure.
const READS = [
  {
    tool: 'Megatron-LM',
    label: 'elapsed time per iteration (ms):',
    form: ONE_DECIMAL,
    example: '1234.5',
    figure: 'step_time_s',
    to: (v) => v / 1000,
  },
  {
    tool: 'Megatron-LM',
    label: 'throughput per GPU (TFLOP/s/GPU):',
    form: ONE_DECIMAL,
    example: '400.1',
    figure: 'tflops_per_gpu',
    to: (v) => v,
  },
  {
    tool: 'Megatron-LM',
    label: 'mem-max-allocated-bytes',
    sep: ':=',
    form: BYTES,
    example: '45678901234',
    figure: 'peak_memory_gb',
    to: (v) => v / 1e9,
  },
  {
    tool: 'Megatron-LM',
    label: 'max allocated:',
    form: PY_FLOAT,
    example: '45678.9',
    figure: 'peak_memory_gb',
    to: (v) => (v * MIB) / 1e9,
    unit: 'MB of 1024 × 1024 bytes',
  },
  {
    tool: 'torchtitan',
    label: 'memory:',
    form: GIB_FORM,
    example: '45.67GiB(57.81%)',
    figure: 'peak_memory_gb',
    to: (v) => (v * GIB) / 1e9,
    unit: 'GiB, max reserved',
  },
  {
    tool: 'torchtitan',
    label: 'tps:',
    form: GROUPED,
    example: '1,234',
    figure: 'tokens_per_s_per_gpu',
    to: (v) => v,
    unit: 'tokens per second per GPU',
  },
  {
    tool: 'torchtitan',
    label: 'tflops:',
    form: GROUPED_TWO_DECIMALS,
    example: '456.78',
    figure: 'tflops_per_gpu',
    to: (v) => v,
    unit: 'per GPU',
  },
  {
    tool: 'torchtitan',
    label: 'mfu:',
    form: PERCENT,
    example: '46.19%',
    figure: 'mfu',
    to: (v) => v / 100,
  },
];

export const EXPECTED =
  'a Megatron-LM line with "elapsed time per iteration (ms): 1234.5" (and optionally ' +
  '"throughput per GPU (TFLOP/s/GPU): 400.1", "max allocated: 45678.9" MB or ' +
  '"mem-max-allocated-bytes: 45678901234"), or a torchtitan line with ' +
  '"tps: 1,234" (and optionally "tflops: 456.78", "memory: 45.67GiB", "mfu: 46.19%")';

// What starts torchtitan's validation lines (its log_validation), which are not read.
const VALIDATION = 'validate step:';

// A pasted log of some thousand lines; more is refused before it is read.
export const MAX_CHARS = 2_000_000;
// How far the GPU peak torchtitan's tflops and mfu imply may sit from the lab's GPU's.
const PEAK_TOLERANCE = 0.1;

// Any space but a line break: a no-break or thin space (U+00A0, U+2009, U+202F: thousands
// separators in some locales) splits a figure as a space does, so "1\u202f234.5" is refused, not
// read as 1.
const isSpace = (ch) => ch !== undefined && ch !== '\n' && ch !== '\r' && /\s/.test(ch);
const isWordChar = (ch) => /[A-Za-z0-9_-]/.test(ch ?? '');
const isNumberChar = (ch) => /[0-9.,]/.test(ch ?? '');
const quote = (s) => JSON.stringify(s.length > MAX_TOKEN ? `${s.slice(0, MAX_TOKEN)}…` : s);

// Terminal colours (torchtitan colours its fields): ESC [ digits/semicolons m.
const ANSI = /\u001b\[[0-9;]{0,16}m/g;

// Every occurrence of each label: the figure after it, or the first text it could not read.
// `work.steps` counts the characters looked at (a test's proxy for linear time).
function scan(text, work) {
  const found = {};
  for (const r of READS) {
    let from = 0;
    for (;;) {
      const at = text.indexOf(r.label, from);
      work.steps += (at < 0 ? text.length : at) - from + r.label.length;
      if (at < 0) break;
      let i = at + r.label.length;
      from = i;
      if (isWordChar(text[at - 1]) || (!r.label.endsWith(':') && isWordChar(text[i]))) continue;
      const skip = () => {
        while (i < text.length && isSpace(text[i])) ((i += 1), (work.steps += 1));
      };
      skip();
      if (r.sep && r.sep.includes(text[i] ?? '\0')) ((i += 1), skip());
      const start = i;
      while (i < text.length && i - start <= MAX_TOKEN && !/[\s|]/.test(text[i])) {
        i += 1;
        work.steps += 1;
      }
      const token = text.slice(start, i);
      let gap = i;
      while (gap < text.length && gap - i <= MAX_TOKEN && isSpace(text[gap])) gap += 1;
      work.steps += gap - i;
      from = Math.max(from, i);
      const m = token.length <= MAX_TOKEN ? r.form.exec(token) : null;
      const said = `${r.tool}'s "${r.label.replace(/:$/, '')}"`;
      const split = gap > i && isNumberChar(text[gap]);
      if (!m || split) {
        // A figure split by a space ("1 234.5"): shown with the digits after it.
        let end = gap;
        while (split && end < text.length && end - gap < MAX_TOKEN && !/[\s|]/.test(text[end]))
          end += 1;
        const shown = split ? text.slice(start, end) : token;
        const what = token ? `Could not read ${quote(shown)}` : 'No figure';
        return {
          error: `${what} after ${said}: it prints ${r.example}, in that form. Expected ${EXPECTED}.`,
        };
      }
      const v = Number(m[1].replaceAll(',', ''));
      if (!Number.isFinite(v) || v <= 0) {
        return { error: `${said} is ${quote(token)}: a measured figure is above 0.` };
      }
      // One figure from two labels of one tool (Megatron's two memories): the later in the text.
      const prev = (found[r.figure] ??= {})[r.tool];
      if (!prev || at > prev.at) {
        found[r.figure][r.tool] = { r, value: r.to(v), text: `${r.label} ${token}`, at };
      }
    }
  }
  return { found };
}

// The text -> { tool, figures: { step_time_s?, tflops_per_gpu?, peak_memory_gb?,
// tokens_per_s_per_gpu? }, mfu?, read: [what each figure was read from], from: { figure: the
// text it was read from } } or { error }. A text
// with no time of a step (Megatron's iteration time, torchtitan's tps) is refused: a
// calibration needs one. `gpu` ({ name, peak_tflops, fp8_tflops? }, the lab's GPU): a TFLOP/s
// above its peak, or torchtitan's tflops and mfu implying another GPU's peak, is refused.
// `work` ({ steps: 0 }) is given the characters looked at.
export function parseRunLog(text, { gpu = null, work = { steps: 0 } } = {}) {
  if (typeof text !== 'string' || !text.trim()) return { error: `Paste ${EXPECTED}.` };
  if (text.length > MAX_CHARS) {
    return { error: `That is ${text.length} characters; paste at most ${MAX_CHARS}: ${EXPECTED}.` };
  }
  // torchtitan's validation lines print memory and tps as its step lines do, but of evaluation
  // (forward passes only): read, they would pass for the training step's. One split and one
  // search per line: linear.
  const lines = text.replace(ANSI, '').split(/\r\n|\r|\n/);
  const training = lines.filter((line) => !line.includes(VALIDATION));
  const scanned = scan(training.join('\n'), work);
  if (scanned.error) return { error: scanned.error };
  const tools = new Set();
  const picks = [];
  for (const byTool of Object.values(scanned.found)) {
    for (const tool of Object.keys(byTool)) tools.add(tool);
    picks.push(Object.values(byTool)[0]);
  }
  if (tools.size > 1) {
    return {
      error: `That mixes Megatron-LM's and torchtitan's lines: paste one tool's. Expected ${EXPECTED}.`,
    };
  }
  const figures = {};
  for (const p of picks.sort((a, b) => READS.indexOf(a.r) - READS.indexOf(b.r))) {
    figures[p.r.figure] = p.value;
  }
  const read = picks.map((p) => p.text);
  // Where each figure came from: the text it was read from ("tps: 1,234").
  const from = Object.fromEntries(picks.map((p) => [p.r.figure, p.text]));
  if (!('step_time_s' in figures) && !('tokens_per_s_per_gpu' in figures)) {
    const skipped =
      training.length < lines.length
        ? ` (torchtitan's "${VALIDATION}" lines are not read: their tps is of evaluation, not of a training step)`
        : '';
    return { error: `Not understood: no time per step in it${skipped}. Expected ${EXPECTED}.` };
  }
  const { mfu, ...rest } = figures;
  const refused = gpu && peakCheck(rest.tflops_per_gpu, mfu, gpu);
  if (refused) return { error: refused };
  return { tool: [...tools][0], figures: rest, ...(mfu ? { mfu } : {}), read, from };
}

// A TFLOP/s per GPU above the GPU's peak, or torchtitan's tflops / mfu (the peak it measured
// against) more than PEAK_TOLERANCE from the lab's GPU's dense BF16 peak: the figures are of
// another GPU than the lab's.
function peakCheck(tflops, mfu, gpu) {
  const peak = gpu.peak_tflops;
  if (!(peak > 0)) return null;
  const top = Math.max(peak, gpu.fp8_tflops || 0);
  if (tflops > top) {
    return (
      `The log's ${tflops} TFLOP/s per GPU is above the ${gpu.name}'s peak, ${top} TFLOP/s: ` +
      'it is of another GPU, or another figure.'
    );
  }
  if (!(tflops > 0 && mfu > 0)) return null;
  const implied = tflops / mfu;
  if (Math.abs(implied / peak - 1) <= PEAK_TOLERANCE) return null;
  const pct = +(100 * mfu).toFixed(2);
  return (
    `The log's tflops ${tflops} at mfu ${pct}% imply a GPU peak of ${Math.round(implied)} ` +
    `TFLOP/s; the lab's ${gpu.name} has ${peak} (more than ${100 * PEAK_TOLERANCE}% apart): ` +
    'choose the run\u2019s GPU before reading its line.'
  );
}
