// The entry point and thin controller: owns the state, asks the core (through the wasm
// module) for a report, and hands the report to each renderer. No model arithmetic here or
// in the renderers: every number on the page is read from the report.
import { createLab, LabError } from '../lab/lab.js';
import { createAdvanced } from './advanced.js';
import { createControls } from './controls.js';
import { createGrid } from './render-grid.js';
import { createMemory } from './render-memory.js';
import { createSummary } from './render-summary.js';
import { createWire } from './render-wire.js';
import { applyPreset, change, defaults, fromScenario, normalize, toScenario } from './state.js';

async function main(root) {
  const $ = (selector) => root.querySelector(selector);
  const lab = await createLab();
  const ctx = { presets: lab.presets(), layouts: (scenario) => lab.layouts(scenario) };
  let state = defaults();
  let frame = 0;

  // Every change goes through here: the switches answer at once, the panels next frame.
  function set(next) {
    state = next;
    controls.update(state);
    if (!frame) frame = requestAnimationFrame(render);
  }
  const onChange = (name, value) => set(change(state, name, value, ctx));

  const summary = createSummary(root);
  const grid = createGrid({ svg: $('#grid'), legend: $('#legend'), readout: $('#grid-readout') });
  const renderers = [summary, createMemory($('#memory')), createWire($('#wire'))];
  const controls = createControls($('#switches'), { onChange });
  const advanced = createAdvanced({
    details: $('#advanced'), outputs: $('#advanced-out'), lab, ctx, onChange,
    onPreset: (name) => set(applyPreset(state, name, ctx)),
    onLoad: (scenario) => set(fromScenario(scenario, ctx)),
  });
  const errorBox = $('#error');

  function render() {
    frame = 0;
    let report;
    try {
      report = lab.evaluateSummary(toScenario(state));
    } catch (e) {
      if (!(e instanceof LabError)) throw e;
      const message = `The model refused this scenario: ${e.message}`;
      // Beside the form when the advanced section is open, else at the top.
      showError(errorBox, advanced.update(state, null, message) ? null : message);
      return;
    }
    showError(errorBox, null);
    // The summary report has no ranks[]: the core's typed array is cheap at any fleet size.
    grid.update(report, lab.ranks(report.degrees, report.scenario.gpus_per_node));
    for (const r of renderers) r.update(report);
    advanced.update(state, report);
  }

  controls.update(state);
  summary.updateNotice(lab.evaluateSummary(toScenario(normalize({ data: true }))));
  render();
  document.documentElement.dataset.ready = '1'; // the tests' signal
  performance.mark('lab-ready'); // the benchmark's: milliseconds since navigation
}

function showError(box, message) {
  box.hidden = !message;
  box.textContent = message ?? '';
}

main(document).catch((e) => {
  showError(document.querySelector('#error'), `The lab could not start: ${e.message}`);
  throw e;
});
