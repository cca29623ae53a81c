import * as assert from 'node:assert/strict';
import { composeInput, DEFAULT_TEMPLATE, renderTemplate } from '../../../src/shared/template';

const TRICKY = 'He said "hi" \\ back\\slash\nnew line\ttab\r\n€ 😀 </script> ${file} $notvar ${ unknown } `tick`';

describe('template', () => {
  it('has the documented default', () => {
    assert.deepEqual(DEFAULT_TEMPLATE, { query: '${input}' });
    assert.deepEqual(renderTemplate(DEFAULT_TEMPLATE, { input: 'question' }), { query: 'question' });
  });

  it('substitutes quotes, backslashes, newlines and unicode exactly and round-trips through JSON', () => {
    const result = renderTemplate({ query: '${input}' }, { input: TRICKY });
    assert.deepEqual(result, { query: TRICKY });
    const wire = JSON.stringify(result);
    assert.deepEqual(JSON.parse(wire), { query: TRICKY });
  });

  it('does not expand variables inside substituted text (single pass)', () => {
    const result = renderTemplate({ q: '${selection} / ${file}' }, { selection: 'see ${file} and ${input}', file: 'FILE' });
    assert.deepEqual(result, { q: 'see ${file} and ${input} / FILE' });
  });

  it('substitutes inside nested objects and arrays, in every string', () => {
    const template = {
      messages: [
        { role: 'system', content: 'Language: ${languageId}' },
        { role: 'user', content: '${question}', extra: ['${fileName}', '${fileName}${fileName}'] },
      ],
      inputs: { history: '${history}' },
    };
    const result = renderTemplate(template, { languageId: 'ts', question: 'Why?', fileName: 'a.ts', history: 'H' });
    assert.deepEqual(result, {
      messages: [
        { role: 'system', content: 'Language: ts' },
        { role: 'user', content: 'Why?', extra: ['a.ts', 'a.tsa.ts'] },
      ],
      inputs: { history: 'H' },
    });
  });

  it('never substitutes in keys', () => {
    assert.deepEqual(renderTemplate({ '${input}': '${input}' }, { input: 'x' }), { '${input}': 'x' });
  });

  it('leaves non-string values untouched', () => {
    const template = { n: 1.5, t: true, f: false, z: null, list: [0, null, 'x'] };
    assert.deepEqual(renderTemplate(template, { input: 'y' }), template);
  });

  it('leaves unknown variables as they are and turns missing known ones into empty text', () => {
    assert.deepEqual(renderTemplate({ a: '${custom} ${file}|${selection}|$${input}' }, {}), { a: '${custom} ||$' });
  });

  it('returns a deep copy that does not share objects with the template', () => {
    const template = { nested: { list: ['${input}'] } };
    const result = renderTemplate(template, { input: 'v' }) as { nested: { list: string[] } };
    result.nested.list.push('changed');
    assert.deepEqual(template, { nested: { list: ['${input}'] } });
  });

  it('keeps a "__proto__" key as a plain property', () => {
    const template = JSON.parse('{"__proto__":{"polluted":"${input}"}}') as unknown;
    const result = renderTemplate(template, { input: 'v' });
    assert.equal(JSON.stringify(result), '{"__proto__":{"polluted":"v"}}');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('renders a bare string template and drops values JSON cannot hold', () => {
    assert.equal(renderTemplate('${input}!', { input: 'x' }), 'x!');
    assert.deepEqual(renderTemplate({ a: undefined, b: () => 1, c: [undefined], d: Number.NaN }, {}), { c: [null], d: null });
  });

  describe('composeInput', () => {
    it('puts the question, a blank line and the fenced context together', () => {
      assert.equal(
        composeInput('Explain this', { label: 'selection: app.ts:1-2', text: 'const a = 1;\n', languageId: 'typescript' }),
        'Explain this\n\nselection: app.ts:1-2:\n```typescript\nconst a = 1;\n```',
      );
    });

    it('uses a fence longer than any backtick run in the context', () => {
      const text = 'before\n````\ninner\n````\nafter';
      const result = composeInput('', { label: '', text });
      assert.equal(result, `\`\`\`\`\`\n${text}\n\`\`\`\`\``);
    });

    it('gives either part alone when the other is empty', () => {
      assert.equal(composeInput('Only a question', undefined), 'Only a question');
      assert.equal(composeInput('Only a question', { label: 'file', text: '' }), 'Only a question');
      assert.equal(composeInput('  ', { label: 'file: a.md', text: 'x' }), 'file: a.md:\n```\nx\n```');
      assert.equal(composeInput('', undefined), '');
    });
  });
});
