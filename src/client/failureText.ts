// Failures in plain words: an error body as a one-line excerpt, a fetch that got no response or a
// body cut short as a sentence, and no secret in any of them. Internal to the client (src/client).
import { mediaType } from './formats';
import { maskSecrets } from '../shared/secretMask';

const EXCERPT_LENGTH = 500;

/**
 * An error body as one line of plain text (at most 500 characters): HTML is reduced to its text,
 * a JSON error object to its message, control characters and runs of spaces to one space. The
 * `secrets` are masked in any encoded form before anything is cut, also a piece at the end of a
 * body that was read only up to a limit.
 */
export function plainExcerpt(text: string, contentType: string, secrets: readonly string[] = []): string {
  const type = mediaType(contentType);
  const source = maskSecrets(text, secrets);
  let plain = source;
  if (type === 'text/html' || type === 'application/xhtml+xml' || /^\s*<(!doctype\s+html|html|head|body)\b/i.test(source)) {
    plain = decodeEntities(
      source
        .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
        .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
        .replace(/<[^>]*>?/g, ' '),
    );
  } else {
    const message = jsonErrorMessage(source);
    if (message !== undefined) {
      plain = message;
    }
  }
  // eslint-disable-next-line no-control-regex
  plain = plain.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim();
  // Decoding entities or a JSON string may have spelled out a key the encoded body hid.
  plain = maskSecrets(plain, secrets);
  return plain.length > EXCERPT_LENGTH ? `${plain.slice(0, EXCERPT_LENGTH - 1)}…` : plain;
}

function jsonErrorMessage(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const error = record['error'];
  const candidates: unknown[] = [
    typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['message'] : error,
    record['message'],
    record['detail'],
    record['error_description'],
    record['title'],
  ];
  const found = candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate.trim() !== '');
  return found;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The first error code found along an error's cause chain (AggregateError members included). */
function findCode(error: unknown, depth = 0): { code: string; message: string } | undefined {
  if (depth > 8 || typeof error !== 'object' || error === null) {
    return undefined;
  }
  const record = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string') {
    return { code: record.code, message: typeof record.message === 'string' ? record.message : record.code };
  }
  const fromCause = findCode(record.cause, depth + 1);
  if (fromCause !== undefined) {
    return fromCause;
  }
  if (Array.isArray(record.errors)) {
    for (const member of record.errors) {
      const found = findCode(member, depth + 1);
      if (found !== undefined) {
        return found;
      }
    }
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let current: unknown = error;
  let message = 'unknown error';
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const record = current as { message?: unknown; cause?: unknown };
    if (typeof record.message === 'string' && record.message !== '') {
      message = record.message;
    }
    current = record.cause;
  }
  if (typeof error === 'string') {
    message = error;
  }
  return message;
}

const TLS_CODES = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH)/;

/** A plain-language sentence for a fetch that got no response. */
export function describeNetworkError(error: unknown, origin: string): string {
  const found = findCode(error);
  if (found === undefined) {
    return `The request to ${origin} failed: ${innermostMessage(error)}.`;
  }
  const host = hostOf(origin);
  switch (found.code) {
    case 'ECONNREFUSED':
      return `Could not connect to ${origin} (connection refused). Is the service running, and is applicationQuery.baseUrl right?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `Could not find the host ${host} (DNS lookup failed). Check applicationQuery.baseUrl and your network connection.`;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return `The connection to ${origin} was closed before the service answered (${found.message}).`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `Connecting to ${origin} timed out. Check applicationQuery.baseUrl, your network and any proxy settings.`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return `${origin} cannot be reached from this machine (${found.code}). Check your network connection.`;
    default:
      if (TLS_CODES.test(found.code)) {
        return `The secure connection to ${origin} failed: its certificate is not trusted (${found.code}: ${found.message}).`;
      }
      return `The request to ${origin} failed (${found.code}: ${found.message}).`;
  }
}

/** Why a body read stopped, in plain words (the end of a `StreamInterruptedError`'s sentence). */
export function describeCut(error: unknown): string {
  const found = findCode(error);
  if (found === undefined) {
    return `${innermostMessage(error)}.`;
  }
  switch (found.code) {
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'the service closed the connection before the answer was complete.';
    case 'ECONNRESET':
      return 'the connection was reset.';
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'the answer was shorter than the service announced.';
    default:
      return `${found.message} (${found.code}).`;
  }
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
}

/** Makes sure an error leaving the core names no secret: masks them in its message (and excerpt). */
export function sanitizeError(error: unknown, secrets: readonly string[]): unknown {
  if (error instanceof Error) {
    const clean = maskSecrets(error.message, secrets);
    if (clean !== error.message) {
      error.message = clean;
    }
    return error;
  }
  return typeof error === 'string' ? maskSecrets(error, secrets) : error;
}
