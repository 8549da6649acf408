// The pipeline: micro-batches per step, the bubble fraction, and the schedule drawn as
// stages × time (the planner module's lab.timeline(), loaded when first drawn: the first load
// leaves the schedule out; 1F1B's forward blocks one unit long, its backward two; the
// schedules that split the backward draw B and W apart, each one unit; the idle gaps are the
// bubble). Forward, backward and weight gradient are told apart by shade, not hue alone.
// Blocks are drawn as one path per kind, so a deep pipeline costs three elements, not thousands.
import { make, panel, svg, whenNear } from '../lib/dom.js';
import * as fmt from '../lib/format.js';

const W = 640; // drawing width in SVG user units
const LEFT = 34; // stage labels
const AXIS = 18;
// A readable drawing: at most this many micro-batches (the core caps it at 1024 / stages too).
export const MAX_DRAWN_MICROBATCHES = 48;
const MAX_LABELS = 160; // blocks get their micro-batch number when there are at most this many

const TEXT_CLASS = ['on-fwd', 'on-bwd', 'on-bwd']; // W's white numbers as B's
// W's shade, between the forward's and the backward's; set here, as the stylesheet is at its
// budget (tests/browser/perf.test.mjs).
const WEIGHT_FILL = '#4a6fb8';

// The schedule's blocks as three paths (forward, backward, weight gradient) and, when they
// fit, their numbers.
function blockPaths(tl, rowH, u, pad) {
  const gap = u > 4 ? 1 : 0;
  const parts = { 0: [], 1: [], 2: [] };
  const text = [];
  const label = tl.blocks.length <= MAX_LABELS && u >= 9 && rowH >= 12;
  for (const [stage, mb, pass, start, duration] of tl.blocks) {
    const x = LEFT + start * u;
    const y = stage * rowH + pad;
    const w = duration * u - gap;
    parts[pass].push(`M${x} ${y}h${w}v${rowH - 2 * pad}h${-w}z`);
    if (label) {
      const cls = TEXT_CLASS[pass];
      const t = svg('text', {
        x: x + w / 2,
        y: y + rowH / 2 + 2,
        'text-anchor': 'middle',
        class: cls,
      });
      t.textContent = String(mb + 1);
      text.push(t);
    }
  }
  return { fwd: parts[0], bwd: parts[1], wgt: parts[2], text };
}

// Draws the core's schedule (lab.timeline()) into the chart's layers.
function drawTimeline(layers, tl) {
  const rowH = Math.max(3, Math.min(24, 300 / tl.stages));
  const u = (W - LEFT) / tl.span;
  const height = tl.stages * rowH;
  layers.drawing.setAttribute('viewBox', `0 0 ${W} ${height + AXIS}`);
  const pad = rowH > 6 ? 1.5 : 0.25;
  const { fwd, bwd, wgt, text } = blockPaths(tl, rowH, u, pad);
  // Each stage's row behind its blocks, where an idle slot shows: the whole span, or where the
  // core says the ends belong to the steps before and after (ZB-V), from its first block to
  // its last.
  const from = new Array(tl.stages).fill(0);
  const to = new Array(tl.stages).fill(tl.span);
  if (tl.ends_overlap) {
    from.fill(tl.span);
    to.fill(0);
    for (const [stage, , , start, duration] of tl.blocks) {
      from[stage] = Math.min(from[stage], start);
      to[stage] = Math.max(to[stage], start + duration);
    }
  }
  const rows = from.map((a, s) => {
    const w = (to[s] - a) * u;
    return `M${LEFT + a * u} ${s * rowH + pad}h${w}v${rowH - 2 * pad}h${-w}z`;
  });
  layers.rows.setAttribute('d', rows.join(''));
  layers.fwd.setAttribute('d', fwd.join(''));
  layers.bwd.setAttribute('d', bwd.join(''));
  layers.wgt.setAttribute('d', wgt.join(''));
  layers.fwd.dataset.blocks = String(fwd.length);
  layers.bwd.dataset.blocks = String(bwd.length);
  layers.wgt.dataset.blocks = String(wgt.length);
  layers.labels.replaceChildren(...text);
  const every = Math.ceil(tl.stages / 16);
  const ticks = [];
  for (let s = 0; s < tl.stages; s += every) {
    const t = svg('text', { x: LEFT - 4, y: s * rowH + rowH / 2 + 3, 'text-anchor': 'end' });
    t.textContent = `P${s}`;
    ticks.push(t);
  }
  const time = svg('text', { x: W, y: height + 13, 'text-anchor': 'end' });
  time.textContent = 'time →';
  layers.axis.replaceChildren(...ticks, time);
}

// What the drawing leaves out, and why the bubble is there; `overlap`: the drawing's ends
// belong to the steps before and after (the core's ends_overlap), so nothing is idle.
function pipelineNote(pp, v, schedule, overlap) {
  if (pp === 1) return 'One stage: no pipeline, so no bubble.';
  if (overlap) {
    return (
      '2 chunks per GPU in a V: each GPU runs without an idle slot from its first forward to ' +
      'its last weight gradient. The slanted start and end are not idle: the zero-bubble ' +
      'schedules run the optimizer step without a barrier across the stages, so the step ' +
      'before and the one after fill them, and the bubble is 0.'
    );
  }
  const interleaved =
    schedule === 'interleaved'
      ? `Drawn as plain 1F1B; interleaving gives each GPU ${v} chunks of layers and divides ` +
        'the bubble by that many (the figure above). '
      : '';
  const split = {
    zb_h1: 'W (the weight gradient, which no stage waits for) runs where 1F1B idled. ',
    zb_v: '2 chunks per GPU in a V; with fewer micro-batches than stages it cannot fill them. ',
    dualpipe: 'Micro-batches enter from both ends; each GPU holds two stages. ',
    dualpipe_v: 'DualPipe cut in half onto a V of 2 chunks per GPU. ',
  }[schedule];
  return (
    `${interleaved}${split ?? ''}Every stage waits for the first forward to reach it and the ` +
    'last backward to return: that idle time is the bubble.'
  );
}

// The chart and its layers: a row per stage behind the blocks (idle where it shows), a path
// per kind of pass, the blocks' numbers and the axis.
function chartLayers(section) {
  const drawing = svg('svg', { class: 'timeline-chart', role: 'img' }, section);
  drawing.setAttribute('aria-label', 'The pipeline schedule, drawn when it comes into view.');
  return {
    drawing,
    rows: svg('path', { class: 'tl-idle' }, drawing),
    fwd: svg('path', { class: 'tl-fwd' }, drawing),
    bwd: svg('path', { class: 'tl-bwd' }, drawing),
    wgt: svg('path', { class: 'tl-wgt', fill: WEIGHT_FILL }, drawing),
    labels: svg('g', { class: 'tl-labels' }, drawing),
    axis: svg('g', { class: 'tl-axis' }, drawing),
  };
}

// The key to the chart: B and W apart where the schedule splits the backward.
function keyText(split) {
  return (
    '<span class="swatch tl-fwd"></span> forward <span class="swatch tl-bwd"></span>' +
    (split
      ? ' backward: input gradient <span class="swatch tl-wgt"></span> weight gradient'
      : ' backward (twice as long)') +
    ' <span class="swatch tl-idle"></span> idle: the bubble'
  );
}

// Which micro-batches the drawing holds against the step's m.
function shownText(tl, m) {
  const all = fmt.integer(m);
  const drawn = fmt.integer(tl.shown_microbatches);
  if (tl.shown_microbatches < m) {
    return (
      `Showing ${drawn} of ${all} micro-batches (the schedule repeats; the bubble is at the ` +
      'start and the end).'
    );
  }
  if (tl.shown_microbatches > m) {
    return `Drawn with ${drawn} micro-batches, the fewest its order is drawn with; the step runs ${all}.`;
  }
  return `All ${all} micro-batches of one step.`;
}

// `plannerLab()`: a promise of the lab on the planner's module, which lays the schedule out.
export function createTimeline(root, { plannerLab }) {
  const section = panel(root, 'timeline', 'Pipeline schedule (1F1B)');
  const heading = section.querySelector('h3');
  const facts = make('dl', { className: 'facts' }, section);
  const field = (label) => {
    const div = make('div', {}, facts);
    make('dt', { textContent: label }, div);
    return make('dd', {}, div);
  };
  const f = {
    stages: field('Stages'),
    microbatches: field('Micro-batches per step'),
    bubble: field('Bubble fraction'),
  };
  const shown = make('p', { className: 'small timeline-shown' }, section);
  const layers = chartLayers(section);
  const drawing = layers.drawing;
  const key = make('p', { className: 'timeline-key small' }, section);
  let keyShown = null;
  const setKey = (split) => {
    if (split === keyShown) return;
    keyShown = split;
    key.innerHTML = keyText(split);
    const swatch = key.querySelector('.tl-wgt');
    if (swatch) swatch.style.background = WEIGHT_FILL;
  };
  setKey(false);
  const note = make('p', { className: 'small' }, section);
  let drawnKey = '';
  let overlap = false; // the last drawing's ends are the neighbouring steps' (tl.ends_overlap)
  let noteArgs = [1, 1, '1f1b'];
  const setNote = () =>
    (note.textContent = pipelineNote(...noteArgs, overlap && noteArgs[2] === 'zb_v'));
  // The drawing waits until the panel first comes within half a screen of view: the planner's
  // module it needs is large, and a reader who never scrolls here (or a search asked by URL,
  // which runs in a worker) should not load it on the page's thread.
  let seen = false;
  let waiting = null;
  whenNear(section, () => {
    seen = true;
    if (waiting) draw(...waiting);
  });

  // The schedule from the planner's module; meanwhile the last drawing stays, marked busy. A
  // newer draw than the one whose module arrived wins.
  async function draw(pp, m, schedule, asked) {
    section.setAttribute('aria-busy', 'true');
    let tl;
    try {
      const lab = await plannerLab();
      if (asked !== drawnKey) return;
      tl = lab.timeline(pp, m, schedule, { drawn: MAX_DRAWN_MICROBATCHES });
    } catch (e) {
      // A pipeline deeper than the core draws: the facts above still hold.
      if (e?.name !== 'LabError') throw e;
      drawing.style.display = 'none';
      shown.textContent = `The schedule is not drawn (${e.message}).`;
      delete shown.dataset.shown;
      return;
    } finally {
      if (asked === drawnKey) section.removeAttribute('aria-busy');
    }
    drawing.style.display = '';
    drawTimeline(layers, tl);
    overlap = tl.ends_overlap === true;
    setNote();
    shown.textContent = shownText(tl, m);
    shown.dataset.shown = String(tl.shown_microbatches);
    drawing.setAttribute(
      'aria-label',
      `${fmt.schedule(schedule)} schedule of ${pp} stages over time: ` +
        `${tl.shown_microbatches} micro-batches shown, each a forward then a backward block per ` +
        'stage; the idle start and end of each stage is the bubble.',
    );
  }

  return {
    update(report) {
      const { pp } = report.degrees;
      const p = report.pipeline;
      const v = p.virtual_stages;
      f.stages.textContent =
        v > 1 && report.scenario?.schedule === 'interleaved'
          ? `${pp} × ${v} virtual (interleaved)`
          : v > 1
            ? `${pp} × ${v} chunks in a V`
            : String(pp);
      f.microbatches.textContent = fmt.integer(p.microbatches);
      f.microbatches.dataset.value = String(p.microbatches);
      f.bubble.textContent = fmt.percent(p.bubble_fraction);
      f.bubble.dataset.value = String(p.bubble_fraction);
      const schedule = report.scenario?.schedule ?? '1f1b';
      const split = schedule !== '1f1b' && schedule !== 'interleaved';
      if (heading) heading.textContent = `Pipeline schedule (${fmt.schedule(schedule)})`;
      f.bubble.title = split ? '' : v > 1 ? '(p − 1) / (v · m)' : '(p − 1) / m';
      noteArgs = [pp, v, schedule];
      setNote();
      setKey(split && pp > 1);
      const next = `${pp}|${p.microbatches}|${schedule}`;
      // One stage has no schedule to draw: the note says so, and no drawing area stands empty
      // (nor is the planner's module loaded for it).
      if (pp === 1) {
        drawnKey = next;
        waiting = null;
        drawing.style.display = 'none';
        shown.textContent = '';
        delete shown.dataset.shown;
        return;
      }
      if (next !== drawnKey) {
        drawnKey = next;
        if (seen) draw(pp, p.microbatches, schedule, next);
        else waiting = [pp, p.microbatches, schedule, next];
      }
    },
  };
}
