/**
 * Long runs of children (an answer's top-level blocks, a quote's blocks, a list's items, a table's
 * rows) are grouped: the first GROUP_SIZE stay where they are, every GROUP_SIZE after them go into a
 * group element of their own. The browser lays out an element's children one by one, and keeps the
 * layout of a group it did not touch, so new text costs layout in proportion to one group and the
 * number of groups, never to every child before it.
 *
 * The rule depends only on a child's index, so the streamed DOM and a one-shot render (see the
 * `aq_groups` rule in markdown.ts) group the same children.
 */
import { GROUP_SIZE } from '../../shared/answer/blocks';

export { GROUP_SIZE };

/** Consecutive nodes under one parent: `first` and the `count - 1` siblings after it. */
export interface Segment {
  readonly parent: Node;
  readonly first: ChildNode;
  readonly count: number;
}

/** Where some rendered nodes went, in order (more than one segment when they span groups). */
export type Placement = readonly Segment[];

/** An empty group at the end of its host: the element its children go into, and every node it added. */
export interface Group {
  readonly into: Element;
  readonly nodes: readonly ChildNode[];
}

/** How a grouped element grows. */
export interface GroupShape {
  /** Where the first GROUP_SIZE children go. */
  readonly root: Node;
  /** Adds an empty group at the end. */
  readonly addGroup: () => Group;
  /** Called when the first group appears and when the last one goes (tables change their layout). */
  readonly grouped?: (grouped: boolean) => void;
}

/** The parent index `index` (of the children) belongs in: -1 for the root, else the group's index. */
function groupOf(index: number): number {
  return index < GROUP_SIZE ? -1 : Math.floor((index - GROUP_SIZE) / GROUP_SIZE);
}

function nodesOf(segment: Segment): ChildNode[] {
  const nodes: ChildNode[] = [];
  for (let node: ChildNode | null = segment.first; node !== null && nodes.length < segment.count; node = node.nextSibling) {
    nodes.push(node);
  }
  return nodes;
}

/** Adds `node` to the placement being built (a new segment when the parent changes). */
function extend(segments: Segment[], parent: Node, node: ChildNode): void {
  const last = segments[segments.length - 1];
  if (last?.parent === parent) {
    segments[segments.length - 1] = { parent, first: last.first, count: last.count + 1 };
  } else {
    segments.push({ parent, first: node, count: 1 });
  }
}

/**
 * Appends rendered children to a grouped element. Elements are the children that count; a text
 * node (the line break after a block) goes where the element before it went. Removal is only ever
 * of the last nodes appended (the open part of a stream, rendered again every frame).
 */
export class Grouper {
  private elements = 0;
  private readonly groups: Group[] = [];

  constructor(private readonly shape: GroupShape) {}

  /** Appends the fragment's nodes in order; returns where they went. */
  append(fragment: DocumentFragment): Placement {
    const segments: Segment[] = [];
    for (const node of Array.from(fragment.childNodes)) {
      const parent = node.nodeType === Node.ELEMENT_NODE ? this.parentForNext() : this.parentOfLast();
      if (node.nodeType === Node.ELEMENT_NODE) {
        this.elements++;
      }
      parent.appendChild(node);
      extend(segments, parent, node);
    }
    return segments;
  }

  /** How many elements have been placed. */
  get count(): number {
    return this.elements;
  }

  /** How many more elements go where they are until the next group starts. */
  untilGroup(): number {
    return this.elements < GROUP_SIZE ? GROUP_SIZE - this.elements : (GROUP_SIZE - ((this.elements - GROUP_SIZE) % GROUP_SIZE)) % GROUP_SIZE;
  }

  /**
   * Adds a whole group (GROUP_SIZE elements to come) at once, empty: its children are put in
   * later (see lazy.ts). Only where a group starts (`untilGroup()` is 0).
   */
  placeGroup(): Element {
    if (this.untilGroup() !== 0) {
      throw new Error('a whole group goes only where a group starts');
    }
    this.parentForNext();
    this.elements += GROUP_SIZE;
    return this.groups[this.groups.length - 1].into;
  }

  /**
   * Adds `count` whole groups at once as one empty element (held groups that stand in one element
   * until the view comes near them, see lazy.ts). They count as `count` groups: what follows goes
   * into a group of its own after them.
   */
  placeGroups(count: number): Element {
    const element = this.placeGroup();
    const group = this.groups[this.groups.length - 1];
    for (let more = 1; more < count; more++) {
      this.groups.push(group);
    }
    this.elements += (count - 1) * GROUP_SIZE;
    return element;
  }

  /** Removes the nodes of a placement made by the last appends; groups left empty go too. */
  remove(placement: Placement): void {
    for (const segment of placement) {
      for (const node of nodesOf(segment)) {
        if (node.nodeType === Node.ELEMENT_NODE) {
          this.elements--;
        }
        node.remove();
      }
    }
    while (this.groups.length > 0 && this.elements <= GROUP_SIZE * this.groups.length) {
      for (const node of this.groups.pop()?.nodes ?? []) {
        node.remove();
      }
      if (this.groups.length === 0) {
        this.shape.grouped?.(false);
      }
    }
  }

  private parentOfLast(): Node {
    const group = groupOf(Math.max(0, this.elements - 1));
    return group < 0 ? this.shape.root : this.groups[group].into;
  }

  private parentForNext(): Node {
    const group = groupOf(this.elements);
    if (group < 0) {
      return this.shape.root;
    }
    while (this.groups.length <= group) {
      this.groups.push(this.shape.addGroup());
      if (this.groups.length === 1) {
        this.shape.grouped?.(true);
      }
    }
    return this.groups[group].into;
  }
}

/**
 * Puts `count` empty groups (each `shell()`: a group's nodes, as the grouper places one) right after
 * the group `group` and what came with it, before the element after it. Returns their elements, in
 * order. (A run of held groups that stood in one group's element gets the elements of the groups
 * it stood for, see lazy.ts.)
 */
export function groupsAfter(group: Element, count: number, shell: () => DocumentFragment): HTMLElement[] {
  const next = group.nextElementSibling;
  const made: HTMLElement[] = [];
  for (let each = 0; each < count; each++) {
    const fragment = shell();
    made.push(fragment.firstElementChild as HTMLElement);
    group.parentNode?.insertBefore(fragment, next);
  }
  return made;
}

/** Inserts `fragment` under `parent` before `before` (null: at the end); returns where it went. */
export function insertPlaced(parent: Node, fragment: DocumentFragment, before: Node | null = null): Placement {
  const first = fragment.firstChild;
  const count = fragment.childNodes.length;
  parent.insertBefore(fragment, before);
  return first === null ? [] : [{ parent, first, count }];
}

/**
 * Puts `fragment` where `placement` was (rendered again: the same children, new markup). Its
 * elements are dealt out over the old segments as many as each held, so a placement that spans
 * groups still does.
 */
export function replacePlacement(placement: Placement, fragment: DocumentFragment): Placement {
  const old = placement.map((segment) => {
    const nodes = nodesOf(segment);
    return { parent: segment.parent, elements: nodes.filter((node) => node.nodeType === Node.ELEMENT_NODE).length, next: nodes[nodes.length - 1]?.nextSibling ?? null, nodes };
  });
  for (const { nodes } of old) {
    for (const node of nodes) {
      node.remove();
    }
  }
  const fresh = Array.from(fragment.childNodes);
  const segments: Segment[] = [];
  let at = 0;
  old.forEach(({ parent, elements, next }, i) => {
    const last = i === old.length - 1;
    for (let taken = 0; at < fresh.length; at++) {
      const node = fresh[at];
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (taken === elements && !last) {
          break;
        }
        taken++;
      }
      parent.insertBefore(node, next);
      extend(segments, parent, node);
    }
  });
  return segments;
}
