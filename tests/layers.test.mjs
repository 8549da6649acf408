// The code's layers, and the direction they may be used in. Every source file sits in a layer
// folder, and a file includes (C++) or imports (JS) only from its own layer and the layers
// listed for it here. The model is the bottom: it knows nothing of the JSON contract, the
// planner or the derivations' wording, so a formula can be read without them. On the page,
// a panel draws what it is given: it imports only lib/, and whatever else it needs (the
// state's rows, the planner) is passed in by app/, the composition.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { test } from 'node:test';

const root = new URL('../', import.meta.url);

// layer -> the other layers its files may use.
const CORE = {
  model: [],
  explain: ['model'],
  planner: ['model'],
  contract: ['model', 'explain', 'planner'],
  cli: ['contract', 'model'],
};

// web/js/. `lab` is not a folder here but web/lab/ (the wasm build: the core behind
// wasm/lab.js), under every layer; the composition and the planner load it.
const WEB = {
  lib: [],
  state: ['lib'],
  planner: ['lib', 'lab'],
  panels: ['lib'],
  app: ['lib', 'state', 'planner', 'panels', 'lab'],
};
// Layers whose files do not use each other either: a panel imports no other panel (what two
// share lives in lib/; which one draws is the composition's choice, app/grid.js).
const WEB_ALONE = ['panels'];

async function entries(dir) {
  return readdir(new URL(dir, root), { withFileTypes: true });
}

// The files of each layer folder under `dir`, and the files that sit outside any.
async function layered(dir, layers, sources) {
  const byLayer = {};
  const outside = [];
  for (const e of await entries(dir)) {
    if (e.isDirectory() && e.name in layers) {
      const inside = await entries(`${dir}${e.name}/`);
      byLayer[e.name] = inside
        .filter((f) => f.isFile() && sources.test(f.name))
        .map((f) => `${dir}${e.name}/${f.name}`);
      // A folder in a layer folder would hold files no layer answers for.
      outside.push(
        ...inside.filter((f) => f.isDirectory()).map((f) => `${dir}${e.name}/${f.name}`),
      );
    } else if (e.isDirectory() || sources.test(e.name)) {
      outside.push(`${dir}${e.name}`);
    }
  }
  return { byLayer, outside };
}

// `uses(text, path)` lists the layers a file refers to; a file may use its own layer unless
// that layer is in `alone`.
async function wrongDirection(dir, layers, sources, uses, alone = []) {
  const { byLayer, outside } = await layered(dir, layers, sources);
  const bad = outside.map((path) => `${path} sits outside the layer folders`);
  for (const [layer, paths] of Object.entries(byLayer)) {
    for (const path of paths) {
      const text = await readFile(new URL(path, root), 'utf8');
      for (const used of uses(text, path)) {
        const allowed = used === layer ? !alone.includes(layer) : layers[layer].includes(used);
        if (!allowed) bad.push(`${path} uses ${used}/`);
      }
    }
  }
  return bad;
}

test('core: every file sits in a layer folder, and includes only the layers below it', async () => {
  const includes = (text) =>
    [...text.matchAll(/^#include "(\w+)\//gm)].map((m) => m[1]).filter((l) => l in CORE);
  assert.deepEqual(await wrongDirection('core/', CORE, /\.(cpp|h)$/, includes), []);
});

// What a JS file imports (statically, dynamically, or as a worker's URL), by layer: the folder
// under web/js/ it resolves to, `lab` for web/lab/, else the path itself (allowed to none).
function imports(text, path) {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/\bnew URL\(\s*['"]([^'"]+\.m?js)['"],\s*import\.meta\.url\s*\)/g),
  ].map((m) => m[1]);
  return specifiers.map((spec) => {
    if (!/^\.\.?\//.test(spec)) return spec;
    const target = new URL(spec, new URL(path, root)).href.slice(root.href.length);
    const layer = /^web\/js\/([\w-]+)\//.exec(target)?.[1];
    if (layer) return layer;
    return target.startsWith('web/lab/') ? 'lab' : target;
  });
}

test('web/js: every file sits in a layer folder; panels import only lib/, and no panel', async () => {
  const bad = await wrongDirection('web/js/', WEB, /\.m?js$/, imports, WEB_ALONE);
  assert.deepEqual(bad, []);
  // The check sees what the page imports: the composition reaches every other layer.
  const seen = new Set();
  for (const e of await entries('web/js/app/')) {
    const path = `web/js/app/${e.name}`;
    for (const used of imports(await readFile(new URL(path, root), 'utf8'), path)) seen.add(used);
  }
  assert.deepEqual([...seen].sort(), ['app', 'lab', 'lib', 'panels', 'planner', 'state']);
});
