// The planner on a thread of its own, on the planner's module (lab/lab.js with planner: true:
// the core built for speed), so a search of millions of configurations never blocks the page.
// A module worker from the lab's origin, allowed by the CSP's script-src 'self' (worker-src
// falls back to it).
//
// In: { id, scenario, top, headroom, rank }. Out: { id, progress: { done, total, evaluated } } as
// the search goes (one per DP×TP×PP layout), then { id, result } or { id, error: { message,
// key } }. Cancelling is the page's: it terminates the worker. Or in: { id, referenceRuns:
// true }; out: { id, result: lab.referenceRuns() } (search.js referenceRuns).
import { createLab } from '../../lab/lab.js';

const labPromise = createLab({ planner: true });

self.addEventListener('message', async ({ data }) => {
  const { id, scenario, top, headroom, rank } = data;
  try {
    const lab = await labPromise;
    if (data.referenceRuns) {
      self.postMessage({ id, result: lab.referenceRuns() });
      return;
    }
    const onProgress = (done, total, evaluated) =>
      self.postMessage({ id, progress: { done, total, evaluated } });
    const result = lab.plan(scenario, top, { headroom, rank, onProgress });
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: { message: String(e?.message ?? e), key: e?.key ?? null } });
  }
});
