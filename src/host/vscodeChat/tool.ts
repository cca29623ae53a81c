import * as vscode from 'vscode';
import { type ApplicationConfig, applicationLabel } from '../../shared/applications';
import { CONFIRM_ABOVE_CHARS, prepare, type QueryInput } from '../../shared/prepare';
import { withAbortSignal } from '../platform/cancellation';
import { capText } from '../../shared/conversation';
import type { LanguageModelDeps } from './deps';
import { plain, plainMarkdown } from '../../shared/plainText';

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

/** What the user confirmed: the request the tool may send for one input, and nothing else. */
interface Confirmed {
  readonly applicationId: string;
  /** The service's base URL: two environments on one origin are two services. */
  readonly baseUrl: string;
  readonly bodyText: string;
}

/** How many confirmed inputs wait for their invocation at most (the oldest is forgotten first). */
const MAX_CONFIRMED = 16;

/**
 * `#askApplication` / agent mode: asks one of the user's applications a question, after the user
 * has seen which application, which service and what exactly will be sent, and agreed. The
 * confirmation binds: `invoke` sends the very request `prepareInvocation` showed (application,
 * service base URL, body text), or nothing, with a result that says why.
 */
export class AskApplicationTool implements vscode.LanguageModelTool<AskApplicationInput> {
  private readonly confirmed = new Map<string, Confirmed>();

  constructor(private readonly deps: LanguageModelDeps) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<AskApplicationInput>): vscode.PreparedToolInvocation {
    const key = inputKey(options.input);
    this.confirmed.delete(key);
    const app = this.application(options.input.application);
    // No such application: invoke says so and sends nothing, so there is nothing to confirm.
    if (app === undefined) return { invocationMessage: 'Looking for the application' };
    const label = applicationLabel(app);
    const prepared = this.prepare(app, options.input);
    // Nothing will be sent (the base URL or the template is wrong): invoke says why, no need to confirm.
    if (!prepared.ok) return { invocationMessage: untrusted(new vscode.MarkdownString(plainMarkdown`Asking ${label}`)) };
    this.remember(key, { applicationId: prepared.applicationId, baseUrl: prepared.baseUrl, bodyText: prepared.bodyText });
    const { text: shown, cut } = capText(prepared.bodyText, PREVIEW_MAX_CHARS, () => '');
    const fence = '`'.repeat(Math.max(3, ...[...shown.matchAll(/`+/g)].map((run) => run[0].length + 1)));
    const note = cut ? `\n\n*The request is shown cut at ${shown.length.toLocaleString('en-US')} of ${prepared.bodyText.length.toLocaleString('en-US')} characters; all of it is sent.*` : '';
    const question = plainMarkdown`Send this request to **${label}** at ${prepared.origin}?`;
    // eslint-disable-next-line aq/outside-text -- the body is inert inside a fence longer than any backtick run in it.
    const message = untrusted(new vscode.MarkdownString(`${question}\n\n${fence}json\n${shown}\n${fence}${note}`));
    return {
      invocationMessage: untrusted(new vscode.MarkdownString(plainMarkdown`Asking ${label}`)),
      confirmationMessages: { title: plain`Ask ${label} at ${prepared.origin}?`, message },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<AskApplicationInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const result = (text: string): vscode.LanguageModelToolResult => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
    const input = options.input;
    const key = inputKey(input);
    const confirmed = this.confirmed.get(key);
    this.confirmed.delete(key);
    const apps = this.deps.settings.applications().applications;
    // The application the user confirmed, even if the current application changed since.
    const app = confirmed === undefined ? this.application(input.application) : apps.find((a) => a.id === confirmed.applicationId);
    if (app === undefined) {
      if (confirmed !== undefined) return result(`Not sent: the application "${confirmed.applicationId}" the user confirmed is no longer configured.`);
      const known = apps.map((a) => `"${a.id}"${a.name ? ` (${a.name})` : ''}`).join(', ');
      return result(known === '' ? 'No applications are configured. The user can add one with "Application Query: Add Application…".' : `No application "${input.application ?? ''}". The configured applications are: ${known}.`);
    }
    const label = applicationLabel(app);
    const prepared = this.prepare(app, input);
    if (!prepared.ok) return result(this.deps.log.mask(`Not sent: ${prepared.message}`));
    if (confirmed === undefined) return result(`Not sent: the user did not confirm a request to ${label}. Ask again, so that the user can see and confirm it.`);
    if (prepared.baseUrl !== confirmed.baseUrl || prepared.bodyText !== confirmed.bodyText) {
      return result(`Not sent: the request to ${label} is no longer the one the user confirmed (the settings changed: ${prepared.baseUrl === confirmed.baseUrl ? 'the request body' : `the service, now ${prepared.service}`}). Ask again, so that the user can confirm the new request.`);
    }
    let answer = '';
    const outcome = await withAbortSignal(token, (signal) =>
      this.deps.runner.run(toolQuery(app, input), [{ start: () => undefined, status: () => undefined, append: (text) => void (answer += text), end: () => undefined }], {
        surface: 'tool',
        signal,
        promptForKey: false,
        expect: confirmed,
      }),
    );
    const capped = capText(answer, TOOL_RESULT_MAX_CHARS).text;
    if (outcome.kind === 'done') return result(outcome.warning === undefined ? capped : `${capped}\n\n[${this.deps.log.mask(outcome.warning)}]`);
    const failure = this.deps.log.mask(`${label} did not answer completely: ${outcome.message ?? outcome.kind}`);
    return result(answer === '' ? failure : `${capped}\n\n[${failure}]`);
  }

  /** The request the settings make of this input now, as the runner will prepare it. */
  private prepare(app: ApplicationConfig, input: AskApplicationInput): ReturnType<typeof prepare> {
    return prepare(toolQuery(app, input), {
      applications: this.deps.settings.applications().applications,
      defaultTemplate: this.deps.settings.defaultTemplate(),
      baseUrl: this.deps.settings.baseUrl(),
      confirmAboveChars: CONFIRM_ABOVE_CHARS,
    });
  }

  private remember(key: string, confirmed: Confirmed): void {
    this.confirmed.set(key, confirmed);
    for (const oldest of this.confirmed.keys()) {
      if (this.confirmed.size <= MAX_CONFIRMED) break;
      this.confirmed.delete(oldest);
    }
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

/** One tool input as a key: the same input confirmed and invoked is the same call. */
function inputKey(input: AskApplicationInput): string {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  return JSON.stringify([text(input.application).trim(), text(input.question), text(input.context)]);
}

/** Markdown made explicitly untrusted: no command links, no HTML, no theme icons. */
function untrusted(markdown: vscode.MarkdownString): vscode.MarkdownString {
  markdown.isTrusted = false;
  markdown.supportHtml = false;
  return markdown;
}
