import * as assert from 'node:assert/strict';
import { parseQueryFile } from '../../../../src/shared/queryFile';
import { findApplication, queryTargets, type KnownNames } from '../../../../src/shared/queryFile/targets';

const known: KnownNames = {
  applications: [{ id: 'support-bot', name: 'Support Bot' }, { id: 'docs' }],
  environments: [{ name: 'dev', baseUrl: 'http://localhost:8787' }, { name: 'staging', baseUrl: 'https://staging.example.com' }],
  currentApplication: 'docs',
};

const only = (text: string) => parseQueryFile(text).queries[0];

describe('query targets: which applications and environment a query asks', () => {
  it('an application by id or by name (any case), several in order, without repeats', () => {
    assert.equal(findApplication('Support Bot', known.applications)?.id, 'support-bot');
    assert.equal(findApplication('support bot', known.applications)?.id, 'support-bot');
    const { targets, problems } = queryTargets(only('## Q\n- application: docs, Support Bot, support-bot\n\nHi\n'), known);
    assert.deepEqual(problems, []);
    assert.deepEqual(targets.map((t) => t.applicationId), ['docs', 'support-bot']);
  });

  it('no application line: the current application', () => {
    assert.deepEqual(queryTargets(only('## Q\n\nHi\n'), known).targets.map((t) => t.applicationId), ['docs']);
    const none = queryTargets(only('## Q\n\nHi\n'), { ...known, applications: [], currentApplication: undefined });
    assert.deepEqual(none.targets, []);
    assert.equal(none.problems[0].code, 'noApplication');
  });

  it('an environment is a name from the settings, never a URL; unknown names are problems on their span, and nothing runs', () => {
    const staged = queryTargets(only('## Q\n- environment: Staging\n\nHi\n'), known);
    assert.deepEqual(staged.targets.map((t) => t.environment), ['staging']);
    const url = queryTargets(only('## Q\n- environment: https://evil.example\n- application: nope\n\nHi\n'), known);
    assert.deepEqual(url.targets, []);
    assert.deepEqual(url.problems.map((p) => [p.code, p.span.line, p.span.start]), [['unknownEnvironment', 1, 15], ['unknownApplication', 2, 15]]);
    assert.match(url.problems[0].message, /no environment "https:\/\/evil\.example".*Known: dev, staging/);
    assert.match(url.problems[1].message, /no application "nope".*Known: support-bot, docs/);
  });
});
