// One engine run of query files in a process of its own (argv: service URL, key, folder, mode):
// QUERIES queries, each with a large context file, at the Testing view's default concurrency.
// Mode `at-send` is the engine as it is (a query's context is read when its turn comes); mode
// `at-plan` reads every context before any is sent, as the Testing view did before (#48 item 5).
import { readFenced } from '../../src/client/queryFiles/contextFence';
import { planQuery, runQueries, type PlannedQuery } from '../../src/client/queryFiles/engine';
import { pipelineSender } from '../../src/client/queryFiles/pipelineSender';
import { knownFrom, serviceOrigin } from '../../src/client/queryFiles/sources';
import { parseQueryFile } from '../../src/shared/queryFile';
import { loopbackSettings } from '../../test/support/engineSettings';
import './peak';
import { QUERIES } from './shared';

const CONCURRENCY = 4;

async function main(): Promise<void> {
  const [url, key, folder, mode] = process.argv.slice(2);
  const settings = loopbackSettings(url, ['timed'], CONCURRENCY);
  const text = Array.from({ length: QUERIES }, (_, i) => `## Query ${i + 1}\n- application: timed\n- context: context-${i % 4}.txt\n\nQ${i + 1}\n`).join('\n');
  const known = knownFrom(settings, undefined);
  const planned: PlannedQuery<number>[] = [];
  for (const [i, query] of parseQueryFile(text).queries.entries()) {
    const plan = planQuery(query, known);
    if (!plan.ok) throw new Error(plan.message);
    const target = plan.targets[0];
    let readContext: PlannedQuery<number>['readContext'] = (ref) => readFenced(folder, 'bench', ref);
    if (mode === 'at-plan') {
      // Every query holds its own copy, as each read did.
      const read = await readContext(query.context[0]);
      readContext = () => Promise.resolve(read);
    }
    planned.push({ tag: i, query, target, service: serviceOrigin(settings, target), readContext });
  }
  const keys = { get: () => Promise.resolve(key), knownSecrets: () => [key] };
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const results = await runQueries(planned, pipelineSender(settings, keys, quiet), { concurrency: CONCURRENCY, signal: new AbortController().signal, listener: { started: () => undefined, ended: () => undefined } });
  const passed = results.filter((r) => r.verdict === 'passed').length;
  process.stdout.write(`${passed}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
