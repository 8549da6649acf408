#!/usr/bin/env node
// node scripts/build-site.mjs DIR: web/ (with the wasm built into web/lab/) as the static folder
// to publish; scripts/build-site is the command to run. What it does, and why:
//   - the JS is bundled and minified by esbuild, split at the page's lazy imports (the lab's
//     core, the advanced section, sharing, the fleet map still load on first use); the
//     planner's worker is an entry of its own, sharing the lab's chunks with the page;
//   - both wasm modules are published: lab-module (the first load) and lab-planner (the
//     planner's worker and the reference runs load it when they first run);
//   - every file but the pages and the public entry points (and iframe-host.js) gets its content's hash in its
//     name (explorer-1a2b3c4d5e.css), so a host can cache it for a year and a release can never
//     mix old and new files; references to it are rewritten (HTML, the CSS and wasm URLs inside
//     the JS, the preloads);
//   - the public entry points keep their names (js/app/embed.js, parallelism-explorer.js) as
//     one-line re-exports of their hashed files, so embedding pages never change;
//   - the standalone page and embed.html carry the book's first view, drawn by the lab's own
//     code under Node (scripts/prerender.mjs), so the grid shows before any script runs;
//   - the standalone page paints its header before the lab's stylesheet arrives: the page's own
//     small stylesheet is inline (its hash in the CSP), the lab's is linked just before the lab
//     (see headerFirst);
//   - the pages carry the lab's Content-Security-Policy in a <meta> tag, so it holds on a host
//     that sends no headers; NOTES.md beside the files lists the headers a host should send.
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { build, transform } from 'esbuild';

import { prerender } from './prerender.mjs';
import { CSP, MIME } from './serve.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const web = join(root, 'web');
const out = resolve(process.argv[2] ?? join(root, 'build/site'));

const hashOf = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 10);
const hashed = (path, bytes) => {
  const ext = extname(path);
  return `${path.slice(0, -ext.length)}-${hashOf(bytes)}${ext}`;
};
const toPosix = (p) => p.split('\\').join('/');

async function write(path, data) {
  await mkdir(dirname(join(out, path)), { recursive: true });
  await writeFile(join(out, path), data);
}

await rm(out, { recursive: true, force: true });

// 0. The book's first view, drawn into the pages in each page's layout (scripts/prerender.mjs):
//    the reader sees the grid and the core's numbers before any script runs, and the lab takes
//    their place once ready. Its few styles join the lab's stylesheet.
const FIRST_VIEWS = {
  'index.html': await prerender('page'),
  'embed.html': await prerender('embed'),
};

// 1. Leaf assets, hashed: the stylesheets (minified), the icon and the two wasm modules. `names`
//    maps each source path under web/ to its published path.
const names = new Map();
const minified = new Map();
for (const css of ['style.css', 'explorer.css', 'examples/examples.css']) {
  let text = await readFile(join(web, css), 'utf8');
  // (The same rules for both pages, once.)
  if (css === 'explorer.css')
    text += [...new Set(Object.values(FIRST_VIEWS).map((v) => v.css))].join('');
  const { code } = await transform(text, { loader: 'css', minify: true });
  names.set(css, hashed(css, code));
  minified.set(css, code);
  await write(names.get(css), code);
}
// The page's stylesheet, inline in the standalone page (headerFirst): the CSP allows that one
// text by its hash, and nothing else inline, so every page's policy (and NOTES.md's) names it.
const PAGE_CSS = minified.get('style.css').trim();
const PAGE_CSS_HASH = `'sha256-${createHash('sha256').update(PAGE_CSS).digest('base64')}'`;
if (!CSP.includes("style-src 'self'")) throw new Error("the CSP no longer has style-src 'self'");
const SITE_CSP = CSP.replace("style-src 'self'", `style-src 'self' ${PAGE_CSS_HASH}`);
// The iframe host's listener: a classic script a page on another site loads by a stable name.
const host = await readFile(join(web, 'iframe-host.js'));
names.set('iframe-host.js', 'iframe-host.js');
await write('iframe-host.js', host);
const icon = await readFile(join(web, 'favicon.svg'));
names.set('favicon.svg', hashed('favicon.svg', icon));
await write(names.get('favicon.svg'), icon);
// Each wasm sits beside the JS chunk that loads it (Emscripten resolves it against that chunk).
const MODULES = ['lab-module', 'lab-planner'];
for (const m of MODULES) {
  const wasm = await readFile(join(web, `lab/${m}.wasm`));
  names.set(`lab/${m}.wasm`, `js/${basename(hashed(`${m}.wasm`, wasm))}`);
  await write(names.get(`lab/${m}.wasm`), wasm);
}

// 2. The JS. The asset URLs written in the sources are swapped for the hashed ones as esbuild
//    reads them; each swap must happen (a source that changed its URL fails the build), and
//    the code must land in the folder its relative URL assumes (checked after the build).
//    Code from a layer folder (js/app/, ...) lands in a chunk in js/, one level up, so its
//    URLs relative to the page's folder lose a '../' (the standalone page, embed.html).
//    The worker's own hashed name is known only after a build, so the JS is built twice: the
//    first finds the name, the second writes it into the page's code (the worker's code, and
//    so its name, does not depend on the page's; checked).
const WORKER = 'js/planner/worker.js';
const swaps = {
  'js/app/embed.js': [
    ["'../../explorer.css'", `'../${names.get('explorer.css')}'`, 'js'],
    ["'../../'", "'../'", 'js'],
  ],
  'js/app/share-bar.js': [["'../../embed.html'", "'../embed.html'", 'js']],
  'parallelism-explorer.js': [["'explorer.css'", `'${names.get('explorer.css')}'`, '.']],
  ...Object.fromEntries(
    MODULES.map((m) => [
      `lab/${m}.js`,
      [[`"${m}.wasm"`, `"${basename(names.get(`lab/${m}.wasm`))}"`, 'js']],
    ]),
  ),
};
const swapPlugin = {
  name: 'asset-urls',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async ({ path }) => {
      let text = await readFile(path, 'utf8');
      for (const [from, to] of swaps[toPosix(relative(web, path))] ?? []) {
        if (!text.includes(from))
          throw new Error(`${relative(root, path)} no longer contains ${from}`);
        text = text.split(from).join(to);
      }
      return { contents: text, loader: 'js' };
    });
  },
};
// Pages' scripts, the two public entry points, the examples' scripts and the planner's worker.
const entries = [
  'js/app/main.js',
  'js/app/embed-page.js',
  'js/app/embed.js',
  'parallelism-explorer.js',
  'examples/module.js',
  WORKER,
];
const bundle = (write) =>
  build({
    entryPoints: entries.map((e) => join(web, e)),
    outbase: web,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    target: 'es2022',
    entryNames: '[dir]/[name]-[hash]',
    chunkNames: 'js/[name]-[hash]',
    metafile: true,
    write,
    plugins: [swapPlugin],
    logLevel: 'warning',
  });
const workerOutput = (r) =>
  toPosix(
    relative(
      out,
      Object.entries(r.metafile.outputs).find(
        ([, o]) => o.entryPoint && toPosix(relative(web, join(root, o.entryPoint))) === WORKER,
      )[0],
    ),
  );
const worker = workerOutput(await bundle(false));
const workerUrl = `'./${posix.basename(WORKER)}'`;
swaps['js/planner/search.js'] = [[workerUrl, `'./${posix.relative('js', worker)}'`, 'js']];
const result = await bundle(true);
if (workerOutput(result) !== worker)
  throw new Error(
    `the worker's name changed between the builds: ${worker}, ${workerOutput(result)}`,
  );
const outputs = Object.entries(result.metafile.outputs).map(([path, o]) => ({
  path: toPosix(relative(out, path)),
  ...o,
  // The sources whose code this file holds (an entry that only re-exports a chunk holds none).
  inputs: Object.entries(o.inputs)
    .filter(([, v]) => v.bytesInOutput > 0)
    .map(([i]) => toPosix(relative(web, join(root, i)))),
  imports: o.imports
    .filter((i) => !i.external)
    .map((i) => ({ ...i, path: toPosix(relative(out, i.path)) })),
}));
const outputOf = (source) => outputs.find((o) => o.inputs.includes(source))?.path;
for (const e of entries)
  names.set(
    e,
    outputs.find((o) => o.entryPoint && toPosix(relative(web, join(root, o.entryPoint))) === e)
      .path,
  );
for (const [source, list] of Object.entries(swaps)) {
  for (const [, , folder] of list) {
    const at = outputOf(source);
    if (posix.dirname(at) !== folder)
      throw new Error(`${source} landed in ${at}; its URLs assume ${folder}/`);
  }
}

// The stable public entry points: one-line re-exports of their hashed files.
for (const stable of ['js/app/embed.js', 'parallelism-explorer.js']) {
  await write(stable, `export*from"./${posix.basename(names.get(stable))}";\n`);
}
// Their types for embedders, and the lab API's they refer to (the report), at the same places
// as in web/, so their relative imports hold unchanged.
const TYPES = ['js/app/embed.d.ts', 'parallelism-explorer.d.ts', 'lab/lab.d.ts'];
for (const types of TYPES) await write(types, await readFile(join(web, types)));

// 3. The pages: hashed names in every href and src, the modulepreloads expanded to the chunks
//    they now live in (and what those import statically, so the browser fetches them at once
//    rather than one level at a time), and the CSP as a <meta> tag.
const staticClosure = (paths) => {
  const seen = new Set();
  const visit = (p) => {
    if (seen.has(p)) return;
    seen.add(p);
    for (const i of outputs.find((o) => o.path === p)?.imports ?? [])
      if (i.kind === 'import-statement') visit(i.path);
  };
  paths.forEach(visit);
  return seen;
};
async function page(path) {
  let html = await readFile(join(web, path), 'utf8');
  const here = posix.dirname(path);
  const published = (ref) => {
    const source = posix.normalize(posix.join(here, ref));
    const target = names.get(source) ?? outputOf(source);
    return target && posix.relative(here, target);
  };
  const entry = html.match(/<script type="module" src="([^"]+)"><\/script>/);
  const preloads = [...html.matchAll(/( *)<link rel="modulepreload" href="([^"]+)">\n/g)];
  const entryOut = entry && posix.join(here, published(entry[1]));
  const codeOf = (ref) => outputOf(posix.normalize(posix.join(here, ref)));
  // A page that preloads nothing (the examples) is left so.
  const wanted = preloads.length
    ? staticClosure([entryOut, ...preloads.map((m) => codeOf(m[2]))])
    : new Set();
  wanted.delete(entryOut);
  const links = [...wanted]
    .map((p) => `${preloads[0][1]}<link rel="modulepreload" href="${posix.relative(here, p)}">\n`)
    .join('');
  preloads.forEach((m, i) => {
    html = html.replace(m[0], i === 0 ? links : '');
  });
  html = html.replace(/(<(?:link|script)\b[^>]*?\b(?:href|src)=")([^"]+)(")/g, (all, a, ref, z) => {
    if (/^[a-z]+:|^#|^\//i.test(ref) || wanted.has(posix.join(here, ref))) return all;
    const target = published(ref);
    if (!target) throw new Error(`${path}: nothing published for ${ref}`);
    return a + target + z;
  });
  html = html.replace(/<!--[\s\S]*?-->\n?/g, '');
  if (FIRST_VIEWS[path]) html = withFirstView(html, path, FIRST_VIEWS[path].html);
  if (path === 'index.html') html = headerFirst(html, path);
  html = html.replace(
    '<meta charset="utf-8">',
    `<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="${SITE_CSP}">`,
  );
  await write(path, html);
}
// The first view goes at the end of its page's #lab, which is marked as its host (style.css).
function withFirstView(html, path, view) {
  const host = html.match(/<(div|main) id="lab"[^>]*>[\s\S]*?(<\/\1>)/);
  if (!host) throw new Error(`${path}: no #lab to draw the first view in`);
  const marked = host[0].replace('id="lab"', 'id="lab" class="pe-first-host"');
  return `${html.slice(0, host.index)}${marked.slice(0, -host[2].length)}${view}\n${host[2]}${html.slice(host.index + host[0].length)}`;
}
// The standalone page's first paint: its header, at once; the lab's first view once the lab's
// stylesheet (34 KB) has arrived. Traced in Chromium, the first frame of the whole page waited
// for both stylesheets (another round trip on a slow network, and the lab's sheet shares the
// line with the preloaded JS and wasm), then spent most of its time laying out, painting and
// rastering the lab's first view: its text in two font families and weights, the grid's SVG
// text, the memory bar's stripes (about 0.5 s at a 4x slower processor). So:
//   - the page's stylesheet (1.5 KB: the header and the lab's room) is inline in <head>, and so
//     blocks nothing;
//   - the lab's stylesheet is linked in <body>, just before the lab. A stylesheet there is not
//     render-blocking, but it blocks the parser: what follows it (the lab's first view, the
//     prose) enters the document only once the stylesheet applies, so it never shows
//     unstyled. The header paints first, in its final look, and the lab follows it;
//   - the lab's stylesheet is still asked for first, by a preload where its link was: found
//     only by the parser, its request followed the JS and wasm preloads and shared a slow line
//     with them (the grid drawn 0.5 s later on the throttled profile of scripts/bench);
//   - the page's modules (the script and its modulepreloads) follow the lab's stylesheet, so
//     the browser fetches and compiles them after the header's first paint, not beside it:
//     first paint 1.59x -> 1.33x a bare page's unthrottled, 1.51x -> 1.28x throttled (27 pairs
//     each), the lab ready no later. The wasm's preload stays in the head: a download only,
//     and the longest, so it starts at once.
function headerFirst(html, path) {
  const link = (css) => new RegExp(` *<link rel="stylesheet" href="${names.get(css)}">\n`);
  const page = html.match(link('style.css'));
  const lab = html.match(link('explorer.css'));
  const host = html.match(/( *)<div id="lab"/);
  if (!page || !lab || !host)
    throw new Error(`${path}: no stylesheet links in <head> or no #lab to put the lab's before`);
  const preload = lab[0].replace('rel="stylesheet"', 'rel="preload"').replace('>', ' as="style">');
  html = html.replace(page[0], `  <style>${PAGE_CSS}</style>\n`).replace(lab[0], preload);
  const modules = html.match(
    / *<link rel="modulepreload"[^>]*>\n| *<script type="module"[^>]*><\/script>\n/g,
  );
  if (!modules) throw new Error(`${path}: no module script in <head>`);
  for (const m of modules) html = html.replace(m, '');
  const after = [lab[0], ...modules].map((m) => `${host[1]}${m.trim()}\n`).join('');
  const at = html.indexOf(host[0]);
  return `${html.slice(0, at)}${after}${html.slice(at)}`;
}
const pages = [
  'index.html',
  'embed.html',
  ...(await readdir(join(web, 'examples')))
    .filter((f) => f.endsWith('.html'))
    .map((f) => `examples/${f}`),
];
for (const p of pages) await page(p);

// 4. The notes for whoever hosts the folder.
const types = [
  ...new Set(Object.entries(MIME).map(([ext, type]) => `| \`${ext}\` | \`${type}\` |`)),
];
await write(
  'NOTES.md',
  `# Publishing this folder

Copy the whole folder, keeping its layout. Pages: \`index.html\` (the book's lab),
\`embed.html\` (the lab alone, for an iframe), \`examples/\` (the three ways to embed; optional).
Public entry points for other pages: \`js/app/embed.js\` (\`mount()\`) and \`parallelism-explorer.js\`
(the custom element).
Their TypeScript types sit beside them: \`js/app/embed.d.ts\`, \`parallelism-explorer.d.ts\` and
\`lab/lab.d.ts\` (the report's and the lab API's, which the other two import).

## Headers

Content types (the wasm must be \`application/wasm\`, or browsers will not compile it while it
downloads):

| extension | Content-Type |
| --- | --- |
${types.join('\n')}

Caching: a file with a content hash in its name (\`name-0123456789.ext\`) never changes, so
\`Cache-Control: public, max-age=31536000, immutable\`; the pages, \`js/app/embed.js\`,
\`parallelism-explorer.js\`, the \`.d.ts\` types and this file: \`Cache-Control: no-cache\`.

Content-Security-Policy (the pages also carry it in a \`<meta>\` tag; sending it as a header as
well is better, and \`X-Content-Type-Options: nosniff\`):

\`\`\`
${SITE_CSP}
\`\`\`

(\`${PAGE_CSS_HASH}\` is the standalone page's inline stylesheet: this build's, and only it.)

ES modules do not load from \`file://\`: serve the folder over HTTP(S).
`,
);

// 5. What was written, and what the standalone page downloads before it is ready.
const rows = [];
for (const o of [...names.values(), 'js/app/embed.js', 'parallelism-explorer.js', ...pages]) {
  const bytes = await readFile(join(out, o));
  rows.push([o, bytes.length, gzipSync(bytes, { level: 9 }).length]);
}
for (const o of outputs) {
  if (rows.some((r) => r[0] === o.path)) continue;
  const bytes = await readFile(join(out, o.path));
  rows.push([o.path, bytes.length, gzipSync(bytes, { level: 9 }).length]);
}
// (lab-planner's glue and wasm are not in it: they load when the planner or the reference runs
// first run.)
const first = new Set([
  'index.html', // with the page's stylesheet inline
  names.get('explorer.css'),
  names.get('lab/lab-module.wasm'),
  ...staticClosure([names.get('js/app/main.js'), outputOf('lab/lab.js')]),
]);
let total = 0;
console.log(
  `${toPosix(relative(process.cwd(), out)) || '.'}/ (gzip -9; * = the standalone page's first load):`,
);
for (const [p, raw, gz] of rows.sort((a, b) => a[0].localeCompare(b[0]))) {
  if (first.has(p)) total += gz;
  console.log(
    `  ${first.has(p) ? '*' : ' '} ${p.padEnd(44)} ${String(raw).padStart(7)} ${String(gz).padStart(7)}`,
  );
}
console.log(`  first load: ${total} bytes gzipped`);
