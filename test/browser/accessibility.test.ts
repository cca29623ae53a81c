// Accessibility of the three webviews (the answer panel, the sidebar Chat view, Compare) in headless
// Chromium, each under the webview's CSP with the protocol's messages as the extension host sends
// them, themed as VS Code's default dark theme themes a webview, showing a long answer with code
// blocks, tables and lists, and a failed answer:
// - axe-core finds no violation of impact serious or critical;
// - the keyboard alone reaches the send box, Stop, Retry and Copy, and Compare's "Diff with…";
// - a streaming answer is announced politely: one polite live region, quiet while the text streams
//   (the answer's text is in no live region), one announcement when the answer ends.
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import type { ApplicationInfo, HostToWebview, SurfaceState, Turn } from '../../src/shared/protocol';
import { launchBrowser, LoopbackServer, routeWebviewAssets, webviewPage } from '../support/browser';
import { longShapes } from '../support/shapes';

const APPS: ApplicationInfo[] = [
  { id: 'docs', label: 'Docs Bot', hasKey: true },
  { id: 'review', label: 'Reviewer', hasKey: true },
  { id: 'summary', label: 'Summarizer', hasKey: true },
];

/**
 * VS Code's default theme (Dark Modern) as it reaches a webview: its colours as variables on
 * <html>, the body's class, and the body's colours and font from VS Code's default webview styles.
 */
const DARK_MODERN: Readonly<Record<string, string>> = {
  '--vscode-font-family': 'system-ui, sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-font-weight': 'normal',
  '--vscode-editor-font-family': 'monospace',
  '--vscode-editor-font-size': '14px',
  '--vscode-foreground': '#cccccc',
  '--vscode-descriptionForeground': '#9d9d9d',
  '--vscode-errorForeground': '#f85149',
  '--vscode-icon-foreground': '#cccccc',
  '--vscode-focusBorder': '#0078d4',
  '--vscode-editor-background': '#1f1f1f',
  '--vscode-editor-foreground': '#cccccc',
  '--vscode-editor-inactiveSelectionBackground': '#3a3d41',
  '--vscode-badge-background': '#616161',
  '--vscode-badge-foreground': '#f8f8f8',
  '--vscode-button-background': '#0078d4',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-hoverBackground': '#026ec1',
  '--vscode-button-border': '#ffffff12',
  '--vscode-button-secondaryBackground': '#313131',
  '--vscode-button-secondaryForeground': '#cccccc',
  '--vscode-button-secondaryHoverBackground': '#3c3c3c',
  '--vscode-toolbar-hoverBackground': '#5a5d5e50',
  '--vscode-input-background': '#313131',
  '--vscode-input-foreground': '#cccccc',
  '--vscode-input-border': '#3c3c3c',
  '--vscode-input-placeholderForeground': '#989898',
  '--vscode-dropdown-background': '#313131',
  '--vscode-dropdown-foreground': '#cccccc',
  '--vscode-dropdown-border': '#3c3c3c',
  '--vscode-inputValidation-errorBackground': '#5a1d1d',
  '--vscode-inputValidation-errorBorder': '#be1100',
  '--vscode-inputValidation-warningBackground': '#352a05',
  '--vscode-inputValidation-warningBorder': '#b89500',
  '--vscode-editorWarning-foreground': '#cca700',
  '--vscode-panel-border': '#2b2b2b',
  '--vscode-widget-border': '#313131',
  '--vscode-textLink-foreground': '#4daafc',
  '--vscode-textLink-activeForeground': '#4daafc',
  '--vscode-textCodeBlock-background': '#2b2b2b',
  '--vscode-textPreformat-foreground': '#d0d0d0',
  '--vscode-textPreformat-background': '#3c3c3c',
  '--vscode-textBlockQuote-background': '#2b2b2b',
  '--vscode-textBlockQuote-border': '#616161b3',
  '--vscode-chat-requestBackground': '#1f1f1f9e',
  '--vscode-chat-requestBorder': '#ffffff1a',
  '--vscode-symbolIcon-classForeground': '#ee9d28',
  '--vscode-symbolIcon-functionForeground': '#b180d7',
  '--vscode-symbolIcon-keywordForeground': '#cccccc',
  '--vscode-symbolIcon-namespaceForeground': '#cccccc',
  '--vscode-symbolIcon-propertyForeground': '#cccccc',
  '--vscode-symbolIcon-variableForeground': '#75beff',
  '--vscode-debugTokenExpression-name': '#c586c0',
  '--vscode-debugTokenExpression-string': '#ce9178',
  '--vscode-debugTokenExpression-number': '#b5cea8',
  '--vscode-debugTokenExpression-boolean': '#4e94ce',
  '--vscode-gitDecoration-addedResourceForeground': '#81b88b',
  '--vscode-gitDecoration-deletedResourceForeground': '#c74e39',
  '--vscode-diffEditor-insertedTextBackground': '#9ccc2c33',
  '--vscode-diffEditor-removedTextBackground': '#ff000033',
};

/** A long answer: an introduction with a link, then headings, paragraphs, code blocks, lists, quotes and tables. */
const LONG_ANSWER = `Here is the overview, with [the guide](https://example.com/guide) and \`inline code\`.\n\n${longShapes(24 * 1024, 7).blocks}\n| Setting | Default | Meaning |\n| --- | :---: | ---: |\n| timeout | 30 s | how long to wait |\n| retries | 2 | how often to try again |\n\nThat is all.\n`;

/** The failed answer's end: what the service said, with Retry offered. */
const FAILURE = { status: 'error', httpStatus: 502, message: 'The service failed to answer (HTTP 502 Bad Gateway).', retryable: true } as const;

/** One element the keyboard reached: what a screen reader names it by, and its action. */
interface Stop {
  readonly tag: string;
  readonly name: string;
  readonly action: string;
}

/** An axe-core violation as printed on failure: its rule, impact, and the elements it found. */
interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

function turn(id: string, role: Turn['role'], text: string, extra: Partial<Turn> = {}): Turn {
  return { id, role, applicationId: 'docs', text, status: role === 'user' ? 'done' : 'streaming', startedAt: Date.now(), ...extra };
}

function state(surface: SurfaceState['surface'], turns: Turn[], title = 'Docs Bot: explain the cache layer'): SurfaceState {
  return { surface, title, applications: APPS, currentApplicationId: 'docs', turns, attachments: [] };
}

describe('accessibility of the answer panel, the Chat view and Compare in Chromium (axe-core, keyboard, announcements)', function () {
  this.timeout(180_000);
  let server: LoopbackServer;
  let browser: Browser;
  let page: Page | undefined;
  let axeSource = '';
  let pages = 0;

  const cspViolations = `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`;

  before(async () => {
    server = await LoopbackServer.start();
    await routeWebviewAssets(server);
    axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  afterEach(async () => {
    if (page === undefined) return;
    const found = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
    await page.close();
    page = undefined;
    assert.deepEqual(found, [], 'no CSP violations (no inline styles, nothing remote)');
  });

  /** A webview page of `surface`, themed, after its `ready`. */
  async function open(surface: SurfaceState['surface'], width: number, height: number): Promise<Page> {
    const pathname = `/${surface}-a11y-${++pages}`;
    server.route(pathname, 'text/html', webviewPage({ origin: server.origin, surface, scripts: ['/webview.js'], styles: ['/codicon.css', '/webview.css'] }));
    const created = await browser.newPage({ viewport: { width, height } });
    await created.addInitScript(cspViolations);
    await created.goto(`${server.origin}${pathname}`);
    await created.waitForFunction(() => window.__messages.length > 0);
    // As VS Code themes a webview: the theme's kind on body, its colours as variables on <html>,
    // the body's colours and font from its default styles (CSSOM, which the CSP allows).
    await created.evaluate((vars) => {
      document.body.classList.add('vscode-dark');
      document.body.dataset.vscodeThemeKind = 'vscode-dark';
      for (const [name, value] of Object.entries(vars)) document.documentElement.style.setProperty(name, value);
      Object.assign(document.body.style, { backgroundColor: 'var(--vscode-editor-background)', color: 'var(--vscode-foreground)', fontFamily: 'var(--vscode-font-family)', fontSize: 'var(--vscode-font-size)' });
    }, DARK_MODERN);
    return created;
  }

  async function send(target: Page, ...list: HostToWebview[]): Promise<void> {
    await target.evaluate((all) => {
      for (const m of all) window.postMessage(m, '*');
    }, list);
  }

  /**
   * Streams `text` into `turnId` in pieces of 240 characters, two a frame (as the host's bridge
   * batches them), while watching every live region of the page; returns how many pieces went and
   * how many times a live region changed meanwhile.
   */
  async function streamWatched(target: Page, turnId: string, text: string): Promise<{ pieces: number; liveChanges: number }> {
    return target.evaluate(
      async ({ turnId, text }) => {
        const live = [...document.querySelectorAll('[aria-live]:not([aria-live="off"]), [role="status"], [role="log"], [role="alert"]')];
        let liveChanges = 0;
        const observer = new MutationObserver((records) => (liveChanges += records.length));
        for (const region of live) observer.observe(region, { childList: true, subtree: true, characterData: true });
        const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        let pieces = 0;
        for (let at = 0; at < text.length; at += 240) {
          window.postMessage({ type: 'append', turnId, text: text.slice(at, at + 240) }, '*');
          if (++pieces % 2 === 0) await frame();
        }
        for (let i = 0; i < 5; i++) await frame();
        observer.disconnect();
        return { pieces, liveChanges };
      },
      { turnId, text },
    );
  }

  /**
   * What announces the answers: exactly one polite live region, and no live region around the
   * answers' text (a screen reader would read every piece as it arrives).
   */
  async function checkLiveRegions(target: Page): Promise<string> {
    const found = await target.evaluate(() => {
      const regions = [...document.querySelectorAll('[aria-live]:not([aria-live="off"]), [role="status"], [role="log"], [role="alert"], [role="marquee"], [role="timer"]')];
      const polite = regions.filter((region) => region.getAttribute('aria-live') === 'polite');
      const aroundText = [...document.querySelectorAll('.aq-answer')].filter((answer) => regions.some((region) => region.contains(answer))).length;
      return { regions: regions.length, polite: polite.length, aroundText, role: polite[0]?.getAttribute('role') ?? '' };
    });
    assert.equal(found.polite, 1, `one polite live region: ${JSON.stringify(found)}`);
    assert.equal(found.regions, 1, `and no other live region: ${JSON.stringify(found)}`);
    assert.equal(found.aroundText, 0, 'no answer text inside a live region');
    return (await target.locator('[aria-live="polite"]').textContent()) ?? '';
  }

  /**
   * Presses Tab from the top of the page until focus comes back to where it started (or 600
   * presses): every element the keyboard reached, in order, by its accessible name.
   */
  async function tabOrder(target: Page): Promise<Stop[]> {
    await target.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      window.scrollTo(0, 0);
    });
    const stops: Stop[] = [];
    for (let i = 0; i < 600; i++) {
      await target.keyboard.press('Tab');
      const stop = await target.evaluate(() => {
        const element = document.activeElement;
        if (element === null || element === document.body) return undefined;
        const label = element.getAttribute('aria-label') ?? element.textContent ?? '';
        return { tag: element.tagName.toLowerCase(), name: label.trim().slice(0, 80), action: element.getAttribute('data-action') ?? '' };
      });
      if (stop === undefined) break;
      if (stops.length > 0 && stop.tag === stops[0].tag && stop.name === stops[0].name && stop.action === stops[0].action) break;
      stops.push(stop);
    }
    return stops;
  }

  function reached(stops: readonly Stop[], what: Partial<Stop>): boolean {
    return stops.some((stop) => (what.tag === undefined || stop.tag === what.tag) && (what.name === undefined || stop.name === what.name) && (what.action === undefined || stop.action === what.action));
  }

  function assertReached(stops: readonly Stop[], wanted: ReadonlyArray<Partial<Stop>>): void {
    const summary = stops.map((stop) => `${stop.tag}${stop.action === '' ? '' : `[${stop.action}]`} "${stop.name}"`).join(', ');
    for (const what of wanted) assert.ok(reached(stops, what), `Tab reaches ${JSON.stringify(what)}; it reached: ${summary}`);
  }

  /** axe-core over the whole page: the violations of impact serious or critical. */
  async function seriousViolations(target: Page): Promise<Violation[]> {
    // Evaluated through the driver, as the CSP takes no script without the page's nonce.
    await target.evaluate(axeSource);
    return target.evaluate(async () => {
      type AxeResult = { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> };
      const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResult> } }).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, targets: violation.nodes.slice(0, 8).map((node) => node.target.map(String).join(' ')) }));
    });
  }

  function assertNoSeriousViolation(violations: readonly Violation[]): void {
    const report = violations.map((violation) => `${violation.id} (${violation.impact}: ${violation.help}) at ${violation.targets.join(' | ')}`).join('\n');
    assert.deepEqual(violations.map((violation) => violation.id), [], `axe-core found serious or critical violations:\n${report}`);
  }

  /** Waits until the answer `turnId` has ended and all of it is rendered. */
  async function rendered(target: Page, turnId: string): Promise<void> {
    await target.waitForFunction((id) => document.querySelector(`[data-turn-id="${id}"][data-role="assistant"], [data-turn-id="${id}"] [data-role="assistant"]`)?.getAttribute('aria-busy') === 'false', turnId, { timeout: 60_000 });
  }

  it('the answer panel: a long answer that fails at its end; no serious violation, Stop, Retry and Copy by keyboard, one polite announcement', async () => {
    page = await open('panel', 900, 700);
    await send(page, { type: 'state', state: state('panel', [turn('q1', 'user', 'Explain the cache layer\nin detail')]) }, { type: 'turnStart', turn: turn('a1', 'assistant', '') });
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    const streamed = await streamWatched(page, 'a1', LONG_ANSWER);
    assert.equal(await checkLiveRegions(page), '', 'nothing announced while the answer streams');
    assert.equal(streamed.liveChanges, 0, `no live region changed while ${streamed.pieces} pieces streamed`);
    assertReached(await tabOrder(page), [{ action: 'stop', name: 'Stop' }, { action: 'copy-answer' }, { action: 'copy' }]);

    await send(page, { type: 'status', turnId: 'a1', httpStatus: 502 }, { type: 'turnEnd', turnId: 'a1', ...FAILURE });
    await page.locator('[data-role="error"]').waitFor();
    await rendered(page, 'a1');
    assert.equal(await checkLiveRegions(page), 'Request failed: HTTP 502', 'the end is announced once');
    assertReached(await tabOrder(page), [{ action: 'retry' }, { action: 'copy-answer' }, { action: 'export' }]);
    assert.ok((await page.locator('.aq-answer table').count()) > 0 && (await page.locator('.aq-answer .aq-code').count()) > 0, 'tables and code blocks are shown');
    assertNoSeriousViolation(await seriousViolations(page));
  });

  it('the Chat view: a long answer, then a failed one; no serious violation, the send box, Stop, Retry and Copy by keyboard, one polite announcement each', async () => {
    page = await open('chat', 420, 700);
    await send(page, { type: 'state', state: state('chat', []) });
    await send(page, { type: 'turnStart', turn: turn('q1', 'user', 'Explain the cache layer') }, { type: 'turnStart', turn: turn('a1', 'assistant', '') });
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    const streamed = await streamWatched(page, 'a1', LONG_ANSWER);
    assert.equal(await checkLiveRegions(page), '', 'nothing announced while the answer streams');
    assert.equal(streamed.liveChanges, 0, `no live region changed while ${streamed.pieces} pieces streamed`);
    assertReached(await tabOrder(page), [{ tag: 'textarea', name: 'Ask the application' }, { action: 'stop', name: 'Stop' }, { action: 'copy-message' }, { tag: 'select' }]);

    await send(page, { type: 'turnEnd', turnId: 'a1', status: 'done' });
    await rendered(page, 'a1');
    assert.equal(await checkLiveRegions(page), 'Answer complete');
    await send(page, { type: 'turnStart', turn: turn('q2', 'user', 'And the retries?') }, { type: 'turnStart', turn: turn('a2', 'assistant', '') });
    await send(page, { type: 'status', turnId: 'a2', httpStatus: 502 }, { type: 'turnEnd', turnId: 'a2', ...FAILURE });
    await page.locator('[data-turn-id="a2"] [data-role="error"]').waitFor();
    assert.equal(await checkLiveRegions(page), 'Request failed: HTTP 502');
    assertReached(await tabOrder(page), [{ tag: 'textarea', name: 'Ask the application' }, { action: 'send', name: 'Send' }, { action: 'retry' }, { action: 'copy-message' }]);
    assert.ok((await page.locator('.aq-answer table').count()) > 0 && (await page.locator('.aq-answer .aq-code').count()) > 0, 'tables and code blocks are shown');
    assertNoSeriousViolation(await seriousViolations(page));
  });

  it('Compare: a long answer, a failed one and a streaming one side by side; no serious violation, Stop, Copy and Diff with… by keyboard, one announcement per column', async () => {
    page = await open('compare', 1400, 800);
    const column = (id: string, applicationId: string): Turn => ({ ...turn(id, 'assistant', ''), applicationId });
    await send(page, { type: 'state', state: state('compare', [turn('q', 'user', 'Explain the cache layer'), column('c1', 'docs'), column('c2', 'review'), column('c3', 'summary')], 'Compare: Explain the cache layer') });
    await page.locator('section[data-role="column"]').nth(2).waitFor();
    const streamed = await streamWatched(page, 'c1', LONG_ANSWER);
    assert.equal(await checkLiveRegions(page), '', 'nothing announced while the answers stream');
    assert.equal(streamed.liveChanges, 0, `no live region changed while ${streamed.pieces} pieces streamed`);
    await send(page, { type: 'turnEnd', turnId: 'c1', status: 'done' }, { type: 'status', turnId: 'c2', httpStatus: 502 }, { type: 'turnEnd', turnId: 'c2', ...FAILURE }, { type: 'append', turnId: 'c3', text: 'Still **writing**…' });
    await page.locator('section[data-turn-id="c2"] [data-role="error"]').waitFor();
    await rendered(page, 'c1');
    assert.equal(await checkLiveRegions(page), 'Docs Bot: Answer completeReviewer: Request failed: HTTP 502', 'each ended column announced once');
    assertReached(await tabOrder(page), [
      { action: 'stop', name: 'Stop All' },
      { action: 'stop', name: 'Stop Summarizer' },
      { action: 'diff', name: 'Diff with… (the answer of Docs Bot against another)' },
      { action: 'copy-answer', name: 'Copy the answer of Reviewer' },
      { action: 'retry' },
    ]);
    assert.ok((await page.locator('.aq-answer table').count()) > 0 && (await page.locator('.aq-answer .aq-code').count()) > 0, 'tables and code blocks are shown');
    assertNoSeriousViolation(await seriousViolations(page));
  });
});
