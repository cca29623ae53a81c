// What History does so that no exchange it keeps holds an API key: the Authorization header in its
// masked form, every secret masked in every string, and `Bearer` tokens masked where they are
// credentials (the request, failure messages). The recorder masks the three large texts (the request
// body, the raw body and the answer) once, as it captures them; History masks them again only for
// keys it is told about that the recorder did not know.
import { type Exchange } from './exchange';
import { isRecord } from '../formats/json';
import { isMaskedToken, maskCredentials, maskKey, maskSecrets } from '../../shared/secretMask';

/** The request headers of a query as History records them: the key masked, the rest as sent (names and values masked). */
export function maskHeaders(headers: Readonly<Record<string, string>>, secrets: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization') {
      const parts = /^(\S+)\s+(.*)$/.exec(value.trim());
      const token = parts === null ? value.trim() : parts[2];
      const masked = isMaskedToken(token) ? token : maskKey(token);
      out[name] = parts === null ? masked : `${parts[1]} ${masked}`;
    } else {
      out[maskSecrets(name, secrets)] = maskCredentials(value, secrets);
    }
  }
  return out;
}

/** A copy of a JSON-like value from outside with {@link maskSecrets} applied to every string in it (keys of objects too). */
export function maskSecretsIn<T>(value: T, secrets: readonly string[] = []): T {
  return mapStrings(value, (text) => maskSecrets(text, secrets), true) as T;
}

/**
 * The exchange with every string value masked ({@link maskSecrets}; its own field names are ours and
 * stay), the request's URL, headers and body also of `Bearer` tokens, the Authorization header in its
 * masked form, and the response's header names masked too. The raw body and the answer are masked
 * when `secrets` are given, unless `textsMasked` says the recorder already did (it masks them once,
 * as they stream; a `Bearer` in an answer is a word, never masked).
 */
export function scrubExchange(exchange: Exchange, secrets: readonly string[], textsMasked = false): Exchange {
  const { request, response } = exchange;
  const { body, ...requestRest } = request;
  const mask = (text: string): string => maskSecrets(text, secrets);
  const maskText = (text: string): string => (textsMasked || secrets.length === 0 ? text : mask(text));
  const scrubbed = mapStrings({ ...exchange, request: requestRest, response: undefined }, mask, false) as Exchange;
  const responseRest = response === undefined ? undefined : (mapStrings({ ...response, raw: '', text: '', headers: {} }, mask, false) as NonNullable<Exchange['response']>);
  const { message, warning } = exchange.outcome;
  return {
    ...scrubbed,
    // Messages about a failure may quote the request: a `Bearer` token there is a credential.
    outcome: { ...scrubbed.outcome, ...(message === undefined ? {} : { message: maskCredentials(message, secrets) }), ...(warning === undefined ? {} : { warning: maskCredentials(warning, secrets) }) },
    request: {
      ...scrubbed.request,
      url: maskCredentials(request.url, secrets),
      headers: maskHeaders(request.headers, secrets),
      ...(body === undefined ? {} : { body: textsMasked ? body : maskCredentials(body, secrets) }),
    },
    ...(response === undefined || responseRest === undefined
      ? {}
      : { response: { ...responseRest, headers: mapStrings(response.headers, mask, true) as Record<string, string>, raw: maskText(response.raw), text: maskText(response.text) } }),
  };
}

function mapStrings(value: unknown, fn: (text: string) => string, names: boolean): unknown {
  if (typeof value === 'string') {
    return fn(value);
  }
  if (Array.isArray(value)) {
    return value.map((item) => mapStrings(item, fn, names));
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[names ? fn(key) : key] = mapStrings(item, fn, names);
    }
    return out;
  }
  return value;
}
