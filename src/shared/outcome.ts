/**
 * The one vocabulary for how a query ended, shared by the core, the extension host and (through the
 * protocol) the webviews. "Wire bytes" are the body bytes that came over the connection; "text
 * characters" are the UTF-16 length of the answer text extracted from them. They differ whenever
 * the answer is framed (SSE, NDJSON) or not ASCII, and are never called by one name.
 */

/** How a query ended: complete, stopped by the user, cut off after text arrived, or failed. */
export type EndKind = 'done' | 'stopped' | 'interrupted' | 'error';

/** What the user can do about a failure; the notification policy turns it into a button. */
export type Remedy = 'setApiKey' | 'addApplication' | 'openBaseUrlSetting' | 'checkApplications' | 'retry' | 'showRaw';

/** What every surface learns when a query ends. */
export interface QueryOutcome {
  readonly kind: EndKind;
  /** The response's HTTP status, once one arrived. */
  readonly httpStatus?: number;
  /** Body bytes received on the wire. */
  readonly wireBytes: number;
  /** Characters of answer text delivered (UTF-16 code units). */
  readonly textChars: number;
  readonly durationMs: number;
  /** From sending the request to the first byte of the response body, when one came. */
  readonly firstByteMs?: number;
  /** The longest silence between two chunks of the body, where the bytes arrived (once a chunk came). */
  readonly maxGapMs?: number;
  /** Plain-language description of anything but a clean `done`. */
  readonly message?: string;
  /** A warning about a complete answer (a character cut at the end, no text extracted, a charset). */
  readonly warning?: string;
  /** Whether trying again could help. */
  readonly retryable: boolean;
  /** The remedies that fit, most helpful first. */
  readonly remedies: readonly Remedy[];
  /** For 429/503: how long the service asked us to wait, in ms. */
  readonly retryAfterMs?: number;
  /** The History entry of this exchange, when a request was sent (the inspector opens it). */
  readonly exchangeId?: string;
}

/**
 * What a failed HTTP status calls for: the one classification of a status into remedies, used by the
 * query runner, the GET command, the key check and Diagnose (each surface renders the remedies from
 * the one remedy table).
 */
export function statusRemedies(status: number): { readonly remedies: Remedy[]; readonly retryable: boolean } {
  const retryable = status >= 500 || status === 429 || status === 408;
  const remedies: Remedy[] = status === 401 || status === 403 ? ['setApiKey'] : status === 404 ? ['checkApplications'] : [];
  if (retryable) remedies.push('retry');
  return { remedies, retryable };
}

/** Whether a status means the key was refused (401, 403): what the key check and Diagnose say then. */
export function isKeyRefused(status: number): boolean {
  return statusRemedies(status).remedies.includes('setApiKey');
}

/**
 * Whether a view offers Retry after this outcome: when trying again could help, and after a key
 * problem too (the user sets the key, then retries). Every answer view asks this one question.
 */
export function canRetry(outcome: Pick<QueryOutcome, 'kind' | 'retryable' | 'remedies'>): boolean {
  return outcome.kind !== 'done' && (outcome.retryable || outcome.remedies.includes('setApiKey'));
}
