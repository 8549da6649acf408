// The book's controls, built from the state table: one switch per `control: 'switch'` row, and
// a labelled select per `control: 'order'` row (the nesting order).
// A switch is a <button role="switch">, so Space and Enter work without extra code.
import { make, uid } from '../lib/dom.js';
import { entry, optionsOf, ROWS } from '../state/state.js';

function createSwitch(root, e, onChange) {
  const button = make('button', { type: 'button', className: 'switch' }, root);
  button.setAttribute('role', 'switch');
  button.dataset.state = e.name;
  const track = make('span', { className: 'switch-track' }, button);
  track.setAttribute('aria-hidden', 'true');
  make('span', { className: 'switch-thumb' }, track);
  // "Data parallel": on a narrow screen only the first word shows (the name stays whole), so
  // the three switches fit one row of the toolbar that stays in view.
  const [first, ...rest] = e.label.split(' ');
  const label = make('span', { textContent: first }, button);
  if (rest.length)
    make('span', { className: 'switch-more', textContent: ` ${rest.join(' ')}` }, label);
  button.addEventListener('click', () => {
    onChange(e.name, button.getAttribute('aria-checked') !== 'true');
  });
  return {
    update(state) {
      button.setAttribute('aria-checked', String(state[e.name]));
    },
  };
}

// Its choices come from the core's schema, which the state table has once the module has
// loaded: the options are written on the first update.
function createSelect(root, e, onChange) {
  const id = uid(e.name);
  const label = make('label', { htmlFor: id, textContent: `${e.label} ` }, root);
  make('span', { className: 'unit', textContent: '(innermost first)' }, label);
  const select = make('select', { id }, root);
  select.dataset.state = e.name;
  select.addEventListener('change', () => onChange(e.name, select.value));
  return {
    update(state) {
      if (!select.options.length) {
        for (const [value, text] of optionsOf(entry(e.name)))
          make('option', { value, textContent: text }, select);
      }
      if (select.value !== state[e.name]) select.value = state[e.name];
    },
  };
}

export function createControls({ switches, order }, { onChange }) {
  const controls = [];
  // Built before the module loads: the page's rows alone.
  for (const e of ROWS) {
    if (e.control === 'switch') controls.push(createSwitch(switches, e, onChange));
    if (e.control === 'order') controls.push(createSelect(order, e, onChange));
  }
  return {
    update(state) {
      for (const c of controls) c.update(state);
    },
  };
}
