// The wasm module against the native core: for every golden scenario the report computed in
// WebAssembly must equal the golden report written by the native CLI (scripts/update-golden).
// Needs the module built first (scripts/build-wasm).
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';

import { createLab, LabError } from '../../web/lab/lab.js';

const golden = new URL('../golden/', import.meta.url);
const scenarios = (await readdir(golden)).filter((f) => f.endsWith('.scenario.json')).sort();
const readJson = async (name) => JSON.parse(await readFile(new URL(name, golden), 'utf8'));

let lab;
before(async () => {
  // The module is built for the web; in Node we hand it the bytes (Emscripten 3.1.6's web build cannot read a file path in Node).
  const wasmBinary = await readFile(new URL('../../web/lab/lab-module.wasm', import.meta.url));
  lab = await createLab({ wasmBinary });
});

describe('wasm report equals the native golden report', () => {
  test('there are golden scenarios', () => assert.ok(scenarios.length >= 8, scenarios.join()));
  for (const file of scenarios) {
    const name = file.replace('.scenario.json', '');
    test(name, async () => {
      const scenario = await readJson(file);
      const expected = await readJson(`${name}.report.json`);
      assert.deepStrictEqual(lab.evaluate(scenario), expected);
    });
  }
});

describe('bad scenarios', () => {
  test('come back as LabError with the core message, and the module keeps working', () => {
    assert.throws(
      () => lab.evaluate({ gpus: 0 }),
      (e) => {
        assert.ok(e instanceof LabError);
        assert.equal(e.name, 'LabError');
        assert.equal(e.message, 'gpus is 0: allowed 1 to 16384');
        return true;
      },
    );
    assert.throws(() => lab.evaluate({ seams: { data: 'yes' } }), {
      name: 'LabError',
      message: 'seams.data is "yes": allowed true or false',
    });
    assert.throws(
      () => lab.evaluate({ gpus: 16, bogus: 1 }),
      (e) => {
        assert.ok(e instanceof LabError);
        assert.match(e.message, /^unknown key "bogus": allowed gpus, /);
        return true;
      },
    );
    assert.throws(() => lab.evaluate([]), LabError);
    assert.deepEqual(lab.evaluate({}).degrees, { dp: 16, tp: 1, pp: 1, cp: 1, ep: 1 });
  });

  test('many errors in a row leave the module healthy', () => {
    for (let i = 0; i < 200; i++) assert.throws(() => lab.evaluate({ gpus: -i }), LabError);
    const report = lab.evaluate({ seams: { data: true, tensor: true, pipeline: true } });
    assert.deepEqual(report.degrees, { dp: 2, tp: 4, pp: 2, cp: 1, ep: 1 });
    assert.equal(report.memory.per_gpu_bytes, 32e9);
  });
});
