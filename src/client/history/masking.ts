// What History does so that no exchange it keeps holds an API key: the Authorization header in its
// masked form, and every secret masked in every string (object keys too).
import { type Exchange } from './exchange';
import { isRecord } from '../formats/json';
import { isMaskedToken, maskKey, maskSecrets } from '../../shared/secretMask';

/** The request headers of a query as History records them: the key masked, the rest as sent. */
export function maskHeaders(headers: Readonly<Record<string, string>>, secrets: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization') {
      const parts = /^(\S+)\s+(.*)$/.exec(value.trim());
      const token = parts === null ? value.trim() : parts[2];
      const masked = isMaskedToken(token) ? token : maskKey(token);
      out[name] = parts === null ? masked : `${parts[1]} ${masked}`;
    } else {
      out[name] = maskSecrets(value, secrets);
    }
  }
  return out;
}

/** A copy of a JSON-like value with {@link maskSecrets} applied to every string in it (keys of objects too). */
export function maskSecretsIn<T>(value: T, secrets: readonly string[] = []): T {
  return mapStrings(value, (text) => maskSecrets(text, secrets)) as T;
}

/** The exchange with every string masked ({@link maskSecrets}) and the Authorization header in its masked form. */
export function scrubExchange(exchange: Exchange, secrets: readonly string[]): Exchange {
  const scrubbed = maskSecretsIn(exchange, secrets);
  return { ...scrubbed, request: { ...scrubbed.request, headers: maskHeaders(scrubbed.request.headers, secrets) } };
}

function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') {
    return fn(value);
  }
  if (Array.isArray(value)) {
    return value.map((item) => mapStrings(item, fn));
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[fn(key)] = mapStrings(item, fn);
    }
    return out;
  }
  return value;
}
