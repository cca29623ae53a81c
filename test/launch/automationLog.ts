// What the workbench reports through `codeAutomationLog`: its own log lines and, once the suite
// runs, the extension host's console (mocha's reporter among it), each as a JSON list of the
// console call's arguments.
import { format } from 'node:util';

/** The line the integration suite prints before mocha starts; the launchers show output from here on. */
export const SUITE_START_MARKER = '--- application-query integration suite ---';

/** The workbench's own chatter that is never worth showing. */
const NOISE: readonly RegExp[] = [
  /^Ignoring fetching additional builtin extensions/,
  /^Updating additional builtin extensions cache/,
  /^\[AccountPolicyGate\]/,
];

/** Renders one `codeAutomationLog` message as text lines (printf-style arguments applied, as console.log would). */
export function automationLogLines(message: string): string[] {
  let text = message;
  try {
    const parsed: unknown = JSON.parse(message);
    if (Array.isArray(parsed)) text = format(...(parsed as unknown[]));
  } catch {
    // Not a JSON list: show it as it came.
  }
  return text.replace(/\n$/, '').split('\n');
}

/**
 * Decides which lines reach the console: before the suite starts only errors (the workbench's
 * start-up chatter is noise), afterwards everything but known noise. Every line is kept for a
 * failure report.
 */
export class SuiteLog {
  private started = false;
  /** Every line received, for the failure report. */
  readonly all: string[] = [];

  constructor(private readonly print: (line: string) => void) {}

  /** Feeds one `codeAutomationLog(type, message)` call. */
  add(type: string, message: string): void {
    for (const line of automationLogLines(message)) {
      this.all.push(`<${type}> ${line}`);
      if (line.includes(SUITE_START_MARKER)) {
        this.started = true;
        continue;
      }
      if (type === 'trace' || type === 'debug') continue;
      if (!this.started && type !== 'error') continue;
      if (NOISE.some((pattern) => pattern.test(line))) continue;
      this.print(type === 'error' && !this.started ? `(workbench error) ${line}` : line);
    }
  }

  /** Whether the suite printed its start marker. */
  get suiteStarted(): boolean {
    return this.started;
  }
}
