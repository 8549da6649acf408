// Memory in the practitioner's model: the most-loaded GPU split into weights, gradients,
// optimizer states and activations against its capacity, and the same split for every
// pipeline stage (the first stage keeps p micro-batches of activations in flight and the
// embedding; the last the output layer). All numbers from report.memory.
import { make, panel, showNumber, svg as svgEl } from './dom.js';
import * as fmt from './format.js';

const PARTS = [
  ['weights', 'Weights', 'weights_bytes'],
  ['grads', 'Gradients', 'grads_bytes'],
  ['optimizer', 'Optimizer (master + Adam m, v)', 'optimizer_bytes'],
  ['activations', 'Activations', 'activations_bytes'],
];
const W = 640; // chart width, SVG user units
const H = 170;
const AXIS = 22; // room under the bars for stage labels

export function createBreakdown(root) {
  const section = panel(root, 'breakdown', 'Memory of the most-loaded GPU');
  const total = make('p', { className: 'big num' }, section);
  const fit = make('p', { className: 'fit' }, section);
  const bar = make('div', { className: 'stack' }, section);
  bar.setAttribute('aria-hidden', 'true');
  const segs = PARTS.map(([key]) => make('span', { className: `seg part-${key}` }, bar));
  const cap = make('span', { className: 'stack-cap' }, bar);
  const facts = make('dl', { className: 'facts parts' }, section);
  const dd = {};
  for (const [key, label] of [...PARTS, ['total', 'Total'], ['gpu', 'GPU memory'], ['headroom', 'Headroom']]) {
    const div = make('div', {}, facts);
    div.dataset.part = key;
    const dt = make('dt', {}, div);
    if (PARTS.some(([k]) => k === key)) {
      make('span', { className: `swatch part-${key}` }, dt).setAttribute('aria-hidden', 'true');
    }
    dt.append(label);
    dd[key] = make('dd', {}, div);
  }

  make('h4', { textContent: 'Per pipeline stage' }, section);
  const chart = svgEl('svg', { class: 'stages-chart', viewBox: `0 0 ${W} ${H + AXIS}`, role: 'img' }, section);
  const paths = PARTS.map(([key]) => svgEl('path', { class: `part-${key}` }, chart));
  const peakMark = svgEl('path', { class: 'peak-mark' }, chart);
  const capLine = svgEl('line', { class: 'cap-line', x1: 0, x2: W }, chart);
  const capLabel = svgEl('text', { class: 'cap-label', x: W - 4, 'text-anchor': 'end' }, chart);
  const axis = svgEl('g', { class: 'stage-axis' }, chart);
  const stageNote = make('p', { className: 'small stage-readout' }, section);

  let report = null;
  let geometry = null;

  function describeStage(i) {
    const st = report.memory.stages[i];
    const b = st.breakdown;
    return `Stage ${st.stage} (${st.layers} layers, ${st.inflight_microbatches} micro-batches ` +
      `in flight): ${fmt.bytes(st.per_gpu_bytes)} per GPU = weights ${fmt.bytes(b.weights_bytes)} + ` +
      `gradients ${fmt.bytes(b.grads_bytes)} + optimizer ${fmt.bytes(b.optimizer_bytes)} + ` +
      `activations ${fmt.bytes(b.activations_bytes)}.`;
  }

  function drawStages(m) {
    const stages = m.stages;
    const n = stages.length;
    const top = Math.max(m.gpu_memory_bytes, ...stages.map((s) => s.per_gpu_bytes)) * 1.08;
    const slot = W / n;
    const barW = Math.max(1, slot * (n > 64 ? 0.9 : 0.7));
    const y = (bytes) => H - (H * bytes) / top;
    const d = PARTS.map(() => []);
    stages.forEach((st, i) => {
      let base = 0;
      const x = i * slot + (slot - barW) / 2;
      PARTS.forEach(([, , field], k) => {
        const v = st.breakdown[field];
        if (v > 0) d[k].push(`M${x} ${y(base + v)}h${barW}V${y(base)}h${-barW}z`);
        base += v;
      });
    });
    paths.forEach((p, k) => p.setAttribute('d', d[k].join('')));
    const px = m.peak_stage * slot + (slot - barW) / 2;
    peakMark.setAttribute('d', `M${px} ${y(stages[m.peak_stage].per_gpu_bytes) - 9}h${barW}l${-barW / 2} 6z`);
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
    geometry = { slot, n };
    chart.setAttribute('aria-label', `Memory per GPU for each of the ${n} pipeline stages; ` +
      `the most-loaded is stage ${m.peak_stage} with ${fmt.bytes(stages[m.peak_stage].per_gpu_bytes)}` +
      ` of ${fmt.bytes(m.gpu_memory_bytes)}.`);
  }

  chart.addEventListener('pointermove', (e) => {
    if (!geometry) return;
    const box = chart.getBoundingClientRect();
    const i = Math.floor(((e.clientX - box.left) / box.width) * geometry.n);
    if (i >= 0 && i < geometry.n) stageNote.textContent = describeStage(i);
  });
  chart.addEventListener('pointerleave', () => {
    if (report) stageNote.textContent = describeStage(report.memory.peak_stage);
  });

  return {
    update(next) {
      report = next;
      const m = report.memory;
      const b = m.breakdown;
      showNumber(total, m.per_gpu_bytes, fmt.bytes(m.per_gpu_bytes), `${fmt.exactNumber(m.per_gpu_bytes)} bytes`);
      section.classList.toggle('over', !m.fits);
      const where = m.stages.length > 1 ? `stage ${m.peak_stage} of ${m.stages.length}, ` : '';
      fit.textContent = m.fits
        ? `✓ fits the ${fmt.bytes(m.gpu_memory_bytes)} GPU (${where}${fmt.bytes(m.headroom_bytes)} headroom)`
        : `✗ does not fit the ${fmt.bytes(m.gpu_memory_bytes)} GPU (${where}${fmt.bytes(-m.headroom_bytes)} over)`;
      const full = Math.max(m.per_gpu_bytes, m.gpu_memory_bytes);
      PARTS.forEach(([, , field], k) => { segs[k].style.width = `${(100 * b[field]) / full}%`; });
      cap.style.left = `${(100 * m.gpu_memory_bytes) / full}%`;
      PARTS.forEach(([key, , field]) => {
        showNumber(dd[key], b[field], fmt.bytes(b[field]), `${fmt.exactNumber(b[field])} bytes`);
      });
      showNumber(dd.total, m.per_gpu_bytes, fmt.bytes(m.per_gpu_bytes), `${fmt.exactNumber(m.per_gpu_bytes)} bytes`);
      showNumber(dd.gpu, m.gpu_memory_bytes, fmt.bytes(m.gpu_memory_bytes), `${fmt.exactNumber(m.gpu_memory_bytes)} bytes`);
      showNumber(dd.headroom, m.headroom_bytes, fmt.bytes(m.headroom_bytes), `${fmt.exactNumber(m.headroom_bytes)} bytes`);
      drawStages(m);
      stageNote.textContent = describeStage(m.peak_stage);
    },
  };
}
