// The three ways to embed the lab, each through its example page in web/examples/: two
// independent labs from the module API sharing one wasm module, the custom element (loaded
// only near the viewport), and the iframe page that tells its host its height.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { CSP } from '../../scripts/serve.mjs';
import { axe, cspViolations, openPage, screenshot, startBrowser } from './harness.mjs';
import { settle } from './measure.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env?.close());

const badgeOf = (root) => root.locator('.badge').textContent();

// Every id in the document and in every shadow root, with duplicates listed.
const duplicateIds = (page) =>
  page.evaluate(() => {
    const seen = new Map();
    const walk = (root) => {
      for (const el of root.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) ?? 0) + 1);
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  });

function countRequests(page, pattern) {
  const seen = [];
  page.on('request', (r) => {
    if (pattern.test(r.url())) seen.push(r.url());
  });
  return seen;
}

describe('module API: examples/module.html', () => {
  test('two labs, each with its options, independent, one wasm module, unique ids', async () => {
    const view = await openPage(env, 'examples/module.html');
    const wasm = await view.page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((name) => name.endsWith('lab-module.wasm')),
    );
    const [a, b] = [view.page.locator('#lab-a .pe-lab'), view.page.locator('#lab-b .pe-lab')];
    assert.equal(await badgeOf(a), 'DP×TP×PP = 1×4×4 = 16', 'lab A: tensor + pipeline');
    assert.equal(await badgeOf(b), 'DP×TP×PP = 4×4×4 = 64', 'lab B: 64 GPUs, all seams');
    assert.equal(wasm.length, 1, 'one compiled module for both labs');
    assert.deepEqual(await duplicateIds(view.page), []);

    // Options: A hides its advanced section and share buttons, B its planner; themes differ.
    assert.equal(await a.locator('details.advanced').isHidden(), true);
    assert.equal(await a.locator('.share').isHidden(), true);
    assert.equal(await a.locator('.export').isVisible(), true);
    assert.equal(
      await b.locator('details.advanced').evaluate((d) => d.open),
      true,
      'gpus opens it',
    );
    assert.equal(await b.locator('.planner').isHidden(), true);
    assert.equal(await b.locator('.breakdown').isVisible(), true);
    const background = (root) => root.evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(await background(a), 'rgb(255, 255, 255)');
    assert.equal(await background(b), 'rgb(31, 32, 38)');

    // Independent: a switch in A changes A only; B writes its own state to the hash.
    await a.getByRole('switch', { name: 'Data parallel' }).click();
    await view.page.waitForFunction(
      () => document.querySelector('#lab-a .badge').textContent === 'DP×TP×PP = 2×4×2 = 16',
    );
    assert.equal(await badgeOf(b), 'DP×TP×PP = 4×4×4 = 64');
    assert.equal(new URL(view.page.url()).hash, '', 'A keeps no URL state; B is at its options');
    await b.getByRole('switch', { name: 'Pipeline parallel' }).click();
    await view.page.waitForFunction(() => location.hash === '#seams=data,tensor');
    assert.equal(await badgeOf(a), 'DP×TP×PP = 2×4×2 = 16');

    // The hash restores B (and only B) on a fresh load.
    const again = await openPage(env, `examples/module.html${new URL(view.page.url()).hash}`);
    assert.equal(await badgeOf(again.page.locator('#lab-b .pe-lab')), await badgeOf(b));
    assert.equal(await badgeOf(again.page.locator('#lab-a .pe-lab')), 'DP×TP×PP = 1×4×4 = 16');

    // A hash edited by hand (or a link to another state on the same page) is read again.
    await view.page.evaluate(() => {
      location.hash = '#seams=tensor,pipeline';
    });
    await view.page.waitForFunction(
      () => document.querySelector('#lab-b .badge').textContent === 'DP×TP×PP = 1×8×8 = 64',
    );
    assert.equal(await badgeOf(a), 'DP×TP×PP = 2×4×2 = 16');

    assert.deepEqual(await axe(view.page), []);
    await screenshot(view.page, 'example-module', { fullPage: true });
    assert.deepEqual(await cspViolations(view.page), []);
    assert.deepEqual([...view.problems, ...again.problems], []);
    await again.close();
    await view.close();
  });

  test('update() changes state, theme and hidden parts; destroy() removes the lab; notes for bad options', async () => {
    const view = await openPage(env, 'examples/module.html');
    const { page } = view;
    const a = page.locator('#lab-a .pe-lab');
    await page.evaluate(async () => {
      const { labA } = await import('/examples/module.js');
      labA.update({ seams: 'data', theme: 'dark', hide: 'wire', gpus: 'lots' });
    });
    await page.waitForFunction(
      () => document.querySelector('#lab-a .badge').textContent === 'DP×TP×PP = 16×1×1 = 16',
    );
    assert.equal(await a.getAttribute('data-theme'), 'dark');
    assert.equal(await a.locator('.wire-panel').isHidden(), true);
    assert.equal(await a.locator('details.advanced').isVisible(), true, 'hide replaces the list');
    assert.match(
      await a.locator('.pe-notes').textContent(),
      /gpus: "lots" is not allowed \(a whole number from 1 to 16,384\); using 16\./,
    );
    assert.deepEqual(
      await page.evaluate(async () => {
        const { labA } = await import('/examples/module.js');
        return [labA.state.data, labA.state.tensor, labA.report.degrees.dp];
      }),
      [true, false, 16],
    );
    // A third lab mounted later shares the module; destroying it leaves the others working.
    const third = await page.evaluate(async () => {
      const { mount } = await import('/js/app/embed.js');
      const box = document.body.appendChild(document.createElement('div'));
      const lab = mount(box, { seams: ['pipeline'] });
      await lab.ready;
      const badge = box.querySelector('.badge').textContent;
      lab.destroy();
      return { badge, left: box.children.length };
    });
    assert.deepEqual(third, { badge: 'DP×TP×PP = 1×1×16 = 16', left: 0 });
    // layout: "embed" (the default) or "page"; anything else is a note, and the embed's.
    const layouts = await page.evaluate(async () => {
      const { mount } = await import('/js/app/embed.js');
      const out = [];
      for (const layout of ['page', 'wide']) {
        const box = document.body.appendChild(document.createElement('div'));
        const lab = mount(box, { layout });
        await lab.ready;
        const root = box.querySelector('.pe-lab');
        out.push([
          root.classList.contains('pe-compact'),
          root.querySelector('.pe-notes-list').textContent,
        ]);
        lab.destroy();
      }
      return out;
    });
    assert.deepEqual(layouts[0], [false, '']);
    assert.equal(layouts[1][0], true);
    assert.match(layouts[1][1], /layout: "wide" is not allowed \(embed or page\); using embed\./);
    await page.locator('#lab-b').getByRole('switch', { name: 'Tensor parallel' }).click();
    await page.waitForFunction(
      () => document.querySelector('#lab-b .badge').textContent === 'DP×TP×PP = 8×1×8 = 64',
    );
    assert.deepEqual(view.problems, []);
    await view.close();
  });
});

describe('custom element: examples/element.html', () => {
  test('attributes are options; the far element waits for the viewport; attribute changes update it', async () => {
    const view = await openPage(env, 'examples/element.html', {
      ready: 'parallelism-explorer#near[data-ready]',
    });
    const { page } = view;
    const near = page.locator('#near');
    assert.equal(await badgeOf(near), 'DP×TP×PP = 4×4×1 = 16', 'seams="data,tensor"');
    assert.equal(
      await near.locator('.pe-placeholder').isHidden(),
      true,
      'the lab replaced its placeholder',
    );
    assert.equal(
      await near.locator('details.advanced').evaluate((d) => d.open),
      false,
      'gpus="16" is the default: the book\'s view',
    );
    // Far down the page: only its placeholder so far.
    const far = page.locator('#far');
    assert.equal(
      await far.evaluate((el) => el.lab === null && !el.shadowRoot.querySelector('.pe-lab')),
      true,
    );
    assert.equal(await far.locator('.pe-placeholder').isVisible(), true);
    await far.scrollIntoViewIfNeeded();
    await page.waitForSelector('#far[data-ready]');
    assert.equal(await badgeOf(far), 'DP×TP×PP = 80×8×16 = 10240');
    assert.equal(await far.locator('.pe-placeholder').isHidden(), true);
    assert.equal(await far.locator('.pe-lab').getAttribute('data-theme'), 'dark');
    assert.equal(await far.locator('.planner').isHidden(), true);
    assert.deepEqual(await duplicateIds(page), []);

    // Attributes changed later update the lab; events carry each report.
    await near.evaluate((el) => {
      window.__reports = [];
      el.addEventListener('report', (e) => window.__reports.push(e.detail.degrees));
      el.setAttribute('seams', 'pipeline');
    });
    await page.waitForFunction(
      () =>
        document.querySelector('#near').shadowRoot.querySelector('.badge').textContent ===
        'DP×TP×PP = 1×1×16 = 16',
    );
    assert.deepEqual(await page.evaluate(() => window.__reports.at(-1)), {
      dp: 1,
      tp: 1,
      pp: 16,
      cp: 1,
      ep: 1,
    });
    await near.evaluate((el) => el.removeAttribute('seams'));
    await page.waitForFunction(
      () =>
        document.querySelector('#near').shadowRoot.querySelector('.badge').textContent ===
        'DP×TP×PP = 16×1×1 = 16',
    );
    // The host page's styles stay out of the shadow root, and the lab's stay in it.
    assert.equal(await page.evaluate(() => document.querySelectorAll('.pe-lab').length), 0);

    assert.deepEqual(await axe(page), []);
    await screenshot(page, 'example-element', { fullPage: true });
    assert.deepEqual(await cspViolations(page), []);
    assert.deepEqual(view.problems, []);
    await view.close();
  });

  test('no wasm is fetched until an element comes near the viewport', async () => {
    // A page whose only lab is two screens down (served under the same CSP).
    const page = await (
      await env.browser.newContext({ viewport: { width: 1000, height: 700 } })
    ).newPage();
    const problems = [];
    page.on('console', (m) => problems.push(m.text()));
    const wasm = countRequests(page, /lab-module\.(wasm|js)$/);
    await page.route('**/examples/far-only.html', (route) =>
      route.fulfill({
        contentType: 'text/html; charset=utf-8',
        headers: { 'content-security-policy': CSP },
        body:
          '<!doctype html><html lang="en"><head><title>far</title><link rel="icon" href="../favicon.svg">' +
          '<script type="module" src="../parallelism-explorer.js"></script></head><body>' +
          '<main><h1>Far</h1><p id="filler">' +
          'text '.repeat(4000) +
          '</p><parallelism-explorer seams="tensor"></parallelism-explorer></main></body></html>',
      }),
    );
    await page.goto(`${env.url}examples/far-only.html`);
    await page.waitForFunction(() => customElements.get('parallelism-explorer'));
    await page.waitForTimeout(500);
    assert.deepEqual(wasm, [], 'nothing loaded while the lab is far away');
    await page.locator('parallelism-explorer').scrollIntoViewIfNeeded();
    await page.waitForSelector('parallelism-explorer[data-ready]');
    assert.equal(wasm.filter((u) => u.endsWith('.wasm')).length, 1);
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});

describe('iframe: examples/iframe.html', () => {
  test('embed.html reads its options from the query and its host sizes it to fit', async () => {
    const view = await openPage(env, 'examples/iframe.html', { ready: 'iframe' });
    const { page } = view;
    const frame = page.frameLocator('iframe');
    await frame.locator('html[data-ready="1"]').waitFor();
    assert.equal(await badgeOf(frame.locator('.pe-lab')), 'DP×TP×PP = 2×4×2 = 16');
    assert.equal(await frame.locator('.references').count(), 0, 'closed: not built yet');

    const fits = () =>
      page.evaluate(() => {
        const iframe = document.querySelector('iframe');
        const inner = iframe.contentDocument.body.getBoundingClientRect().height;
        return { outer: iframe.getBoundingClientRect().height, inner: Math.ceil(inner) };
      });
    await page.waitForFunction(() => {
      const iframe = document.querySelector('iframe');
      return (
        Math.abs(
          iframe.getBoundingClientRect().height -
            Math.ceil(iframe.contentDocument.body.getBoundingClientRect().height),
        ) < 1
      );
    });
    const closed = await fits();
    assert.ok(closed.outer > 600 && closed.outer < 3000, `${closed.outer} px`);

    // Opening the advanced section makes the lab taller: the iframe follows.
    await frame.locator('details.advanced > summary').click();
    await frame.locator('.advanced-out .breakdown').waitFor();
    await page.waitForFunction(
      (h) => document.querySelector('iframe').getBoundingClientRect().height > h + 500,
      closed.outer,
    );
    // The iframe settles at its content's height (the content may still grow a frame or two).
    await page.waitForFunction(() => {
      const iframe = document.querySelector('iframe');
      const inner = Math.ceil(iframe.contentDocument.body.getBoundingClientRect().height);
      return Math.abs(iframe.getBoundingClientRect().height - inner) < 1;
    });
    const open = await fits();
    assert.ok(Math.abs(open.outer - open.inner) < 1, JSON.stringify(open));
    assert.equal(await frame.locator('.references').isHidden(), true, 'hide=references');

    // The messages are the common shape: { context: "iframe.resize", height }.
    const message = await page.evaluate(
      () =>
        new Promise((resolve) => {
          addEventListener('message', (e) => resolve(e.data), { once: true });
          document
            .querySelector('iframe')
            .contentDocument.querySelector('details.advanced > summary')
            .click();
        }),
    );
    assert.deepEqual(Object.keys(message).sort(), ['context', 'height']);
    assert.equal(message.context, 'iframe.resize');
    assert.equal(typeof message.height, 'number');

    await screenshot(page, 'example-iframe', { fullPage: true });
    assert.deepEqual(await axe(page), [], 'the host page');
    assert.deepEqual(await axe(page.frames()[1]), [], 'the lab inside the iframe');
    assert.deepEqual(await cspViolations(page), []);
    assert.deepEqual(view.problems, []);
    await view.close();
  });
});

// The snippets of web/README.md, as an author pastes them: each in a host page of its own
// served with the lab's CSP (the README's URLs pointed at this server), so one that needs an
// inline script fails here as it would on the book's site.
const README = readFileSync(new URL('../../web/README.md', import.meta.url), 'utf8');
const blocks = (lang) =>
  [...README.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
const here = (text) =>
  text
    .replaceAll('https://book.example/explorer/', env.url)
    .replaceAll('https://lab.example/', env.url)
    .replaceAll('"/explorer/', `"${env.url}`)
    .replaceAll("'/explorer/", `'${env.url}`);
const hostPage = (body) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head>` +
  `<body><main>${body}</main></body></html>`;

// A page at `url` with `body` (and any `files`: path -> JavaScript) under the lab's CSP, or `csp`.
async function host(context, url, body, { files = {}, csp = CSP } = {}) {
  await context.route(url, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      headers: { 'content-security-policy': csp },
      body: hostPage(body),
    }),
  );
  for (const [path, js] of Object.entries(files)) {
    await context.route(new URL(path, url).href, (route) =>
      route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: js }),
    );
  }
}

describe("the README's snippets under the lab's CSP", () => {
  test('iframe: the frame takes the height the lab posts, through iframe-host.js', async () => {
    const snippets = blocks('html').filter((b) => b.includes('<iframe'));
    assert.ok(snippets.length >= 2, `${snippets.length} iframe snippets`);
    for (const [i, snippet] of snippets.entries()) {
      // The iframe and its script (the publishing snippet goes on with the other two ways).
      const iframe = here(snippet).split('<!-- the custom element')[0];
      assert.doesNotMatch(iframe, /<script>/, 'no inline script');
      const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
      const url = `${env.url}__test__/iframe-${i}.html`;
      await host(context, url, iframe);
      const view = await openPage(env, url, { context, ready: 'iframe' });
      const frame = view.page.frameLocator('iframe');
      await frame.locator('html[data-ready="1"]').waitFor();
      // The host sized the frame to the lab's own height (here the snippet's own: the book's
      // view keeps the room the snippet gives it).
      const sized = () =>
        view.page.evaluate(() => {
          const f = document.querySelector('iframe');
          const inner = f.contentDocument?.body.getBoundingClientRect().height ?? 0;
          return { outer: f.getBoundingClientRect().height, inner: Math.ceil(inner) };
        });
      await view.page
        .waitForFunction(
          () => {
            const f = document.querySelector('iframe');
            const inner = Math.ceil(f.contentDocument?.body.getBoundingClientRect().height ?? 0);
            return inner > 0 && Math.abs(f.getBoundingClientRect().height - inner) <= 1;
          },
          null,
          { timeout: 10_000 },
        )
        .catch(async () => assert.fail(`not sized: ${JSON.stringify(await sized())}`));
      assert.deepEqual(await cspViolations(view.page), []);
      assert.deepEqual(view.problems, []);
      await view.close();
      await context.close();
    }
  });

  test('module API and custom element: they start, and the element drops its content', async () => {
    const html = blocks('html').map(here);
    const js = blocks('js').map(here);
    assert.ok(js.length >= 2, `${js.length} module scripts`);
    const cases = [
      ...html
        .filter((b) => b.includes('src="lab.js"'))
        .map((b, i) => ({ body: b.slice(b.lastIndexOf('<div id="lab"') - 0), js: js[i] })),
      ...html
        .filter((b) => b.includes('<parallelism-explorer') && !b.includes('<iframe'))
        .map((b) => ({ body: b })),
    ];
    assert.ok(cases.length >= 3, `${cases.length} snippets`);
    for (const [i, { body, js: code }] of cases.entries()) {
      const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
      const url = `${env.url}__test__/snippet-${i}.html`;
      await host(context, url, body.replace(/<link[^>]*>[^\n]*\n/, ''), {
        files: code ? { 'lab.js': code } : {},
      });
      const view = await openPage(env, url, { context, ready: null });
      const lab = view.page.locator('.pe-lab[data-ready="1"]');
      await lab.first().waitFor();
      if (body.includes('<parallelism-explorer')) {
        assert.equal(
          await view.page
            .getByRole('link', { name: 'Open the 3D parallelism explorer' })
            .isVisible(),
          false,
          'the fallback goes once the lab runs',
        );
      }
      assert.deepEqual(await cspViolations(view.page), [], body);
      assert.deepEqual(view.problems, [], body);
      await view.close();
      await context.close();
    }
  });
});

describe('from another origin', () => {
  test("the custom element's content shows when its module cannot load", async () => {
    // The book on one origin (localhost), the lab's files on another (127.0.0.1, no CORS).
    const book = env.url.replace('127.0.0.1', 'localhost');
    assert.notEqual(new URL(book).origin, new URL(env.url).origin);
    const snippet = blocks('html').find((b) => b.includes('gpus="16" seams="data,tensor"'));
    const body = here(snippet).replace(`href="${env.url}"`, `href="${env.url}index.html"`);
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const url = `${book}__test__/chapter.html`;
    await host(context, url, `${body}<p id="after">The chapter goes on.</p>`, {
      csp: `default-src 'self'; script-src 'self' ${new URL(env.url).origin}`,
    });
    const page = await context.newPage();
    const failed = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    page.on('console', (m) => m.type() === 'error' && failed.push(m.text()));
    await page.goto(url);
    await page.waitForLoadState('load');
    await page.waitForTimeout(300);
    const link = page.getByRole('link', { name: 'Open the 3D parallelism explorer' });
    assert.equal(await link.isVisible(), true);
    assert.equal(await link.getAttribute('href'), `${env.url}index.html`);
    assert.equal(await page.evaluate(() => customElements.get('parallelism-explorer')), undefined);
    assert.ok(
      failed.some((f) => /CORS|parallelism-explorer/.test(f)),
      failed.join('\n'),
    );
    assert.equal(await page.locator('#after').isVisible(), true);
    await context.close();
  });
});

// The book's view as an embedded lab shows it (layout "embed"): at 1280 px wide it fits 1,300 px,
// "Try it" one step at a time, and the room the snippets reserve is the lab's, so the host
// page's content below the frame or the element does not move when the lab loads.
const MAX_EMBED_PX = 1300;
// Every layout shift on the host page from its start (an init script).
const watchShifts = () => {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__shifts.push([e.startTime, e.value]);
  }).observe({ type: 'layout-shift', buffered: true });
};
// The shifts' values from `ms` on.
const shiftsSince = (page, ms = 0) =>
  page.evaluate((t) => window.__shifts.filter(([at]) => at >= t).map(([, v]) => v), ms);

describe("the book's view embedded at 1280 px wide", () => {
  test('at most 1,300 px tall; Try it one step at a time; the key, the rule and Compare closed', async () => {
    const view = await openPage(env, 'embed.html', { viewport: { width: 1280, height: 800 } });
    const { page } = view;
    const height = await page.evaluate(() => document.body.getBoundingClientRect().height);
    assert.ok(height <= MAX_EMBED_PX, `${height} px`);
    for (const more of ['.grid-key', '.rule-more', '.compare-more', 'details.advanced']) {
      assert.equal(await page.locator(more).evaluate((d) => d.open), false, more);
    }
    const steps = page.locator('.exercise-list > li');
    const shown = () =>
      steps.evaluateAll((li) => li.filter((l) => !l.hidden).map((l) => l.dataset.exercise));
    const nav = page.locator('.exercise-nav');
    assert.deepEqual(await shown(), ['most-bytes']);
    assert.equal(await nav.locator('.exercise-at').textContent(), 'Question 1 of 7');
    assert.equal(await nav.getByRole('button', { name: '← Previous' }).isDisabled(), true);
    await nav.getByRole('button', { name: 'Next →' }).click();
    assert.deepEqual(await shown(), ['tp-alone-share']);
    assert.equal(await nav.locator('.exercise-at').textContent(), 'Question 2 of 7');
    await nav.getByRole('button', { name: '← Previous' }).click();
    // A step checked shows its answer in the lab; the way back returns to that step.
    const step = page.locator('[data-exercise="most-bytes"]');
    await step.locator('input[value="tensor"]').check();
    await step.getByRole('button', { name: 'Check, and show it in the lab' }).click();
    await step.locator('.verdict').waitFor();
    await nav.getByRole('button', { name: 'Next →' }).click();
    await page.getByRole('button', { name: 'Back to step 1' }).click();
    assert.deepEqual(await shown(), ['most-bytes']);
    // The key opens on demand.
    await page.locator('.grid-key > summary').click();
    assert.equal(await page.locator('.legend').isVisible(), true);
    await page.locator('.grid-key > summary').click();
    await page.getByRole('button', { name: 'Back to step 1' }).waitFor({ state: 'detached' });
    await page.locator('[data-exercise="most-bytes"]').getByRole('button').first().focus();
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.deepEqual(view.problems, []);
    await view.close();
    // The picture for the book: the first state, whole.
    const fresh = await openPage(env, 'embed.html', { viewport: { width: 1280, height: 800 } });
    await screenshot(fresh.page, 'embed-1280', { fullPage: true });
    await fresh.close();
  });

  test("the README's iframe: the frame keeps the snippet's height, nothing below it moves", async () => {
    const snippet = here(blocks('html').find((b) => b.includes('<iframe'))).split(
      '<!-- the custom element',
    )[0];
    const reserved = Number(/height="(\d+)"/.exec(snippet)[1]);
    assert.ok(reserved <= MAX_EMBED_PX, `the snippet's height, ${reserved}`);
    // 1296 px: the page's 8 px margins leave the frame 1280 px.
    const context = await env.browser.newContext({ viewport: { width: 1296, height: 800 } });
    await context.addInitScript(watchShifts);
    const url = `${env.url}__test__/iframe-height.html`;
    await host(context, url, `${snippet}<p id="after">The chapter goes on.</p>`);
    const page = await context.newPage();
    await page.goto(url);
    const defined = 0;
    const before = await page.locator('#after').evaluate((p) => p.getBoundingClientRect().top);
    await page.frameLocator('iframe').locator('html[data-ready="1"]').waitFor();
    await page.waitForTimeout(300); // the lab's height posted and applied
    const frame = await page.locator('iframe').evaluate((f) => f.getBoundingClientRect());
    assert.equal(frame.width, 1280);
    assert.equal(frame.height, reserved);
    assert.equal(
      await page.locator('#after').evaluate((p) => p.getBoundingClientRect().top),
      before,
    );
    assert.deepEqual(await shiftsSince(page, defined), []);
    await context.close();
  });

  test('the custom element: its placeholder holds the room of the lab, nothing below it moves', async () => {
    const snippet = here(blocks('html').find((b) => b.includes('gpus="16" seams="data,tensor"')));
    const context = await env.browser.newContext({ viewport: { width: 1296, height: 800 } });
    await context.addInitScript(watchShifts);
    const url = `${env.url}__test__/element-height.html`;
    await host(context, url, `${snippet}<p id="after">The chapter goes on.</p>`);
    const page = await context.newPage();
    await page.goto(url);
    // From the element's definition on (before it, the page shows the element's content, its
    // link, on a line: README.md says how a host keeps the room from the start).
    const defined = await page.evaluate(async () => {
      await customElements.whenDefined('parallelism-explorer');
      // Its placeholder drawn in place of the link: that frame's shift is before this.
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return performance.now();
    });
    const before = await page.locator('#after').evaluate((p) => p.getBoundingClientRect().top);
    await page.waitForSelector('parallelism-explorer[data-ready]');
    await settle(page);
    const box = await page
      .locator('parallelism-explorer .pe-lab')
      .evaluate((l) => l.getBoundingClientRect());
    assert.ok(box.height <= MAX_EMBED_PX, `${box.height} px`);
    assert.equal(
      await page.locator('#after').evaluate((p) => p.getBoundingClientRect().top),
      before,
    );
    assert.deepEqual(await shiftsSince(page, defined), []);
    await context.close();
  });
});
