import { applicationLabel, applicationName, type ApplicationConfig } from '../applications';
import type { Environment } from '../environments';
import type { NamedValue, QueryEntry } from './parsedFile';
import type { Span } from './span';

/** One request a query makes: an application, on an environment (absent: the current one). */
export interface QueryTarget {
  readonly applicationId: string;
  readonly applicationLabel: string;
  /** The environment's name as the query file gives it; absent: the current environment. */
  readonly environment?: string;
}

/** Why a query cannot run as written, at the line that says so. */
export interface TargetProblem {
  readonly span: Span;
  readonly message: string;
  readonly code: 'unknownApplication' | 'unknownEnvironment' | 'noApplication';
}

/** What the query file's names are checked against (the user's settings). */
export interface KnownNames {
  readonly applications: readonly ApplicationConfig[];
  readonly environments: readonly Environment[];
  /** The current application, for a query that names none. */
  readonly currentApplication?: string;
}

/** The application a query file names: its id, else its name (any case). */
export function findApplication(name: string, applications: readonly ApplicationConfig[]): ApplicationConfig | undefined {
  const lower = name.toLowerCase();
  return applications.find((app) => app.id === name) ?? applications.find((app) => applicationName(app).toLowerCase() === lower);
}

/**
 * The requests a query makes (one per application it names, in order; the current application when
 * it names none), or what stops it. Environment names come from the user's settings only: a query
 * file can pick one of them, never a base URL.
 */
export function queryTargets(query: QueryEntry, known: KnownNames): { targets: QueryTarget[]; problems: TargetProblem[] } {
  const problems: TargetProblem[] = [];
  let environment: string | undefined;
  if (query.environment !== undefined) {
    const found = known.environments.find((e) => e.name === query.environment?.name) ?? known.environments.find((e) => e.name.toLowerCase() === query.environment?.name.toLowerCase());
    if (found === undefined) problems.push(unknownEnvironment(query.environment, known.environments));
    else environment = found.name;
  }
  const named: readonly NamedValue[] = query.applications;
  const targets: QueryTarget[] = [];
  const add = (app: ApplicationConfig): void => {
    if (!targets.some((t) => t.applicationId === app.id)) targets.push({ applicationId: app.id, applicationLabel: applicationLabel(app), ...(environment === undefined ? {} : { environment }) });
  };
  if (named.length === 0) {
    const current = known.applications.find((app) => app.id === known.currentApplication) ?? known.applications[0];
    if (current === undefined) {
      const line = query.headingLine;
      problems.push({ span: { line, start: 0, end: 2 }, code: 'noApplication', message: 'No application to ask: add one with "Add Application…", or name one under the heading (- application: <id>).' });
    } else {
      add(current);
    }
  }
  for (const name of named) {
    const app = findApplication(name.name, known.applications);
    if (app === undefined) problems.push(unknownApplication(name, known.applications));
    else add(app);
  }
  return { targets: problems.length > 0 ? [] : targets, problems };
}

function unknownApplication(name: NamedValue, applications: readonly ApplicationConfig[]): TargetProblem {
  const ids = applications.map((app) => app.id);
  const known = ids.length === 0 ? 'No applications are configured yet: add one to applicationQuery.applications (in VS Code, with "Add Application…").' : `Known: ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''}.`;
  return { span: name.span, code: 'unknownApplication', message: `There is no application "${name.name}" in applicationQuery.applications. ${known}` };
}

function unknownEnvironment(name: NamedValue, environments: readonly Environment[]): TargetProblem {
  const names = environments.map((e) => e.name);
  const known = names.length === 0 ? 'No environments are set (applicationQuery.environments, in your user settings).' : `Known: ${names.join(', ')}.`;
  return { span: name.span, code: 'unknownEnvironment', message: `There is no environment "${name.name}" in applicationQuery.environments. ${known}` };
}
