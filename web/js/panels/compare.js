// Compare: "Pin…" keeps the current state (up to `pins.max` pins, in the state's `pins` row,
// so they travel in the URL); a table shows each pin and the current state side by side, one
// column each, headed by its DP×TP×PP, with the cells that differ from the current state
// marked. Each pin is a whole state (its URL parameters) read back through the state table
// and evaluated by the core on its own (state/pins.js, given by the view): every number here
// is from a report of the core.
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
    cell: (r) => ({ text: fmt.percent(r.time.mfu), value: r.time.mfu }),
  },
  {
    label: 'Cost per day',
    explain: 'cost.usd_per_day',
    cell: (r) => ({ text: fmt.usd(r.cost.usd_per_day), value: r.cost.usd_per_day }),
  },
];

function header(tr, title, sub) {
  const th = make('th', { scope: 'col', className: 'num' }, tr);
  make('span', { className: 'compare-layout', textContent: title }, th);
  make('span', { className: 'compare-sub', textContent: sub }, th);
  return th;
}

// A pinned cell: its text, and when it differs from the current state's, marked (bold, an
// arrow, and in words for a screen reader).
function pinCell(tr, c, now) {
  const td = make('td', { className: 'num', textContent: c.text }, tr);
  td.dataset.value = String(c.value);
  if (c.text === now.text) return;
  const more = c.value > now.value;
  td.classList.add('diff');
  td.dataset.diff = more ? 'more' : 'less';
  make('span', { className: 'diff-mark', textContent: more ? ' ▲' : ' ▼' }, td);
  const words = more ? ' (more than now)' : ' (less than now)';
  make('span', { className: 'visually-hidden', textContent: words }, td);
}

const CAPTION =
  'Pinned states against the current one: a bold value differs from the current state ' +
  '(▲ more, ▼ less).';

const nameOf = (p) => (p.report ? fmt.degrees(p.report.degrees) : 'refused');

// The table: a column per pin and one for the current state, a row per quantity (a seam's
// traffic only where some column uses that seam), "Show" and "Unpin" buttons under each pin.
function compareTable(pins, report, { onUnpin, onShow }) {
  const table = make('table', { className: 'compare-table' });
  make('caption', { textContent: CAPTION }, table);
  const head = make('tr', {}, make('thead', {}, table));
  make('th', { scope: 'col', textContent: 'DP×TP×PP' }, head);
  pins.forEach((p, i) => {
    header(head, nameOf(p), `pin ${i + 1}`).dataset.pin = String(i + 1);
  });
  header(head, fmt.degrees(report.degrees), 'current').dataset.pin = 'current';
  const body = make('tbody', {}, table);
  const reports = [...pins.map((p) => p.report), report];
  for (const row of ROWS) {
    if (row.seam && reports.every((r) => !r || !r.comms[row.seam].active)) continue;
    const tr = make('tr', {}, body);
    tr.dataset.row = row.seam ?? row.label;
    make('th', { scope: 'row', textContent: row.label }, tr);
    const now = row.cell(report);
    for (const p of pins) {
      if (p.report) pinCell(tr, row.cell(p.report), now);
      else make('td', { className: 'num', textContent: '—' }, tr);
    }
    // The current state's numbers show their math (app/explain.js), as the panels' do.
    const td = make('td', { className: 'num current' }, tr);
    td.dataset.value = String(now.value);
    const number = make('span', { textContent: now.text }, td);
    if (now.text !== 'idle') number.dataset.explain = row.explain;
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
// evaluate(text) -> { report } or { error }, stateOf(text).
export function createCompare(root, { onChange, onShow, pins }) {
  const button = root.querySelector('.pin');
  const status = root.querySelector('.compare-status');
  const wrap = root.querySelector('.compare-wrap');
  let state = null;
  let report = null;

  const setPins = (list) => onChange('pins', pins.join(list));

  button.addEventListener('click', () => {
    if (!state || !report) return;
    const list = pins.list(state);
    const pin = pins.of(state);
    if (list.includes(pin)) {
      status.textContent = `This state is already pinned (${fmt.degrees(report.degrees)}).`;
      return;
    }
    if (list.length >= pins.max) {
      status.textContent = `${pins.max} states are pinned already: unpin one to pin this one.`;
      return;
    }
    status.textContent = `Pinned ${fmt.degrees(report.degrees)} as pin ${list.length + 1}.`;
    setPins([...list, pin]);
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
  };
}
