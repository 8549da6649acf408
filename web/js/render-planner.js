// "Find the best layout": runs the core's exhaustive planner (lab.plan) on the lab's model,
// GPU count and type, sequence length and global batch; shows how many configurations it
// evaluated and how many fit, the time it took in this page, the fastest rows and why the best
// one wins. Choosing a row loads its scenario into the lab.
import { make, panel } from './dom.js';
import * as fmt from './format.js';

export const TOP = 10;

// What the planner chooses; everything else in a scenario is its input.
const CHOSEN = [
  'degrees',
  'seams',
  'zero_stage',
  'recompute',
  'sequence_parallel',
  'micro_batch',
  'schedule',
  'virtual_stages',
];

function inputsKey(scenario) {
  const rest = { ...scenario };
  for (const k of CHOSEN) delete rest[k];
  return JSON.stringify(rest);
}

const RECOMPUTE = { none: 'none', selective: 'selective', full: 'full' };
const COLUMNS = ['#', 'DP×TP×PP', 'ZeRO', 'Recompute', 'SP', 'Micro-batch', 'Schedule'];
const NUMBERS = ['Memory per GPU', 'Step', 'Bubble', 'MFU']; // right-aligned

// One plan as a table row, with a button that loads its scenario into the lab.
function planRow(p, i, onApply) {
  const tr = make('tr');
  const cells = [
    String(i + 1),
    fmt.degrees(p.degrees),
    String(p.zero_stage),
    RECOMPUTE[p.recompute] ?? p.recompute,
    p.sequence_parallel ? 'on' : 'off',
    String(p.micro_batch),
    p.schedule === 'interleaved' ? `interleaved, v = ${p.virtual_stages}` : '1F1B',
    fmt.bytes(p.per_gpu_bytes),
    fmt.seconds(p.step_s),
    fmt.percent(p.bubble_fraction),
    fmt.percent(p.mfu),
  ];
  cells.forEach((text, k) => {
    const className = k >= COLUMNS.length ? 'num' : '';
    const cell = make(k === 0 ? 'th' : 'td', { textContent: text, className }, tr);
    if (k === 0) cell.scope = 'row';
  });
  const use = { type: 'button', className: 'apply', textContent: 'Use' };
  const button = make('button', use, make('td', {}, tr));
  button.setAttribute('aria-label', `Use layout ${i + 1}: ${fmt.degrees(p.degrees)}`);
  button.addEventListener('click', () => onApply(p.scenario));
  return tr;
}

// The results table (hidden until a search finds a plan): its body.
function planTable(section) {
  const wrap = make('div', { className: 'table-wrap' }, section);
  const table = make('table', { className: 'plans', hidden: true }, wrap);
  const head = make('tr', {}, make('thead', {}, table));
  for (const h of [...COLUMNS, ...NUMBERS, 'Use']) {
    const className = h === 'Use' ? 'visually-hidden' : '';
    make('th', { scope: 'col', textContent: h, className }, head);
  }
  return { table, body: make('tbody', {}, table) };
}

const ABOUT =
  'Searches every DP×TP×PP factorization of the GPU count × ZeRO stage × recomputation × ' +
  'sequence parallel × micro-batch × schedule (1F1B, or interleaved with every valid number of ' +
  'chunks) for the model, GPU, network, sequence length and global batch set above; drops the ' +
  'layouts that do not fit in memory and ranks the rest by step time (ties: less memory).';

export function createPlanner(root, { lab, onApply }) {
  const section = panel(root, 'planner', 'Find the best layout');
  make('p', { className: 'small', textContent: ABOUT }, section);
  const label = 'Find the best layout';
  const run = make(
    'button',
    { type: 'button', className: 'run-planner', textContent: label },
    section,
  );
  const status = make('p', { className: 'plan-status' }, section);
  status.setAttribute('role', 'status');
  const staleText = 'The inputs changed since this search: search again for them.';
  const stale = make(
    'p',
    { className: 'small plan-stale', hidden: true, textContent: staleText },
    section,
  );
  const why = make('p', { className: 'why-best' }, section);
  const { table, body } = planTable(section);
  let scenario = null; // the lab's current scenario
  let searchedKey = null;
  let runs = 0;

  function show(result, ms) {
    status.textContent =
      `Evaluated ${fmt.integer(result.evaluated)} configurations; ` +
      `${fmt.integer(result.feasible)} fit in memory. The search took ${ms.toFixed(1)} ms in this page.`;
    Object.assign(status.dataset, {
      ms: String(ms),
      evaluated: String(result.evaluated),
      feasible: String(result.feasible),
      run: String(++runs),
    });
    why.textContent = result.why_best ?? '';
    table.hidden = result.plans.length === 0;
    body.replaceChildren(...result.plans.map((p, i) => planRow(p, i, onApply)));
  }

  run.addEventListener('click', () => {
    if (!scenario) return;
    const t0 = performance.now();
    let result;
    try {
      result = lab.plan(scenario, TOP);
    } catch (e) {
      status.textContent = `The planner refused: ${e.message}`;
      return;
    }
    const ms = performance.now() - t0;
    searchedKey = inputsKey(scenario);
    stale.hidden = true;
    show(result, ms);
  });

  return {
    update(report) {
      scenario = report.scenario;
      stale.hidden = searchedKey === null || searchedKey === inputsKey(scenario);
    },
  };
}
