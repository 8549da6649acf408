// Compare: "Pin…" keeps the current state (up to `pins.max` pins, in the state's `pins` row,
// so they travel in the URL); the planner's rows pin theirs (pin(state)). A table shows each
// pin and the current state side by side, one column each, headed by its DP×TP×PP and its
// setup (ZeRO, recomputation, SP, schedule), with a row for every scenario field that differs
// between the columns, then the numbers, the cells that differ from the current state marked.
// A column that does not fit its GPU shows no MFU and no cost. Each pin is a whole state (its
// URL parameters) read back through the state table and evaluated by the core on its own
// (state/pins.js, given by the view): every number here is from a report of the core.
import { make } from '../lib/dom.js';
import * as fmt from '../lib/format.js';

const SEAM_ROWS = [
  ['data', 'Data'],
  ['tensor', 'Tensor'],
  ['pipeline', 'Pipeline'],
  ['context', 'Context'],
  ['expert', 'Expert'],
];

// The table's rows: a label and a report -> { text, value } (value orders the cells).
const ROWS = [
  {
    label: 'Memory per GPU',
    explain: 'memory.per_gpu_bytes',
    cell: (r) => ({
      text: `${fmt.bytes(r.memory.per_gpu_bytes)} of ${fmt.bytes(r.memory.gpu_memory_bytes)}`,
      value: r.memory.per_gpu_bytes,
    }),
  },
  ...SEAM_ROWS.map(([seam, name]) => ({
    label: `${name} traffic per GPU per step`,
    seam,
    explain: `comms.${seam}.bytes_per_gpu_per_step`,
    cell: (r) =>
      r.comms[seam].active
        ? {
            text: fmt.bytes(r.comms[seam].bytes_per_gpu_per_step),
            value: r.comms[seam].bytes_per_gpu_per_step,
          }
        : { text: 'idle', value: 0 },
  })),
  {
    label: 'Step time',
    explain: 'time.step_s',
    cell: (r) => ({ text: fmt.seconds(r.time.step_s), value: r.time.step_s }),
  },
  {
    label: 'Bubble',
    explain: 'pipeline.bubble_fraction',
    cell: (r) => ({
      text: fmt.percent(r.pipeline.bubble_fraction),
      value: r.pipeline.bubble_fraction,
    }),
  },
  {
    label: 'MFU',
    explain: 'time.mfu',
    fitting: true,
    cell: (r) => ({ text: fmt.percent(r.time.mfu), value: r.time.mfu }),
  },
  {
    label: 'Goodput',
    explain: 'goodput.effective_time',
    fitting: true,
    cell: (r) => ({ text: fmt.share(r.goodput.effective_time), value: r.goodput.effective_time }),
  },
  {
    label: 'Cost per trillion tokens',
    explain: 'cost.usd_per_trillion_tokens',
    fitting: true,
    cell: (r) => ({
      text: fmt.usd(r.cost.usd_per_trillion_tokens),
      value: r.cost.usd_per_trillion_tokens,
    }),
  },
  {
    label: 'Cost per day',
    explain: 'cost.usd_per_day',
    fitting: true,
    cell: (r) => ({ text: fmt.usd(r.cost.usd_per_day), value: r.cost.usd_per_day }),
  },
];

// A number of a run that does not fit its GPU would never be paid for: none is shown.
const NO_FIT = { text: 'does not fit', value: null };
const cellOf = (row, r) => (row.fitting && !r.memory.fits ? NO_FIT : row.cell(r));

// The scenario's fields as dotted keys and values, those the table shows elsewhere left out:
// the layout heads each column, the seams make it, a calibration is the lab's.
const SHOWN_ELSEWHERE = /^(degrees|seams|calibration|memory_model)(\.|$)/;
function fields(scenario, prefix = '', out = new Map()) {
  for (const [k, v] of Object.entries(scenario ?? {})) {
    const key = prefix + k;
    if (SHOWN_ELSEWHERE.test(key)) continue;
    if (v && typeof v === 'object' && !Array.isArray(v)) fields(v, `${key}.`, out);
    else out.set(key, v);
  }
  return out;
}

const valueText = (v) =>
  Array.isArray(v)
    ? v.join(', ') || 'none'
    : typeof v === 'boolean'
      ? v
        ? 'on'
        : 'off'
      : typeof v === 'number'
        ? fmt.count(v)
        : String(v);

// A report's precision in one line, as the core resolved it (a preset's name, or the bytes a
// planner's row wrote out, read alike): the bytes per parameter and what the matmuls run in,
// so a plan that turns FP8 on differs in one row, not in every byte of a written-out table.
function precisionText(p) {
  const gemms = p.fp4 ? ', NVFP4 matmuls' : p.fp8 ? ', FP8 matmuls' : '';
  const bytes = (v) => fmt.count(v);
  return (
    `${bytes(p.bytes_per_param)} B/param (${bytes(p.weight)} weight, ${bytes(p.grad)} ` +
    `gradient, ${bytes(p.master)} master, ${bytes(p.adam_m)} + ${bytes(p.adam_v)} Adam)${gemms}`
  );
}

// A report's scenario, its precision one field (precisionText).
function resolved(r) {
  return { ...r.scenario, precision: precisionText(r.precision) };
}

// Every field whose value differs between the columns: [{ key, label, texts }], a text per
// report (null for a refused pin). describe(key): { label, labels: value -> words }.
function differing(reports, describe) {
  const maps = reports.map((r) => (r ? fields(resolved(r)) : null));
  const keys = new Set(maps.flatMap((m) => (m ? [...m.keys()] : [])));
  const out = [];
  for (const key of keys) {
    const { label, labels } = describe(key);
    const text = (v) => (v === undefined ? '—' : (labels?.[v] ?? valueText(v)));
    const texts = maps.map((m) => (m ? text(m.get(key)) : null));
    if (new Set(texts.filter((t) => t !== null)).size > 1) out.push({ key, label, texts });
  }
  return out;
}

// A column's setup under its layout: "ZeRO 1 · selective · SP · interleaved v = 2".
export function setupOf(s) {
  const parts = [`ZeRO ${s.zero_stage ?? 0}`];
  parts.push(s.recompute && s.recompute !== 'none' ? `${s.recompute} recompute` : 'no recompute');
  if (s.sequence_parallel) parts.push('SP');
  parts.push(
    s.schedule === 'interleaved'
      ? `interleaved v = ${s.virtual_stages}`
      : fmt.schedule(s.schedule ?? '1f1b'),
  );
  if (s.precision?.fp8) parts.push('FP8');
  if (s.precision?.fp4) parts.push('NVFP4');
  return parts.join(' · ');
}

function header(tr, title, sub, report) {
  const th = make('th', { scope: 'col', className: 'num' }, tr);
  make('span', { className: 'compare-layout', textContent: title }, th);
  make('span', { className: 'compare-sub', textContent: sub }, th);
  if (report)
    make('span', { className: 'compare-setup', textContent: setupOf(report.scenario) }, th);
  return th;
}

// A pinned cell: its text, and when it differs from the current state's, marked (bold, an
// arrow, and in words for a screen reader).
function pinCell(tr, c, now) {
  const td = make('td', { className: 'num', textContent: c.text }, tr);
  if (c.value !== null) td.dataset.value = String(c.value);
  if (c.text === now.text) return;
  td.classList.add('diff');
  if (c.value === null || now.value === null) {
    make('span', { className: 'visually-hidden', textContent: ' (differs from now)' }, td);
    return;
  }
  const more = c.value > now.value;
  td.dataset.diff = more ? 'more' : 'less';
  make('span', { className: 'diff-mark', textContent: more ? ' ▲' : ' ▼' }, td);
  const words = more ? ' (more than now)' : ' (less than now)';
  make('span', { className: 'visually-hidden', textContent: words }, td);
}

// The rows of the fields that differ: the current state's value last, the pins' marked.
function settingRows(body, pins, report, describe) {
  for (const d of differing([...pins.map((p) => p.report), report], describe)) {
    const tr = make('tr', { className: 'setting' }, body);
    tr.dataset.row = d.key;
    make('th', { scope: 'row', textContent: d.label }, tr);
    const now = d.texts.at(-1);
    d.texts.slice(0, -1).forEach((text) => {
      const td = make('td', { textContent: text ?? '—' }, tr);
      if (text !== null && text !== now) td.classList.add('diff');
    });
    make('td', { className: 'current', textContent: now }, tr);
  }
}

const CAPTION =
  'Pinned states against the current one: the settings that differ, then the numbers; a bold ' +
  'value differs from the current state (▲ more, ▼ less).';

const nameOf = (p) => (p.report ? fmt.degrees(p.report.degrees) : 'refused');

// The table: a column per pin and one for the current state, a row per quantity (a seam's
// traffic only where some column uses that seam), "Show" and "Unpin" buttons under each pin.
function compareTable(pins, report, { onUnpin, onShow, describe }) {
  const table = make('table', { className: 'compare-table' });
  make('caption', { textContent: CAPTION }, table);
  const head = make('tr', {}, make('thead', {}, table));
  make('th', { scope: 'col', textContent: 'DP×TP×PP' }, head);
  pins.forEach((p, i) => {
    header(head, nameOf(p), `pin ${i + 1}`, p.report).dataset.pin = String(i + 1);
  });
  header(head, fmt.degrees(report.degrees), 'current', report).dataset.pin = 'current';
  const body = make('tbody', {}, table);
  settingRows(body, pins, report, describe);
  const reports = [...pins.map((p) => p.report), report];
  for (const row of ROWS) {
    if (row.seam && reports.every((r) => !r || !r.comms[row.seam].active)) continue;
    const tr = make('tr', {}, body);
    tr.dataset.row = row.seam ?? row.label;
    make('th', { scope: 'row', textContent: row.label }, tr);
    const now = cellOf(row, report);
    for (const p of pins) {
      if (p.report) pinCell(tr, cellOf(row, p.report), now);
      else make('td', { className: 'num', textContent: '—' }, tr);
    }
    // The current state's numbers show their math (app/explain.js), as the panels' do.
    const td = make('td', { className: 'num current' }, tr);
    if (now.value !== null) td.dataset.value = String(now.value);
    const number = make('span', { textContent: now.text }, td);
    if (now.value !== null && now.text !== 'idle') number.dataset.explain = row.explain;
  }
  const foot = make('tr', {}, make('tfoot', {}, table));
  make('th', { scope: 'row', textContent: 'Pin' }, foot);
  pins.forEach((p, i) => {
    const td = make('td', {}, foot);
    if (p.error) make('p', { className: 'small error-text', textContent: p.error }, td);
    const remove = make('button', { type: 'button', className: 'tool unpin' }, td);
    remove.textContent = 'Unpin';
    remove.setAttribute('aria-label', `Unpin pin ${i + 1} (${nameOf(p)})`);
    remove.addEventListener('click', () => onUnpin(i, nameOf(p)));
    if (p.report) {
      const show = make('button', { type: 'button', className: 'tool show-pin' }, td);
      show.textContent = 'Show';
      show.setAttribute('aria-label', `Show pin ${i + 1} (${nameOf(p)}) as the current state`);
      show.addEventListener('click', () => onShow(p, i));
    }
  });
  make('td', {}, foot);
  const scroller = make('div', { className: 'table-wrap' });
  scroller.append(table);
  return scroller;
}

// `pins`: what a pin is (state/pins.js createPins): max, list(state), of(state), join(list),
// evaluate(text) -> { report } or { error }, stateOf(text); `describe(key)`: a scenario key's
// label and its values' words ({ label, labels }, the state table's).
export function createCompare(root, { onChange, onShow, pins, describe = (label) => ({ label }) }) {
  const button = root.querySelector('.pin');
  const status = root.querySelector('.compare-status');
  const wrap = root.querySelector('.compare-wrap');
  let state = null;
  let report = null;

  const setPins = (list) => onChange('pins', pins.join(list));

  // Pins `pinned` (a whole state), named `name`: false when it could not be (already there,
  // or no room), said in the status line either way.
  function pin(pinned, name) {
    if (!state) return false;
    const list = pins.list(state);
    const text = pins.of(pinned);
    if (list.includes(text)) {
      status.textContent = `This state is already pinned (${name}).`;
      return false;
    }
    if (list.length >= pins.max) {
      status.textContent = `${pins.max} states are pinned already: unpin one to pin this one.`;
      return false;
    }
    status.textContent = `Pinned ${name} as pin ${list.length + 1}.`;
    setPins([...list, text]);
    return true;
  }

  button.addEventListener('click', () => {
    if (state && report) pin(state, fmt.degrees(report.degrees));
  });

  function draw() {
    const list = pins.list(state);
    const hinted = root.dataset.pins === '0'; // the hint is what the section shows now
    root.dataset.pins = String(list.length);
    if (!list.length) {
      // Without pins the section is one fixed hint: drawn once, not on every change.
      if (hinted) return;
      const text =
        'Pin the state you are looking at, change something, and compare: up to ' +
        `${pins.max} pins sit beside the current state.`;
      wrap.replaceChildren(make('p', { className: 'small', textContent: text }));
      return;
    }
    const pinned = list.map((text) => ({ text, ...pins.evaluate(text) }));
    wrap.replaceChildren(
      compareTable(pinned, report, {
        describe,
        onUnpin(i, name) {
          status.textContent = `Unpinned pin ${i + 1} (${name}).`;
          setPins(list.filter((_, k) => k !== i));
        },
        onShow(p, i) {
          status.textContent = `Showing pin ${i + 1} (${nameOf(p)}); the pins stay.`;
          onShow(pins.stateOf(p.text));
        },
      }),
    );
  }

  return {
    update(shown, next) {
      state = shown;
      report = next;
      draw();
    },
    pin,
  };
}
