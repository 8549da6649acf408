// The lab as a component: mount(element, options) -> { update(options), destroy(), ready }.
// Every lab on a page is independent (its own state, markup and ids, everything found inside
// its own root) and all of them share one compiled wasm module (getLab()). The standalone
// page (main.js), the custom element (../../parallelism-explorer.js) and the iframe page
// (embed-page.js) are its three users.
//
//   import { mount } from './js/app/embed.js';
//   const lab = mount(document.querySelector('#lab'), { gpus: 64, seams: 'data,tensor',
//     hide: ['advanced'], theme: 'dark', url: 'hash' });
//
// Options (README.md "Embedding"): any state key of state/state.js (gpus, degrees, model, ...),
// seams (a list), hide (parts or controls), theme (auto | light | dark), url (none | query |
// hash: where the state is read from and written to), and from JavaScript only: onReport
// (called with each report the core accepts), linkBase (the page a copied link opens) and
// layout ("embed", the default: the book's view on one screen, "Try it" one step at a time,
// the grid's key, the rule of thumb and Compare behind their summaries; "page": the standalone
// page's, everything open).
// A value the state table refuses, an unknown key, or one the core refuses falls back with a
// note in the lab; mount never throws for bad options.
//
// This module only composes: state/store.js holds the state and asks the core,
// state/url-sync.js keeps it in the URL, view.js draws, notes.js explains, share-bar.js copies
// and exports, exercises.js asks the reader to predict (loaded when its section nears the
// screen: lazyExercises below).
import { make, uid, whenIdle, whenNear } from '../lib/dom.js';
import {
  readMountOptions,
  readOptions,
  SEAMS,
  shown,
  stateFrom,
  textOf,
} from '../state/options.js';
import { getPlannerLab } from '../planner/lab.js';
import { bookFleetPreset, defaults, entry, keepPage, useSchema } from '../state/state.js';
import { createStore } from '../state/store.js';
import { createUrlSync } from '../state/url-sync.js';
import { MARKUP } from './markup.js';
import { createNotes } from './notes.js';
import { createShareBar } from './share-bar.js';
import { createView } from './view.js';

const CSS_URL = new URL('../../explorer.css', import.meta.url).href;
const PAGE_URL = new URL('../../', import.meta.url).href;
const JS_ONLY = ['onReport', 'linkBase', 'layout'];
const LAYOUTS = ['embed', 'page'];
// What update({ key: null }) puts back for the keys that are not state rows.
const RESETS = { hide: '', theme: 'auto', url: 'none' };

let labPromise = null;

// The one compiled module (and the lab API around it) that every lab on the page shares,
// loaded by the first lab that needs it. The JS glue is imported here, not at the top, so a
// page that only defines labs (the custom element off screen) downloads none of it yet.
export function getLab() {
  labPromise ??= import('../../lab/lab.js')
    .then((m) => m.createLab())
    .then((lab) => {
      useSchema(lab.schema()); // the state table's types, defaults and ranges: the core's
      return lab;
    })
    .catch((e) => {
      labPromise = null; // a later lab may try again
      throw e;
    });
  return labPromise;
}

// The stylesheet, once per document or shadow root; resolves once it applies.
function ensureStyles(host) {
  const rootNode = host.getRootNode();
  const shadow = rootNode instanceof ShadowRoot;
  // In a document, the page's own link may be in <body> (the published standalone page's is).
  const links = [...(shadow ? rootNode : document).querySelectorAll('link[rel="stylesheet"]')];
  const link =
    links.find((l) => l.href === CSS_URL) ??
    make('link', { rel: 'stylesheet', href: CSS_URL }, shadow ? rootNode : document.head);
  if (link.sheet) return Promise.resolve();
  return new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    link.addEventListener('error', resolve, { once: true });
  });
}

// The first view a published page carries (scripts/prerender.mjs), if any: the lab's picture
// until the lab is ready, in its host. Dimmed when the options or the URL ask for another
// state than the book's first one, which the picture shows. takeOver(root, fit): the lab takes
// its place in one task, its grid fitted to the column it now has (hidden, it had none), so
// one frame shows the picture and the next the lab.
function firstView(host, given) {
  const view = host.querySelector(':scope > .pe-first-view');
  if (!view) return { present: false, takeOver() {}, remove() {} };
  view.classList.toggle(
    'loading',
    given.pairs.some(([k]) => k !== 'url') || location.search.length > 1,
  );
  return {
    present: true,
    takeOver(root, fit) {
      if (!view.isConnected) return;
      view.remove();
      root.hidden = false;
      fit();
    },
    remove: () => view.remove(),
  };
}

function createRoot(host, layout, hidden) {
  const root = make('section', { className: 'pe-lab loading', hidden });
  root.classList.toggle('pe-compact', layout === 'embed');
  const prefix = uid('lab');
  root.innerHTML = MARKUP.replaceAll('@@', `${prefix}-`);
  root.setAttribute('aria-labelledby', `${prefix}-title`);
  root.setAttribute('aria-busy', 'true');
  root.dataset.theme = 'auto';
  if (layout === 'embed')
    for (const more of root.querySelectorAll('details.more')) more.removeAttribute('open');
  host.append(root);
  return root;
}

// The JavaScript-only options: onReport (a function), linkBase (an http or https URL) and
// layout (embed or page).
function readJs(js, into, notes) {
  if ('layout' in js) {
    if (LAYOUTS.includes(js.layout)) into.layout = js.layout;
    else
      notes.push(
        `layout: ${shown(js.layout)} is not allowed (${LAYOUTS.join(' or ')}); using embed.`,
      );
  }
  if ('onReport' in js) {
    if (typeof js.onReport === 'function') into.onReport = js.onReport;
    else notes.push(`onReport: ${shown(typeof js.onReport)} is not allowed (a function); ignored.`);
  }
  if ('linkBase' in js) {
    let link = null;
    try {
      link = new URL(textOf(js.linkBase), location.href);
    } catch {
      link = null;
    }
    if (link && (link.protocol === 'https:' || link.protocol === 'http:'))
      into.linkBase = link.href;
    else
      notes.push(
        `linkBase: ${shown(js.linkBase)} is not allowed (an http or https URL); using ${PAGE_URL}.`,
      );
  }
}

// Each report the core accepts, to onReport. An exception there is the author's: reported
// once (as the DOM reports an exception in an event listener), and the lab goes on.
function reporter(js, notes) {
  let failed = false;
  return {
    set(onReport) {
      js.onReport = onReport;
      failed = false;
    },
    tell(report) {
      if (!js.onReport) return;
      try {
        js.onReport(report);
      } catch (e) {
        if (failed) return;
        failed = true;
        let what = 'an exception';
        try {
          what = shown(textOf(e?.message ?? e));
        } catch {
          // an exception that cannot even be read: said as such
        }
        notes.keep([`onReport threw ${what}; the lab goes on (later ones are not reported).`]);
        globalThis.reportError?.(e);
      }
    },
  };
}

// Option pairs into a lab: the look at once; once the module has loaded, the state through
// the table and then the core. Returns the notes.
function applyOptions(lab, pairs, { fromUrl = false, from = lab.store.state } = {}) {
  const { store, view, url } = lab;
  const read = readOptions(pairs);
  const list = [...read.notes];
  if (fromUrl && read.url !== undefined && read.url !== url.mode) {
    // The lab reads its state from one place: a URL cannot move it elsewhere.
    list.push(
      `url: ${shown(read.url)} is not allowed in this lab's own URL (its state lives in the ` +
        `${url.mode}); ignored.`,
    );
    read.url = undefined;
  }
  lab.look = { hide: read.hide ?? lab.look.hide, theme: read.theme ?? lab.look.theme };
  view.applyLook(lab.look);
  if (read.url !== undefined) url.mode = read.url;
  if (fromUrl) url.keep(read);
  if (!lab.core) return list;
  return [...list, ...store.apply(stateFrom(read.values, from), from)];
}

// Work asked for at load that can wait (the search a URL asks for, the reference runs): once
// the lab is ready and the page idle, so it never piles onto the load's own tasks.
const later = (lab, fn) =>
  (lab.ready ?? Promise.resolve()).then(
    () => lab.destroyed || whenIdle(() => lab.destroyed || fn()),
    () => {},
  );

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// Loads the module (shared) and the stylesheet, then reads the options and the URL into the
// state and draws it. Resolves once the lab is drawn.
async function start(lab, host, given) {
  const [core] = await Promise.all([getLab(), ensureStyles(host)]);
  // The module's instantiation, the options read through the core, and the first drawing each
  // end a main-thread task of their own (together they made one of 45-108 ms).
  await nextTask();
  if (lab.destroyed) return;
  lab.core = core;
  lab.store.start(core, defaults());
  lab.view.start(core, lab.store.redraw);
  const list = [...given.notes, ...applyOptions(lab, given.pairs, { from: defaults() })];
  lab.url.base = lab.store.state;
  const fromUrl = lab.url.read();
  if (fromUrl.length) list.push(...applyOptions(lab, fromUrl, { fromUrl: true }));
  for (const { pairs, notes } of lab.pending.splice(0)) {
    list.push(...notes, ...applyOptions(lab, pairs));
  }
  lab.notes.show(list);
  // Ready means drawn: with the advanced section, once its module has loaded too.
  await lab.view.advancedReady();
  await nextTask();
  if (lab.destroyed) return;
  lab.store.render();
  lab.exercises.restore();
  await lab.view.drawn();
}

// update(options): state keys go through the table and the core as at mount (null resets a
// key to its default); hide, theme and url replace theirs.
function update(lab, partial) {
  if (lab.destroyed) return;
  const read = readMountOptions(partial, JS_ONLY);
  if (typeof read.js.onReport === 'function') lab.reporter.set(read.js.onReport);
  // null or undefined: back to the default.
  const pairs = read.pairs.map(([k, v]) => {
    if (v !== null && v !== undefined) return [k, v];
    const name = k.toLowerCase().replace(/-/g, '_');
    const reset = RESETS[name] ?? (name === 'seams' ? defaultSeams() : defaultOf(name));
    if (reset === undefined) return [k, v];
    return [k, reset === null ? '' : String(reset)]; // null: a row left to the core
  });
  if (!lab.core) {
    // Before the module has loaded the state cannot be read yet: the look now, the rest (and
    // the notes) at start().
    applyOptions(lab, pairs);
    lab.pending.push({ pairs, notes: read.notes });
    return;
  }
  lab.notes.show([...read.notes, ...applyOptions(lab, pairs)]);
  lab.url.schedule();
}

export function mount(host, options = {}) {
  if (!(host instanceof Element)) {
    throw new TypeError('mount(element, options): element must be a DOM element');
  }
  const given = readMountOptions(options, JS_ONLY);
  const js = { onReport: null, linkBase: PAGE_URL, layout: 'embed' };
  readJs(given.js, js, given.notes);
  const first = firstView(host, given);
  const root = createRoot(host, js.layout, first.present);
  const notes = createNotes(root);
  const lab = { core: null, destroyed: false, look: { hide: [], theme: 'auto' }, notes, js };
  lab.pending = []; // update()s before the module loaded
  lab.reporter = reporter(js, notes);
  let leftFor = null; // the state a "Try it" step left for a larger fleet
  lab.store = createStore({
    view: {
      showState: (s) => lab.view.showState(s),
      render: (...a) => lab.view.render(...a),
      say: (text) => lab.view.say(text),
    },
    notes,
    onAccepted(report) {
      // Off the larger fleet by any way: the state left for it is no longer the way back.
      if (leftFor && bookFleetPreset(lab.store.state) !== 'sixteen') leftFor = null;
      lab.url.schedule();
      lab.reporter.tell(report);
    },
  });
  const { onChange, onLoad } = lab.store;
  // "Back to 16 GPUs" after a "Try it" step took the lab to a larger fleet: the state the
  // reader left for it, not the 16 GPUs with the fleet's seams.
  const onPreset = (name) => {
    const back = name === 'sixteen' ? leftFor : null;
    leftFor = null;
    if (back) lab.notes.add(lab.store.apply(keepPage(back, lab.store.state), lab.store.state));
    else lab.store.onPreset(name);
  };
  // A whole state shown as it is (a pinned one), the pins kept.
  const onShow = (next) =>
    notes.add(lab.store.apply(keepPage(next, lab.store.state), lab.store.state));
  lab.view = createView(root, {
    notes,
    onChange,
    onPreset,
    onLoad,
    onShow,
    later: (fn) => later(lab, fn),
  });
  lab.url = createUrlSync({
    root,
    current: () => lab.store.good,
    onHashChange: (pairs) => notes.show(applyOptions(lab, pairs, { fromUrl: true })),
  });
  createShareBar(root, lab);
  lab.exercises = lazyExercises(root.querySelector('.exercises'), {
    stepper: js.layout === 'embed',
    current: () => lab.store.state,
    async evaluate(state) {
      const { report, error } = lab.store.evaluate(state);
      if (error) return { error };
      try {
        return { report: (await getPlannerLab()).explain(report.scenario) };
      } catch (e) {
        return { error: e };
      }
    },
    show: (state) => {
      const from = lab.store.state;
      const fleet = (s) => bookFleetPreset(s) === 'sixteen';
      const left = fleet(state) ? (fleet(from) ? leftFor : from) : null;
      lab.notes.add(lab.store.apply(state, from));
      leftFor = left;
      return lab.view.advancedReady().then(drawnFrame); // its Advanced parts too, once loaded
    },
  });

  // The look first (theme, hidden parts), before the module loads; then the state.
  applyOptions(lab, given.pairs);
  const takeOver = () => first.takeOver(root, () => lab.view.fit());
  const ready = start(lab, host, given).then(
    () => {
      if (lab.destroyed) return;
      takeOver();
      root.classList.remove('loading');
      root.removeAttribute('aria-busy');
      root.dataset.ready = '1';
    },
    (e) => {
      takeOver();
      notes.fatal(`The lab could not start: ${e.message}`);
      root.classList.remove('loading');
      root.removeAttribute('aria-busy');
      throw e;
    },
  );
  ready.catch(() => {}); // reported in the lab; callers may still await it
  lab.ready = ready;

  return {
    ready,
    update: (partial = {}) => update(lab, partial),
    get state() {
      return { ...(lab.store.good ?? lab.store.state) };
    },
    get report() {
      return lab.store.report;
    },
    destroy() {
      lab.destroyed = true;
      first.remove();
      lab.store.destroy();
      lab.url.destroy();
      lab.view.destroy();
      root.remove();
    },
  };
}

// The seams on by default, as a seams option ("data").
function defaultSeams() {
  return SEAMS.filter((s) => entry(s).default).join(',') || 'none';
}

function defaultOf(name) {
  try {
    return entry(name).default;
  } catch {
    return undefined; // not a state key: readOptions notes it
  }
}

// Resolves once the frame that draws a change has run (the store draws in a frame of its own).
const drawnFrame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

// Try it's questions (exercises.js, about 6.6 KB gzipped) load when their section comes within
// half a screen of view: below the first screen, most readers of the book's view never reach
// them, so the first load leaves them out. restore() (the answers of an earlier visit) waits
// for them. A hidden section (hide: exercises) never comes into view, so never loads.
function lazyExercises(section, options) {
  let made = null;
  let restore = false;
  const load = () =>
    (made ??= import('./exercises.js').then(({ createExercises }) => {
      const exercises = createExercises(section, options);
      if (restore) exercises.restore();
      return exercises;
    }));
  whenNear(section, load);
  return {
    restore() {
      restore = true;
      return made?.then((exercises) => exercises.restore());
    },
  };
}
