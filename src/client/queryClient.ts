import { validateApplicationId, type ResponseFormat } from '../shared/applications';
import { CUT_CHARACTER_WARNING, decoderForContentType, type TextStreamDecoder } from './decode';
import { StoppedError, QueryError, UnexpectedContentError } from './errors';
import { sanitizeError } from './failureText';
import { detectFormatFromHeaders, mediaType, parseFormat, sniffFormat, type WireFormat } from './formats';
import { checkService, discardBody, openServiceRequest, Transfer } from './http';

/** One query to send: where, with which key, what body, and how to stream the answer. */
export interface QueryRequest {
  readonly baseUrl: string;
  readonly applicationId: string;
  readonly apiKey: string;
  /** The JSON body (usually a rendered request template). */
  readonly body: unknown;
  /** The body's JSON text, when the caller has it already: sent exactly as given (a replay sends the recorded bytes). */
  readonly bodyText?: string;
  /** Aborting it stops the request at any moment, keeping what arrived. */
  readonly signal?: AbortSignal;
  /** How long to wait for the response headers; 0 or absent: no limit. */
  readonly headersTimeoutMs?: number;
  /** How long the body may stay silent; 0 or absent: no limit. */
  readonly idleTimeoutMs?: number;
  readonly responseFormat?: ResponseFormat;
  /** Dotted path of the text field in SSE/NDJSON events, e.g. `choices.0.delta.content`. */
  readonly responseField?: string;
  /** Receives the exact decoded wire text, for the raw view and the log. */
  readonly onRaw?: (text: string) => void;
  /** The fetch to use (defaults to the runtime's global fetch, which carries the editor's proxy support). */
  readonly fetchImpl?: typeof fetch;
}

/** A successful (2xx) response whose answer is still streaming. */
export interface QueryResponse {
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string;
  /** The response headers as received. */
  readonly headers: Headers;
  readonly format: WireFormat;
  /** The answer text pieces in arrival order; iterate once. Throws a {@link QueryError} if the stream fails. */
  readonly text: AsyncIterable<string>;
  /** Body bytes received so far. */
  readonly bytesReceived: () => number;
  /** Things worth telling the user once the answer ended (e.g. a character cut at the end). */
  readonly warnings: string[];
  /**
   * True once an SSE, NDJSON or data-stream answer ended normally with body bytes but no answer
   * text in any of its events (a warning saying so is in `warnings`): show the raw response and
   * suggest `responseField`. Never true for plain text, which is its own answer.
   */
  readonly noTextExtracted: () => boolean;
}

/** The exact Accept header sent with a query. */
export const QUERY_ACCEPT = 'text/plain, text/event-stream, application/x-ndjson, application/json;q=0.9, */*;q=0.8';

/**
 * Sends a query and resolves once the response headers arrived with a 2xx status; the answer then
 * streams through `text`. Rejects with a {@link QueryError} (never naming the key): `config` for bad
 * settings, {@link RedirectError} (redirects are never followed), {@link HttpStatusError},
 * {@link UnexpectedContentError} for an HTML page, {@link NetworkError}, {@link TimeoutError},
 * {@link StoppedError}.
 */
export async function sendQuery(req: QueryRequest): Promise<QueryResponse> {
  const secrets = [req.apiKey];
  try {
    return await send(req, secrets);
  } catch (error) {
    throw sanitizeError(error, secrets);
  }
}

async function send(req: QueryRequest, secrets: readonly string[]): Promise<QueryResponse> {
  const target = checkService(req.baseUrl, req.apiKey);
  const idProblem = validateApplicationId(req.applicationId);
  if (idProblem !== undefined) {
    throw new QueryError('config', idProblem);
  }
  let body: string;
  try {
    body = req.bodyText ?? JSON.stringify(req.body ?? {}) ?? '{}';
  } catch (error) {
    throw new QueryError('config', `The request body cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const transfer = new Transfer(req.signal, req.headersTimeoutMs ?? 0, req.idleTimeoutMs ?? 0);
  let handedOver = false;
  try {
    const { response, url } = await openServiceRequest({
      target,
      path: `applications/${encodeURIComponent(req.applicationId)}/query`,
      method: 'POST',
      accept: QUERY_ACCEPT,
      body,
      fetchImpl: req.fetchImpl,
      transfer,
      secrets,
    });
    const { status, headers } = response;
    const contentType = headers.get('content-type') ?? '';
    const type = mediaType(contentType);
    if (type === 'text/html' || type === 'application/xhtml+xml') {
      discardBody(response.body, transfer);
      throw new UnexpectedContentError(
        contentType,
        `The service answered with an HTML page (a login page or captive portal?) instead of an answer (HTTP ${status}, ${type}). Check applicationQuery.baseUrl and your network.`,
      );
    }

    const warnings: string[] = [];
    const textless = { value: false };
    const { decoder, warning: charsetWarning } = decoderForContentType(contentType);
    if (charsetWarning !== undefined) warnings.push(charsetWarning);
    const pieces = readBody(response.body, transfer, decoder, req.onRaw, warnings);
    let format: WireFormat | undefined =
      req.responseFormat !== undefined && req.responseFormat !== 'auto' ? req.responseFormat : detectFormatFromHeaders(contentType, headers);
    let text: AsyncIterable<string> = pieces;
    if (format === undefined) {
      // The headers do not say: look at the first text, and hand it on in front of the rest.
      const first: string[] = [];
      let firstText = '';
      let failure: { error: unknown } | undefined;
      try {
        for (;;) {
          const next = await pieces.next();
          if (next.done === true) {
            format = sniffFormat(firstText, true) ?? 'text';
            break;
          }
          first.push(next.value);
          firstText += next.value;
          format = sniffFormat(firstText, false);
          if (format !== undefined) {
            break;
          }
        }
      } catch (error) {
        failure = { error };
        format = sniffFormat(firstText, true) ?? 'text';
      }
      text = prepend(first, pieces, failure);
    }
    if (format !== 'text') {
      text = watch(parseFormat(format, text, req.responseField), format, transfer, warnings, secrets, textless);
    }
    handedOver = true;
    return {
      url,
      status,
      statusText: response.statusText,
      contentType,
      headers,
      format,
      text,
      bytesReceived: () => transfer.bytes,
      warnings,
      noTextExtracted: () => textless.value,
    };
  } finally {
    if (!handedOver) {
      transfer.abort('done');
      transfer.dispose();
    }
  }
}

/** Reads and decodes the body; closes the connection and clears the timers however it ends. */
async function* readBody(
  body: ReadableStream<Uint8Array> | null,
  transfer: Transfer,
  decoder: TextStreamDecoder,
  onRaw: ((text: string) => void) | undefined,
  warnings: string[],
): AsyncGenerator<string, void, undefined> {
  if (body === null) {
    transfer.dispose();
    return;
  }
  const reader = body.getReader();
  let complete = false;
  try {
    for (;;) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      transfer.beginRead();
      try {
        result = await reader.read();
      } catch (error) {
        throw transfer.bodyError(error);
      } finally {
        transfer.endRead();
      }
      if (result.done) {
        break;
      }
      if (transfer.abortedBy === 'user') {
        // Stop means stop, even when more of the body is already buffered.
        throw new StoppedError();
      }
      transfer.bytes += result.value.byteLength;
      const text = decoder.push(result.value);
      if (text !== '') {
        onRaw?.(text);
        yield text;
      }
    }
    complete = true;
    const { text, cut } = decoder.end();
    if (cut) {
      warnings.push(CUT_CHARACTER_WARNING);
    }
    if (text !== '') {
      onRaw?.(text);
      yield text;
    }
  } finally {
    if (!complete) {
      // Stopped early (error, abort, or the consumer broke off): close the connection now.
      transfer.abort('done');
      void reader.cancel().catch(() => undefined);
    }
    transfer.dispose();
  }
}

async function* prepend(
  first: readonly string[],
  rest: AsyncGenerator<string, void, undefined>,
  failure: { error: unknown } | undefined,
): AsyncGenerator<string, void, undefined> {
  try {
    yield* first;
    if (failure !== undefined) {
      throw failure.error;
    }
    yield* rest;
  } finally {
    // If the consumer stops during the first pieces, `rest` was never resumed by yield*: close it.
    await rest.return(undefined);
  }
}

/** Wraps a parsed stream: keeps errors free of secrets and warns when events carried no text at all. */
async function* watch(
  parsed: AsyncIterable<string>,
  format: WireFormat,
  transfer: Transfer,
  warnings: string[],
  secrets: readonly string[],
  textless: { value: boolean },
): AsyncGenerator<string, void, undefined> {
  let pieces = 0;
  try {
    for await (const piece of parsed) {
      pieces++;
      yield piece;
    }
  } catch (error) {
    throw sanitizeError(error, secrets);
  }
  if (pieces === 0 && transfer.bytes > 0) {
    textless.value = true;
    warnings.push(
      `The service sent ${transfer.bytes} bytes as ${format === 'vercel-data' ? 'an AI SDK data stream' : format.toUpperCase()} but no answer text was found in them. ` +
        'If the text is in an unusual field, set "responseField" for this application (see the raw response).',
    );
  }
}

