import { HELP, parseCommand } from './args';
import { EXIT, runTests } from './run';

/** Set by the build from the package's version. */
declare const AQ_CLI_VERSION: string | undefined;

/** The command line's entry: reads the arguments, runs, and exits with the status the run gives. */
async function main(): Promise<number> {
  const command = parseCommand(process.argv.slice(2));
  switch (command.kind) {
    case 'version':
      process.stdout.write(`${typeof AQ_CLI_VERSION === 'string' ? AQ_CLI_VERSION : 'development'}\n`);
      return EXIT.passed;
    case 'help':
      process.stdout.write(HELP);
      return EXIT.passed;
    case 'usage':
      process.stderr.write(`application-query: ${command.message}\n`);
      return EXIT.unusable;
    case 'test': {
      const interrupt = new AbortController();
      // The first Ctrl+C stops every request and lets the run report what ran; a second one leaves at once.
      const onInterrupt = (): void => {
        if (interrupt.signal.aborted) process.exit(EXIT.failed);
        process.stderr.write('\napplication-query: interrupted; stopping every request (Ctrl+C again to leave at once)\n');
        interrupt.abort();
      };
      process.on('SIGINT', onInterrupt);
      process.on('SIGTERM', onInterrupt);
      try {
        return await runTests(command.options, { cwd: process.cwd(), env: process.env, stdout: process.stdout, stderr: process.stderr, interrupt: interrupt.signal });
      } finally {
        process.off('SIGINT', onInterrupt);
        process.off('SIGTERM', onInterrupt);
      }
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** Leaves once what was written has been handed on (idle connections kept alive would otherwise hold the process for seconds). */
function exit(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main().then(exit, (error: unknown) => {
  process.stderr.write(`application-query: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  exit(EXIT.unusable);
});
