import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { readFenced } from '../client/queryFiles/contextFence';
import { planQuery, runQueries, type PlannedQuery, type QueryResult } from '../client/queryFiles/engine';
import { pipelineSender } from '../client/queryFiles/pipelineSender';
import { isInside } from '../client/queryFiles/contextFence';
import { knownFrom, serviceOrigin } from '../client/queryFiles/sources';
import { maskSecrets } from '../shared/secretMask';
import { parseQueryFile, type ParsedQueryFile, type QueryEntry } from '../shared/queryFile';
import type { TestOptions } from './args';
import { answerPath, savedAnswer, saveAnswer } from './answers';
import { unifiedDiff } from './diff';
import { findQueryFiles } from './files';
import { EnvironmentKeys } from './keys';
import { totalsOf, type AnswerChange, type QueryReport } from './report';
import { ConsoleReporter, useColour } from './reporters/console';
import { junitReport } from './reporters/junit';
import { jsonReport } from './reporters/json';
import { BASE_URL_VARIABLE, CliSettings, readSettingsFile, SettingsError, type SettingsValues } from './settings';

/** The exit statuses (PRODUCT.md): every query passed, some did not, nothing could run; and Ctrl+C. */
export const EXIT = { passed: 0, failed: 1, unusable: 2 } as const;

/** What a run talks to: the process's streams, environment and folder, and its Ctrl+C. */
export interface RunContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  /** Aborts when the user presses Ctrl+C. */
  readonly interrupt: AbortSignal;
}

/** A reason nothing could run: one line, exit status 2, before anything is sent. */
class Unusable extends Error {}

/** What each planned query carries to its report. */
interface Tag {
  readonly file: string;
  readonly query: QueryEntry;
  readonly occurrence: number;
  readonly several: boolean;
  readonly name: string;
}

/** One parsed query file, by its path relative to the current folder. */
interface QueryFile {
  readonly full: string;
  readonly relative: string;
  readonly parsed: ParsedQueryFile;
}

/** Runs `application-query test`: finds, plans, checks everything that would stop it, runs, reports. Returns the exit status. */
export async function runTests(options: TestOptions, context: RunContext): Promise<number> {
  const keys = new EnvironmentKeys(context.env);
  const mask = (text: string): string => maskSecrets(text, keys.knownSecrets());
  try {
    return await runChecked(options, context, keys, mask);
  } catch (error) {
    if (!(error instanceof Unusable || error instanceof SettingsError)) throw error;
    context.stderr.write(`application-query: ${mask(error.message)}\n`);
    return EXIT.unusable;
  }
}

async function runChecked(options: TestOptions, context: RunContext, keys: EnvironmentKeys, mask: (text: string) => string): Promise<number> {
  const startedAt = Date.now();
  const files = await readQueryFiles(options, context.cwd);
  const values = options.settings === undefined ? namedApplications(files) : await readSettingsFile(path.resolve(context.cwd, options.settings));
  const baseUrl = context.env[BASE_URL_VARIABLE];
  const settings = new CliSettings(values, { environment: options.environment, ...(baseUrl === undefined || baseUrl === '' ? {} : { baseUrl }), ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }) });
  if (options.environment !== '' && !values.environments.some((e) => e.name === options.environment)) {
    const names = values.environments.map((e) => e.name);
    throw new Unusable(`--env ${options.environment}: there is no such environment in applicationQuery.environments${names.length === 0 ? ' (the settings name none)' : ` (known: ${names.join(', ')})`}.`);
  }
  const known = knownFrom(settings, undefined);
  const planned: PlannedQuery<Tag>[] = [];
  const reports = new Map<PlannedQuery<Tag> | QueryEntry, QueryReport>();
  const order: (PlannedQuery<Tag> | QueryEntry)[] = [];
  const unplanned: QueryReport[] = [];
  const grep = options.grep?.toLowerCase();
  for (const file of files) {
    const seen = new Map<string, number>();
    const readContext = contextReaderFor(context.cwd, file.full);
    for (const query of file.parsed.queries) {
      const occurrence = seen.get(query.name) ?? 0;
      seen.set(query.name, occurrence + 1);
      if (grep !== undefined && !query.name.toLowerCase().includes(grep)) continue;
      const plan = planQuery(query, known);
      if (!plan.ok) {
        const report: QueryReport = { file: file.relative, query: query.name, line: query.headingLine, name: query.name, result: { verdict: 'errored', message: plan.message, line: plan.line } };
        reports.set(query, report);
        order.push(query);
        unplanned.push(report);
        continue;
      }
      const several = plan.targets.length > 1;
      for (const target of plan.targets) {
        const name = several ? `${query.name} → ${target.applicationLabel}` : query.name;
        const one: PlannedQuery<Tag> = { tag: { file: file.relative, query, occurrence, several, name }, query, target, service: serviceOrigin(settings, target), readContext };
        planned.push(one);
        order.push(one);
      }
    }
  }
  if (order.length === 0) throw new Unusable(options.grep === undefined ? 'The query files hold no query (a query starts at a "## " heading).' : `No query's name contains "${options.grep}".`);
  preflight(planned, settings, keys);

  const toStdout = options.reporter === 'console' || options.output !== undefined;
  const live = toStdout ? context.stdout : context.stderr;
  const consoleReporter = new ConsoleReporter((text) => live.write(mask(text)), useColour(live, context.env));
  for (const report of unplanned) consoleReporter.ended(report);
  const changes = { changed: 0, added: 0 };
  const ended = async (one: PlannedQuery<Tag>, result: QueryResult): Promise<void> => {
    const change = await answerChange(options, one, result);
    if (change?.state === 'changed') changes.changed++;
    if (change?.state === 'new') changes.added++;
    const report: QueryReport = { file: one.tag.file, query: one.query.name, line: one.query.headingLine, target: one.target, name: one.tag.name, result, ...(change === undefined ? {} : { change }) };
    reports.set(one, report);
    consoleReporter.ended(report);
  };
  const pending: Promise<void>[] = [];
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  await runQueries(planned, pipelineSender(settings, keys, log), {
    concurrency: settings.queryConcurrency(),
    signal: context.interrupt,
    listener: { started: () => undefined, ended: (one, result) => void pending.push(ended(one, result)) },
  });
  await Promise.all(pending);
  const all = order.map((key) => reports.get(key)).filter((report) => report !== undefined);
  const totalMs = Date.now() - startedAt;
  const interrupted = context.interrupt.aborted;
  consoleReporter.summary(totalsOf(all), totalMs, { interrupted, ...changes });
  if (options.reporter !== 'console') {
    const text = mask(options.reporter === 'junit' ? junitReport(all, totalMs) : jsonReport(all, totalMs, interrupted));
    if (options.output === undefined) context.stdout.write(text);
    else await writeFile(path.resolve(context.cwd, options.output), text, 'utf8');
  }
  // An interrupted run did not pass: what it stopped counts against it, as a failure would.
  if (interrupted) return EXIT.failed;
  const totals = totalsOf(all);
  return totals.failed + totals.errored > 0 ? EXIT.failed : EXIT.passed;
}

/** The query files the arguments name, read and parsed; none, or a name that matches nothing, stops the run. */
async function readQueryFiles(options: TestOptions, cwd: string): Promise<QueryFile[]> {
  const found = await findQueryFiles(cwd, options.paths);
  if (found.problems.length > 0) throw new Unusable(found.problems.join(' '));
  if (found.files.length === 0) throw new Unusable(`No query files (*.aq.md) under ${cwd}.`);
  return Promise.all(
    found.files.map(async (full) => {
      let text: string;
      try {
        text = await readFile(full, 'utf8');
      } catch (error) {
        throw new Unusable(`${path.relative(cwd, full)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
      }
      return { full, relative: path.relative(cwd, full).split(path.sep).join('/'), parsed: parseQueryFile(text) };
    }),
  );
}

/** Without a settings file: the applications the query files name (by id), with the default template. */
function namedApplications(files: readonly QueryFile[]): SettingsValues {
  const ids = new Set<string>();
  for (const file of files) for (const query of file.parsed.queries) for (const app of query.applications) ids.add(app.name);
  return { environments: [], applications: [...ids].map((id) => ({ id })), problems: [] };
}

/**
 * The fence of a query file on the command line: the current folder stands for the workspace
 * folder (CI checks the repository out there); a query file outside it is fenced to its own folder.
 */
function contextReaderFor(cwd: string, file: string): PlannedQuery<Tag>['readContext'] {
  const root = isInside(cwd, file) ? cwd : path.dirname(file);
  const name = path.basename(root) || root;
  return (ref) => readFenced(root, name, ref);
}

/** Everything that would stop a query before it is sent, for the whole run at once: a service without a base URL, an application without a key. */
function preflight(planned: readonly PlannedQuery<Tag>[], settings: CliSettings, keys: EnvironmentKeys): void {
  const problems = new Set<string>();
  for (const one of planned) {
    const service = one.target.environment === undefined ? settings.baseUrl() : settings.serviceFor(one.target.environment);
    if (!service.ok) problems.add(service.message);
    const key = keys.problem(one.target.applicationId);
    if (key !== undefined) problems.add(key);
  }
  if (problems.size > 0) throw new Unusable([...problems].join('\napplication-query: '));
}

/** Compares an answer with the saved one (`--compare-answers`) and saves it (`--save-answers`). */
async function answerChange(options: TestOptions, one: PlannedQuery<Tag>, result: QueryResult): Promise<AnswerChange | undefined> {
  const answer = result.sent?.answer;
  if (answer === undefined || result.sent?.outcome.kind !== 'done') return undefined;
  const where = (root: string): string => answerPath(root, one.tag.file, one.query.name, one.tag.occurrence, one.target, one.tag.several);
  let change: AnswerChange | undefined;
  if (options.compareAnswers !== undefined) {
    const before = await savedAnswer(where(options.compareAnswers));
    if (before === undefined) change = { state: 'new' };
    else if (before === answer) change = { state: 'same' };
    else change = { state: 'changed', diff: unifiedDiff(before, answer, { before: 'saved answer', after: 'this answer' }) };
  }
  if (options.saveAnswers !== undefined) await saveAnswer(where(options.saveAnswers), answer);
  return change;
}
