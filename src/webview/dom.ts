/** Properties for {@link h}. */
export interface ElementProps {
  readonly className?: string;
  readonly text?: string;
  readonly attrs?: Readonly<Record<string, string>>;
}

/** Creates an element with a class, text and attributes (never parses HTML). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElementProps = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.className !== undefined) {
    element.className = props.className;
  }
  if (props.text !== undefined) {
    element.textContent = props.text;
  }
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

/** A codicon glyph, hidden from assistive technology (its button carries the label). */
export function icon(name: string): HTMLSpanElement {
  return h('span', { className: `codicon codicon-${name}`, attrs: { 'aria-hidden': 'true' } });
}

/** A button: icon only (label as aria-label and tooltip) unless `text` is shown next to the icon. */
export function button(action: string, label: string, iconName: string, onClick: () => void, options: { text?: string; className?: string } = {}): HTMLButtonElement {
  const className = options.className ?? (options.text === undefined ? 'aq-icon-button' : 'aq-button');
  const element = h('button', { className, attrs: { type: 'button', 'data-action': action, 'aria-label': label, title: label } }, icon(iconName));
  if (options.text !== undefined) {
    element.append(h('span', { text: options.text }));
  }
  element.addEventListener('click', onClick);
  return element;
}

/** Swaps a button's action, label and icon (Send ⇄ Stop). */
export function retarget(element: HTMLButtonElement, action: string, label: string, iconName: string, text?: string): void {
  element.dataset.action = action;
  element.setAttribute('aria-label', label);
  element.title = label;
  element.replaceChildren(icon(iconName));
  if (text !== undefined) {
    element.append(h('span', { text }));
  }
}

/**
 * Header facts that follow an answer as it renders (status, size, HTTP status), written only when
 * they change: a header refreshed after every frame's render rewrote the same values each frame,
 * each write a DOM mutation (a new text node, an attribute record) the page then processes.
 */
export function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) {
    element.textContent = text;
  }
}

/** Shows or hides `element` (its `hidden`), written only when it changes (see {@link setText}). */
export function setHidden(element: HTMLElement, hidden: boolean): void {
  if (element.hidden !== hidden) {
    element.hidden = hidden;
  }
}

/** Sets `element`'s `data-{key}`, written only when it changes (see {@link setText}). */
export function setData(element: HTMLElement, key: string, value: string): void {
  if (element.dataset[key] !== value) {
    element.dataset[key] = value;
  }
}
