import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { hooks, received } from './hooks';

/** Sets the user's applications for one test and puts them back afterwards. */
async function withApplications<T>(extra: readonly unknown[], body: () => Promise<T>): Promise<T> {
  const config = vscode.workspace.getConfiguration('applicationQuery');
  const before = config.inspect<unknown[]>('applications')?.globalValue;
  await config.update('applications', [...(before ?? []), ...extra], vscode.ConfigurationTarget.Global);
  try {
    return await body();
  } finally {
    await vscode.workspace.getConfiguration('applicationQuery').update('applications', before, vscode.ConfigurationTarget.Global);
  }
}

function nested(depth: number): unknown {
  let value: unknown = '${input}';
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

describe('The query pipeline always ends what it started', () => {
  it('a template nested too deeply ends the query with a clear error, and nothing is sent', async () => {
    const api = await hooks();
    await withApplications([{ id: 'echo-deep', requestTemplate: nested(150) }], async () => {
      const before = (await received()).length;
      const result = await api.runQuery({ applicationId: 'echo-deep', question: 'q' });
      assert.equal(result.outcome.kind, 'error');
      assert.match(result.outcome.message ?? '', /nested too deeply/);
      assert.deepEqual(result.outcome.remedies, ['checkApplications']);
      assert.equal((await received()).length, before, 'no request reached the service');
    });
  });

  it('an application id that is not well-formed Unicode ends the query with a clear error', async () => {
    const api = await hooks();
    const id = 'echo-\uD800';
    await withApplications([{ id }], async () => {
      const result = await api.runQuery({ applicationId: id, question: 'q' });
      assert.equal(result.outcome.kind, 'error');
      assert.match(result.outcome.message ?? '', /not well-formed Unicode/);
    });
  });
});
