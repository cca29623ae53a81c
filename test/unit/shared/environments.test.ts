import * as assert from 'node:assert/strict';
import { parseEnvironments, serviceBase, serviceLabel } from '../../../src/shared/environments';

describe('environments: which service requests go to', () => {
  const { environments } = parseEnvironments({ dev: { baseUrl: 'http://localhost:8787/' }, staging: { baseUrl: 'https://staging.example.com/api-root' }, prod: { baseUrl: 'http://prod.example.com' } });

  it('reads the environments in order and names what it skips', () => {
    assert.deepEqual(environments.map((e) => e.name), ['dev', 'staging', 'prod']);
    const parsed = parseEnvironments({ ok: { baseUrl: 'https://a.example' }, nourl: {}, wrong: { baseUrl: 7 }, '': { baseUrl: 'https://b.example' } });
    assert.deepEqual(parsed.environments.map((e) => e.name), ['ok']);
    assert.equal(parsed.problems.length, 3);
    assert.match(parseEnvironments(['x']).problems[0], /must be an object/);
    assert.deepEqual(parseEnvironments(undefined), { environments: [], problems: [] });
  });

  it('no environment: applicationQuery.baseUrl; an environment: its own base URL, by the same rules', () => {
    const none = serviceBase('https://service.example.com', environments, '');
    assert.ok(none.ok && none.origin === 'https://service.example.com' && none.environment === undefined);
    const staging = serviceBase('https://service.example.com', environments, 'staging');
    assert.ok(staging.ok && staging.normalized === 'https://staging.example.com/api-root' && staging.environment === 'staging');
    assert.equal(staging.ok && serviceLabel(staging), 'staging (https://staging.example.com)');
    const dev = serviceBase('', environments, 'dev');
    assert.ok(dev.ok && dev.origin === 'http://localhost:8787');
  });

  it('an environment breaks the base URL rules with a message that names its setting', () => {
    const prod = serviceBase('https://service.example.com', environments, 'prod');
    assert.ok(!prod.ok);
    assert.match(prod.message, /applicationQuery\.environments\["prod"\]\.baseUrl must use https:/);
  });

  it('an unknown environment never falls back to another service', () => {
    const unknown = serviceBase('https://service.example.com', environments, 'qa');
    assert.ok(!unknown.ok);
    assert.match(unknown.message, /environment "qa".*not in applicationQuery\.environments.*Select Environment/);
  });
});
