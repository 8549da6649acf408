// Step time and what it buys: the slowest pipeline stage's compute, the pipeline bubble, the
// communication each seam leaves exposed and the optimizer step (the core's time model,
// step_time.h), then MFU (model FLOPs) and HFU (hardware FLOPs, recomputation included),
// TFLOP/s per GPU, tokens per second and the time to train (none of these for a run that does
// not fit its GPUs: it would never run). All from report.time.
import { make, panel, showNone, showNumber } from '../lib/dom.js';
import * as fmt from '../lib/format.js';

const PARTS = [
  ['compute', 'Compute (slowest stage)', 'compute_s'],
  ['bubble', 'Pipeline bubble', 'bubble_s'],
  ['data', 'Exposed data-parallel communication', 'exposed_data_s'],
  ['tensor', 'Exposed tensor-parallel communication', 'exposed_tensor_s'],
  ['pipeline', 'Exposed pipeline sends', 'exposed_pipeline_s'],
  ['context', 'Exposed context-parallel K/V exchange', 'exposed_context_s'],
  ['expert', 'Exposed expert all-to-alls', 'exposed_expert_s'],
  ['optimizer', 'Optimizer step', 'optimizer_s'],
];
const RATES = [
  ['mfu', 'MFU (model FLOPs)'],
  ['hfu', 'HFU (hardware FLOPs)'],
  ['tflops', 'TFLOP/s per GPU (hardware)'],
  ['tokens', 'Tokens per second'],
  ['train', 'Time to train'],
];

// The note under the numbers: what set the pace and at what efficiency (the state's
// efficiency is null where the GPU's calibrated value applies).
function noteText(t, s, state) {
  const source =
    state?.efficiency != null
      ? 'the efficiency input'
      : `${s.gpu ? fmt.gpu(s.gpu) : 'the GPU'}'s calibrated value`;
  return (
    `The pipeline runs at the pace of its slowest stage (stage ${t.slowest_stage}): its ` +
    `matmuls (recomputation included) at ${t.matmul_efficiency} of the ${s.gpu_peak_tflops} ` +
    `TFLOP/s dense peak (${source}), its elementwise kernels at memory bandwidth. The bubble ` +
    'is the pipeline filling and draining; communication counts only where the overlap ' +
    'switches cannot hide it behind compute.'
  );
}

// MFU is against the peak the GEMMs run at (report.time.mfu_peak_tflops: FP8's under FP8);
// beside it, the other peak's figure, named. Model FLOPs past a peak read as a multiple of it
// ("1.04× the BF16 peak"), never as an MFU above 100%.
const PEAKS = {
  bf16: ['BF16', 'fp8', 'FP8'],
  fp8: ['FP8', 'bf16', 'BF16'],
  fp4: ['FP4', 'bf16', 'BF16'],
};
function showOtherPeak(node, t) {
  const [name, otherKey, other] = PEAKS[t.mfu_peak];
  const key = `mfu_${otherKey}_peak`;
  const share = t[key];
  node.textContent = ` of the ${name} peak` + (share > 0 ? `; ${fmt.ofPeak(share, other)}` : '');
  node.title = share > 0 ? `${key} ${share}` : `the GPU has no ${other} peak`;
  if (share > 0) node.dataset.explain = `time.${key}`;
  else node.removeAttribute('data-explain');
}

function showRates(dd, t, s, fits) {
  if (!fits) {
    for (const [key] of RATES) showNone(dd[key], 'the run does not fit its GPUs');
    dd.mfuPeak.textContent = '';
    return;
  }
  dd.mfu.dataset.explain = 'time.mfu';
  showNumber(dd.mfu, t.mfu, fmt.percent(t.mfu), `model FLOPs utilisation ${t.mfu}`);
  showOtherPeak(dd.mfuPeak, t);
  showNumber(dd.hfu, t.hfu, fmt.percent(t.hfu), `hardware FLOPs utilisation ${t.hfu}`);
  showNumber(
    dd.tflops,
    t.tflops_per_gpu,
    fmt.count(t.tflops_per_gpu),
    `${t.tflops_per_gpu} TFLOP/s`,
  );
  showNumber(
    dd.tokens,
    t.tokens_per_s,
    fmt.count(t.tokens_per_s),
    `${fmt.exactNumber(t.tokens_per_s)} tokens/s`,
  );
  if (s.train_tokens > 0) {
    showNumber(
      dd.train,
      t.time_to_train_s,
      `${fmt.duration(t.time_to_train_s)} for ${fmt.count(s.train_tokens)} tokens`,
      `${fmt.exactNumber(t.time_to_train_s)} s`,
    );
  } else {
    showNumber(dd.train, 0, 'set a token budget', 'token budget is 0');
  }
}

export function createStepTime(root) {
  const section = panel(root, 'steptime', 'Step time');
  const big = make('p', { className: 'big num' }, section);
  const bar = make('div', { className: 'stack' }, section);
  bar.setAttribute('aria-hidden', 'true');
  const segs = PARTS.map(([key]) => make('span', { className: `seg time-${key}` }, bar));
  const facts = make('dl', { className: 'facts' }, section);
  const dd = {};
  for (const [key, label] of [...PARTS, ...RATES]) {
    const div = make('div', {}, facts);
    div.dataset.time = key;
    const dt = make('dt', {}, div);
    if (PARTS.some(([k]) => k === key)) {
      make('span', { className: `swatch time-${key}` }, dt).setAttribute('aria-hidden', 'true');
    }
    dt.append(label);
    dd[key] = make('dd', {}, div);
  }
  const note = make('p', { className: 'small' }, section);
  // The numbers the core derives (report.explain): app/explain.js makes them show their math.
  big.dataset.explain = 'time.step_s';
  const mfuCell = dd.mfu;
  dd.mfu = make('span', {}, mfuCell); // a dd cannot be the button app/explain.js makes of it
  dd.mfu.dataset.explain = 'time.mfu';
  dd.mfuPeak = make('span', { className: 'small' }, mfuCell);

  return {
    update(report, state) {
      const t = report.time;
      showNumber(big, t.step_s, `${fmt.seconds(t.step_s)} per step`, `${t.step_s} s`);
      PARTS.forEach(([key, , field], k) => {
        segs[k].style.width = `${t.step_s > 0 ? (100 * t[field]) / t.step_s : 0}%`;
        showNumber(dd[key], t[field], fmt.seconds(t[field]), `${t[field]} s`);
      });
      showRates(dd, t, report.scenario, report.memory.fits);
      note.textContent = noteText(t, report.scenario, state);
    },
  };
}
