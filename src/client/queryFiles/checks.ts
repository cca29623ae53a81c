/**
 * What a query's checks need from outside its own exchange: the JSON Schema files of
 * `json schema` (read inside the folder, behind the context files' fence) and the verdicts of
 * judges. A `judged by <application>` judge is asked through the same sender as every query (so in
 * the editor it is a real exchange: History, its own key, template and base URL, masking, stopped
 * with the run); `judged by model` asks whatever model judge the caller has (VS Code's language
 * models in the editor; the command line has none and reports it as not run).
 */
import { CASES_MAX_BYTES, casesFormat, parseCases } from '../checks/cases';
import { compileJsonSchema, SCHEMA_MAX_BYTES } from '../checks/jsonSchema';
import { applicationLabel } from '../../shared/applications';
import type { QueryOutcome } from '../../shared/outcome';
import { gradingPrompt, readVerdict, type CasesTable, type Expectation, type Judgement, type SchemaCheck, type Span } from '../../shared/queryFile';
import { findApplication, type KnownNames, type QueryTarget } from '../../shared/queryFile/targets';
import type { ContextFileReader } from './contextText';
import type { QuerySender } from './engine';

/** Asks a model outside the service to grade: the prompt in, the model's answer (or why there is none) out. */
export type ModelJudge = (model: string, prompt: string, signal: AbortSignal) => Promise<{ readonly text: string } | { readonly error: string; readonly notRun?: boolean }>;

/** What a model judges when the expectation names no criterion. */
const DEFAULT_CRITERION = 'The answer is correct, relevant to the question and complete.';

/** Every `json schema` file of these expectations, compiled, or why it cannot be used (by path as written). */
export async function loadSchemas(expect: readonly Expectation[], read: ContextFileReader): Promise<Map<string, SchemaCheck | { error: string }>> {
  const schemas = new Map<string, SchemaCheck | { error: string }>();
  for (const e of expect) {
    if (e.kind !== 'jsonSchema' || schemas.has(e.path)) continue;
    const file = await read({ path: e.path, span: e.span });
    if ('problem' in file) schemas.set(e.path, { error: file.problem.replace(/a context file/g, 'a schema file') });
    else if (file.text.length > SCHEMA_MAX_BYTES) schemas.set(e.path, { error: `${e.path} is larger than a schema file may be (${SCHEMA_MAX_BYTES / 1024 / 1024} MiB).` });
    else schemas.set(e.path, compileJsonSchema(file.text));
  }
  return schemas;
}

/** What asking judges needs. */
export interface JudgeContext {
  readonly send: QuerySender;
  readonly known: KnownNames;
  readonly question: string;
  readonly answer: string;
  /** The environment the query ran on: its judge application is asked on the same one. */
  readonly environment?: string;
  readonly askModel?: ModelJudge;
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
  const target: QueryTarget = { applicationId: app.id, applicationLabel: applicationLabel(app), ...(context.environment === undefined ? {} : { environment: context.environment }) };
  const prompt = gradingPrompt({ criterion, question: context.question, answer: context.answer });
  const sent = await context.send({ applicationId: app.id, question: prompt }, target, context.signal);
  const failed = judgeFailure(app.id, sent.outcome, sent.sent);
  return failed === undefined ? readVerdict(sent.answer) : { error: failed };
}

/** Why a judge's exchange gave no usable answer, if it did not. */
function judgeFailure(id: string, outcome: QueryOutcome, sent: boolean): string | undefined {
  if (outcome.kind === 'stopped') return `the judge ${id} was stopped.`;
  if (!sent) return `the judge ${id} was not asked: ${outcome.message ?? 'not sent'}`;
  const status = outcome.httpStatus;
  if (status !== undefined && (status < 200 || status > 299)) return `the judge ${id} answered HTTP ${status}.`;
  if (outcome.kind !== 'done') return `the judge ${id} did not answer (${outcome.message ?? outcome.kind}).`;
  return undefined;
}

async function askModel(model: string, criterion: string, context: JudgeContext): Promise<Judgement> {
  if (context.askModel === undefined) return { error: `judged by model ${model} needs VS Code's language models; the command line has none.`, notRun: true };
  const answer = await context.askModel(model, gradingPrompt({ criterion, question: context.question, answer: context.answer }), context.signal);
  return 'error' in answer ? answer : readVerdict(answer.text);
}

/** A query's cases file read inside the fence and parsed, or why it cannot be (a missing file, one too large, nothing that parses). */
export async function loadCases(cases: { readonly path: string; readonly span: Span }, read: ContextFileReader): Promise<CasesTable | { readonly error: string }> {
  const file = await read({ path: cases.path, span: cases.span });
  if ('problem' in file) return { error: file.problem.replace(/a context file/g, 'a cases file') };
  if (file.text.length > CASES_MAX_BYTES) return { error: `${cases.path} is larger than a cases file may be (${CASES_MAX_BYTES / 1024 / 1024} MiB).` };
  const table = parseCases(file.text, casesFormat(cases.path));
  if (table.rows.length === 0) return { error: `${cases.path} has no case that can be read${table.problems.length === 0 ? '' : `: ${table.problems[0].message}`}` };
  return table;
}
