// The embed API's hand-written types held to its code: web/js/app/embed.d.ts and
// web/parallelism-explorer.d.ts declare every value their modules export and no other, and the
// state keys and hideable parts they list are the state table's (state/rows.js) and
// state/options.js's, in order. tests/types/example.ts is the embedder's side (tsc).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { PARTS } from '../../web/js/state/options.js';
import { ROWS } from '../../web/js/state/rows.js';

const read = (path) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

// The names a module exports as values: functions, classes, constants.
const exported = (text) =>
  [...text.matchAll(/^export (?:declare )?(?:async )?(?:function\*?|class|const|let) (\w+)/gm)]
    .map((m) => m[1])
    .sort();

// The string literals of `export type Name = | 'a' | 'b' ...;`.
function union(text, name) {
  const body = text.match(new RegExp(`^export type ${name} =([^;]*);`, 'm'));
  assert.ok(body, `declares type ${name}`);
  return [...body[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

for (const [js, types] of [
  ['web/js/app/embed.js', 'web/js/app/embed.d.ts'],
  ['web/parallelism-explorer.js', 'web/parallelism-explorer.d.ts'],
]) {
  test(`${types} declares every value ${js} exports, and no other`, async () => {
    const names = exported(await read(js));
    assert.ok(names.length > 0, `${js} exports something`);
    assert.deepEqual(exported(await read(types)), names);
  });
}

test("embed.d.ts's state keys and parts are the state table's and the options'", async () => {
  const text = await read('web/js/app/embed.d.ts');
  assert.deepEqual(
    union(text, 'StateKey'),
    ROWS.map((r) => r.name),
  );
  assert.deepEqual(union(text, 'Part'), PARTS);
});
