// Reference runs: published training runs with the model's prediction beside the published
// figure (an iteration time, a throughput or an MFU), the error and the source, each run
// evaluated by the core with the tool's defaults for its GPU (lab.referenceRuns(), on the
// planner's module: the first-load one leaves the runs out), and a button that loads the run's
// scenario into the lab. Above the table, each group's mean, median and worst error. The runs
// are asked for once the lab is ready and the page idle, of a worker (planner/search.js): 30
// evaluations and 320 KB of JSON, 50-80 ms on a first call, were the page's longest task.
import { make, panel } from '../lib/dom.js';
import { verdictOf } from '../lib/fit-text.js';
import * as fmt from '../lib/format.js';

// How each metric reads.
const METRICS = {
  step_s: { label: 'iteration time', show: (v) => fmt.seconds(v) },
  tflops_per_gpu: { label: 'TFLOP/s per GPU', show: (v) => `${fmt.count(v)} TFLOP/s` },
  mfu: { label: 'MFU', show: (v) => fmt.percent(v) },
  gpu_hours_per_trillion_tokens: {
    label: 'GPU-hours per trillion tokens',
    show: (v) => `${fmt.count(v)} GPU-h/T tokens`,
  },
  model_params: { label: 'parameters', show: (v) => `${fmt.count(v)} params` },
  model_active_params: { label: 'active parameters', show: (v) => `${fmt.count(v)} active` },
};
const COLUMNS = ['Run', 'Layout DP×TP×PP', 'Published', 'Model', 'Error', 'Memory per GPU', 'Load'];

const pct = (v) => `${(100 * v).toFixed(1)}%`;
const signed = (e) => `${e > 0 ? '+' : '−'}${pct(Math.abs(e))}`;

// "Korthikanti et al. 2022, Table 5 (8 runs): mean error 5.0%, median 4.8%, worst 9.8%".
function summary(runs) {
  const groups = new Map();
  for (const run of runs) {
    if (run.error === null || run.error === undefined) continue;
    if (!groups.has(run.table)) groups.set(run.table, []);
    groups.get(run.table).push(Math.abs(run.error));
  }
  return [...groups].map(([table, errors]) => {
    const sorted = [...errors].sort((a, b) => a - b);
    const n = sorted.length;
    const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    const mean = errors.reduce((a, b) => a + b, 0) / n;
    if (n === 1) return `${table}: ${pct(mean)} off`;
    return `${table} (${n} runs): mean error ${pct(mean)}, median ${pct(median)}, worst ${pct(sorted[n - 1])}`;
  });
}

// A number cell with its raw value kept for tests.
function cell(tr, field, value, text, title = '') {
  const td = make('td', { className: 'num', textContent: text, title }, tr);
  td.dataset.field = field;
  td.dataset.value = String(value);
  return td;
}

function runRow(body, run, onLoad) {
  const r = run.report;
  const metric = METRICS[run.metric];
  const tr = make('tr', {}, body);
  tr.dataset.run = run.name;
  tr.dataset.metric = run.metric;
  const name = make('th', { scope: 'row' }, tr);
  make('span', { className: 'run-name', textContent: run.name }, name);
  make('span', { className: 'run-source', textContent: run.source }, name);
  make('td', { textContent: fmt.degrees(r.degrees) }, tr);
  const p = run.published;
  cell(
    tr,
    'published',
    p,
    p > 0 ? metric.show(p) : 'not reported',
    p > 0 ? `published ${metric.label}` : '',
  );
  const rates = `MFU ${fmt.percent(r.time.mfu)}, HFU ${fmt.percent(r.time.hfu)}, ${fmt.count(r.time.tflops_per_gpu)} TFLOP/s per GPU`;
  cell(tr, 'model', run.predicted, metric.show(run.predicted), `${metric.label}; ${rates}`);
  cell(tr, 'error', run.error, run.error === null ? '—' : signed(run.error));
  const m = r.memory;
  const safe = fmt.percent(m.safe_fraction);
  const verdict = verdictOf(m);
  const shown = {
    fits: ['ok', '✓', `fits: under ${safe} of the GPU`],
    tight: ['tight', '⚠ tight', `tight: over ${safe} of the GPU, within it`],
    over: ['bad', '✗', 'does not fit: over the GPU'],
  }[verdict];
  make(
    'td',
    {
      className: `num ${shown[0]}`,
      textContent: `${fmt.bytes(m.per_gpu_bytes)} of ${fmt.bytes(m.gpu_memory_bytes)} ${shown[1]}`,
      title: shown[2],
    },
    tr,
  );
  const td = make('td', {}, tr);
  const button = make('button', { type: 'button', className: 'load', textContent: 'Load' }, td);
  button.setAttribute('aria-label', `Load ${run.name} into the lab`);
  button.addEventListener('click', () => onLoad(r.scenario));
}

// `runs()`: a promise of the runs (planner/search.js referenceRuns); `later(fn)`: calls fn once
// the lab is ready and the page idle.
export function createReferences(root, { onLoad, runs, later = (fn) => fn() }) {
  const section = panel(root, 'references', 'Reference runs');
  make(
    'p',
    {
      className: 'small',
      textContent:
        "Published runs, each evaluated by this model with its defaults for the run's GPU " +
        "(the matmul efficiency calibrated per GPU, which the form's efficiency field shows). " +
        '"Published" is what the ' +
        'authors report: an iteration time, a throughput (hardware FLOPs, recomputation ' +
        'included), an MFU, GPU-hours per trillion tokens or a parameter count. Runs without a ' +
        'figure are checked for fitting their GPUs.',
    },
    section,
  );
  const status = make('p', { className: 'small runs-status', hidden: true }, section);
  const totals = make('ul', { className: 'small run-summary' }, section);
  const wrap = make('div', { className: 'table-wrap' }, section);
  // Hidden until the runs arrive: an empty table, wider than its box, is a scrollable region
  // with nothing to focus.
  const table = make('table', { className: 'runs', hidden: true }, wrap);
  const head = make('tr', {}, make('thead', {}, table));
  for (const h of COLUMNS) {
    const hidden = h === 'Load' ? 'visually-hidden' : '';
    make('th', { scope: 'col', textContent: h, className: hidden }, head);
  }
  const body = make('tbody', {}, table);
  let asked = false;

  return {
    // The runs do not depend on the lab's state: built once, when first shown, once the
    // lab is ready and the page idle.
    update() {
      if (asked) return;
      asked = true;
      Object.assign(status, { hidden: false, textContent: 'Loading the reference runs…' });
      const load = () =>
        runs().then((list) => {
          for (const line of summary(list)) make('li', { textContent: line }, totals);
          for (const run of list) runRow(body, run, onLoad);
          status.hidden = true;
          table.hidden = false;
        });
      later(() =>
        load().catch((e) => {
          asked = false; // the next update tries again
          status.textContent = `The reference runs could not load: ${e.message}`;
        }),
      );
    },
  };
}
