import { InvalidJsonError, QueryError } from './errors';
import { plainExcerpt, sanitizeError } from './failureText';
import { mediaType } from './formats';
import { checkService, discardBody, openServiceRequest, readLimitedText, Transfer } from './http';

/** The largest JSON body a GET may return. */
const MAX_JSON_BYTES = 32 * 1024 * 1024;

/**
 * Turns what the user typed into an endpoint below `/api/`: `applications/x`, `/applications/x`
 * and `/api/applications/x` all give `applications/x`. A query string is kept. Refused: empty,
 * absolute URLs, `.`/`..` segments (they would leave `/api/`), backslashes, spaces, control
 * characters, fragments.
 */
export function normalizeEndpoint(input: string): string | { error: string } {
  const trimmed = input.trim();
  if (trimmed === '') {
    return { error: 'Enter an endpoint path, e.g. applications/<id>.' };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) {
    return { error: 'Enter a path below /api/ (e.g. applications/<id>), not a full URL: requests only go to applicationQuery.baseUrl.' };
  }
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(trimmed)) {
    return { error: 'The endpoint path must not contain spaces or control characters (encode them as %20…).' };
  }
  if (trimmed.includes('\\')) {
    return { error: 'The endpoint path must not contain backslashes.' };
  }
  if (trimmed.includes('#')) {
    return { error: 'The endpoint path must not contain a fragment (#…).' };
  }
  const queryStart = trimmed.indexOf('?');
  let path = queryStart === -1 ? trimmed : trimmed.slice(0, queryStart);
  const query = queryStart === -1 ? '' : trimmed.slice(queryStart);
  path = path.replace(/^\/+/, '');
  if (path === 'api' || path.startsWith('api/')) {
    path = path.slice(3).replace(/^\/+/, '');
  }
  if (path === '') {
    return { error: 'Enter an endpoint below /api/, e.g. applications/<id>.' };
  }
  const dotSegment = /^(\.|%2e){1,2}$/i;
  if (path.split('/').some((segment) => dotSegment.test(segment))) {
    return { error: 'The endpoint path must not contain "." or ".." segments.' };
  }
  return path + query;
}

/** A GET to `{base}/api/{endpoint}` with the key; `timeoutMs` limits the wait for headers and each silence in the body. */
export interface GetRequest {
  baseUrl: string;
  endpoint: string;
  apiKey: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/**
 * Sends an authenticated GET and parses the JSON answer. Rejects with a {@link QueryError} (never
 * naming the key): `config`, {@link RedirectError}, {@link HttpStatusError}, {@link InvalidJsonError}
 * when the answer is not JSON, {@link NetworkError}, {@link TimeoutError}, {@link StoppedError}.
 */
export async function getJson(req: GetRequest): Promise<{ url: string; status: number; json: unknown; bytes: number }> {
  const secrets = [req.apiKey];
  try {
    return await get(req, secrets);
  } catch (error) {
    throw sanitizeError(error, secrets);
  }
}

async function get(req: GetRequest, secrets: readonly string[]): Promise<{ url: string; status: number; json: unknown; bytes: number }> {
  const target = checkService(req.baseUrl, req.apiKey);
  const endpoint = normalizeEndpoint(req.endpoint);
  if (typeof endpoint !== 'string') {
    throw new QueryError('config', endpoint.error);
  }
  const timeout = req.timeoutMs ?? 0;
  const transfer = new Transfer(req.signal, timeout, timeout);
  try {
    const { response, url } = await openServiceRequest({ target, path: endpoint, method: 'GET', accept: 'application/json, */*;q=0.5', fetchImpl: req.fetchImpl, transfer, secrets });
    const { status, headers } = response;
    const contentType = headers.get('content-type') ?? '';
    if (status === 204) {
      discardBody(response.body, transfer);
      return { url, status, json: null, bytes: 0 };
    }
    const read = await readBodyText(response.body, transfer);
    const text = read.replace(/^\uFEFF/, '');
    const type = mediaType(contentType);
    const what = type === '' ? 'no content type' : type;
    if (text.trim() === '') {
      throw new InvalidJsonError(`${url} answered with ${what} and an empty body, not JSON.`);
    }
    try {
      return { url, status, json: JSON.parse(text) as unknown, bytes: transfer.bytes };
    } catch {
      const html = type === 'text/html' || /^\s*</.test(text);
      // Masked whole (plainExcerpt masks before it cuts), then cut: a cut never keeps a piece of the key.
      const start = plainExcerpt(text, contentType, secrets).slice(0, 120);
      throw new InvalidJsonError(
        `${url} answered with ${what}, not JSON${html ? ' (an HTML page: a login page or captive portal?)' : ''}. It starts: ${start}`,
      );
    }
  } finally {
    transfer.abort('done');
    transfer.dispose();
  }
}

async function readBodyText(body: ReadableStream<Uint8Array> | null, transfer: Transfer): Promise<string> {
  const { text, complete } = await readLimitedText(body, transfer, MAX_JSON_BYTES + 1);
  if (!complete) {
    if (transfer.abortedBy === 'idle' || transfer.abortedBy === 'headers') {
      throw transfer.bodyError(undefined);
    }
    if (transfer.bytes > MAX_JSON_BYTES) {
      throw new InvalidJsonError(`The answer is larger than ${MAX_JSON_BYTES / 1024 / 1024} MiB; it was not read.`);
    }
    throw transfer.bodyError(new Error('the connection closed before the answer was complete'));
  }
  return text;
}
