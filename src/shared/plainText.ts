/**
 * The one owner of the rule "text the extension did not write is plain text": a service's body,
 * status text or stream error, an answer's words, a file or application name, a setting's value.
 * VS Code turns `[label](command:id?args)` in a notification, a progress message, an input box's
 * prompt or a dialog into a link that runs the command on one click, and `$(name)` into an icon in
 * quick picks and the status bar; Markdown sinks (VS Code's Chat, hovers, Markdown tooltips) also
 * make links of bare URLs. Every sink that shows such text builds its message with {@link plain}
 * (or {@link plainText}) and, for Markdown, {@link plainMarkdown} (or {@link markdownText}).
 * Runs anywhere: no `vscode`, no Node, no DOM.
 */

/** Invisible, so the text reads the same; it separates what VS Code would join into a link or an icon. */
const BREAK = '\u200b';

// C0 and C1 controls other than tab and line breaks: shown as U+FFFD so nothing invisible hides in a message.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// Bidirectional overrides and isolates ("Trojan Source"): they reorder what the reader sees.
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
// `](` starts a link's target in VS Code's linked text; `$(` starts a theme icon.
const LINK_OR_ICON = /(\]|\$)(?=\()/g;

/**
 * Outside text made inert for a plain-text sink (a notification, progress message, input box
 * prompt, quick pick item, status bar text, tree item, dialog): never a link, a command or an icon.
 * What it says is unchanged but for a zero-width space between `](` and `$(`, and controls shown
 * as U+FFFD.
 */
export function plainText(text: string): string {
  return text.replace(CONTROLS, '\ufffd').replace(BIDI, '\ufffd').replace(LINK_OR_ICON, `$1${BREAK}`);
}

/**
 * Outside text for a terminal (a test run's output): {@link plainText}, so no escape sequence can
 * style, move or link anything, with CRLF line ends as a terminal needs them.
 */
export function terminalText(text: string): string {
  return plainText(text).replace(/\r?\n/g, '\r\n');
}

/**
 * A message for a plain-text sink: the literal parts are the extension's own words, every
 * interpolated value is outside text and goes through {@link plainText}.
 * `plain\`Removed the API key for ${label}.\``
 */
export function plain(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    out = join(join(out, plainText(String(values[i]))), strings[i + 1]);
  }
  return out;
}

/** `a` then `b`, kept apart where `a`'s end and `b`'s start would make `](` or `$(` together. */
function join(a: string, b: string): string {
  return (a.endsWith(']') || a.endsWith('$')) && b.startsWith('(') ? `${a}${BREAK}${b}` : a + b;
}

// Every character CommonMark or GFM gives a meaning to, `:` and `@` included (bare URLs and e-mail
// addresses become links in GFM; an escaped `:` or `@` renders as itself and stops that).
const MARKDOWN_SPECIAL = /[\\`*_{}[\]()#+\-.!|<>~&:@$="']/g;

/** Outside text shown inside Markdown exactly as typed: no link, image, HTML, icon or emphasis. */
export function markdownText(text: string): string {
  return text.replace(CONTROLS, '\ufffd').replace(BIDI, '\ufffd').replace(MARKDOWN_SPECIAL, '\\$&');
}

/**
 * Markdown source whose literal parts are the extension's own Markdown and whose interpolated
 * values are outside text, escaped with {@link markdownText}.
 * `plainMarkdown\`*${label}:*\``
 */
export function plainMarkdown(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    out += markdownText(String(values[i])) + strings[i + 1];
  }
  return out;
}
