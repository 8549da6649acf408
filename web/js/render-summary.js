// The text around the panels: the badge, the core's warnings, and the numbers quoted in the
// prose (fleet size, model size, GPU memory), so the words stay true to what is on screen.
import * as fmt from './format.js';

export function createSummary(root) {
  const badge = root.querySelector('#badge');
  const warnings = root.querySelector('#warnings');
  const fills = (name) => root.querySelectorAll(`[data-text="${name}"]`);
  const fill = (name, text) => {
    for (const node of fills(name)) if (node.textContent !== text) node.textContent = text;
  };
  let shownWarnings = '';

  return {
    update(report) {
      const text = `DP×TP×PP = ${fmt.degrees(report.degrees)} = ${report.active_gpus}`;
      if (badge.textContent !== text) badge.textContent = text;
      badge.classList.toggle('partial', report.active_gpus < report.gpus);
      badge.title = report.active_gpus < report.gpus
        ? `${report.active_gpus} of ${report.gpus} GPUs in use` : `all ${report.gpus} GPUs in use`;

      fill('gpus', fmt.integer(report.gpus));
      fill('model-size', fmt.countWords(report.model_params));
      fill('bytes-per-param', fmt.count(report.scenario.bytes_per_param));
      fill('gpu-memory', fmt.bytes(report.memory.gpu_memory_bytes));

      // Rewritten only when they change, so the live region does not repeat itself.
      const key = JSON.stringify(report.warnings);
      if (key !== shownWarnings) {
        shownWarnings = key;
        warnings.replaceChildren(...report.warnings.map((w) =>
          Object.assign(document.createElement('li'), { textContent: w })));
      }
    },
    // A second report, of the book's data-only case, for the numbers quoted in "What to notice".
    updateNotice(dataOnly) {
      fill('data-only-memory', fmt.bytes(dataOnly.memory.per_gpu_bytes));
    },
  };
}
