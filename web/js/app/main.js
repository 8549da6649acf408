// The standalone page: the book's text around one lab (embed.js) whose state lives in the
// page's query string (?seams=data,tensor&advanced=1&gpus=64, README.md "The URL"). This file
// only keeps the numbers quoted in the page's own prose true to the lab's report.
import * as fmt from '../lib/format.js';
import { defaults, toScenario } from '../state/state.js';
import { getLab, mount } from './embed.js';
import { usesTiles } from './grid.js';

// The prose outside the lab ([data-text] inside the lab is the lab's own).
function fill(name, text) {
  for (const node of document.querySelectorAll(`[data-text="${name}"]`)) {
    if (!node.closest('.pe-lab') && node.textContent !== text) node.textContent = text;
  }
}

// Whether the pipeline spans machines in what the lab shows, from the links the core gives
// each seam: the book's claim is true at its fleet, not at 16 GPUs with all three seams on.
function pipelineHere(report) {
  const { data, pipeline } = report.comms;
  const gpus = `${fmt.integer(report.gpus)} GPUs`;
  if (pipeline.link === 'network')
    return `, as it does here: at ${gpus} its stages sit on different nodes`;
  if (pipeline.link === 'none')
    return '; turn on Pipeline parallel, or open the book’s fleet, to see it';
  return (
    `; not here: at ${gpus} its stages share a node and ride NVLink` +
    `${data.link === 'network' ? ', while DP crosses the network' : ''}. ` +
    'The book’s fleet shows it spanning machines'
  );
}

// The closing sentence of "What to notice", true to the fleet the lab shows: the book's small
// grid, or a fleet too large for a tile per GPU (the grid's own limit).
function scaleNote(report) {
  const gpus = fmt.integer(report.gpus);
  if (usesTiles(report)) {
    return `This explorer shows the same logic at ${gpus} GPUs, where the factors stay small enough to see.`;
  }
  return (
    `This explorer shows the same logic at ${gpus} GPUs, too many for a tile each: the grid ` +
    'draws the fleet as a map of nodes, and a GPU picked on it names its groups.'
  );
}

const lab = mount(document.querySelector('#lab'), {
  url: 'query',
  layout: 'page',
  onReport(report) {
    fill('gpus', fmt.integer(report.gpus));
    fill('gpu-memory', fmt.bytes(report.memory.gpu_memory_bytes));
    fill('pp-here', pipelineHere(report));
    fill('scale-note', scaleNote(report));
  },
});

// "What to notice" quotes the book's data-parallel-only case, whatever the lab shows, and
// names the model it is about.
getLab()
  .then((core) => {
    const book = core.evaluateSummary(toScenario(defaults()));
    fill('data-only-memory', fmt.bytes(book.memory.per_gpu_bytes));
    fill('data-only-model', fmt.model(book.scenario.model));
  })
  .catch(() => {}); // the lab itself says why it could not start

lab.ready.then(() => {
  document.documentElement.dataset.ready = '1'; // the tests' signal
  performance.mark('lab-ready'); // the benchmark's: milliseconds since navigation
});
