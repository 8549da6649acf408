// Reference runs: published training configurations with the model's prediction beside the
// published throughput (lab.referenceRuns(); the core evaluates each), and a button that
// loads the run's scenario into the lab.
import { make, panel } from './dom.js';
import * as fmt from './format.js';
import { entry } from './state.js';

export function createReferences(root, { lab, onLoad }) {
  const section = panel(root, 'references', 'Reference runs');
  make(
    'p',
    {
      className: 'small',
      textContent:
        'Published runs, each evaluated by this model with ' +
        `the default efficiency (${entry('efficiency').default} of peak). "Published" is the ` +
        'throughput the authors report; runs that report only their configuration are checked ' +
        'for fitting their GPUs.',
    },
    section,
  );
  const wrap = make('div', { className: 'table-wrap' }, section);
  const table = make('table', { className: 'runs' }, wrap);
  const head = make('tr', {}, make('thead', {}, table));
  for (const h of [
    'Run',
    'Layout DP×TP×PP',
    'Published TFLOP/s per GPU',
    'Model TFLOP/s per GPU',
    'Difference',
    'Memory per GPU',
    'Load',
  ]) {
    make(
      'th',
      { scope: 'col', textContent: h, className: h === 'Load' ? 'visually-hidden' : '' },
      head,
    );
  }
  const body = make('tbody', {}, table);
  let built = false;

  function build() {
    for (const run of lab.referenceRuns()) {
      const r = run.report;
      const tr = make('tr', {}, body);
      tr.dataset.run = run.name;
      const name = make('th', { scope: 'row' }, tr);
      make('span', { className: 'run-name', textContent: run.name }, name);
      make('span', { className: 'run-source', textContent: run.source }, name);
      make('td', { textContent: fmt.degrees(r.degrees) }, tr);
      const published = run.published_tflops_per_gpu;
      const pub = make(
        'td',
        { className: 'num', textContent: published > 0 ? fmt.count(published) : 'not reported' },
        tr,
      );
      pub.dataset.field = 'published';
      pub.dataset.value = String(published);
      const model = make(
        'td',
        {
          className: 'num',
          textContent: fmt.count(r.time.tflops_per_gpu),
          title: `${r.time.tflops_per_gpu} TFLOP/s per GPU, MFU ${fmt.percent(r.time.mfu)}`,
        },
        tr,
      );
      model.dataset.field = 'model';
      model.dataset.value = String(r.time.tflops_per_gpu);
      const diff = published > 0 ? (r.time.tflops_per_gpu - published) / published : null;
      make(
        'td',
        {
          className: 'num',
          textContent:
            diff === null ? '—' : `${diff > 0 ? '+' : '−'}${fmt.percent(Math.abs(diff))}`,
        },
        tr,
      );
      const m = r.memory;
      make(
        'td',
        {
          className: m.fits ? 'num ok' : 'num bad',
          textContent: `${fmt.bytes(m.per_gpu_bytes)} of ${fmt.bytes(m.gpu_memory_bytes)} ${m.fits ? '✓' : '✗'}`,
          title: m.fits ? 'fits' : 'does not fit',
        },
        tr,
      );
      const td = make('td', {}, tr);
      const button = make('button', { type: 'button', className: 'load', textContent: 'Load' }, td);
      button.setAttribute('aria-label', `Load ${run.name} into the lab`);
      button.addEventListener('click', () => onLoad(r.scenario));
    }
  }

  return {
    // The runs do not depend on the lab's state: built once, when first shown.
    update() {
      if (built) return;
      built = true;
      build();
    },
  };
}
