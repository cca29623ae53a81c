// What the extension-host benches share on the bench's side: start the reference service, run a
// suite inside code-server 4.139.1's extension host, and read the one `AQ_BENCH {json}` line it prints.
import * as path from 'node:path';
import { startService } from '../service/server';
import { automationLogLines } from '../test/launch/automationLog';
import { runVersion } from '../test/launch/hostSuite';
import { repoRoot } from '../test/launch/util';

/** Runs `out/bench/<suite>/suite.js` in an extension host against a fresh reference service; resolves with what it reported. */
export async function runHostBench<T>(suite: string, title: string): Promise<T> {
  const service = await startService({ quiet: true });
  let result: T | undefined;
  try {
    const run = await runVersion('4.139.1', service, {
      title,
      testsPath: path.join(repoRoot(), 'out', 'bench', suite, 'suite.js'),
      onLog: (_type, message) => {
        for (const line of automationLogLines(message)) {
          const found = /AQ_BENCH (\{.*\})/.exec(line);
          if (found) result = JSON.parse(found[1]) as T;
        }
      },
    });
    if (run.code !== 0 || result === undefined) throw new Error(`${title} did not report (exit ${run.code})`);
    return result;
  } finally {
    await service.close();
  }
}
