// The "Advanced: size a real run" section's contents: its form (inside the <details>) and its
// panels (under the book's). embed.js imports this module the first time the section opens or
// the state needs it (a URL or an option with an advanced key), so the book's view neither
// downloads nor builds any of it. This module only wires; each panel has its own renderer.
import { createAdvancedControls } from './controls-advanced.js';
import { createBreakdown } from './render-breakdown.js';
import { createPlanner } from './render-planner.js';
import { createReferences } from './render-references.js';
import { createStepTime } from './render-time.js';
import { createTimeline } from './render-timeline.js';

export function createAdvanced({ body, outputs, lab, ctx, onChange, onPreset, onLoad }) {
  const row = outputs.appendChild(document.createElement('div'));
  row.className = 'advanced-row';
  const form = createAdvancedControls(body, { ctx, onChange, onPreset });
  const renderers = [
    createBreakdown(row),
    createStepTime(row),
    createTimeline(outputs, { lab }),
    createPlanner(outputs, { lab, onApply: onLoad }),
    createReferences(outputs, { lab, onLoad }),
  ];
  return {
    // report is null when the core refused the state (error says why, errorRow which row it
    // names); the panels then keep showing the last report it accepted.
    update(state, report, error = null, errorRow = null) {
      form.update(state, report);
      form.showError(error, errorRow);
      if (report) for (const r of renderers) r.update(report);
    },
  };
}
