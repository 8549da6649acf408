// What the lab tells the reader about what it was given: the notes (an option, a URL value
// or a field it refused or changed, and what it uses instead), politely, the first few at once
// and the rest folded; and the core's refusal of the scenario on screen, placed by the key it
// carries: beside that field when the form shows it, else at the top of the lab.
import { make } from '../lib/dom.js';
import { splitNotes } from '../state/options.js';

export function createNotes(root) {
  const body = root.querySelector('.pe-notes-body');
  const list = root.querySelector('.pe-notes-list');
  const errorBox = root.querySelector('.lab-error');
  let notes = []; // about the state given: replaced by the next one
  let kept = []; // about the page's author (an onReport that threw): kept until dismissed
  // (message, row, key) -> true when the form placed the message beside a field
  let field = null;

  function show(next) {
    notes = next;
    const all = [...kept, ...next];
    const { shown, more, dropped } = splitNotes(all);
    const items = shown.map((text) => make('li', { textContent: text }));
    if (more.length) {
      const li = make('li');
      const details = make('details', {}, li);
      make('summary', { textContent: `… and ${more.length + dropped} more` }, details);
      const ul = make('ul', {}, details);
      for (const text of more) make('li', { textContent: text }, ul);
      if (dropped) make('li', { textContent: `(${dropped} more not listed)` }, ul);
      items.push(li);
    }
    list.replaceChildren(...items);
    body.hidden = all.length === 0;
  }
  root.querySelector('.pe-notes-dismiss').addEventListener('click', () => {
    kept = [];
    show([]);
  });

  return {
    // The notes about the state, in place of the last ones.
    show,
    add(more) {
      if (more.length) show([...notes, ...more]);
    },
    // A note about the page itself, which no change of state makes untrue.
    keep(more) {
      kept = [...kept, ...more];
      show(notes);
    },
    // Where the form places a refusal beside its field (set once the form exists).
    set besideField(place) {
      field = place;
    },
    // The core's (or the table's) refusal of what is on screen, null to clear it. `row` is the
    // state row its key names. The form keeps what was typed, so the reader sees the value
    // the message is about.
    error(message, row = null, key = null) {
      const beside = Boolean(field?.(message, row, key)) && Boolean(message);
      errorBox.hidden = !message || beside;
      errorBox.textContent = message && !beside ? message : '';
    },
    fatal(message) {
      errorBox.hidden = false;
      errorBox.textContent = message;
    },
  };
}
