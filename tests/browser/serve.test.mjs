// scripts/serve.mjs: the right MIME types (wasm must be application/wasm for streaming
// compilation) and no way out of web/.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';

let server;
before(async () => {
  server = await serve({ port: 0 });
});
after(() => server.close());

// Raw request, so the path reaches the server exactly as written (no client normalisation).
function get(path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serves the page, its modules and the wasm with the right types', async () => {
  assert.deepEqual(await get('/'), { status: 200, type: 'text/html; charset=utf-8' });
  assert.deepEqual(await get('/js/app/main.js'), {
    status: 200,
    type: 'text/javascript; charset=utf-8',
  });
  assert.deepEqual(await get('/style.css'), { status: 200, type: 'text/css; charset=utf-8' });
  assert.deepEqual(await get('/lab/lab-module.wasm'), { status: 200, type: 'application/wasm' });
  assert.equal((await get('/nothing-here')).status, 404);
});

test('refuses to leave web/', async () => {
  for (const path of [
    '/../package.json',
    '/..%2fpackage.json',
    '/js/..%2f..%2fpackage.json',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/a%00b',
  ]) {
    const { status } = await get(path);
    assert.ok(status === 403 || status === 404, `${path} gave ${status}`);
  }
});
