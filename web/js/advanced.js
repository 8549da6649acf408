// The "Advanced: size a real run" section: a <details> that is closed in the book's view.
// Opening it (or a preset button) sets state.advanced, which switches the scenario to the
// practitioner's memory model; its form and panels are built the first time it opens, so the
// book's view pays nothing for them. This module only wires; each panel has its own renderer.
import { createAdvancedControls } from './controls-advanced.js';
import { createBreakdown } from './render-breakdown.js';
import { createPlanner } from './render-planner.js';
import { createReferences } from './render-references.js';
import { createStepTime } from './render-time.js';
import { createTimeline } from './render-timeline.js';

export function createAdvanced({ details, outputs, lab, ctx, onChange, onPreset, onLoad }) {
  const body = details.querySelector('.advanced-body');
  let parts = null;
  let open = details.open;

  details.addEventListener('toggle', () => {
    if (details.open !== open) onChange('advanced', details.open);
  });

  function build() {
    const row = outputs.appendChild(document.createElement('div'));
    row.className = 'advanced-row';
    return {
      form: createAdvancedControls(body, { ctx, onChange, onPreset }),
      renderers: [
        createBreakdown(row),
        createStepTime(row),
        createTimeline(outputs, { lab }),
        createPlanner(outputs, { lab, onApply: onLoad }),
        createReferences(outputs, { lab, onLoad }),
      ],
    };
  }

  return {
    // report is null when the core refused the state (error says why); the panels then keep
    // showing the last report it accepted.
    update(state, report, error = null) {
      open = state.advanced;
      if (details.open !== open) details.open = open;
      outputs.hidden = !open;
      if (!open) return false;
      parts ??= build();
      parts.form.update(state, report);
      parts.form.showError(error);
      if (report) for (const r of parts.renderers) r.update(report);
      return true;
    },
  };
}
