import { applicationLabel } from '../../shared/applications';
import type { QueryInput } from '../../shared/prepare';
import type { Settings } from '../platform/settings';
import type { FailureNotifier } from './failures';
import { ProgressSink } from './progressSink';
import type { QueryRegistry } from './registry';
import type { QueryRunner, RunOptions } from './runner';
import type { QuerySink } from './types';

/** What a command needs to run a query. */
export interface CommandQueryDeps {
  readonly settings: Settings;
  readonly runner: QueryRunner;
  readonly notifier: FailureNotifier;
  readonly registry: QueryRegistry;
}

/**
 * Runs a query the way every command does: into its answer sink (panel or output channel) with the
 * cancellable progress notification, then hands the outcome to the failure policy, whose Retry
 * calls `retry`.
 */
export function runCommandQuery(deps: CommandQueryDeps, input: QueryInput, answer: QuerySink, options: RunOptions, retry: () => void): void {
  void deps.runner.run(input, [answer, new ProgressSink(deps.registry)], options).then((outcome) => {
    const app = deps.settings.resolve(input.applicationId);
    deps.notifier.report(outcome, { applicationId: input.applicationId, applicationLabel: app ? applicationLabel(app) : input.applicationId, retry });
  });
}
