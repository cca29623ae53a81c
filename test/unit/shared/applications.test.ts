import * as assert from 'node:assert/strict';
import { applicationLabel, parseApplications, validateApplicationId } from '../../../src/shared/applications';

describe('applications', () => {
  it('reads valid entries with all fields', () => {
    const { applications, problems } = parseApplications([
      { id: 'app-1', name: ' Code Review ', requestTemplate: { q: '${input}' }, responseFormat: 'sse', responseField: 'choices.0.delta.content' },
      { id: 'app/2' },
    ]);
    assert.deepEqual(problems, []);
    assert.deepEqual(applications, [
      { id: 'app-1', name: 'Code Review', requestTemplate: { q: '${input}' }, responseFormat: 'sse', responseField: 'choices.0.delta.content' },
      { id: 'app/2' },
    ]);
  });

  it('treats a missing setting as no applications', () => {
    assert.deepEqual(parseApplications(undefined), { applications: [], problems: [] });
    assert.deepEqual(parseApplications(null), { applications: [], problems: [] });
  });

  it('reports a setting that is not an array', () => {
    const { applications, problems } = parseApplications({ id: 'x' });
    assert.deepEqual(applications, []);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /must be an array/);
  });

  it('skips bad entries with one problem each and keeps the good ones', () => {
    const { applications, problems } = parseApplications(['just-a-string', null, [], { name: 'no id' }, { id: 42 }, { id: '' }, { id: 'ok' }, { id: 'bad\nid' }]);
    assert.deepEqual(applications, [{ id: 'ok' }]);
    assert.equal(problems.length, 7);
    assert.match(problems[0], /\[0\] is not an object/);
    assert.match(problems[3], /\[3\] has no "id"/);
    assert.match(problems[6], /\[7\].*control characters/);
  });

  it('keeps the first of repeated ids', () => {
    const { applications, problems } = parseApplications([{ id: 'a', name: 'First' }, { id: 'b' }, { id: 'a', name: 'Second' }]);
    assert.deepEqual(applications, [{ id: 'a', name: 'First' }, { id: 'b' }]);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /\[2\] repeats the id "a"/);
  });

  it('drops wrongly typed optional fields but keeps the entry', () => {
    const { applications, problems } = parseApplications([{ id: 'a', name: 3, requestTemplate: ['x'], responseFormat: 'xml', responseField: '' }]);
    assert.deepEqual(applications, [{ id: 'a' }]);
    assert.equal(problems.length, 4);
  });

  describe('validateApplicationId', () => {
    it('accepts ids that are encoded in the URL', () => {
      for (const id of ['abc', 'a/b', 'name with spaces', 'ünïcødé', '?#%', 'x'.repeat(200)]) {
        assert.equal(validateApplicationId(id), undefined, id);
      }
    });

    it('refuses empty, padded, control characters, too long, and dot segments', () => {
      const cases: Array<[string, RegExp]> = [
        ['', /empty/],
        ['   ', /empty/],
        [' a', /spaces/],
        ['a\t', /spaces/],
        ['a\u0000b', /control/],
        ['a\u0085b', /control/],
        ['x'.repeat(201), /longer than 200/],
        ['.', /cannot be/],
        ['..', /cannot be/],
      ];
      for (const [id, pattern] of cases) {
        assert.match(validateApplicationId(id) ?? '', pattern, JSON.stringify(id));
      }
    });
  });

  it('labels an application by name and id, or id alone', () => {
    assert.equal(applicationLabel({ id: 'a1', name: 'Reviewer' }), 'Reviewer (a1)');
    assert.equal(applicationLabel({ id: 'a1' }), 'a1');
    assert.equal(applicationLabel({ id: 'a1', name: '  ' }), 'a1');
    assert.equal(applicationLabel({ id: 'a1', name: 'a1' }), 'a1');
  });
});
