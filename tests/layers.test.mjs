// The code's layers, and the direction they may be used in. Every source file sits in a layer
// folder, and a file includes (C++) or imports (JS) only from its own layer and the layers
// listed for it here. The model is the bottom: it knows nothing of the JSON contract, the
// planner or the derivations' wording, so a formula can be read without them.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { test } from 'node:test';

const root = new URL('../', import.meta.url);

// layer -> the other layers its files may use.
const CORE = {
  json: [],
  model: ['json'],
  explain: ['model', 'json'],
  planner: ['model', 'json'],
  contract: ['model', 'json', 'explain', 'planner'],
  cli: ['contract', 'model', 'json'],
};

async function entries(dir) {
  return readdir(new URL(dir, root), { withFileTypes: true });
}

// The files of each layer folder under `dir`, and the files that sit outside any.
async function layered(dir, layers, sources) {
  const byLayer = {};
  const outside = [];
  for (const e of await entries(dir)) {
    if (e.isDirectory() && e.name in layers) {
      byLayer[e.name] = (await entries(`${dir}${e.name}/`))
        .filter((f) => f.isFile() && sources.test(f.name))
        .map((f) => `${dir}${e.name}/${f.name}`);
    } else if (e.isDirectory() || sources.test(e.name)) {
      outside.push(`${dir}${e.name}`);
    }
  }
  return { byLayer, outside };
}

// `uses(text)` lists the layer folders a file refers to.
async function wrongDirection(dir, layers, sources, uses) {
  const { byLayer, outside } = await layered(dir, layers, sources);
  const bad = outside.map((path) => `${path} sits outside the layer folders`);
  for (const [layer, paths] of Object.entries(byLayer)) {
    for (const path of paths) {
      const text = await readFile(new URL(path, root), 'utf8');
      for (const used of uses(text, layer)) {
        if (used !== layer && !layers[layer].includes(used)) bad.push(`${path} uses ${used}/`);
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
