import { formatBytes, formatDuration } from '../../shared/format';
import type { QueryOutcome } from '../../shared/outcome';

/** One line of what an exchange did (status, first byte, total time, sizes), as every query-file report shows it. */
export function outcomeFacts(outcome: QueryOutcome): string {
  return [
    outcome.httpStatus === undefined ? 'no response' : `HTTP ${outcome.httpStatus}`,
    outcome.firstByteMs === undefined ? undefined : `first byte ${formatDuration(outcome.firstByteMs)}`,
    `total ${formatDuration(outcome.durationMs)}`,
    outcome.maxGapMs === undefined ? undefined : `longest gap ${formatDuration(outcome.maxGapMs)}`,
    `${formatBytes(outcome.wireBytes)} received`,
    `${outcome.textChars} characters`,
  ]
    .filter((part) => part !== undefined)
    .join(' · ');
}
