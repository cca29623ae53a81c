import type * as vscode from 'vscode';
import { planQuery as planTargets, queryInput } from '../../client/queryFiles/engine';
import { knownFrom } from '../../client/queryFiles/sources';
import type { QueryInput } from '../../shared/prepare';
import type { QueryEntry } from '../../shared/queryFile';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import { contextReader } from './contextFiles';
import type { KnownNames, QueryTarget } from '../../shared/queryFile/targets';

/** What turning a query into requests needs. */
export interface PlanDeps {
  readonly settings: Settings;
  readonly current: CurrentApplication;
}

/** A query ready to send now: its requests and the one input they share. */
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
  return knownFrom(deps.settings, deps.current.id);
}

/**
 * Turns one query into the requests it makes right now (a CodeLens run, Compare): the engine's
 * plan, with its context files read inside the fence at once. The Testing view reads each query's
 * context only when its turn comes (see testing.ts).
 */
export async function planQuery(file: vscode.Uri, query: QueryEntry, deps: PlanDeps, known: KnownNames = knownNames(deps)): Promise<QueryPlan | PlanProblem> {
  const plan = planTargets(query, known);
  if (!plan.ok) return plan;
  const input = await queryInput(query, plan.targets[0], contextReader(file));
  if ('ok' in input) return input;
  return { ok: true, targets: plan.targets, input: (target) => ({ ...input, applicationId: target.applicationId }) };
}
