/**
 * Diagnose Connection: every step between the user and the service, checked and timed one by one
 * (base URL, proxy, DNS, TCP, TLS, first response byte, key check), as a structured result and as a
 * Markdown report. Never holds or prints the API key.
 */
import { promises as dns } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { validateBaseUrl } from '../shared/baseUrl';
import { describeStatus, HttpStatusError, QueryError, RedirectError } from './errors';
import { formatDuration } from '../shared/format';
import { getJson } from './getClient';
import { maskSecretsIn } from './history';
import { maskSecrets } from '../shared/secretMask';

/** One setting as it is in effect, and where its value comes from. */
export interface SettingInEffect {
  readonly name: string;
  readonly value: unknown;
  /** E.g. `user settings`, `remote settings`, `default`. */
  readonly source: string;
  /** E.g. `a workspace value is ignored: this setting is user-only`. */
  readonly note?: string;
}

/** The proxy and certificate settings VS Code applies, as the caller read them. */
export interface ProxySettings {
  /** `http.proxy`. */
  readonly httpProxy?: string;
  /** `http.proxySupport` (`off`, `on`, `fallback`, `override`). */
  readonly proxySupport?: string;
  /** `http.fetchAdditionalSupport`: whether `fetch` in extensions uses the proxy and system certificates. */
  readonly fetchAdditionalSupport?: boolean;
  /** `http.systemCertificates`. */
  readonly systemCertificates?: boolean;
  /** The environment to read `HTTP(S)_PROXY`, `NO_PROXY` and `NODE_EXTRA_CA_CERTS` from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What to diagnose. */
export interface DiagnoseOptions {
  /** `applicationQuery.baseUrl` as set. */
  readonly baseUrl: string;
  /** The current application, for the key check. */
  readonly applicationId?: string;
  /** Its key, when one is stored; never part of the result. */
  readonly apiKey?: string;
  /** The limit for each step, in ms (default 5000). */
  readonly timeoutMs?: number;
  readonly settings?: readonly SettingInEffect[];
  readonly proxy?: ProxySettings;
  /** The fetch for the key check (default the global one, which in VS Code applies its proxy settings). */
  readonly fetchImpl?: typeof fetch;
  /** Stops the remaining steps. */
  readonly signal?: AbortSignal;
}

/** The steps, in the order they run. */
export type StepId = 'url' | 'proxy' | 'dns' | 'tcp' | 'tls' | 'firstByte' | 'key';

/** How a step went. `warning`: it worked, or could not tell, but something deserves a look. */
export type StepStatus = 'ok' | 'warning' | 'failed' | 'skipped';

/** One checked step. */
export interface DiagnosisStep {
  readonly id: StepId;
  readonly title: string;
  readonly status: StepStatus;
  /** One line: what was found. */
  readonly summary: string;
  /** More lines worth reading (addresses, certificate fields…). */
  readonly details: readonly string[];
  /** What to do about it, when something is wrong. */
  readonly advice?: string;
  /** How long the step took. */
  readonly ms?: number;
}

/** The proxy that applies to the service, as far as settings and environment tell. */
export interface ProxyFinding {
  /** The proxy URL (credentials masked), if one applies. */
  readonly proxy?: string;
  /** Where it comes from: `http.proxy`, `HTTPS_PROXY`… */
  readonly from?: string;
  /** Set when NO_PROXY exempts the service's host. */
  readonly bypassedBy?: string;
  readonly settings: ProxySettings;
}

/** The TLS connection, or why it failed. */
export interface TlsFinding {
  readonly protocol?: string;
  readonly cipher?: string;
  readonly subject?: string;
  readonly issuer?: string;
  readonly validTo?: string;
  /** Whether Node's default trust store (plus NODE_EXTRA_CA_CERTS) accepts the certificate. */
  readonly trusted: boolean;
  /** The certificate or handshake error code, e.g. `DEPTH_ZERO_SELF_SIGNED_CERT`. */
  readonly errorCode?: string;
}

/** Everything Diagnose Connection found. */
export interface Diagnosis {
  /** When it ran (ISO 8601). */
  readonly when: string;
  readonly baseUrl: string;
  readonly origin?: string;
  readonly applicationId?: string;
  readonly settings: readonly SettingInEffect[];
  readonly proxy: ProxyFinding;
  /** The addresses the host name resolved to. */
  readonly addresses?: readonly { readonly address: string; readonly family: number }[];
  readonly tls?: TlsFinding;
  /** The key check's HTTP status, when it got one. */
  readonly keyStatus?: number;
  readonly steps: readonly DiagnosisStep[];
  /** No step failed. */
  readonly ok: boolean;
}

const DEFAULT_TIMEOUT_MS = 5000;
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

/**
 * Runs every step, each bounded by `timeoutMs`, and never throws: a failure is a step's result
 * (a stopped service gives "connection refused at 127.0.0.1:PORT: is the service running?").
 * The DNS, TCP, TLS and first-byte steps connect directly from this process; the key check uses
 * `fetchImpl`, which in VS Code goes through its proxy support. The key appears nowhere in the result.
 */
export async function diagnose(options: DiagnoseOptions): Promise<Diagnosis> {
  const secrets = options.apiKey === undefined ? [] : [options.apiKey];
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const steps: DiagnosisStep[] = [];
  // Every text a step holds is masked whole as it is added (a service's answer, an error), before any later cut.
  const mask = (text: string): string => maskSecrets(text, secrets);
  const add = (id: StepId, status: StepStatus, summary: string, extra: { details?: string[]; advice?: string; ms?: number } = {}): void => {
    steps.push({
      id,
      title: TITLES[id],
      status,
      summary: mask(summary),
      details: (extra.details ?? []).map(mask),
      ...(extra.advice === undefined ? {} : { advice: mask(extra.advice) }),
      ...(extra.ms === undefined ? {} : { ms: Math.round(extra.ms) }),
    });
  };
  const skipRest = (from: StepId, why: string): void => {
    for (const id of STEP_ORDER.slice(STEP_ORDER.indexOf(from))) {
      if (!steps.some((step) => step.id === id)) {
        add(id, 'skipped', why);
      }
    }
  };
  const proxySettings = options.proxy ?? {};
  const env = proxySettings.env ?? process.env;
  const result = (extra: Partial<Diagnosis>, proxy: ProxyFinding): Diagnosis =>
    maskSecretsIn(
      {
        when: new Date().toISOString(),
        baseUrl: options.baseUrl,
        ...(options.applicationId === undefined ? {} : { applicationId: options.applicationId }),
        settings: options.settings ?? [],
        proxy,
        ...extra,
        steps: [...steps].sort((a, b) => STEP_ORDER.indexOf(a.id) - STEP_ORDER.indexOf(b.id)),
        ok: !steps.some((step) => step.status === 'failed'),
      },
      secrets,
    );

  const base = validateBaseUrl(options.baseUrl);
  if (!base.ok) {
    add('url', 'failed', base.message, { advice: 'Set applicationQuery.baseUrl in your user settings.' });
    skipRest('proxy', 'Not checked: the base URL is not usable.');
    return result({}, { settings: maskProxySettings(proxySettings) });
  }
  const { url } = base;
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (secure ? 443 : 80));
  add('url', 'ok', `${base.normalized} (origin ${base.origin})`, {
    details: secure ? [] : ['Plain http: is allowed only because the host is loopback.'],
  });

  const proxy = findProxy(proxySettings, env, url);
  const viaProxy = proxy.proxy !== undefined && proxy.bypassedBy === undefined && proxySettings.proxySupport !== 'off';
  add('proxy', 'ok', describeProxy(proxy, proxySettings), {
    details: proxyDetails(proxySettings, env),
    ...(viaProxy ? { advice: 'The DNS, TCP, TLS and first-byte checks connect directly, not through the proxy; the key check goes through VS Code\'s network stack, which uses it.' } : {}),
  });
  // Where a proxy carries the traffic, a failing direct connection is not the user's problem yet.
  const directFailure: StepStatus = viaProxy ? 'warning' : 'failed';
  const extra: { -readonly [K in keyof Diagnosis]?: Diagnosis[K] } = { origin: base.origin };

  const stopped = (): boolean => options.signal?.aborted === true;
  let direct = true;

  // DNS
  let address = hostname;
  if (net.isIP(hostname) !== 0) {
    extra.addresses = [{ address: hostname, family: net.isIP(hostname) }];
    add('dns', 'ok', `${hostname} is an IP address: no lookup needed.`);
  } else {
    const started = performance.now();
    try {
      const found = await withTimeout(dns.lookup(hostname, { all: true, verbatim: true }), timeoutMs, `no answer within ${formatDuration(timeoutMs)}`);
      extra.addresses = found.map(({ address: a, family }) => ({ address: a, family }));
      add('dns', 'ok', `${hostname} → ${found.map((a) => `${a.address} (IPv${a.family})`).join(', ')}`, { ms: performance.now() - started });
    } catch (error) {
      const code = errorCode(error);
      add('dns', directFailure, `Could not resolve ${hostname} (${code ?? errorMessage(error)}).`, {
        ms: performance.now() - started,
        advice: 'Check the host name in applicationQuery.baseUrl, your network connection and VPN; on a corporate network the name may resolve only through the proxy.',
      });
      direct = false;
    }
  }

  // TCP: each address in turn, as clients fall back (localhost may be ::1 first while the service is on 127.0.0.1).
  if (direct && !stopped()) {
    const started = performance.now();
    const failures: string[] = [];
    let firstError: unknown;
    let connected = false;
    for (const candidate of (extra.addresses ?? []).slice(0, 4).map((a) => a.address)) {
      try {
        await connectTcp(candidate, port, timeoutMs);
        address = candidate;
        connected = true;
        break;
      } catch (error) {
        firstError ??= error;
        failures.push(describeConnectError(error, candidate, port, timeoutMs));
      }
    }
    const ms = performance.now() - started;
    if (connected) {
      add('tcp', 'ok', `Connected to ${formatHostPort(address, port)}.`, { ms, details: failures.map((f) => `first tried: ${f}`) });
    } else {
      add('tcp', directFailure, failures[0] ?? `no address to connect to for ${hostname}.`, {
        ms,
        details: failures.slice(1),
        advice: tcpAdvice(errorCode(firstError), hostname),
      });
      direct = false;
    }
  }

  // TLS
  let trusted = true;
  if (!secure) {
    add('tls', 'skipped', 'Plain http: no TLS.');
  } else if (direct && !stopped()) {
    const started = performance.now();
    try {
      const found = await probeTls(address, hostname, port, timeoutMs);
      extra.tls = found;
      trusted = found.trusted;
      const details = [
        `protocol ${found.protocol ?? '?'}, cipher ${found.cipher ?? '?'}`,
        `subject ${found.subject ?? '?'}`,
        `issuer ${found.issuer ?? '?'}`,
        `valid until ${found.validTo ?? '?'}`,
      ];
      if (found.trusted) {
        const days = found.validTo === undefined ? undefined : (Date.parse(found.validTo) - Date.now()) / 86_400_000;
        const soon = days !== undefined && days < 14;
        add('tls', soon ? 'warning' : 'ok', `${found.protocol ?? 'TLS'}, certificate trusted${soon ? `, but it expires in ${Math.max(0, Math.floor(days))} days` : ''}.`, {
          ms: performance.now() - started,
          details,
          ...(soon ? { advice: 'The service must renew its certificate soon.' } : {}),
        });
      } else {
        add('tls', 'failed', `The certificate is not trusted: ${found.errorCode ?? 'unknown reason'}.`, {
          ms: performance.now() - started,
          details,
          advice: certificateAdvice(found.errorCode ?? '', env, proxySettings),
        });
      }
    } catch (error) {
      const code = errorCode(error) ?? 'handshake failed';
      extra.tls = { trusted: false, errorCode: code };
      trusted = false;
      add('tls', 'failed', `The TLS handshake failed (${code}: ${errorMessage(error)}).`, {
        ms: performance.now() - started,
        advice: /WRONG_VERSION_NUMBER|EPROTO|packet length/i.test(`${code} ${errorMessage(error)}`)
          ? 'The port does not speak TLS: check whether the service uses http: or another port.'
          : certificateAdvice(code, env, proxySettings),
      });
    }
  }

  // First response byte, without the key.
  if (direct && trusted && !stopped()) {
    const target = options.applicationId === undefined ? `${base.normalized}/` : `${base.normalized}/api/applications/${encodeURIComponent(options.applicationId)}`;
    const started = performance.now();
    try {
      const answer = await firstByte(target, timeoutMs);
      const ms = performance.now() - started;
      const html = /^(text\/html|application\/xhtml\+xml)/i.test(answer.contentType);
      add('firstByte', html ? 'warning' : 'ok', `HTTP ${answer.status} (GET ${target} without the key, on a new connection).`, {
        ms,
        ...(html ? { advice: 'An HTML page answered: a captive portal, a login wall or the wrong service? Check applicationQuery.baseUrl.' } : {}),
      });
    } catch (error) {
      add('firstByte', directFailure, `No response (${errorCode(error) ?? errorMessage(error)}).`, { ms: performance.now() - started });
    }
  }
  if (!direct) {
    for (const id of ['tcp', 'tls', 'firstByte'] as const) {
      if (!steps.some((step) => step.id === id)) {
        add(id, 'skipped', 'Not checked: no direct connection.');
      }
    }
  } else if (!trusted && !steps.some((step) => step.id === 'firstByte')) {
    add('firstByte', 'skipped', 'Not checked: nothing is sent over an untrusted connection.');
  }

  // Key check, through the caller's fetch (VS Code's proxy support).
  if (stopped()) {
    skipRest('dns', 'Stopped.');
  } else if (options.applicationId === undefined) {
    add('key', 'skipped', 'No application is selected: choose one with "Select Application…".');
  } else if (options.apiKey === undefined || options.apiKey === '') {
    add('key', 'skipped', `No API key is stored for ${options.applicationId} on ${base.origin}.`, { advice: 'Run "Set API Key…".' });
  } else if (!direct && !viaProxy) {
    add('key', 'skipped', 'Not checked: the service cannot be reached.');
  } else {
    const started = performance.now();
    const endpoint = `applications/${encodeURIComponent(options.applicationId)}`;
    try {
      const answer = await getJson({ baseUrl: base.normalized, endpoint, apiKey: options.apiKey, timeoutMs, fetchImpl: options.fetchImpl, signal: options.signal });
      extra.keyStatus = answer.status;
      const name = isRecord(answer.json) && typeof answer.json['name'] === 'string' ? ` ("${answer.json['name']}")` : '';
      add('key', 'ok', `HTTP ${answer.status}: the key works for ${options.applicationId}${name}.`, { ms: performance.now() - started });
    } catch (error) {
      const ms = performance.now() - started;
      if (error instanceof HttpStatusError) {
        extra.keyStatus = error.status;
        add('key', 'failed', `HTTP ${error.status}: ${describeStatus(error.status)}`, {
          ms,
          // The excerpt was masked whole before it was cut (openExchange); masked again here, whatever made the error.
          ...(error.bodyExcerpt === '' ? {} : { details: [`The service said: ${mask(error.bodyExcerpt)}`] }),
          ...(error.status === 401 || error.status === 403 ? { advice: 'Run "Set API Key…" with a key generated for this application.' } : {}),
        });
      } else if (error instanceof RedirectError) {
        extra.keyStatus = error.status;
        add('key', 'failed', error.message, { ms });
      } else {
        add('key', 'failed', error instanceof QueryError ? error.message : errorMessage(error), { ms });
      }
    }
  }
  return result(extra, proxy);
}

const STATUS_ICONS: Readonly<Record<StepStatus, string>> = { ok: '✅', warning: '⚠️', failed: '❌', skipped: '➖' };

/** The diagnosis as a Markdown report for an editor: summary, checks, what to do, settings, proxy. */
export function formatDiagnosis(diagnosis: Diagnosis): string {
  const lines: string[] = ['# Application Query: connection diagnosis', ''];
  const failed = diagnosis.steps.filter((step) => step.status === 'failed');
  const warned = diagnosis.steps.filter((step) => step.status === 'warning');
  lines.push(
    `Run ${diagnosis.when} for ${code(diagnosis.baseUrl)}${diagnosis.applicationId === undefined ? '' : ` and the application ${code(diagnosis.applicationId)}`}.`,
    '',
    failed.length > 0
      ? `**${failed.length} ${failed.length === 1 ? 'check failed' : 'checks failed'}**: ${failed.map((step) => step.title).join(', ')}.`
      : warned.length > 0
        ? `**Every check passed**, with ${warned.length} ${warned.length === 1 ? 'warning' : 'warnings'}.`
        : '**Every check passed.**',
    '',
    '## Checks',
    '',
    '| | check | result | time |',
    '|---|---|---|---|',
  );
  for (const step of diagnosis.steps) {
    const details = step.details.length > 0 ? `<br>${step.details.map(cell).join('<br>')}` : '';
    lines.push(`| ${STATUS_ICONS[step.status]} | ${step.title} | ${cell(step.summary)}${details} | ${step.ms === undefined ? '' : formatDuration(step.ms)} |`);
  }
  const advice = diagnosis.steps.filter((step) => step.advice !== undefined && step.status !== 'skipped');
  if (advice.length > 0) {
    lines.push('', '## What to do', '');
    for (const step of advice) {
      lines.push(`- **${step.title}**: ${step.advice ?? ''}`);
    }
  }
  lines.push('', '## Settings in effect', '');
  if (diagnosis.settings.length === 0) {
    lines.push('(none given)');
  } else {
    lines.push('| setting | value | from |', '|---|---|---|');
    for (const setting of diagnosis.settings) {
      const value = setting.value === undefined ? '(not set)' : code(JSON.stringify(setting.value) ?? typeof setting.value);
      lines.push(`| ${code(setting.name)} | ${cell(value)} | ${cell(setting.source)}${setting.note === undefined ? '' : ` (${cell(setting.note)})`} |`);
    }
  }
  const { proxy } = diagnosis;
  lines.push('', '## Proxy and certificates', '', `- Proxy for this service: ${proxy.proxy === undefined ? 'none' : `${code(proxy.proxy)} from ${proxy.from ?? '?'}`}${proxy.bypassedBy === undefined ? '' : `, bypassed by NO_PROXY ${code(proxy.bypassedBy)}`}`);
  const settings = proxy.settings;
  lines.push(
    `- ${code('http.proxy')}: ${settings.httpProxy === undefined || settings.httpProxy === '' ? '(not set)' : code(settings.httpProxy)}`,
    `- ${code('http.proxySupport')}: ${settings.proxySupport ?? '(not given)'}`,
    `- ${code('http.fetchAdditionalSupport')}: ${settings.fetchAdditionalSupport === undefined ? '(not given)' : String(settings.fetchAdditionalSupport)}`,
    `- ${code('http.systemCertificates')}: ${settings.systemCertificates === undefined ? '(not given)' : String(settings.systemCertificates)}`,
  );
  for (const [name, value] of Object.entries(settings.env ?? {})) {
    lines.push(`- ${code(name)}: ${value === undefined || value === '' ? '(not set)' : code(value)}`);
  }
  lines.push('', 'The API key is never part of this report.', '');
  return lines.join('\n');
}

function findProxy(settings: ProxySettings, env: Readonly<Record<string, string | undefined>>, url: URL): ProxyFinding {
  const masked = maskProxySettings(settings);
  const envValue = (...names: string[]): { name: string; value: string } | undefined => {
    for (const name of names) {
      const value = env[name];
      if (value !== undefined && value.trim() !== '') {
        return { name, value: value.trim() };
      }
    }
    return undefined;
  };
  const fromSetting = settings.httpProxy !== undefined && settings.httpProxy.trim() !== '' ? { name: 'http.proxy', value: settings.httpProxy.trim() } : undefined;
  const chosen =
    fromSetting ??
    (url.protocol === 'https:' ? envValue('HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy') : envValue('HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'));
  if (chosen === undefined) {
    return { settings: masked };
  }
  const noProxy = envValue('NO_PROXY', 'no_proxy');
  const bypass = noProxy === undefined ? undefined : matchNoProxy(noProxy.value, url);
  return { proxy: maskUrlPassword(chosen.value), from: chosen.name, ...(bypass === undefined ? {} : { bypassedBy: bypass }), settings: masked };
}

/** The NO_PROXY entry that exempts the URL's host, if one does (`*`, exact host, domain suffix, optional port). */
function matchNoProxy(list: string, url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of list.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') {
      continue;
    }
    if (entry === '*') {
      return entry;
    }
    const match = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[|\](?=:|$)/g, ''));
    const name = (match?.[1] ?? entry).replace(/^\*?\./, '.');
    if (match?.[2] !== undefined && match[2] !== port) {
      continue;
    }
    if (host === name.replace(/^\./, '') || (name.startsWith('.') && host.endsWith(name)) || (!name.startsWith('.') && host.endsWith(`.${name}`))) {
      return raw.trim();
    }
  }
  return undefined;
}

function describeProxy(proxy: ProxyFinding, settings: ProxySettings): string {
  if (proxy.proxy === undefined) {
    return 'No proxy is configured for this service.';
  }
  if (proxy.bypassedBy !== undefined) {
    return `${proxy.proxy} (from ${proxy.from ?? '?'}) is configured, but NO_PROXY ${proxy.bypassedBy} exempts this host.`;
  }
  if (settings.proxySupport === 'off') {
    return `${proxy.proxy} (from ${proxy.from ?? '?'}) is configured, but http.proxySupport is off: extensions connect directly.`;
  }
  return `Requests go through ${proxy.proxy} (from ${proxy.from ?? '?'}).`;
}

function proxyDetails(settings: ProxySettings, env: Readonly<Record<string, string | undefined>>): string[] {
  const details: string[] = [];
  if (settings.fetchAdditionalSupport === false) {
    details.push('http.fetchAdditionalSupport is off: fetch in extensions does not use the proxy or the system certificates.');
  }
  const extraCa = env['NODE_EXTRA_CA_CERTS'];
  if (extraCa !== undefined && extraCa !== '') {
    details.push(`NODE_EXTRA_CA_CERTS=${extraCa}`);
  }
  return details;
}

function maskProxySettings(settings: ProxySettings): ProxySettings {
  const env = settings.env ?? process.env;
  const names = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy', 'NODE_EXTRA_CA_CERTS'];
  const shown: Record<string, string | undefined> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) {
      shown[name] = /PROXY$/i.test(name) && !/^no_proxy$/i.test(name) ? maskUrlPassword(value) : value;
    }
  }
  return {
    ...settings,
    ...(settings.httpProxy === undefined ? {} : { httpProxy: maskUrlPassword(settings.httpProxy) }),
    env: shown,
  };
}

/** A proxy URL with its password masked: `http://me:••••@proxy:8080`. */
function maskUrlPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/@]*@/i, '$1••••@');
}

function connectTcp(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no connection within ${formatDuration(timeoutMs)}`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

function probeTls(address: string, hostname: string, port: number, timeoutMs: number): Promise<TlsFinding> {
  return new Promise<TlsFinding>((resolve, reject) => {
    // Verification is done by hand below, so the certificate can be described even when it is not trusted.
    const socket = tls.connect({ host: address, port, rejectUnauthorized: false, ...(net.isIP(hostname) === 0 ? { servername: hostname } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no TLS handshake within ${formatDuration(timeoutMs)}`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate();
      const reason: unknown = socket.authorizationError;
      const errorCode = typeof reason === 'string' ? reason : reason instanceof Error ? ((reason as { code?: string }).code ?? reason.message) : undefined;
      const found: TlsFinding = {
        protocol: socket.getProtocol() ?? undefined,
        cipher: socket.getCipher()?.name,
        subject: describeName(cert.subject),
        issuer: describeName(cert.issuer),
        validTo: cert.valid_to === undefined ? undefined : new Date(cert.valid_to).toISOString(),
        trusted: socket.authorized,
        ...(socket.authorized || errorCode === undefined ? {} : { errorCode }),
      };
      socket.destroy();
      resolve(found);
    });
    socket.once('error', (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

function describeName(name: tls.PeerCertificate['subject'] | undefined): string | undefined {
  if (name === undefined || name === null) {
    return undefined;
  }
  const parts: string[] = [];
  for (const field of ['CN', 'O', 'OU', 'C'] as const) {
    const value: unknown = name[field];
    const text = Array.isArray(value) ? value.join(' + ') : typeof value === 'string' ? value : '';
    if (text !== '') {
      parts.push(`${field}=${text}`);
    }
  }
  return parts.length === 0 ? undefined : parts.join(', ');
}

function firstByte(target: string, timeoutMs: number): Promise<{ status: number; contentType: string }> {
  return new Promise((resolve, reject) => {
    const client = target.startsWith('https:') ? https : http;
    const request = client.request(target, { method: 'GET', agent: false, headers: { Accept: 'application/json, */*;q=0.5' } }, (response) => {
      clearTimeout(timer);
      resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? '') });
      response.destroy();
      request.destroy();
    });
    const timer = setTimeout(() => {
      request.destroy(Object.assign(new Error(`no response within ${formatDuration(timeoutMs)}`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end();
  });
}

function describeConnectError(error: unknown, address: string, port: number, timeoutMs: number): string {
  const where = formatHostPort(address, port);
  switch (errorCode(error)) {
    case 'ECONNREFUSED':
      return `connection refused at ${where}: is the service running?`;
    case 'ETIMEDOUT':
      return `no connection to ${where} within ${formatDuration(timeoutMs)}: a firewall, a VPN or a proxy-only network?`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} cannot be reached from this machine (${errorCode(error) ?? ''}).`;
    case 'ECONNRESET':
      return `the connection to ${where} was reset.`;
    default:
      return `could not connect to ${where} (${errorCode(error) ?? errorMessage(error)}).`;
  }
}

function tcpAdvice(code: string | undefined, hostname: string): string {
  if (code === 'ECONNREFUSED') {
    return net.isIP(hostname) !== 0 || hostname === 'localhost'
      ? 'Start the service (for the reference service: npm run service), or correct the port in applicationQuery.baseUrl.'
      : 'Nothing listens on that port: check the port in applicationQuery.baseUrl and that the service is up.';
  }
  return 'Check applicationQuery.baseUrl, your network, VPN and firewall; on a network that only allows a proxy, set http.proxy.';
}

function certificateAdvice(code: string, env: Readonly<Record<string, string | undefined>>, settings: ProxySettings): string {
  const extraCa = env['NODE_EXTRA_CA_CERTS'];
  const system = settings.systemCertificates === false ? ' VS Code\'s http.systemCertificates is off: turn it on so the operating system\'s certificates are trusted.' : '';
  switch (code) {
    case 'CERT_HAS_EXPIRED':
      return 'The service\'s certificate has expired: the service must renew it. If it should still be valid, check this machine\'s clock.';
    case 'CERT_NOT_YET_VALID':
      return 'The certificate is not valid yet: check this machine\'s clock and time zone.';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
    case 'HOSTNAME_MISMATCH':
      return 'The certificate is for other host names: check the host in applicationQuery.baseUrl (or a proxy is answering in the service\'s place).';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    default:
      return (
        'The certificate is signed by an authority this machine does not trust: a self-signed certificate, or a corporate proxy that inspects TLS. ' +
        'Add that authority\'s certificate to the operating system\'s store (VS Code uses it while http.systemCertificates is on), ' +
        `or save it as a PEM file and set the environment variable NODE_EXTRA_CA_CERTS to its path before starting VS Code${extraCa === undefined || extraCa === '' ? '' : ` (it is set to ${extraCa}: does that file hold the right authority?)`}. ` +
        `Behind a corporate proxy, ask for its CA certificate and set http.proxy.${system}`
      );
  }
}

function formatHostPort(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(message), { code: 'ETIMEDOUT' })), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text for a Markdown table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}
