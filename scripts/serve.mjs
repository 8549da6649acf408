#!/usr/bin/env node
// A tiny static server for web/ on 127.0.0.1 (ES modules and wasm need http, not file://).
//   node scripts/serve.mjs [PORT] [--no-csp]   PORT from the argument, else $PORT, else 8000;
//                                               0 = any free
// Also importable by tests: `const { url, close } = await serve({ port: 0 })`; `gzip: true`
// compresses each body (level 9) for a request that accepts it, as a real host would (the
// benchmark's throttled first view counts the bytes a reader's network carries); `files` maps
// URL paths to files outside root (the browser tests serve axe-core at /__test__/axe.min.js:
// served, not routed by Playwright, since a route makes Playwright intercept every later request
// of its browser context, about 0.17 CPU-seconds more per lab load).
// Every response carries the strict Content-Security-Policy the lab runs under (CSP below):
// no inline script or style, no eval (only 'wasm-unsafe-eval' to compile the module), nothing
// from another origin; blob: images only for turning the grid into a PNG. A page that carries
// its own policy in a <meta> tag (the published folder's, scripts/build-site: it allows the
// standalone page's inline stylesheet by its hash) is served with that policy, as NOTES.md asks
// a host to do.
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const defaultRoot = fileURLToPath(new URL('../web/', import.meta.url));

// The page's own policy (its <meta http-equiv="Content-Security-Policy">), else CSP.
async function policyOf(file, type) {
  if (!type.startsWith('text/html')) return CSP;
  const meta = (await readFile(file, 'utf8')).match(
    /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/,
  );
  return meta?.[1] ?? CSP;
}

export function serve({
  port = 8000,
  root = defaultRoot,
  host = '127.0.0.1',
  csp = true,
  gzip = false,
  files = {},
} = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    const send = (status, text) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      return send(400, 'bad request\n');
    }
    // No way out of root: resolve, then insist the result is still inside it.
    const mapped = Object.hasOwn(files, path);
    let file = mapped ? files[path] : resolve(join(base, path));
    if (path.includes('\0') || (!mapped && file !== base && !file.startsWith(base + sep))) {
      return send(403, 'forbidden\n');
    }
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file);
      }
      if (!info.isFile()) return send(404, 'not found\n');
      const type = MIME[extname(file).toLowerCase()] ?? 'application/octet-stream';
      const headers = {
        'content-type': type,
        'content-length': info.size,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        ...(csp ? { 'content-security-policy': await policyOf(file, type) } : {}),
      };
      if (gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        const body = gzipSync(await readFile(file), { level: 9 });
        res.writeHead(200, {
          ...headers,
          'content-length': body.length,
          'content-encoding': 'gzip',
        });
        return res.end(req.method === 'HEAD' ? undefined : body);
      }
      res.writeHead(200, headers);
      if (req.method === 'HEAD') return res.end();
      createReadStream(file)
        .on('error', () => res.destroy())
        .pipe(res);
    } catch {
      send(404, 'not found\n');
    }
  });
  return new Promise((resolveServe, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolveServe({
        url: `http://${host}:${actual}/`,
        port: actual,
        close: () => new Promise((done) => server.close(done)),
        server,
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const csp = !args.includes('--no-csp');
  const portArg = args.find((a) => a !== '--no-csp');
  const port = Number(portArg ?? process.env.PORT ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: bad port ${portArg ?? process.env.PORT}`);
    process.exit(2);
  }
  try {
    const { url } = await serve({ port, csp });
    console.log(
      `Serving web/ at ${url}${csp ? ' with its Content-Security-Policy' : ''}  (Ctrl+C to stop)`,
    );
  } catch (e) {
    console.error(`serve: ${e.message}`);
    process.exit(1);
  }
}
