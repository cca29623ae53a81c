import type * as vscode from 'vscode';
import type { QueryContext, QueryInput } from '../../shared/prepare';
import type { QueryEntry } from '../../shared/queryFile';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import { readQueryContext } from './contextFiles';
import { queryTargets, type KnownNames, type QueryTarget } from '../../shared/queryFile/targets';

/** What turning a query into requests needs. */
export interface PlanDeps {
  readonly settings: Settings;
  readonly current: CurrentApplication;
}

/** A query ready to send: its requests and the one input they share. */
export interface QueryPlan {
  readonly ok: true;
  readonly targets: readonly QueryTarget[];
  readonly input: (target: QueryTarget) => QueryInput;
}

/** Why a query cannot be sent (nothing was), and the line of the query file that says so. */
export interface PlanProblem {
  readonly ok: false;
  readonly message: string;
  readonly line: number;
}

/** The names a query file is checked against, from the user's settings. */
export function knownNames(deps: PlanDeps): KnownNames {
  return { applications: deps.settings.applications().applications, environments: deps.settings.environments().environments, currentApplication: deps.current.id };
}

/**
 * Turns a query of a query file into the requests it makes: applications and environment checked
 * against the user's settings, context files read inside the fence. The question and its context go
 * through the same template, keys and checks as every other query (the runner's). A query with a
 * line that does not parse is not sent at all.
 */
export async function planQuery(file: vscode.Uri, query: QueryEntry, deps: PlanDeps, known: KnownNames = knownNames(deps)): Promise<QueryPlan | PlanProblem> {
  // A line of the query that does not parse (a context path, an expectation, a key) stops all of it: nothing half-set-up is sent.
  const broken = query.problems.find((problem) => problem.severity === 'error');
  if (broken !== undefined) return { ok: false, message: `Not sent: ${broken.message}`, line: broken.span.line };
  const { targets, problems } = queryTargets(query, known);
  if (problems.length > 0) return { ok: false, message: problems[0].message, line: problems[0].span.line };
  const read = await readQueryContext(file, query.context);
  if (!read.ok) return { ok: false, message: `Not sent: ${read.message}`, line: read.ref.span.line };
  const context: QueryContext | undefined = read.context;
  if (query.question.trim() === '' && context === undefined) return { ok: false, message: 'Not sent: the query has no question and no context.', line: query.headingLine };
  return { ok: true, targets, input: (target) => ({ applicationId: target.applicationId, question: query.question, ...(context === undefined ? {} : { context }) }) };
}
