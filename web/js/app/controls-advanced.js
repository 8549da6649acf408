// The "Advanced: size a real run" form, built from the state table: one fieldset per group,
// one field per advanced row (number, select or checkbox), and the preset buttons. A field
// reports a committed value (the `change` event: Enter, blur, a spinner or a pick), never
// every keystroke, so typing "1024" does not lay out 1, 10 and 102 GPUs on the way.
import { make, uid } from '../lib/dom.js';
import * as fmt from '../lib/format.js';
import {
  degreesText,
  groups as fieldsets,
  optionsOf,
  parseDegrees,
  PRESETS,
  shows,
} from '../state/state.js';

function fillOptions(select, options) {
  select.replaceChildren(
    ...options.map(([value, label]) =>
      make('option', { value: String(value), textContent: label }),
    ),
  );
}

const valueAt = (obj, path) => path.split('.').reduce((o, k) => o?.[k], obj);

// "2 × 4 × 2", and with context or expert parallelism "8 × 8 × 16 × CP 16" / "… , EP 64".
const degreesLabel = ({ dp, tp, pp, cp = 1, ep = 1 }) =>
  `${dp} × ${tp} × ${pp}${cp > 1 ? ` × CP ${cp}` : ''}${ep > 1 ? `, EP ${ep}` : ''}`;

// A field's text for a value: a long fraction (a default rate of 12.621467496141975 failures)
// at six significant digits, which the state keeps whole; what a reader typed stays as typed.
const shown = (value) =>
  typeof value === 'number' && !Number.isInteger(value)
    ? String(Number(value.toPrecision(6)))
    : String(value);
const typedAs = (input, value) => input.value !== '' && Number(input.value) === value;

// One field for a row: a number input, a select or a checkbox, with its label, unit, hint and
// an (empty) alert for the core's refusal. Reports committed values to onChange.
function buildField(fieldset, row, onChange) {
  const id = uid(row.name);
  const wrap = make('div', { className: `field field-${row.control}` }, fieldset);
  wrap.dataset.row = row.name;
  let input;
  if (row.control === 'checkbox') {
    const label = make('label', {}, wrap);
    input = make('input', { type: 'checkbox', id }, label);
    label.append(` ${row.label}`);
    input.addEventListener('change', () => onChange(row.name, input.checked));
  } else {
    make('label', { htmlFor: id, textContent: row.label }, wrap);
    const line = make('span', { className: 'field-input' }, wrap);
    if (row.control === 'select') {
      input = make('select', { id }, line);
      // A menu of long choices takes the field's whole width, its label above, so the chosen
      // one is read whole ("ring passes of K/V (Megatron-Core, Ring Attention)").
      if (Object.values(row.labels ?? {}).some((text) => text.length > 32)) {
        wrap.classList.add('field-wide');
      }
      const options = optionsOf(row);
      if (options) fillOptions(input, options);
      input.multiple = row.type === 'set'; // a list: several choices at once
    } else {
      input = make(
        'input',
        {
          type: 'number',
          id,
          min: row.range[0],
          max: row.range[1],
          step: row.step ?? 1,
          inputMode: row.type === 'integer' ? 'numeric' : 'decimal',
        },
        line,
      );
      input.required = true;
    }
    if (row.unit) make('span', { className: 'unit', textContent: row.unit }, line);
    const picked = () =>
      input.multiple ? [...input.selectedOptions].map((o) => o.value).join(',') : input.value;
    input.addEventListener('change', () => onChange(row.name, picked()));
  }
  if (row.hint) {
    const hint = make(
      'small',
      { className: 'hint', id: `${id}-hint`, textContent: row.hint },
      wrap,
    );
    input.setAttribute('aria-describedby', hint.id);
  }
  input.dataset.state = row.name;
  const error = make(
    'p',
    { className: 'error field-error', id: `${id}-error`, hidden: true },
    wrap,
  );
  error.setAttribute('role', 'alert');
  return { row, wrap, input, error };
}

// The message in a field's alert (null clears it), tied to the input by aria-describedby.
function markField(field, message) {
  const { input, error } = field;
  const described = (input.getAttribute('aria-describedby') ?? '').replace(error.id, '').trim();
  error.hidden = !message;
  error.textContent = message ?? '';
  if (message) {
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', `${described} ${error.id}`.trim());
  } else {
    input.removeAttribute('aria-invalid');
    if (described) input.setAttribute('aria-describedby', described);
    else input.removeAttribute('aria-describedby');
  }
}

export function createAdvancedControls(root, { onChange, onPreset }) {
  const fields = new Map(); // name -> { row, wrap, input }
  let layoutKey = '';

  const presets = make('div', { className: 'presets' }, root);
  for (const p of PRESETS.filter((x) => !x.book)) {
    const button = make(
      'button',
      { type: 'button', className: 'preset', textContent: p.label, title: p.hint },
      presets,
    );
    button.dataset.preset = p.name;
    button.addEventListener('click', () => onPreset(p.name));
  }

  const groups = make('div', { className: 'fieldsets' }, root);
  for (const group of fieldsets()) {
    const fieldset = make('fieldset', { className: `group-${group.name}` }, groups);
    make('legend', { textContent: group.label }, fieldset);
    for (const row of group.rows.filter((e) => e.advanced)) {
      fields.set(row.name, buildField(fieldset, row, onChange));
    }
  }
  // The parameter count is the core's (Narayanan Eq. 2 for a custom architecture).
  const paramsOut = make('p', { className: 'field-output' }, groups.querySelector('.group-model'));
  paramsOut.setAttribute('aria-live', 'polite');

  // The core's refusal goes beside the field its key names, else under the form. One alert
  // element each, created with the form so screen readers know them when they fill.
  const error = make('p', { className: 'error form-error', hidden: true }, root);
  error.setAttribute('role', 'alert');
  let errorField = null;

  // The layouts the core accepts for this GPU count and model, from its report.
  function updateLayouts(layouts) {
    const key = JSON.stringify(layouts);
    if (key === layoutKey) return;
    layoutKey = key;
    const options = [['auto', 'auto from the seams']];
    // [dp, tp, pp], or [dp, tp, pp, cp, ep] where CP or EP is in play.
    for (const [dp, tp, pp, cp = 1, ep = 1] of layouts) {
      const d = { dp, tp, pp, cp, ep };
      options.push([degreesText(d), degreesLabel(d)]);
    }
    fillOptions(fields.get('degrees').input, options);
  }

  // The layout's label names the seams in it: "Layout DP×TP×PP", "Layout DP×TP×PP×CP" and ", EP"
  // where context or expert parallelism is in the layout or among the layouts offered.
  const degreesLabelEl = fields.get('degrees').wrap.querySelector('label');
  function updateLayoutLabel(report) {
    const inPlay = (i, key) =>
      (report.degrees?.[key] ?? 1) > 1 || report.layouts.some((l) => (l[i] ?? 1) > 1);
    const cp = inPlay(3, 'cp');
    const ep = inPlay(4, 'ep');
    const text = `Layout DP×TP×PP${cp ? '×CP' : ''}${ep ? ', EP' : ''}`;
    if (degreesLabelEl.textContent !== text) degreesLabelEl.textContent = text;
  }

  return {
    update(state, report) {
      updateLayouts(report.layouts);
      updateLayoutLabel(report);
      for (const { row, wrap, input } of fields.values()) {
        wrap.hidden = !shows(row, state);
        // A row left to the core shows what the core chose.
        const value = state[row.name] ?? valueAt(report.scenario, row.scenario) ?? '';
        if (row.control === 'checkbox') {
          input.checked = value;
        } else if (input.multiple) {
          const chosen = String(value).split(',');
          for (const o of input.options) o.selected = chosen.includes(o.value);
        } else if (input.value !== shown(value) && !typedAs(input, value)) {
          input.value = shown(value);
        }
      }
      if (report) {
        const custom = state.model === 'custom';
        const moe = report.scenario.model.experts > 0;
        paramsOut.textContent =
          `${fmt.count(report.model_params)} parameters` +
          (moe ? `, ${fmt.count(report.model_active_params)} active per token` : '') +
          (custom ? ' (counted from the architecture, Narayanan Eq. 2 for GPT)' : '');
        paramsOut.title =
          `${fmt.exactNumber(report.model_params)} parameters` +
          (moe ? `; ${fmt.exactNumber(report.model_active_params)} used by each token` : '');
        paramsOut.dataset.value = String(report.model_params);
      }
      const d = parseDegrees(state.degrees);
      fields.get('degrees').input.title = d
        ? `DP = ${d.dp}, TP = ${d.tp}, PP = ${d.pp}` +
          (d.cp > 1 ? `, CP = ${d.cp}` : '') +
          (d.ep > 1 ? `, EP = ${d.ep} (carved out of DP × CP)` : '')
        : '';
    },
    // The core's refusal of the current values (null clears it), beside the named field when
    // it shows, else under the form.
    showError(message, name = null) {
      if (errorField) markField(errorField, null);
      errorField = null;
      const field = message && fields.get(name);
      const beside = field && !field.wrap.hidden ? field : null;
      error.hidden = !message || Boolean(beside);
      error.textContent = message && !beside ? message : '';
      if (beside) {
        errorField = beside;
        markField(beside, message);
      }
    },
  };
}
