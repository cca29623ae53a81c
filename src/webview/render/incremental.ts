import {
  parseMarkdown,
  renderTokens,
  sanitizeToFragment,
  type MdToken,
  type ReferenceDefinition,
  type RenderEnv,
} from './markdown';

/** How a renderer gets its updates onto the screen. */
export interface RendererOptions {
  /** Runs a render later; defaults to `requestAnimationFrame`. Tests pass a synchronous one. */
  readonly scheduleFrame?: (callback: () => void) => void;
  /** Called after every update of the DOM (e.g. to keep a transcript scrolled to the bottom). */
  readonly onRender?: () => void;
}

type References = Record<string, ReferenceDefinition>;

/** A run of finished blocks, rendered once into its own nodes. */
interface FrozenChunk {
  readonly start: number;
  readonly end: number;
  nodes: ChildNode[];
  /** Whether the source has a `]`, i.e. could use a reference definition that arrives later. */
  readonly refSensitive: boolean;
  refsSignature: string;
}

/** The text parsed in one frame, unless a longer open block needs more (then it doubles). */
const BASE_WINDOW = 64 * 1024;
const LINE_BREAK = /\r\n?|\n/g;
const BLANK = /^[ \t]*$/;

function defaultSchedule(callback: () => void): void {
  requestAnimationFrame(() => callback());
}

/** Start offsets of every line of `text` (line breaks as markdown-it normalizes them). */
function lineStarts(text: string): number[] {
  const starts = [0];
  LINE_BREAK.lastIndex = 0;
  for (let m = LINE_BREAK.exec(text); m !== null; m = LINE_BREAK.exec(text)) {
    starts.push(m.index + m[0].length);
  }
  return starts;
}

/**
 * Finds the last place in a parsed tail before which nothing can change any more, whatever text
 * follows: the start of a top-level block that follows a blank line and whose first line is
 * complete. Markdown's block structure is decided line by line, a blank line closes paragraphs
 * (no lazy continuation, no setext underline, no table header), and a block that started on a
 * complete line after it means every container before it has ended. Returns the token index and
 * the character offset, or undefined.
 */
function findBoundary(tokens: readonly MdToken[], text: string, starts: readonly number[]): { index: number; offset: number } | undefined {
  for (let i = tokens.length - 1; i > 0; i--) {
    const token = tokens[i];
    if (token.level !== 0 || token.nesting === -1 || token.map === null) {
      continue;
    }
    const line = token.map[0];
    if (line < 1 || line + 1 >= starts.length) {
      continue;
    }
    // A trailing lone CR may still become CRLF: the line is not known to be complete.
    const lineEnd = starts[line + 1];
    if (lineEnd === text.length && text.charCodeAt(lineEnd - 1) === 13) {
      continue;
    }
    const previous = text.slice(starts[line - 1], starts[line]).replace(LINE_BREAK, '');
    if (BLANK.test(previous)) {
      return { index: i, offset: starts[line] };
    }
  }
  return undefined;
}

function insertFragment(container: Node, fragment: DocumentFragment, before: Node | null): ChildNode[] {
  const nodes = Array.from(fragment.childNodes);
  container.insertBefore(fragment, before);
  return nodes;
}

/**
 * Renders a streamed markdown answer. Finished blocks are rendered once into their own nodes and
 * never parsed again; only the open tail is re-rendered, at most once per frame. After `finish()`
 * the container holds exactly what `renderMarkdownOnce(fullText)` produces.
 */
export class IncrementalRenderer {
  private text = '';
  private frozenEnd = 0;
  private frozenRefs: References = {};
  private chunks: FrozenChunk[] = [];
  private tailNodes: ChildNode[] = [];
  private tailHtml = '';
  private renderedLength = -1;
  private window = BASE_WINDOW;
  private scheduled = false;
  private generation = 0;
  private readonly schedule: (callback: () => void) => void;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: RendererOptions = {},
  ) {
    this.schedule = options.scheduleFrame ?? defaultSchedule;
  }

  /** The whole text received so far. */
  get source(): string {
    return this.text;
  }

  /** Adds streamed text; the DOM catches up on the next frame. */
  append(text: string): void {
    if (text === '') {
      return;
    }
    this.text += text;
    this.requestFrame();
  }

  /** The stream ended: renders everything now. */
  finish(): void {
    this.update(true);
  }

  /** Renders what is pending now instead of on the next frame. */
  flush(): void {
    this.update(true);
  }

  /** Starts over, showing `text` (rendered at once); the stream may continue with `append`. */
  reset(text = ''): void {
    this.generation++;
    this.scheduled = false;
    this.text = text;
    this.frozenEnd = 0;
    this.frozenRefs = {};
    this.chunks = [];
    this.tailNodes = [];
    this.tailHtml = '';
    this.renderedLength = -1;
    this.window = BASE_WINDOW;
    this.container.replaceChildren();
    this.update(true);
  }

  private requestFrame(): void {
    if (this.scheduled) {
      return;
    }
    this.scheduled = true;
    const generation = this.generation;
    this.schedule(() => {
      if (generation === this.generation && this.scheduled) {
        this.scheduled = false;
        this.update(false);
      }
    });
  }

  /** One render pass. `all` processes the whole text; otherwise a bounded window of it. */
  private update(all: boolean): void {
    this.scheduled = false;
    if (this.renderedLength === this.text.length) {
      return;
    }
    let changed = false;
    for (;;) {
      const end = all ? this.text.length : Math.min(this.text.length, this.frozenEnd + this.window);
      changed = this.renderWindow(end) || changed;
      if (end === this.text.length) {
        this.renderedLength = end;
        break;
      }
      if (!all) {
        this.requestFrame();
        break;
      }
    }
    if (changed) {
      this.options.onRender?.();
    }
  }

  /** Parses text from the frozen point to `end`, freezes what is finished, re-renders the rest. */
  private renderWindow(end: number): boolean {
    const tail = this.text.slice(this.frozenEnd, end);
    const env: RenderEnv = { references: { ...this.frozenRefs } };
    const tokens = parseMarkdown(tail, env);
    const boundary = findBoundary(tokens, tail, lineStarts(tail));
    const signature = JSON.stringify(env.references ?? {});
    let changed = false;
    let tailTokens = tokens;
    if (boundary !== undefined) {
      this.window = BASE_WINDOW;
      this.removeTail();
      const chunkText = tail.slice(0, boundary.offset);
      const nodes = insertFragment(this.container, sanitizeToFragment(renderTokens(tokens.slice(0, boundary.index), env)), null);
      this.chunks.push({
        start: this.frozenEnd,
        end: this.frozenEnd + boundary.offset,
        nodes,
        refSensitive: chunkText.includes(']'),
        refsSignature: signature,
      });
      if (chunkText.includes(']:')) {
        // The chunk may define references: learn them the same way a full parse would.
        const chunkEnv: RenderEnv = { references: { ...this.frozenRefs } };
        parseMarkdown(chunkText, chunkEnv);
        this.frozenRefs = chunkEnv.references ?? {};
      }
      this.frozenEnd += boundary.offset;
      tailTokens = tokens.slice(boundary.index);
      changed = true;
    } else if (end < this.text.length) {
      // An open block longer than the window: look further next time.
      this.window *= 2;
    }
    changed = this.refreshReferences(env.references ?? {}, signature) || changed;
    const html = renderTokens(tailTokens, env);
    if (html !== this.tailHtml || boundary !== undefined) {
      this.removeTail();
      this.tailNodes = insertFragment(this.container, sanitizeToFragment(html), null);
      this.tailHtml = html;
      changed = true;
    }
    return changed;
  }

  private removeTail(): void {
    for (const node of this.tailNodes) {
      node.remove();
    }
    this.tailNodes = [];
    this.tailHtml = '';
  }

  /** A definition appeared or changed: frozen blocks that might use it are rendered again. */
  private refreshReferences(references: References, signature: string): boolean {
    let changed = false;
    for (let i = 0; i < this.chunks.length; i++) {
      const chunk = this.chunks[i];
      if (!chunk.refSensitive || chunk.refsSignature === signature) {
        continue;
      }
      chunk.refsSignature = signature;
      const env: RenderEnv = { references: { ...references } };
      const html = renderTokens(parseMarkdown(this.text.slice(chunk.start, chunk.end), env), env);
      const before = this.nodeAfterChunk(i);
      for (const node of chunk.nodes) {
        node.remove();
      }
      chunk.nodes = insertFragment(this.container, sanitizeToFragment(html), before);
      changed = true;
    }
    return changed;
  }

  private nodeAfterChunk(index: number): Node | null {
    for (let i = index + 1; i < this.chunks.length; i++) {
      if (this.chunks[i].nodes.length > 0) {
        return this.chunks[i].nodes[0];
      }
    }
    return this.tailNodes[0] ?? null;
  }
}
