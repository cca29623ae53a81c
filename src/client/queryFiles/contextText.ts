import { joinContexts } from '../../shared/conversation';
import type { QueryContext } from '../../shared/prepare';
import type { ContextRef } from '../../shared/queryFile';

/** A context file that cannot be sent, and why (shown on its line). */
export interface ContextProblem {
  readonly ref: ContextRef;
  readonly message: string;
}

/** The context files of a query read and joined, or the first one that cannot be sent (then nothing is sent). */
export type ContextResult = { readonly ok: true; readonly context?: QueryContext } | ({ readonly ok: false } & ContextProblem);

/** One context file's text as read (inside the fence), or why it may not be read. */
export type FileText = { readonly text: string } | { readonly problem: string };

/** Reads one context file of a query file inside the fence: the editor's and the command line's own ways to reach the files. */
export type ContextFileReader = (ref: ContextRef) => Promise<FileText>;

/** The language a file's name says, for `${languageId}` (VS Code's identifiers for the common ones; `plaintext` otherwise). */
export function languageOf(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.lastIndexOf('.');
  const extension = dot <= 0 ? base : base.slice(dot + 1);
  return LANGUAGES[extension] ?? 'plaintext';
}

const LANGUAGES: Readonly<Record<string, string>> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'typescriptreact',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascriptreact',
  json: 'json', jsonc: 'jsonc', md: 'markdown', py: 'python', go: 'go', rs: 'rust', java: 'java',
  kt: 'kotlin', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'csharp', rb: 'ruby', php: 'php',
  swift: 'swift', sh: 'shellscript', bash: 'shellscript', ps1: 'powershell', yml: 'yaml', yaml: 'yaml',
  toml: 'toml', html: 'html', htm: 'html', css: 'css', scss: 'scss', sql: 'sql', xml: 'xml', txt: 'plaintext',
  dockerfile: 'dockerfile', makefile: 'makefile',
};

/** Where each line of a text starts and ends (its end before the line break), as an editor counts lines (`\r\n`, `\n`, `\r`). */
function lineBounds(text: string): { starts: number[]; ends: number[] } {
  const starts = [0];
  const ends: number[] = [];
  const breaks = /\r\n|\r|\n/g;
  for (let match = breaks.exec(text); match !== null; match = breaks.exec(text)) {
    ends.push(match.index);
    starts.push(match.index + match[0].length);
  }
  ends.push(text.length);
  return { starts, ends };
}

/** One context file as the request sends it: the whole file, or the lines its reference names. */
export function contextOf(ref: ContextRef, whole: string): QueryContext | ContextProblem {
  const languageId = languageOf(ref.path);
  if (ref.startLine === undefined) return { kind: 'file', label: ref.path, text: whole, fileName: ref.path, languageId, fileText: whole };
  const { starts, ends } = lineBounds(whole);
  const end = ref.endLine ?? ref.startLine;
  if (ref.startLine > starts.length) return { ref, message: `${ref.path} has ${starts.length} lines; line ${ref.startLine} does not exist.` };
  const last = Math.min(end, starts.length) - 1;
  const text = whole.slice(starts[ref.startLine - 1], ends[last]);
  const lines = ref.startLine === end ? `${ref.startLine}` : `${ref.startLine}-${end}`;
  return { kind: 'selection', label: `${ref.path}:${lines}`, text, fileName: ref.path, languageId, fileText: whole };
}

/**
 * Reads a query's context files (inside the fence, the line range cut), joined as one context the
 * way Chat attachments are; the first that cannot be sent stops the query before anything is sent.
 */
export async function readQueryContext(refs: readonly ContextRef[], read: ContextFileReader): Promise<ContextResult> {
  const contexts: QueryContext[] = [];
  for (const ref of refs) {
    const file = await read(ref);
    if ('problem' in file) return { ok: false, ref, message: file.problem };
    const context = contextOf(ref, file.text);
    if ('message' in context) return { ok: false, ...context };
    contexts.push(context);
  }
  return { ok: true, context: joinContexts(contexts) };
}
