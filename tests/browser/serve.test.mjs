// scripts/serve.mjs: the right MIME types (wasm must be application/wasm for streaming
// compilation), no way out of web/, and the test files served from outside web/ by their exact path
// only.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

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

// Status, headers and body length, for a request with the given headers.
function getFull(path, headers = {}, port = server.port) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('files outside web/ are served at their exact path only', async () => {
  const extra = await serve({
    port: 0,
    files: { '/__test__/serve.test.mjs': fileURLToPath(import.meta.url) },
  });
  try {
    const hit = await getFull('/__test__/serve.test.mjs', {}, extra.port);
    assert.equal(hit.status, 200);
    assert.equal(hit.headers['content-type'], 'text/javascript; charset=utf-8');
    for (const path of ['/__test__/', '/__test__/harness.mjs', '/__test__/serve.test.mjs/..']) {
      const { status } = await getFull(path, {}, extra.port);
      assert.ok(status === 403 || status === 404, `${path} gave ${status}`);
    }
  } finally {
    await extra.close();
  }
});
