// "Find the best layout": runs the core's exhaustive planner on the lab's model, GPU count and
// type, sequence length and global batch, in a worker (planner/search.js, which app/advanced.js
// passes in with the margin's state row) with progress and a Cancel button; shows how many
// configurations it evaluated and how many fit under the headroom margin, one row per
// DP×TP×PP layout (its fastest configuration; the others fold under it), sortable by every
// column, the core's reason when none fits and its warnings when the batch is small for the
// fleet; "CSV" downloads every row. "Use" on a row loads its scenario into the lab, "Pin" adds
// it to Compare (onPin). Rows within the core's tie tolerance of the fastest (plan result
// `tie_within`) are marked as ties, the rule said above the table; the margin is kept free
// below the core's rule that a plan fits (schema().planner.fit_rule, 80%), said beside it.
import { make, panel } from '../lib/dom.js';
import * as fmt from '../lib/format.js';
import { download } from '../lib/share.js';

export const TOP = 50;

// What the planner chooses; everything else in a scenario is its input. A plan with CP
// writes the CP method it was searched with (context_parallel, inert without CP).
const CHOSEN = [
  'degrees',
  'seams',
  'context_parallel',
  'zero_stage',
  'recompute',
  'recompute_modules',
  'recompute_layers',
  'recompute_method',
  'offload_layers',
  'precision',
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

const layoutOf = (p) => fmt.degrees(p.degrees);
// The recomputation in words, with the offloaded layers the plan chose beside it.
function recomputeOf(p) {
  const n = p.recompute_layers;
  const layers = n === 1 ? 'first layer' : `first ${n} layers`;
  const modules = (p.recompute_modules ?? [])
    .map((m) => fmt.recomputeModuleWords[m] ?? m)
    .join(', ');
  const how = {
    none: 'none',
    selective: `selective (${modules})`,
    full: n > 0 ? `full, ${layers} of a stage` : 'full, every layer',
  }[p.recompute];
  const k = p.offload_layers ?? 0;
  const offload = k > 0 ? `, ${k === 1 ? 'last layer' : `last ${k} layers`} offloaded` : '';
  return `${how ?? p.recompute}${offload}`;
}
const scheduleOf = (p) =>
  p.schedule === 'interleaved' ? `interleaved, v = ${p.virtual_stages}` : fmt.schedule(p.schedule);

// Sort values: numbers and strings, or a layout's degrees compared seam by seam.
function compare(a, b) {
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

// Every column: its heading, the value it sorts by and the text it shows; num: right-aligned.
const COLUMNS = [
  {
    h: 'DP×TP×PP',
    v: ({ degrees: d }) => [d.dp, d.tp, d.pp, d.cp ?? 1, d.ep ?? 1],
    t: layoutOf,
  },
  { h: 'ZeRO', v: (p) => p.zero_stage, t: (p) => String(p.zero_stage) },
  { h: 'Recompute', v: recomputeOf, t: recomputeOf },
  {
    h: 'SP',
    v: (p) => Number(p.sequence_parallel),
    t: (p) => (p.sequence_parallel ? 'on' : 'off'),
  },
  { h: 'FP8', v: (p) => Number(p.fp8), t: (p) => (p.fp8 ? 'on' : 'off') },
  { h: 'Micro-batch', v: (p) => p.micro_batch, t: (p) => String(p.micro_batch), num: true },
  { h: 'Schedule', v: (p) => p.virtual_stages, t: scheduleOf },
  {
    h: 'Memory per GPU',
    v: (p) => p.per_gpu_bytes,
    // A plan past the 80% rule says so in words (the core's verdict, memory.h).
    t: (p) => fmt.bytes(p.per_gpu_bytes) + (p.verdict === 'tight' ? ' tight' : ''),
    cls: (p) => (p.verdict === 'tight' ? 'tight' : ''),
    num: true,
  },
  { h: 'Step', v: (p) => p.step_s, t: (p) => fmt.seconds(p.step_s), num: true },
  { h: 'Bubble', v: (p) => p.bubble_fraction, t: (p) => fmt.percent(p.bubble_fraction), num: true },
  { h: 'MFU', v: (p) => p.mfu, t: (p) => fmt.percent(p.mfu), num: true },
  {
    h: 'Cost / trillion tokens',
    v: (p) => p.usd_per_trillion_tokens,
    t: (p) => fmt.usd(p.usd_per_trillion_tokens),
    num: true,
  },
];
const STEP = 8; // the default order: the core's, by step time
// The note over a table whose search had other inputs.
const STALE = {
  className: 'small plan-stale',
  hidden: true,
  textContent: 'The inputs changed since this search: search again for them.',
};

// Every row of a result as CSV: the layouts' fastest and their variants, exact numbers.
export function plansCsv(plans) {
  const head = ['rank', 'variant', 'dp', 'tp', 'pp', 'zero_stage', 'recompute'];
  head.push('recompute_modules', 'recompute_layers', 'offload_layers', 'fp8');
  head.push('sequence_parallel', 'micro_batch', 'schedule', 'virtual_stages', 'per_gpu_bytes');
  head.push(
    'verdict',
    'step_s',
    'bubble_fraction',
    'mfu',
    'tokens_per_s',
    'usd_per_trillion_tokens',
  );
  const lines = [head.join(',')];
  plans.forEach((best, i) => {
    [best, ...(best.variants ?? [])].forEach((p, k) => {
      const { dp, tp, pp } = p.degrees;
      const row = [i + 1, k, dp, tp, pp, p.zero_stage, p.recompute];
      row.push((p.recompute_modules ?? []).join(' '), p.recompute_layers, p.offload_layers, p.fp8);
      row.push(p.sequence_parallel);
      row.push(p.micro_batch, p.schedule, p.virtual_stages, p.per_gpu_bytes, p.verdict, p.step_s);
      row.push(p.bubble_fraction, p.mfu, p.tokens_per_s, p.usd_per_trillion_tokens);
      lines.push(row.join(','));
    });
  });
  return `${lines.join('\n')}\n`;
}

// One plan as a table row: its rank (or "variant"), its cells, a button that loads it and one
// that pins it in Compare; a tie with the fastest (act.tie(p)) is marked, in words too.
function planRow(p, label, act, variant) {
  const tr = make('tr', { className: variant ? 'variant' : 'layout' });
  const th = make('th', { scope: 'row', textContent: label }, tr);
  if (act.tie(p)) {
    tr.classList.add('tie');
    const mark = make('span', { className: 'tie-mark', textContent: ' ≈' }, th);
    mark.title = "a tie with the fastest: within the model's error";
    make('span', { className: 'visually-hidden', textContent: ' (a tie with the fastest)' }, th);
  }
  for (const c of COLUMNS) {
    const className = [c.num ? 'num' : '', c.cls?.(p) ?? ''].filter(Boolean).join(' ');
    make('td', { textContent: c.t(p), className }, tr);
  }
  const cell = make('td', { className: 'plan-actions' }, tr);
  const what = `${variant ? 'variant' : 'layout'} ${label}: ${layoutOf(p)}`;
  const use = make('button', { type: 'button', className: 'apply', textContent: 'Use' }, cell);
  use.setAttribute('aria-label', `Use ${what}`);
  use.addEventListener('click', () => act.apply(p.scenario));
  if (act.pin) {
    const pin = make('button', { type: 'button', className: 'pin-plan', textContent: 'Pin' }, cell);
    pin.setAttribute('aria-label', `Pin ${what} in Compare`);
    pin.addEventListener('click', () => act.pin(p.scenario, layoutOf(p)));
  }
  return { tr, th };
}

// A layout's row and, once its fold button opens them, its variants' rows: built only then,
// as the 50 layouts of a large search have hundreds of variants between them (316 for 405B on
// 16,384 GPUs: 4,800 elements built and hidden made the table's drawing a long task).
function layoutRows(p, i, act, open, onToggle, sortRows) {
  const { tr, th } = planRow(p, String(i + 1), act, false);
  const count = p.variants?.length ?? 0;
  if (count > 0) {
    const more = `${count} more`;
    const fold = make('button', { type: 'button', className: 'fold', textContent: more }, th);
    fold.setAttribute('aria-expanded', String(open));
    fold.setAttribute('aria-label', `${more} of ${layoutOf(p)}: ZeRO, recompute, SP, batch`);
    fold.addEventListener('click', () => onToggle(p));
  }
  if (!open || count === 0) return [tr];
  const variants = sortRows(p.variants).map(
    (v, k) => planRow(v, `${i + 1}.${k + 1}`, act, true).tr,
  );
  return [tr, ...variants];
}

// The results table (hidden until a search finds a plan): its head's sort buttons, its body.
function planTable(section, onSort) {
  const wrap = make('div', { className: 'table-wrap' }, section);
  const table = make('table', { className: 'plans', hidden: true }, wrap);
  const head = make('tr', {}, make('thead', {}, table));
  make('th', { scope: 'col', textContent: '#' }, head);
  const ths = COLUMNS.map((c, k) => {
    const th = make('th', { scope: 'col', className: c.num ? 'num' : '' }, head);
    const b = make('button', { type: 'button', className: 'sort', textContent: c.h }, th);
    b.addEventListener('click', () => onSort(k));
    return th;
  });
  make('th', { scope: 'col', textContent: 'Use or pin', className: 'visually-hidden' }, head);
  return { table, ths, body: make('tbody', {}, table) };
}

const ABOUT =
  'Searches every DP×TP×PP factorization of the GPU count (with CP and EP where the scenario ' +
  'allows them) × ZeRO stage × recomputation (by module and by layer) or activation offload × ' +
  'FP8 where the GPU has it × sequence parallel × micro-batch × schedule (1F1B, or interleaved ' +
  'with every valid number of chunks) for the model, GPU, network, sequence length and global ' +
  'batch set above; drops the ' +
  'configurations that do not fit with the margin below and ranks the rest by step time, or by ' +
  'the time to train with failures and checkpoints (equal times: less memory first). One row ' +
  'per layout; its other configurations fold under it.';

// What a search may rank by: the core's choices (schema().planner.rank), in words.
const RANK_WORDS = { step: 'step time', time_with_failures: 'time to train with failures' };

// The search's controls: the margin (its state row `row`: range and default), what to rank by
// (`rankRow`: the core's choices), the button, Cancel, the progress and the status line.
function controls(section, row, rankRow) {
  const bar = make('div', { className: 'plan-controls' }, section);
  const label = make('label', { className: 'plan-headroom' }, bar);
  label.append('Headroom margin ');
  const [min, max] = row.range;
  const value = row.default;
  const margin = make('input', { type: 'number', min, max, step: 5, value }, label);
  margin.name = 'plan_headroom';
  label.append(' % of GPU memory kept free (20 keeps only plans under the fit rule)');
  const rankLabel = make('label', { className: 'plan-rank', textContent: 'Rank by ' }, bar);
  const rank = make('select', { name: 'plan_rank' }, rankLabel);
  for (const choice of rankRow?.choices ?? ['step']) {
    make('option', { value: choice, textContent: RANK_WORDS[choice] ?? choice }, rank);
  }
  rank.value = rankRow?.default ?? 'step';
  const runText = 'Find the best layout';
  const run = make(
    'button',
    { type: 'button', className: 'run-planner', textContent: runText },
    bar,
  );
  const cancelProps = { type: 'button', className: 'cancel-planner', textContent: 'Cancel' };
  const cancel = make('button', { ...cancelProps, hidden: true }, bar);
  const csvProps = { type: 'button', className: 'plan-csv', textContent: 'CSV', hidden: true };
  const csv = make('button', csvProps, bar);
  csv.setAttribute('aria-label', 'Download the planner rows as CSV');
  const progress = make('progress', { className: 'plan-progress', hidden: true, max: 1 }, section);
  progress.setAttribute('aria-label', 'Planner progress');
  const rule = make('p', { className: 'small plan-rule' }, section);
  const status = make('p', { className: 'plan-status' }, section);
  status.setAttribute('role', 'status');
  return { margin, rank, run, cancel, csv, progress, rule, status };
}

// The rule a plan must meet, with its source, and what the margin does: the core's sentence
// (schema().planner.fit_rule); the limit with the margin is the search's (memory_limit_bytes).
function ruleText(rule, margin) {
  return margin > 0
    ? `${rule} The margin keeps ${fmt.percent(margin)} of GPU memory free.`
    : `${rule} With no margin the planner lists tight plans too, marked tight.`;
}

// The tie rule over the table, from the core's tolerance (plan result tie_within).
const tieText = (within) =>
  `≈ marks a tie: within ${fmt.percent(within)} of the fastest step, the model cannot tell ` +
  'them apart (its step times are off by about that much against published runs).';

// The status line after a search: what it evaluated, what fits, where and how long it took.
function statusText(r, ms) {
  const margin = fmt.percent(r.headroom ?? 0);
  const where = r.inPage ? 'in this page' : 'in a worker';
  return (
    `Evaluated ${fmt.integer(r.evaluated)} configurations; ${fmt.integer(r.feasible)} fit ` +
    `under ${fmt.bytes(r.memory_limit_bytes)} per GPU with ${fmt.article(margin)} ${margin} ` +
    `margin, ${fmt.integer(r.plans.length)} layouts shown. ` +
    `The search took ${ms.toFixed(1)} ms ${where}.`
  );
}

// While a search runs: the button off, Cancel and the progress bar shown.
function setBusy(ui, section, on) {
  ui.run.disabled = on;
  ui.cancel.hidden = !on;
  ui.progress.hidden = !on;
  section.setAttribute('aria-busy', String(on));
  if (on) ui.progress.removeAttribute('value');
}

// The margin field as a fraction of GPU memory, clamped to the row's range.
function headroomOf(input, row) {
  const pct = Number(input.value);
  const [lo, hi] = row.range;
  return (Number.isFinite(pct) ? Math.min(Math.max(pct, lo), hi) : row.default) * row.scale;
}

// The panel's parts above the table: its controls, the stale note and the result's words.
function parts(root, margin, rank) {
  const section = panel(root, 'planner', 'Find the best layout');
  make('p', { className: 'small', textContent: ABOUT }, section);
  const ui = controls(section, margin, rank);
  const stale = make('p', STALE, section);
  const why = make('p', { className: 'why-best' }, section);
  const ties = make('p', { className: 'small plan-ties', hidden: true }, section);
  const warnings = make('ul', { className: 'plan-warnings notes' }, section);
  // What the best plan leaves out (EP, CP, FP8, recomputation, offload) and why: the core's words.
  const dropped = make('ul', { className: 'plan-dropped notes', hidden: true }, section);
  dropped.setAttribute('aria-label', 'Left out of the best plan');
  return { section, ui, stale, why, ties, warnings, dropped };
}

// A search's result in words: its status (with its figures for the tests, `run` the search's
// number), why the best plan wins, the tie rule, the core's warnings and what it left out.
function showSummary({ ui, why, ties, warnings, dropped }, r, ms, run) {
  ui.status.textContent = statusText(r, ms);
  Object.assign(ui.status.dataset, {
    ms: String(ms),
    evaluated: String(r.evaluated),
    feasible: String(r.feasible),
    run: String(run),
  });
  why.textContent = r.why_best ?? '';
  ties.hidden = !(r.tie_within > 0) || r.plans.length < 2;
  ties.textContent = ties.hidden ? '' : tieText(r.tie_within);
  warnings.replaceChildren(...(r.warnings ?? []).map((w) => make('li', { textContent: w })));
  const left = r.dropped ?? [];
  dropped.replaceChildren(
    ...left.map((d) => make('li', { textContent: `${d.what} left out: ${d.why}.` })),
  );
  dropped.hidden = left.length === 0;
}

// The search's progress, as the worker reports it: one message per layout, so the bar's length
// is written once and only what moves after.
const progressOf =
  (ui) =>
  ({ done, total, evaluated }) => {
    if (ui.progress.max !== Math.max(total, 1)) ui.progress.max = Math.max(total, 1);
    ui.progress.value = done;
    ui.status.textContent = `Searching: ${fmt.integer(done)} of ${fmt.integer(total)} layouts, ${fmt.integer(evaluated)} configurations so far…`;
  };

// `search`: the planner's search (planner/search.js createPlannerSearch), this panel's from
// now on; `margin`: the plan_headroom state row; `later(fn)`: calls fn once the lab is ready
// and the page idle; `onPin(scenario, name)`: adds a plan to Compare.
export function createPlanner(root, options) {
  const { onApply, onChange, onPin, search, margin, rank, later = (fn) => fn() } = options;
  const view = parts(root, margin, rank);
  const { section, ui, stale } = view;
  let scenario = null; // the lab's current scenario
  let state = null; // and its state (the margin, whether a search was asked)
  let searchedKey = null;
  let result = null;
  let runs = 0;
  let asked = false; // the search a URL asks for, started or due
  let sort = { column: STEP, dir: 1 };
  const open = new Set();
  const { table, ths, body } = planTable(section, (k) => {
    sort = { column: k, dir: sort.column === k ? -sort.dir : 1 };
    draw();
  });

  const sortRows = (rows) => {
    const { v } = COLUMNS[sort.column];
    return [...rows].sort((a, b) => compare(v(a), v(b)) * sort.dir);
  };

  function draw() {
    ths.forEach((th, k) => {
      if (k === sort.column)
        th.setAttribute('aria-sort', sort.dir > 0 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    });
    if (!result) return;
    const toggle = (p) => (open.delete(p) || open.add(p), draw());
    const rank = new Map(result.plans.map((p, i) => [p, i]));
    const act = { apply: onApply, pin: onPin, tie: (p) => p.tie };
    const rows = sortRows(result.plans).flatMap((p) =>
      layoutRows(p, rank.get(p), act, open.has(p), toggle, sortRows),
    );
    body.replaceChildren(...rows);
    table.hidden = result.plans.length === 0;
    ui.csv.hidden = result.plans.length === 0;
  }

  function show(r, ms) {
    result = r;
    open.clear();
    showSummary(view, r, ms, ++runs);
    draw();
  }

  const busy = (on) => setBusy(ui, section, on);
  const headroom = () => headroomOf(ui.margin, margin);

  async function runSearch() {
    if (!scenario) return;
    if (!state?.plan) onChange?.('plan', true);
    const asked = scenario;
    const t0 = performance.now();
    busy(true);
    ui.status.textContent = 'Searching…';
    try {
      const r = await search.run(asked, TOP, headroom(), progressOf(ui), ui.rank.value);
      searchedKey = inputsKey(asked);
      stale.hidden = true;
      show(r, performance.now() - t0);
    } catch (e) {
      ui.status.textContent = e.cancelled
        ? 'Search cancelled.'
        : `The planner refused: ${e.message}`;
    } finally {
      busy(search.busy);
    }
  }

  ui.run.addEventListener('click', runSearch);
  ui.margin.addEventListener('change', () => onChange?.('plan_headroom', ui.margin.value));
  ui.rank.addEventListener('change', () => onChange?.('plan_rank', ui.rank.value));
  const showRule = () => {
    ui.rule.textContent = ruleText(margin.fitRule, headroom());
  };
  ui.margin.addEventListener('input', showRule);
  ui.cancel.addEventListener('click', () => search.cancel());
  ui.csv.addEventListener('click', () => {
    if (!result) return;
    download(new Blob([plansCsv(result.plans)], { type: 'text/csv' }), 'plans.csv');
  });
  draw();

  return {
    update(report, next) {
      scenario = report.scenario;
      state = next ?? state;
      stale.hidden = searchedKey === null || searchedKey === inputsKey(scenario);
      if (state && document.activeElement !== ui.margin) ui.margin.value = state.plan_headroom;
      if (state?.plan_rank) ui.rank.value = state.plan_rank;
      showRule();
      // A URL that asks for a search (plan=1) gets it once the lab is ready and the page idle,
      // not in the load's tasks; not if one was started or shown meanwhile.
      if (state?.plan && !asked && runs === 0) {
        asked = true;
        later(() => runs === 0 && !search.busy && runSearch());
      }
    },
    // For the URL: the margin and whether a search was asked; set(...) runs it again.
    get headroom() {
      return headroom();
    },
    destroy() {
      search.destroy();
    },
  };
}
