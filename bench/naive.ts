// The renderer benchmark's baseline (never shipped): re-renders the whole answer on every update.
import type { RendererOptions } from '../src/webview/render/answer';
import { renderMarkup, sanitizeToNodes } from '../src/webview/render/markdown';

/** Every update parses, sanitizes and replaces the whole answer (coalesced per frame, like the real renderer). */
export class NaiveRenderer {
  private text = '';
  private scheduled = false;
  private renderedLength = -1;
  private readonly schedule: (callback: () => void) => void;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: RendererOptions = {},
  ) {
    this.schedule = options.scheduleFrame ?? ((callback) => void requestAnimationFrame(() => callback()));
  }

  /** Adds streamed text; the whole answer is rendered again on the next frame. */
  append(text: string): void {
    this.text += text;
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => this.render());
    }
  }

  /** Renders everything now. */
  finish(): void {
    this.render();
  }

  /** Starts over with `text`. */
  reset(text = ''): void {
    this.text = text;
    this.renderedLength = -1;
    this.render();
  }

  private render(): void {
    this.scheduled = false;
    if (this.renderedLength === this.text.length) {
      return;
    }
    this.renderedLength = this.text.length;
    this.container.replaceChildren(sanitizeToNodes(renderMarkup(this.text)));
    this.options.onRender?.();
  }
}
