// The steps of Diagnose Connection, one function each, and the log they write their results to.
// A step never throws: a failure is its result.
import { promises as dns } from 'node:dns';
import * as net from 'node:net';
import { describeStatus, HttpStatusError, QueryError, RedirectError } from '../errors';
import { getJson } from '../getClient';
import { formatDuration } from '../../shared/format';
import { isKeyRefused } from '../../shared/outcome';
import { maskSecrets } from '../../shared/secretMask';
import { certificateAdvice, describeConnectError, tcpAdvice } from './advice';
import { connectTcp, errorCode, errorMessage, firstByte, formatHostPort, probeTls, withTimeout } from './network';
import type { Diagnosis, DiagnosisStep, ProxySettings, StepId, StepStatus, TlsFinding } from './types';
import { isRecord } from '../formats/json';

/** The steps, in the order they run. */
const STEP_ORDER: readonly StepId[] = ['url', 'proxy', 'dns', 'tcp', 'tls', 'firstByte', 'key'];

const TITLES: Readonly<Record<StepId, string>> = {
  url: 'Base URL',
  proxy: 'Proxy',
  dns: 'DNS',
  tcp: 'TCP connect',
  tls: 'TLS',
  firstByte: 'First response byte',
  key: 'Key check',
};

/** What a step adds to its one-line summary. */
interface StepExtra {
  details?: string[];
  advice?: string;
  ms?: number;
}

/** The checked steps, each added once, every text masked whole as it is added (before any later cut). */
export class StepLog {
  private readonly steps: DiagnosisStep[] = [];

  constructor(private readonly secrets: readonly string[]) {}

  /** `text` with every secret masked. */
  mask(text: string): string {
    return maskSecrets(text, this.secrets);
  }

  add(id: StepId, status: StepStatus, summary: string, extra: StepExtra = {}): void {
    this.steps.push({
      id,
      title: TITLES[id],
      status,
      summary: this.mask(summary),
      details: (extra.details ?? []).map((detail) => this.mask(detail)),
      ...(extra.advice === undefined ? {} : { advice: this.mask(extra.advice) }),
      ...(extra.ms === undefined ? {} : { ms: Math.round(extra.ms) }),
    });
  }

  has(id: StepId): boolean {
    return this.steps.some((step) => step.id === id);
  }

  /** Adds each of `ids` not added yet as skipped, for `why`. */
  skip(ids: readonly StepId[], why: string): void {
    for (const id of ids) {
      if (!this.has(id)) {
        this.add(id, 'skipped', why);
      }
    }
  }

  /** Skips `from` and every step after it that was not added yet. */
  skipRest(from: StepId, why: string): void {
    this.skip(STEP_ORDER.slice(STEP_ORDER.indexOf(from)), why);
  }

  /** The steps in the order they run. */
  inOrder(): DiagnosisStep[] {
    return [...this.steps].sort((a, b) => STEP_ORDER.indexOf(a.id) - STEP_ORDER.indexOf(b.id));
  }

  /** No step failed. */
  get ok(): boolean {
    return !this.steps.some((step) => step.status === 'failed');
  }
}

/** The addresses `hostname` resolves to (itself when it is an IP address), or `undefined` when it does not resolve. */
export async function checkDns(log: StepLog, hostname: string, timeoutMs: number, failure: StepStatus): Promise<Diagnosis['addresses']> {
  if (net.isIP(hostname) !== 0) {
    log.add('dns', 'ok', `${hostname} is an IP address: no lookup needed.`);
    return [{ address: hostname, family: net.isIP(hostname) }];
  }
  const started = performance.now();
  try {
    const found = await withTimeout(dns.lookup(hostname, { all: true, verbatim: true }), timeoutMs, `no answer within ${formatDuration(timeoutMs)}`);
    log.add('dns', 'ok', `${hostname} → ${found.map((a) => `${a.address} (IPv${a.family})`).join(', ')}`, { ms: performance.now() - started });
    return found.map(({ address, family }) => ({ address, family }));
  } catch (error) {
    const code = errorCode(error);
    log.add('dns', failure, `Could not resolve ${hostname} (${code ?? errorMessage(error)}).`, {
      ms: performance.now() - started,
      advice: 'Check the host name in applicationQuery.baseUrl, your network connection and VPN; on a corporate network the name may resolve only through the proxy.',
    });
    return undefined;
  }
}

/**
 * Connects to each address in turn, as clients fall back (localhost may be ::1 first while the
 * service is on 127.0.0.1); the address that took the connection, or `undefined` when none did.
 */
export async function checkTcp(log: StepLog, addresses: readonly string[], hostname: string, port: number, timeoutMs: number, failure: StepStatus): Promise<string | undefined> {
  const started = performance.now();
  const failures: string[] = [];
  let firstError: unknown;
  for (const candidate of addresses.slice(0, 4)) {
    try {
      await connectTcp(candidate, port, timeoutMs);
      log.add('tcp', 'ok', `Connected to ${formatHostPort(candidate, port)}.`, { ms: performance.now() - started, details: failures.map((f) => `first tried: ${f}`) });
      return candidate;
    } catch (error) {
      firstError ??= error;
      failures.push(describeConnectError(error, candidate, port, timeoutMs));
    }
  }
  log.add('tcp', failure, failures[0] ?? `no address to connect to for ${hostname}.`, {
    ms: performance.now() - started,
    details: failures.slice(1),
    advice: tcpAdvice(errorCode(firstError), hostname),
  });
  return undefined;
}

/** The TLS handshake and the certificate: its fields, whether it is trusted and for how long. */
export async function checkTls(
  log: StepLog,
  target: { address: string; hostname: string; port: number },
  timeoutMs: number,
  env: Readonly<Record<string, string | undefined>>,
  proxySettings: ProxySettings,
): Promise<TlsFinding> {
  const started = performance.now();
  try {
    const found = await probeTls(target.address, target.hostname, target.port, timeoutMs);
    const details = [
      `protocol ${found.protocol ?? '?'}, cipher ${found.cipher ?? '?'}`,
      `subject ${found.subject ?? '?'}`,
      `issuer ${found.issuer ?? '?'}`,
      `valid until ${found.validTo ?? '?'}`,
    ];
    if (found.trusted) {
      const days = found.validTo === undefined ? undefined : (Date.parse(found.validTo) - Date.now()) / 86_400_000;
      const soon = days !== undefined && days < 14;
      log.add('tls', soon ? 'warning' : 'ok', `${found.protocol ?? 'TLS'}, certificate trusted${soon ? `, but it expires in ${Math.max(0, Math.floor(days))} days` : ''}.`, {
        ms: performance.now() - started,
        details,
        ...(soon ? { advice: 'The service must renew its certificate soon.' } : {}),
      });
    } else {
      log.add('tls', 'failed', `The certificate is not trusted: ${found.errorCode ?? 'unknown reason'}.`, {
        ms: performance.now() - started,
        details,
        advice: certificateAdvice(found.errorCode ?? '', env, proxySettings),
      });
    }
    return found;
  } catch (error) {
    const code = errorCode(error) ?? 'handshake failed';
    log.add('tls', 'failed', `The TLS handshake failed (${code}: ${errorMessage(error)}).`, {
      ms: performance.now() - started,
      advice: /WRONG_VERSION_NUMBER|EPROTO|packet length/i.test(`${code} ${errorMessage(error)}`)
        ? 'The port does not speak TLS: check whether the service uses http: or another port.'
        : certificateAdvice(code, env, proxySettings),
    });
    return { trusted: false, errorCode: code };
  }
}

/** The first response byte of a GET without the key, on a new connection. */
export async function checkFirstByte(log: StepLog, baseUrl: string, applicationId: string | undefined, timeoutMs: number, failure: StepStatus): Promise<void> {
  const target = applicationId === undefined ? `${baseUrl}/` : `${baseUrl}/api/applications/${encodeURIComponent(applicationId)}`;
  const started = performance.now();
  try {
    const answer = await firstByte(target, timeoutMs);
    const ms = performance.now() - started;
    const html = /^(text\/html|application\/xhtml\+xml)/i.test(answer.contentType);
    log.add('firstByte', html ? 'warning' : 'ok', `HTTP ${answer.status} (GET ${target} without the key, on a new connection).`, {
      ms,
      ...(html ? { advice: 'An HTML page answered: a captive portal, a login wall or the wrong service? Check applicationQuery.baseUrl.' } : {}),
    });
  } catch (error) {
    log.add('firstByte', failure, `No response (${errorCode(error) ?? errorMessage(error)}).`, { ms: performance.now() - started });
  }
}

/** What the key check needs: where, which application, the key, and the caller's fetch and signal. */
export interface KeyCheck {
  readonly baseUrl: string;
  readonly origin: string;
  readonly applicationId?: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  readonly fetchImpl?: typeof fetch;
  readonly signal?: AbortSignal;
  /** Whether the service can be reached at all (directly, or through a proxy the caller's fetch uses). */
  readonly reachable: boolean;
}

/**
 * The key check, through the caller's fetch (in VS Code, its proxy support): the application's
 * record asked for with the key. The HTTP status it got, if any.
 */
export async function checkKey(log: StepLog, check: KeyCheck): Promise<number | undefined> {
  if (check.applicationId === undefined) {
    log.add('key', 'skipped', 'No application is selected: choose one with "Select Application…".');
    return undefined;
  }
  if (check.apiKey === undefined || check.apiKey === '') {
    log.add('key', 'skipped', `No API key is stored for ${check.applicationId} on ${check.origin}.`, { advice: 'Run "Set API Key…".' });
    return undefined;
  }
  if (!check.reachable) {
    log.add('key', 'skipped', 'Not checked: the service cannot be reached.');
    return undefined;
  }
  const started = performance.now();
  const endpoint = `applications/${encodeURIComponent(check.applicationId)}`;
  try {
    const answer = await getJson({ baseUrl: check.baseUrl, endpoint, apiKey: check.apiKey, timeoutMs: check.timeoutMs, fetchImpl: check.fetchImpl, signal: check.signal });
    const name = isRecord(answer.json) && typeof answer.json['name'] === 'string' ? ` ("${answer.json['name']}")` : '';
    log.add('key', 'ok', `HTTP ${answer.status}: the key works for ${check.applicationId}${name}.`, { ms: performance.now() - started });
    return answer.status;
  } catch (error) {
    const ms = performance.now() - started;
    if (error instanceof HttpStatusError) {
      log.add('key', 'failed', `HTTP ${error.status}: ${describeStatus(error.status)}`, {
        ms,
        // The excerpt was masked whole before it was cut (openExchange); masked again here, whatever made the error.
        ...(error.bodyExcerpt === '' ? {} : { details: [`The service said: ${log.mask(error.bodyExcerpt)}`] }),
        ...(isKeyRefused(error.status) ? { advice: 'Run "Set API Key…" with a key generated for this application.' } : {}),
      });
      return error.status;
    }
    if (error instanceof RedirectError) {
      log.add('key', 'failed', error.message, { ms });
      return error.status;
    }
    log.add('key', 'failed', error instanceof QueryError ? error.message : errorMessage(error), { ms });
    return undefined;
  }
}
