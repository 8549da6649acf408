// The text around the panels: the badge, the core's warnings, the numbers quoted in the prose
// (fleet size, model size), the grid's text alternative, and a polite spoken summary when the
// layout or the memory changes, so the words stay true to what is on screen.
import * as fmt from '../lib/format.js';

const ANNOUNCE_MS = 700; // one announcement after a burst of changes, not one per click

const plural = (n, one, many = `${one}s`) => `${fmt.integer(n)} ${n === 1 ? one : many}`;

// "16 GPUs: 2 data-parallel replicas × 4 tensor slices × 2 pipeline stages", from the report.
export function layoutSentence(report) {
  const { dp, tp, pp, cp = 1, ep = 1 } = report.degrees;
  const fleet = `${plural(report.gpus, 'GPU')} in ${plural(report.nodes, 'node')}`;
  const layout =
    `${plural(dp, 'data-parallel replica')} × ${plural(tp, 'tensor slice')} × ` +
    `${plural(pp, 'pipeline stage')}` +
    (cp > 1 ? ` × ${plural(cp, 'context chunk')}` : '') +
    (ep > 1 ? `, experts split ${ep} ways` : '');
  const idle = report.gpus - report.active_gpus;
  return `${fleet}: ${layout}${
    idle > 0 ? ` on ${plural(report.active_gpus, 'GPU')}, ` + `${fmt.integer(idle)} idle` : ''
  }.`;
}

export function createSummary(root) {
  const badge = root.querySelector('.badge');
  const titleText = root.querySelector('.title-text');
  const bookTitle = titleText.innerHTML;
  let explicit = false; // the heading names an explicit layout instead of the book's title
  const warnings = root.querySelector('.warnings');
  const caption = root.querySelector('.layout-text');
  const announcer = root.querySelector('.pe-announce');
  const fill = (name, text) => {
    for (const node of root.querySelectorAll(`[data-text="${name}"]`)) {
      if (node.textContent !== text) node.textContent = text;
    }
  };
  let shownWarnings = '';
  let spoken = null; // null until the first report: the page's first state is not announced
  let timer = 0;

  function announce(text) {
    if (spoken === null) {
      spoken = text;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (text !== spoken) announcer.textContent = text;
      spoken = text;
    }, ANNOUNCE_MS);
  }

  return {
    // The lab's heading follows the layout: the book's auto-factoring, or an explicit one.
    // Called before update(), which fills the book title's numbers: the title is put back only
    // when the explicit layout's heading replaced it.
    heading(state, report) {
      if (state.degrees === 'auto') {
        if (explicit) titleText.innerHTML = bookTitle;
        explicit = false;
        return;
      }
      explicit = true;
      const text =
        `Layout ${fmt.degrees(report.degrees)} set explicitly on ${fmt.integer(report.gpus)} ` +
        'GPUs; a seam switch goes back to auto-factoring';
      if (titleText.textContent !== text) titleText.textContent = text;
    },
    update(report) {
      const text =
        `${fmt.degreesName(report.degrees)} = ${fmt.degrees(report.degrees)} = ` +
        `${report.active_gpus}`;
      if (badge.textContent !== text) badge.textContent = text;
      badge.classList.toggle('partial', report.active_gpus < report.gpus);
      badge.title =
        report.active_gpus < report.gpus
          ? `${report.active_gpus} of ${report.gpus} GPUs in use`
          : `all ${report.gpus} GPUs in use`;

      fill('gpus', fmt.integer(report.gpus));
      const size = fmt.countWords(report.model_params);
      fill('model-article', fmt.article(size));
      fill('model-size', size);
      fill('bytes-per-param', fmt.count(report.scenario.bytes_per_param));

      const sentence = layoutSentence(report);
      if (caption.textContent !== sentence) caption.textContent = sentence;
      const m = report.memory;
      announce(
        `${sentence} ${fmt.bytes(m.per_gpu_bytes)} per GPU: ` +
          `${m.fits ? 'fits' : 'does not fit'} the ${fmt.bytes(m.gpu_memory_bytes)} GPU.`,
      );

      // Rewritten only when they change, so the live region does not repeat itself.
      const key = JSON.stringify(report.warnings);
      if (key !== shownWarnings) {
        shownWarnings = key;
        warnings.replaceChildren(
          ...report.warnings.map((w) =>
            Object.assign(document.createElement('li'), { textContent: w }),
          ),
        );
      }
    },
    destroy() {
      clearTimeout(timer);
    },
  };
}
