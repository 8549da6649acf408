// The lab on each of its two modules (wasm/CMakeLists.txt), as the tests load them: the modules
// are built for the web, so Node hands them their bytes. Needs scripts/build-wasm first.
import { readFile } from 'node:fs/promises';

import { createLab } from '../../web/lab/lab.js';

const bytes = (name) => readFile(new URL(`../../web/lab/${name}.wasm`, import.meta.url));

// lab-module: the page's first load, every call but plan() and referenceRuns().
export const firstLoadLab = async () => createLab({ wasmBinary: await bytes('lab-module') });

// lab-planner: every call.
export const plannerLab = async () =>
  createLab({ planner: true, wasmBinary: await bytes('lab-planner') });
