/**
 * A top-level block too long to render again as it grows (a code block, a list, a table, a
 * paragraph, anything else) streams through one of these: each renders the parts of its block
 * that are final once (code chunks, list items, table rows, runs of a paragraph's words), shows
 * the part still open as plain text, and finds where its block ends by parsing only text near
 * the end, never the block again. See answer.ts for the renderer that owns them.
 */
import { CodeChunks } from './code';
import { closesFence, completeLength, indentation, lineStarts, parseBlocks, type Token } from './blockCuts';
import { LONG_PARAGRAPH, runEnd } from './runCuts';
import { codeBlockShell, fenceInfo, LONG_TABLE_ROWS, md, TABLE_SECTION_ROWS, sanitizeInside, sanitizeToNodes, type References, type RenderEnv } from './markdown';

/** What a long block needs from the answer it is part of. */
export interface BlockContext {
  /** The definitions known now (a copy: a parse may add to it). */
  references(): References;
  /** Rendered text that uses `[…]` may change when a definition comes: `render` renders it again. */
  usesReferences(source: string, render: (references: References) => void): void;
  /**
   * The nodes `render` makes of `source`; if the text may use a definition, a definition that
   * comes later replaces them in place with what `render` makes then.
   */
  renderKept(source: string, render: () => ChildNode[]): ChildNode[];
  /** Renders whole blocks of Markdown into sanitized nodes (and learns their definitions). */
  renderBlocks(source: string): DocumentFragment;
}

/** A long block as it streams. */
export interface LongBlock {
  /** The block's top-level nodes (its element and the line break after it). */
  readonly nodes: readonly ChildNode[];
  /** More of the block's text (and maybe of what follows it). */
  push(text: string): void;
  /**
   * Renders what it can until `deadline`. Returns the text after the block once the block has
   * ended and is all rendered, else undefined. `complete`: no more text comes.
   */
  advance(complete: boolean, deadline: number): string | undefined;
}

/** An open item, row or run longer than this shows as plain text until it is final. */
const OPEN_PART_LIMIT = 16 * 1024;

/** A line that can only be a paragraph's, whatever follows on it: up to three spaces, then a letter. */
const PLAIN_LINE = /^ {0,3}[A-Za-z\u00c0-\uffff]/;

/** A block's element and the line break after it, as a one-shot render makes them. */
function placeable(element: Element): ChildNode[] {
  return [element, document.createTextNode('\n')];
}

/** The nodes of `fragment` after the line break its parent's markup starts with. */
function childrenAfterFirstBreak(parent: Element | null | undefined): ChildNode[] {
  if (parent === null || parent === undefined) return [];
  const nodes = [...parent.childNodes];
  if (nodes[0]?.nodeType === Node.TEXT_NODE && nodes[0].textContent === '\n') nodes.shift();
  return nodes;
}

/** Text not rendered yet is shown in blocks of at most this many characters (see RawText). */
const RAW_CHUNK = 16 * 1024;

/**
 * Text shown as it came until it can be rendered, appended to as text comes. A browser lays out
 * one run of text in time that grows faster than the text (see runCuts.ts), and text waits here
 * long when the page falls behind (four answers at once in Compare), so it is kept in blocks of
 * RAW_CHUNK characters: new text costs the layout of the last block only.
 */
class RawText {
  readonly node = document.createElement('span');
  private shown = '';
  private last: Text | undefined;

  constructor() {
    this.node.className = 'aq-raw-text';
  }

  /** Shows `text`: what was shown and more, or else all again (callers `drop` what they render first). */
  show(text: string): void {
    if (text.startsWith(this.shown)) {
      if (text.length > this.shown.length) this.append(text.slice(this.shown.length));
    } else {
      this.node.replaceChildren();
      this.shown = '';
      this.last = undefined;
      this.append(text);
    }
  }

  /** The first `count` characters shown were rendered: they go, touching only the first blocks. */
  drop(count: number): void {
    this.shown = this.shown.slice(count);
    let left = count;
    while (left > 0) {
      const chunk = this.node.firstChild;
      const text = chunk?.firstChild;
      if (chunk === null || !(text instanceof Text)) break;
      if (text.length > left) {
        text.deleteData(0, left);
        break;
      }
      left -= text.length;
      chunk.remove();
    }
    if (this.node.firstChild === null) this.last = undefined;
  }

  append(text: string): void {
    this.shown += text;
    let at = 0;
    while (at < text.length) {
      if (this.last === undefined || this.last.length >= RAW_CHUNK) {
        const chunk = document.createElement('span');
        chunk.className = 'aq-raw-chunk';
        this.last = document.createTextNode('');
        chunk.append(this.last);
        this.node.append(chunk);
      }
      let end = Math.min(text.length, at + RAW_CHUNK - this.last.length);
      // Never between the halves of a surrogate pair.
      const code = text.charCodeAt(end - 1);
      if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
      this.last.appendData(text.slice(at, end));
      at = end;
    }
  }
}

/** Starts the right stream for the long block at the start of `text`. */
export function startLongBlock(text: string, context: BlockContext): LongBlock {
  const window = text.slice(0, OPEN_PART_LIMIT);
  const complete = completeLength(window);
  const tokens = parseBlocks(complete > 0 ? window.slice(0, complete) : window);
  const first = tokens[0];
  const starts = lineStarts(window);
  const firstLine = window.slice(0, starts.length > 1 ? starts[1] - 1 : window.length);
  let block: LongBlock | undefined;
  if (first?.type === 'fence' && starts.length > 1 && first.map?.[0] === 0) {
    block = new CodeStream(firstLine, fenceInfo(first), first.markup);
    block.push(text.slice(starts[1]));
    return block;
  }
  if ((first?.type === 'bullet_list_open' || first?.type === 'ordered_list_open') && first.map?.[0] === 0) {
    block = new ListStream(first, context);
  } else if (first?.type === 'table_open' && first.map?.[0] === 0 && starts.length > 2) {
    block = new TableStream(window.slice(0, starts[2]), context);
    block.push(text.slice(starts[2]));
    return block;
  } else if (first?.type === 'paragraph_open' && first.map?.[0] === 0 && (!firstLine.includes('|') || first.map[1] > 1)) {
    block = new ParagraphStream(context);
  }
  block ??= new RawStream(context);
  block.push(text);
  return block;
}

/** A line of a fence's code without the fence's indentation (a tab counts to the next multiple of four columns). */
function unindent(line: string, indent: number): string {
  let column = 0;
  let at = 0;
  while (at < line.length && column < indent) {
    const code = line.charCodeAt(at);
    if (code === 32) column++;
    else if (code === 9) column += 4 - (column % 4);
    else break;
    at++;
  }
  return column > indent ? ' '.repeat(column - indent) + line.slice(at) : line.slice(at);
}

/** A fenced code block: its code highlighted in chunks, each once; the rest plain until its chunk is final. */
class CodeStream implements LongBlock {
  readonly nodes: ChildNode[];
  private readonly code: Element;
  private readonly chunks: CodeChunks;
  private readonly pending = new RawText();
  private readonly marker: string;
  private readonly markerLength: number;
  /** The opening fence's indentation, in columns: each line of code loses as much. */
  private readonly indent: number;
  private text = '';
  /** The text after the closing fence, once it has come. */
  private rest: string | undefined;

  constructor(opener: string, info: string, markup: string) {
    const shell = codeBlockShell(info);
    const element = sanitizeToNodes(shell.open + shell.close).firstElementChild;
    if (element === null) throw new Error('The code block shell did not survive sanitizing.');
    this.code = element.querySelector('pre > code') ?? element;
    this.code.append(this.pending.node);
    this.nodes = placeable(element);
    this.chunks = new CodeChunks(shell.language);
    this.marker = markup[0];
    this.markerLength = markup.length;
    this.indent = indentation(opener);
  }

  push(text: string): void {
    if (this.rest !== undefined) this.rest += text;
    else this.text += text;
  }

  advance(complete: boolean, deadline: number): string | undefined {
    if (this.rest === undefined) this.takeLines(complete);
    const ended = this.rest !== undefined || complete;
    // A chunk at a time, sanitized and placed before the next is made, so that the deadline counts all of its work.
    for (;;) {
      const waiting = this.chunks.pending.length;
      const html = this.chunks.take(ended, deadline, 1);
      this.pending.drop(waiting - this.chunks.pending.length);
      if (html === '') break;
      this.pending.node.before(sanitizeInside(html, ['pre', 'code']));
    }
    // The line still being written shows too (it may yet turn out to close the fence).
    this.pending.show(this.chunks.pending + (this.rest === undefined ? unindent(this.text, this.indent) : ''));
    if (!ended || this.chunks.pending !== '') return undefined;
    this.pending.node.remove();
    return this.rest ?? '';
  }

  /** Moves the complete lines of code to the highlighter, up to a closing fence. */
  private takeLines(complete: boolean): void {
    let code = '';
    let at = 0;
    for (let end = this.text.indexOf('\n'); end >= 0; end = this.text.indexOf('\n', at)) {
      const line = this.text.slice(at, end);
      if (closesFence(line, this.marker, this.markerLength)) {
        this.rest = this.text.slice(end + 1);
        this.text = '';
        this.chunks.push(code);
        return;
      }
      code += unindent(line, this.indent) + '\n';
      at = end + 1;
    }
    this.text = this.text.slice(at);
    if (complete) {
      // An unclosed fence at the end: its last line is code too (without a line break).
      if (this.text !== '' && !closesFence(this.text, this.marker, this.markerLength)) code += unindent(this.text, this.indent);
      this.text = '';
    }
    this.chunks.push(code);
  }
}

/**
 * A top-level list: finished items (every one before the last) are rendered once and stay; the
 * last item is rendered again as it grows (plain text past OPEN_PART_LIMIT). Whether the list is
 * tight comes from the items seen so far; once it turns loose, the items rendered tight are
 * rendered again, a batch a frame.
 */
class ListStream implements LongBlock {
  readonly nodes: ChildNode[];
  private readonly list: Element;
  private readonly kind: string;
  private readonly marker: string;
  /** The text from the open item's start. */
  private text = '';
  private tight = true;
  /** Rendered batches of finished items: their text, their nodes, and whether they are rendered tight. */
  private readonly batches: Array<{ source: string; nodes: ChildNode[]; tight: boolean }> = [];
  private openNodes: ChildNode[] = [];
  private readonly raw = new RawText();
  private openShown = '';
  private rest: string | undefined;

  constructor(first: Token, private readonly context: BlockContext) {
    this.kind = first.type;
    this.marker = first.markup;
    const start = first.attrGet('start');
    this.list = document.createElement(first.tag);
    if (start !== null) this.list.setAttribute('start', String(start));
    this.list.append('\n');
    this.nodes = placeable(this.list);
  }

  push(text: string): void {
    if (this.rest !== undefined) this.rest += text;
    else this.text += text;
  }

  advance(complete: boolean, deadline: number): string | undefined {
    if (this.rest === undefined) this.takeItems(complete);
    // Items rendered tight before the list turned loose are rendered again, as time allows.
    for (const batch of this.batches) {
      if (batch.tight === this.tight) continue;
      if (performance.now() >= deadline && !complete && this.rest === undefined) break;
      this.renderBatch(batch, batch.source);
    }
    const final = this.rest !== undefined && this.batches.every((batch) => batch.tight === this.tight);
    return final ? this.rest : undefined;
  }

  private takeItems(complete: boolean): void {
    const usable = complete ? this.text : this.text.slice(0, completeLength(this.text));
    const tokens = parseBlocks(usable);
    const starts = lineStarts(usable);
    const close = tokens.findIndex((token) => token.level === 0 && token.nesting === -1);
    const items: number[] = [];
    for (let i = 0; i < (close < 0 ? tokens.length : close); i++) {
      const token = tokens[i];
      if (token.type === 'list_item_open' && token.level === 1 && token.map !== null) items.push(token.map[0]);
      if (token.type === 'paragraph_open' && token.level === 2 && !token.hidden) this.tight = false;
    }
    const same = tokens[0]?.type === this.kind && tokens[0].markup === this.marker;
    const after = close < 0 ? undefined : tokens.slice(close + 1).find((token) => token.level === 0 && token.map !== null);
    if (!same || after?.map !== null && after !== undefined) {
      // The list has ended: all its items are finished, and what follows goes back to the answer.
      const end = !same ? 0 : starts[after?.map?.[0] ?? starts.length - 1] ?? usable.length;
      if (end > 0) this.finishItems(this.text.slice(0, end));
      this.rest = this.text.slice(end);
      this.text = '';
      this.showOpen('');
      return;
    }
    if (complete) {
      this.finishItems(this.text);
      this.rest = '';
      this.text = '';
      this.showOpen('');
      return;
    }
    if (items.length > 1) {
      const end = starts[items[items.length - 1]];
      this.finishItems(this.text.slice(0, end));
      this.text = this.text.slice(end);
    }
    this.showOpen(this.text);
  }

  private finishItems(source: string): void {
    if (source === '') return;
    const batch = { source, nodes: [] as ChildNode[], tight: this.tight };
    this.batches.push(batch);
    this.renderBatch(batch, source);
    if (source.includes('[')) this.context.usesReferences(source, () => this.renderBatch(batch, batch.source));
  }

  /** Renders items of this list in its tightness; returns their nodes (after the list's first line break). */
  private renderItems(source: string): ChildNode[] {
    const env: RenderEnv = { references: this.context.references() };
    const tokens = md.parse(source, env);
    for (const token of tokens) {
      if ((token.type === 'paragraph_open' || token.type === 'paragraph_close') && token.level === 2) token.hidden = this.tight;
    }
    const html = md.renderer.render(tokens, md.options, env);
    return childrenAfterFirstBreak(sanitizeToNodes(html).firstElementChild);
  }

  private renderBatch(batch: { nodes: ChildNode[]; tight: boolean }, source: string): void {
    const nodes = this.renderItems(source);
    batch.tight = this.tight;
    // In place of its nodes, or (a new batch) before the open item.
    const anchor = batch.nodes[0] ?? this.openNodes[0];
    if (anchor !== undefined) anchor.before(...nodes);
    else this.list.append(...nodes);
    for (const node of batch.nodes) node.remove();
    batch.nodes = nodes;
  }

  /** Shows the open item: rendered while short, else as plain text in an item of its own. */
  private showOpen(text: string): void {
    if (text === this.openShown) return;
    this.openShown = text;
    for (const node of this.openNodes) node.remove();
    this.openNodes = [];
    if (text === '') return;
    if (text.length > OPEN_PART_LIMIT) {
      const item = document.createElement('li');
      item.append(this.raw.node);
      this.raw.show(text);
      this.openNodes = [item];
    } else {
      this.openNodes = this.renderItems(text);
    }
    this.list.append(...this.openNodes);
  }
}

/**
 * A table: finished rows are rendered once and stay; the row still being written shows as plain
 * text. A long table's rows go into sections of TABLE_SECTION_ROWS, as a one-shot render makes them.
 */
class TableStream implements LongBlock {
  readonly nodes: ChildNode[];
  /** The section rows go into now. */
  private body: Element;
  private readonly table: Element;
  /** Rows not rendered yet (from a line's start). */
  private text = '';
  private readonly raw = new RawText();
  private rows = 0;
  private sectionRows = 0;
  private rest: string | undefined;

  /** `head`: the header and delimiter lines. */
  constructor(private readonly head: string, private readonly context: BlockContext) {
    const table = sanitizeToNodes(md.render(head + '|\n', { references: context.references() })).querySelector('table');
    this.table = table ?? document.createElement('table');
    let body = this.table.querySelector(':scope > tbody');
    if (body === null) {
      body = document.createElement('tbody');
      this.table.append(body, '\n');
    }
    this.body = body;
    this.body.replaceChildren('\n');
    this.nodes = placeable(this.table);
    this.body.append(this.raw.node);
  }

  push(text: string): void {
    if (this.rest !== undefined) this.rest += text;
    else this.text += text;
  }

  advance(complete: boolean, deadline: number): string | undefined {
    for (;;) {
      if (this.rest !== undefined) return this.rest;
      // A window of rows at a time, however many wait (a page far behind has many).
      const windowEnd = this.text.length > OPEN_PART_LIMIT ? completeLength(this.text.slice(0, OPEN_PART_LIMIT)) : 0;
      const last = complete && windowEnd === 0;
      const usable = windowEnd > 0 ? this.text.slice(0, windowEnd) : last ? this.text : this.text.slice(0, completeLength(this.text));
      if (usable === '') break;
      const probe = this.head + usable;
      const tokens = parseBlocks(probe);
      const end = tokens[0]?.type === 'table_open' ? (tokens[0].map?.[1] ?? 2) : 2;
      const probeStarts = lineStarts(probe);
      const lines = probeStarts.length - (probe.endsWith('\n') ? 1 : 0);
      const rowsEnd = (probeStarts[end] ?? probe.length) - this.head.length;
      const placed = rowsEnd > 0 ? this.addRows(usable.slice(0, rowsEnd), deadline) : 0;
      if (placed === rowsEnd && (end < lines || last)) {
        this.rest = this.text.slice(rowsEnd);
        this.text = '';
        this.raw.node.remove();
        if (this.rows === 0) {
          this.body.nextSibling?.remove();
          this.body.remove();
        }
        return this.rest;
      }
      this.text = this.text.slice(placed);
      this.raw.drop(placed);
      // Rows left for the next frame, or none complete in what waits.
      if (placed < rowsEnd || windowEnd === 0 || performance.now() >= deadline) break;
    }
    this.raw.show(this.text);
    return undefined;
  }

  /** Renders finished rows (whole lines), a section's share at a time, until `deadline`; returns how much of `source` it placed. */
  private addRows(source: string, deadline: number): number {
    const starts = lineStarts(source);
    const lines = starts.length - (source.endsWith('\n') ? 1 : 0);
    for (let line = 0; line < lines; ) {
      if (this.sectionRows >= TABLE_SECTION_ROWS) this.startSection();
      const take = Math.min(lines - line, TABLE_SECTION_ROWS - this.sectionRows);
      const end = starts[line + take] ?? source.length;
      this.placeRows(source.slice(starts[line], end));
      line += take;
      if (line < lines && performance.now() >= deadline) return end;
    }
    return source.length;
  }

  /** Renders rows that all go into the section open now: rendered again (a definition came), they stay in it. */
  private placeRows(source: string): void {
    const render = (): ChildNode[] => {
      const html = md.render(this.head + source, { references: this.context.references() });
      return childrenAfterFirstBreak(sanitizeToNodes(html).querySelector('table > tbody'));
    };
    const nodes = this.context.renderKept(source, render);
    const rows = nodes.filter((node) => node.nodeType === Node.ELEMENT_NODE).length;
    this.rows += rows;
    this.sectionRows += rows;
    // As a one-shot render marks it (markdown.ts): from then on, its rows are laid out one by one.
    if (this.rows >= LONG_TABLE_ROWS) this.table.classList.add('aq-table-long');
    this.raw.node.before(...nodes);
  }

  private startSection(): void {
    const next = document.createElement('tbody');
    next.append('\n', this.raw.node);
    this.body.after('\n', next);
    this.body = next;
    this.sectionRows = 0;
  }
}

/**
 * A top-level paragraph: its words are rendered in runs (runCuts.ts), each once, the rest shown as
 * plain text; a run ends where the same cut of the whole paragraph would end it. A line after its
 * first is part of it once a parse of that line after a paragraph's says so (a setext underline
 * turns it into a heading; a table, list, heading or fence ends it). The line still being written
 * is taken as the paragraph's while it has no `|`: should it turn out to be a table's header
 * after all, the paragraph is rendered again. A paragraph that ends shorter than LONG_PARAGRAPH
 * is rendered again whole, as one without runs.
 */
class ParagraphStream implements LongBlock {
  readonly nodes: ChildNode[];
  private element: Element;
  private readonly raw = new RawText();
  /** The text not rendered yet, shown as it came: the last run while the paragraph streams. */
  private readonly rawRun = document.createElement('span');
  private started = false;
  /**
   * The paragraph's text (its leading whitespace left out), and two ends of it that a frame reads:
   * the text not rendered yet, and the text from the line still to be checked. Each frame touches
   * only those, never the whole paragraph (which a slice would copy).
   */
  private text = '';
  private tail = '';
  private unchecked = '';
  private length = 0;
  /** Offsets into the text: where the runs rendered end, where the text known to be the paragraph's ends, where the line to check starts. */
  private rendered = 0;
  private settled = 0;
  private checkFrom = 0;
  /** Where the last line starts, and the last `|` (-1: none). */
  private lineStart = 0;
  private lastBar = -1;
  /** Once the paragraph has ended: where its inline text ends, its heading level (0: a paragraph), and the text after it. */
  private end: number | undefined;
  private heading = 0;
  private rest = '';

  constructor(private readonly context: BlockContext) {
    this.element = document.createElement('p');
    this.rawRun.className = 'aq-run aq-raw';
    this.rawRun.append(this.raw.node);
    this.element.append(this.rawRun);
    this.nodes = placeable(this.element);
  }

  push(text: string): void {
    if (this.end !== undefined) {
      this.rest += text;
      return;
    }
    if (!this.started) {
      text = text.replace(/^\s+/, '');
      this.started = text !== '';
    }
    const line = text.lastIndexOf('\n');
    if (line >= 0) this.lineStart = this.length + line + 1;
    const bar = text.lastIndexOf('|');
    if (bar >= 0) this.lastBar = this.length + bar;
    this.length += text.length;
    this.text += text;
    this.tail += text;
    this.unchecked += text;
  }

  advance(complete: boolean, deadline: number): string | undefined {
    if (this.end === undefined) this.findEnd(complete);
    if (this.end === 0) {
      // Not a paragraph after all (its first line is a table's header): the answer takes the text back.
      for (const node of this.nodes) node.remove();
      this.nodes.length = 0;
      return this.rest;
    }
    const ended = this.end !== undefined;
    if (this.end !== undefined && this.rendered > this.end) this.startOver();
    if (this.end === undefined || this.end >= LONG_PARAGRAPH) {
      const limit = this.end ?? this.settled;
      while (this.rendered < limit && performance.now() < deadline && this.renderRun(limit, ended)) {
        // One run a turn, until the deadline.
      }
    }
    if (this.end === undefined || (this.end >= LONG_PARAGRAPH && this.rendered < this.end)) {
      this.raw.show(this.tail);
      return undefined;
    }
    this.rawRun.remove();
    if (this.end < LONG_PARAGRAPH) this.element.replaceChildren(...this.renderInline(this.text.slice(0, this.end)));
    if (this.heading > 0) {
      const heading = document.createElement(`h${this.heading}`);
      heading.append(...this.element.childNodes);
      this.element.replaceWith(heading);
      this.element = heading;
      this.nodes[0] = heading;
    }
    return this.rest;
  }

  /** Checks the lines not checked yet: whether each goes on the paragraph, and where it ends. */
  private findEnd(complete: boolean): void {
    const linesEnd = complete ? this.length : this.lineStart;
    if (linesEnd > this.checkFrom) {
      // Lines after a paragraph's line: the same rules decide whether they go on it as on this one.
      const prefix = this.checkFrom === 0 ? '' : 'a\n';
      const probe = prefix + this.unchecked.slice(0, linesEnd - this.checkFrom);
      const at = (offset: number): number => this.checkFrom + offset - prefix.length;
      const tokens = parseBlocks(probe);
      const starts = lineStarts(probe);
      const total = starts.length - (probe.endsWith('\n') ? 1 : 0);
      const first = tokens[0];
      const blockEnd = first?.map?.[1] ?? total;
      if (first?.type === 'heading_open') {
        // A setext underline: the paragraph is a heading of the lines before it.
        this.heading = Number(first.tag.slice(1));
        this.endAt(at(starts[blockEnd - 1]), at(starts[blockEnd] ?? probe.length));
        return;
      }
      if (first?.type !== 'paragraph_open') {
        this.endAt(0, 0);
        return;
      }
      if (blockEnd < total || complete) {
        const end = blockEnd < total ? at(starts[blockEnd]) : this.length;
        this.endAt(end, end);
        return;
      }
      // Every line goes on the paragraph. The last is checked again with the next (it may be a table's header).
      const last = starts[total - 1];
      const lastStart = at(last);
      this.settled = probe.slice(last).includes('|') ? lastStart : linesEnd;
      this.unchecked = this.unchecked.slice(lastStart - this.checkFrom);
      this.checkFrom = lastStart;
    }
    // The line still being written counts, up to its last word, while it can only be the paragraph's.
    const start = this.lineStart;
    if (this.settled >= start && this.lastBar < start && (start === 0 || PLAIN_LINE.test(this.unchecked.slice(start - this.checkFrom, start - this.checkFrom + 4)))) {
      let word = this.tail.length;
      while (word > 0 && !/\s/.test(this.tail[word - 1])) word--;
      this.settled = Math.max(this.settled, this.rendered + word);
    }
  }

  /** The paragraph ends: its lines end at `linesEnd` (its inline text, as markdown-it trims it, a little before), the text after it starts at `restFrom`. */
  private endAt(linesEnd: number, restFrom: number): void {
    let end = linesEnd;
    while (end > 0 && /\s/.test(this.text[end - 1])) end--;
    this.end = end;
    this.rest = this.unchecked.slice(restFrom - this.checkFrom) + this.rest;
    if (end >= this.rendered) this.tail = this.tail.slice(0, end - this.rendered);
  }

  /** Runs went past the paragraph's end (its last line turned out to start a table): all of it again. */
  private startOver(): void {
    for (const node of [...this.element.childNodes]) if (node !== this.rawRun) node.remove();
    this.rendered = 0;
    this.tail = this.text.slice(0, this.end);
  }

  /** Renders the next run up to `limit`, if its end is known yet; false when it is not. */
  private renderRun(limit: number, ended: boolean): boolean {
    const end = runEnd(this.tail, 0, limit - this.rendered, ended);
    if (end === 'later') return false;
    const cut = end === 'rest' ? limit - this.rendered : end;
    const source = this.tail.slice(0, cut);
    this.rawRun.before(...this.context.renderKept(source, () => [...sanitizeInside(`<span class="aq-run">${md.renderInline(source, { references: this.context.references() })}</span>`, ['p']).childNodes]));
    this.rendered += cut;
    this.tail = this.tail.slice(cut);
    this.raw.drop(cut);
    return true;
  }

  /** Sanitized nodes of the paragraph's whole inline text (rendered again when a definition it may use comes). */
  private renderInline(source: string): ChildNode[] {
    return this.context.renderKept(source, () => [...sanitizeInside(md.renderInline(source, { references: this.context.references() }), ['p']).childNodes]);
  }
}

/**
 * Any other long block (a quote, indented code, definitions): shown as plain text until a blank
 * line and a line after it that starts a block of its own end it, then rendered whole.
 */
class RawStream implements LongBlock {
  readonly nodes: ChildNode[];
  private readonly raw = new RawText();
  private text = '';
  /** The text from where the search for the end goes on (a frame reads only this), and its offset. */
  private recent = '';
  private recentFrom = 0;

  constructor(private readonly context: BlockContext) {
    const element = document.createElement('div');
    element.className = 'aq-raw';
    element.append(this.raw.node);
    this.nodes = placeable(element);
  }

  push(text: string): void {
    this.text += text;
    this.recent += text;
    this.raw.append(text);
  }

  advance(complete: boolean): string | undefined {
    let end = complete ? this.recentFrom + this.recent.length : undefined;
    for (let blank = this.recent.indexOf('\n\n'); end === undefined && blank >= 0; blank = this.recent.indexOf('\n\n', blank + 1)) {
      const next = this.recent.indexOf('\n', blank + 2);
      if (next < 0) break;
      if (/^(?:[ \t]*$| {4}|\t| {0,3}>)/.test(this.recent.slice(blank + 2, next))) continue;
      // A block starts on that line if a parse of everything before it says so.
      const before = this.text.slice(0, this.recentFrom + next + 1);
      const line = lineStarts(before).length - 2;
      if (parseBlocks(before).some((token) => token.level === 0 && token.nesting !== -1 && token.map?.[0] === line)) end = this.recentFrom + blank + 2;
    }
    if (end === undefined) {
      // Searched up to the last line break but one (a blank line may end there).
      const keep = Math.max(0, this.recent.lastIndexOf('\n') - 1);
      this.recent = this.recent.slice(keep);
      this.recentFrom += keep;
      return undefined;
    }
    const rendered = this.context.renderBlocks(this.text.slice(0, end));
    const nodes = [...rendered.childNodes];
    this.nodes[0].before(rendered);
    for (const node of this.nodes) node.remove();
    this.nodes.splice(0, this.nodes.length, ...nodes);
    return this.text.slice(end);
  }
}
