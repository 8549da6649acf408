// No function in core/ runs past one screen: 80 lines, from its signature at the margin to the
// "}" that closes it at the margin (clang-format writes every function so). The field table
// (schema.cpp's make_fields: one entry per scenario field, read as a table) is the one
// exception. A member function defined inside its class is indented and counted with the class's
// own bodies; the core keeps those short (one-liners and small accessors).
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { test } from 'node:test';

const core = new URL('../core/', import.meta.url);
const MAX_LINES = 80;
const EXEMPT = new Set(['model/schema.cpp make_fields']);

// Every .cpp and .h under core/, as paths relative to it.
async function sources() {
  const entries = await readdir(core, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(cpp|h)$/.test(e.name))
    .map((e) => `${e.parentPath ?? e.path}/${e.name}`.slice(core.pathname.length));
}

// Functions defined at the margin: a line that starts a declaration with a "(" and whose body
// opens on it or a following line, to the first line that is exactly "}".
export function functions(text) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!/^[A-Za-z_][\w:<>,*& ]*[\s*&]~?[\w:]+(<[^>]*>)?\(/.test(line)) continue;
    if (/^(return|else|namespace|using|typedef)\b/.test(line)) continue;
    // The signature ends at "{" (a body) or ";" (a declaration) on this or the next lines.
    let j = i;
    while (j < lines.length && !/[{;]\s*$/.test(lines[j]) && !/\{\s*\}?\s*$/.test(lines[j])) j++;
    if (j >= lines.length || /;\s*$/.test(lines[j]) || /\}\s*$/.test(lines[j])) continue;
    let end = j + 1;
    while (end < lines.length && lines[end] !== '}') end++;
    const name = line.match(/~?([\w:]+)(<[^>]*>)?\(/)[1];
    out.push({ name, line: i + 1, lines: end - i + 1 });
    i = end;
  }
  return out;
}

test('the scan finds a function and counts its lines', () => {
  const text = 'namespace pe {\nint twice(int x) {\n  return 2 * x;\n}\n}  // namespace pe\n';
  assert.deepEqual(functions(text), [{ name: 'twice', line: 2, lines: 3 }]);
});

test(`no function in core/ is over ${MAX_LINES} lines, but the field table`, async () => {
  const long = [];
  for (const file of await sources()) {
    const text = await readFile(new URL(file, core), 'utf8');
    for (const f of functions(text)) {
      if (f.lines > MAX_LINES && !EXEMPT.has(`${file} ${f.name}`)) {
        long.push(`core/${file}:${f.line} ${f.name}: ${f.lines} lines`);
      }
    }
  }
  assert.deepEqual(long, [], `over ${MAX_LINES} lines:\n${long.join('\n')}`);
});

test('the scan sees the field table, the one function allowed past the limit', async () => {
  const text = await readFile(new URL('model/schema.cpp', core), 'utf8');
  const table = functions(text).find((f) => f.name === 'make_fields');
  assert.ok(table && table.lines > MAX_LINES, 'make_fields found, and long');
});
