// Shared by the browser tests and the renderer benchmark: bundles webview code with esbuild,
// serves it from a loopback server under the webview's CSP, and drives Debian's Chromium headless.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../launch/codeServer';
import { chromiumPath, ensureSystemPackages } from '../launch/system';
import { repoRoot } from '../launch/util';
import { seededRandom } from './random';

/**
 * Launches headless Chromium (`AQ_CHROMIUM`, else Debian's) with the flags the workbench uses too
 * (plus any extra). Installs Debian's Chromium first where it is missing and the run may (root and
 * apt), so `npm run bench` on a fresh machine works as `npm test` does.
 */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  await ensureSystemPackages(['chromium'], 'Driving headless Chromium');
  // Shared memory as Chromium uses it by default: the renderer's frame timings (tests and the
  // renderer bench) were measured that way; the workbench launcher's --disable-dev-shm-usage moves
  // it to files, which changes how frames are paced.
  const args = CHROMIUM_ARGS.filter((arg) => arg !== '--disable-dev-shm-usage');
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: [...args, ...extraArgs] });
}

/** Bundles a webview entry point (relative to the repository root) as an IIFE for the browser. */
export async function bundle(entry: string, options: { globalName?: string; minify?: boolean } = {}): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [path.join(repoRoot(), entry)],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: options.globalName,
    platform: 'browser',
    target: 'chrome120',
    minify: options.minify ?? false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** The files the test pages may load besides their scripts. */
export async function readAsset(relativePath: string): Promise<string> {
  return readFile(path.join(repoRoot(), relativePath), 'utf8');
}

interface Route {
  readonly type: string;
  readonly body: string | Buffer;
}

/** A binary file of the repository (fonts). */
export async function readBinaryAsset(relativePath: string): Promise<Buffer> {
  return readFile(path.join(repoRoot(), relativePath));
}

/** A loopback HTTP server on an ephemeral port that serves registered routes and counts requests. */
export class LoopbackServer {
  /** Every request path received, in order. */
  readonly requests: string[] = [];
  private readonly routes = new Map<string, Route>();
  private readonly server: http.Server;

  private constructor() {
    this.server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      this.requests.push(url);
      const route = this.routes.get(url.split('?')[0]);
      if (route === undefined) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'Content-Type': route.type, 'Cache-Control': 'no-store' }).end(route.body);
    });
  }

  /** Starts a server on 127.0.0.1, port 0. */
  static async start(): Promise<LoopbackServer> {
    const server = new LoopbackServer();
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.server.listen(0, '127.0.0.1', () => resolve());
    });
    return server;
  }

  /** `http://127.0.0.1:PORT` */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `body` at `pathname`. */
  route(pathname: string, type: string, body: string | Buffer): void {
    this.routes.set(pathname, { type, body });
  }

  /** Stops the server and drops open connections. */
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Options for {@link webviewPage}. */
export interface PageOptions {
  /** The server's origin (what `webview.cspSource` is in VS Code). */
  readonly origin: string;
  /** Scripts to load (server paths), in order, after the test stub. */
  readonly scripts: readonly string[];
  /** Stylesheets to load (server paths). */
  readonly styles?: readonly string[];
  /** `chat` or `panel`; sets `body[data-surface]`. */
  readonly surface?: string;
  /** The webview CSP, or none at all (to prove the sanitizer holds on its own). */
  readonly csp?: boolean;
  /** What `acquireVsCodeApi().getState()` returns. */
  readonly initialState?: unknown;
  /** Extra inline script run after the others (gets the nonce). */
  readonly inline?: string;
}

/**
 * A page shaped like the real webview: same CSP (nonce scripts only, no inline styles), `#root`,
 * and a stub `acquireVsCodeApi` that records posted messages in `window.__messages` and the state
 * in `window.__state`. `window.__pwned` starts false: hostile input sets it if anything runs.
 */
export function webviewPage(options: PageOptions): string {
  const nonce = randomBytes(16).toString('base64');
  const csp =
    options.csp === false
      ? ''
      : `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${options.origin} data:; style-src ${options.origin}; font-src ${options.origin}; script-src 'nonce-${nonce}';">`;
  const stub = `
    window.__pwned = false;
    window.__messages = [];
    window.__state = ${JSON.stringify(options.initialState ?? null)};
    let acquired = false;
    window.acquireVsCodeApi = () => {
      if (acquired) { throw new Error('acquireVsCodeApi called twice'); }
      acquired = true;
      return {
        postMessage: (message) => { window.__messages.push(JSON.parse(JSON.stringify(message))); },
        getState: () => window.__state === null ? undefined : window.__state,
        setState: (state) => { window.__state = JSON.parse(JSON.stringify(state)); return state; },
      };
    };`;
  const styles = (options.styles ?? []).map((href) => `<link href="${href}" rel="stylesheet">`).join('');
  const scripts = options.scripts.map((src) => `<script nonce="${nonce}" src="${src}"></script>`).join('');
  const inline = options.inline === undefined ? '' : `<script nonce="${nonce}">${options.inline}</script>`;
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">${csp}` +
    `<meta name="viewport" content="width=device-width, initial-scale=1.0">${styles}<title>test</title></head>` +
    `<body data-surface="${options.surface ?? 'chat'}"><div id="root"></div>` +
    `<script nonce="${nonce}">${stub}</script>${scripts}${inline}</body></html>`
  );
}

/**
 * Serves the webview's own assets as the real webview loads them: `/webview.js` (the webview
 * bundle), `/webview.css`, the codicon font and, with `renderer`, `/render.js` (the renderer as
 * `window.AQ`, for one-shot renders to compare with).
 */
export async function routeWebviewAssets(server: LoopbackServer, options: { renderer?: boolean } = {}): Promise<void> {
  server.route('/webview.js', 'text/javascript', await bundle('src/webview/main.ts'));
  if (options.renderer === true) {
    server.route('/render.js', 'text/javascript', await bundle('src/webview/render/index.ts', { globalName: 'AQ' }));
  }
  server.route('/webview.css', 'text/css', await readAsset('src/webview/webview.css'));
  server.route('/codicon.css', 'text/css', await readAsset('node_modules/@vscode/codicons/dist/codicon.css'));
  server.route('/codicon.ttf', 'font/ttf', await readBinaryAsset('node_modules/@vscode/codicons/dist/codicon.ttf'));
}

/** A page with the browser tests' probe bundle (test/browser/probe.ts) as `window.AQ`, under the webview CSP. */
export interface ProbePage {
  readonly server: LoopbackServer;
  readonly browser: Browser;
  readonly page: Page;
  close(): Promise<void>;
}

/** Starts a server and a browser and opens a {@link ProbePage}. */
export async function openProbePage(): Promise<ProbePage> {
  const server = await LoopbackServer.start();
  server.route('/probe.js', 'text/javascript', await bundle('test/browser/probe.ts', { globalName: 'AQ' }));
  server.route('/webview.css', 'text/css', await readAsset('src/webview/webview.css'));
  server.route('/', 'text/html', webviewPage({ origin: server.origin, scripts: ['/probe.js'], styles: ['/webview.css'] }));
  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(`${server.origin}/`);
  return {
    server,
    browser,
    page,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** Sizes of pieces that add up to at least `total`: mostly 1 to `small`, one in `rareOdds` up to `large` (seeded). */
export function randomPieces(seed: number, total: number, small: number, large: number, rareOdds: number): number[] {
  const random = seededRandom(seed);
  const pieces: number[] = [];
  for (let sum = 0; sum < total; ) {
    const size = 1 + Math.floor(random() * (random() < rareOdds ? large : small));
    pieces.push(size);
    sum += size;
  }
  return pieces;
}

/** What `render/index.ts` exposes as the `AQ` global in test pages (kept in step by the tests that use it). */
export interface RendererGlobal {
  IncrementalRenderer: new (container: HTMLElement, options?: PageRendererOptions) => Required<PageRenderer>;
  /** Only in the benchmark's page (bench/page.ts) and the tests' probe: how the webview's views follow their text (transcript.ts). */
  AutoScroller?: new (scroller: HTMLElement) => { update(): void };
  /** Only in the benchmark's page (bench/page.ts): the baseline that re-renders everything. */
  NaiveRenderer?: new (container: HTMLElement, options?: { scheduleFrame?: (callback: () => void) => void; onRender?: () => void }) => PageRenderer;
  renderMarkdownOnce: (text: string) => string;
  sanitizeHtml: (html: string) => string;
  attachContentHandlers: (root: HTMLElement, post: (message: unknown) => void) => void;
}

/** What a page's incremental renderer may be given (render/answer.ts, RendererOptions). */
export interface PageRendererOptions {
  scheduleFrame?: (callback: () => void) => void;
  onRender?: () => void;
  onDone?: () => void;
  openWhole?: () => void;
}

/** The renderer API as the page sees it. */
export interface PageRenderer {
  /** `queued`: how much more of the answer the host says it holds (the `append` message's count). */
  append(text: string, queued?: number): void;
  finish(): void;
  /** The answer has ended and all of it is rendered (the naive renderer has no such state). */
  readonly done?: boolean;
  flush?(): void;
  reset(text?: string): void;
}

declare global {
  interface Window {
    AQ: RendererGlobal;
    __messages: unknown[];
    __pwned: boolean;
    __state: unknown;
  }
}

export { seededRandom };
