// Keys from the environment: the variable name each application's key is read from.
import * as assert from 'node:assert/strict';
import { EnvironmentKeys, keyVariable } from '../../../src/cli/keys';

describe('command line: keys from the environment', () => {
  it('names each application’s variable: upper-cased, every character outside A-Z and 0-9 as _', () => {
    assert.equal(keyVariable('support-bot'), 'APPLICATION_QUERY_KEY_SUPPORT_BOT');
    assert.equal(keyVariable('app.v2:beta'), 'APPLICATION_QUERY_KEY_APP_V2_BETA');
    assert.equal(keyVariable('ünï-1'), 'APPLICATION_QUERY_KEY__N__1');
    assert.equal(keyVariable('echo'), 'APPLICATION_QUERY_KEY_ECHO');
  });

  it('an application’s own key wins over the shared one; a missing or unusable key is a problem that names the variable, never the key', async () => {
    const keys = new EnvironmentKeys({ APPLICATION_QUERY_KEY_ECHO: 'own-key-123456', APPLICATION_QUERY_KEY: 'shared-key-123456', APPLICATION_QUERY_KEY_BAD: 'has space', PATH: '/bin' });
    assert.equal(await keys.get({ applicationId: 'echo' }), 'own-key-123456');
    assert.equal(await keys.get({ applicationId: 'other' }), 'shared-key-123456');
    assert.deepEqual([...keys.knownSecrets()].sort(), ['has space', 'own-key-123456', 'shared-key-123456']);
    assert.match(keys.problem('bad') ?? '', /^APPLICATION_QUERY_KEY_BAD: The API key contains spaces/);
    assert.ok(!(keys.problem('bad') ?? '').includes('has space'));
    const none = new EnvironmentKeys({});
    assert.equal(none.problem('support-bot'), 'No API key for support-bot: set APPLICATION_QUERY_KEY_SUPPORT_BOT (or APPLICATION_QUERY_KEY) in the environment.');
  });
});
