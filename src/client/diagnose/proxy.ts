// Which proxy applies to the service, from VS Code's settings and the environment (NO_PROXY
// included), described for people with every proxy password masked.
import type { ProxyFinding, ProxySettings } from './types';

/** The proxy that applies to `url`, from `http.proxy` or the environment, and whether NO_PROXY exempts it. */
export function findProxy(settings: ProxySettings, env: Readonly<Record<string, string | undefined>>, url: URL): ProxyFinding {
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

export function describeProxy(proxy: ProxyFinding, settings: ProxySettings): string {
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

export function proxyDetails(settings: ProxySettings, env: Readonly<Record<string, string | undefined>>): string[] {
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

export function maskProxySettings(settings: ProxySettings): ProxySettings {
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
