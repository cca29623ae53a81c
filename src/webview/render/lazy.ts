/**
 * Groups of an answer's top-level blocks that wait, as text, until they come near the view. When
 * an answer arrives much faster than it renders (megabytes at full speed, a long restored
 * conversation), the renderer places whole groups (see groups.ts) of the text far behind the
 * stream as empty group elements holding their source, and renders each one only when it comes
 * within a screen of the view. A rendered group holds exactly what a one-shot render puts in it.
 */

import type { References } from './markdown';

/** A group element of the answer and the markdown of its blocks. */
interface LazyGroup {
  readonly element: HTMLElement;
  readonly source: string;
  rendered: boolean;
}

/** What an unrendered group's height is guessed at, in `em`, from its text (so the scroll bar means something). */
function estimatedHeight(source: string): string {
  let lines = 0;
  for (let at = source.indexOf('\n'); at >= 0; at = source.indexOf('\n', at + 1)) {
    lines++;
  }
  // About a line per source line (spacing included) plus wrapping: measured within 5 % of the
  // rendered height for answers of mixed headings, paragraphs, lists, code, tables and quotes in a
  // 900 px wide view.
  return `${Math.ceil(lines * 0.95 + source.length / 150)}em`;
}

/** The groups of one answer that wait to be rendered, and those that came into view. */
export class LazyGroups {
  private readonly waiting = new Map<Element, LazyGroup>();
  /** Groups near the view, in the order they came. */
  private readonly due = new Set<LazyGroup>();
  /** Every group whose text could use a link reference definition (has a `]`). */
  private readonly referencing: LazyGroup[] = [];
  private observer: IntersectionObserver | undefined;

  /**
   * `render` renders a group's source with link reference definitions, `references` says which
   * are known now, and `wake` asks for a frame in which `renderDue` runs.
   */
  constructor(
    private readonly render: (source: string, references: References) => DocumentFragment,
    private readonly references: () => References,
    private readonly wake: () => void,
  ) {}

  /** Whether groups that came into view wait to be rendered. */
  get pending(): boolean {
    return this.due.size > 0;
  }

  /** Makes `element` (an empty group, already in the document) hold `source` until it comes near the view. */
  add(element: HTMLElement, source: string): void {
    const group: LazyGroup = { element, source, rendered: false };
    element.style.height = estimatedHeight(source);
    this.waiting.set(element, group);
    if (source.includes(']')) {
      this.referencing.push(group);
    }
    this.observer ??= new IntersectionObserver((entries) => this.seen(entries), {
      // The webview's own document: the margin then counts (an implicit root in a frame ignores it).
      root: element.ownerDocument,
      rootMargin: '100% 0px',
    });
    this.observer.observe(element);
  }

  /** Renders the groups that came into view, at least one, until `deadline` (a `performance.now()` time). */
  renderDue(deadline: number): boolean {
    let rendered = false;
    for (const group of this.due) {
      if (rendered && performance.now() >= deadline) {
        break;
      }
      this.show(group);
      rendered = true;
    }
    return rendered;
  }

  /** Renders every group still waiting. */
  renderAll(): void {
    for (const group of [...this.waiting.values()]) {
      this.show(group);
    }
  }

  /**
   * Definitions changed to `references`: rendered groups whose text `mentions` an affected label
   * render again (the waiting ones will use the new definitions anyway). Returns whether any did.
   */
  refresh(mentions: (source: string) => boolean, references: References): boolean {
    let changed = false;
    for (const group of this.referencing) {
      if (group.rendered && mentions(group.source)) {
        group.element.replaceChildren(this.render(group.source, references));
        changed = true;
      }
    }
    return changed;
  }

  /** Stops watching (the answer starts over). */
  dispose(): void {
    this.observer?.disconnect();
    this.observer = undefined;
    this.waiting.clear();
    this.due.clear();
  }

  private seen(entries: readonly IntersectionObserverEntry[]): void {
    let any = false;
    for (const entry of entries) {
      const group = this.waiting.get(entry.target);
      if (group !== undefined && entry.isIntersecting) {
        this.due.add(group);
        any = true;
      } else if (group !== undefined) {
        // Scrolled past before its turn came: it waits again.
        this.due.delete(group);
      }
    }
    if (any) {
      this.wake();
    }
  }

  private show(group: LazyGroup): void {
    this.due.delete(group);
    this.waiting.delete(group.element);
    this.observer?.unobserve(group.element);
    group.element.append(this.render(group.source, this.references()));
    group.element.style.removeProperty('height');
    if (group.element.getAttribute('style') === '') {
      group.element.removeAttribute('style');
    }
    group.rendered = true;
  }
}
