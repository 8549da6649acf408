// Memory in the practitioner's model: the most-loaded GPU split into weights, gradients,
// optimizer states and activations against its capacity, and the same split for every
// pipeline stage (the first stage keeps p micro-batches of activations in flight and the
// embedding; the last the output layer). All numbers from report.memory.
import { make, panel, showNumber, svg as svgEl } from '../lib/dom.js';
import { fitText, markVerdict } from '../lib/fit-text.js';
import * as fmt from '../lib/format.js';

const PARTS = [
  ['weights', 'Weights', 'weights_bytes'],
  ['grads', 'Gradients', 'grads_bytes'],
  ['optimizer', 'Optimizer (master + Adam m, v)', 'optimizer_bytes'],
  ['activations', 'Activations', 'activations_bytes'],
  ['overhead', 'Overhead (CUDA context, NCCL, allocator)', 'overhead_bytes'],
  ['transient', 'Transient (gathered weights, loss, recomputed layer)', 'transient_bytes'],
];
const W = 640; // chart width, SVG user units
const H = 170;
const AXIS = 22; // room under the bars for stage labels

const bytesTitle = (v) => `${fmt.exactNumber(v)} bytes`;

// The busiest GPU: its total, whether it fits, a stacked bar against the GPU's memory, and
// each part with its exact value.
function createTotals(section) {
  const total = make('p', { className: 'big num' }, section);
  const fit = make('p', { className: 'fit' }, section);
  const bar = make('div', { className: 'stack' }, section);
  bar.setAttribute('aria-hidden', 'true');
  const segs = PARTS.map(([key]) => make('span', { className: `seg part-${key}` }, bar));
  const cap = make('span', { className: 'stack-cap' }, bar);
  const facts = make('dl', { className: 'facts parts' }, section);
  const dd = {};
  const rows = [...PARTS, ['total', 'Total'], ['gpu', 'GPU memory'], ['headroom', 'Headroom']];
  for (const [key, label] of rows) {
    const div = make('div', {}, facts);
    div.dataset.part = key;
    const dt = make('dt', {}, div);
    if (PARTS.some(([k]) => k === key)) {
      make('span', { className: `swatch part-${key}` }, dt).setAttribute('aria-hidden', 'true');
    }
    dt.append(label);
    dd[key] = make('dd', {}, div);
  }
  return {
    update(m) {
      const b = m.breakdown;
      showNumber(total, m.per_gpu_bytes, fmt.bytes(m.per_gpu_bytes), bytesTitle(m.per_gpu_bytes));
      markVerdict(section, m);
      const where = m.stages.length > 1 ? `stage ${m.peak_stage} of ${m.stages.length}, ` : '';
      const gpu = fmt.bytes(m.gpu_memory_bytes);
      fit.textContent = fitText(m, `${gpu} GPU`, where);
      const full = Math.max(m.per_gpu_bytes, m.gpu_memory_bytes);
      PARTS.forEach(([key, , field], k) => {
        segs[k].style.width = `${(100 * b[field]) / full}%`;
        showNumber(dd[key], b[field], fmt.bytes(b[field]), bytesTitle(b[field]));
      });
      cap.style.left = `${(100 * m.gpu_memory_bytes) / full}%`;
      showNumber(
        dd.total,
        m.per_gpu_bytes,
        fmt.bytes(m.per_gpu_bytes),
        bytesTitle(m.per_gpu_bytes),
      );
      showNumber(dd.gpu, m.gpu_memory_bytes, gpu, bytesTitle(m.gpu_memory_bytes));
      showNumber(
        dd.headroom,
        m.headroom_bytes,
        fmt.bytes(m.headroom_bytes),
        bytesTitle(m.headroom_bytes),
      );
    },
  };
}

// One stage's split, in words (under the chart, for the stage under the pointer).
function describeStage(st) {
  const b = st.breakdown;
  return (
    `Stage ${st.stage} (${st.layers} layers, ${st.inflight_microbatches} micro-batches ` +
    `in flight): ${fmt.bytes(st.per_gpu_bytes)} per GPU = weights ${fmt.bytes(b.weights_bytes)} + ` +
    `gradients ${fmt.bytes(b.grads_bytes)} + optimizer ${fmt.bytes(b.optimizer_bytes)} + ` +
    `activations ${fmt.bytes(b.activations_bytes)} + overhead ${fmt.bytes(b.overhead_bytes)}.`
  );
}

const SPLIT_RULES = {
  even: 'an even split',
  set: 'set by first_stage_layers and last_stage_layers',
  ends: 'the embedding and the loss counted as a layer each, as Megatron-Core can',
  balanced: 'Megatron-LM would refuse this split; the extra layers go to the last middle stages',
};

// Layers per stage as the core placed them (report.pipeline.stage_layers).
function describeSplit(report) {
  const sl = report.pipeline.stage_layers;
  const p = report.degrees.pp;
  if (p === 1) return `All ${sl.first} layers on one stage.`;
  const extra = sl.extra_from < p - 1 ? `, ${sl.middle + 1} from stage ${sl.extra_from} on` : '';
  const middle = p > 2 ? `, middle stages ${sl.middle}${extra}` : '';
  return `Layers per stage: first ${sl.first}${middle}, last ${sl.last} (${SPLIT_RULES[sl.rule] ?? sl.rule}).`;
}

// The stacked bars' paths, one per part, for every stage; and the peak's marker.
function stageBars(m, slot, barW, y) {
  const d = PARTS.map(() => []);
  m.stages.forEach((st, i) => {
    let base = 0;
    const x = i * slot + (slot - barW) / 2;
    PARTS.forEach(([, , field], k) => {
      const v = st.breakdown[field];
      if (v > 0) d[k].push(`M${x} ${y(base + v)}h${barW}V${y(base)}h${-barW}z`);
      base += v;
    });
  });
  const px = m.peak_stage * slot + (slot - barW) / 2;
  const peak = `M${px} ${y(m.stages[m.peak_stage].per_gpu_bytes) - 9}h${barW}l${-barW / 2} 6z`;
  return { parts: d.map((list) => list.join('')), peak };
}

// Every pipeline stage's split as stacked bars under the GPU's capacity; hovering a bar says
// its stage in words.
function createStageChart(section) {
  make('h4', { textContent: 'Per pipeline stage' }, section);
  const viewBox = `0 0 ${W} ${H + AXIS}`;
  const chart = svgEl('svg', { class: 'stages-chart', viewBox, role: 'img' }, section);
  const paths = PARTS.map(([key]) => svgEl('path', { class: `part-${key}` }, chart));
  const peakMark = svgEl('path', { class: 'peak-mark' }, chart);
  const capLine = svgEl('line', { class: 'cap-line', x1: 0, x2: W }, chart);
  const capLabel = svgEl('text', { class: 'cap-label', x: W - 4, 'text-anchor': 'end' }, chart);
  const axis = svgEl('g', { class: 'stage-axis' }, chart);
  const stageNote = make('p', { className: 'small stage-readout' }, section);
  let memory = null;

  chart.addEventListener('pointermove', (e) => {
    if (!memory) return;
    const n = memory.stages.length;
    const box = chart.getBoundingClientRect();
    const i = Math.floor(((e.clientX - box.left) / box.width) * n);
    if (i >= 0 && i < n) stageNote.textContent = describeStage(memory.stages[i]);
  });
  chart.addEventListener('pointerleave', () => {
    if (memory) stageNote.textContent = describeStage(memory.stages[memory.peak_stage]);
  });

  return {
    update(m) {
      memory = m;
      const n = m.stages.length;
      const top = Math.max(m.gpu_memory_bytes, ...m.stages.map((s) => s.per_gpu_bytes)) * 1.08;
      const slot = W / n;
      const barW = Math.max(1, slot * (n > 64 ? 0.9 : 0.7));
      const y = (bytes) => H - (H * bytes) / top;
      const bars = stageBars(m, slot, barW, y);
      paths.forEach((p, k) => p.setAttribute('d', bars.parts[k]));
      peakMark.setAttribute('d', bars.peak);
      const cy = y(m.gpu_memory_bytes);
      capLine.setAttribute('y1', cy);
      capLine.setAttribute('y2', cy);
      capLabel.setAttribute('y', cy - 4);
      capLabel.textContent = `${fmt.bytes(m.gpu_memory_bytes)} GPU`;
      // Stage labels: all of them when few, else about a dozen.
      const every = Math.ceil(n / 12);
      const labels = [];
      for (let i = 0; i < n; i += every) {
        const t = svgEl('text', { x: i * slot + slot / 2, y: H + 15, 'text-anchor': 'middle' });
        t.textContent = `P${i}`;
        labels.push(t);
      }
      axis.replaceChildren(...labels);
      const peak = m.stages[m.peak_stage];
      chart.setAttribute(
        'aria-label',
        `Memory per GPU for each of the ${n} pipeline stages; the most-loaded is stage ` +
          `${m.peak_stage} with ${fmt.bytes(peak.per_gpu_bytes)} of ${fmt.bytes(m.gpu_memory_bytes)}.`,
      );
      stageNote.textContent = describeStage(peak);
    },
  };
}

export function createBreakdown(root) {
  const section = panel(root, 'breakdown', 'Memory of the most-loaded GPU');
  const totals = createTotals(section);
  const chart = createStageChart(section);
  const split = make('p', { className: 'small stage-split' }, section);
  return {
    update(report) {
      totals.update(report.memory);
      chart.update(report.memory);
      split.textContent = describeSplit(report);
    },
  };
}
