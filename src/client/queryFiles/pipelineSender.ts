import type { Surface } from '../history';
import { QueryProgress, sendPrepared, settleQuery, type PipelineLog } from '../queryPipeline';
import { CONFIRM_ABOVE_CHARS, prepare } from '../../shared/prepare';
import { AnswerCollector, type QuerySender } from './engine';
import type { EngineSettings, KeySource } from './sources';

/**
 * Sends queries without the editor: request preparation, the key from `keys`, the request and
 * stream formats, masking and timeouts are the pipeline the editor's runner uses. Nothing asks
 * anyone: a missing key ends the query unsent, and a large request is sent without a confirmation
 * (a run on a build machine has nobody to ask; its size was chosen by whoever wrote the query file).
 */
export function pipelineSender(settings: EngineSettings, keys: KeySource, log: PipelineLog, surface: Surface = 'queryFile'): QuerySender {
  return async (input, target, signal) => {
    const progress = new QueryProgress(Date.now());
    const answer = new AnswerCollector();
    const prepared = prepare(input, {
      applications: settings.applications().applications,
      defaultTemplate: settings.defaultTemplate(),
      baseUrl: target.environment === undefined ? settings.baseUrl() : settings.serviceFor(target.environment),
      confirmAboveChars: CONFIRM_ABOVE_CHARS,
    });
    const outcome = await settleQuery(progress, answer, log, prepared.ok ? prepared.url : undefined, async () => {
      if (!prepared.ok) return progress.outcome({ kind: 'error', message: prepared.message, retryable: false, remedies: prepared.remedies });
      const apiKey = await keys.get({ origin: prepared.origin, applicationId: prepared.applicationId });
      if (apiKey === undefined) return progress.outcome({ kind: 'error', message: `No API key for ${prepared.label} on ${prepared.service}: the query was not sent.`, retryable: false, remedies: ['setApiKey'] });
      const secrets = [...new Set([apiKey, ...keys.knownSecrets()])];
      return sendPrepared(prepared, progress, answer, log, { apiKey, secrets, signal, headersTimeoutMs: settings.headersTimeoutMs(), idleTimeoutMs: settings.idleTimeoutMs(), surface });
    });
    const sent = progress.finish(outcome, log) !== undefined;
    return { outcome, answer: answer.text, cut: answer.cut, sent };
  };
}
