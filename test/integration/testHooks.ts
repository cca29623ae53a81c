import * as vscode from 'vscode';
import type { QueryOutcome } from '../../src/shared/outcome';
import type { QueryInput } from '../../src/shared/prepare';
import { HistoryStore, type Exchange } from '../../src/client/history';
import { setApiKeyFlow } from '../../src/host/commands/keyCommands';
import { compose, type ExtensionParts } from '../../src/extension';
import { historyStorage } from '../../src/host/history';
import type { QuerySink } from '../../src/host/query/types';
import { legacyKeySlot } from '../../src/shared/keySlots';

/**
 * What the test build of the extension exports to the integration suite and the extension-host
 * benchmark. It lives beside the tests and is bundled into `out/test-extension/` only, never into
 * the product: it can store a key and run a query through the real pipeline; it can never read a key back.
 */
export interface TestHooks {
  setApiKey(applicationId: string, key: string): Promise<void>;
  hasApiKey(applicationId: string): Promise<boolean>;
  removeApiKey(applicationId: string): Promise<void>;
  /** Stores a key the way versions before per-base-URL keys did: for the current base URL's origin; resolves once this window has noticed the change. */
  storeOriginKey(applicationId: string, key: string): Promise<void>;
  runQuery(input: QueryInput, signal?: AbortSignal): Promise<{ text: string; outcome: QueryOutcome; statuses: number[] }>;
  /**
   * Runs a query into the real "Application Query" output channel (as the outputChannel setting
   * does), or into nothing at all (a baseline for the benchmark: the pipeline without a sink).
   */
  runQueryInto(target: 'outputChannel' | 'nowhere', input: QueryInput): Promise<QueryOutcome>;
  /**
   * Set API Key… for `applicationId` with `key` typed into the password box, running `whilePrompting`
   * while the box is open (e.g. to change the base URL meanwhile).
   */
  setApiKeyWhilePrompting(applicationId: string, key: string, whilePrompting: () => Promise<void>): Promise<void>;
  /** History as stored in the extension's global state (the JSON a reloaded window reads back). */
  storedHistory(): { json: string; reloaded: readonly Exchange[] };
  /** When the History view was told to redraw its rows (`Date.now()`), since the extension started. */
  historyRedraws(): readonly number[];
  /** The Testing view's tree of query files, once discovery has run: id, label and children of each item. */
  queryTests(): Promise<TestTreeNode[]>;
  /** The Testing view's Refresh (the controller's refreshHandler: every query file found, read and parsed again); resolves when it is done. */
  refreshQueryTests(): Promise<void>;
  /**
   * Runs `command` (e.g. Run Query File) and reports what every test run it started told the
   * Testing view: each item's last state, its messages and output. Resolves when those runs ended.
   */
  recordTestRuns(command: () => Thenable<unknown>): Promise<RecordedRun>;
  /** Runs these items (ids) as the Testing view's Run does and returns what the run reported; when `stop` settles, the run is cancelled (the view's Stop). */
  runQueryTests(ids: readonly string[], stop?: Promise<unknown>): Promise<RecordedRun>;
}

/** One item of the Testing view's tree. */
export interface TestTreeNode {
  readonly id: string;
  readonly label: string;
  readonly line?: number;
  /** What the Testing view orders siblings by. */
  readonly sortText: string;
  readonly children: TestTreeNode[];
  /** The problem the Testing view shows on the item (a file too large to read). */
  readonly error?: string;
}

/** What a test run reported, per item id. */
export interface RecordedRun {
  readonly items: Record<string, { state: 'enqueued' | 'started' | 'passed' | 'failed' | 'errored' | 'skipped'; messages: { text: string; expected?: string; actual?: string; line?: number }[]; output: string; durationMs?: number }>;
  /** Item ids in the order they started. */
  readonly started: string[];
  readonly ended: boolean;
}

const NOWHERE: QuerySink = { start: () => undefined, status: () => undefined, append: () => undefined, end: () => undefined };

/** The test build's `activate`: the product's composition, plus the hooks. */
export function activate(context: vscode.ExtensionContext): TestHooks {
  return testHooks(compose(context), context);
}

/** The product's `deactivate`. */
export { deactivate } from '../../src/extension';

function testHooks({ settings, keys, runner, channel, current, log, queryTesting, historyView }: ExtensionParts, context: vscode.ExtensionContext): TestHooks {
  const redraws: number[] = [];
  context.subscriptions.push(historyView.onDidRedraw(() => redraws.push(Date.now())));
  const controller = queryTesting.controller;
  const realCreate = controller.createTestRun.bind(controller);
  let recorders: ((run: vscode.TestRun) => vscode.TestRun)[] = [];
  // Test-only: every run the controller creates is seen by the recorders before it reaches the Testing view.
  controller.createTestRun = (request, name, persist) => recorders.reduce((run, wrap) => wrap(run), realCreate(request, name, persist));
  const record = async (start: () => Thenable<unknown>): Promise<RecordedRun> => {
    const report: { items: RecordedRun['items']; started: string[]; ended: boolean } = { items: {}, started: [], ended: false };
    const open = new Set<vscode.TestRun>();
    let settle: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const slot = (item: vscode.TestItem): RecordedRun['items'][string] => (report.items[item.id] ??= { state: 'enqueued', messages: [], output: '' });
    const messages = (list: vscode.TestMessage | readonly vscode.TestMessage[]): RecordedRun['items'][string]['messages'] =>
      (Array.isArray(list) ? list : [list]).map((m: vscode.TestMessage) => ({
        text: typeof m.message === 'string' ? m.message : m.message.value,
        ...(m.expectedOutput === undefined ? {} : { expected: m.expectedOutput }),
        ...(m.actualOutput === undefined ? {} : { actual: m.actualOutput }),
        ...(m.location === undefined ? {} : { line: m.location.range.start.line }),
      }));
    const wrap = (run: vscode.TestRun): vscode.TestRun => {
      open.add(run);
      return new Proxy(run, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            const item = args[0] as vscode.TestItem;
            if (prop === 'enqueued') slot(item).state = 'enqueued';
            else if (prop === 'started') {
              slot(item).state = 'started';
              report.started.push(item.id);
            } else if (prop === 'passed') Object.assign(slot(item), { state: 'passed', durationMs: args[1] });
            else if (prop === 'skipped') slot(item).state = 'skipped';
            else if (prop === 'failed' || prop === 'errored') Object.assign(slot(item), { state: prop, messages: messages(args[1] as vscode.TestMessage), durationMs: args[2] });
            else if (prop === 'appendOutput' && args[2] !== undefined) slot(args[2] as vscode.TestItem).output += String(args[0]);
            const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
            if (prop === 'end') {
              open.delete(run);
              if (open.size === 0) {
                report.ended = true;
                settle();
              }
            }
            return result;
          };
        },
      });
    };
    recorders.push(wrap);
    try {
      await start();
      await done;
    } finally {
      recorders = recorders.filter((r) => r !== wrap);
    }
    return report;
  };
  const ref = (applicationId: string): { baseUrl: string; applicationId: string } => {
    const base = settings.baseUrl();
    if (!base.ok) throw new Error(base.message);
    return { baseUrl: base.normalized, applicationId };
  };
  return {
    setApiKey: (id, key) => keys.set(ref(id), key),
    hasApiKey: (id) => keys.has(ref(id)),
    removeApiKey: (id) => keys.delete(ref(id)),
    storeOriginKey: async (id, key) => {
      // As an earlier version (or another window) would: straight into SecretStorage, noticed through its change event.
      const slot = legacyKeySlot(ref(id));
      const noticed = new Promise<void>((resolve) => {
        const listener = context.secrets.onDidChange((e) => {
          if (e.key !== slot) return;
          listener.dispose();
          resolve();
        });
      });
      await context.secrets.store(slot, key);
      await noticed;
    },
    runQuery: async (input, signal) => {
      let text = '';
      const statuses: number[] = [];
      const sink: QuerySink = { start: () => undefined, status: (s) => void statuses.push(s), append: (t) => void (text += t), end: () => undefined };
      const outcome = await runner.run(input, [sink], { surface: 'command', signal });
      return { text, outcome, statuses };
    },
    runQueryInto: (target, input) => runner.run(input, [target === 'outputChannel' ? channel.sink() : NOWHERE], { surface: 'command' }),
    setApiKeyWhilePrompting: (applicationId, key, whilePrompting) =>
      setApiKeyFlow({ settings, keys, current, log }, settings.resolve(applicationId) ?? { id: applicationId }, async () => {
        await whilePrompting();
        return key;
      }),
    queryTests: async () => {
      await controller.resolveHandler?.(undefined);
      const node = (item: vscode.TestItem): TestTreeNode => {
        const children: TestTreeNode[] = [];
        item.children.forEach((child) => void children.push(node(child)));
        children.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.sortText.localeCompare(b.sortText));
        return { id: item.id, label: item.label, sortText: item.sortText ?? item.label, ...(item.range === undefined ? {} : { line: item.range.start.line }), ...(typeof item.error === 'string' ? { error: item.error } : {}), children };
      };
      const roots: TestTreeNode[] = [];
      controller.items.forEach((item) => void roots.push(node(item)));
      return roots.sort((a, b) => a.id.localeCompare(b.id));
    },
    refreshQueryTests: async () => {
      const cancel = new vscode.CancellationTokenSource();
      try {
        await controller.refreshHandler?.(cancel.token);
      } finally {
        cancel.dispose();
      }
    },
    recordTestRuns: (command) => record(command),
    runQueryTests: (ids, stop) => {
      const find = (id: string): vscode.TestItem | undefined => {
        let found: vscode.TestItem | undefined;
        const walk = (items: vscode.TestItemCollection): void =>
          items.forEach((item) => {
            if (item.id === id) found = item;
            walk(item.children);
          });
        walk(controller.items);
        return found;
      };
      const include = ids.map((id) => {
        const item = find(id);
        if (item === undefined) throw new Error(`no test item ${id}`);
        return item;
      });
      const cancel = new vscode.CancellationTokenSource();
      void stop?.finally(() => cancel.cancel());
      return record(async () => queryTesting.runProfile.runHandler(new vscode.TestRunRequest(include), cancel.token)).finally(() => cancel.dispose());
    },
    historyRedraws: () => [...redraws],
    storedHistory: () => {
      const storage = historyStorage(context);
      // A new store over the same storage reads what a reloaded window would.
      return { json: JSON.stringify(storage.get() ?? null), reloaded: new HistoryStore(storage).list() };
    },
  };
}

