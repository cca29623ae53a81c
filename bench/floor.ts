// The floor under an answer's stalls in the real workbench: a page that renders nothing. The
// workbench bench streams the same answer into the real answer panel and into this page,
// alternated in one run, and prints the stalls of both side by side: what the page's rendering
// adds shows as the difference, and what stalls the floor too is the rest of the machine
// (the extension host, code-server relaying messages, the browser's other work, the busy core).
//
// The page is the extension's own webview with its script swapped: the bench links a copy of the
// extension into code-server whose `dist/webview.js` is a real file the bench rewrites (everything
// else is linked to the working tree), and a reload of the webviews makes the panel run it. A
// webview's resources come through VS Code's own file service, not the network, so a browser route
// cannot serve them.
import { copyFile, lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The floor's script. Its protocol handling (src/shared/protocol.ts) is all in here, as little as
 * the extension host needs to pass the whole answer into it: `ready` first (the host posts nothing
 * to a webview before it). The host waits for nothing else from a page: every byte of the answer
 * crosses (its Outgoing keeps one batch in flight, settled once the webview took the message),
 * as it would into a page that shows all of it. Everything else, the text too, is dropped.
 * `body[data-floor]` says it runs.
 */
export const FLOOR_SCRIPT = `(() => {
  const host = acquireVsCodeApi();
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (message === null || typeof message !== 'object') return;
    if (message.type === 'state') document.body.dataset.floor = 'state';
  });
  document.body.dataset.floor = 'ready';
  host.postMessage({ type: 'ready' });
})();
`;

/** The script a webview of the linked copy runs: the real bundle, or the floor. */
export type WebviewScript = 'real' | 'floor';

/** A copy of the extension to link into code-server, whose webview script the bench can swap. */
export interface SwappableExtension {
  /** The folder to link as the extension. */
  readonly folder: string;
  /** Makes `dist/webview.js` the real bundle or the floor; webviews run it from their next load. */
  use(script: WebviewScript): Promise<void>;
  /** Removes the copy. */
  dispose(): Promise<void>;
}

/**
 * Makes the copy of the extension at `root`: every top-level entry linked but `dist`, which is a
 * folder of links but for `webview.js`, a copy of the real bundle until {@link SwappableExtension.use}.
 */
export async function swappableExtension(root: string): Promise<SwappableExtension> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'aq-bench-extension-'));
  const skip = new Set(['dist', '.git', 'out']);
  for (const entry of await readdir(root)) {
    if (!skip.has(entry)) await symlink(path.join(root, entry), path.join(folder, entry));
  }
  const dist = path.join(root, 'dist');
  await mkdir(path.join(folder, 'dist'));
  for (const entry of await readdir(dist)) {
    if (entry === 'webview.js') continue;
    const stat = await lstat(path.join(dist, entry));
    await symlink(path.join(dist, entry), path.join(folder, 'dist', entry), stat.isDirectory() ? 'dir' : 'file');
  }
  const script = path.join(folder, 'dist', 'webview.js');
  await copyFile(path.join(dist, 'webview.js'), script);
  let current: WebviewScript = 'real';
  return {
    folder,
    use: async (wanted) => {
      if (wanted === current) return;
      if (wanted === 'floor') await writeFile(script, FLOOR_SCRIPT);
      else await copyFile(path.join(dist, 'webview.js'), script);
      current = wanted;
    },
    dispose: () => rm(folder, { recursive: true, force: true }),
  };
}
