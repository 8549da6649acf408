// The lab on the planner's module (lab-planner: built for speed, about three times the size of
// the first-load module; wasm/lab.js) in the page, for a search and the reference runs where no
// worker can start (search.js). Loaded the first time one of them asks, never at the page's
// first load, and shared by every lab on the page. (The workers load their own copy.)
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
