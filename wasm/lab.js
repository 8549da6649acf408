// The lab's public JS API: the C++ core behind one friendly call.
//
//   import { createLab, LabError } from './lab/lab.js';
//   const lab = await createLab();
//   const report = lab.evaluate({ seams: { data: true, tensor: true, pipeline: true } });
//
// The scenario and report are the JSON contract documented in README.md. A bad scenario
// throws LabError carrying the core's message (which names the key and what is allowed);
// the module is unharmed and keeps answering.
import createLabModule from './lab-module.js';

export class LabError extends Error {
  constructor(message) {
    super(message);
    this.name = 'LabError';
  }
}

// options are passed to the Emscripten module factory, e.g. { wasmBinary } in Node, where
// the web build cannot fetch a file path (toolchain.md trap 4).
export async function createLab(options = {}) {
  const module = await createLabModule({ ...options });
  return {
    evaluate(scenario = {}) {
      let text;
      try {
        text = JSON.stringify(scenario);
      } catch (e) {
        throw new LabError(`scenario is not serialisable to JSON: ${e.message}`);
      }
      if (typeof text !== 'string') throw new LabError('scenario is missing: allowed a JSON object');
      const report = JSON.parse(module.evaluate(text));
      if (typeof report.error === 'string') throw new LabError(report.error);
      return report;
    },
  };
}
