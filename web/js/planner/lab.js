// The lab on the planner's module (lab-planner: built for speed, about three times the size of
// the first-load module; wasm/lab.js): the one the reference runs and an in-page search need.
// Loaded the first time one of them asks, never at the page's first load, and shared by every
// lab on the page. (The planner's worker loads its own copy on its own thread.)
let labPromise = null;

export function getPlannerLab() {
  labPromise ??= import('../../lab/lab.js')
    .then((m) => m.createLab({ planner: true }))
    .catch((e) => {
      labPromise = null; // a later call may try again
      throw e;
    });
  return labPromise;
}
