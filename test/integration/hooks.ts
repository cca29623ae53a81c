import * as vscode from 'vscode';
import type { TestHooks } from './testHooks';

/** The extension's id: publisher.name from package.json. */
export const EXTENSION_ID = 'application-query.application-query';

/** Activates the extension and returns its test hooks (the launchers load the test build, out/test-extension/). */
export async function hooks(): Promise<TestHooks> {
  const ext = vscode.extensions.getExtension<TestHooks | undefined>(EXTENSION_ID);
  if (!ext) {
    throw new Error(`${EXTENSION_ID} is not installed in this extension host`);
  }
  const api = await ext.activate();
  if (!api) {
    throw new Error('The extension exported no test hooks: is the development extension the test build in out/test-extension/?');
  }
  return api;
}

/** The reference service the launcher started (AQ_SERVICE_URL). */
export function serviceUrl(): string {
  const url = process.env.AQ_SERVICE_URL;
  if (!url) {
    throw new Error('AQ_SERVICE_URL is not set: start this suite through a launcher in test/launch/.');
  }
  return url;
}

/** A request the reference service recorded. */
export interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  applicationId?: string;
  /** The status the service answered with, once it sent headers. */
  status?: number;
  closedByClientAt?: number;
}

/** What the reference service has received so far. */
export async function received(): Promise<Recorded[]> {
  const res = await fetch(`${serviceUrl()}/__control/requests`);
  return (await res.json()) as Recorded[];
}

/** The valid keys of the reference service's applications. */
export async function serviceKeys(): Promise<Record<string, string>> {
  const res = await fetch(`${serviceUrl()}/__control/keys`);
  return (await res.json()) as Record<string, string>;
}

/** Polls until `check` returns a value or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
