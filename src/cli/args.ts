import { parseArgs } from 'node:util';

/** What `application-query test` was asked to do. */
export interface TestOptions {
  readonly paths: readonly string[];
  readonly settings?: string;
  readonly environment: string;
  readonly reporter: 'console' | 'junit' | 'json';
  readonly output?: string;
  readonly grep?: string;
  readonly concurrency?: number;
  readonly saveAnswers?: string;
  readonly compareAnswers?: string;
}

/** What the command line was asked: a test run, the version, the help, or a usage error (one line). */
export type Command = { readonly kind: 'test'; readonly options: TestOptions } | { readonly kind: 'version' } | { readonly kind: 'help' } | { readonly kind: 'usage'; readonly message: string };

/** The help text. */
export const HELP = `Usage: application-query test [paths or globs…] [options]

Runs the queries of query files (*.aq.md) against their applications and checks their
expectations, as VS Code's Testing view does. Without paths: every *.aq.md under the current
folder (node_modules and .git skipped).

Options:
  --settings <file>         a VS Code settings file to read applicationQuery.* settings from
  --env <name>              the environment (applicationQuery.environments) for queries that name none
  --reporter <name>         console (default), junit or json
  --output <file>           where the junit or json report goes (default: standard output)
  --grep <text>             only queries whose name contains the text (any case)
  --concurrency <n>         queries sent to one service at a time, 1-16 (default: the settings', else 4)
  --save-answers <dir>      write each answer (keys masked) to a file under <dir>
  --compare-answers <dir>   report which answers changed against such a folder, with a diff
  --version                 print the version
  --help                    print this help

Environment:
  APPLICATION_QUERY_BASE_URL         the base URL, over the settings file's
  APPLICATION_QUERY_KEY_<ID>         the key of one application (id upper-cased, other characters as _)
  APPLICATION_QUERY_KEY              the key of every application without its own
  NO_COLOR                           no colour (colour is used only on a terminal, never when CI is set)

Exit status: 0 every query passed, 1 any failed, was not sent or was stopped (Ctrl+C), 2 nothing could run.
`;

/** Reads the command line (`argv` without node and the script). */
export function parseCommand(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        settings: { type: 'string' },
        env: { type: 'string' },
        reporter: { type: 'string' },
        output: { type: 'string' },
        grep: { type: 'string' },
        concurrency: { type: 'string' },
        'save-answers': { type: 'string' },
        'compare-answers': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return { kind: 'usage', message: `${error instanceof Error ? error.message : String(error)} (see --help)` };
  }
  const { values, positionals } = parsed;
  if (values.version === true) return { kind: 'version' };
  if (values.help === true || positionals.length === 0) return positionals.length === 0 && values.help !== true ? { kind: 'usage', message: 'Missing the command: application-query test [paths or globs…] (see --help)' } : { kind: 'help' };
  const [command, ...paths] = positionals;
  if (command !== 'test') return { kind: 'usage', message: `Unknown command "${command}": the command is "test" (see --help)` };
  const reporter = values.reporter ?? 'console';
  if (reporter !== 'console' && reporter !== 'junit' && reporter !== 'json') return { kind: 'usage', message: `Unknown reporter "${reporter}": console, junit or json` };
  if (values.output !== undefined && reporter === 'console') return { kind: 'usage', message: '--output is for --reporter junit or json' };
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) return { kind: 'usage', message: `--concurrency must be a whole number from 1 to 16, not "${values.concurrency}"` };
  }
  return {
    kind: 'test',
    options: {
      paths,
      environment: values.env ?? '',
      reporter,
      ...(values.settings === undefined ? {} : { settings: values.settings }),
      ...(values.output === undefined ? {} : { output: values.output }),
      ...(values.grep === undefined ? {} : { grep: values.grep }),
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(values['save-answers'] === undefined ? {} : { saveAnswers: values['save-answers'] }),
      ...(values['compare-answers'] === undefined ? {} : { compareAnswers: values['compare-answers'] }),
    },
  };
}
