/**
 * Diagnose Connection: every step between the user and the service, checked and timed one by one
 * (base URL, proxy, DNS, TCP, TLS, first response byte, key check), as a structured result and as a
 * Markdown report. Never holds or prints the API key. The steps are in steps.ts, the probes they
 * make in network.ts, the proxy settings read in proxy.ts, the report in report.ts.
 */
import { validateBaseUrl } from '../../shared/baseUrl';
import { maskSecretsIn } from '../history/masking';
import { describeProxy, findProxy, maskProxySettings, proxyDetails } from './proxy';
import { checkDns, checkFirstByte, checkKey, checkTcp, checkTls, StepLog } from './steps';
import type { DiagnoseOptions, Diagnosis, ProxyFinding, StepStatus } from './types';

export { formatDiagnosis } from './report';
export type { DiagnoseOptions, Diagnosis, DiagnosisStep, ProxyFinding, ProxySettings, SettingInEffect, StepId, StepStatus, TlsFinding } from './types';

const DEFAULT_TIMEOUT_MS = 5000;

/**
 * Runs every step, each bounded by `timeoutMs`, and never throws: a failure is a step's result
 * (a stopped service gives "connection refused at 127.0.0.1:PORT: is the service running?").
 * The DNS, TCP, TLS and first-byte steps connect directly from this process; the key check uses
 * `fetchImpl`, which in VS Code goes through its proxy support. The key appears nowhere in the result.
 */
export async function diagnose(options: DiagnoseOptions): Promise<Diagnosis> {
  const secrets = options.apiKey === undefined ? [] : [options.apiKey];
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const log = new StepLog(secrets);
  const proxySettings = options.proxy ?? {};
  const env = proxySettings.env ?? process.env;
  const result = (extra: Partial<Diagnosis>, proxy: ProxyFinding): Diagnosis =>
    maskSecretsIn(
      {
        when: new Date().toISOString(),
        baseUrl: options.baseUrl,
        ...(options.environment === undefined ? {} : { environment: options.environment }),
        ...(options.applicationId === undefined ? {} : { applicationId: options.applicationId }),
        settings: options.settings ?? [],
        proxy,
        ...extra,
        steps: log.inOrder(),
        ok: log.ok,
      },
      secrets,
    );

  // JSON's quoting keeps a name with quotes or line breaks on one line, as it is written in settings.json.
  const setting = options.environment === undefined ? 'applicationQuery.baseUrl' : `applicationQuery.environments[${JSON.stringify(options.environment)}].baseUrl`;
  const base = options.serviceProblem === undefined ? validateBaseUrl(options.baseUrl, setting) : { ok: false as const, message: options.serviceProblem };
  if (!base.ok) {
    const advice = options.serviceProblem !== undefined
      ? 'Add the environment to applicationQuery.environments in your user settings, or run "Select Environment…" to choose another.'
      : `Set ${setting} in your user settings.`;
    log.add('url', 'failed', base.message, { advice });
    log.skipRest('proxy', 'Not checked: the base URL is not usable.');
    return result({}, { settings: maskProxySettings(proxySettings) });
  }
  const { url } = base;
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (secure ? 443 : 80));
  log.add('url', 'ok', `${base.normalized} (origin ${base.origin})`, {
    details: secure ? [] : ['Plain http: is allowed only because the host is loopback.'],
  });

  const proxy = findProxy(proxySettings, env, url);
  const viaProxy = proxy.proxy !== undefined && proxy.bypassedBy === undefined && proxySettings.proxySupport !== 'off';
  log.add('proxy', 'ok', describeProxy(proxy, proxySettings), {
    details: proxyDetails(proxySettings, env),
    ...(viaProxy ? { advice: 'The DNS, TCP, TLS and first-byte checks connect directly, not through the proxy; the key check goes through VS Code\'s network stack, which uses it.' } : {}),
  });
  // Where a proxy carries the traffic, a failing direct connection is not the user's problem yet.
  const directFailure: StepStatus = viaProxy ? 'warning' : 'failed';
  const extra: { -readonly [K in keyof Diagnosis]?: Diagnosis[K] } = { origin: base.origin };
  const stopped = (): boolean => options.signal?.aborted === true;

  const addresses = await checkDns(log, hostname, timeoutMs, directFailure);
  if (addresses !== undefined) {
    extra.addresses = addresses;
  }
  let direct = addresses !== undefined;
  let address = hostname;
  if (direct && !stopped()) {
    const connected = await checkTcp(log, (addresses ?? []).map((a) => a.address), hostname, port, timeoutMs, directFailure);
    direct = connected !== undefined;
    address = connected ?? address;
  }
  let trusted = true;
  if (!secure) {
    log.add('tls', 'skipped', 'Plain http: no TLS.');
  } else if (direct && !stopped()) {
    extra.tls = await checkTls(log, { address, hostname, port }, timeoutMs, env, proxySettings);
    trusted = extra.tls.trusted;
  }
  if (direct && trusted && !stopped()) {
    await checkFirstByte(log, base.normalized, options.applicationId, timeoutMs, directFailure);
  }
  if (!direct) {
    log.skip(['tcp', 'tls', 'firstByte'], 'Not checked: no direct connection.');
  } else if (!trusted) {
    log.skip(['firstByte'], 'Not checked: nothing is sent over an untrusted connection.');
  }

  if (stopped()) {
    log.skipRest('dns', 'Stopped.');
  } else {
    const keyStatus = await checkKey(log, {
      baseUrl: base.normalized,
      origin: base.origin,
      applicationId: options.applicationId,
      apiKey: options.apiKey,
      timeoutMs,
      fetchImpl: options.fetchImpl,
      signal: options.signal,
      reachable: direct || viaProxy,
    });
    if (keyStatus !== undefined) {
      extra.keyStatus = keyStatus;
    }
  }
  return result(extra, proxy);
}
