// The policy of a `context:` path, read before anything is opened: relative to the query file's
// workspace folder, with an optional line range, and no way out of the folder by its spelling.
import type { ContextRef } from './parsedFile';
import type { Span } from './span';

/** What a context path may look like, for messages. */
export const CONTEXT_HINT = 'Use a path relative to the workspace folder, e.g. src/app.ts#L10-40.';

/** `#L10`, `#L10-40`, `#L10-L40` (any case of L). */
const LINE_RANGE = /^[Ll](\d{1,9})(?:-[Ll]?(\d{1,9}))?$/;
/** A URL scheme (two letters at least: one is a drive). */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;
const DRIVE = /^[A-Za-z]:/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Reads a `context:` value: a path relative to the query file's workspace folder, optionally with
 * a line range. Only the lexical checks (the host checks that the file exists and that no symlink
 * leads out): no absolute path, drive, UNC path, `~`, URL, control character, or `..` above the
 * folder.
 */
export function parseContextValue(value: string, span: Span): ContextRef | { readonly error: string } {
  let pathText = value;
  let startLine: number | undefined;
  let endLine: number | undefined;
  const hash = value.lastIndexOf('#');
  if (hash >= 0) {
    const fragment = value.slice(hash + 1);
    if (fragment === '' || /^[Ll\d]/.test(fragment)) {
      const m = LINE_RANGE.exec(fragment);
      if (m === null) return { error: `"#${clipForMessage(fragment)}" is not a line range: write #L10 or #L10-40 after the path. ${CONTEXT_HINT}` };
      startLine = Number(m[1]);
      endLine = m[2] === undefined ? undefined : Number(m[2]);
      if (startLine < 1 || (endLine !== undefined && endLine < 1)) return { error: `Line numbers start at 1 (#L${m[1]}${m[2] === undefined ? '' : `-${m[2]}`}).` };
      if (endLine !== undefined && endLine < startLine) return { error: `The line range #L${m[1]}-${m[2]} ends before it starts.` };
      pathText = value.slice(0, hash).trimEnd();
    }
  }
  const path = pathText.replace(/\\/g, '/');
  if (path === '') return { error: `The context path is empty. ${CONTEXT_HINT}` };
  if (CONTROL.test(path)) return { error: `The context path contains a control character. ${CONTEXT_HINT}` };
  if (path.startsWith('//')) return { error: `${JSON.stringify(clipForMessage(pathText))} is a network (UNC) path: context files must lie inside the workspace folder. ${CONTEXT_HINT}` };
  if (path.startsWith('/')) return { error: `${JSON.stringify(clipForMessage(pathText))} is an absolute path: context files must lie inside the workspace folder. ${CONTEXT_HINT}` };
  if (DRIVE.test(path)) return { error: `${JSON.stringify(clipForMessage(pathText))} names a drive: context files must lie inside the workspace folder. ${CONTEXT_HINT}` };
  if (path.startsWith('~')) return { error: `${JSON.stringify(clipForMessage(pathText))} starts in a home folder: context files must lie inside the workspace folder. ${CONTEXT_HINT}` };
  if (SCHEME.test(path)) return { error: `${JSON.stringify(clipForMessage(pathText))} is a URL: context files are files of the workspace folder. ${CONTEXT_HINT}` };
  let depth = 0;
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      depth--;
      if (depth < 0) return { error: `${JSON.stringify(clipForMessage(pathText))} leads out of the workspace folder (".."): context files must lie inside it. ${CONTEXT_HINT}` };
      continue;
    }
    // Windows reads `.. ` or `...` much like `..`: no segment of only dots and spaces.
    if (onlyDotsAndSpaces(segment)) return { error: `${JSON.stringify(clipForMessage(pathText))} has a part made only of dots and spaces ("${segment}"). ${CONTEXT_HINT}` };
    depth++;
  }
  if (depth === 0) return { error: `${JSON.stringify(clipForMessage(pathText))} names the workspace folder itself, not a file. ${CONTEXT_HINT}` };
  return { path, span, ...(startLine === undefined ? {} : { startLine }), ...(endLine === undefined ? {} : { endLine }) };
}

function onlyDotsAndSpaces(segment: string): boolean {
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c !== 46 && c !== 32) return false;
  }
  return true;
}

/** A value cut short for a message about it. */
export function clipForMessage(text: string): string {
  return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}
