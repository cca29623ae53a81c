/**
 * What the checks of a query file need from outside the run itself: the JSON Schema files of
 * `json schema` (inside the folder, behind the context files' fence) and the verdicts of judges
 * (`judged by <application>`: a real exchange through the runner, recorded in History, with the
 * judge's own key, template and base URL; `judged by model`: one of VS Code's language models).
 */
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { compileJsonSchema, SCHEMA_MAX_BYTES } from '../../client/checks/jsonSchema';
import type { QueryOutcome } from '../../shared/outcome';
import { gradingPrompt, readVerdict, type Expectation, type Judgement, type SchemaCheck } from '../../shared/queryFile';
import { findApplication, type KnownNames } from '../../shared/queryFile/targets';
import type { QueryRunner } from '../query/runner';
import { CollectSink } from './collectSink';
import { locateContextFile } from './contextFiles';

/** How much of a judge's answer is kept (a verdict is a line or a small JSON object). */
const JUDGE_ANSWER_CHARS = 64 * 1024;

/** Every `json schema` file of these expectations, compiled, or why it cannot be used (by path as written). */
export async function loadSchemas(queryFile: vscode.Uri, expect: readonly Expectation[]): Promise<Map<string, SchemaCheck | { error: string }>> {
  const schemas = new Map<string, SchemaCheck | { error: string }>();
  for (const e of expect) {
    if (e.kind !== 'jsonSchema' || schemas.has(e.path)) continue;
    schemas.set(e.path, await loadSchema(queryFile, e.path, e.span));
  }
  return schemas;
}

async function loadSchema(queryFile: vscode.Uri, path: string, span: Expectation['span']): Promise<SchemaCheck | { error: string }> {
  const located = await locateContextFile(queryFile, { path, span });
  if ('problem' in located) return { error: located.problem.replace('a context file', 'a schema file') };
  try {
    const stat = await vscode.workspace.fs.stat(located.uri);
    if (stat.size > SCHEMA_MAX_BYTES) return { error: `${path} is larger than a schema file may be (${SCHEMA_MAX_BYTES / 1024 / 1024} MiB).` };
    const bytes = located.uri.scheme === 'file' ? await fs.readFile(located.uri.fsPath) : await vscode.workspace.fs.readFile(located.uri);
    return compileJsonSchema(new TextDecoder().decode(bytes));
  } catch (error) {
    return { error: `${path} cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** What asking judges needs. */
export interface JudgeContext {
  readonly runner: QueryRunner;
  readonly known: KnownNames;
  readonly question: string;
  readonly answer: string;
  /** The environment the query ran on: its judge is asked on the same one. */
  readonly environment?: string;
  readonly signal: AbortSignal;
}

/** The verdict of each judge of these expectations on one answer, asked one after the other. */
export async function askJudges(expect: readonly Expectation[], context: JudgeContext): Promise<Map<Expectation, Judgement>> {
  const judgements = new Map<Expectation, Judgement>();
  for (const e of expect) {
    if (context.signal.aborted) break;
    if (e.kind === 'judgedBy') judgements.set(e, await askApplication(e.application, e.criterion, context));
    else if (e.kind === 'judgedByModel') judgements.set(e, await askModel(e.model, e.criterion ?? DEFAULT_CRITERION, context));
  }
  return judgements;
}

async function askApplication(name: string, criterion: string, context: JudgeContext): Promise<Judgement> {
  const app = findApplication(name, context.known.applications);
  if (app === undefined) return { error: `there is no judge application "${name}" in applicationQuery.applications.` };
  const sink = new CollectSink(JUDGE_ANSWER_CHARS);
  const outcome = await context.runner.run({ applicationId: app.id, question: gradingPrompt({ criterion, question: context.question, answer: context.answer }) }, [sink], {
    surface: 'queryFile',
    signal: context.signal,
    promptForKey: false,
    ...(context.environment === undefined ? {} : { environment: context.environment }),
  });
  const failed = judgeFailure(app.id, outcome);
  return failed === undefined ? readVerdict(sink.text) : { error: failed };
}

/** Why a judge's exchange gave no usable answer, if it did not. */
function judgeFailure(id: string, outcome: QueryOutcome): string | undefined {
  if (outcome.kind === 'stopped') return `the judge ${id} was stopped.`;
  const status = outcome.httpStatus;
  if (status !== undefined && (status < 200 || status > 299)) return `the judge ${id} answered HTTP ${status}${outcome.message === undefined ? '' : ` (${outcome.message})`}.`;
  if (outcome.kind !== 'done') return `the judge ${id} did not answer (${outcome.message ?? outcome.kind}).`;
  return undefined;
}

/** What a model judges when the expectation names no criterion. */
const DEFAULT_CRITERION = 'The answer is correct, relevant to the question and complete.';

async function askModel(name: string, criterion: string, context: JudgeContext): Promise<Judgement> {
  // VS Code before the language model API: a quiet "not run", as on the command line.
  if (typeof vscode.lm?.selectChatModels !== 'function') return { error: 'this VS Code has no language models to ask.', notRun: true };
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = (): void => cancel.cancel();
  context.signal.addEventListener('abort', onAbort);
  try {
    const byId = await vscode.lm.selectChatModels({ id: name });
    const lower = name.toLowerCase();
    const model = byId[0] ?? (await vscode.lm.selectChatModels()).find((m) => m.name.toLowerCase() === lower || m.family.toLowerCase() === lower);
    if (model === undefined) return { error: `no language model "${name}" is available in VS Code (models come from Copilot or other extensions).` };
    const prompt = gradingPrompt({ criterion, question: context.question, answer: context.answer });
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], { justification: 'Application Query asks a model to grade an answer for a "judged by model" expectation of a query file.' }, cancel.token);
    let text = '';
    for await (const part of response.text) {
      text += part;
      if (text.length > JUDGE_ANSWER_CHARS) break;
    }
    return readVerdict(text);
  } catch (error) {
    if (context.signal.aborted) return { error: `the model ${name} was stopped.` };
    return { error: `the model ${name} could not be asked: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    context.signal.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
}
