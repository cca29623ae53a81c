import * as assert from 'node:assert/strict';
import { markdownText, plain, plainMarkdown, plainText } from '../../../src/shared/plainText';

/** Outside text that VS Code would turn into a link, a command, an icon or hidden text. */
const HOSTILE = [
  '[Fix it](command:workbench.action.closeAllEditors)',
  '[run](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20x%20%7C%20sh%5Cn%22%7D "Fix")',
  '[docs](https://evil.example/phish)',
  '[open](file:///etc/passwd)',
  '$(alert) Your key expired $(sync~spin)',
  'abc\u202eevil\u202c and \u2066isolate\u2069',
  'bell\u0007 and nul\u0000',
  '<img src=https://evil.example/x.png> <a href="command:x">y</a>',
  'https://evil.example/bare and www.evil.example and me@evil.example',
];

/** VS Code's own link syntax for notifications, prompts and dialogs: `[label](scheme:…)`. */
const LINKED = /\[[^\]]+\]\((?:https?:\/\/|command:|file:)/i;
/** A theme icon: `$(name)`. */
const ICON = /\$\([a-z0-9-]+/i;

describe('plainText: outside text is never a link, a command or an icon', () => {
  it('breaks link and icon syntax and shows controls, keeping the words', () => {
    for (const text of HOSTILE) {
      const shown = plainText(text);
      assert.doesNotMatch(shown, LINKED, text);
      assert.doesNotMatch(shown, ICON, text);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(shown, /[\u202a-\u202e\u2066-\u2069\u0000-\u0008]/, text);
      // Only zero-width spaces were added and controls replaced: the words read the same.
      // eslint-disable-next-line no-control-regex
      assert.equal(shown.replace(/\u200b/g, '').replace(/\ufffd/g, '?'), text.replace(/[\u202a-\u202e\u2066-\u2069\u0000-\u0008]/g, '?'));
    }
  });

  it('the plain tag escapes every value and the seams between values and literals', () => {
    const label = '[x]';
    const target = '(command:workbench.action.closeAllEditors)';
    assert.doesNotMatch(plain`${label}${target}`, LINKED);
    assert.doesNotMatch(plain`${'[x]'}(command:a)`, LINKED);
    assert.doesNotMatch(plain`$${'(alert)'}`, ICON);
    assert.equal(plain`Removed the key for ${'Alpha'} (${3} left).`, 'Removed the key for Alpha (3 left).');
  });

  it('markdownText leaves no Markdown link, image, HTML, autolink or emphasis', () => {
    for (const text of HOSTILE) {
      const escaped = markdownText(text);
      // Every character Markdown acts on is escaped with a backslash.
      assert.doesNotMatch(escaped, /(^|[^\\])[[\]()<>!*_`:@$]/, escaped);
    }
    assert.equal(plainMarkdown`**${'a*b'}**`, '**a\\*b**');
  });
});
