// What Diagnose Connection is given and what it finds: the settings in effect, each checked step,
// the proxy and the TLS connection.

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
  /** The base URL as set: the environment's (`applicationQuery.environments`), else `applicationQuery.baseUrl`. */
  readonly baseUrl: string;
  /** The environment being diagnosed, by name; absent: none (`applicationQuery.baseUrl`). */
  readonly environment?: string;
  /**
   * Why there is no base URL to check at all (the environment is not in
   * `applicationQuery.environments`): the URL step fails with it and nothing else runs.
   */
  readonly serviceProblem?: string;
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
  /** The environment diagnosed; absent: none (`applicationQuery.baseUrl`). */
  readonly environment?: string;
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
