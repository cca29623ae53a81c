import type { QueryContext } from './prepare';

/** One earlier turn of a conversation, as `${history}` shows it. */
export interface ConversationTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** Earlier turns as the text of `${history}`: `User: …` and `Assistant: …`, a blank line apart. */
export function historyText(turns: readonly ConversationTurn[]): string {
  return turns
    .filter((turn) => turn.text.trim() !== '')
    .map((turn) => `${turn.role === 'user' ? 'User' : 'Assistant'}: ${turn.text}`)
    .join('\n\n');
}

/**
 * A token count for a text. Our applications do not say which tokenizer (if any) they use, so
 * this is an estimate, not a measurement: about four characters per token, as for English text
 * with common tokenizers, rounded up so a budget built from it errs on the safe side.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The largest request the chat should build for a model: the runner asks before a body over 512 K characters. */
export const MAX_INPUT_TOKENS = estimateTokens('x'.repeat(512 * 1024));

/**
 * The most an answer is said to hold. The service interface sets no limit, so this only tells
 * the chat not to expect the answer to be cut short by the model.
 */
export const MAX_OUTPUT_TOKENS = 64 * 1024;

/** A text cut to at most `max` characters (never inside a surrogate pair), with a note when it was cut (by default, about an answer). */
export function capText(text: string, max: number, note: (shown: string, total: string) => string = answerCutNote): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end) + note(end.toLocaleString('en-US'), text.length.toLocaleString('en-US')), cut: true };
}

function answerCutNote(shown: string, total: string): string {
  return `\n\n[The answer was cut at ${shown} of ${total} characters.]`;
}

const USER_REQUEST = /<userRequest>\s*([\s\S]*?)\s*<\/userRequest>/;

/**
 * Splits a chat message that wraps the person's own words in `<userRequest>…</userRequest>` (as
 * VS Code's built-in chat does, with its own context around them) into those words and the rest.
 * A message without the tags is the question itself.
 */
export function splitUserRequest(text: string): { question: string; rest: string } {
  const found = USER_REQUEST.exec(text);
  if (found === null) return { question: text.trim(), rest: '' };
  const rest = (text.slice(0, found.index) + text.slice(found.index + found[0].length)).trim();
  return { question: found[1], rest };
}

/** Several contexts as one: each under its own label, in order. */
export function joinContexts(contexts: readonly QueryContext[]): QueryContext | undefined {
  if (contexts.length <= 1) return contexts[0];
  const [first] = contexts;
  return {
    kind: contexts.every((c) => c.kind === 'selection') ? 'selection' : 'file',
    label: contexts.map((c) => c.label).join(', '),
    text: contexts.map((c) => `${c.label}:\n${c.text}`).join('\n\n'),
    fileName: first.fileName,
    languageId: first.languageId,
    fileText: first.fileText,
  };
}
