// The "Advanced: size a real run" section's contents: its form (inside the <details>) and its
// panels (under the book's). view.js imports this module the first time the section opens or
// the state needs it (a URL or an option with an advanced key), so the book's view neither
// downloads nor builds any of it. This module only wires; each panel has its own renderer,
// given here what it needs beyond lib/: the planner's search, the reference runs (both off the
// page's thread), the planner's module (the timeline), the margin's state row, and `later` (the lab's: once it is ready and the page
// idle), for what they start at load.
import { createBreakdown } from '../panels/breakdown.js';
import { createCalibrate } from '../panels/calibrate.js';
import { createDeskSummary } from '../panels/desk.js';
import { createGoodputDay } from '../panels/goodput.js';
import { createPlanner } from '../panels/planner.js';
import { createReferences } from '../panels/references.js';
import { createStepTime } from '../panels/time.js';
import { createTimeline } from '../panels/timeline.js';
import { getPlannerLab } from '../planner/lab.js';
import { createPlannerSearch, referenceRuns } from '../planner/search.js';
import { entry, toScenario } from '../state/state.js';
import { createAdvancedControls } from './controls-advanced.js';

export function createAdvanced({ body, outputs, onChange, onPreset, onLoad, onPin, later }) {
  const row = outputs.appendChild(document.createElement('div'));
  row.className = 'advanced-row';
  const form = createAdvancedControls(body, { onChange, onPreset });
  const desk = createDeskSummary(body); // first in the section, over the form
  let state = null;
  // The calibration's own planner runs: the lab's scenario with or without its calibration.
  const calibrationSearch = createPlannerSearch();
  const calibrate = createCalibrate(outputs, {
    onChange,
    runScenario: () => toScenario({ ...state, calibration: '' }),
    planTop: (calibrated, top) =>
      calibrationSearch.run(
        toScenario(calibrated ? state : { ...state, calibration: '' }),
        top,
        state.plan_headroom * entry('plan_headroom').scale,
      ),
  });
  const day = createGoodputDay(outputs); // the desk's alone: desk.js places it
  const renderers = [
    createBreakdown(row),
    createStepTime(row),
    createTimeline(outputs, { plannerLab: getPlannerLab }),
    createPlanner(outputs, {
      onApply: onLoad,
      onChange,
      onPin,
      search: createPlannerSearch(),
      margin: entry('plan_headroom'),
      rank: entry('plan_rank'),
      later,
    }),
    createReferences(outputs, { onLoad, runs: referenceRuns, later }),
    calibrate,
  ];
  return {
    update(next, report) {
      state = next;
      form.update(state, report);
      desk.update(report);
      day.update(report, state.view === 'desk');
      for (const r of renderers) r.update(report, state);
    },
    // The core's refusal (null clears it), beside the field of `row` when it shows (a
    // calibration's beside the figure its key names); the panels keep the last report the
    // core accepted.
    showError(message, row = null, key = null) {
      const calibration = row === 'calibration';
      form.showError(calibration ? null : message, row);
      calibrate.showError(calibration ? message : null, key);
    },
  };
}
