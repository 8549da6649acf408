// "Try it": the chapter's lab as steps that ask the reader to predict before they toggle. Each
// step is a question (a choice or a number), the state the lab shows once it is answered, and
// the check: the reader's answer against the core's report for that state, explained with the
// core's own derivations (report.explain: the `evaluate` it is given asks for them). No model
// math here: the numbers are the report's.
//
// Answers are kept in localStorage (one list per origin, so a reload, or the same lab on
// another page, shows them again); where storage is refused (a sandboxed frame) they last as
// long as the page. An author hides the section with hide=exercises. With `stepper` (an
// embedded lab, which fits one screen) one step shows at a time, "Question n of 7" between
// Previous and Next.
import { make, uid } from '../lib/dom.js';
import * as fmt from '../lib/format.js';
import { applyPreset, changeMany, defaults } from '../state/state.js';

const STORE_KEY = 'parallelism-explorer:exercises';
const ALL = { data: true, tensor: true, pipeline: true };
const SEAM_NAMES = { data: 'DP', tensor: 'TP', pipeline: 'PP' };
const SEAMS = Object.keys(SEAM_NAMES);

const math = (r, key) => r.explain[key]?.text ?? '';
// The seams whose traffic crosses the network, "data,pipeline" (the choices' values).
const onNetwork = (r) => SEAMS.filter((s) => r.comms[s].link === 'network').join(',') || 'none';
const linksText = (r) =>
  SEAMS.filter((s) => r.comms[s].active)
    .map((s) => `${SEAM_NAMES[s]}: ${math(r, `comms.${s}.link_bytes_per_s`)}.`)
    .join(' ');
// The choice nearest the share of the model one GPU holds (within 1%).
const SHARES = [
  ['1', 'All of them, as before'],
  ['0.25', 'A quarter'],
  ['0.125', 'An eighth'],
  ['0.0625', 'A sixteenth'],
];
const share = (r) => {
  const held = r.memory.params_per_gpu / r.model_params;
  return SHARES.find(([v]) => Math.abs(held - Number(v)) <= 0.01 * Number(v))?.[0] ?? 'none';
};
// The share of 1F1B's bubble a schedule leaves: the reader's answer is judged against it.
function bubbleLeft(r, before) {
  return before?.time.bubble_s > 0 ? r.time.bubble_s / before.time.bubble_s : 0;
}
const seams = (data, tensor, pipeline) => changeMany(defaults(), { data, tensor, pipeline });

// The steps. state(): the lab's state for the step, from the book's defaults; before(): a state
// the step compares with, evaluated too (optional); answer(report, beforeReport): the right
// choice, or for a number { value, shown }; explain(report, beforeReport): the words after it;
// part: the part of the lab that shows the answer, brought into view once it is checked.
// In this order no step's answer shows on the screen before it is asked: not in the lab's
// first state (data parallel only) nor in any earlier step's (book.test checks it with the
// core: each step's answer() differs in all of those states).
export const EXERCISES = [
  {
    id: 'most-bytes',
    ask: 'Turn on all three seams. Which seam sends the most bytes per GPU per step?',
    choices: SEAMS.map((s) => [s, `${SEAM_NAMES[s]} (${s})`]),
    state: () => seams(true, true, true),
    part: '.wire',
    answer: (r) => r.comms.busiest_seam,
    explain: (r) =>
      `${SEAMS.map((s) => `${SEAM_NAMES[s]}: ${math(r, `comms.${s}.bytes_per_gpu_per_step`)}.`).join(' ')} ` +
      'Tensor parallelism synchronises every layer, which is why it stays inside a node.',
  },
  {
    id: 'tp-alone-share',
    ask:
      'Tensor parallel alone: all 16 GPUs in one tensor group. What share of the model’s ' +
      'parameters does each GPU hold?',
    choices: SHARES,
    state: () => seams(false, true, false),
    part: '.memory',
    answer: share,
    explain: (r) =>
      `At ${fmt.degrees(r.degrees)}: ${math(r, 'memory.params_per_gpu')} parameters per GPU ` +
      `(it falls as 1/(TP×PP)), so ${math(r, 'memory.per_gpu_bytes')}. The tensor group now ` +
      'spans both nodes: its per-layer all-reduces now cross the network between them (the ' +
      'Tensor wire card).',
  },
  {
    id: 'tp-memory',
    ask:
      'Data and tensor parallel together. How much memory does each GPU need for the ' +
      'weights, gradients and optimizer states?',
    unit: 'GB',
    state: () => seams(true, true, false),
    part: '.memory',
    answer: (r) => ({
      value: r.memory.per_gpu_bytes / 1e9,
      shown: fmt.bytes(r.memory.per_gpu_bytes),
    }),
    explain: (r) =>
      `${math(r, 'memory.per_gpu_bytes')}: each GPU holds 1/${r.memory.shard_factor} of the ` +
      `model, so it ${r.memory.fits ? 'fits' : 'overflows'} its ` +
      `${fmt.bytes(r.memory.gpu_memory_bytes)}. Data parallelism copies the model; only ` +
      'the tensor split cuts it (sharding the copies is ZeRO/FSDP’s job).',
  },
  {
    id: 'network-no-dp',
    ask:
      'Tensor and pipeline parallel, data parallel off, in the chapter’s nesting order. The ' +
      '16 GPUs sit in two nodes of 8: which seam’s traffic crosses the network between them?',
    choices: [
      ['data', 'DP'],
      ['tensor', 'TP'],
      ['pipeline', 'PP'],
      ['none', 'None'],
    ],
    state: () => seams(false, true, true),
    part: '.wire',
    answer: onNetwork,
    explain: (r) =>
      `${linksText(r)} TP is innermost and fills half a node, so the pipeline’s stages are ` +
      'what land on the other node; at the book’s fleet (the last step) it spans machines too.',
  },
  {
    id: 'break-rule',
    ask:
      'Break the rule: all three seams, nesting order DP, PP, TP (DP innermost, TP ' +
      'outermost). What happens to the step time?',
    choices: [
      ['faster', 'It gets faster'],
      ['same', 'About the same (within 1%)'],
      ['slower', 'A little slower (up to a quarter more)'],
      ['much', 'Much slower (more than a quarter more)'],
    ],
    state: () => changeMany(defaults(), { ...ALL, order: 'dp,pp,tp' }),
    part: '.order-out',
    answer: (r) => {
      const change = r.order.order_cost_s / r.order.rule_order_step_s;
      if (change < -0.01) return 'faster';
      if (change <= 0.01) return 'same';
      return change <= 0.25 ? 'slower' : 'much';
    },
    explain: (r) =>
      `${math(r, 'order.order_cost_s')} per step. TP: ${math(r, 'comms.tensor.link_bytes_per_s')}, ` +
      `so ${math(r, 'comms.tensor.time_s')}. The chattiest seam belongs on the fastest links.`,
  },
  {
    id: 'zero-bubble',
    ask:
      'All three seams, now with a zero-bubble schedule (ZB-H1), which runs each weight ' +
      'gradient where 1F1B idled. How much of 1F1B’s bubble is left?',
    choices: [
      ['all', 'All or more'],
      ['part', 'A quarter to three quarters'],
      ['none', 'Under a quarter'],
    ],
    state: () => changeMany(defaults(), { ...ALL, advanced: true, schedule: 'zb_h1' }),
    before: () => changeMany(defaults(), { ...ALL, advanced: true, schedule: '1f1b' }),
    part: '.timeline',
    answer: (r, before) => {
      const left = bubbleLeft(r, before);
      if (left < 0.25) return 'none';
      return left <= 0.75 ? 'part' : 'all';
    },
    explain: (r, before) => {
      // The weight gradient's share w, a term of the core's own ZB-H1 bubble derivation.
      const w = r.explain['pipeline.bubble_fraction']?.terms.find((t) => t.symbol === 'w');
      const idle = (x) =>
        `${fmt.seconds(x.time.bubble_s)} of its ${fmt.seconds(x.time.step_s)} step ` +
        `(${fmt.percent(x.pipeline.bubble_fraction)})`;
      return (
        `With 1F1B each GPU waits ${idle(before)}; with ZB-H1 ${idle(r)}, so ` +
        `${fmt.percent(bubbleLeft(r, before))} of the bubble is left. Each weight gradient runs ` +
        'in a slot 1F1B left idle: ZB-H1’s bubble is 1F1B’s × (1 − 2w)' +
        (w
          ? `, where w = ${fmt.percent(w.value)} is the weight gradient’s share of the work.`
          : '.')
      );
    },
  },
  {
    id: 'book-fleet',
    ask:
      'The book’s fleet: TP 8 × PP 16 × DP 80 on 10,240 GPUs, in the chapter’s order. Which ' +
      'seams’ traffic crosses the network?',
    choices: [
      ['data', 'DP only'],
      ['data,pipeline', 'PP and DP'],
      ['data,tensor,pipeline', 'All three'],
    ],
    state: () => applyPreset(defaults(), 'fleet'),
    part: '.grid-panel',
    answer: onNetwork,
    explain: (r) =>
      `${linksText(r)} Here the pipeline does span machines, as the chapter says: TP fills each ` +
      'node, so neighbouring stages sit on different nodes. The lab’s Advanced section is open ' +
      'now (the book’s fleet is one of its presets, and its memory counts activations and ' +
      'overhead too); “Back to 16 GPUs” closes it and returns the lab to where you were.',
  },
];

const SEAM_WORDS = { data: 'Data', tensor: 'Tensor', pipeline: 'Pipeline' };
const listed = (names) =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

// What a step did to the lab, in words: the switches it turned, the order it set, the fleet
// it loaded ('' when the lab already showed that state).
export function changeWords(from, to) {
  const said = [];
  if (to.gpus !== from.gpus) {
    said.push(`loaded ${fmt.integer(to.gpus)} GPUs (the book’s fleet) and opened Advanced`);
  }
  const on = SEAMS.filter((s) => to[s] && !from[s]).map((s) => SEAM_WORDS[s]);
  const off = SEAMS.filter((s) => !to[s] && from[s]).map((s) => SEAM_WORDS[s]);
  if (on.length) said.push(`switched ${listed(on)} parallel on`);
  if (off.length) said.push(`switched ${listed(off)} parallel off`);
  if (to.order !== from.order) {
    said.push(`set the nesting order to ${to.order.toUpperCase().replaceAll(',', ', ')}`);
  }
  if (to.advanced && !from.advanced && to.gpus === from.gpus) said.push('opened Advanced');
  if (to.schedule !== from.schedule) {
    said.push(`set the pipeline schedule to ${fmt.schedule(to.schedule)}`);
  }
  return said.length ? `The lab ${listed(said)}.` : '';
}

const reducedMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches;

// How far a sticky toolbar (a narrow screen's) covers the top of the screen, in pixels.
function coveredTop(root) {
  const bar = root.querySelector('.toolbar');
  if (!bar || getComputedStyle(bar).position !== 'sticky') return 0;
  return Math.max(0, bar.getBoundingClientRect().bottom);
}

// A checked step's answer where the reader looks: the part of the lab that shows it is
// scrolled into view, its top just under a sticky toolbar, and outlined, with a button there
// that goes back to the step (and the focus on it, so Enter returns). One part at a time;
// back, or the next check, clears it.
function createReveal(root) {
  let shown = null;
  const clear = () => {
    shown?.part.classList.remove('exercise-target');
    shown?.back.remove();
    shown = null;
  };
  return {
    show(part, label, stepButton) {
      clear();
      if (!part || part.closest('[hidden], [data-pe-hidden]')) return;
      const back = make('button', {
        type: 'button',
        className: 'tool back-to-step',
        textContent: label,
      });
      part.classList.add('exercise-target');
      // A list holds only items: the button goes in the first, placed at the list's corner.
      const list = part.matches('ul, ol');
      (list ? (part.querySelector(':scope > li:not([hidden])') ?? part) : part).append(back);
      shown = { part, back };
      const behavior = reducedMotion() ? 'auto' : 'smooth';
      back.addEventListener('click', () => {
        clear();
        const button = stepButton();
        button.scrollIntoView({ block: 'center', behavior });
        button.focus({ preventScroll: true });
      });
      // The margin the scroll leaves above the part: the toolbar's height and a little room
      // for the outline (set as a property: the CSP allows no style attribute in markup).
      part.style.scrollMarginTop = `${coveredTop(root) + 8}px`;
      part.scrollIntoView({ block: 'start', behavior });
      back.focus({ preventScroll: true });
    },
    clear,
  };
}

function readSaved() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE_KEY) ?? '{}');
    return saved && typeof saved === 'object' && !Array.isArray(saved) ? saved : {};
  } catch {
    return {}; // storage refused, or not ours to read: start afresh
  }
}

function writeSaved(saved) {
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(saved));
  } catch {
    // storage refused (a sandboxed frame): the answers last as long as the page
  }
}

// One step's form: a fieldset whose legend asks, the answer's controls, a check button and
// the feedback (a status region, so the verdict is read out).
function buildStep(list, step, index, onCheck) {
  const li = make('li', {}, list);
  li.dataset.exercise = step.id;
  const form = make('form', { className: 'exercise', noValidate: true }, li);
  const fieldset = make('fieldset', {}, form);
  make('legend', { textContent: `${index + 1}. ${step.ask}` }, fieldset);
  const name = uid(step.id);
  if (step.choices) {
    for (const [value, text] of step.choices) {
      const label = make('label', { className: 'choice' }, fieldset);
      make('input', { type: 'radio', name, value }, label);
      label.append(` ${text}`);
    }
  } else {
    const id = `${name}-n`;
    const row = make('div', { className: 'number-answer' }, fieldset);
    make('label', { htmlFor: id, textContent: 'Your prediction' }, row);
    make('input', { type: 'number', id, name, min: '0', step: 'any', inputMode: 'decimal' }, row);
    make('span', { className: 'unit', textContent: step.unit }, row);
  }
  make(
    'button',
    { type: 'submit', className: 'tool', textContent: 'Check, and show it in the lab' },
    form,
  );
  const feedback = make('div', { className: 'exercise-feedback' }, form);
  feedback.setAttribute('role', 'status');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onCheck(step, form.elements[name]?.value ?? '');
  });
  return { li, form, name, feedback };
}

// The answer given against the report's: { right, said } ("the lab says 256 GB").
function judge(step, given, report, before) {
  const answer = step.answer(report, before);
  if (step.choices) {
    const said = step.choices.find(([v]) => v === answer)?.[1] ?? `none of these (${answer})`;
    return { right: given === answer, said };
  }
  const n = Number(given);
  return { right: Math.abs(n - answer.value) <= 0.1 * Math.abs(answer.value), said: answer.shown };
}

// One step at a time: Previous, "Question n of N", Next. go(i) shows step i.
function createStepper(section, items, before) {
  const nav = make('div', { className: 'exercise-nav' });
  section.insertBefore(nav, before);
  nav.setAttribute('role', 'group');
  nav.setAttribute('aria-label', 'Steps');
  const prev = make(
    'button',
    { type: 'button', className: 'tool', textContent: '← Previous' },
    nav,
  );
  const at = make('span', { className: 'exercise-at' }, nav);
  const next = make('button', { type: 'button', className: 'tool', textContent: 'Next →' }, nav);
  let index = 0;
  function go(i) {
    index = Math.max(0, Math.min(items.length - 1, i));
    items.forEach((li, k) => (li.hidden = k !== index));
    at.textContent = `Question ${index + 1} of ${items.length}`;
    prev.disabled = index === 0;
    next.disabled = index === items.length - 1;
  }
  prev.addEventListener('click', () => go(index - 1));
  next.addEventListener('click', () => go(index + 1));
  go(0);
  return { go };
}

// The section's heading and what it is about; returns the progress line under them.
function heading(section) {
  // A heading, not a named region: two labs on a page would make two "Try it" regions.
  make('h2', { textContent: 'Try it' }, section);
  const about =
    'Predict first, then check: each answer is checked against the lab’s own report, and the ' +
    'lab then shows that state, so you can see why.';
  make('p', { className: 'explain', textContent: about }, section);
  return make('p', { className: 'exercise-progress' }, section);
}

// The verdict and the words after it, in the step's feedback.
function writeVerdict(view, step, given, report, before) {
  view.result = judge(step, given, report, before);
  const { right, said } = view.result;
  view.li.dataset.result = right ? 'right' : 'wrong';
  const text = right ? `✓ Right: ${said}.` : `✗ Not quite: the lab says ${said}.`;
  make('p', { className: 'verdict', textContent: text }, view.feedback);
  make('p', { textContent: step.explain(report, before) }, view.feedback);
}

// Why the memory figure moves when a step opens the Advanced section: the same layout under
// the book's count (weights, gradients and optimizer) and under the section's.
async function memoryWords(evaluate, state, report) {
  const book = await evaluate(changeMany(state, { advanced: false }));
  if (book.error) return '';
  return (
    `Advanced counts memory as a real run does (activations too, and each stage’s whole ` +
    `layers), so the busiest GPU needs ${fmt.bytes(report.memory.per_gpu_bytes)}, where the ` +
    `book’s count of weights, gradients and optimizer gave ${fmt.bytes(book.report.memory.per_gpu_bytes)}.`
  );
}

export function createExercises(section, { evaluate, show, current, stepper: oneAtATime = false }) {
  const progress = heading(section);
  const list = make('ol', { className: 'exercise-list' }, section);
  const reset = make('button', { type: 'button', className: 'tool', textContent: 'Start over' });
  let saved = readSaved();
  const steps = new Map();

  function showProgress() {
    const done = EXERCISES.filter((s) => steps.get(s.id).result);
    const right = done.filter((s) => steps.get(s.id).result.right).length;
    progress.textContent = `${done.length} of ${EXERCISES.length} answered, ${right} right.`;
    reset.hidden = done.length === 0;
  }

  const root = section.closest('.pe-lab') ?? section.getRootNode();
  const reveal = createReveal(root);

  // The verdict and the explanation, from the core's report for the step's state (its
  // derivations come from the planner's module, loaded the first time: hence async).
  async function verdict(step, given) {
    const view = steps.get(step.id);
    view.form.setAttribute('aria-busy', 'true');
    const { report, error } = await evaluate(step.state());
    const base = step.before && !error ? await evaluate(step.before()) : {};
    view.form.removeAttribute('aria-busy');
    view.feedback.replaceChildren();
    if (error ?? base.error) {
      view.feedback.append(
        `The lab could not evaluate this step: ${(error ?? base.error).message}`,
      );
      return;
    }
    writeVerdict(view, step, given, report, base.report);
    return report;
  }

  async function check(step, given) {
    const view = steps.get(step.id);
    if (String(given).trim() === '' || (!step.choices && !Number.isFinite(Number(given)))) {
      view.feedback.replaceChildren(
        step.choices ? 'Choose an answer first.' : 'Enter a number first.',
      );
      return;
    }
    const report = await verdict(step, given);
    saved = { ...readSaved(), [step.id]: String(given) };
    writeSaved(saved);
    showProgress();
    const from = current();
    // The lab draws the state, with the Advanced section's parts once its module has loaded.
    const shown = show(step.state());
    const to = current();
    const words = [changeWords(from, to) || 'The lab already showed this state.'];
    if (report && to.advanced && !from.advanced && to.gpus === from.gpus) {
      words.push(await memoryWords(evaluate, step.state(), report));
    }
    make('p', { className: 'exercise-change', textContent: words.join(' ') }, view.feedback);
    await shown;
    const index = EXERCISES.indexOf(step);
    reveal.show(root.querySelector(step.part), `Back to step ${index + 1}`, () => {
      stepper?.go(index);
      return view.form.querySelector('button[type="submit"]');
    });
  }

  EXERCISES.forEach((step, i) => steps.set(step.id, buildStep(list, step, i, check)));
  const items = [...steps.values()].map((v) => v.li);
  const stepper = oneAtATime ? createStepper(section, items, list) : null;
  section.append(reset);
  reset.addEventListener('click', () => {
    saved = {};
    writeSaved(saved);
    for (const view of steps.values()) {
      view.form.reset();
      view.feedback.replaceChildren();
      view.result = null;
      delete view.li.dataset.result;
    }
    showProgress();
    stepper?.go(0);
    list.querySelector('input')?.focus();
  });
  showProgress();

  return {
    // The answers kept from an earlier visit, checked again (the lab's state is left alone),
    // without announcing them: the verdicts are written while their regions are not live.
    async restore() {
      const regions = [...steps.values()].map((v) => v.feedback);
      for (const r of regions) r.removeAttribute('role');
      const verdicts = [];
      for (const step of EXERCISES) {
        const given = saved[step.id];
        if (typeof given !== 'string') continue;
        const view = steps.get(step.id);
        const field = view.form.elements[view.name];
        if (step.choices && !step.choices.some(([v]) => v === given)) continue;
        if (!step.choices && !Number.isFinite(Number(given))) continue;
        field.value = given;
        verdicts.push(verdict(step, given));
      }
      await Promise.all(verdicts);
      // One step at a time: the first not answered yet.
      const open = EXERCISES.findIndex((step) => !steps.get(step.id).result);
      stepper?.go(open === -1 ? 0 : open);
      requestAnimationFrame(() => {
        for (const r of regions) r.setAttribute('role', 'status');
      });
      showProgress();
    },
  };
}
