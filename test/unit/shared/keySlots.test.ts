import * as assert from 'node:assert/strict';
import { keyBaseUrl, keySlot, legacyKeySlot, parseKeySlot, readKey, type SecretSlots } from '../../../src/shared/keySlots';

/** SecretStorage's contract over a Map: what the extension host's storage does with one window. */
class MemorySlots implements SecretSlots {
  readonly values = new Map<string, string>();
  get(name: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(name));
  }
  store(name: string, value: string): Promise<void> {
    this.values.set(name, value);
    return Promise.resolve();
  }
  delete(name: string): Promise<void> {
    this.values.delete(name);
    return Promise.resolve();
  }
}

const STAGING = 'https://api.example.com/staging';
const PRODUCTION = 'https://api.example.com/prod';

describe('API keys: one slot per application and base URL', () => {
  it('two environments on one origin have two slots; one base URL written two ways has one', () => {
    assert.notEqual(keySlot({ baseUrl: STAGING, applicationId: 'app' }), keySlot({ baseUrl: PRODUCTION, applicationId: 'app' }));
    assert.notEqual(keySlot({ baseUrl: 'https://api.example.com', applicationId: 'app' }), keySlot({ baseUrl: STAGING, applicationId: 'app' }));
    const one = keySlot({ baseUrl: STAGING, applicationId: 'app' });
    for (const spelling of ['https://api.example.com/staging/', 'https://API.example.com:443/staging//', ' https://api.example.com/staging ']) {
      assert.equal(keySlot({ baseUrl: spelling, applicationId: 'app' }), one, spelling);
    }
    assert.notEqual(keySlot({ baseUrl: 'https://api.example.com:8443/staging', applicationId: 'app' }), one, 'another port is another origin');
    assert.notEqual(keySlot({ baseUrl: 'http://localhost/staging', applicationId: 'app' }), keySlot({ baseUrl: 'https://localhost/staging', applicationId: 'app' }));
  });

  it('slot names read back, whatever the id holds, and old origin slots are still recognised', () => {
    for (const ref of [{ baseUrl: STAGING, applicationId: 'a","b' }, { baseUrl: PRODUCTION, applicationId: '' }]) {
      assert.deepEqual(parseKeySlot(keySlot(ref)), ref);
    }
    assert.deepEqual(parseKeySlot(legacyKeySlot({ baseUrl: STAGING, applicationId: 'app' })), { baseUrl: 'https://api.example.com', applicationId: 'app' });
    assert.equal(parseKeySlot('applicationQuery.apiKey:not json'), undefined);
    assert.equal(parseKeySlot('other.extension:["x","y"]'), undefined);
    assert.equal(keyBaseUrl('ftp://example.com'), undefined);
    assert.equal(keyBaseUrl('not a url'), undefined);
  });

  it('an earlier version\'s origin key moves to the first base URL that asks, and no other base URL gets it', async () => {
    const slots = new MemorySlots();
    // How earlier versions stored it: one slot per origin and application.
    await slots.store('applicationQuery.apiKey:' + JSON.stringify(['https://api.example.com', 'app']), 'old-key-0123456789');
    assert.equal(await readKey(slots, { baseUrl: STAGING, applicationId: 'app' }), 'old-key-0123456789');
    assert.deepEqual([...slots.values.keys()], [keySlot({ baseUrl: STAGING, applicationId: 'app' })], 'moved, the old slot emptied');
    assert.equal(await readKey(slots, { baseUrl: PRODUCTION, applicationId: 'app' }), undefined, 'production on the same origin gets nothing');
    assert.equal(await readKey(slots, { baseUrl: STAGING, applicationId: 'app' }), 'old-key-0123456789', 'staging keeps it');
  });

  it('a key stored for a base URL wins over an old origin key, which stays for another base URL to claim', async () => {
    const slots = new MemorySlots();
    await slots.store(legacyKeySlot({ baseUrl: PRODUCTION, applicationId: 'app' }), 'old-key');
    await slots.store(keySlot({ baseUrl: STAGING, applicationId: 'app' }), 'staging-key');
    assert.equal(await readKey(slots, { baseUrl: STAGING, applicationId: 'app' }), 'staging-key');
    assert.equal(await readKey(slots, { baseUrl: PRODUCTION, applicationId: 'app' }), 'old-key');
    assert.equal(await readKey(slots, { baseUrl: STAGING, applicationId: 'other' }), undefined, 'keys are per application too');
    assert.equal(await readKey(slots, { baseUrl: 'https://other.example.com/staging', applicationId: 'app' }), undefined, 'never another origin');
  });
});
