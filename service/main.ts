/**
 * `npm run service`: runs the reference service until Ctrl+C and prints how to use it from VS Code.
 * Options: --port N (default 8787, 0 = any free port), --pace MS, --seed S, --host H (loopback only).
 */
import { isLoopbackHost, startService, type ReferenceService } from './server';

interface CliOptions {
  port: number;
  paceMs?: number;
  seed?: string;
  host: string;
}

function usage(problem: string): never {
  process.stderr.write(`${problem}\nUsage: npm run service -- [--port N] [--pace MS] [--seed S] [--host 127.0.0.1]\n`);
  process.exit(2);
}

function parseArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { port: 8787, host: '127.0.0.1' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') {
        usage(`${flag} needs a value.`);
      }
      return v;
    };
    const int = (max: number): number => {
      const v = value();
      const n = Number(v);
      if (!/^\d+$/.test(v) || n > max) {
        usage(`${flag} must be a whole number from 0 to ${max}, not "${v}".`);
      }
      return n;
    };
    switch (flag) {
      case '--port': options.port = int(65535); break;
      case '--pace': options.paceMs = int(60_000); break;
      case '--seed': options.seed = value(); break;
      case '--host': options.host = value(); break;
      case '--help': case '-h': usage('Runs the Application Query reference service.'); break;
      default: usage(`Unknown option ${argv[i]}.`);
    }
  }
  if (!isLoopbackHost(options.host)) {
    usage(`Refusing --host ${options.host}: the reference service only listens on loopback (127.0.0.1, ::1, localhost).`);
  }
  return options;
}

function banner(service: ReferenceService, paceMs: number | undefined): string {
  const rows = service.applications.map((a) => [a.id, a.name, service.keyFor(a.id), a.behaviour]);
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c].length), ['id', 'name', 'key'][c].length));
  const line = (r: readonly string[]): string => `  ${r[0].padEnd(widths[0])}  ${r[1].padEnd(widths[1])}  ${r[2].padEnd(widths[2])}  ${r[3]}`;
  const shown = ['demo-assistant', 'sse-openai', 'echo', 'hostile'];
  const settings = [
    '    {',
    `      "applicationQuery.baseUrl": ${JSON.stringify(service.url)},`,
    '      "applicationQuery.applications": [',
    ...service.applications.filter((a) => shown.includes(a.id))
      .map((a, i, all) => `        ${JSON.stringify({ id: a.id, name: a.name })}${i < all.length - 1 ? ',' : ''}`),
    '      ]',
    '    }',
  ].join('\n');
  return [
    '',
    `Application Query reference service listening on ${service.url}  (pace ${paceMs ?? 30} ms)`,
    '',
    'Applications and their keys (fake, local, valid only for this seed):',
    '',
    line(['id', 'name', 'key', 'behaviour']),
    ...rows.map(line),
    '',
    'Use it from VS Code:',
    '  1. In your USER settings (settings.json), add:',
    settings,
    '     (any id from the table works; add the ones you want to try)',
    '  2. Run "Application Query: Set API Key…", pick Demo Assistant, paste its key from the table.',
    '  3. Select some code, right-click, "Query Application with Selection", and watch the answer stream.',
    '',
    'Or run "npm run demo" to start this service together with a VS Code that is already set up.',
    'Test-control routes (tests and the demo only): GET /__control/requests, POST /__control/reset, GET /__control/keys.',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  let service: ReferenceService;
  try {
    service = await startService({ port: options.port, host: options.host, paceMs: options.paceMs, seed: options.seed });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    process.stderr.write(code === 'EADDRINUSE'
      ? `Port ${options.port} is already in use. Pass --port 0 to pick a free port, or --port N.\n`
      : `Could not start the reference service: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  process.stdout.write(banner(service, options.paceMs));
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the reference service…\n`);
    service.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
