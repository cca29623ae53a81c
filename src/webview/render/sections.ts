/**
 * A long answer's top-level blocks, in sections of SECTION_BLOCKS elements that the browser lays
 * out only near the screen (`.aq-section` in webview.css: `content-visibility: auto`). Appending to
 * a container makes the browser lay the container out again, and it walks every child to do it:
 * with thousands of blocks in the page, each frame's few new blocks cost layout that grows with the
 * whole answer. In sections it walks the sections, whose sizes it keeps, and the last one's blocks.
 * Every word stays in the page (Find, Select All, copy and screen readers reach a section that is
 * not laid out).
 *
 * The rule reads the sequence of top-level nodes alone, so a streamed answer and a one-shot render
 * group alike: an answer of more than SECTION_BLOCKS elements is in sections; a section begins at
 * an element when the one before holds SECTION_BLOCKS elements, and text nodes (the line breaks
 * between blocks) stay in the section before them. A short answer has none: a section not laid out
 * yet takes an estimated height, which only a long answer is worth.
 */
export const SECTION_BLOCKS = 64;

/** Places an answer's blocks into its container, in sections once the answer is long (see above). */
export class Sections {
  private grouped = false;

  constructor(private readonly container: HTMLElement) {}

  /** Places `nodes` after every block placed before. */
  place(nodes: readonly ChildNode[]): void {
    if (!this.grouped) {
      for (const node of nodes) this.container.append(node);
      return;
    }
    // The last child is the section that takes the next block: blocks taken out (the open text
    // rendered again, a fold) leave nothing to correct.
    const lastChild = this.container.lastChild;
    let last = isSection(lastChild) ? lastChild : undefined;
    for (const node of nodes) {
      if (last === undefined || (node.nodeType === Node.ELEMENT_NODE && last.childElementCount >= SECTION_BLOCKS)) {
        last = newSection();
        this.container.append(last);
      }
      last.append(node);
    }
  }

  /**
   * Call when the container holds finished blocks only: groups them once they are more than
   * SECTION_BLOCKS, and moves the blocks past SECTION_BLOCKS of the last section into new ones (a
   * long block, once it ends, can be rendered again as several blocks in its place).
   */
  settle(): void {
    if (!this.grouped) {
      const fold = this.container.querySelector(':scope > [data-role="fold"]') === null ? 0 : 1;
      if (this.container.childElementCount - fold > SECTION_BLOCKS) this.regroup();
      return;
    }
    const last = this.container.lastChild;
    if (!isSection(last) || last.childElementCount <= SECTION_BLOCKS) return;
    let elements = 0;
    const extra = [...last.childNodes].filter((node) => (node.nodeType === Node.ELEMENT_NODE ? ++elements : elements) > SECTION_BLOCKS);
    for (const node of extra) node.remove();
    this.place(extra);
  }

  /** Groups the container's blocks again by the rule above (also after blocks were put back outside their sections: a fold shown again). A fold's row stays first. */
  regroup(): void {
    const fold = this.container.querySelector(':scope > [data-role="fold"]');
    const nodes: ChildNode[] = [];
    for (const child of [...this.container.childNodes]) {
      if (isSection(child)) nodes.push(...child.childNodes);
      else if (child !== fold) nodes.push(child);
    }
    this.container.replaceChildren(...(fold === null ? [] : [fold]));
    this.grouped = countElements(nodes) > SECTION_BLOCKS;
    this.place(nodes);
  }

  /** Forgets the sections (the container was emptied). */
  clear(): void {
    this.grouped = false;
  }
}

function newSection(): HTMLElement {
  const section = document.createElement('div');
  section.className = 'aq-section';
  return section;
}

function isSection(node: Node | null | undefined): node is HTMLElement {
  return node instanceof HTMLElement && node.classList.contains('aq-section');
}

function countElements(nodes: readonly ChildNode[]): number {
  return nodes.reduce((count, node) => count + (node.nodeType === Node.ELEMENT_NODE ? 1 : 0), 0);
}

/** Takes `nodes` out of the page; a section they leave empty goes too (it would keep its place's height). */
export function takeOut(nodes: readonly ChildNode[]): void {
  for (const node of nodes) {
    const parent = node.parentNode;
    node.remove();
    if (isSection(parent) && parent.firstChild === null) parent.remove();
  }
}

/** Groups a one-shot render's nodes in `element` as a streamed answer's end is grouped. */
export function groupSections(element: HTMLElement): void {
  if (element.childElementCount > SECTION_BLOCKS) new Sections(element).regroup();
}
