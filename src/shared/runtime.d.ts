// The little that both runtimes of the shared code provide alike (Node's extension host and the
// webview's browser), declared here so shared code can use it while it sees neither Node's types
// nor the DOM's. Only src/shared/tsconfig.json includes this file; every other build sees the
// runtime's own, fuller declarations.

/** WHATWG URL, as Node and browsers implement it (the members shared code reads). */
declare class URL {
  constructor(url: string, base?: string | URL);
  href: string;
  readonly origin: string;
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly hostname: string;
  readonly port: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
  toString(): string;
}

/** A timer handle: opaque to shared code. */
interface SharedTimer {
  readonly __sharedTimer?: never;
}
declare function setTimeout(handler: () => void, ms?: number): SharedTimer;
declare function clearTimeout(timer: SharedTimer | undefined): void;

/** The monotonic clock. */
declare const performance: { now(): number };
