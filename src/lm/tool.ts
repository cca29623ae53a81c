import * as vscode from 'vscode';
import { type ApplicationConfig, applicationLabel } from '../core/applications';
import { CONFIRM_ABOVE_CHARS, prepare, type QueryInput } from '../core/prepare';
import { withAbortSignal } from './api';
import { capText } from './conversation';
import type { LanguageModelDeps } from './deps';
import { markdownText } from '../core/plainText';

/** The tool's name and the name prompts use after `#` (fixed by package.json and the product contract). */
export const TOOL_NAME = 'applicationQuery_askApplication';

/** The most answer text a tool result carries (a model's context is precious); the rest is cut with a note. */
export const TOOL_RESULT_MAX_CHARS = 32 * 1024;
/** How much of the request body the confirmation shows. */
const PREVIEW_MAX_CHARS = 4000;

/** The tool's input, as its schema in package.json declares it. */
export interface AskApplicationInput {
  readonly application?: string;
  readonly question: string;
  readonly context?: string;
}

/**
 * `#askApplication` / agent mode: asks one of the user's applications a question, after the user
 * has seen which application, which service and what exactly will be sent, and agreed.
 */
export class AskApplicationTool implements vscode.LanguageModelTool<AskApplicationInput> {
  constructor(private readonly deps: LanguageModelDeps) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<AskApplicationInput>): vscode.PreparedToolInvocation {
    const app = this.application(options.input.application);
    if (app === undefined) return { invocationMessage: 'Looking for the application' };
    const label = applicationLabel(app);
    const prepared = prepare(toolQuery(app, options.input), {
      applications: this.deps.settings.applications().applications,
      defaultTemplate: this.deps.settings.defaultTemplate(),
      baseUrl: this.deps.settings.baseUrl(),
      confirmAboveChars: CONFIRM_ABOVE_CHARS,
    });
    // Nothing will be sent (the base URL or the template is wrong): invoke says why, no need to confirm.
    if (!prepared.ok) return { invocationMessage: `Asking ${label}` };
    const body = capText(JSON.stringify(prepared.body, null, 2) ?? '', PREVIEW_MAX_CHARS).text;
    const fence = '`'.repeat(Math.max(3, ...[...body.matchAll(/`+/g)].map((run) => run[0].length + 1)));
    const message = new vscode.MarkdownString(`Send this request to **${markdownText(label)}** at \`${prepared.origin}\`?\n\n${fence}json\n${body}\n${fence}`);
    message.isTrusted = false;
    message.supportHtml = false;
    return {
      invocationMessage: `Asking ${label}`,
      confirmationMessages: { title: `Ask ${label} at ${prepared.origin}?`, message },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<AskApplicationInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const result = (text: string): vscode.LanguageModelToolResult => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
    const input = options.input;
    const app = this.application(input.application);
    if (app === undefined) {
      const known = this.deps.settings.applications().applications.map((a) => `"${a.id}"${a.name ? ` (${a.name})` : ''}`).join(', ');
      return result(known === '' ? 'No applications are configured. The user can add one with "Application Query: Add Application…".' : `No application "${input.application ?? ''}". The configured applications are: ${known}.`);
    }
    let answer = '';
    const outcome = await withAbortSignal(token, (signal) =>
      this.deps.runner.run(toolQuery(app, input), [{ start: () => undefined, status: () => undefined, append: (text) => void (answer += text), end: () => undefined }], { surface: 'tool', signal, promptForKey: false }),
    );
    const label = applicationLabel(app);
    const capped = capText(answer, TOOL_RESULT_MAX_CHARS).text;
    if (outcome.kind === 'done') return result(outcome.warning === undefined ? capped : `${capped}\n\n[${this.deps.log.redact(outcome.warning)}]`);
    const failure = this.deps.log.redact(`${label} did not answer completely: ${outcome.message ?? outcome.kind}`);
    return result(answer === '' ? failure : `${capped}\n\n[${failure}]`);
  }

  /** The named application (by id, else by name, ignoring case), or the current one when none is named. */
  private application(named: string | undefined): ApplicationConfig | undefined {
    const apps = this.deps.settings.applications().applications;
    const wanted = named?.trim();
    if (wanted === undefined || wanted === '') {
      const current = this.deps.current.id;
      return apps.find((app) => app.id === current);
    }
    return apps.find((app) => app.id === wanted) ?? apps.find((app) => app.id.toLowerCase() === wanted.toLowerCase() || app.name?.toLowerCase() === wanted.toLowerCase());
  }
}

function toolQuery(app: ApplicationConfig, input: AskApplicationInput): QueryInput {
  const question = typeof input.question === 'string' ? input.question : '';
  const text = typeof input.context === 'string' ? input.context : '';
  return {
    applicationId: app.id,
    question,
    context: text === '' ? undefined : { kind: 'selection', label: 'Context', text, fileName: '', languageId: '', fileText: text },
  };
}
