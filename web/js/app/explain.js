// Show the math. A number marked data-explain="<report key>" (the dotted path of the number in
// the report: "memory.per_gpu_bytes", "comms.data.time_s") explains itself from the core's
// derivation of it: the formula with its values plugged in and the result, the formula in
// symbols, and the source (core/explain/explain.cpp). The report lists the keys it explains
// (report.explained); a derivation is asked of the core when a reader opens it (of the
// planner's module, which alone builds them: the first time, it loads), and kept until the
// next report. The page does no model math: a number the core does not explain stays
// plain text.
//
// One instance per lab, listening on the lab's root, so any panel (the book's, the advanced
// ones) only marks its numbers; update(report), called once every panel has drawn, makes each
// explained number a button. Hovering or focusing it shows its derivation (and the exact value
// its title gives); click, Enter or Space pins it open (aria-expanded); Escape, or a click
// elsewhere, closes it. The derivation is the button's description (aria-describedby).
import { make, uid } from '../lib/dom.js';

const HIDE_MS = 250; // time to move the pointer from a number onto its derivation

// The derivation box: one per lab, under the number it explains, inside the lab's box.
function createTip(root) {
  const tip = make('div', { className: 'explain-tip', id: uid('explain'), hidden: true }, root);
  tip.setAttribute('role', 'tooltip');
  const lines = {
    text: make('p', { className: 'explain-text' }, tip),
    formula: make('p', { className: 'explain-formula' }, tip),
    where: make('p', { className: 'explain-where' }, tip),
    exact: make('p', { className: 'explain-exact' }, tip),
    source: make('p', { className: 'explain-source' }, tip),
  };
  const place = (el) => {
    tip.hidden = false;
    const box = root.getBoundingClientRect();
    const at = el.getBoundingClientRect();
    const left = Math.max(0, Math.min(at.left - box.left, box.width - tip.offsetWidth - 4));
    tip.style.left = `${left}px`;
    tip.style.top = `${at.bottom - box.top + 6}px`;
  };
  return {
    node: tip,
    // Under el, a line in place of the derivation: while it is on its way (busy), or why it
    // could not come.
    say(el, message, busy) {
      tip.setAttribute('aria-busy', String(busy));
      lines.text.textContent = message;
      for (const line of [lines.formula, lines.where, lines.exact, lines.source]) {
        line.textContent = '';
        line.hidden = true;
      }
      place(el);
    },
    // The derivation d of the number el (and the exact value its title gives).
    show(el, d) {
      tip.setAttribute('aria-busy', 'false');
      lines.formula.hidden = lines.source.hidden = false;
      lines.text.textContent = d.text;
      lines.formula.textContent = `Formula: ${d.formula}`;
      // What each symbol stands for, in the core's words (a degree such as TP names itself).
      const named = d.terms.filter((t) => t.symbol !== t.name);
      lines.where.textContent = named.length
        ? `Where ${named.map((t) => `${t.symbol}: ${t.name}`).join('; ')}.`
        : '';
      lines.where.hidden = !named.length;
      lines.exact.textContent = el.title ? `Exact: ${el.title}` : '';
      lines.exact.hidden = !el.title;
      lines.source.textContent = `Source: ${d.source}`;
      place(el);
    },
    hide() {
      tip.hidden = true;
    },
  };
}

// The reader's ways in: hover, focus, click, Enter or Space on a number; Escape anywhere.
function listen(root, tip, x) {
  let timer = 0;
  const handlers = {
    click(e) {
      const el = x.numberOf(e.target);
      if (el) x.toggle(el);
      else if (x.pinned() && !tip.node.contains(e.target)) x.hide();
    },
    keydown(e) {
      const el = x.numberOf(e.target);
      if (el && (e.key === 'Enter' || e.key === ' ')) {
        e.preventDefault();
        x.toggle(el);
      }
    },
    focusin(e) {
      const el = x.numberOf(e.target);
      if (el && x.shown() !== el) x.show(el, false);
    },
    focusout(e) {
      if (!x.pinned() && x.shown() && x.shown() === x.numberOf(e.target)) x.hide();
    },
    pointerover(e) {
      clearTimeout(timer);
      const el = x.numberOf(e.target);
      if (el && !x.pinned()) x.show(el, false);
    },
    pointerout(e) {
      const shown = x.shown();
      if (x.pinned() || !shown) return;
      const to = e.relatedTarget;
      if (to instanceof Node && (shown.contains(to) || tip.node.contains(to))) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!x.pinned() && x.shown() !== root.ownerDocument.activeElement) x.hide();
      }, HIDE_MS);
    },
  };
  for (const [type, handler] of Object.entries(handlers)) root.addEventListener(type, handler);
  // A derivation shown by hover must be dismissable wherever the focus is.
  const onEscape = (e) => {
    if (e.key === 'Escape' && x.shown()) x.hide();
  };
  document.addEventListener('keydown', onEscape);
  return () => {
    clearTimeout(timer);
    document.removeEventListener('keydown', onEscape);
  };
}

// derive(report, key): a promise of the core's derivation of one number of the report.
export function createExplain(root, derive) {
  const tip = createTip(root);
  let report = null;
  let explained = new Set(); // the report's keys
  const derived = new Map(); // key -> promise of its derivation, for this report
  let shown = null; // the number whose derivation shows
  let pinned = false;

  const explains = (el) => explained.has(el?.dataset.explain);
  const derivationOf = (el) => {
    const key = el.dataset.explain;
    if (!derived.has(key))
      derived.set(
        key,
        Promise.resolve().then(() => derive(report, key)),
      );
    return derived.get(key);
  };
  // The tip under el shows its derivation once it comes, unless the reader has moved on or
  // a new report came meanwhile.
  function fill(el) {
    const asked = report;
    tip.say(el, 'Working out the math…', true);
    derivationOf(el).then(
      (d) => {
        if (shown === el && report === asked) tip.show(el, d);
      },
      (e) => {
        if (shown === el && report === asked)
          tip.say(el, `The math could not be loaded: ${e.message}`, false);
      },
    );
  }
  const numberOf = (node) => {
    const el = node instanceof Element ? node.closest('[data-explain]') : null;
    return el && root.contains(el) && explains(el) ? el : null;
  };

  function decorate(el) {
    if (explains(el)) {
      if (el.tabIndex !== 0) el.tabIndex = 0;
      el.setAttribute('role', 'button');
      el.setAttribute('aria-describedby', tip.node.id);
      el.setAttribute('aria-expanded', String(el === shown && pinned));
      el.classList.add('explained');
    } else if (el.classList.contains('explained')) {
      for (const a of ['tabindex', 'role', 'aria-describedby', 'aria-expanded'])
        el.removeAttribute(a);
      el.classList.remove('explained');
    }
  }

  function show(el, pin) {
    if (shown && shown !== el) shown.setAttribute('aria-expanded', 'false');
    shown = el;
    pinned = pin;
    fill(el);
    el.setAttribute('aria-expanded', String(pin));
  }

  function hide() {
    shown?.setAttribute('aria-expanded', 'false');
    shown = null;
    pinned = false;
    tip.hide();
  }

  const stop = listen(root, tip, {
    numberOf,
    show,
    hide,
    toggle: (el) => (shown === el && pinned ? hide() : show(el, true)),
    shown: () => shown,
    pinned: () => pinned,
  });

  return {
    // A new report: every marked number under the root is (re)decorated, and a shown
    // derivation follows the new numbers.
    update(next) {
      report = next;
      explained = new Set(next?.explained ?? []);
      derived.clear();
      for (const el of root.querySelectorAll('[data-explain]')) decorate(el);
      if (!shown) return;
      if (!shown.isConnected || !explains(shown)) hide();
      else fill(shown);
    },
    destroy() {
      hide();
      stop();
    },
  };
}
