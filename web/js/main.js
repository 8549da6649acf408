// The entry point and thin controller: owns the state, asks the core (through the wasm
// module) for a report, and hands the report to each renderer. No model arithmetic here or
// in the renderers: every number on the page is read from the report.
import { createLab, LabError } from '../lab/lab.js';
import { createControls } from './controls.js';
import { createGrid } from './render-grid.js';
import { createMemory } from './render-memory.js';
import { createSummary } from './render-summary.js';
import { createWire } from './render-wire.js';
import { defaults, normalize, toScenario } from './state.js';

const $ = (selector) => document.querySelector(selector);

async function main() {
  const lab = await createLab();
  let state = defaults();
  let frame = 0;

  const summary = createSummary(document.body);
  const renderers = [
    summary,
    createGrid({ svg: $('#grid'), legend: $('#legend'), readout: $('#grid-readout') }),
    createMemory($('#memory')),
    createWire($('#wire')),
  ];
  const controls = createControls($('#switches'), {
    onChange(name, value) {
      state = normalize({ ...state, [name]: value });
      controls.update(state); // the switch answers at once; the panels follow next frame
      if (!frame) frame = requestAnimationFrame(render);
    },
  });

  function render() {
    frame = 0;
    let report;
    try {
      report = lab.evaluate(toScenario(state));
    } catch (e) {
      if (!(e instanceof LabError)) throw e;
      showError(`The model refused this scenario: ${e.message}`);
      return;
    }
    for (const r of renderers) r.update(report);
  }

  controls.update(state);
  summary.updateNotice(lab.evaluate(toScenario(normalize({ data: true }))));
  render();
  document.documentElement.dataset.ready = '1';
}

function showError(message) {
  const box = $('#error');
  box.textContent = message;
  box.hidden = false;
}

main().catch((e) => {
  showError(`The lab could not start: ${e.message}`);
  throw e;
});
