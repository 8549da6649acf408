// "Calibrate to your run": one measured run on the reader's fleet refits the model's constants
// (the core's calibration block, core/model/calibrate.h). The run is the lab's current layout,
// taken when the reader says so; its figures are typed, or read from a pasted Megatron-LM or
// torchtitan log line (lib/runlog.js). A second run, another layout taken the same way with its
// step, lets the core tell the pipeline bubble from the matmuls. Calibrating sets the state's
// `calibration` row (the block as JSON: in the URL and the exported report); the core's answer,
// report.calibration, shows each constant before and after and the residuals, and the
// planner's top layouts are searched before and after. A refusal of the core shows beside the
// field its key names.
import { make, panel } from '../lib/dom.js';
import * as fmt from '../lib/format.js';
import { EXPECTED, parseRunLog } from '../lib/runlog.js';

// The block's figures the reader may type: [key, label, unit].
const FIGURES = [
  ['step_time_s', 'Step time', 's'],
  ['tokens_per_s_per_gpu', 'Or tokens per second per GPU (torchtitan’s tps)', 'tokens/s'],
  [
    'peak_memory_gb',
    'Peak memory per GPU (max allocated, or reserved as torchtitan prints it)',
    'GB',
  ],
  ['tflops_per_gpu', 'Model TFLOP/s per GPU', 'TFLOP/s'],
  ['nvlink_bus_gb_s', 'NVLink bus bandwidth (nccl-tests all_reduce_perf)', 'GB/s'],
  ['network_bus_gb_s', 'Network bus bandwidth per GPU (nccl-tests)', 'GB/s'],
  ['second_step_time_s', 'Second run’s step time', 's'],
];
// The figures a log line can give (lib/runlog.js).
const LOG_FIGURES = ['step_time_s', 'tokens_per_s_per_gpu', 'peak_memory_gb', 'tflops_per_gpu'];
const TOP = 5;
const NO_SECOND_RUN = ' No second run (optional).';

const runWords = (r) =>
  `${fmt.integer(r.gpus)} × ${fmt.gpu(r.scenario.gpu)}, ${fmt.model(r.scenario.model)}, ` +
  `${fmt.degrees(r.degrees)}`;

const CONSTANT_NAMES = {
  efficiency: 'Matmul efficiency',
  nvlink_efficiency: 'NVLink collective efficiency',
  network_efficiency: 'Network collective efficiency',
  overhead_gb: 'Memory overhead',
  bubble_paid: 'Share of the pipeline bubble paid',
};
const RESIDUAL_NAMES = {
  step_time_s: 'Step time',
  second_step_time_s: 'Second run’s step time',
  peak_memory_gb: 'Peak memory',
  tflops_per_gpu: 'TFLOP/s per GPU',
};
const valueText = (v, unit) =>
  unit === 'GB' ? `${fmt.count(v)} GB` : unit === 's' ? fmt.seconds(v) : fmt.count(v);

function table(parent, head, rows) {
  const t = make('table', { className: 'calibration-table' }, parent);
  const tr = make('tr', {}, make('thead', {}, t));
  for (const h of head) make('th', { scope: 'col', textContent: h }, tr);
  const body = make('tbody', {}, t);
  for (const cells of rows) {
    const row = make('tr', {}, body);
    cells.forEach((c, i) =>
      make(i ? 'td' : 'th', { textContent: c, scope: i ? undefined : 'row' }, row),
    );
  }
  return t;
}

// A small field: label, input, unit, and the alert the core's refusal of its key fills.
function field(form, key, label, unit, type = 'number') {
  const wrap = make('div', { className: 'field' }, form);
  wrap.dataset.key = key;
  const input = make('input', { type, name: `calibration.${key}` });
  if (type === 'number') Object.assign(input, { min: 0, step: 'any', inputMode: 'decimal' });
  make('label', { textContent: label }, wrap).append(' ', input);
  if (unit) make('span', { className: 'unit', textContent: ` ${unit}` }, wrap);
  // Where the figure came from: the pasted line and its text, typed by hand, or the link.
  const source = make('p', { className: 'small figure-source' }, wrap);
  const error = make('p', { className: 'error field-error', hidden: true }, wrap);
  error.setAttribute('role', 'alert');
  input.addEventListener('input', () => {
    source.textContent = input.value.trim() ? 'Typed by hand.' : '';
  });
  return { input, error, source };
}

const button = (parent, className, text) =>
  make('button', { type: 'button', className, textContent: text }, parent);

// The panel's parts: the run taken, the log line, the figures, the buttons, the outputs.
function build(section) {
  const about =
    'One measured step of your own run refits the model: the matmul efficiency to its step ' +
    'time, the collectives to measured bus bandwidths, the memory overhead to its peak. ' +
    'A second run of another layout, whose pipeline bubble differs, also fits how much of ' +
    'the bubble your runs pay. Every number and the planner then use them.';
  make('p', { className: 'small', textContent: about }, section);
  const runBar = make('p', { className: 'calibrate-run' }, section);
  const take = button(runBar, 'tool use-layout', "Use the lab's current layout as my run");
  const runText = make(
    'span',
    { className: 'small run-text', textContent: ' No run yet.' },
    runBar,
  );
  const secondBar = make('p', { className: 'calibrate-run' }, section);
  const takeSecond = button(
    secondBar,
    'tool use-second',
    "Use the lab's current layout as my second run",
  );
  const secondText = make(
    'span',
    { className: 'small second-text', textContent: NO_SECOND_RUN },
    secondBar,
  );
  const runError = make('p', { className: 'error field-error', hidden: true }, section);
  runError.setAttribute('role', 'alert');
  const logBox = make('div', { className: 'field calibrate-log' }, section);
  const logLabel = make(
    'label',
    { textContent: 'Paste a log line (Megatron-LM or torchtitan)' },
    logBox,
  );
  const log = make('textarea', { rows: 2, name: 'calibration-log' }, logBox);
  logLabel.htmlFor = log.id = `${section.querySelector('h3').id}-log`;
  const read = button(logBox, 'tool read-log', 'Read the line');
  const logNote = make('p', { className: 'small log-note' }, logBox);
  logNote.setAttribute('role', 'status');
  const form = make('div', { className: 'calibrate-figures' }, section);
  const fields = Object.fromEntries(FIGURES.map(([k, l, u]) => [k, field(form, k, l, u)]));
  fields.name = field(form, 'name', 'Name of the run', '', 'text');
  const bar = make('p', { className: 'calibrate-bar' }, section);
  const go = button(bar, 'run-calibrate', 'Calibrate');
  const clear = button(bar, 'tool clear-calibration', 'Remove the calibration');
  const out = make('div', { className: 'calibration-out' }, section);
  out.setAttribute('aria-live', 'polite');
  const plans = make('div', { className: 'calibration-plans' }, section);
  return {
    take,
    runText,
    takeSecond,
    secondText,
    runError,
    log,
    read,
    logNote,
    fields,
    go,
    clear,
    out,
    plans,
  };
}

// The figures a log line gives, written into the fields (torchtitan's tps as it is: the core
// turns it into the step it measures); a figure a log can give but this one does not is
// emptied, so no figure of an earlier paste stays beside this one's (the nccl-tests bus
// bandwidths are typed, and kept). Each figure says where it came from. The lab's GPU checks the line's TFLOP/s
// and MFU (lib/runlog.js). Returns what the note says.
function readLine(ui, scenario) {
  const gpu = scenario && {
    name: fmt.gpu(scenario.gpu),
    peak_tflops: scenario.gpu_peak_tflops,
    fp8_tflops: scenario.gpu_fp8_tflops,
  };
  const r = parseRunLog(ui.log.value, { gpu });
  if (r.error) return { error: r.error };
  for (const k of LOG_FIGURES) {
    const v = r.figures[k];
    const f = ui.fields[k];
    f.input.value = v === undefined ? '' : String(Number(v.toPrecision(6)));
    f.source.textContent = v === undefined ? '' : `From the pasted ${r.tool} line: “${r.from[k]}”.`;
  }
  return { text: `Read from ${r.tool}: ${r.read.join('; ')}.` };
}

// The block the fields and the runs make.
function blockOf(ui, run, second) {
  const block = { scenario: run.scenario };
  if (second) block.second_scenario = second.scenario;
  for (const [k] of FIGURES) {
    const text = ui.fields[k].input.value.trim();
    if (text !== '') block[k] = Number(text);
  }
  const name = ui.fields.name.input.value.trim();
  if (name) block.name = name;
  return block;
}

// The core's fit (report.calibration): each constant before and after, and the residuals.
function drawFit(out, fit) {
  out.replaceChildren();
  if (!fit) return;
  make('p', { className: 'calibration-says', textContent: `The model is ${fit.says}.` }, out);
  const constants = fit.constants.map((c) => [
    CONSTANT_NAMES[c.key] ?? c.key,
    valueText(c.before, c.unit),
    valueText(c.after, c.unit),
    c.how,
  ]);
  table(out, ['Constant', 'Before', 'After', 'How'], constants).dataset.table = 'constants';
  const residuals = fit.residuals.map((r) => {
    const unit = r.key.endsWith('step_time_s') ? 's' : r.key === 'peak_memory_gb' ? 'GB' : '';
    const percent = Math.round(1000 * r.error) / 10 || 0; // to a tenth, never "-0.0"
    const error = `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
    const cells = [r.measured, r.before, r.after].map((v) => valueText(v, unit));
    return [RESIDUAL_NAMES[r.key] ?? r.key, ...cells, error];
  });
  const head = ['Measured', 'Your run', 'Model before', 'Model after', 'Error after'];
  table(out, head, residuals).dataset.table = 'residuals';
}

// The planner's top layouts before and after, side by side.
function drawPlans(plans, before, after) {
  const row = (p, i) => [
    `${i + 1}`,
    fmt.degrees(p.degrees),
    fmt.seconds(p.step_s),
    fmt.percent(p.mfu),
  ];
  plans.replaceChildren(make('h4', { textContent: "The planner's top layouts, before and after" }));
  const sides = make('div', { className: 'calibration-sides' }, plans);
  for (const [title, name, r] of [
    ['Before (the presets)', 'before', before],
    ['After (calibrated)', 'after', after],
  ]) {
    const side = make('div', {}, sides);
    make('p', { className: 'small', textContent: title }, side);
    table(side, ['#', 'DP×TP×PP', 'Step', 'MFU'], r.plans.map(row)).dataset.table = name;
  }
}

// `onChange(name, value)`: sets a state row; `runScenario()`: the lab's current scenario
// without a calibration (the run, when the reader takes it); `planTop(calibrated, top)`: the
// planner's top layouts for the lab's scenario with or without its calibration (a promise of
// the core's plan result).
export function createCalibrate(root, { onChange, runScenario, planTop }) {
  const ui = build(panel(root, 'calibrate', 'Calibrate to your run'));
  let report = null; // the lab's report
  let state = null;
  let run = null; // { scenario } of the run taken
  let second = null; // and of the second run, if one is taken
  let planned = ''; // the scenario whose plans are drawn

  const take = () => {
    run = { scenario: runScenario() };
    ui.runText.textContent = ` Your run: ${runWords(report)}.`;
    ui.runError.hidden = true;
  };
  ui.take.addEventListener('click', () => report && take());
  ui.takeSecond.addEventListener('click', () => {
    if (!report) return;
    second = { scenario: runScenario() };
    ui.secondText.textContent = ` Your second run: ${runWords(report)}.`;
  });
  ui.read.addEventListener('click', () => {
    const said = readLine(ui, report?.scenario);
    ui.logNote.textContent = said.error ?? said.text;
    ui.logNote.classList.toggle('error-text', Boolean(said.error));
  });
  ui.go.addEventListener('click', () => {
    if (!report) return;
    if (!run) take();
    onChange('calibration', JSON.stringify(blockOf(ui, run, second)));
  });
  ui.clear.addEventListener('click', () => {
    second = null; // the next calibration starts from one run
    ui.secondText.textContent = NO_SECOND_RUN;
    onChange('calibration', '');
  });

  // The planner before and after, one search at a time (one runs in the planner's worker).
  async function plan(scenario) {
    const key = JSON.stringify(scenario);
    if (key === planned) return;
    planned = key;
    if (!scenario.calibration) return ui.plans.replaceChildren();
    const wait = 'Searching the layouts before and after…';
    ui.plans.replaceChildren(make('p', { className: 'small', textContent: wait }));
    try {
      const before = await planTop(false, TOP);
      const after = await planTop(true, TOP);
      if (planned === key) drawPlans(ui.plans, before, after);
    } catch (e) {
      if (planned !== key) return;
      const text = `The planner refused: ${e.message}`;
      ui.plans.replaceChildren(make('p', { className: 'small error-text', textContent: text }));
    }
  }

  return {
    update(next, nextState) {
      report = next;
      state = nextState ?? state;
      drawFit(ui.out, report.calibration);
      if (state?.view === 'desk') plan(report.scenario);
      if (report.calibration && !run) {
        // A calibration from the URL: its run and figures shown as given.
        const block = report.scenario.calibration;
        ui.runText.textContent = ` Your run: ${report.calibration.title}.`;
        run = { scenario: block.scenario };
        if (block.second_scenario) {
          second = { scenario: block.second_scenario };
          ui.secondText.textContent = ' Your second run: from the link.';
        }
        for (const [k] of FIGURES) {
          if (!block[k]) continue;
          ui.fields[k].input.value = String(block[k]);
          ui.fields[k].source.textContent = 'From the link (the calibration in its address).';
        }
        if (block.name) ui.fields.name.input.value = block.name;
      }
    },
    // The core's refusal of a calibration key (null clears): beside its field.
    showError(message, key = null) {
      const name = key?.startsWith('calibration.') ? key.slice('calibration.'.length) : null;
      for (const [k, f] of Object.entries(ui.fields)) {
        const here = Boolean(message) && k === name;
        f.error.hidden = !here;
        f.error.textContent = here ? message : '';
        if (here) f.input.setAttribute('aria-invalid', 'true');
        else f.input.removeAttribute('aria-invalid');
      }
      const elsewhere = Boolean(message) && !(name in ui.fields);
      ui.runError.hidden = !elsewhere;
      ui.runError.textContent = elsewhere ? message : '';
    },
  };
}
