/** The outcome of checking a base URL (`applicationQuery.baseUrl`, or an environment's). */
export type BaseUrlCheck =
  | {
      ok: true;
      url: URL;
      origin: string;
      /** The URL without a trailing slash. */
      normalized: string;
      /** The environment (`applicationQuery.environment`) it comes from; absent for `applicationQuery.baseUrl`. */
      environment?: string;
    }
  | { ok: false; message: string };

const EXAMPLE = 'https://service.example.com';

/**
 * Checks the service's base URL: `https:` (or `http:` on loopback only), no credentials, no query or
 * fragment. A path prefix is kept, since the service may live under a path.
 */
export function validateBaseUrl(raw: string | undefined, setting = 'applicationQuery.baseUrl'): BaseUrlCheck {
  const trimmed = (raw ?? '').trim();
  if (trimmed === '') {
    return { ok: false, message: `Set ${setting} in your user settings to your service's URL, e.g. ${EXAMPLE}.` };
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    const guess = /^[a-z0-9.-]+(:\d+)?(\/.*)?$/i.test(trimmed) ? ` Did you mean https://${trimmed}?` : '';
    return { ok: false, message: `${setting} is not a valid URL: "${trimmed}".${guess} Use the form ${EXAMPLE}.` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      ok: false,
      message: `${setting} must start with https:// (it starts with ${url.protocol}). Use the form ${EXAMPLE}.`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      message:
        `${setting} must not contain a user name or password. Remove them: the API key is sent in the Authorization header.`,
    };
  }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(trimmed)) {
    return { ok: false, message: `${setting} must not contain a query (?…) or a fragment (#…): give only the address of the service.` };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      message: `${setting} must use https: (${url.host} would receive your API key unencrypted); only localhost, 127.0.0.0/8 and [::1] may use http:.`,
    };
  }
  const path = url.pathname.replace(/\/+$/, '');
  return { ok: true, url, origin: url.origin, normalized: `${url.origin}${path}` };
}

/** Whether a URL hostname is a loopback host: `localhost`, `127.0.0.0/8` or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost') {
    return true;
  }
  if (host === '[::1]' || host === '::1') {
    return true;
  }
  const match = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return match !== null && match.slice(1).every((part) => Number(part) <= 255);
}

/** The query endpoint of an application: `{base}/api/applications/{id}/query`, the id URL-encoded. */
export function queryUrl(baseUrl: string, applicationId: string): string {
  const check = validateBaseUrl(baseUrl);
  const base = check.ok ? check.normalized : baseUrl.trim().replace(/\/+$/, '');
  return `${base}/api/applications/${encodeURIComponent(applicationId)}/query`;
}
