// `npm run demo`: the reference service plus a real VS Code (code-server 1.100.3) with the extension
// loaded from source, a sample workspace and settings pointing at the service; prints the address to
// open and what to do. Ctrl+C stops everything it started.
// Env: AQ_DEMO_PORT (code-server's port; default a free one), AQ_DEMO_SERVICE_PORT (default 8787, or
// a free port when that is taken), AQ_DEMO_EXIT_AFTER_READY=1 (check that it all works, then exit 0).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { startService, type ReferenceService } from '../service/server';
import { chromiumPath, openWorkbench, startCodeServer, workbenchUrl, type CodeServer } from '../test/launch/codeServer';
import { onTerminate, portIsFree, repoRoot, secondsSince } from '../test/launch/util';
import { makeWorkspace, type TempWorkspace } from '../test/launch/workspace';

const VERSION = '4.100.3';
/** The applications the demo configures, in picker order. */
const DEMO_APPS = ['demo-assistant', 'sse-openai', 'ndjson', 'echo', 'bulk', 'cutoff', 'stall', 'fail-401', 'fail-429', 'fail-500', 'hostile', 'judge', 'judge-malformed', 'judge-broken'];

const SAMPLE_FILES: Readonly<Record<string, string>> = {
  'src/cache.ts': [
    '// A tiny least-recently-used cache. Select a function, right-click, "Query Application with Selection".',
    'export class LruCache<K, V> {',
    '  private readonly entries = new Map<K, V>();',
    '',
    '  constructor(private readonly capacity: number) {}',
    '',
    '  get(key: K): V | undefined {',
    '    const value = this.entries.get(key);',
    '    if (value !== undefined) {',
    '      this.entries.delete(key);',
    '      this.entries.set(key, value);',
    '    }',
    '    return value;',
    '  }',
    '',
    '  set(key: K, value: V): void {',
    '    this.entries.delete(key);',
    '    this.entries.set(key, value);',
    '    if (this.entries.size > this.capacity) {',
    '      const oldest = this.entries.keys().next().value as K;',
    '      this.entries.delete(oldest);',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n'),
  'scripts/report.py': [
    '"""Summarise a CSV of orders by customer."""',
    'import csv',
    'from collections import defaultdict',
    '',
    '',
    'def totals(path):',
    '    result = defaultdict(float)',
    '    with open(path, newline="") as handle:',
    '        for row in csv.DictReader(handle):',
    '            result[row["customer"]] += float(row["amount"])',
    '    return dict(sorted(result.items(), key=lambda item: -item[1]))',
    '',
  ].join('\n'),
  // The checks for answers that vary (docs/checks.md), against the reference service's applications.
  'checks.aq.md': [
    '# Checks for answers that vary',
    '',
    'Run these from the Testing view. Set the keys of echo, demo-assistant and judge first.',
    '',
    '## Refund policy, judged',
    '- application: demo-assistant',
    '- runs: 3',
    '- expect: judged by judge: mentions "refund"',
    '- expect: max gap under 2s',
    '',
    'What is our refund policy?',
    '',
    '## Answers JSON',
    '- application: echo',
    '- expect: json',
    '- expect: json schema checks/answer.schema.json',
    '',
    'Give me the order as JSON.',
    '',
    '## Each topic',
    '- application: demo-assistant',
    '- cases: checks/topics.csv',
    '- expect: contains "{{topic}}"',
    '- expect: judged by judge: mentions "{{word}}"',
    '',
    'Tell me about {{topic}}.',
    '',
  ].join('\n'),
  'checks/answer.schema.json': `${JSON.stringify({ type: 'object', required: ['query'], properties: { query: { type: 'string', minLength: 1 } } }, null, 2)}\n`,
  'checks/topics.csv': ['topic,word', 'refunds,refunds', 'shipping,shipping', 'returns,holiday', ''].join('\n'),
  'README.md': [
    '# Application Query demo workspace',
    '',
    'Select some code, right-click it and choose **Query Application with Selection**,',
    'or open the **Application Query** view in the activity bar to chat.',
    '',
  ].join('\n'),
};

function envPort(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, not "${raw}"`);
  return port;
}

async function startDemoService(): Promise<ReferenceService> {
  const wanted = envPort('AQ_DEMO_SERVICE_PORT') ?? 8787;
  const port = wanted !== 0 && !(await portIsFree(wanted)) ? 0 : wanted;
  if (port !== wanted) console.log(`port ${wanted} is taken; the service uses a free port instead`);
  return startService({ port, quiet: true });
}

/** Checks what a person would see first: the workbench loads and shows the extension's activity bar entry. */
async function verifyInBrowser(server: CodeServer, folder: string, extensionPath: string): Promise<void> {
  const page = await fetch(`${server.url}/`);
  if (page.status !== 200) throw new Error(`the workbench answered HTTP ${page.status}`);
  if (!existsSync(chromiumPath())) {
    console.log(`(no Chromium at ${chromiumPath()}: checked the HTTP answer only)`);
    return;
  }
  const opened = await openWorkbench(server.url, { folder, extensionPath });
  try {
    await opened.page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 120_000 });
    await opened.page.locator('.part.activitybar .action-item a.action-label[aria-label^="Application Query"]').first().waitFor({ state: 'visible', timeout: 120_000 });
  } finally {
    await opened.close();
  }
}

function instructions(url: string, service: ReferenceService, apps: readonly { id: string; name: string }[]): string {
  const width = Math.max(...apps.map((a) => a.name.length));
  const keyRows = apps.map((a) => `    ${a.name.padEnd(width)}  ${service.keyFor(a.id)}`);
  return [
    '',
    '================================================================================',
    ' Application Query demo is running',
    '================================================================================',
    '',
    ' 1. Open this address in your browser (it loads the extension from source):',
    '',
    `    ${url}`,
    '',
    ' 2. Open src/cache.ts, select the get() method, right-click the selection and choose',
    '    "Query Application with Selection".',
    ' 3. Pick "Demo Assistant". When asked for the API key, paste its key from below',
    '    (or run "Application Query: Set API Key…" from the command palette first).',
    ' 4. Watch the answer stream in. Try the other applications too: OpenAI-style SSE,',
    '    NDJSON, a cut-off stream, a 401 (revoked key), a 429, a 500.',
    '',
    ` API keys (fake, local; the reference service at ${service.url}):`,
    ...keyRows,
    '',
    ' Press Ctrl+C to stop the demo (service, VS Code, temporary files).',
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  const started = Date.now();
  const root = repoRoot();
  if (!existsSync(path.join(root, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing: run "npm run build" first (npm run demo does)');
  const exitAfterReady = process.env.AQ_DEMO_EXIT_AFTER_READY === '1';

  let service: ReferenceService | undefined;
  let workspace: TempWorkspace | undefined;
  let server: CodeServer | undefined;
  const stop = async (): Promise<void> => {
    await server?.close();
    await workspace?.dispose();
    await service?.close();
    server = undefined;
    workspace = undefined;
    service = undefined;
  };
  let stopping = false;
  onTerminate(async () => {
    stopping = true;
    console.log('\nstopping the demo…');
    await stop();
  });

  try {
    service = await startDemoService();
    const apps = DEMO_APPS.flatMap((id) => service?.applications.filter((a) => a.id === id).map(({ id: appId, name }) => ({ id: appId, name })) ?? []);
    workspace = await makeWorkspace(SAMPLE_FILES, 'aq-demo-');
    server = await startCodeServer({
      version: VERSION,
      folder: workspace.folder,
      port: envPort('AQ_DEMO_PORT') || undefined,
      userSettings: {
        'applicationQuery.baseUrl': service.url,
        'applicationQuery.applications': apps,
      },
    });
    const url = workbenchUrl(server.url, { folder: workspace.folder, extensionPath: root });
    if (exitAfterReady) {
      await verifyInBrowser(server, workspace.folder, root);
      console.log(`demo ready in ${secondsSince(started)} s: service ${service.url}, VS Code ${server.url} (extension loaded); exiting as AQ_DEMO_EXIT_AFTER_READY=1 asks`);
      await stop();
      return 0;
    }
    console.log(instructions(url, service, apps));
    // Runs until Ctrl+C / SIGTERM (handled by onTerminate) or until code-server dies.
    await server.exited;
    if (stopping) return 130;
    console.log('code-server stopped unexpectedly; ending the demo');
    await stop();
    return 1;
  } catch (error) {
    await stop();
    throw error;
  }
}

if (require.main === module) {
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
