// Runs the core's planner off the page's thread: a module worker (worker.js) on the
// planner's module, started on the first search and kept for the next. Cancelling terminates
// it (a busy wasm call cannot be interrupted otherwise); the next search starts a fresh one.
// Where a worker cannot start (a page that imports the lab from another origin), the search
// runs in the page, on the planner's module loaded there (lab.js), and says so. The reference
// runs are asked of a worker too (referenceRuns), once for the page.
import { getPlannerLab } from './lab.js';

const WORKER_URL = new URL('./worker.js', import.meta.url);

export function createPlannerSearch() {
  let worker = null;
  let pending = null; // { id, resolve, reject, onProgress }
  let ids = 0;

  function start() {
    try {
      worker = new Worker(WORKER_URL, { type: 'module' });
    } catch {
      return null;
    }
    worker.addEventListener('message', ({ data }) => {
      if (!pending || data.id !== pending.id) return;
      if (data.progress) return pending.onProgress?.(data.progress);
      const { resolve, reject } = pending;
      pending = null;
      if (data.error) reject(Object.assign(new Error(data.error.message), data.error));
      else resolve(data.result);
    });
    worker.addEventListener('error', (e) => {
      e.preventDefault?.();
      const p = pending;
      pending = null;
      worker?.terminate();
      worker = null;
      p?.reject(new Error(`the planner's worker failed: ${e.message ?? 'unknown error'}`));
    });
    return worker;
  }

  return {
    // Resolves with the core's plan result, or rejects ({ cancelled: true } when cancelled).
    run(scenario, top, headroom, onProgress, rank = 'step') {
      this.cancel();
      if (!worker && !start()) {
        return getPlannerLab().then((lab) => ({
          ...lab.plan(scenario, top, { headroom, rank }),
          inPage: true,
        }));
      }
      const id = ++ids;
      return new Promise((resolve, reject) => {
        pending = { id, resolve, reject, onProgress };
        worker.postMessage({ id, scenario, top, headroom, rank });
      });
    },
    cancel() {
      if (!pending) return false;
      const { reject } = pending;
      pending = null;
      worker?.terminate();
      worker = null;
      reject(Object.assign(new Error('cancelled'), { cancelled: true }));
      return true;
    },
    get busy() {
      return pending !== null;
    },
    destroy() {
      this.cancel();
      worker?.terminate();
      worker = null;
    },
  };
}

let runsPromise = null;

// The reference runs (lab.referenceRuns(): 30 published runs, each evaluated by the core: 50-80
// ms of wasm and 320 KB of JSON on a first call), from a worker of their own, ended once it has
// answered, so the page's thread only receives them; asked once and shared by every lab on the
// page. Where no worker starts or it fails, from the planner's module in the page.
export function referenceRuns() {
  const inPage = () => getPlannerLab().then((lab) => lab.referenceRuns());
  runsPromise ??= new Promise((resolve) => {
    let worker;
    try {
      worker = new Worker(WORKER_URL, { type: 'module' });
    } catch {
      resolve(inPage());
      return;
    }
    worker.addEventListener('message', ({ data }) => {
      worker.terminate();
      if (data.error)
        resolve(Promise.reject(Object.assign(new Error(data.error.message), data.error)));
      else resolve(data.result);
    });
    worker.addEventListener('error', (e) => {
      e.preventDefault?.();
      worker.terminate();
      resolve(inPage());
    });
    worker.postMessage({ id: 0, referenceRuns: true });
  }).catch((e) => {
    runsPromise = null; // a later call may try again
    throw e;
  });
  return runsPromise;
}
