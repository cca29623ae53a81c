import * as vscode from 'vscode';
import { type ApplicationConfig, applicationLabel } from '../../shared/applications';
import type { QueryOutcome } from '../../shared/outcome';
import type { QueryInput } from '../../shared/prepare';
import { Commands } from '../platform/commandIds';
import { withAbortSignal } from '../platform/cancellation';
import { type ConversationTurn, historyText } from '../../shared/conversation';
import type { LanguageModelDeps } from './deps';
import { VENDOR } from './provider';
import { referenceContext } from './references';
import { ChatTextSink } from './sink';
import { markdownText, plain, plainMarkdown } from '../../shared/plainText';
import { ImageRewriter } from './images';
import { remedyActions } from '../query/remedies';

/** The participant's id and the name users type after `@` (fixed by package.json and the product contract). */
export const PARTICIPANT_ID = 'applicationQuery.participant';
export const PARTICIPANT_NAME = 'app';
/** The slash command that switches the application (`@app /use my-app [question]`). */
const USE_COMMAND = 'use';
/** How many "Ask … instead" followups an answer offers. */
const MAX_SWITCH_FOLLOWUPS = 3;

/** What an `@app` response remembers (in the chat's own history: ids and labels, never a key). */
interface AnswerMetadata {
  readonly applicationId: string;
  /** The Markdown the response starts with (the application's name), left out of `${history}`. */
  readonly header: string;
  /** The question as typed, for the followups. */
  readonly question: string;
}

/*
 * Every Markdown this participant writes is a `MarkdownString` made with its defaults: untrusted
 * (no command links), no HTML, no theme icons.
 */

/**
 * `@app` in VS Code's Chat: asks an application through the one query pipeline, with the chat's
 * references as the context and the earlier `@app` turns as `${history}`; the answer streams in
 * as untrusted Markdown, batched. Which application: the one `/use` names, else the one picked in
 * the Chat's model picker (when the model there is one of ours), else the current application.
 */
export class ApplicationParticipant {
  constructor(private readonly deps: LanguageModelDeps) {}

  /** The chat request handler. */
  readonly handle = async (request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> => {
    let prompt = request.prompt;
    let app: ApplicationConfig | undefined;
    let fromPicker = false;
    if (request.command === USE_COMMAND) {
      const switched = await this.use(prompt, stream, request);
      if (switched === undefined || switched.question === '') return {};
      ({ question: prompt, app } = switched);
    } else {
      // One of our models picked in the Chat's model picker names the application to ask.
      app = this.pickedApplication(request);
      fromPicker = app !== undefined;
      app ??= this.currentApplication();
    }
    if (app === undefined) {
      stream.markdown('No applications are configured yet. Add one with its id from the service dashboard.');
      stream.button({ command: Commands.addApplication, title: 'Add Application…' });
      return {};
    }
    const label = applicationLabel(app);
    const { context: queryContext, skipped } = await referenceContext(request.references);
    if (prompt.trim() === '' && queryContext === undefined) {
      stream.markdown(new vscode.MarkdownString(`Ask ${markdownText(label)} a question, e.g. \`@app what does this do? #selection\`.`, false));
      return {};
    }
    const header = `*${markdownText(label)}:*\n\n`;
    stream.markdown(new vscode.MarkdownString(header, false));
    if (skipped.length > 0) stream.markdown(new vscode.MarkdownString(plainMarkdown`*Not sent (not text): ${skipped.join(', ')}*\n\n`, false));
    const input: QueryInput = { applicationId: app.id, question: prompt, context: queryContext, history: historyText(this.history(context)) };
    // The answer is the application's Markdown, shown untrusted and with its images as links.
    const images = new ImageRewriter();
    const write = (text: string): void => {
      // eslint-disable-next-line aq/outside-text -- the answer is the application's Markdown by contract: untrusted, its images rewritten as links.
      if (text !== '') stream.markdown(new vscode.MarkdownString(text, false));
    };
    const sink = new ChatTextSink((text) => write(images.push(text)), () => write(images.end()));
    const outcome = await withAbortSignal(token, (signal) => this.deps.runner.run(input, [sink], { surface: 'participant', signal, promptForKey: false }));
    const metadata: AnswerMetadata = { applicationId: app.id, header, question: prompt };
    return { metadata, ...this.finish(outcome, app, request, stream, fromPicker) };
  };

  /** Followups under an answer: ask the same question of another application that has a key. */
  readonly followups = async (result: vscode.ChatResult): Promise<vscode.ChatFollowup[]> => {
    const metadata = answerMetadata(result);
    if (metadata === undefined || metadata.question.trim() === '') return [];
    const others: vscode.ChatFollowup[] = [];
    for (const app of this.deps.settings.applications().applications) {
      if (others.length >= MAX_SWITCH_FOLLOWUPS) break;
      if (app.id === metadata.applicationId || !(await this.hasKey(app.id))) continue;
      others.push({ label: plain`Ask ${applicationLabel(app)} instead`, prompt: `${app.id} ${metadata.question}`, command: USE_COMMAND, participant: PARTICIPANT_ID });
    }
    return others;
  };

  /** Status, meaning and the buttons that help, after the answer (which stays as it arrived). */
  private finish(outcome: QueryOutcome, app: ApplicationConfig, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, fromPicker: boolean): Pick<vscode.ChatResult, 'errorDetails'> {
    const mask = (text: string): string => this.deps.log.mask(text);
    if (outcome.kind === 'done') {
      if (outcome.warning !== undefined) stream.markdown(new vscode.MarkdownString(`\n\n*${markdownText(mask(outcome.warning))}*`, false));
      // The model picker chose this application: switching happens there (or with the followups).
      if (!fromPicker) stream.button({ command: Commands.selectApplication, title: 'Switch Application…' });
      return {};
    }
    if (outcome.kind === 'stopped' && outcome.remedies.length === 0) return {};
    // Retry asks again in the same chat: the prompt as typed (its #references resolve again).
    const slash = request.command === undefined ? '' : `/${request.command} `;
    const retry = (title: string): vscode.Command => ({ title, command: 'workbench.action.chat.open', arguments: [{ query: `@${PARTICIPANT_NAME} ${slash}${request.prompt}` }] });
    for (const action of remedyActions(outcome, app.id, retry)) {
      if ('command' in action) stream.button(action);
    }
    if (outcome.kind === 'stopped') return {};
    const kept = outcome.textChars > 0 ? ` The partial answer above (${outcome.textChars.toLocaleString('en-US')} characters) is kept.` : '';
    const message = outcome.message === undefined ? 'The query failed.' : markdownText(mask(outcome.message));
    // VS Code's Chat renders this message as Markdown (1.100 and 1.139: a MarkdownString of it).
    return { errorDetails: { message: `${markdownText(applicationLabel(app))}: ${message}${kept}` } };
  }

  /** `/use <application> [question]`: makes it current (and asks it); `/use` alone lists the applications. */
  private async use(prompt: string, stream: vscode.ChatResponseStream, request: vscode.ChatRequest): Promise<{ question: string; app: ApplicationConfig } | undefined> {
    const apps = this.deps.settings.applications().applications;
    const text = prompt.trim();
    const match = [...apps]
      .flatMap((app) => [app.id, app.name].filter((n): n is string => n !== undefined).map((name) => ({ app, name })))
      .sort((a, b) => b.name.length - a.name.length)
      .find(({ name }) => text === name || text.startsWith(`${name} `) || text.toLowerCase() === name.toLowerCase() || text.toLowerCase().startsWith(`${name.toLowerCase()} `));
    if (match === undefined) {
      stream.markdown(new vscode.MarkdownString(text === '' ? 'Which application should `@app` ask?\n\n' : `No application is called "${markdownText(text)}". Choose one:\n\n`, false));
      for (const app of apps) stream.button({ command: Commands.selectApplication, title: plain`Use ${applicationLabel(app)}`, arguments: [app.id] });
      if (apps.length === 0) stream.button({ command: Commands.addApplication, title: 'Add Application…' });
      return undefined;
    }
    await this.deps.current.set(match.app.id);
    const question = text.slice(match.name.length).trim();
    if (question === '') {
      const picked = this.pickedApplication(request);
      const note = picked === undefined || picked.id === match.app.id ? '' : ` While ${markdownText(applicationLabel(picked))} is picked in the model picker, \`@app\` asks that one: pick ${markdownText(match.app.name ?? match.app.id)} there too.`;
      stream.markdown(new vscode.MarkdownString(`\`@app\` now asks ${markdownText(applicationLabel(match.app))}.${note}`, false));
    }
    return { question, app: match.app };
  }

  /** The application picked in the Chat's model picker, when the model there is one of ours. */
  private pickedApplication(request: vscode.ChatRequest): ApplicationConfig | undefined {
    const model = (request as { readonly model?: vscode.LanguageModelChat }).model;
    if (model?.vendor !== VENDOR) return undefined;
    return this.deps.settings.applications().applications.find((app) => app.id === model.id);
  }

  private currentApplication(): ApplicationConfig | undefined {
    const id = this.deps.current.id;
    return id === undefined ? undefined : this.deps.settings.applications().applications.find((app) => app.id === id);
  }

  private async hasKey(applicationId: string): Promise<boolean> {
    return this.deps.keys.hasFor(this.deps.settings.baseUrl(), applicationId);
  }

  /** The earlier `@app` questions and answers of this chat session (other participants' turns never reach us). */
  private history(context: vscode.ChatContext): ConversationTurn[] {
    const turns: ConversationTurn[] = [];
    let question: string | undefined;
    for (const turn of context.history) {
      if (turn instanceof vscode.ChatRequestTurn) {
        question = turn.prompt;
      } else if (turn instanceof vscode.ChatResponseTurn) {
        const metadata = answerMetadata(turn.result);
        if (metadata === undefined || question === undefined) continue;
        let answer = turn.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
        if (answer.startsWith(metadata.header)) answer = answer.slice(metadata.header.length);
        turns.push({ role: 'user', text: metadata.question }, { role: 'assistant', text: answer });
        question = undefined;
      }
    }
    return turns;
  }
}

function answerMetadata(result: vscode.ChatResult): AnswerMetadata | undefined {
  const metadata: unknown = result.metadata;
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const { applicationId, header, question } = metadata as Record<string, unknown>;
  if (typeof applicationId !== 'string' || typeof header !== 'string' || typeof question !== 'string') return undefined;
  return { applicationId, header, question };
}

/** Creates the `@app` participant with the running VS Code's `createChatParticipant`. */
export function createParticipant(create: typeof vscode.chat.createChatParticipant, deps: LanguageModelDeps): vscode.Disposable {
  const participant = new ApplicationParticipant(deps);
  const chatParticipant = create(PARTICIPANT_ID, participant.handle);
  chatParticipant.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'icon.png');
  chatParticipant.followupProvider = { provideFollowups: participant.followups };
  return chatParticipant;
}
