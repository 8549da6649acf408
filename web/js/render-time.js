// Step time and what it buys: compute, the pipeline bubble and the communication that is not
// overlapped (the core assumes none is: an upper bound), then MFU, TFLOP/s per GPU, tokens per
// second and the time to train on the token budget. All from report.time.
import { make, panel, showNumber } from './dom.js';
import * as fmt from './format.js';

const PARTS = [
  ['compute', 'Compute', 'compute_s'],
  ['bubble', 'Pipeline bubble', 'bubble_s'],
  ['comms', 'Exposed communication', 'exposed_comms_s'],
];

export function createStepTime(root) {
  const section = panel(root, 'steptime', 'Step time');
  const big = make('p', { className: 'big num' }, section);
  const bar = make('div', { className: 'stack' }, section);
  bar.setAttribute('aria-hidden', 'true');
  const segs = PARTS.map(([key]) => make('span', { className: `seg time-${key}` }, bar));
  const facts = make('dl', { className: 'facts' }, section);
  const dd = {};
  const rows = [
    ...PARTS,
    ['mfu', 'MFU'],
    ['tflops', 'TFLOP/s per GPU'],
    ['tokens', 'Tokens per second'],
    ['train', 'Time to train'],
  ];
  for (const [key, label] of rows) {
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

  return {
    update(report) {
      const t = report.time;
      const s = report.scenario;
      showNumber(big, t.step_s, `${fmt.seconds(t.step_s)} per step`, `${t.step_s} s`);
      PARTS.forEach(([key, , field], k) => {
        segs[k].style.width = `${t.step_s > 0 ? (100 * t[field]) / t.step_s : 0}%`;
        showNumber(dd[key], t[field], fmt.seconds(t[field]), `${t[field]} s`);
      });
      showNumber(dd.mfu, t.mfu, fmt.percent(t.mfu), `model FLOPs utilisation ${t.mfu}`);
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
      note.textContent =
        `Compute runs the step's hardware FLOPs (recomputation included) at ` +
        `${s.efficiency} of the ${s.gpu_peak_tflops} TFLOP/s dense peak: the efficiency input, ` +
        'the achievable fraction of peak. The bubble stretches it; communication is added as ' +
        'if none of it overlapped with compute (an upper bound on the step).';
    },
  };
}
